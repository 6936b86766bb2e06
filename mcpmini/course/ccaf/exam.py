"""The exam widget of the CCA-F notebooks: one item at a time over an :class:`ExamSession`.

The widget keeps only what it shows (the position, whether it is loading an item's options so
that setting them does not count as answering) on the instance; answers, flags, the review
order, the clock, the lock and every line of text come from the session, in its language.
A single-answer item is a set of radio buttons, a multiple-response item one checkbox per
option with the number to choose above them. Submitting (or the clock reaching zero) grades,
shows the report and disables every answer control.

The timer runs in the browser from the moment the widget is shown: a ``Play`` widget ticks
once a second in the front end and each tick reaches the kernel, which redraws the status
and submits at zero. ``Play`` only starts on a change of ``playing`` seen by its view, so the
widget tracks its views (``_view_count``) and sets ``playing`` when the first one appears —
no click needed. Where the report is recorded is passed in (``progress``); the public
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
from .bank import Lang, QuizItem, Text
from .loader import load_bank
from .session import EntryError, ExamSession
from .sitting import DEFAULT_FORMAT, Format

__all__ = ["ExamWidget", "exam_mode"]

#: The widget's own labels, in both languages.
WIDGET: dict[str, Text] = {
    "back": Text("◀ 前へ", "◀ Back"),
    "next": Text("次へ ▶", "Next ▶"),
    "review": Text("見直しへ", "Next flagged"),
    "submit": Text("提出して採点", "Submit"),
    "flag": Text("見直す", "Flag for review"),
    "timeout": Text("時間切れ：提出しました", "Time is up: submitted"),
    "submitted": Text("提出済み：答えは変えられません", "Submitted: answers are locked"),
}


def _word(key: str, lang: Lang) -> str:
    text = WIDGET[key]
    return f"{text.en} / {text.ja}" if lang is Lang.BOTH else text.lang(lang)


def _html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


class ExamWidget:
    """An exam over ``session``: answer, flag for review, a running timer, then the report
    (the scaled score as an estimate with the 720 line; for every miss the choice, the key,
    the explanation and the rebuttal; percent per scenario, domain, task statement). With
    ``progress`` set, the graded report is added to that progress file.

    ``box`` is the ipywidgets box to display (its ``session`` attribute is the session, so a
    headless run can print ``box.session.finish().lines()``).
    """

    def __init__(self, session: ExamSession, progress: Path | None = None) -> None:
        import ipywidgets as widgets

        self.session = session
        self.progress = progress
        self.at = 0
        self.loading = False
        lang = session.lang
        most = max((len(it.options) for it in session.items), default=4)
        self.header = widgets.HTML()
        self.scenario = widgets.HTML()
        self.body = widgets.HTML()
        self.single = widgets.RadioButtons(options=[], layout=widgets.Layout(width="auto"))
        self.checks = [
            widgets.Checkbox(indent=False, layout=widgets.Layout(width="auto")) for _ in range(most)
        ]
        self.multi = widgets.VBox([])
        self.flag = widgets.Checkbox(description=_word("flag", lang), indent=False)
        self.buttons = [
            widgets.Button(description=_word("back", lang)),
            widgets.Button(description=_word("next", lang)),
            widgets.Button(description=_word("review", lang)),
            widgets.Button(description=_word("submit", lang), button_style="primary"),
        ]
        self.result = widgets.HTML()
        self.ticker = widgets.Play(
            value=0,
            min=0,
            max=max(1, int(session.budget_s) + 1),
            interval=1000,
            show_repeat=False,
            playing=False,
            description="timer",
            disabled=True,  # the learner cannot pause the clock
            _view_count=0,
        )
        self.single.observe(self._save, names="value")
        for box in self.checks:
            box.observe(self._save, names="value")
        self.flag.observe(self._mark, names="value")
        self.ticker.observe(self._tick, names="value")
        self.ticker.observe(self._shown, names="_view_count")
        back, ahead, review, done = self.buttons
        back.on_click(lambda _: self.move(-1))
        ahead.on_click(lambda _: self.move(1))
        review.on_click(lambda _: self.to_flagged())
        done.on_click(lambda _: self.finish())
        self.box = widgets.VBox(
            [
                self.header,
                self.scenario,
                self.body,
                self.single,
                self.multi,
                self.flag,
                widgets.HBox(self.buttons),
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
        line = f"<b>{html.escape(self.session.header(self.at))}</b>"
        if self.session.locked:
            line += f" — <b>{html.escape(_word('submitted', self.session.lang))}</b>"
        self.header.value = line

    def show(self) -> None:
        """Draw the item at the current position with the answer and flag recorded for it."""
        it, exam, lang = self.item, self.session, self.session.lang
        self._status()
        title = html.escape(exam.scenario_title(it))
        self.scenario.value = f"<p><i>{title}</i>: {_html(exam.scenario_text(it))}</p>"
        hint = exam.choose_hint(it)
        self.body.value = (
            f"<p>{_html(it.situation.lang(lang))}</p><p><b>{_html(it.stem.lang(lang))}</b></p>"
            + (f"<p><b>({html.escape(hint)})</b></p>" if hint else "")
        )
        labels = [(f"{o.id}. {o.text.lang(lang)}", o.id) for o in it.options]
        chosen = exam.answers.get(it.id, [])
        self.loading = True  # setting the options must not count as answering
        # only the controls of this item are on the page: radio buttons or one checkbox each
        self.single.layout.display = "none" if it.pick > 1 else None
        self.single.options = labels if it.pick == 1 else []
        self.single.value = chosen[0] if chosen and it.pick == 1 else None
        boxes = self.checks[: len(it.options)] if it.pick > 1 else []
        for box, (text, option_id) in zip(boxes, labels, strict=False):
            box.description = text
            box.value = option_id in chosen
        self.multi.children = tuple(boxes)
        self.flag.value = it.id in exam.flagged
        self.loading = False
        self._lock_controls()

    def _lock_controls(self) -> None:
        locked = self.session.locked
        for w in (self.single, self.flag, *self.checks, self.buttons[3]):
            w.disabled = locked

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
        """Submit: stop the timer, grade, lock the answers, show the report in the
        session's language, and record it when ``progress`` is set (once)."""
        self.ticker.playing = False
        first = not self.session.locked
        report = self.session.finish()
        self.result.value = (
            "<pre>" + html.escape("\n".join(report.lines(self.session.lang))) + "</pre>"
        )
        self._status()
        self._lock_controls()
        if first and self.progress is not None:
            record_quiz(self.progress, report)

    def _chosen(self) -> list[str]:
        it = self.item
        if it.pick == 1:
            return [self.single.value] if self.single.value else []
        return [o.id for o, box in zip(it.options, self.multi.children, strict=False) if box.value]

    def _save(self, change: Any = None) -> None:
        if self.loading or self.session.locked:
            return
        try:
            self.session.answer(self.item.id, self._chosen())
        except EntryError:  # one box too many: take the last tick back
            self.loading = True
            if change is not None and hasattr(change.get("owner"), "value"):
                change["owner"].value = False
            self.loading = False
        self._status()

    def _mark(self, change: Any) -> None:
        if not self.loading and not self.session.locked:
            self.session.flag(self.item.id, bool(change["new"]))
            self._status()

    def _shown(self, change: Any) -> None:
        """The first view appeared in the browser: start the front-end timer."""
        if (change["new"] or 0) > 0 and not self.session.locked and not self.ticker.playing:
            self.ticker.playing = True

    def _tick(self, _: Any = None) -> None:
        if self.session.locked:
            return
        self._status()
        if self.session.expired:
            self.finish()
            self.header.value += f" — <b>{html.escape(_word('timeout', self.session.lang))}</b>"


def exam_mode(
    count: int = 20,
    seed: int = 0,
    minutes: float | None = None,
    tasks: Sequence[str] | None = None,
    session: ExamSession | None = None,
    record: bool = True,
    environ: Mapping[str, str] | None = None,
    *,
    sitting: int | None = None,
    format: Format | str = DEFAULT_FORMAT,
    lang: Lang | str = Lang.BOTH,
) -> Any:
    """The exam widget's box, over ``session`` or a new one: with ``sitting``, that full
    exam of ``seed`` (60 items in four scenarios, 120 minutes unless ``minutes``); otherwise
    a practice set of ``count`` items drawn with ``seed``, restricted to ``tasks``. ``format``
    and ``lang`` as :class:`ExamSession` takes them.

    With ``record`` the graded report goes to the learner's progress file (``mcpmini
    progress``), found from ``environ`` (default: the process environment) as
    :func:`~mcpmini.course.progress.progress_path` says. Returns the ipywidgets box; its
    ``session`` attribute is the session. Raises :class:`ValueError` as the draw does.
    """
    if session is not None:
        exam = session
    elif sitting is not None:
        exam = ExamSession.sitting(load_bank(), sitting, seed, format, lang, minutes=minutes)
    else:
        exam = ExamSession(load_bank(), count, seed, minutes, tasks, format=format, lang=lang)
    path = progress_path(os.environ if environ is None else environ) if record else None
    return ExamWidget(exam, path).box
