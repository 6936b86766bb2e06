"""The practice track's teaching helpers and the agent-as-a-tool server."""

from __future__ import annotations

import sys

from mcpmini.agent import (
    AgentOptions,
    RouterModel,
    ScriptedModel,
    agent_server,
    run,
    runs_of,
)
from mcpmini.course.practice import (
    P2_POLICY,
    P2_TOOLS,
    SimulatedLatency,
    layer_lines,
    layer_rows,
    time_calls,
)
from mcpmini.mcp import Client, OutcomeKind, StdioTransport, add_server, memory_pair, weather_server


def test_layer_rows_say_which_layer_hides_each_tool():
    rows = {r[0]: r[1:] for r in layer_rows(P2_TOOLS, P2_POLICY, "free", ["interp__execute_code"])}
    assert rows["weather__get_weather_history"] == ("hides", "-", False)
    assert rows["orders__list_recent_orders"] == ("pass", "hides", False)
    assert rows["orders__query_order"] == ("pass", "pass", True)
    lines = layer_lines(P2_TOOLS, P2_POLICY, "pro", ["interp__execute_code"])
    assert len(lines) == len(P2_TOOLS) + 1 and lines[-1].endswith("yes")


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
