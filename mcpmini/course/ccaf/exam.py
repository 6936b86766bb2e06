"""The exam widget of the CCA-F notebooks: one item at a time over an :class:`ExamSession`.

The widget keeps only what it shows (the position, whether it is loading an item's options so
that setting them does not count as answering) on the instance; answers, flags, the review
order, the clock, the lock and every line of text come from the session, in its language.

The screen reads like the real one: one language at a time, with a visible switch (Japanese /
English) that redraws everything, the report included; every option a full-width row — a
checkbox and the option's text wrapping beside it — so long options never overlap or push a
control off the page; in a single-answer item ticking one option unticks the others, in a
"choose N" item a tick past N is refused with a message saying to untick one first. The buttons
wrap onto a second row rather than being cut off. Submitting (or the clock reaching zero)
grades, shows the score, and folds the rest of the report by domain (the misses) and by table
(per scenario, domain, task statement), one fold open at a time.

The timer runs in the browser from the moment the widget is shown: a labelled ``Play``
widget ticks once a second in the front end and each tick reaches the kernel, which redraws
the status and submits at zero. ``Play`` only starts on a change of ``playing`` seen by its
view, so the widget tracks its views (``_view_count``) and sets ``playing`` when the first
one appears — no click needed. Where the report is recorded is passed in (``progress``); the
public :func:`exam_mode` is the boundary that reads ``$MCPMINI_PROGRESS`` when the caller
does not say. ``ipywidgets`` is imported when a widget is built.
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
from .session import AnswersLocked, EntryError, ExamSession
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
    "timer": Text(
        "タイマー（表示された時点で動き出し、止められない）",
        "Timer (starts when shown; it cannot be paused)",
    ),
    "too many": Text(
        "この問題は {n} つ選びます。別の選択肢を選ぶには、先にどれかのチェックを外してください。",
        "Choose {n} for this item. To choose another option, untick one first.",
    ),
    "language": Text("表示の言語", "Language"),
}
#: The languages the switch offers, named in the language the widget opens in (so the
#: English edition's notebooks hold no Japanese).
_SWITCH = ((Text("日本語", "Japanese"), Lang.JA.value), (Text("English", "English"), Lang.EN.value))


def _html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def _pre(lines: Sequence[str]) -> str:
    return "<pre style='white-space: pre-wrap'>" + html.escape("\n".join(lines)) + "</pre>"


class ExamWidget:
    """An exam over ``session``: answer, flag for review, a running timer, then the report
    (the scaled score as an estimate with the 720 line; for every miss the choice, the key,
    the explanation and the rebuttal, folded by domain; percent per scenario, domain, task
    statement). With ``progress`` set, the graded report is added to that progress file.

    ``box`` is the ipywidgets box to display (its ``session`` attribute is the session, so a
    headless run can print ``box.session.finish().lines()``).
    """

    def __init__(self, session: ExamSession, progress: Path | None = None) -> None:
        import ipywidgets as widgets

        self.session = session
        self.progress = progress
        self.at = 0
        self.loading = False
        if session.lang is Lang.BOTH:  # the screen shows one language at a time
            session.lang = Lang.EN
        full = widgets.Layout(width="100%")
        most = max((len(it.options) for it in session.items), default=4)
        self.switch = widgets.ToggleButtons(
            options=[(name.lang(session.lang), code) for name, code in _SWITCH],
            value=session.lang.value,
            style={"button_width": "auto"},
        )
        self.switch_label = widgets.Label()
        self.header = widgets.HTML(layout=full)
        self.scenario = widgets.HTML(layout=full)
        self.body = widgets.HTML(layout=full)
        self.checks = [
            widgets.Checkbox(indent=False, layout=widgets.Layout(width="28px", flex="0 0 28px"))
            for _ in range(most)
        ]
        self.texts = [widgets.HTML(layout=widgets.Layout(flex="1 1 auto")) for _ in range(most)]
        self.rows = [
            widgets.HBox(
                [box, text],
                layout=widgets.Layout(
                    width="100%", align_items="flex-start", border="1px solid #ddd", padding="2px"
                ),
            )
            for box, text in zip(self.checks, self.texts, strict=True)
        ]
        for row in self.rows:
            row.add_class("ccaf-option")
        self.choices = widgets.VBox([], layout=full)
        self.message = widgets.HTML(layout=full)
        self.message.add_class("ccaf-message")
        self.flag = widgets.Checkbox(indent=False)
        self.buttons = [widgets.Button(layout=widgets.Layout(width="auto")) for _ in range(4)]
        self.buttons[3].button_style = "primary"
        for button in self.buttons:
            button.add_class("ccaf-button")
        self.summary = widgets.HTML(layout=full)
        self.folds = widgets.Accordion(children=[], layout=full)
        self.result = widgets.VBox([self.summary, self.folds], layout=full)
        self.timer_label = widgets.Label()
        self.ticker = widgets.Play(
            value=0,
            min=0,
            max=max(1, int(session.budget_s) + 1),
            interval=1000,
            show_repeat=False,
            playing=False,
            disabled=True,  # the learner cannot pause the clock
            _view_count=0,
        )
        for box in self.checks:
            box.observe(self._save, names="value")
        self.flag.observe(self._mark, names="value")
        self.ticker.observe(self._tick, names="value")
        self.ticker.observe(self._shown, names="_view_count")
        self.switch.observe(self._switch, names="value")
        back, ahead, review, done = self.buttons
        back.on_click(lambda _: self.move(-1))
        ahead.on_click(lambda _: self.move(1))
        review.on_click(lambda _: self.to_flagged())
        done.on_click(lambda _: self.finish())
        self.box = widgets.VBox(
            [
                self.header,
                widgets.HBox([self.switch_label, self.switch]),
                self.scenario,
                self.body,
                self.choices,
                self.message,
                self.flag,
                widgets.HBox(self.buttons, layout=widgets.Layout(flex_flow="row wrap")),
                self.result,
                widgets.HBox([self.timer_label, self.ticker]),
            ],
            layout=full,
        )
        self.box.add_class("ccaf-exam")
        self.switch.add_class("ccaf-switch")
        self.summary.add_class("ccaf-summary")
        self.header.add_class("ccaf-header")
        self.box.session = session
        self.show()

    @property
    def item(self) -> QuizItem:
        """The item on screen."""
        return self.session.items[self.at]

    def _word(self, key: str, **values: Any) -> str:
        return WIDGET[key].lang(self.session.lang).format(**values)

    def _status(self) -> None:
        line = f"<b>{html.escape(self.session.header(self.at))}</b>"
        if self.session.locked:
            line += f" — <b>{html.escape(self._word('submitted'))}</b>"
            if self.session.expired:
                line += f" — <b>{html.escape(self._word('timeout'))}</b>"
        self.header.value = line

    def _labels(self) -> None:
        for button, key in zip(self.buttons, ("back", "next", "review", "submit"), strict=True):
            button.description = self._word(key)
        self.flag.description = self._word("flag")
        self.timer_label.value = self._word("timer")
        self.switch_label.value = self._word("language")

    def show(self) -> None:
        """Draw the item at the current position with the answer and flag recorded for it."""
        it, exam, lang = self.item, self.session, self.session.lang
        self._labels()
        self._status()
        title = html.escape(exam.scenario_title(it))
        self.scenario.value = f"<p><i>{title}</i>: {_html(exam.scenario_text(it))}</p>"
        hint = exam.choose_hint(it)
        self.body.value = (
            f"<p>{_html(it.situation.lang(lang))}</p><p><b>{_html(it.stem.lang(lang))}</b></p>"
            + (f"<p><b>({html.escape(hint)})</b></p>" if hint else "")
        )
        chosen = exam.answers.get(it.id, [])
        self.loading = True  # setting the options must not count as answering
        for box, text, option in zip(self.checks, self.texts, it.options, strict=False):
            box.value = option.id in chosen
            text.value = f"<b>{option.id}.</b> {_html(option.text.lang(lang))}"
        self.choices.children = tuple(self.rows[: len(it.options)])
        self.message.value = ""
        self.flag.value = it.id in exam.flagged
        self.loading = False
        self._lock_controls()
        if exam.locked:
            self._report()

    def _lock_controls(self) -> None:
        locked = self.session.locked
        for w in (self.flag, *self.checks, self.buttons[3]):
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

    def _report(self) -> None:
        report = self.session.finish()
        lang = self.session.lang
        self.summary.value = _pre(report.summary(lang))
        sections = report.sections(lang)
        self.folds.children = tuple(
            self.folds.children[n] if n < len(self.folds.children) else _new_html()
            for n in range(len(sections))
        )
        for n, (title, lines) in enumerate(sections):
            self.folds.children[n].value = _pre(lines)
            self.folds.set_title(n, title)

    def finish(self) -> None:
        """Submit: stop the timer, grade, lock the answers, show the report in the
        session's language, and record it when ``progress`` is set (once)."""
        self.ticker.playing = False
        first = not self.session.locked
        report = self.session.finish()
        self._report()
        self._status()
        self._lock_controls()
        if first and self.progress is not None:
            record_quiz(self.progress, report)

    def _chosen(self) -> list[str]:
        return [o.id for o, box in zip(self.item.options, self.checks, strict=False) if box.value]

    def _save(self, change: Any = None) -> None:
        if self.loading or self.session.locked:
            return
        it = self.item
        owner = change.get("owner") if isinstance(change, Mapping) else None
        if it.pick == 1 and owner is not None and change.get("new"):
            self.loading = True  # one answer: ticking an option unticks the others
            for box in self.checks:
                if box is not owner:
                    box.value = False
            self.loading = False
        try:
            self.session.answer(it.id, self._chosen())
            self.message.value = ""
        except EntryError:  # one box too many: take the tick back and say why
            self.loading = True
            if owner is not None:
                owner.value = False
            self.loading = False
            self.message.value = f"<b>{html.escape(self._word('too many', n=it.pick))}</b>"
        except AnswersLocked:  # the time ran out: the session has submitted itself
            self.finish()
        self._status()

    def _mark(self, change: Any) -> None:
        if self.loading or self.session.locked:
            return
        try:
            self.session.flag(self.item.id, bool(change["new"]))
        except AnswersLocked:
            self.finish()
        self._status()

    def _switch(self, change: Any) -> None:
        self.session.lang = Lang(change["new"])
        self.show()

    def _shown(self, change: Any) -> None:
        """The first view appeared in the browser: start the front-end timer."""
        if (change["new"] or 0) > 0 and not self.session.locked and not self.ticker.playing:
            self.ticker.playing = True

    def _tick(self, _: Any = None) -> None:
        if self.session.locked:
            return
        if self.session.expired:
            self.finish()
        else:
            self._status()


def _new_html() -> Any:
    import ipywidgets as widgets

    return widgets.HTML()


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
    lang: Lang | str | None = None,
) -> Any:
    """The exam widget's box, over ``session`` or a new one: with ``sitting``, that full
    exam of ``seed`` (60 items in four scenarios, 120 minutes unless ``minutes``); otherwise
    a practice set of ``count`` items drawn with ``seed``, restricted to ``tasks``. ``format``
    as :class:`ExamSession` takes it; ``lang`` the language it opens in (default: the
    learner's, :func:`~mcpmini.course.language.current`), which its switch changes.

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
