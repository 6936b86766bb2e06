"""The real CCA-F bank against issue 18's figures (the acceptance test of the bank).

Each target is one test: the bank loads with no problem (schema, keys, rebuttals in both
languages, option lengths, duplicates, the longest-key share), at least 180 items, Domain 2 at
least 60 with at least 10 per task statement, every task statement at least 3, at least 80 %
decisions, both languages complete, and two full-length sittings with no item in common.
What a test-wise guesser could read off the options is tests/test_ccaf_cues.py's (issue 28).
"""

from __future__ import annotations

import pytest

from mcpmini.course.ccaf import (
    EXAM_ITEMS,
    SHORT_OPTION,
    Format,
    Lang,
    bank_problems,
    draw_sitting,
    figures,
    load_bank,
)

BANK = load_bank()
FIGURES = figures(BANK)


def test_the_bank_loads_without_a_single_problem() -> None:
    assert [str(p) for p in BANK.problems] == []


def test_the_bank_holds_at_least_180_items() -> None:
    assert FIGURES.items >= 180, "\n".join(FIGURES.lines())


def test_domain_2_holds_at_least_60_items_and_10_per_task_statement() -> None:
    assert FIGURES.per_domain[2] >= 60
    d2 = {t: n for t, n in FIGURES.per_task.items() if t.startswith("2.")}
    assert set(d2) == {"2.1", "2.2", "2.3", "2.4", "2.5"}
    assert min(d2.values()) >= 10, d2


def test_every_one_of_the_30_task_statements_has_at_least_3_items() -> None:
    assert len(BANK.tasks) == 30
    assert {t: n for t, n in FIGURES.per_task.items() if n < 3} == {}


def test_at_least_80_percent_of_the_items_ask_for_a_decision() -> None:
    assert FIGURES.decision_share >= 0.8, FIGURES.kinds


def test_no_option_is_under_half_the_length_of_its_longest_sibling() -> None:
    short = [
        (it.id, lang.value, o.id)
        for it in BANK.items
        for lang in (Lang.JA, Lang.EN)
        for o in it.options
        if len(o.text.lang(lang)) < SHORT_OPTION * max(len(p.text.lang(lang)) for p in it.options)
    ]
    assert short == []


def test_no_two_items_share_situation_and_stem_and_ids_are_unique() -> None:
    ids = [it.id for it in BANK.items]
    assert len(ids) == len(set(ids))
    pairs = [(it.situation, it.stem) for it in BANK.items]
    assert len(pairs) == len(set(pairs))


def test_every_wrong_option_has_a_rebuttal_in_both_languages() -> None:
    missing = [
        (it.id, o.id)
        for it in BANK.items
        for o in it.options
        if o.id not in it.correct and (o.rebuttal is None or not o.rebuttal.ja or not o.rebuttal.en)
    ]
    assert missing == []


def test_both_languages_are_complete_for_every_item() -> None:
    incomplete = []
    for it in BANK.items:
        texts = [it.situation, it.stem, it.explanation, *(o.text for o in it.options)]
        texts += [o.rebuttal for o in it.options if o.rebuttal is not None]
        if any(not t.ja.strip() or not t.en.strip() for t in texts):
            incomplete.append(it.id)
        # the Japanese is written, not the English copied over
        if any(t.ja == t.en for t in (it.situation, it.stem, it.explanation)):
            incomplete.append(it.id)
    assert incomplete == []
    assert all(s.title.ja and s.title.en and s.text.ja and s.text.en for s in BANK.scenarios)


def test_every_item_belongs_to_one_of_the_six_scenarios() -> None:
    assert [s.id for s in BANK.scenarios] == [
        "support",
        "codegen",
        "research",
        "productivity",
        "ci",
        "extraction",
    ]
    assert {it.scenario for it in BANK.items} <= {s.id for s in BANK.scenarios}


@pytest.mark.parametrize("fmt", [Format.SINGLE, Format.MIXED])
def test_two_full_length_sittings_with_no_item_in_common_exist(fmt: Format) -> None:
    first = draw_sitting(BANK, 1, seed=0, format=fmt)
    second = draw_sitting(BANK, 2, seed=0, format=fmt)
    assert len(first.items) == len(second.items) == EXAM_ITEMS
    assert not {it.id for it in first.items} & {it.id for it in second.items}
    assert len(first.scenarios) == len(second.scenarios) == 4


def test_the_integrity_check_of_the_real_bank_is_clean() -> None:
    assert bank_problems(BANK) == []


def test_every_first_sitting_draws_every_cell_from_its_own_scenario() -> None:
    # every four of the six scenarios a sitting can draw, in the default (v1.0, mixed) format:
    # each scenario x domain cell holds what the sitting asks of it, so no fallback is needed
    seen: dict[frozenset[str], int] = {}
    for seed in range(400):
        drawn = draw_sitting(BANK, 1, seed=seed)
        seen.setdefault(frozenset(drawn.scenarios), seed)
        assert drawn.shortfalls == (), (seed, drawn.shortfall_line())
        if len(seen) == 15:
            break
    assert len(seen) == 15
