"""The skill listing: the per-skill cut, the budget, who loses a description first, overrides."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpmini.errors import Severity
from mcpmini.skills import MAX_DESC_CHARS, Skill, build_listing, lint_skills, load_skills


def skill(name: str, description: str = "does things", **fields) -> Skill:
    return Skill(name, description, body="the body", fields=fields, source=f"{name}/SKILL.md")


def test_the_default_budget_is_one_percent_of_the_window_at_four_characters_a_token():
    assert build_listing([]).budget_chars == 8_000
    assert build_listing([], context_window_tokens=1_000_000).budget_chars == 40_000
    assert build_listing([], context_window_tokens=1_000_000, budget_chars=123).budget_chars == 123


def test_each_entry_is_the_name_with_description_and_when_to_use():
    listing = build_listing([skill("pdf", "Fill PDF forms.", when_to_use="when a PDF arrives")])
    assert listing.text == "- pdf: Fill PDF forms. when a PDF arrives"
    assert listing.chars == len(listing.text)


def test_a_long_description_is_cut_at_1536_characters_and_flagged():
    (entry,) = build_listing([skill("long", "x" * (MAX_DESC_CHARS + 10))]).entries
    assert len(entry.text) == MAX_DESC_CHARS == 1536
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


def test_ties_in_usage_are_broken_by_name():
    skills = [skill("zeta", "z" * 50), skill("eta", "e" * 50)]
    listing = build_listing(skills, budget_chars=build_listing(skills).chars - 1)
    assert [e.name for e in listing.entries if e.dropped] == ["eta"]


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
    st.integers(min_value=0, max_value=400),
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
