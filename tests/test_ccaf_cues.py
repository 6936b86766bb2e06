"""The bank linter (issue 28): a test-wise candidate who knows nothing cannot beat the bank.

Per language, for single-answer and multiple-response items apart, every surface cue's key
rate stays within ±10 points of chance (length rank, parts, overlap with the situation and
stem, absolute words and hedges, position, grammatical form), and a guesser fitted on half
the items and scored on the other half with the project's scaled scoring stays within 60
points of chance (both halves, five seeds). The table is printed (``pytest -s``, or
``mcpmini quiz lint``) and is the failure message when a target is missed. The measures
themselves are checked on small made-up items, so a linter that cannot fail would be caught.
"""

from __future__ import annotations

import pytest

from mcpmini.course.ccaf import Lang, Option, QuizItem, Text, cue_table, held_out, lint, load_bank
from mcpmini.course.ccaf.bank import Kind
from mcpmini.course.ccaf.cues import option_cues, rule_credit


def _item(n: int, texts: list[str], key: str, pick: int = 1) -> QuizItem:
    options = tuple(Option(chr(65 + i), Text(t, t)) for i, t in enumerate(texts))
    keys = frozenset(key.split(","))
    return QuizItem(
        f"x{n}",
        "2.1",
        "support",
        Kind.DECISION,
        Text(f"s{n}", f"situation {n}"),
        Text("問い", "Which one?"),
        options,
        keys,
        pick,
        Text("e", "e"),
    )


def test_a_rule_shares_its_credit_evenly_among_tied_options() -> None:
    assert rule_credit([3, 1, 3, 2], [True, False, False, False], "max") == 0.5
    assert rule_credit([3, 1, 2, 0], [False, True, False, False], "min") == 0.0
    assert rule_credit([5, 4, 4, 1], [False, True, False, False], "rank:2") == 0.5
    assert rule_credit([5, 4, 4, 1], [False, True, False, False], "rank:3") == 0.5
    assert rule_credit([5, 4, 3, 1], [True, False, False, False], "rank:4") == 0.0


def test_an_always_longest_key_and_an_always_listing_key_are_caught() -> None:
    items = [
        _item(n, ["short one", "short two", "a, b and c, the longest answer here", "short x"], "C")
        for n in range(40)
    ]
    rows = {(r.cue, r.rule): r for r in cue_table(items, Lang.EN)}
    assert rows[("length", "rank:1")].key_rate == 100 and not rows[("length", "rank:1")].ok
    assert rows[("parts", "max")].key_rate == 100
    assert rows[("position", "C")].key_rate == 100
    runs = held_out(items, Lang.EN, seeds=range(2))
    assert all(r.scaled == 1000 for r in runs) and all(round(r.chance) == 325 for r in runs)


def test_echoed_unusual_words_and_absolutes_are_measured() -> None:
    it = _item(0, ["Use the zorblax index", "Always restart", "Never restart", "Ask again"], "A")
    cues = {c.option: c for c in option_cues(it, Lang.EN)}
    assert cues["A"].overlap == 0  # the situation says nothing of a zorblax
    echo = QuizItem(
        "e",
        "2.1",
        "support",
        Kind.DECISION,
        Text("s", "the zorblax index is stale"),
        Text("q", "Which one?"),
        it.options,
        it.correct,
        1,
        Text("e", "e"),
    )
    cues = {c.option: c for c in option_cues(echo, Lang.EN)}
    assert cues["A"].overlap > 0 and cues["B"].absolute == cues["C"].absolute == 1
    ja = _item(1, ["必ず再起動する", "ログを読む", "設定を確かめる", "担当者に聞く"], "B")
    assert [c.absolute for c in option_cues(ja, Lang.JA)] == [1, 0, 0, 0]


BANK = load_bank()


@pytest.mark.parametrize("lang", [Lang.JA, Lang.EN], ids=["ja", "en"])
def test_no_surface_cue_and_no_test_wise_guesser_beats_the_bank(lang: Lang) -> None:
    (report,) = lint(BANK, [lang])
    table = "\n".join(report.lines())
    print(table)
    assert report.misses == [], table
