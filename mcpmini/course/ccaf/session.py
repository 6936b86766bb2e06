"""An exam being taken: drawn items, answers, review flags, the clock, and what to show.

Rules of this module: one flow for every front end. The terminal (``mcpmini quiz take``) and
the notebook widget (:mod:`.exam`) both drive an :class:`ExamSession`: they hand it what the
learner typed or clicked (:meth:`~ExamSession.answer`, :meth:`~ExamSession.enter`,
:meth:`~ExamSession.flag`) and show the lines and statuses it formats; neither keeps
answers, flags, the review order or the time itself. ``clock`` returns seconds
(``time.monotonic`` by default) so a test can move time by hand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .bank import Bank, QuizItem, draw
from .scoring import QuizReport, grade

__all__ = ["ExamSession", "clock_text"]


def clock_text(seconds: float) -> str:
    """``seconds`` as ``m:ss`` (negative values read as 0)."""
    left = max(0, int(seconds))
    return f"{left // 60}:{left % 60:02d}"


class ExamSession:
    """One exam being taken: drawn items, answers, review flags and the clock.

    The items are drawn from ``bank`` (``count`` of them, from ``seed``, restricted to
    ``tasks``) unless ``items`` gives them. The time budget is ``minutes`` (default two per
    item). :meth:`finish` grades the answers so far and keeps the report in ``report``.
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
    ) -> None:
        import time

        self.bank = bank
        self.seed = seed
        self.items = list(items) if items is not None else draw(bank, count, seed, tasks)
        self.budget_s = 60.0 * (minutes if minutes is not None else 2.0 * len(self.items))
        self.answers: dict[str, list[str]] = {}
        self.flagged: set[str] = set()
        self._clock = clock or time.monotonic
        self.started = self._clock()
        self.report: QuizReport | None = None

    def _item(self, item_id: str) -> QuizItem:
        item = next((it for it in self.items if it.id == item_id), None)
        if item is None:
            raise KeyError(item_id)
        return item

    # --- what the learner does -----------------------------------------------------------

    def answer(self, item_id: str, options: Iterable[str]) -> None:
        """Record the chosen option ids for ``item_id`` (an empty choice clears it).

        Raises :class:`KeyError` for an item not in this exam and :class:`ValueError` for
        an option the item does not have.
        """
        item = self._item(item_id)
        chosen = sorted({o.strip().upper() for o in options if o.strip()})
        unknown = [o for o in chosen if item.option(o) is None]
        if unknown:
            raise ValueError(f"{item_id} has no option {', '.join(unknown)}")
        if chosen:
            self.answers[item_id] = chosen
        else:
            self.answers.pop(item_id, None)

    def enter(self, item_id: str, line: str) -> None:
        """Apply one typed line to ``item_id``: ``A`` or ``A,C`` chooses, a trailing ``?``
        flags the item for review (without it the flag is cleared), and an empty choice
        keeps the earlier answer (Enter skips).

        Raises :class:`KeyError` for an item not in this exam and :class:`ValueError`
        (naming the letters to choose among) for a letter the item does not have; then
        nothing is recorded.
        """
        item = self._item(item_id)
        text = line.strip()
        flag = text.endswith("?")
        letters = [c for c in text.rstrip("?").split(",") if c.strip()]
        known = {o.id for o in item.options}
        if {c.strip().upper() for c in letters} - known:
            raise ValueError(f"choose among {', '.join(sorted(known))}")
        if letters:
            self.answer(item_id, letters)
        self.flag(item_id, flag)

    def flag(self, item_id: str, on: bool = True) -> None:
        """Mark ``item_id`` for review (or clear the mark)."""
        (self.flagged.add if on else self.flagged.discard)(item_id)

    def finish(self) -> QuizReport:
        """Grade the exam (answers so far, flags kept); returns the :class:`QuizReport`."""
        self.report = grade(self.bank, self.answers, [it.id for it in self.items], self.flagged)
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
        return (
            f"answered {len(self.answers)}/{len(self.items)}, flagged {len(self.flagged)}, "
            f"time left {clock_text(self.time_left())}"
        )

    def header(self, at: int) -> str:
        """The line above item ``at`` (a position): ``n / N — task — status``."""
        return f"{at + 1} / {len(self.items)} — {self.items[at].task} — {self.status()}"

    def intro(self) -> str:
        """The line that opens a terminal exam: items, seed, minutes and how to answer."""
        return (
            f"{len(self.items)} items (seed {self.seed}), {self.budget_s / 60:.0f} minutes. "
            "Answer with letters (A or A,C), add ? to flag for review (A?), Enter to skip, "
            "q to finish."
        )

    def prompt_lines(self, item: QuizItem, n: int, of: int, review: bool = False) -> list[str]:
        """The terminal's lines for ``item``, number ``n`` of ``of`` in this pass: a header
        with the time left, the scenario, the stem and the lettered options."""
        head = (
            f"[{n}/{of}{' review' if review else ''}] {item.id} ({item.task})  "
            f"time left {clock_text(self.time_left())}"
        )
        return [head, item.scenario, item.stem, *(f"  {o.id}. {o.text}" for o in item.options)]

    def to_dict(self) -> dict[str, Any]:
        """The exam as an answers document (``quiz take --out``, read by ``quiz grade``)."""
        return {
            "items": [it.id for it in self.items],
            "answers": self.answers,
            "flagged": sorted(self.flagged),
            "seed": self.seed,
        }
