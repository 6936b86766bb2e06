"""The exam widget of the CCA-F notebooks: one item at a time over an :class:`ExamSession`.

The widget keeps only what it shows (the position, whether it is loading an item's options
so that setting them does not count as answering) on the instance; answers, flags, the
review order, the clock and every line of text come from the session. Where the report is
recorded is passed in (``progress``), never read from the environment here; the public
:func:`exam_mode` is the boundary that reads ``$MCPMINI_PROGRESS`` when the caller does not
say. ``ipywidgets`` is imported when a widget is built.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..progress import progress_path, record_quiz
from .bank import QuizItem, load_bank
from .session import ExamSession

__all__ = ["ExamWidget", "exam_mode"]


class ExamWidget:
    """An exam over ``session``: answer, flag for review, a timer, then the report (scaled
    score with the 720 line, percent per task statement, the rebuttal of every wrong option
    chosen). With ``progress`` set, the graded report is added to that progress file.

    ``box`` is the ipywidgets box to display (its ``session`` attribute is the session, so a
    headless run can print ``box.session.finish().lines()``).
    """

    def __init__(self, session: ExamSession, progress: Path | None = None) -> None:
        import ipywidgets as widgets

        self.session = session
        self.progress = progress
        self.at = 0
        self.loading = False
        self.header = widgets.HTML()
        self.body = widgets.HTML()
        self.single = widgets.RadioButtons(options=[], layout=widgets.Layout(width="auto"))
        self.multi = widgets.SelectMultiple(options=[], rows=6, layout=widgets.Layout(width="90%"))
        self.flag = widgets.Checkbox(description="見直す (flag for review)")
        back = widgets.Button(description="◀ 前へ")
        ahead = widgets.Button(description="次へ ▶")
        review = widgets.Button(description="見直しへ")
        done = widgets.Button(description="終了して採点", button_style="primary")
        self.result = widgets.HTML()
        # a ticking timer without threads: the browser advances Play once a second and each
        # tick reaches the kernel, which redraws the status line (and grades at time-out)
        self.ticker = widgets.Play(
            value=0,
            min=0,
            max=max(1, int(session.budget_s)),
            interval=1000,
            show_repeat=False,
            playing=True,
            description="timer",
        )
        for w in (self.single, self.multi):
            w.observe(self._save, names="value")
        self.flag.observe(self._mark, names="value")
        self.ticker.observe(self._tick, names="value")
        back.on_click(lambda _: self.move(-1))
        ahead.on_click(lambda _: self.move(1))
        review.on_click(lambda _: self.to_flagged())
        done.on_click(lambda _: self.finish())
        self.box = widgets.VBox(
            [
                self.header,
                self.body,
                self.single,
                self.multi,
                self.flag,
                widgets.HBox([back, ahead, review, done]),
                self.result,
                self.ticker,
            ]
        )
        self.box.session = session
        self.show()

    @property
    def item(self) -> QuizItem:
        """The item on screen."""
        return self.session.items[self.at]

    def _status(self) -> None:
        self.header.value = f"<b>{html.escape(self.session.header(self.at))}</b>"

    def show(self) -> None:
        """Draw the item at the current position with the answer and flag recorded for it."""
        it, exam = self.item, self.session
        self._status()
        self.body.value = f"<p>{html.escape(it.scenario)}</p><p><b>{html.escape(it.stem)}</b></p>"
        labels = [(f"{o.id}. {o.text}", o.id) for o in it.options]
        chosen = exam.answers.get(it.id, [])
        self.loading = True  # setting the options must not count as answering
        self.single.layout.display = "none" if it.pick > 1 else None
        self.multi.layout.display = None if it.pick > 1 else "none"
        self.single.options, self.multi.options = labels, labels
        self.single.value = chosen[0] if chosen and it.pick == 1 else None
        self.multi.value = tuple(chosen) if it.pick > 1 else ()
        self.flag.value = it.id in exam.flagged
        self.loading = False

    def move(self, step: int) -> None:
        """Go ``step`` items on (or back), wrapping round."""
        self.at = (self.at + step) % len(self.session.items)
        self.show()

    def to_flagged(self) -> None:
        """Go to the next item flagged for review, if any."""
        nxt = self.session.next_flagged(self.at)
        if nxt is not None:
            self.at = nxt
            self.show()

    def finish(self) -> None:
        """Stop the timer, grade, show the report and record it when ``progress`` is set."""
        self.ticker.playing = False
        report = self.session.finish()
        self.result.value = "<pre>" + html.escape("\n".join(report.lines())) + "</pre>"
        if self.progress is not None:
            record_quiz(self.progress, report)

    def _save(self, _: Any = None) -> None:
        if self.loading:
            return
        it = self.item
        single = [self.single.value] if self.single.value else []
        self.session.answer(it.id, list(self.multi.value) if it.pick > 1 else single)
        self._status()

    def _mark(self, change: Any) -> None:
        if not self.loading:
            self.session.flag(self.item.id, bool(change["new"]))

    def _tick(self, _: Any = None) -> None:
        self._status()
        if self.session.expired and self.session.report is None:
            self.header.value += " — <b>時間切れ：採点しました</b>"
            self.finish()


def exam_mode(
    count: int = 20,
    seed: int = 0,
    minutes: float | None = None,
    tasks: Sequence[str] | None = None,
    session: ExamSession | None = None,
    record: bool = True,
    environ: Mapping[str, str] | None = None,
) -> Any:
    """The exam widget's box, over ``session`` or a new session drawn with ``count``,
    ``seed``, ``minutes`` and ``tasks``.

    With ``record`` the graded report goes to the learner's progress file (``mcpmini
    progress``), found from ``environ`` (default: the process environment) as
    :func:`~mcpmini.course.progress.progress_path` says. Returns the ipywidgets box; its
    ``session`` attribute is the session.
    """
    exam = session if session is not None else ExamSession(load_bank(), count, seed, minutes, tasks)
    path = progress_path(os.environ if environ is None else environ) if record else None
    return ExamWidget(exam, path).box
