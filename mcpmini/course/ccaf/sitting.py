"""Drawing items: a full exam sitting, or a practice set.

Rules of this module: a sitting is drawn as the exam guide describes the real one — 60 items in
120 minutes, four of the six scenarios drawn at random, every item inside one of them — and
reproducibly from a seed. Sitting *k* of a seed never repeats an item of sittings 1 … *k*-1 of
the same seed, so ``sitting 1`` and ``sitting 2`` are two disjoint full-length exams.

Inside the four scenarios the items follow the domain weights: each domain's share of the 60
by largest remainder, then each domain's share split over the four scenarios (the remainders
to the scenario with the fewest items so far), then items round-robin over the domain's task
statements. The bank holds enough items in every cell a first sitting can draw (a test says
so), so a sitting needs no fallback; when one asks for more than a cell holds (a later sitting
of the same seed, a longer exam), the cell is filled from the same domain in the other drawn
scenarios and a domain short in all four passes its share to the others. Each such fallback is
a :class:`Shortfall`, and :meth:`Sitting.shortfall_line` says them all in one line, shown
before the sitting starts.

``format`` is :class:`Format`: ``mixed`` (the default, the v1.0 guide's format) mixes
multiple-response items, each saying how many to choose, among the single-answer ones;
``single`` draws only single-answer items (one best of four).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .bank import Bank, QuizItem, Text

__all__ = [
    "DEFAULT_FORMAT",
    "EXAM_ITEMS",
    "EXAM_MINUTES",
    "EXAM_SCENARIOS",
    "Format",
    "Shortfall",
    "Sitting",
    "draw",
    "draw_sitting",
]

#: 60 items, 120 minutes, four of the six scenarios: the exam guide (spring 2026) as its
#: public transcriptions give it (see notebooks/ccaf/00_overview, section 1, for the links).
EXAM_ITEMS = 60
EXAM_MINUTES = 120
EXAM_SCENARIOS = 4


class Format(StrEnum):
    """Which items a draw may hold: single-answer only, or multiple-response too."""

    SINGLE = "single"
    MIXED = "mixed"


#: The v1.0 guide's format: multiple-response items among the single-answer ones.
DEFAULT_FORMAT = Format.MIXED


@dataclass(frozen=True)
class Shortfall:
    """A cell (``scenario`` set) or a whole domain (``scenario`` empty) that held ``held`` of
    the ``wanted`` items a draw asked of it."""

    domain: int
    scenario: str
    held: int
    wanted: int

    def text(self) -> Text:
        """``D3 in support: 1 of 3`` (or ``D3: 10 of 12`` for a domain)."""
        where = Text(f"D{self.domain} の {self.scenario}", f"D{self.domain} in {self.scenario}")
        if not self.scenario:
            where = Text(f"D{self.domain}", f"D{self.domain}")
        return Text(
            f"{where.ja} は {self.wanted} 問のうち {self.held} 問",
            f"{where.en}: {self.held} of {self.wanted}",
        )


@dataclass(frozen=True)
class Sitting:
    """One drawn exam: its number for the seed, the scenarios drawn (in the order shown), the
    items (grouped by scenario), and each fallback the draw needed."""

    number: int
    seed: int
    format: Format
    scenarios: tuple[str, ...]
    items: tuple[QuizItem, ...]
    shortfalls: tuple[Shortfall, ...] = ()
    minutes: float = EXAM_MINUTES

    def shortfall_line(self) -> Text | None:
        """One line on every cell or domain that held fewer items than this sitting asked
        (``None`` when every one held enough)."""
        if not self.shortfalls:
            return None
        parts = [s.text() for s in self.shortfalls]
        return Text(
            f"この回は問題集の量を超えています（{'、'.join(p.ja for p in parts)}）。"
            "足りない分は同じ領域の他のシナリオ、または他の領域から出します。",
            f"This sitting asks more than the bank holds ({'; '.join(p.en for p in parts)}); "
            "the rest come from the same domain's other scenarios or from the other domains.",
        )


def _pool(bank: Bank, fmt: Format | str, exclude: Iterable[str] = ()) -> list[QuizItem]:
    gone = set(exclude)
    single = Format(fmt) is Format.SINGLE
    return [it for it in bank.items if it.id not in gone and (it.pick == 1 or not single)]


def _shares(weights: Mapping[int, int], total: int, caps: Mapping[int, int]) -> dict[int, int]:
    """Split ``total`` by ``weights`` (largest remainder), never above ``caps``."""
    share = dict.fromkeys(weights, 0)
    left = total
    open_ = {k for k in weights if caps[k] > 0}
    while left > 0 and open_:
        w = sum(weights[k] or 1 for k in open_)
        exact = {k: left * (weights[k] or 1) / w for k in open_}
        give = {k: min(int(exact[k]), caps[k] - share[k]) for k in open_}
        rest = left - sum(give.values())
        for k in sorted(open_, key=lambda k: (-(exact[k] - int(exact[k])), k)):
            if rest and share[k] + give[k] < caps[k]:
                give[k] += 1
                rest -= 1
        for k, g in give.items():
            share[k] += g
        left = total - sum(share.values())
        open_ = {k for k in open_ if share[k] < caps[k]}
    return share


def _round_robin(items: Sequence[QuizItem], count: int, rng: random.Random) -> list[QuizItem]:
    """``count`` of ``items``, taken in turn from each task statement (shuffled order)."""
    groups: dict[str, list[QuizItem]] = {}
    for it in items:
        groups.setdefault(it.task, []).append(it)
    for g in groups.values():
        rng.shuffle(g)
    order = sorted(groups)
    rng.shuffle(order)
    picked: list[QuizItem] = []
    while len(picked) < count and any(groups.values()):
        for t in order:
            if groups[t] and len(picked) < count:
                picked.append(groups[t].pop())
    return picked


def draw(
    bank: Bank,
    count: int,
    seed: int = 0,
    tasks: Iterable[str] | None = None,
    format: Format | str = DEFAULT_FORMAT,
) -> list[QuizItem]:
    """A practice set: ``count`` distinct items stratified by domain weight, from ``seed``.

    Each domain with items gets a share proportional to its weight (largest remainder; a
    domain's unused share passes to the others); inside a domain, items are taken
    round-robin over its task statements. ``tasks`` restricts the pool and ``format`` which
    items it may hold. Returns the items in the order drawn; raises :class:`ValueError` when
    ``count`` is not positive or the pool is smaller than ``count``.
    """
    wanted = set(tasks) if tasks is not None else None
    pool = [it for it in _pool(bank, format) if wanted is None or it.task in wanted]
    if count < 1:
        raise ValueError("count must be at least 1")
    if count > len(pool):
        raise ValueError(f"only {len(pool)} items match, cannot draw {count}")
    rng = random.Random(seed)
    by_domain: dict[int, list[QuizItem]] = {}
    for it in pool:
        by_domain.setdefault(it.domain, []).append(it)
    weight = {d.id: d.weight for d in bank.domains}
    quota = _shares(
        {d: weight.get(d, 0) for d in by_domain}, count, {d: len(v) for d, v in by_domain.items()}
    )
    chosen: list[QuizItem] = []
    for d in sorted(by_domain):
        chosen.extend(_round_robin(by_domain[d], quota[d], rng))
    rng.shuffle(chosen)
    return chosen


def _split(quota: int, scenarios: Sequence[str], totals: dict[str, int]) -> dict[str, int]:
    """``quota`` over ``scenarios`` evenly, each remainder to the one with the fewest so far."""
    base, rest = divmod(quota, len(scenarios))
    out = dict.fromkeys(scenarios, base)
    for s in sorted(scenarios, key=lambda s: (totals[s], scenarios.index(s)))[:rest]:
        out[s] += 1
    return out


def _fill_domain(
    domain: int,
    want: dict[str, int],
    cells: dict[str, list[QuizItem]],
    short: list[Shortfall],
) -> dict[str, int]:
    """Move what a cell lacks to the same domain's other scenarios with spare items."""
    take = {s: min(n, len(cells[s])) for s, n in want.items()}
    missing = sum(want.values()) - sum(take.values())
    for s, n in want.items():
        if take[s] < n:
            short.append(Shortfall(domain, s, len(cells[s]), n))
    for s in sorted(cells, key=lambda s: -(len(cells[s]) - take[s])):
        extra = min(missing, len(cells[s]) - take[s])
        take[s] += extra
        missing -= extra
    return take


def _one_sitting(
    bank: Bank, number: int, seed: int, fmt: Format, count: int, per: int, used: set[str]
) -> Sitting:
    rng = random.Random(f"ccaf sitting {seed} {number}")
    pool = _pool(bank, fmt, used)
    present = sorted({it.scenario for it in pool})
    if len(present) < per:
        raise ValueError(f"sitting {number}: only {len(present)} scenarios have items left")
    order = [s.id for s in bank.scenarios if s.id in present] or present
    rng.shuffle(order)
    drawn = order[:per]
    inside = [it for it in pool if it.scenario in drawn]
    if len(inside) < count:
        raise ValueError(
            f"sitting {number}: the drawn scenarios hold {len(inside)} items, not {count}"
        )
    weight = {d.id: d.weight for d in bank.domains}
    domains = sorted({it.domain for it in inside} | set(weight))
    caps = {d: sum(it.domain == d for it in inside) for d in domains}
    quota = _shares({d: weight.get(d, 0) for d in domains}, count, caps)
    short: list[Shortfall] = []
    for d in domains:
        ideal = round(count * weight.get(d, 0) / 100)
        if quota[d] < ideal:
            short.append(Shortfall(d, "", quota[d], ideal))
    totals = dict.fromkeys(drawn, 0)
    by_scenario: dict[str, list[QuizItem]] = {s: [] for s in drawn}
    for d in sorted(domains, key=lambda d: -quota[d]):
        cells = {s: [it for it in inside if it.domain == d and it.scenario == s] for s in drawn}
        take = _fill_domain(d, _split(quota[d], drawn, totals), cells, short)
        for s, n in take.items():
            by_scenario[s].extend(_round_robin(cells[s], n, rng))
            totals[s] += n
    items: list[QuizItem] = []
    for s in drawn:
        group = by_scenario[s]
        rng.shuffle(group)
        items.extend(group)
    return Sitting(number, seed, fmt, tuple(drawn), tuple(items), tuple(short))


def draw_sitting(
    bank: Bank,
    sitting: int = 1,
    seed: int = 0,
    format: Format | str = DEFAULT_FORMAT,
    count: int = EXAM_ITEMS,
    scenarios: int = EXAM_SCENARIOS,
) -> Sitting:
    """Sitting number ``sitting`` of ``seed``: ``count`` items inside ``scenarios`` scenarios.

    Sittings 1 … ``sitting`` are drawn in turn, each without the items of the ones before,
    so two sittings of one seed share no item. Returns the :class:`Sitting`; raises
    :class:`ValueError` when ``sitting`` or ``count`` is below 1, or when what is left of the
    bank cannot fill the sitting.
    """
    if sitting < 1 or count < 1 or scenarios < 1:
        raise ValueError("sitting, count and scenarios must be at least 1")
    fmt = Format(format)
    used: set[str] = set()
    for number in range(1, sitting + 1):
        drawn = _one_sitting(bank, number, seed, fmt, count, scenarios, used)
        used |= {it.id for it in drawn.items}
    return drawn
