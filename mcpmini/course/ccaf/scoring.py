"""Grading a CCA-F exam: per item, per task statement, per domain, and the scaled score.

:func:`grade` scores a set of answers on the 100–1,000 scale with the 720 line. The scaled
score is a linear map of the share of items answered exactly right (a multiple-response item
counts only when the whole set is right); the real exam equates its scale, so treat the
number as an estimate. :func:`parse_answers` reads an answers document (``quiz grade``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .bank import Bank

__all__ = [
    "MAX_SCORE",
    "MIN_SCORE",
    "PASS_SCORE",
    "ItemResult",
    "QuizReport",
    "TaskScore",
    "grade",
    "parse_answers",
    "scaled_score",
]

PASS_SCORE = 720
MIN_SCORE = 100
MAX_SCORE = 1000


@dataclass(frozen=True)
class ItemResult:
    """One graded item: what was chosen, the key, and the rebuttal of each wrong choice."""

    item: str
    task: str
    chosen: tuple[str, ...]
    correct: tuple[str, ...]
    is_correct: bool
    flagged: bool = False
    rebuttals: dict[str, str] = field(default_factory=dict)
    explanation: str = ""

    @property
    def answered(self) -> bool:
        """Whether any option was chosen."""
        return bool(self.chosen)


@dataclass(frozen=True)
class TaskScore:
    """Items right out of items asked for one task statement (or domain)."""

    id: str
    correct: int
    total: int

    @property
    def percent(self) -> float:
        """Percent correct, 0–100 (0 when nothing was asked)."""
        return round(100 * self.correct / self.total, 1) if self.total else 0.0


@dataclass(frozen=True)
class QuizReport:
    """A graded exam: per item, per task statement, per domain, and the scaled score."""

    results: tuple[ItemResult, ...]
    by_task: tuple[TaskScore, ...]
    by_domain: tuple[TaskScore, ...]
    scaled: int

    @property
    def correct(self) -> int:
        """How many items were exactly right."""
        return sum(r.is_correct for r in self.results)

    @property
    def passed(self) -> bool:
        """Whether the scaled score reaches :data:`PASS_SCORE` (720)."""
        return self.scaled >= PASS_SCORE

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "scaled": self.scaled,
            "passed": self.passed,
            "pass_line": PASS_SCORE,
            "correct": self.correct,
            "total": len(self.results),
            "by_task": {
                t.id: {"correct": t.correct, "total": t.total, "percent": t.percent}
                for t in self.by_task
            },
            "by_domain": {
                d.id: {"correct": d.correct, "total": d.total, "percent": d.percent}
                for d in self.by_domain
            },
            "items": [
                {
                    "id": r.item,
                    "task": r.task,
                    "chosen": list(r.chosen),
                    "correct": list(r.correct),
                    "is_correct": r.is_correct,
                    "flagged": r.flagged,
                    "rebuttals": r.rebuttals,
                }
                for r in self.results
            ],
        }

    def lines(self) -> list[str]:
        """A plain-text report: the score and the line, per task statement, every miss."""
        verdict = "合格ライン以上" if self.passed else "合格ライン未満"
        out = [
            f"scaled score {self.scaled} / {MAX_SCORE} (pass line {PASS_SCORE}): {verdict}",
            f"{self.correct} of {len(self.results)} items right",
            "",
            "per domain:",
        ]
        out += [
            f"  D{d.id:<4} {d.correct:>2}/{d.total:<2} {d.percent:5.1f} %" for d in self.by_domain
        ]
        out += ["", "per task statement:"]
        out += [f"  {t.id:<5} {t.correct:>2}/{t.total:<2} {t.percent:5.1f} %" for t in self.by_task]
        misses = [r for r in self.results if not r.is_correct]
        if misses:
            out += ["", "misses:"]
        for r in misses:
            chosen = ",".join(r.chosen) or "(no answer)"
            out.append(
                f"  {r.item} [{r.task}] chose {chosen}, key {','.join(r.correct)}"
                + (" (flagged)" if r.flagged else "")
            )
            out += [f"    {o}: {text}" for o, text in r.rebuttals.items()]
            if not r.rebuttals:
                out.append(f"    {r.explanation}")
        return out


def scaled_score(correct: int, total: int) -> int:
    """Map ``correct`` of ``total`` linearly onto 100–1,000 (all right → 1000, none → 100)."""
    if total <= 0:
        raise ValueError("nothing to grade")
    return MIN_SCORE + round((MAX_SCORE - MIN_SCORE) * correct / total)


def parse_answers(data: Any) -> tuple[list[str] | None, dict[str, list[str]], set[str]]:
    """Read an answers document: ``(item ids or None, answers, flagged ids)``.

    Accepted: ``{"items": [...], "answers": {id: "A" | ["A", "C"]}, "flagged": [...]}``,
    or a bare ``{id: answer}`` mapping. Option letters are upper-cased and ``"A,C"`` is
    split. Raises :class:`ValueError` naming the entry that is not of that shape.
    """
    if not isinstance(data, Mapping):
        raise ValueError("answers must be a JSON object")
    wrapped = "answers" in data or "items" in data
    raw = data.get("answers", {}) if wrapped else data
    if not isinstance(raw, Mapping):
        raise ValueError("'answers' must be an object of item id → option letters")
    items = data.get("items") if wrapped else None
    if items is not None and not (
        isinstance(items, list) and all(isinstance(i, str) for i in items)
    ):
        raise ValueError("'items' must be a list of item ids")
    flagged = data.get("flagged", []) if wrapped else []
    if not isinstance(flagged, list):
        raise ValueError("'flagged' must be a list of item ids")
    answers: dict[str, list[str]] = {}
    for key, value in raw.items():
        if isinstance(value, str):
            value = [v for v in value.replace(" ", "").split(",") if v]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"answer for {key!r} must be a letter or a list of letters")
        answers[str(key)] = sorted({v.strip().upper() for v in value})
    return items, answers, {str(f) for f in flagged}


def grade(
    bank: Bank,
    answers: Mapping[str, Sequence[str]],
    items: Sequence[str] | None = None,
    flagged: Iterable[str] = (),
) -> QuizReport:
    """Grade ``answers`` (item id → chosen option ids) over ``items`` (default: the bank).

    An item is right only when the chosen set equals the key. For every wrong option
    chosen, its rebuttal is in the result. Returns a :class:`QuizReport`. Raises
    :class:`ValueError` when ``items`` names an unknown item or an answer names an item
    outside the exam (so a typo never silently scores zero).
    """
    ids = list(items) if items is not None else [it.id for it in bank.items]
    known = {it.id for it in bank.items}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise ValueError(f"unknown item ids: {', '.join(unknown)}")
    stray = sorted(set(answers) - set(ids))
    if stray:
        raise ValueError(f"answers for items not in this exam: {', '.join(stray)}")
    marked = set(flagged)
    results = []
    for item_id in ids:
        it = bank.item(item_id)
        chosen = tuple(sorted({c.upper() for c in answers.get(item_id, ())}))
        rebuttals = {
            c: (o.rebuttal or "") if (o := it.option(c)) else "no such option"
            for c in chosen
            if c not in it.correct
        }
        results.append(
            ItemResult(
                it.id,
                it.task,
                chosen,
                tuple(sorted(it.correct)),
                set(chosen) == it.correct,
                it.id in marked,
                rebuttals,
                it.explanation,
            )
        )
    return QuizReport(
        tuple(results),
        _tally(results, lambda r: r.task),
        _tally(results, lambda r: r.task.split(".")[0]),
        scaled_score(sum(r.is_correct for r in results), len(results)),
    )


def _tally(
    results: Sequence[ItemResult], key: Callable[[ItemResult], str]
) -> tuple[TaskScore, ...]:
    groups: dict[str, list[bool]] = {}
    for r in results:
        groups.setdefault(key(r), []).append(r.is_correct)

    def order(k: str) -> tuple[int, ...]:
        return tuple(int(p) for p in k.split("."))

    return tuple(
        TaskScore(k, sum(v), len(v)) for k, v in sorted(groups.items(), key=lambda kv: order(kv[0]))
    )
