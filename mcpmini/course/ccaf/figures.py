"""The counts the CCA-F bank's targets are stated in: per task statement, domain, scenario,
kind and ``pick``, and how often the key is the longest or the shortest option."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..language import Lang, Text
from .bank import Bank, Kind, QuizItem

__all__ = ["BankFigures", "figures", "key_is_longest"]


def key_is_longest(it: QuizItem, lang: Lang) -> bool:
    """Whether a key of ``it`` is longer than every wrong option (strictly: a tie for the
    longest gives a test-wise guesser nothing)."""
    lengths = {o.id: len(o.text.lang(lang)) for o in it.options}
    others = [n for o, n in lengths.items() if o not in it.correct]
    return any(lengths.get(k, -1) > max(others, default=-1) for k in it.correct)


def _key_is_shortest(it: QuizItem, lang: Lang) -> bool:
    lengths = {o.id: len(o.text.lang(lang)) for o in it.options}
    others = [n for o, n in lengths.items() if o not in it.correct]
    return any(lengths.get(k, 1 << 30) < min(others, default=0) for k in it.correct)


@dataclass(frozen=True)
class BankFigures:
    """The counts the bank's targets are stated in (issue 18)."""

    items: int
    per_task: dict[str, int] = field(default_factory=dict)
    per_domain: dict[int, int] = field(default_factory=dict)
    per_scenario: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, int] = field(default_factory=dict)
    picks: dict[int, int] = field(default_factory=dict)
    #: per language, the share of single-answer items whose key is the longest option
    longest_key: dict[str, float] = field(default_factory=dict)
    #: per language, the share whose key is the shortest option (the other way to game it)
    shortest_key: dict[str, float] = field(default_factory=dict)

    @property
    def decision_share(self) -> float:
        """The share of items that ask for a decision (0 for an empty bank)."""
        return self.kinds.get(Kind.DECISION.value, 0) / self.items if self.items else 0.0

    def lines(self) -> list[str]:
        """A plain-text summary in the learner's language: totals, the longest and shortest
        key shares, per domain, scenario and task statement."""
        picks = ", ".join(f"pick {p}: {n}" for p, n in sorted(self.picks.items()))
        longest = ", ".join(f"{lang} {share:.0%}" for lang, share in self.longest_key.items())
        shortest = ", ".join(f"{lang} {share:.0%}" for lang, share in self.shortest_key.items())
        rows = [
            Text(
                f"{self.items} 問。判断を問う問題 {self.decision_share:.0%}。{picks}",
                f"{self.items} items; decision {self.decision_share:.0%}; {picks}",
            ),
            Text(
                f"鍵がいちばん長い選択肢: {longest}。いちばん短い: {shortest}",
                f"key is the longest option: {longest}; the shortest: {shortest}",
            ),
            Text("領域ごと:     ", "per domain:   "),
            Text("シナリオごと: ", "per scenario: "),
            Text("タスクごと:   ", "per task:     "),
        ]
        counts = [
            ", ".join(f"D{d} {n}" for d, n in sorted(self.per_domain.items())),
            ", ".join(f"{s} {n}" for s, n in self.per_scenario.items()),
            ", ".join(f"{t} {n}" for t, n in self.per_task.items()),
        ]
        return [str(rows[0]), str(rows[1])] + [
            f"{head}{count}" for head, count in zip(rows[2:], counts, strict=True)
        ]


def figures(bank: Bank, items: Iterable[QuizItem] | None = None) -> BankFigures:
    """Count ``items`` (default: the whole bank) per task statement (every declared one,
    zeros included), domain, scenario, kind and ``pick``, and the longest-key share."""
    pool = list(bank.items if items is None else items)
    per_task = Counter(it.task for it in pool)
    singles = [it for it in pool if it.pick == 1 and len(it.correct) == 1]

    def share(test: Any, lang: Lang) -> float:
        return sum(test(it, lang) for it in singles) / len(singles) if singles else 0.0

    longest = {lang.value: share(key_is_longest, lang) for lang in (Lang.JA, Lang.EN)}
    shortest = {lang.value: share(_key_is_shortest, lang) for lang in (Lang.JA, Lang.EN)}
    scenario_ids = [s.id for s in bank.scenarios] or sorted({it.scenario for it in pool})
    per_scenario = Counter(it.scenario for it in pool)
    return BankFigures(
        len(pool),
        {t.id: per_task[t.id] for t in bank.tasks},
        {d.id: sum(it.domain == d.id for it in pool) for d in bank.domains},
        {s: per_scenario[s] for s in scenario_ids},
        dict(Counter(it.kind.value for it in pool)),
        dict(Counter(it.pick for it in pool)),
        longest,
        shortest,
    )
