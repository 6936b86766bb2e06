"""The skill listing: the per-skill cut, the budget, who loses a description first, overrides."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpmini.errors import Severity
from mcpmini.skills import MAX_DESC_CHARS, Skill, build_listing, lint_skills, load_skills
from mcpmini.skills.listing import (
    CUT_MARK,
    display_width,
    listing_budget,
    listing_text,
    model_chars_per_token,
    usage_score,
)


def skill(name: str, description: str = "does things", **fields) -> Skill:
    return Skill(name, description, body="the body", fields=fields, source=f"{name}/SKILL.md")


def test_the_default_budget_is_one_percent_of_the_default_models_window_at_three_a_token():
    # Claude Code 2.1.332: claude-opus-5-5, a 1M window, 3 characters a token
    assert build_listing([]).budget_chars == 30_000
    assert (
        build_listing([], model="claude-sonnet-4-5", context_window_tokens=200_000).budget_chars
        == 8_000
    )
    assert build_listing([], model="claude-sonnet-4-6[1m]").budget_chars == 40_000
    assert build_listing([], budget_chars=123).budget_chars == 123
    assert build_listing([], budget_chars=0).budget_chars == 30_000  # 0 is ignored, like unset


def test_models_outside_the_four_character_set_count_three_characters_a_token():
    assert model_chars_per_token("claude-haiku-4-5-20251001") == 4
    assert model_chars_per_token("claude-opus-5-5") == model_chars_per_token("claude-x-9") == 3
    assert listing_budget(1, chars_per_token=3) == 1  # never below one character


def test_each_entry_is_the_name_with_description_and_when_to_use():
    listing = build_listing([skill("pdf", "Fill PDF forms.", when_to_use="when a PDF arrives")])
    assert listing.text == "- pdf: Fill PDF forms. - when a PDF arrives"
    assert listing.chars == len(listing.text)


def test_a_long_description_keeps_1535_characters_and_an_ellipsis():
    (entry,) = build_listing([skill("long", "x" * (MAX_DESC_CHARS + 10))]).entries
    assert len(entry.text) == MAX_DESC_CHARS == 1536 and entry.text.endswith("x" + CUT_MARK)
    assert (entry.truncated, entry.original_chars, entry.dropped) == (True, 1546, False)
    (short,) = build_listing([skill("short", "x" * MAX_DESC_CHARS)]).entries
    assert short.truncated is False


def test_the_bodies_never_count_against_the_listing():
    small = Skill("s", "d", body="")
    huge = Skill("s", "d", body="word " * 100_000)
    assert build_listing([small]).text == build_listing([huge]).text


def test_over_budget_the_least_used_skill_loses_its_description_first_and_names_stay():
    skills = [skill("alpha", "a" * 60), skill("beta", "b" * 60), skill("gamma", "g" * 60)]
    full = build_listing(skills, budget_chars=10_000)
    one_dropped = full.chars - 61  # one ": " + 60 characters fewer
    listing = build_listing(skills, budget_chars=one_dropped, usage={"alpha": 5, "gamma": 2})
    assert [e.name for e in listing.entries if e.dropped] == ["beta"]
    assert listing.chars <= listing.budget_chars and not listing.over_budget
    assert "- beta\n" in listing.text + "\n"


def test_ties_in_usage_keep_the_listing_order_and_a_later_shorter_one_still_fits():
    skills = [skill("zeta", "z" * 50), skill("eta", "e" * 50), skill("mu", "m" * 5)]
    listing = build_listing(skills, budget_chars=build_listing(skills).chars - 1)
    # sorted: eta, mu, zeta; eta keeps its text, zeta's no longer fits, mu's short one does
    assert [(e.name, e.dropped) for e in listing.entries] == [
        ("eta", False),
        ("mu", False),
        ("zeta", True),
    ]


def test_over_budget_bundled_entries_stay_whole_and_built_in_commands_can_lose_theirs():
    listing = build_listing(
        [skill("mine", "m" * 40)],
        budget_chars=30,
        fixed=[("bundled", "b" * 40)],
        builtin=[("init", "i" * 10)],
    )
    assert listing.text == "- mine\n- bundled: " + "b" * 40 + "\n- init"


def test_wide_characters_count_two_columns_against_the_budget():
    assert display_width("説明ab") == 6
    skills = [skill("ja", "説明" * 10)]
    assert not build_listing(skills, budget_chars=len("- ja: ") + 40).entries[0].dropped
    assert build_listing(skills, budget_chars=len("- ja: ") + 39).entries[0].dropped


def test_line_breaks_and_tabs_become_spaces_and_blank_lines_vanish():
    assert listing_text("a\tb\n\n  c  ", "when\nnow") == "a b   c - when now"


def test_names_sort_as_claude_code_sorts_them():
    names = ["b", "A", "c", "_x", "1z", "a-b", "a_b", "aa", "Ab", "s2", "s10"]
    listing = build_listing([skill(n) for n in names])
    order = ["_x", "1z", "A", "a_b", "a-b", "aa", "Ab", "b", "c", "s10", "s2"]
    assert [e.name for e in listing.entries] == order


def test_a_front_matter_name_that_differs_from_the_folder_is_shown_in_parentheses():
    a = Skill("renamed", "d", "b", fields={"name": "other"})
    b = Skill("spacey", "d", "b", fields={"name": "Has Space"})
    c = Skill("taken", "d", "b", fields={"name": "renamed"})
    listing = build_listing([a, b, c])
    assert listing.text == "- renamed (other): d\n- spacey: d\n- taken: d"


def test_the_usage_score_halves_every_week_down_to_a_tenth():
    assert usage_score(8, 0) == 8 and usage_score(8, 7) == 4 and usage_score(10, 365) == 1


def test_when_even_the_names_do_not_fit_the_listing_says_so():
    listing = build_listing(
        [skill("a-rather-long-name"), skill("another-long-name")], budget_chars=5
    )
    assert all(e.dropped for e in listing.entries)
    assert listing.over_budget and listing.text == "- a-rather-long-name\n- another-long-name"


def test_skills_kept_from_the_model_are_excluded():
    skills = [skill("manual", **{"disable-model-invocation": True}), skill("auto")]
    listing = build_listing(skills)
    assert [e.name for e in listing.entries] == ["auto"] and listing.excluded == ("manual",)


def test_skill_overrides_hide_or_shorten_an_entry_and_unknown_values_are_refused():
    skills = [skill("a"), skill("b"), skill("c"), skill("d")]
    listing = build_listing(
        skills, overrides={"a": "off", "b": "user-invocable-only", "c": "name-only"}
    )
    assert listing.excluded == ("a", "b")
    assert listing.text == "- c\n- d: does things"
    with pytest.raises(ValueError):
        build_listing(skills, overrides={"a": "sometimes"})


@given(
    st.lists(st.text("abc", min_size=0, max_size=80), min_size=1, max_size=6),
    st.integers(min_value=1, max_value=400),
)
def test_dropping_descriptions_never_leaves_the_listing_over_budget_when_the_names_fit(
    descriptions, budget
):
    skills = [skill(f"s{i}", d) for i, d in enumerate(descriptions)]
    listing = build_listing(skills, budget_chars=budget)
    names_only = "\n".join(f"- s{i}" for i in range(len(skills)))
    assert [e.name for e in listing.entries] == [s.name for s in skills]
    assert listing.over_budget is (len(names_only) > budget)


def test_lint_reports_cut_and_dropped_descriptions_as_warnings_naming_the_file(tmp_path):
    for name, description in (("big", "x" * 2000), ("small", "short")):
        folder = tmp_path / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n---\nbody\n"
        )
    found = load_skills([tmp_path])
    problems = lint_skills(found, budget_chars=100)
    assert {p.severity for p in problems} == {Severity.WARNING}
    assert {(p.source.endswith("big/SKILL.md"), p.path) for p in problems} >= {
        (True, "description")
    }
    assert len([p for p in problems if p.source and p.source.endswith("big/SKILL.md")]) == 2
    roomy = lint_skills(found)  # the default budget: only the cut remains
    assert [(p.severity, p.path, p.source.endswith("big/SKILL.md")) for p in roomy] == [
        (Severity.WARNING, "description", True)
    ]


def test_a_renamed_plugin_skill_is_listed_by_its_folder_with_its_name_in_parentheses():
    from mcpmini.skills import Level
    from mcpmini.skills.listing import listed_name

    s = Skill(
        "kit:nice",
        "d",
        "b",
        fields={"name": "nice"},
        directory="/p/skills/raw",
        level=Level.PLUGIN,
        plugin="kit",
    )
    assert listed_name(s) == "kit:raw"
    assert build_listing([s]).text == "- kit:raw (kit:nice): d"


def test_usage_is_scored_at_one_instant_so_the_decay_floor_outranks_a_decaying_tie():
    from mcpmini.skills.listing import DAY_MS, usage_scores

    now = 1_000 * DAY_MS
    state = {
        "fresh": {"usageCount": 3, "lastUsedAt": now - 5_000},  # seconds ago: just under 3.0
        "floor": {"usageCount": 30, "lastUsedAt": now - 200 * DAY_MS},  # 3.0 exactly
        "broken": {"usageCount": "3"},
        "odd": 4,
    }
    scores = usage_scores(state, now)
    assert set(scores) == {"fresh", "floor"}
    assert scores["floor"] == 3.0 > scores["fresh"] > 2.99
