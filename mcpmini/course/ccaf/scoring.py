"""Grading a CCA-F exam: per item, per scenario, task statement and domain, and the score.

:func:`grade` scores a set of answers on the 100–1,000 scale with the 720 line. The scaled
score here is a linear map of the share of items answered exactly right (a multiple-response
item counts only when the whole set is right). The real exam equates its scale across forms,
so the number is an estimate, and every report says so.

The report teaches: :meth:`QuizReport.lines` gives, in the learner's language, for every
missed item its question number (never the item id), the option chosen, the correct option's
text, the explanation and the rebuttal of what was chosen; then the percentages per scenario,
domain and task statement. Every heading of the report is one row of :data:`LABELS`.
:func:`parse_answers` reads an answers document (``quiz grade``, ``quiz take --resume``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..language import current
from .bank import Bank, Lang, QuizItem, Text

__all__ = [
    "LABELS",
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

#: Every fixed text of a report and an exam screen, in both languages.
LABELS: dict[str, Text] = {
    "score": Text(
        "換算点 {scaled} / {top}（推定値。本番は試験の版ごとに換算する）。"
        "合格の線 {line}：{verdict}",
        "scaled score {scaled} / {top} (an estimate: the real exam equates its scale). "
        "Pass line {line}: {verdict}",
    ),
    "above": Text("線を越えた", "at or above the line"),
    "below": Text("線に届かない", "below the line"),
    "right": Text("{correct} / {total} 問正解", "{correct} of {total} items right"),
    "per scenario": Text("シナリオごと", "per scenario"),
    "per domain": Text("領域ごと", "per domain"),
    "per task": Text("タスクステートメントごと", "per task statement"),
    "misses": Text("まちがえた問題", "missed items"),
    "chosen": Text("あなたの答え", "your answer"),
    "correct": Text("正解", "correct"),
    "why": Text("解説", "why"),
    "about": Text("{option} について", "about {option}"),
    "none": Text("（答えなし）", "(no answer)"),
    "flagged": Text("（見直しの印あり）", "(flagged)"),
    "question": Text("問 {n}", "Q{n}"),
    "stem": Text("問い", "question"),
    "missed in": Text("D{domain} {title}：まちがえた問題 {n} 問", "D{domain} {title}: {n} missed"),
}


def label(key: str, lang: Lang | str, **values: Any) -> str:
    """The row ``key`` of :data:`LABELS` in ``lang``, formatted with ``values`` (a
    :class:`Text` value in the same language); in ``both`` the English and the Japanese are
    joined by `` / `` on one line."""
    return fill(LABELS[key], lang, single=key == "question", **values)


def fill(text: Text, lang: Lang | str, single: bool = False, **values: Any) -> str:
    """``text`` in ``lang`` formatted with ``values``, each :class:`Text` value taken in the
    same language; ``both`` joins English and Japanese with `` / `` (only the English when
    ``single``: a number reads the same in both)."""
    chosen = Lang(lang)

    def one(which: Lang) -> str:
        local = {k: v.lang(which) if isinstance(v, Text) else v for k, v in values.items()}
        return text.lang(which).format(**local)

    if chosen is Lang.BOTH:
        return one(Lang.EN) if single else f"{one(Lang.EN)} / {one(Lang.JA)}"
    return one(chosen)


@dataclass(frozen=True)
class ItemResult:
    """One graded item: its number in the exam, what was chosen, the key, the rebuttal of
    each wrong choice (in both languages)."""

    item: str
    task: str
    chosen: tuple[str, ...]
    correct: tuple[str, ...]
    is_correct: bool
    flagged: bool = False
    rebuttals: dict[str, Text] = field(default_factory=dict)
    explanation: Text = field(default_factory=lambda: Text("", ""))
    number: int = 0
    scenario: str = ""
    #: the item itself, for the texts of the report (not part of equality)
    source: QuizItem | None = field(default=None, compare=False, repr=False)

    @property
    def answered(self) -> bool:
        """Whether any option was chosen."""
        return bool(self.chosen)


@dataclass(frozen=True)
class TaskScore:
    """Items right out of items asked for one task statement, domain or scenario."""

    id: str
    correct: int
    total: int

    @property
    def percent(self) -> float:
        """Percent correct, 0–100 (0 when nothing was asked)."""
        return round(100 * self.correct / self.total, 1) if self.total else 0.0


@dataclass(frozen=True)
class QuizReport:
    """A graded exam: per item, per task statement, domain and scenario, and the score."""

    results: tuple[ItemResult, ...]
    by_task: tuple[TaskScore, ...]
    by_domain: tuple[TaskScore, ...]
    scaled: int
    by_scenario: tuple[TaskScore, ...] = ()
    bank: Bank | None = field(default=None, compare=False, repr=False)

    @property
    def correct(self) -> int:
        """How many items were exactly right."""
        return sum(r.is_correct for r in self.results)

    @property
    def passed(self) -> bool:
        """Whether the scaled score reaches :data:`PASS_SCORE` (720)."""
        return self.scaled >= PASS_SCORE

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (texts in both languages)."""

        def scores(rows: Sequence[TaskScore]) -> dict[str, Any]:
            return {
                r.id: {"correct": r.correct, "total": r.total, "percent": r.percent} for r in rows
            }

        return {
            "scaled": self.scaled,
            "scaled_is_estimate": True,
            "passed": self.passed,
            "pass_line": PASS_SCORE,
            "correct": self.correct,
            "total": len(self.results),
            "by_scenario": scores(self.by_scenario),
            "by_task": scores(self.by_task),
            "by_domain": scores(self.by_domain),
            "items": [
                {
                    "id": r.item,
                    "number": r.number,
                    "task": r.task,
                    "scenario": r.scenario,
                    "chosen": list(r.chosen),
                    "correct": list(r.correct),
                    "is_correct": r.is_correct,
                    "flagged": r.flagged,
                    "rebuttals": {o: {"ja": t.ja, "en": t.en} for o, t in r.rebuttals.items()},
                }
                for r in self.results
            ],
        }

    def _title(self, kind: str, key: str, lang: Lang) -> str:
        found: Text | None = None
        if self.bank is not None:
            if kind == "scenario" and (s := self.bank.scenario(key)) is not None:
                found = s.title
            elif kind == "task" and (t := self.bank.task(key)) is not None:
                found = t.text
            elif kind == "domain" and (d := self.bank.domain(int(key))) is not None:
                found = d.text
        if found is None:
            return ""
        return found.inline(lang)

    def lines(self, lang: Lang | str | None = None) -> list[str]:
        """The report in ``lang`` (default: the learner's): the score (an estimate) and the
        720 line, every missed item with what to learn from it, then percent per scenario,
        domain, task statement."""
        chosen = current() if lang is None else Lang(lang)
        misses = [r for r in self.results if not r.is_correct]
        out = self.summary(chosen)
        if misses:
            out += ["", label("misses", chosen) + ":"]
        for r in misses:
            out += _miss_lines(r, chosen, self._title("scenario", r.scenario, chosen))
        for _, table in self._tables(chosen):
            out += ["", *table]
        return out

    def summary(self, lang: Lang | str | None = None) -> list[str]:
        """The first two lines: the scaled score (an estimate) with the 720 line, and the
        number right."""
        chosen = current() if lang is None else Lang(lang)
        verdict = LABELS["above" if self.passed else "below"]
        return [
            label(
                "score", chosen, scaled=self.scaled, top=MAX_SCORE, line=PASS_SCORE, verdict=verdict
            ),
            label("right", chosen, correct=self.correct, total=len(self.results)),
        ]

    def sections(self, lang: Lang | str | None = None) -> list[tuple[str, list[str]]]:
        """The report after :meth:`summary`, folded: one ``(title, lines)`` per domain with a
        missed item (its misses, each as :meth:`lines` gives it), then the tables per
        scenario, domain and task statement — what a screen shows one fold at a time."""
        chosen = current() if lang is None else Lang(lang)
        out = []
        for domain in sorted({r.task.split(".")[0] for r in self.results}, key=int):
            misses = [
                r for r in self.results if not r.is_correct and r.task.split(".")[0] == domain
            ]
            if not misses:
                continue
            lines: list[str] = []
            for r in misses:
                lines += _miss_lines(r, chosen, self._title("scenario", r.scenario, chosen))
            title = self._title("domain", domain, chosen)
            head = label("missed in", chosen, domain=domain, title=title, n=len(misses))
            out.append((head, lines))
        return out + self._tables(chosen)

    def _tables(self, lang: Lang) -> list[tuple[str, list[str]]]:
        out = []
        for heading, kind, rows in (
            ("per scenario", "scenario", self.by_scenario),
            ("per domain", "domain", self.by_domain),
            ("per task", "task", self.by_task),
        ):
            if not rows:
                continue
            lines = [label(heading, lang) + ":"]
            for row in rows:
                name = f"D{row.id}" if kind == "domain" else row.id
                title = self._title(kind, row.id, lang)
                lines.append(
                    f"  {name:<13} {row.correct:>2}/{row.total:<2} {row.percent:5.1f} %  {title}"
                )
            out.append((label(heading, lang), lines))
        return out


def _indent(text: str, prefix: str) -> list[str]:
    return [prefix + line for line in text.splitlines() if line.strip()]


def _option_text(item: QuizItem | None, option: str, lang: Lang) -> str:
    found = item.option(option) if item is not None else None
    return f"{option}. {found.text.lang(lang)}" if found is not None else option


def _miss_lines(r: ItemResult, lang: Lang, scenario: str = "") -> list[str]:
    """One missed item: its number and scenario, the question, the choice, the key's text,
    why, and the rebuttal of what was chosen."""
    it = r.source
    head = f"  {label('question', lang, n=r.number)}"
    if scenario:
        head += f" — {scenario}"
    if r.flagged:
        head += " " + label("flagged", lang)
    out = [head]
    if it is not None:
        out.append(f"    {label('stem', lang)}:")
        out += _indent(it.stem.lang(lang), "      ")
    chosen = [_option_text(it, c, lang) for c in r.chosen] or [label("none", lang)]
    out.append(f"    {label('chosen', lang)}:")
    for c in chosen:
        out += _indent(c, "      ")
    out.append(f"    {label('correct', lang)}:")
    for c in r.correct:
        out += _indent(_option_text(it, c, lang), "      ")
    if r.explanation.en or r.explanation.ja:
        out.append(f"    {label('why', lang)}:")
        out += _indent(r.explanation.lang(lang), "      ")
    for option, rebuttal in r.rebuttals.items():
        out.append(f"    {label('about', lang, option=option)}:")
        out += _indent(rebuttal.lang(lang), "      ")
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
    if not isinstance(flagged, list) or not all(isinstance(f, str) for f in flagged):
        raise ValueError("'flagged' must be a list of item ids")
    answers: dict[str, list[str]] = {}
    for key, value in raw.items():
        if isinstance(value, str):
            value = [v for v in value.replace(" ", "").split(",") if v]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"answer for {key!r} must be a letter or a list of letters")
        answers[str(key)] = sorted({v.strip().upper() for v in value})
    return items, answers, set(flagged)


def grade(
    bank: Bank,
    answers: Mapping[str, Sequence[str]],
    items: Sequence[str] | None = None,
    flagged: Iterable[str] = (),
) -> QuizReport:
    """Grade ``answers`` (item id → chosen option ids) over ``items`` (default: the bank).

    An item is right only when the chosen set equals the key. For every wrong option
    chosen, its rebuttal is in the result; each result's ``number`` is its position in
    ``items`` (from 1). Returns a :class:`QuizReport`. Raises :class:`ValueError` when
    ``items`` names an unknown item or an answer names an item outside the exam (so a typo
    never silently scores zero).
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
    for n, item_id in enumerate(ids, 1):
        it = bank.item(item_id)
        chosen = tuple(sorted({c.upper() for c in answers.get(item_id, ())}))
        rebuttals = {
            c: (o.rebuttal or Text("", ""))
            if (o := it.option(c))
            else Text("（無い選択肢）", "no such option")
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
                n,
                it.scenario,
                it,
            )
        )
    order = [s.id for s in bank.scenarios]
    return QuizReport(
        tuple(results),
        _tally(results, lambda r: r.task),
        _tally(results, lambda r: r.task.split(".")[0]),
        scaled_score(sum(r.is_correct for r in results), len(results)),
        _tally(results, lambda r: r.scenario, order),
        bank,
    )


def _tally(
    results: Sequence[ItemResult],
    key: Callable[[ItemResult], str],
    order: Sequence[str] | None = None,
) -> tuple[TaskScore, ...]:
    groups: dict[str, list[bool]] = {}
    for r in results:
        groups.setdefault(key(r), []).append(r.is_correct)

    def rank(k: str) -> tuple[int, ...]:
        if order is not None:
            return (order.index(k) if k in order else len(order),)
        return tuple(int(p) for p in k.split("."))

    return tuple(
        TaskScore(k, sum(v), len(v)) for k, v in sorted(groups.items(), key=lambda kv: rank(kv[0]))
    )
