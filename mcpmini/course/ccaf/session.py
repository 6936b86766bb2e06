"""An exam being taken: drawn items, answers, review flags, the clock, and what to show.

Rules of this module: one flow for every front end. The terminal (``mcpmini quiz take``) and
the notebook widget (:mod:`.exam`) both drive an :class:`ExamSession`: they hand it what the
learner typed or clicked (:meth:`~ExamSession.answer`, :meth:`~ExamSession.enter`,
:meth:`~ExamSession.flag`) and show the lines and statuses it formats, in the session's
language; neither keeps answers, flags, the review order or the time itself. A learner sees an
item by its question number in the exam (``Q7``), never by its id. Once the exam is submitted
(:meth:`~ExamSession.finish`) its answers and flags are locked: changing them raises
:class:`AnswersLocked`. A typed line must name exactly as many options as the item says to
choose; otherwise :class:`EntryError` says why, with a code. ``clock`` returns seconds
(``time.monotonic`` by default) so a test can move time by hand.

The time limit is the session's: once the budget is used up, the next answer is not taken —
the exam is submitted as it stands and :class:`TimeUp` raised. The answers document
(:meth:`~ExamSession.to_dict`, written after every item by ``quiz take --out``) names items by
opaque handles (a digest of the item id and the session's random salt, so the file says
nothing of the key), carries the time used so far (a resumed exam goes on with the rest of
its budget, and one whose time is up is submitted, not reopened) and the bank's version (a
file from another version of the bank is refused, naming both versions).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any

from ..language import current
from .bank import Bank, Lang, QuizItem, Text
from .scoring import QuizReport, fill, grade, label
from .sitting import DEFAULT_FORMAT, EXAM_ITEMS, EXAM_MINUTES, Format, draw, draw_sitting

__all__ = [
    "AnswersLocked",
    "BankVersionError",
    "EntryError",
    "EntryProblem",
    "ExamSession",
    "TimeUp",
    "clock_text",
    "read_answers",
]


def clock_text(seconds: float) -> str:
    """``seconds`` as ``m:ss`` (negative values read as 0)."""
    left = max(0, int(seconds))
    return f"{left // 60}:{left % 60:02d}"


class AnswersLocked(RuntimeError):
    """The exam was submitted: its answers and flags can no longer change."""


class TimeUp(AnswersLocked):
    """The time budget ran out: the exam was submitted as it stood, this answer not taken."""


class BankVersionError(ValueError):
    """An answers document written against another version of the bank."""

    def __init__(self, found: str, bank: str) -> None:
        self.found = found
        self.bank = bank
        super().__init__(
            f"the answers file was written against bank version {found}; "
            f"this bank is version {bank}"
        )


class EntryProblem(StrEnum):
    """Why a typed line was refused."""

    UNKNOWN_OPTION = "unknown_option"
    WRONG_COUNT = "wrong_count"


class EntryError(ValueError):
    """A typed line the item cannot take; ``code`` says why, ``text`` is the reason in both
    languages and ``reason`` the one line to show in the session's language."""

    def __init__(self, code: EntryProblem, text: Text, lang: Lang | str = Lang.BOTH) -> None:
        self.code = code
        self.text = text
        self.reason = text.inline(lang)
        super().__init__(self.reason)


#: The fixed texts of the exam screens, in both languages.
SCREEN: dict[str, Text] = {
    "status": Text(
        "回答 {answered}/{total}、見直し {flagged}、残り {left}",
        "answered {answered}/{total}, flagged {flagged}, time left {left}",
    ),
    "intro": Text(
        "{n} 問・{minutes:.0f} 分。文字で答える（A、2 つなら A,C）。末尾の ? で見直しの印、"
        "! で印を外す。Enter で飛ばし、q で終えて採点。",
        "{n} items, {minutes:.0f} minutes. Answer with letters (A, or A,C for two); a "
        "trailing ? flags the item for review, ! clears the flag; Enter skips, q submits.",
    ),
    "choose": Text("{n} つ選ぶ", "choose {n}"),
    "choose among": Text("{letters} から選ぶ", "choose among {letters}"),
    "count": Text(
        "この問題は {n} つ選ぶ（{got} つ選んだ）", "choose {n} for this item (you chose {got})"
    ),
    "current": Text("いまの答え：{answer}", "current answer: {answer}"),
    "again": Text("{reason}（Enter で飛ばし、q で提出）", "{reason} (Enter skips, q submits)"),
    "review": Text("見直し", "review"),
    "time left": Text("残り {left}", "time left {left}"),
    "sitting": Text(
        "模擬試験 {number}（種 {seed}、{format}）：シナリオ {scenarios}",
        "sitting {number} (seed {seed}, {format}): scenarios {scenarios}",
    ),
    "to review": Text("見直しの印がついた問題が {n} 問あります。", "{n} flagged items to review."),
    "time used": Text("使った時間 {used}", "time used {used}"),
    "time up": Text(
        "時間切れ：いまの答えのまま提出しました（{used} 使用）",
        "Time is up: the exam is submitted as it stands ({used} used)",
    ),
}


def screen(key: str, lang: Lang | str, **values: Any) -> str:
    """The row ``key`` of :data:`SCREEN` in ``lang`` (``both``: English / Japanese)."""
    return fill(SCREEN[key], lang, **values)


class ExamSession:
    """One exam being taken: drawn items, answers, review flags and the clock.

    The items are drawn from ``bank`` (``count`` of them, from ``seed``, restricted to
    ``tasks``, of ``format``) unless ``items`` gives them; :meth:`sitting` draws a full exam.
    The time budget is ``minutes`` (default two per item, the exam's 120 for 60). ``lang`` is
    the language of every line shown. :meth:`finish` grades the answers so far, keeps the
    report in ``report`` and locks the answers.
    """

    def __init__(
        self,
        bank: Bank,
        count: int = 20,
        seed: int = 0,
        minutes: float | None = None,
        tasks: Iterable[str] | None = None,
        clock: Callable[[], float] | None = None,
        *,
        items: Sequence[QuizItem] | None = None,
        lang: Lang | str | None = None,
        format: Format | str = DEFAULT_FORMAT,
        number: int | None = None,
        shortfall: Text | None = None,
        elapsed: float = 0.0,
        salt: str | None = None,
    ) -> None:
        import time

        self.bank = bank
        self.seed = seed
        self.lang = current() if lang is None else Lang(lang)
        self.format = Format(format)
        self.items = (
            list(items) if items is not None else draw(bank, count, seed, tasks, self.format)
        )
        self.budget_s = 60.0 * (minutes if minutes is not None else 2.0 * len(self.items))
        #: the sitting number when the items are a full exam (:meth:`sitting`)
        self.number = number
        #: the one line saying which cells held fewer items than the sitting asked
        self.shortfall = shortfall
        #: the random part of the answers document's item handles
        self.salt = salt or secrets.token_hex(6)
        self.answers: dict[str, list[str]] = {}
        self.flagged: set[str] = set()
        self._clock = clock or time.monotonic
        self.started = self._clock() - max(0.0, elapsed)
        self.report: QuizReport | None = None

    @classmethod
    def sitting(
        cls,
        bank: Bank,
        number: int = 1,
        seed: int = 0,
        format: Format | str = DEFAULT_FORMAT,
        lang: Lang | str | None = None,
        clock: Callable[[], float] | None = None,
        minutes: float | None = None,
        count: int = EXAM_ITEMS,
    ) -> ExamSession:
        """A full exam: sitting ``number`` of ``seed`` (:func:`~.sitting.draw_sitting`, 60
        items unless ``count``), 120 minutes unless ``minutes`` says otherwise. Raises
        :class:`ValueError` as the draw."""
        drawn = draw_sitting(bank, number, seed, format, count)
        return cls(
            bank,
            seed=seed,
            minutes=minutes if minutes is not None else EXAM_MINUTES,
            clock=clock,
            items=drawn.items,
            lang=lang,
            format=drawn.format,
            number=number,
            shortfall=drawn.shortfall_line(),
        )

    @classmethod
    def from_dict(
        cls,
        bank: Bank,
        data: Mapping[str, Any],
        clock: Callable[[], float] | None = None,
        minutes: float | None = None,
    ) -> ExamSession:
        """The session an answers document (:meth:`to_dict`) saved: its items, answers,
        flags, seed, language, format, time budget and the time already used (so a resumed
        exam goes on with what is left; :attr:`expired` says when nothing is). Items may be
        named by the document's opaque handles or by their ids. Raises
        :class:`BankVersionError` for a document of another bank version, :class:`KeyError`
        for an item the bank lacks and :class:`ValueError` for a malformed document or
        answer."""
        if not isinstance(data, Mapping):
            raise ValueError("answers must be a JSON object")
        ids, answers, flagged = read_answers(bank, data)
        if not ids:
            raise ValueError("the answers document lists no items")
        try:
            elapsed = float(data.get("elapsed", 0.0))
            saved = data.get("minutes")
            budget = minutes if minutes is not None else (float(saved) if saved else None)
        except (TypeError, ValueError):
            raise ValueError("'elapsed' and 'minutes' must be numbers") from None
        session = cls(
            bank,
            seed=int(data.get("seed", 0)),
            minutes=budget,
            clock=clock,
            items=[bank.item(i) for i in ids],
            lang=data.get("lang") or None,
            format=data.get("format", DEFAULT_FORMAT),
            number=data.get("sitting"),
            elapsed=elapsed,
            salt=str(data["salt"]) if data.get("salt") else None,
        )
        for item_id, chosen in answers.items():
            session._record(session._item(item_id), chosen)
        for item_id in flagged:
            session.flagged.add(session._item(item_id).id)
        return session

    def handle(self, item_id: str) -> str:
        """The opaque name of ``item_id`` in this session's answers document."""
        return _handle(self.salt, item_id)

    def _item(self, item_id: str) -> QuizItem:
        item = next((it for it in self.items if it.id == item_id), None)
        if item is None:
            raise KeyError(item_id)
        return item

    def question(self, item_id: str) -> int:
        """The learner-facing number of ``item_id`` (its position, from 1)."""
        return [it.id for it in self.items].index(self._item(item_id).id) + 1

    @property
    def locked(self) -> bool:
        """Whether the exam was submitted (answers and flags can no longer change)."""
        return self.report is not None

    def _check_open(self) -> None:
        if self.locked:
            raise AnswersLocked("the exam was submitted; its answers are locked")
        if self.expired:
            self.finish()
            raise TimeUp("the time is up; the exam was submitted as it stood")

    # --- what the learner does -----------------------------------------------------------

    def answer(self, item_id: str, options: Iterable[str]) -> None:
        """Record the chosen option ids for ``item_id`` (an empty choice clears it).

        Raises :class:`KeyError` for an item not in this exam, :class:`EntryError` for an
        option the item does not have or more options than it takes, and
        :class:`AnswersLocked` after :meth:`finish` (:class:`TimeUp` once the time is up:
        the exam is then submitted without this answer).
        """
        self._check_open()
        self._record(self._item(item_id), options)

    def _record(self, item: QuizItem, options: Iterable[str]) -> None:
        item_id = item.id
        chosen = sorted({o.strip().upper() for o in options if o.strip()})
        unknown = [o for o in chosen if item.option(o) is None]
        if unknown:
            letters = ", ".join(o.id for o in item.options)
            raise self._refuse(EntryProblem.UNKNOWN_OPTION, "choose among", letters=letters)
        if len(chosen) > item.pick:
            raise self._refuse(EntryProblem.WRONG_COUNT, "count", n=item.pick, got=len(chosen))
        if chosen:
            self.answers[item_id] = chosen
        else:
            self.answers.pop(item_id, None)

    def enter(self, item_id: str, line: str) -> None:
        """Apply one typed line to ``item_id``: ``A``, ``A,C`` or ``AC`` chooses (exactly as
        many as the item takes), a trailing ``?`` flags it for review, a trailing ``!``
        clears the flag, and a line without letters keeps the earlier answer (Enter skips).
        A flag stays until ``!`` clears it.

        Raises :class:`KeyError` for an item not in this exam, :class:`EntryError` (its
        ``code`` says why) for a letter the item lacks or the wrong number of letters — then
        nothing is recorded — and :class:`AnswersLocked` after :meth:`finish`.
        """
        self._check_open()
        item = self._item(item_id)
        text = line.strip()
        mark = text[-1:] if text[-1:] in ("?", "!") else ""
        letters = [c for c in text.rstrip("?!").upper() if c.isalnum()]
        known = {o.id for o in item.options}
        if set(letters) - known:
            among = ", ".join(sorted(known))
            raise self._refuse(EntryProblem.UNKNOWN_OPTION, "choose among", letters=among)
        if letters and len(set(letters)) != item.pick:
            got = len(set(letters))
            raise self._refuse(EntryProblem.WRONG_COUNT, "count", n=item.pick, got=got)
        if letters:
            self.answer(item_id, letters)
        if mark:
            self.flag(item_id, mark == "?")

    def flag(self, item_id: str, on: bool = True) -> None:
        """Mark ``item_id`` for review (or clear the mark); raises :class:`AnswersLocked`
        after :meth:`finish`."""
        self._check_open()
        (self.flagged.add if on else self.flagged.discard)(self._item(item_id).id)

    def finish(self) -> QuizReport:
        """Submit: grade the answers so far (flags kept) and lock them; returns the
        :class:`QuizReport`. A second call returns the same report."""
        if self.report is None:
            ids = [it.id for it in self.items]
            self.report = grade(self.bank, self.answers, ids, self.flagged)
        return self.report

    # --- review and time -------------------------------------------------------------------

    def review_items(self) -> list[QuizItem]:
        """The items flagged for review, in exam order."""
        return [it for it in self.items if it.id in self.flagged]

    def next_flagged(self, at: int) -> int | None:
        """The position of the next flagged item after position ``at`` (wrapping round),
        or ``None`` when nothing is flagged."""
        marked = [n for n, it in enumerate(self.items) if it.id in self.flagged]
        later = [n for n in marked if n > at] or marked
        return later[0] if later else None

    def time_left(self) -> float:
        """Seconds left of the budget (never below 0)."""
        return max(0.0, self.budget_s - (self._clock() - self.started))

    def time_used(self) -> float:
        """Seconds since the exam started."""
        return self._clock() - self.started

    @property
    def expired(self) -> bool:
        """Whether the time budget is used up."""
        return self.time_left() <= 0

    # --- what the front ends show ----------------------------------------------------------

    def status(self) -> str:
        """One line: answered, flagged and the time left (m:ss)."""
        return screen(
            "status",
            self.lang,
            answered=len(self.answers),
            total=len(self.items),
            flagged=len(self.flagged),
            left=clock_text(self.time_left()),
        )

    def scenario_title(self, item: QuizItem) -> str:
        """The title of ``item``'s scenario in the session's language."""
        found = self.bank.scenario(item.scenario)
        return found.title.inline(self.lang) if found else item.scenario

    def scenario_text(self, item: QuizItem) -> str:
        """The text the exam shows before ``item``'s scenario, in the session's language."""
        found = self.bank.scenario(item.scenario)
        return found.text.lang(self.lang) if found else ""

    def header(self, at: int) -> str:
        """The line above item ``at`` (a position): ``Q7 / 60 — scenario — status``."""
        item = self.items[at]
        number = label("question", self.lang, n=at + 1)
        return f"{number} / {len(self.items)} — {self.scenario_title(item)} — {self.status()}"

    def intro(self) -> str:
        """The line that opens a terminal exam: items, minutes and how to answer."""
        line = screen("intro", self.lang, n=len(self.items), minutes=self.budget_s / 60)
        if self.number is None:
            return line
        scenarios = ", ".join(dict.fromkeys(self.scenario_title(it) for it in self.items))
        notes = [self.shortfall.inline(self.lang)] if self.shortfall is not None else []
        head = screen(
            "sitting",
            self.lang,
            number=self.number,
            seed=self.seed,
            format=self.format.value,
            scenarios=scenarios,
        )
        return "\n".join([head, *notes, line])

    def _refuse(self, code: EntryProblem, key: str, **values: Any) -> EntryError:
        row = SCREEN[key]
        text = Text(row.ja.format(**values), row.en.format(**values))
        return EntryError(code, text, self.lang)

    def again(self, refused: EntryError) -> str:
        """The line shown after a refused entry: its reason and how to go on."""
        return screen("again", self.lang, reason=refused.text)

    def choose_hint(self, item: QuizItem) -> str:
        """``choose 2`` for a multiple-response item, empty otherwise."""
        return screen("choose", self.lang, n=item.pick) if item.pick > 1 else ""

    def current(self, item: QuizItem) -> str:
        """The recorded answer of ``item`` (and its flag) as one line."""
        answer = ",".join(self.answers.get(item.id, [])) or label("none", self.lang)
        if item.id in self.flagged:
            answer += " " + label("flagged", self.lang)
        return screen("current", self.lang, answer=answer)

    def prompt_lines(self, item: QuizItem, n: int, of: int, review: bool = False) -> list[str]:
        """The terminal's lines for ``item``, number ``n`` of ``of`` in this pass: a header
        with its question number and the time left, the scenario text (when a scenario
        begins, and in review), the situation, the stem, how many to choose, the options,
        and in review the current answer."""
        at = self.items.index(item)
        number = label("question", self.lang, n=at + 1)
        left = screen("time left", self.lang, left=clock_text(self.time_left()))
        tag = f" {screen('review', self.lang)}" if review else ""
        out = [f"[{n}/{of}{tag}] {number} — {self.scenario_title(item)}  {left}"]
        if review or at == 0 or self.items[at - 1].scenario != item.scenario:
            out += [self.scenario_text(item), ""]
        out += [item.situation.lang(self.lang), item.stem.lang(self.lang)]
        if item.pick > 1:
            out.append(f"({self.choose_hint(item)})")
        for o in item.options:
            text = o.text.lang(self.lang).replace("\n", "\n     ")
            out.append(f"  {o.id}. {text}")
        if review:
            out.append(self.current(item))
        return out

    def to_dict(self) -> dict[str, Any]:
        """The exam as an answers document (``quiz take --out``; read by ``quiz grade`` and
        ``quiz take --resume``): the bank version, the salt, items, answers and flags by
        opaque handle, seed, language, format, sitting, the budget and the time used."""
        h = self.handle
        return {
            "bank": self.bank.version,
            "salt": self.salt,
            "items": [h(it.id) for it in self.items],
            "answers": {h(i): list(v) for i, v in self.answers.items()},
            "flagged": sorted(h(i) for i in self.flagged),
            "seed": self.seed,
            "lang": self.lang.value,
            "format": self.format.value,
            "sitting": self.number,
            "minutes": self.budget_s / 60,
            "elapsed": round(self.time_used(), 1),
            "submitted": self.locked,
        }

    def screen_line(self, key: str, **values: Any) -> str:
        """The row ``key`` of the exam screens' texts in the session's language."""
        return screen(key, self.lang, **values)

    def time_up_line(self) -> str:
        """The line said when the time runs out: submitted as it stands, the time used."""
        used = clock_text(min(self.time_used(), self.budget_s))
        return screen("time up", self.lang, used=used)


def _handle(salt: str, item_id: str) -> str:
    return "q" + hashlib.sha256(f"{salt}\0{item_id}".encode()).hexdigest()[:10]


def _decoded(
    bank: Bank, data: Mapping[str, Any]
) -> tuple[list[str] | None, dict[str, list[str]], set[str]]:
    """``parse_answers`` of ``data`` with every opaque handle turned back into its item id
    (a document without a salt names items by id)."""
    from .scoring import parse_answers

    ids, answers, flagged = parse_answers(data)
    salt = data.get("salt")
    if not salt:
        return ids, answers, flagged
    names = {_handle(str(salt), it.id): it.id for it in bank.items}

    def real(handle: str) -> str:
        if handle not in names:
            raise KeyError(f"{handle} names no item of this bank")
        return names[handle]

    return (
        [real(i) for i in ids] if ids is not None else None,
        {real(k): v for k, v in answers.items()},
        {real(f) for f in flagged},
    )


def read_answers(
    bank: Bank, data: Mapping[str, Any]
) -> tuple[list[str] | None, dict[str, list[str]], set[str]]:
    """An answers document read against ``bank``: ``(item ids or None, answers, flagged)``,
    opaque handles resolved. Raises :class:`BankVersionError` for another bank version,
    :class:`KeyError` for a handle or id the bank lacks and :class:`ValueError` for a
    malformed document."""
    version = data.get("bank") if isinstance(data, Mapping) else None
    if version is not None and str(version) != bank.version:
        raise BankVersionError(str(version), bank.version)
    return _decoded(bank, data)
