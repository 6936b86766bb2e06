"""The inventory's Claude Code flags: the 4,096-character description cut, names left out
past 128 characters, and which tools ToolSearch defers (measured with Claude Code 2.1.332)."""

from __future__ import annotations

import pytest

from mcpmini.config.inventory import (
    DESCRIPTION_CAP,
    DESCRIPTION_CUT_MARK,
    Inventory,
    ServerReport,
    ServerStatus,
    ToolReport,
    ToolSearch,
    _tool_report,
    deferred_names,
    sent_description,
    tool_search_mode,
)


def test_a_description_is_cut_only_past_4096_characters_and_marked():
    assert sent_description("d" * DESCRIPTION_CAP) == "d" * 4096
    cut = sent_description("日" * 5000)
    assert cut == "日" * 4096 + DESCRIPTION_CUT_MARK and len(cut) == 4109


def test_names_up_to_128_characters_are_sent_and_longer_ones_left_out():
    ok = _tool_report("sz", None, {"name": "n" * (128 - 9)}, ["too_long"])
    gone = _tool_report("sz", None, {"name": "n" * (129 - 9)}, [])
    assert (ok.sent, ok.problems) == (True, ())
    assert (gone.sent, gone.problems) == (False, ("too_long",))


def test_enable_tool_search_values_read_as_claude_code_reads_them():
    assert tool_search_mode(None) == (ToolSearch.DEFER, 0.10)
    assert tool_search_mode("true")[0] is ToolSearch.DEFER
    assert tool_search_mode("false")[0] is ToolSearch.UPFRONT
    assert tool_search_mode("auto:5") == (ToolSearch.AUTO, 0.05)
    with pytest.raises(ValueError):
        tool_search_mode("auto:lots")


def _inventory() -> Inventory:
    tools = (
        _tool_report("sz", None, {"name": "a"}, []),
        _tool_report("sz", None, {"name": "b", "_meta": {"anthropic/alwaysLoad": True}}, []),
        _tool_report("sz", None, {"name": "c" * 200}, []),
    )
    eager: tuple[ToolReport, ...] = (_tool_report("pin", None, {"name": "p"}, [], True),)
    return Inventory(
        (
            ServerReport("sz", "project", ServerStatus.OK, tools=tools),
            ServerReport("pin", "project", ServerStatus.OK, tools=eager),
        ),
        (),
    )


def test_by_default_every_sent_mcp_tool_is_deferred_except_always_load_ones():
    inv = _inventory()
    assert deferred_names(inv) == ["mcp__sz__a"]
    assert deferred_names(inv, "false") == []
    assert deferred_names(inv, "auto") == []  # far under 10 % of the window
    assert deferred_names(inv, "auto:0") == ["mcp__sz__a"]
    assert inv.upfront_tokens == sum(t.definition_tokens for t in inv.tools if t.sent)
