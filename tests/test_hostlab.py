"""The practice track's teaching helpers and the agent-as-a-tool server, in both languages."""

from __future__ import annotations

import re
import sys
from types import SimpleNamespace
from typing import ClassVar

import pytest

from mcpmini.agent import (
    AgentOptions,
    RouterModel,
    ScriptedModel,
    agent_server,
    run,
    runs_of,
)
from mcpmini.course import Lang, term, use
from mcpmini.course.practice import (
    P2_POLICY,
    P2_TOOLS,
    P4_CONTEXT_LIMIT,
    STRATEGIES,
    WORDS,
    SimulatedLatency,
    context_series,
    context_table,
    fate_table,
    gate_table,
    grant_toggler,
    inventory_summary,
    inventory_table,
    layer_lines,
    layer_rows,
    line,
    nesting_table,
    probe_table,
    results_table,
    table_lines,
    time_calls,
    timing_table,
    turn_table,
)
from mcpmini.mcp import Client, OutcomeKind, StdioTransport, add_server, memory_pair, weather_server


def test_layer_rows_say_which_layer_hides_each_tool():
    rows = {r[0]: r[1:] for r in layer_rows(P2_TOOLS, P2_POLICY, "free", ["interp__execute_code"])}
    assert rows["weather__get_weather_history"] == ("hides", "-", False)
    assert rows["orders__list_recent_orders"] == ("pass", "hides", False)
    assert rows["orders__query_order"] == ("pass", "pass", True)
    with use(Lang.EN):
        lines = layer_lines(P2_TOOLS, P2_POLICY, "pro", ["interp__execute_code"])
    assert len(lines) == len(P2_TOOLS) + 1 and lines[-1].endswith("yes")
    assert lines[0].split() == ["tool", "plan", "layer", "session", "layer", "visible"]
    with use(Lang.JA):
        lines = layer_lines(P2_TOOLS, P2_POLICY, "free", [])
    assert lines[0].split() == ["ツール", "プラン層", "セッション層", "見える"]
    assert lines[2].split() == ["weather__get_weather_history", "隠す", "-", "いいえ"]


def test_simulated_latency_passes_lines_through_unchanged():
    with Client(SimulatedLatency(memory_pair(add_server()), 0.0)) as client:
        client.connect()
        assert client.call_tool("add", {"a": 1, "b": 2}).text.startswith("3")
        assert len(time_calls(client, "add", {"a": 1, "b": 2}, n=3)) == 3


def test_pipelined_calls_through_a_simulated_remote_all_arrive():
    argv = [sys.executable, "-m", "mcpmini", "serve", "weather"]
    with Client(SimulatedLatency(StdioTransport(argv), 0.01), timeout=30) as client:
        client.connect()
        ids = [client.send_tool_call("get_current_weather", {"city": c}) for c in ("Tokyo", "Naha")]
        kinds = [client.tool_outcome("get_current_weather", i).kind for i in ids]
    assert kinds == [OutcomeKind.OK, OutcomeKind.OK]


def test_an_agent_served_as_a_tool_runs_a_fresh_inner_loop_per_call():
    research = agent_server(
        "research",
        make_model=lambda: RouterModel({"mcp__weather__get_current_weather": {"city": "Osaka"}}),
        make_options=lambda: AgentOptions(
            mcp_servers={"weather": weather_server()}, allowed_tools=["mcp__weather"]
        ),
        description="Current weather in a Japanese city.",
    )
    use = {
        "type": "tool_use",
        "name": "mcp__research__ask",
        "input": {"prompt": "What is the current weather in Osaka now?"},
    }
    outer = run(
        "umbrella?",
        ScriptedModel([[dict(use, id="t1")], [dict(use, id="t2")], "ok"]),
        AgentOptions(mcp_servers={"research": research}, allowed_tools=["mcp__research"]),
    )
    inner = runs_of(research)
    assert len(inner) == 2 and all(r.model_calls == 2 for r in inner)
    assert '"city":"Osaka"' in outer.messages[2]["content"][0]["content"]
    assert runs_of(add_server()) == []


def test_the_weather_samples_never_snow_in_the_warm_or_rain_in_the_frost():
    from mcpmini.mcp.samples import CITIES, SNOW_AT_C

    seen = set()
    with Client(memory_pair(weather_server())) as client:
        client.connect()
        for city in CITIES:
            readings = [client.call_tool("get_current_weather", {"city": city}).structured]
            history = client.call_tool("get_weather_history", {"city": city, "days": 30})
            readings += history.structured["result"]
            for r in readings:
                cold = r["temperature_c"] <= SNOW_AT_C
                assert r["condition"] != ("rain" if cold else "snow"), r
                assert -15 < r["temperature_c"] < 40, r
                seen.add(r["condition"])
    assert {"sunny", "cloudy", "rain", "windy"} <= seen


JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def test_every_practice_word_is_complete_in_both_languages_and_the_english_has_no_japanese():
    for name, words in WORDS.items():
        assert words.ja and words.en, name
        assert not JAPANESE.search(words.en), name
        # a template takes the same fields in both languages
        assert re.findall(r"{(\w+)", words.ja) == re.findall(r"{(\w+)", words.en), name


def test_labels_that_name_a_glossary_concept_use_the_glossarys_terms():
    for name, ja in [
        ("plan_layer", "プラン層"),
        ("session_layer", "セッション層"),
        ("exposed_name", "公開名"),
        ("exit_code", "終了コード"),
    ]:
        assert WORDS[name] == term(ja)


def test_a_line_speaks_the_learners_language_and_reads_booleans_as_words():
    with use(Lang.JA):
        assert line("host_tmp", left=False) == "ホストの /tmp に残ったか: いいえ"
    with use(Lang.EN):
        assert line("host_tmp", left=False) == "left in the host's /tmp: no"
        assert line("cpu_after", outcome="cpu_limit", seconds=4.26) == (
            "cpu_limit after 4.3 s of wall time"
        )
    with pytest.raises(KeyError):
        line("no such line")


def test_a_table_aligns_numbers_right_and_japanese_by_its_display_width():
    import pandas as pd

    lines = table_lines(pd.DataFrame({"名前": ["ab", "漢字"], "n": ["5", "64,070"]}))
    assert lines == ["名前       n", "ab         5", "漢字  64,070"]


class _Tool:
    def __init__(self, name, tokens, cut):
        self.name, self.definition_tokens, self.description_cut = name, tokens, cut


class _Inventory:
    tools: ClassVar = [_Tool("mcp__a__x", 70, False), _Tool("mcp__a__y", 5000, True)]
    upfront_tokens, deferred_tokens, break_even = 5070, 12, 1.9


@pytest.mark.parametrize(
    ("lang", "header", "summary"),
    [
        (
            Lang.EN,
            ["exposed name", "definition tokens", "description cut"],
            "up front: 5070 tokens",
        ),
        (
            Lang.JA,
            ["公開名", "定義のトークン数", "説明文の切り詰め"],
            "前もって全部置く: 5070 トークン",
        ),
    ],
)
def test_the_inventory_table_in_each_language(lang, header, summary):
    with use(lang):
        table = inventory_table(_Inventory())
        assert list(table.columns) == header
        assert table.iloc[1].tolist() == ["mcp__a__y", 5000, str(WORDS["yes"])]
        assert inventory_summary(_Inventory()).startswith(summary)
        assert "u* = 1.9" in inventory_summary(_Inventory())


def test_the_gate_table_names_what_the_product_did_and_each_modes_decision():
    rows = [("a__x", "plan", {"default": "ask"}), ("b__y", "user", {"default": "allow"})]
    with use(Lang.EN):
        table = gate_table(rows)
    assert list(table.columns) == ["call", "product host", "Claude Code (default)"]
    assert table.iloc[0].tolist() == ["a__x", "hidden by the plan layer", "ask"]
    assert table.iloc[1, 1] == "refused by the end-user layer"
    with use(Lang.JA):
        assert gate_table(rows).iloc[0, 1] == "プラン層で隠れる"
    with pytest.raises(KeyError):
        gate_table([("a__x", "nobody", {})])


def test_probe_and_result_tables_label_known_probes_and_keep_other_keys():
    with use(Lang.EN):
        table = probe_table([("wall", "tool_error", "[timeout]"), ("mine", "ok", "")])
    assert table.iloc[:, 0].tolist() == ["wall clock (sleeps)", "mine"]

    class _Result:
        def __init__(self, outcome, code):
            self.outcome, self.exit_code = SimpleNamespace(value=outcome), code

    with use(Lang.JA):
        table = results_table([_Result("timeout", None), _Result("error", 3)])
    assert list(table.columns) == ["結果", "終了コード"]
    assert table.iloc[:, 1].tolist() == ["-", 3]


def test_the_fate_table_reads_rows_by_position_and_truncates_for_the_course_host(tmp_path):
    rows = [
        {"x": 1000, "y": "whole", "z": "whole", "w": 1000},
        {"chars": 120_000, "a": "refused", "b": "refused", "c": 1366},
    ]
    with use(Lang.EN):
        table = fate_table(rows, "2.1.332", 2_000, tmp_path)
    assert list(table.columns)[2] == "Claude Code 2.1.332"
    assert list(table.columns)[4] == "course host (2,000 tokens) keeps"
    assert table.iloc[:, 4].tolist() == [250, 2000]
    assert (tmp_path / "size-120000.txt").stat().st_size == 120_000


def test_the_context_strategies_come_from_the_runtime_and_the_exercise():
    from mcpmini.agent.registry import MCP_MAX_TOKENS

    assert [s.budget for s in STRATEGIES][:3] == [None, MCP_MAX_TOKENS, 2_000]
    with use(Lang.EN):
        series = context_series()
        table = context_table(series, P4_CONTEXT_LIMIT)
    assert list(series)[1] == f"Claude Code's cap {MCP_MAX_TOKENS:,}"
    assert table.iloc[:, 2].tolist() == ["no", "no", "yes", "yes"]
    with use(Lang.JA):
        assert next(iter(context_series())) == "切り詰めなし"


def test_timing_turn_and_nesting_tables():
    with use(Lang.EN):
        table = timing_table({"memory": [0.03, 0.01, 0.05], "remote": [50.5]}, rtt=0.05)
        assert table.iloc[:, 0].tolist() == [
            "in-process (memory)",
            "simulated remote (HTTP + 50 ms RTT)",
        ]
        assert table.iloc[0, 1:].tolist() == ["0.03", "0.01", "0.05"]
        turns = turn_table((1, 5))
        assert turns.iloc[1].tolist() == [5, 600, 4000, 800]
    run = SimpleNamespace(model_calls=2, requests=[SimpleNamespace(total_tokens=10)])
    with use(Lang.JA):
        assert nesting_table(run, run).iloc[:, 0].tolist() == ["外側", "内側"]


def test_the_grant_toggler_shows_the_layers_and_follows_its_checkboxes():
    from mcpmini.course import report_text

    with use(Lang.EN):
        box = grant_toggler(P2_TOOLS, P2_POLICY, "free")
        assert box.children[0].description == "plan"
        before = report_text(box)
        grant = next(
            w
            for w in box.children[1:]
            if getattr(w, "description", "") == "orders__list_recent_orders"
        )
        grant.value = True
        after = report_text(box)

    def row(report):
        return next(r.split() for r in report.splitlines() if r.startswith("orders__list"))

    assert row(before) == ["orders__list_recent_orders", "passes", "hides", "no"]
    assert row(after) == ["orders__list_recent_orders", "passes", "passes", "yes"]
