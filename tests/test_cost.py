"""Context-cost formulas (Prop. 3.8, Example 3.9, Prop. 5.2), measurement and cache simulation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpmini.agent import (
    break_even,
    cache_hits,
    deferred_cost,
    estimate_tokens,
    listing_bound,
    max_deferred_uses,
    measure_tool_layer,
    reattach_bound,
    uniform_costs,
    upfront_cost,
)


def test_estimate_tokens_counts_ascii_by_four_and_other_characters_by_one() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    assert estimate_tokens("天気") == 2


def test_example_3_9_figures_come_out_of_the_formulas() -> None:
    c = uniform_costs(200, 3, 300, 10)
    assert (c.upfront, c.deferred, c.difference) == (60_000, 2_900, 57_100)
    assert c.difference == (200 - 3) * (300 - 10) - 3 * 10
    assert c.break_even == pytest.approx(193.333, abs=1e-3)
    assert max_deferred_uses(200, 300, 10) == 193


def test_the_break_even_point_separates_the_two_regimes() -> None:
    for u in (193, 194):
        c = uniform_costs(200, u, 300, 10)
        assert (c.deferred < c.upfront) == (u <= 193)


@given(
    sizes=st.lists(st.tuples(st.integers(0, 50), st.integers(0, 500)), min_size=1, max_size=30),
    data=st.data(),
)
def test_the_difference_formula_of_prop_3_8_holds_for_any_sizes(sizes, data) -> None:
    names = [min(m, d) for m, d in sizes]
    defs = [d for _, d in sizes]
    used = data.draw(st.sets(st.integers(0, len(defs) - 1)))
    diff = upfront_cost(defs) - deferred_cost(names, defs, used)
    expected = sum(defs[i] - names[i] for i in range(len(defs)) if i not in used) - sum(
        names[i] for i in used
    )
    assert diff == expected


@given(st.integers(1, 500), st.integers(1, 400), st.data())
def test_deferred_is_smaller_exactly_below_u_star(n: int, d: int, data) -> None:
    m = data.draw(st.integers(0, d))
    u = data.draw(st.integers(0, n))
    c = uniform_costs(n, u, d, m)
    assert (c.deferred < c.upfront) == (u < break_even(n, d, m))


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError):
        uniform_costs(10, 11, 300, 10)
    with pytest.raises(ValueError):
        break_even(10, 5, 6)
    with pytest.raises(ValueError):
        deferred_cost([1], [2, 3], [])
    with pytest.raises(ValueError):
        deferred_cost([1], [2], [1])
    with pytest.raises(ValueError):
        measure_tool_layer(-1)


def test_measured_definitions_grow_linearly_and_dwarf_the_names() -> None:
    small, big = measure_tool_layer(10), measure_tool_layer(40)
    assert measure_tool_layer(0).definitions == 0
    assert big.definitions > 3.5 * small.definitions
    assert small.per_definition > 5 * small.per_name > 0


def test_appending_keeps_every_earlier_breakpoint_hit() -> None:
    hits = cache_hits([["T", "S", "m1"], ["T", "S", "m1", "m2"], ["T", "S", "m1", "m2", "m3"]])
    assert hits == [[False] * 3, [True, True, True, False], [True, True, True, True, False]]


def test_changing_the_tool_layer_loses_every_later_breakpoint() -> None:
    hits = cache_hits([["T", "S", "m1"], ["T+new", "S", "m1", "m2"]])
    assert hits[1] == [False, False, False, False]
    hits = cache_hits([["T", "S", "m1"], ["T", "S2", "m1"]])
    assert hits[1] == [True, False, False]


def test_prop_5_2_bounds() -> None:
    assert listing_bound(12, 400) == 4_800
    assert [reattach_bound(k) for k in (0, 3, 5, 7)] == [0, 15_000, 25_000, 25_000]


def test_the_widget_text_reproduces_example_3_9() -> None:
    from mcpmini.course import Lang, use
    from mcpmini.course.chapters import context_cost_explorer, context_cost_lines

    with use(Lang.EN):
        lines = context_cost_lines(200, 3, 300, 10)
        assert "60,000" in lines[0] and "2,900" in lines[1] and "57,100" in lines[2]
        assert lines[3].endswith("u ≤ 193") and lines[4].endswith("deferred")
        assert context_cost_lines(200, 194, 300, 10)[4].endswith("up front")
        assert context_cost_lines(200, 0, 300, 300)[4].endswith("neither (equal)")
    assert context_cost_explorer().children  # builds without a browser


def test_the_cost_curve_crosses_at_the_break_even_point() -> None:
    from mcpmini.course.chapters import context_cost_curve, measured_layer_rows, plot_context_cost

    rows = context_cost_curve(200, 300, 10)
    assert len(rows) == 201 and rows[3] == (3, 60_000, 2_900)
    assert max(u for u, up, de in rows if de < up) == 193
    assert [r[0] for r in measured_layer_rows((5, 10))] == [5, 10]
    fig = plot_context_cost(200, 300, 10, u=3)
    assert fig.dpi == 100 and fig.axes[0].get_title().startswith("命題 3.8")


def test_enable_tool_search_settings_decide_deferral() -> None:
    from mcpmini.agent import defer_tools

    assert defer_tools(None, 10) and defer_tools("", 10) and defer_tools("true", 10)
    assert not defer_tools("false", 10**6)
    assert not defer_tools("auto", 19_999) and defer_tools("auto", 20_000)  # 10 % of 200k
    assert defer_tools("auto:5", 10_000) and not defer_tools("auto:5", 9_999)
    assert defer_tools("AUTO:0", 0)
    for bad in ("yes", "auto:x", "auto:101", "auto:-1"):
        with pytest.raises(ValueError):
            defer_tools(bad, 1)


def test_the_cost_report_speaks_the_learners_language_with_the_same_figures() -> None:
    from mcpmini.course import Lang, use
    from mcpmini.course.chapters import context_cost_lines

    with use(Lang.EN):
        english = context_cost_lines(200, 3, 300, 10)
    with use(Lang.JA):
        japanese = context_cost_lines(200, 3, 300, 10)
    assert english[-1] == "cheaper here: deferred"
    assert japanese[-1] == "この値で少ないほう: 遅延読み込み"
    digits = [[w for w in line.split() if any(c.isdigit() for c in w)] for line in english]
    assert digits == [[w for w in line.split() if any(c.isdigit() for c in w)] for line in japanese]
    assert not any(ord(c) > 0x3000 for line in english for c in line)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_chapter_06_tables_speak_one_language_and_carry_the_runtimes_figures(lang) -> None:
    from mcpmini.agent import AgentOptions, ScriptedModel, run
    from mcpmini.config.inventory import DESCRIPTION_CAP
    from mcpmini.course import use
    from mcpmini.course.chapters import (
        bridge_table,
        cache_table,
        cost_table,
        description_cap_line,
        measured_layer_lines,
        measured_layer_table,
        request_sizes,
    )
    from mcpmini.mcp import add_server
    from mcpmini.oracle.binary import PIN

    script = [
        [{"type": "tool_use", "id": "s1", "name": "mcp__calc__add", "input": {"a": 1, "b": 2}}],
        "3",
    ]
    runs = {
        mode: run(
            "add",
            ScriptedModel(list(script)),
            AgentOptions(
                mcp_servers={"calc": add_server()},
                allowed_tools=["mcp__calc__add"],
                tool_search=mode == "deferred",
            ),
        )
        for mode in ("upfront", "deferred")
    }
    rows = [(10, 760, 40), (200, 15_400, 980)]
    answer_rows = [{"ENABLE_TOOL_SEARCH": "(unset)", "tool": "t", "chars sent": 0, "x": "sent"}]
    with use(lang):
        shown = [
            request_sizes(runs).to_string(),
            cost_table(200, 300, 10, (3, 194)).to_string(),
            measured_layer_table(rows).to_string(),
            "\n".join(measured_layer_lines(rows)),
            cache_table([[False, False], [True, True, False]]).to_string(),
            bridge_table(answer_rows).to_string(),
            description_cap_line(),
        ]
    for text in shown:
        assert any("\u3040" <= ch <= "\u9fff" for ch in text) == (lang == "ja"), text
    assert f"{DESCRIPTION_CAP:,}" in shown[-1] and PIN in shown[-1]
    assert "60200" in shown[1] and "77.0" in shown[3]
    assert len(cost_table(200, 300, 10, (0, 1, 2))) == 3


def test_the_bridge_table_leaves_names_and_unknown_values_as_they_are() -> None:
    from mcpmini.course import Lang, use
    from mcpmini.course.chapters import bridge_table

    with use(Lang.EN):
        table = bridge_table([{"tool": "mcp__a__b", "Claude Code 9.9.9": "whole", "n": 3}])
    assert list(table.columns) == ["tool", "Claude Code 9.9.9", "n"]
    assert table.iloc[0].tolist() == ["mcp__a__b", "whole", 3]
