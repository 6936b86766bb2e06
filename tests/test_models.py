"""Offline models: scripted, constant, always-a-tool, and the description-based router."""

from __future__ import annotations

import pytest

from mcpmini.agent import (
    AlwaysToolModel,
    AnthropicModel,
    ConstantModel,
    ModelRequest,
    RouterModel,
    ScriptedModel,
    description_words,
    route,
    words,
)
from mcpmini.errors import ConfigError

TOOLS = [
    {"name": "get_weather", "description": "Current weather forecast for a city"},
    {"name": "add", "description": "Add two numbers and return the sum"},
]


def _req(text: str, tools: list[dict] = TOOLS, choice: dict | None = None) -> ModelRequest:
    return ModelRequest(
        "",
        tools,
        [{"role": "user", "content": [{"type": "text", "text": text}]}],
        choice or {"type": "auto"},
    )


def test_scripted_model_replays_its_replies_then_ends_with_text() -> None:
    model = ScriptedModel(["first", [{"type": "tool_use", "id": "t1", "name": "add", "input": {}}]])
    assert model(_req("x")) == [{"type": "text", "text": "first"}]
    assert model(_req("x"))[0]["id"] == "t1"
    assert model(_req("x")) == [{"type": "text", "text": "(end of script)"}]
    assert len(model.calls) == 3


def test_constant_model_ignores_its_input_but_gives_fresh_ids() -> None:
    model = ConstantModel([{"type": "tool_use", "id": "x", "name": "add", "input": {"a": 1}}])
    a, b = model(_req("please do not call add")), model(_req("anything else"))
    assert a[0]["name"] == b[0]["name"] == "add" and a[0]["input"] == {"a": 1}
    assert a[0]["id"] != b[0]["id"]


def test_always_tool_model_asks_for_the_tool_every_time() -> None:
    model = AlwaysToolModel("add", {"a": 1, "b": 2})
    replies = [model(_req("stop now")) for _ in range(5)]
    assert all(r[0]["type"] == "tool_use" and r[0]["name"] == "add" for r in replies)
    assert len({r[0]["id"] for r in replies}) == 5 and model.calls == 5


def test_words_drops_stop_words_and_keeps_japanese_runs() -> None:
    assert words("Get the weather for Tokyo") == {"weather", "tokyo"}
    assert "天気" in words("東京の天気")


def test_route_picks_the_tool_with_the_most_shared_words() -> None:
    r = route("what is the weather forecast in Osaka", TOOLS)
    assert r.tool == "get_weather" and r.scores == {"get_weather": 2, "add": 0}


def test_route_returns_none_when_nothing_overlaps() -> None:
    assert route("sing me a song", TOOLS).tool is None


def test_overlapping_descriptions_tie_and_the_first_listed_tool_wins() -> None:
    vague = [
        {"name": "search_docs", "description": "Search for information"},
        {"name": "search_tickets", "description": "Search for information"},
    ]
    r = route("search information about ticket 42", vague)
    assert r.tied == ["search_docs", "search_tickets"]
    assert r.tool == "search_docs"  # the misroute: the ticket search was meant


def test_a_boundary_sentence_counts_against_the_tool_it_describes() -> None:
    tools = [
        {
            "name": "get_weather",
            "description": "Current weather for a city. "
            "Not for past days; use get_weather_history for past weather.",
        },
        {"name": "get_weather_history", "description": "Weather of past days for a city."},
    ]
    assert description_words(tools[0]["description"])[1] == {"days", "history", "past"}
    r = route("weather in Osaka on past days", tools)
    assert r.tool == "get_weather_history"
    assert r.scores == {"get_weather": 1 - 2, "get_weather_history": 3}


def test_router_model_calls_the_routed_tool_then_answers_with_the_result() -> None:
    model = RouterModel(arguments={"add": {"a": 2, "b": 3}})
    reply = model(_req("add these two numbers"))
    assert reply[0]["name"] == "add" and reply[0]["input"] == {"a": 2, "b": 3}
    after = ModelRequest(
        "",
        TOOLS,
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": reply[0]["id"],
                        "content": "5",
                        "is_error": False,
                    }
                ],
            }
        ],
    )
    assert model(after) == [{"type": "text", "text": "5"}]


def test_router_model_honours_tool_choice() -> None:
    model = RouterModel()
    assert model(_req("sing", choice={"type": "any"}))[0]["name"] == "get_weather"
    assert model(_req("weather", choice={"type": "tool", "name": "add"}))[0]["name"] == "add"
    assert model(_req("sing"))[0]["type"] == "text"


def test_the_real_model_adapter_needs_a_key_in_the_given_environ() -> None:
    with pytest.raises(ConfigError) as info:
        AnthropicModel("any-model", environ={})
    assert info.value.path == "ANTHROPIC_API_KEY"
