"""Chapter 09's tables and lines (course/chapters/skills.py), in both languages."""

from __future__ import annotations

from mcpmini.course.chapters import (
    budget_table,
    front_matter_table,
    listing_lines,
    listing_size_table,
    pair_lines,
    reattach_table,
)
from mcpmini.course.chapters.skills import budget_rows, front_matter_rows
from mcpmini.course.edition import japanese_chars
from mcpmini.course.language import Lang, use
from mcpmini.skills import build_listing, parse_skill, reattach
from mcpmini.skills.listing import DEFAULT_CONTEXT_WINDOW, listing_budget


def test_broken_front_matter_gives_two_errors_and_a_warning_each_with_its_line():
    rows = front_matter_rows()
    with use(Lang.EN):
        kinds = [str(r["kind"]) for r in rows]
    assert kinds == ["error", "error", "warning"]
    assert [r["line"] for r in rows] == [3, 3, 3]
    assert rows[1]["field"] == "disable-model-invocation" and rows[2]["field"] == "colour"
    with use(Lang.JA):
        assert list(front_matter_table().columns)[:2] == ["壊し方", "重さ"]


def test_the_listing_does_not_grow_with_the_body():
    with use(Lang.EN):
        table = listing_size_table((1, 10, 1000))
    assert table["listing characters"].nunique() == 1
    assert table["body tokens"].is_monotonic_increasing


def test_the_budget_rows_follow_the_settings_and_the_variable_wins():
    budgets = [r["budget"] for r in budget_rows(fraction=0.001, chars=900)]
    window = DEFAULT_CONTEXT_WINDOW
    assert budgets == [
        listing_budget(window),
        listing_budget(window, fraction=0.001),
        900,
        900,
        listing_budget(200_000, chars_per_token=4),
    ]
    with use(Lang.EN):
        english = budget_table()
    with use(Lang.JA):
        japanese = budget_table()
    assert not any(japanese_chars(str(v)) for v in english.values.ravel())
    assert all(japanese_chars(str(v)) for v in japanese.iloc[:, 0])


def test_listing_lines_name_what_was_dropped_and_cut():
    many = [parse_skill(f"---\ndescription: {'x' * 90}\n---\nbody", name=f"s{i}") for i in range(8)]
    listing = build_listing(many, usage={f"s{i}": i for i in range(8)}, budget_chars=400)
    wordy = build_listing([parse_skill("---\ndescription: " + "a" * 2000 + "\n---\nb", name="w")])
    with use(Lang.EN):
        lines = listing_lines(listing, wordy.entries[0])
    dropped = [e.name for e in listing.entries if e.dropped]
    assert dropped and dropped[0] == "s0"
    assert lines[1] == f"descriptions dropped: {dropped}"
    assert lines[-1].endswith("(truncated: yes)")


def test_pair_lines_shorten_long_lines_and_compare_without_the_bundled_skill():
    mine = "header\n\n- a: short"
    real = mine + "\n- plugin-authoring: " + "z" * 200
    with use(Lang.EN):
        lines = pair_lines(mine, real, "9.9.9")
    assert lines[0] == f"--- mcpmini: {len(mine)} characters"
    assert any(line.endswith("(220 characters)") for line in lines)
    assert lines[-1] == "the same apart from the bundled skill: yes"
    with use(Lang.JA):
        assert pair_lines(mine, mine + "\n- other: x", "9.9.9")[-1].endswith("いいえ")


def test_the_reattach_table_says_how_each_skill_comes_back():
    result = reattach([("a", 1000), ("b", 9000), ("c", 6000)], total_tokens=8000)
    with use(Lang.EN):
        table = reattach_table(result)
    assert table.values.tolist() == [
        ["c", "cut", 5000, 6000],
        ["b", "cut", 3000, 9000],
        ["a", "dropped", 0, 1000],
    ]
