"""The integrity check of a loaded CCA-F bank.

Rules of this module: :func:`bank_problems` returns every problem as an error
:class:`~mcpmini.errors.Problem` naming the item's file and place, never raising. Per item: the
key, ``pick``, the option count, no option under :data:`SHORT_OPTION` of its longest sibling,
rebuttals on every wrong option and none on a key, no two items sharing situation and stem. What
a test-wise candidate could read off the options (length ranks, parts, echoes, absolutes,
position, form) is the linter's (:mod:`.linter`), not a per-item rule.
"""

from __future__ import annotations

from ...errors import Problem, Severity
from ..language import Lang, Text
from .bank import Bank, QuizItem

__all__ = ["SHORT_OPTION", "bank_problems"]

#: An option is "much shorter than its siblings" below this share of the longest one.
SHORT_OPTION = 0.5
_NUMBER_WORDS = {2: "two", 3: "three"}


def _says_how_many(stem: Text, pick: int) -> bool:
    """Whether a multiple-response stem says how many to choose, in both languages."""
    en = stem.en.lower()
    word = _NUMBER_WORDS.get(pick, str(pick))
    return f"{pick} つ" in stem.ja and (f"choose {word}" in en or f"choose {pick}" in en)


def _option_problems(it: QuizItem) -> list[str]:
    """The options of one item: ids, count, lengths, rebuttals."""
    out = []
    ids = [o.id for o in it.options]
    if len(set(ids)) != len(ids):
        out.append("option ids repeat")
    want = 4 if it.pick == 1 else it.pick + 3
    if len(it.options) != want:
        out.append(f"a pick-{it.pick} item has {want} options, this one {len(it.options)}")
    for lang in (Lang.JA, Lang.EN):
        lengths = {o.id: len(o.text.lang(lang)) for o in it.options}
        top = max(lengths.values(), default=0)
        short = sorted(o for o, n in lengths.items() if n < SHORT_OPTION * top)
        if short:
            out.append(f"option {', '.join(short)} is under half the longest ({lang})")
    for o in it.options:
        if o.id not in it.correct and o.rebuttal is None:
            out.append(f"wrong option {o.id} has no rebuttal")
        if o.id in it.correct and o.rebuttal is not None:
            out.append(f"correct option {o.id} has a rebuttal")
    return out


def _item_problems(it: QuizItem) -> list[str]:
    """What is wrong inside one item: its key, ``pick``, options and rebuttals."""
    out = []
    if not it.correct or not it.correct <= {o.id for o in it.options}:
        out.append(
            f"key {sorted(it.correct)} does not name existing options"
            + (" (computed: the runtime's answer matches no option)" if it.compute else "")
        )
    if it.pick != len(it.correct):
        out.append(f"pick is {it.pick} but the key has {len(it.correct)} options")
    if it.pick > 1 and not _says_how_many(it.stem, it.pick):
        out.append(f"the stem does not say to choose {it.pick} (「{it.pick} つ選べ」, 'Choose …')")
    return out + _option_problems(it)


def _situation_stem(it: QuizItem) -> str:
    return " ".join(f"{it.situation.en} {it.stem.en} | {it.situation.ja} {it.stem.ja}".split())


def bank_problems(bank: Bank) -> list[Problem]:
    """Every integrity problem of ``bank``, as error :class:`Problem` values.

    Per item: unique ids; no two items share situation and stem; the key names existing
    options; ``pick`` equals the size of the key and a multiple-response stem says how many
    to choose (both languages); four options for a single answer (``pick`` + 3 otherwise);
    no option under :data:`SHORT_OPTION` of its longest sibling (per language); every wrong
    option has a rebuttal and no correct one has; the task statement is declared. For the
    bank: domain weights add up to 100.
    """
    out: list[Problem] = []

    def bad(item: QuizItem | None, message: str) -> None:
        where = (item.origin or None, item.at or None) if item else (None, None)
        text = f"item {item.id}: {message}" if item else message
        out.append(Problem(Severity.ERROR, text, *where))

    seen: dict[str, str] = {}
    texts: dict[str, str] = {}
    declared = {t.id for t in bank.tasks}
    for it in bank.items:
        if it.id in seen:
            bad(it, f"duplicate id (also in {seen[it.id]})")
        seen.setdefault(it.id, it.origin)
        both = _situation_stem(it)
        if both in texts:
            bad(it, f"same situation and stem as {texts[both]}")
        texts.setdefault(both, it.id)
        for message in _item_problems(it):
            bad(it, message)
        if it.task not in declared:
            bad(it, f"task statement {it.task} is not declared in tasks.yaml")
    if sum(d.weight for d in bank.domains) != 100:
        bad(None, "domain weights do not add up to 100")
    return out
