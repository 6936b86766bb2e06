"""Surface cues: what a test-wise candidate who does not know the point reads off the options.

Rules of this module: a cue is a number measured on one option's text in one language —
its length, how many parts it lists, how much of the situation and stem it echoes, its
absolute words and its hedges, its position, and how its grammatical form agrees with its
siblings'. Each cue gives guessing *rules*: "choose the option where the cue is highest"
(or lowest, or at rank *r*), ties shared out evenly, as a candidate who follows the rule
would guess among the tied options. A rule's **key rate** is the share of items it answers
right (for a multiple-response item: the chance that the option it points at is a key);
its **chance** rate is the same for a blind guess (1 in the number of options; ``pick`` in
it for a multiple-response item). A bank leaks nothing through a cue when every rule's key
rate stays near chance (:data:`CUE_MARGIN`).

Everything is measured per language, on single-answer and multiple-response items apart,
since Japanese lengths and parts differ from English ones. The word lists are the ones the
item-writing guides name (absolutes: always, never, only, all…; hedges: usually, may…).
Japanese has no spaces, so a "word" there is a run of one script (kanji, katakana, Latin),
and a kanji run counts as its two-character pieces — enough to see an echoed term without
a dictionary.

:func:`option_cues` measures one item; :func:`cue_table` gives every rule's rate over a set
of items as :class:`CueRow` values; the test-wise guesser (:mod:`.guesser`) fits the same
cues.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from ..language import Lang
from .bank import QuizItem

__all__ = [
    "CUES",
    "CUE_MARGIN",
    "CueRow",
    "OptionCues",
    "cue_table",
    "option_cues",
    "rule_credit",
]

#: How far a rule's key rate may stray from chance, in percentage points.
CUE_MARGIN = 10.0

_ABSOLUTE_EN = re.compile(
    r"\b(always|never|only|all|every|everything|none|no one|nothing|must|cannot|can't|"
    r"entirely|completely|guarantee[sd]?|any|whatever|solely|exclusively)\b",
    re.IGNORECASE,
)
_ABSOLUTE_JA = re.compile(
    r"必ず|決して|すべて|全て|常に|絶対|だけ|しか|いつも|一切|どの.{1,6}も|完全に|全部"
)
_HEDGE_EN = re.compile(
    r"\b(may|might|can|could|usually|often|typically|generally|sometimes|likely|"
    r"tends? to|where possible|if needed|when needed|probably|mostly)\b",
    re.IGNORECASE,
)
_HEDGE_JA = re.compile(
    r"場合がある|ことがある|ことが多い|通常|たいてい|かもしれない|多くの場合|なるべく|必要なら|"
    r"ことも|可能なら|おおむね|ふつう|得る|うる"
)
# parts an option lists: commas and semicolons, "and" / "or" between items; in Japanese
# 、・ and the listing と after a noun (not こと, ところ, として…)
_PARTS_EN = re.compile(r"[,;]|\band\b|\bor\b", re.IGNORECASE)
_PARTS_JA = re.compile(r"[、・，;]|(?<=[一-龥ァ-ヶーA-Za-z0-9」）])と(?![いうきこしすなもか])")
_STOP_WORDS = (
    "a an the of to in on for and or is are be it its this that with as by at from which "
    "what when how should does do not no than then so into your their they them one"
)
_STOP_EN = frozenset(_STOP_WORDS.split())
# the first words that say an option opens as a statement, not an action
_OPENERS = "the a an it its they this that these those there because no yes if when only"
_FUNCTION_EN = frozenset(_OPENERS.split())
_WORDS_EN = re.compile(r"[a-z0-9][a-z0-9_.\-/]*[a-z0-9]|[a-z0-9]")
_RUNS_JA = re.compile(r"[一-龥々]+|[ァ-ヶー]+|[A-Za-z0-9_.\-/]+")


@dataclass(frozen=True)
class OptionCues:
    """The cues of one option in one language."""

    option: str
    position: int
    length: int
    parts: int
    overlap: float
    absolute: int
    hedge: int
    #: how many siblings share this option's grammatical form (0: the odd one out)
    agreement: int


def _words(text: str, lang: Lang) -> set[str]:
    if lang is Lang.EN:
        return {w for w in _WORDS_EN.findall(text.lower()) if w not in _STOP_EN and len(w) > 1}
    out: set[str] = set()
    for run in _RUNS_JA.findall(text):
        if re.fullmatch(r"[一-龥々]+", run) and len(run) > 2:
            out |= {run[i : i + 2] for i in range(len(run) - 1)}
        elif len(run) > 1:
            out.add(run.lower())
    return out


def _form(text: str, lang: Lang) -> str:
    """A coarse grammatical form: how the option opens and ends."""
    t = text.strip()
    if lang is Lang.EN:
        first = (t.split() or [""])[0].lower().strip("\"'`(")
        if first in _FUNCTION_EN:
            head = first
        elif first.endswith("ing"):
            head = "-ing"
        elif first[:1].isdigit() or not first[:1].isalpha():
            head = "symbol"
        else:
            head = "word"
        return f"{head}{'.' if t.endswith('.') else ''}"
    end = t.rstrip("。")
    if end.endswith("こと"):
        tail = "こと"
    elif end.endswith(("ため", "から", "ので")):
        tail = "reason"
    elif end.endswith(("だ", "である", "です", "ない")):
        tail = "predicate"
    elif end[-1:] in tuple("るすくぐむぶつうぬ"):
        tail = "verb"
    else:
        tail = "noun"
    return f"{tail}{'。' if t.endswith('。') else ''}"


@cache
def _idf(bank_texts: tuple[str, ...], lang: Lang) -> Mapping[str, float]:
    docs = [_words(t, lang) for t in bank_texts]
    df = Counter(w for d in docs for w in d)
    n = len(docs) or 1
    return {w: math.log((1 + n) / (1 + c)) for w, c in df.items()}


def _context(items: Iterable[QuizItem], lang: Lang) -> tuple[str, ...]:
    return tuple(f"{it.situation.lang(lang)} {it.stem.lang(lang)}" for it in items)


def option_cues(
    item: QuizItem, lang: Lang, idf: Mapping[str, float] | None = None
) -> list[OptionCues]:
    """The cues of every option of ``item`` in ``lang``; ``idf`` weighs an echoed word by how
    unusual it is in the bank (every echoed word counts 1 without it)."""
    texts = [o.text.lang(lang) for o in item.options]
    asked = _words(f"{item.situation.lang(lang)} {item.stem.lang(lang)}", lang)
    forms = [_form(t, lang) for t in texts]
    absolute = _ABSOLUTE_EN if lang is Lang.EN else _ABSOLUTE_JA
    hedge = _HEDGE_EN if lang is Lang.EN else _HEDGE_JA
    parts = _PARTS_EN if lang is Lang.EN else _PARTS_JA
    out = []
    for n, (o, text) in enumerate(zip(item.options, texts, strict=True)):
        shared = _words(text, lang) & asked
        weight = sum((idf or {}).get(w, 1.0) if idf else 1.0 for w in shared)
        out.append(
            OptionCues(
                o.id,
                n,
                len(text),
                len(parts.findall(text)),
                round(weight, 3),
                len(absolute.findall(text)),
                len(hedge.findall(text)),
                forms.count(forms[n]) - 1,
            )
        )
    return out


def rule_credit(values: Sequence[float], keys: Sequence[bool], pick: str) -> float:
    """The chance that a candidate following one rule over ``values`` hits a key: ``max`` or
    ``min`` chooses among the options at the extreme, ``rank:r`` the option at rank *r* from
    the highest (tied options share their ranks), always evenly among ties."""
    if pick in ("max", "min"):
        best = max(values) if pick == "max" else min(values)
        tied = [k for v, k in zip(values, keys, strict=True) if v == best]
        return sum(tied) / len(tied)
    rank = int(pick.split(":")[1])
    credit = 0.0
    order = sorted(set(values), reverse=True)
    start = 1
    for v in order:
        group = [k for x, k in zip(values, keys, strict=True) if x == v]
        end = start + len(group) - 1
        if start <= rank <= end:
            credit = sum(group) / len(group)
        start = end + 1
    return credit


@dataclass(frozen=True)
class CueRow:
    """One rule's key rate beside chance, over ``items`` items, in percent."""

    lang: str
    kind: str
    cue: str
    rule: str
    key_rate: float
    chance: float
    items: int

    @property
    def gap(self) -> float:
        """Key rate minus chance, in percentage points."""
        return self.key_rate - self.chance

    @property
    def ok(self) -> bool:
        """Whether the key rate is within :data:`CUE_MARGIN` of chance."""
        return abs(self.gap) <= CUE_MARGIN


#: Each cue: its name and how to read it off an :class:`OptionCues`.
CUES: dict[str, Callable[[OptionCues], float]] = {
    "length": lambda c: c.length,
    "parts": lambda c: c.parts,
    "overlap": lambda c: c.overlap,
    "absolute": lambda c: c.absolute,
    "hedge": lambda c: c.hedge,
    "form": lambda c: c.agreement,
}


def _rules(cue: str, width: int) -> list[str]:
    if cue == "length":
        return [f"rank:{r}" for r in range(1, width + 1)]
    return ["max", "min"]


def _rate(
    measured: Sequence[tuple[list[OptionCues], frozenset[str]]],
    values: Sequence[Sequence[float]],
    rule: str,
) -> float:
    """The key rate of ``rule`` over ``measured`` items, each with its cue ``values``."""
    total = 0.0
    for (cues, key), row in zip(measured, values, strict=True):
        total += rule_credit(row, [c.option in key for c in cues], rule)
    return 100 * total / len(measured)


def cue_table(
    items: Sequence[QuizItem], lang: Lang, context: Sequence[QuizItem] | None = None
) -> list[CueRow]:
    """Every rule's key rate in ``lang``, single-answer and multiple-response items apart.

    ``context`` (default: ``items``) is the set whose situations weigh an echoed word (a word
    rare across the bank's situations and stems weighs more). Groups without items are left
    out; a multiple-response group mixes only items with the same number of options.
    """
    idf = _idf(_context(context if context is not None else items, lang), lang)
    rows: list[CueRow] = []
    groups: dict[tuple[str, int, int], list[QuizItem]] = {}
    for it in items:
        kind = "single" if it.pick == 1 else f"choose {it.pick}"
        groups.setdefault((kind, len(it.options), it.pick), []).append(it)
    for (kind, width, pick), group in sorted(groups.items()):
        measured = [(option_cues(it, lang, idf), it.correct) for it in group]
        chance = 100 * pick / width
        for cue, read in CUES.items():
            for rule in _rules(cue, width):
                values = [[read(c) for c in cues] for cues, _ in measured]
                r = _rate(measured, values, rule)
                rows.append(CueRow(lang.value, kind, cue, rule, r, chance, len(group)))
        for p in range(width):
            values = [[float(c.position == p) for c in cues] for cues, _ in measured]
            r = _rate(measured, values, "max")
            rows.append(CueRow(lang.value, kind, "position", chr(65 + p), r, chance, len(group)))
    return rows
