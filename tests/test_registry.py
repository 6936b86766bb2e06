"""The practice track's host pieces: namespaced names, the registry, identity injection,
the permission layers, truncation with the full result on disk, the code interpreter."""

from __future__ import annotations

import sys

import pytest

from mcpmini.agent import (
    AccessPolicy,
    Layer,
    Limits,
    Merge,
    NameProblemKind,
    NameStyle,
    Registry,
    SandboxOutcome,
    check_layers,
    either_filter,
    estimate_tokens,
    exposed_name,
    hide_fields,
    inject,
    interpreter_server,
    last_results,
    name_problems,
    split_name,
    truncate_result,
    visible_tools,
)
from mcpmini.errors import ConfigError
from mcpmini.mcp import OutcomeKind, add_server, orders_server, weather_server


def test_exposed_names_follow_each_style():
    assert exposed_name("orders", "query_order") == "orders__query_order"
    assert exposed_name("orders", "query_order", NameStyle.PLAIN) == "query_order"
    assert exposed_name("my.db", "run sql", NameStyle.CLAUDE_CODE) == "mcp__my_db__run_sql"
    assert (
        exposed_name("orders", "query_order", NameStyle.CLAUDE_CODE, plugin="shop")
        == "mcp__plugin_shop_orders__query_order"
    )


def test_splitting_at_the_first_separator_misroutes_a_server_whose_name_has_one():
    assert split_name("my__db__query") == ("my", "db__query")
    assert split_name("mcp__my__db__query", NameStyle.CLAUDE_CODE) == ("my", "db__query")
    with pytest.raises(ValueError):
        split_name("query")


def test_name_problems_find_collisions_splits_and_long_names():
    pairs = [("a__b", "c"), ("a", "b__c"), ("add", "add"), ("calc", "add"), ("s" * 30, "t" * 40)]
    kinds = {(p.kind, p.name) for p in name_problems(pairs)}
    assert (NameProblemKind.COLLISION, "a__b__c") in kinds
    assert (NameProblemKind.AMBIGUOUS_SPLIT, "a__b__c") in kinds
    assert (NameProblemKind.TOO_LONG, "s" * 30 + "__" + "t" * 40) in kinds
    assert not any(name == "add__add" for _, name in kinds)
    plain = name_problems(pairs, NameStyle.PLAIN)
    assert [(p.kind, p.name) for p in plain if p.kind is NameProblemKind.COLLISION] == [
        (NameProblemKind.COLLISION, "add")
    ]


def test_claude_code_names_collide_when_sanitising_maps_two_servers_together():
    problems = name_problems([("my.db", "q"), ("my_db", "q")], NameStyle.CLAUDE_CODE)
    assert [(p.kind, p.owners) for p in problems] == [
        (NameProblemKind.COLLISION, (("my.db", "q"), ("my_db", "q")))
    ]


def test_a_plugin_server_name_is_not_reported_as_an_ambiguous_split():
    assert (
        name_problems([("orders", "query_order")], NameStyle.CLAUDE_CODE, {"orders": "shop"}) == []
    )


def test_the_merge_order_decides_whose_user_id_reaches_the_server():
    forged = {"orderId": "B-2001", "userId": "bob"}
    alice = {"userId": "alice"}
    assert inject(forged, alice, Merge.MODEL_WINS)["userId"] == "bob"
    assert inject(forged, alice, Merge.HOST_WINS)["userId"] == "alice"
    with pytest.raises(PermissionError):
        inject(forged, alice, Merge.REJECT)
    assert inject({"orderId": "A-1001"}, alice, Merge.REJECT) == {
        "orderId": "A-1001",
        "userId": "alice",
    }


def test_hidden_identity_fields_leave_the_schema_and_its_required_list():
    schema = {
        "type": "object",
        "properties": {"orderId": {}, "userId": {}},
        "required": ["orderId", "userId"],
    }
    assert hide_fields(schema, ["userId"]) == {
        "type": "object",
        "properties": {"orderId": {}},
        "required": ["orderId"],
    }


def test_the_registry_routes_by_table_and_the_host_wins_the_identity():
    with Registry() as reg:
        reg.add("orders", orders_server())
        reg.add("weather", weather_server())
        names = [t.name for t in reg.tools()]
        assert "orders__query_order" in names and "weather__get_current_weather" in names
        schema = next(t for t in reg.tools() if t.name == "orders__query_order").input_schema
        assert "userId" not in schema["properties"]
        own = reg.call("orders__query_order", {"orderId": "A-1001"}, {"userId": "alice"})
        assert own.kind is OutcomeKind.OK and "A-1001" in own.text
        forged = reg.call(
            "orders__query_order", {"orderId": "B-2001", "userId": "bob"}, {"userId": "alice"}
        )
        assert forged.kind is OutcomeKind.TOOL_ERROR
        unknown = reg.call("orders__nope", {}, {"userId": "alice"})
        assert unknown.kind is OutcomeKind.TOOL_ERROR


def test_a_model_wins_registry_lets_a_forged_user_id_read_another_users_order():
    with Registry(merge=Merge.MODEL_WINS) as reg:
        reg.add("orders", orders_server())
        out = reg.call(
            "orders__query_order", {"orderId": "B-2001", "userId": "bob"}, {"userId": "alice"}
        )
        assert out.kind is OutcomeKind.OK and out.structured["userId"] == "bob"


def test_a_second_server_with_the_same_name_is_refused():
    with Registry() as reg:
        reg.add("calc", add_server())
        with pytest.raises(ConfigError):
            reg.add("calc", add_server())


def test_a_stdio_server_is_registered_and_its_process_ends_on_close():
    psutil = pytest.importorskip("psutil")
    reg = Registry(timeout=20)
    reg.add("add", [sys.executable, "-m", "mcpmini", "serve", "add"])
    pid = reg.clients["add"].transport.pid
    assert reg.call("add__add", {"a": 2, "b": 3}).text.startswith("5")
    reg.close()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


POLICY = AccessPolicy(
    plans={
        "free": frozenset({"weather__get_current_weather", "orders__list_recent_orders"}),
        "pro": None,
    },
    needs_grant=frozenset({"orders__list_recent_orders", "interp__execute_code"}),
)
TOOLS = ["weather__get_current_weather", "orders__list_recent_orders", "interp__execute_code"]


def test_plan_then_session_decide_what_is_visible():
    assert visible_tools(TOOLS, POLICY, "free") == ["weather__get_current_weather"]
    assert visible_tools(TOOLS, POLICY, "free", ["orders__list_recent_orders"]) == TOOLS[:2]
    assert visible_tools(TOOLS, POLICY, "pro", ["interp__execute_code"]) == [TOOLS[0], TOOLS[2]]
    verdict = check_layers("interp__execute_code", POLICY, "free", ["interp__execute_code"])
    assert (verdict.visible, verdict.layer) == (False, Layer.PLAN)
    verdict = check_layers("interp__execute_code", POLICY, "pro")
    assert (verdict.visible, verdict.layer) == (False, Layer.SESSION)
    with pytest.raises(KeyError):
        visible_tools(TOOLS, POLICY, "gold")


def test_the_either_rule_lets_a_grant_unlock_a_tool_outside_the_plan():
    assert "interp__execute_code" in either_filter(TOOLS, POLICY, "free", ["interp__execute_code"])
    assert "interp__execute_code" not in visible_tools(
        TOOLS, POLICY, "free", ["interp__execute_code"]
    )


def test_a_short_result_passes_untouched(tmp_path):
    out = truncate_result("small", 100, tmp_path, "t1")
    assert (out.text, out.cut, out.path) == ("small", False, None)
    assert list(tmp_path.iterdir()) == []


def test_a_long_result_is_cut_to_the_budget_and_kept_whole_on_disk(tmp_path):
    text = "".join(f"row {i}: {'x' * 30}\n" for i in range(2000))
    out = truncate_result(text, 500, tmp_path, "toolu_1")
    assert out.cut and out.kept_tokens <= 500 and estimate_tokens(out.text) == out.kept_tokens
    assert out.path is not None and out.path.read_text(encoding="utf-8") == text
    assert str(out.path) in out.text and out.full_tokens == estimate_tokens(text)


def test_truncation_refuses_a_budget_that_cannot_hold_the_pointer_and_a_path_as_key(tmp_path):
    with pytest.raises(ValueError):
        truncate_result("x" * 10_000, 5, tmp_path, "k")
    with pytest.raises(ValueError):
        truncate_result("x" * 10_000, 500, tmp_path, "../escape")


def test_the_interpreter_server_reports_each_outcome_as_the_model_sees_it():
    server = interpreter_server(
        Limits(wall_seconds=5, cpu_seconds=2, memory_mb=256, output_bytes=2000)
    )
    with Registry() as reg:
        reg.add("interp", server)
        ok = reg.call("interp__execute_code", {"code": "print(6 * 7)"})
        assert ok.kind is OutcomeKind.OK and "42" in ok.text
        flood = reg.call("interp__execute_code", {"code": "print('y' * 10_000)"})
        assert flood.kind is OutcomeKind.TOOL_ERROR
        crash = reg.call("interp__execute_code", {"code": "raise SystemExit(3)"})
        assert crash.kind is OutcomeKind.TOOL_ERROR
    outcomes = [r.outcome for r in last_results(server)]
    assert outcomes == [SandboxOutcome.OK, SandboxOutcome.OUTPUT_LIMIT, SandboxOutcome.ERROR]


def test_each_interpreter_run_starts_in_an_empty_folder():
    server = interpreter_server()
    with Registry() as reg:
        reg.add("interp", server)
        reg.call("interp__execute_code", {"code": "open('left.txt', 'w').write('x')"})
        second = reg.call("interp__execute_code", {"code": "import os; print(os.listdir('.'))"})
    assert "[]" in second.text


# --- what Claude Code 2.1.332 does with a large MCP result (measured, see tests/oracle) ------


def test_a_result_up_to_50000_characters_reaches_the_model_whole():
    from mcpmini.agent.registry import SAVE_OVER_CHARS, ResultFate, result_fate

    assert result_fate("x" * SAVE_OVER_CHARS) is ResultFate.WHOLE
    assert result_fate("日" * SAVE_OVER_CHARS) is ResultFate.WHOLE  # characters, not bytes
    assert result_fate("x" * (SAVE_OVER_CHARS + 1)) is ResultFate.SAVED


def test_past_max_mcp_output_tokens_the_result_is_refused_and_line_breaks_count_twice():
    from mcpmini.agent.registry import ResultFate, result_fate

    assert result_fate("x" * 99_899) is ResultFate.SAVED
    assert result_fate("x" * 99_900) is ResultFate.REFUSED
    lines = ("x" * 99 + "\n") * 990  # 99,000 characters, 990 escaped line breaks
    assert result_fate(lines[:98_500]) is ResultFate.SAVED
    assert result_fate(lines) is ResultFate.REFUSED
    assert result_fate("x" * 39_899, max_tokens=10_000) is ResultFate.WHOLE
    assert result_fate("x" * 39_900, max_tokens=10_000) is ResultFate.REFUSED
