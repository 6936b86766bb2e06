"""The oracle's fake Messages API, over real HTTP with httpx (no Claude Code needed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mcpmini.oracle.fakeapi import (
    FINAL_TEXT,
    SIDE_TEXT,
    FakeApi,
    Script,
    reply,
    sse_events,
    step_of,
    tool_use_id,
)

SCRIPT = Script.of([("Bash", {"command": "ls"}), ("Read", {"file_path": "/x"})], final="fin")
TOOLS = [{"name": "Bash", "input_schema": {"type": "object"}}]


def _result(step: int) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": tool_use_id(step), "content": "ok"}],
    }


def _body(results: int, **extra: Any) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for i in range(results):
        messages.append(
            {"role": "assistant", "content": [{"type": "tool_use", "id": tool_use_id(i)}]}
        )
        messages.append(_result(i))
    return {"model": "m", "messages": messages, "tools": TOOLS, "max_tokens": 10, **extra}


@pytest.fixture
def api() -> Iterator[FakeApi]:
    with FakeApi(SCRIPT) as running:
        yield running


def _sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for chunk in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def _assemble(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Rebuild a message from stream events the way an SDK client does."""
    message: dict[str, Any] = {}
    partial: dict[int, str] = {}
    for name, data in events:
        if name == "message_start":
            message = dict(data["message"])
        elif name == "content_block_start":
            message["content"].append(dict(data["content_block"]))
        elif name == "content_block_delta":
            delta, block = data["delta"], message["content"][data["index"]]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            else:
                partial[data["index"]] = partial.get(data["index"], "") + delta["partial_json"]
        elif name == "content_block_stop" and data["index"] in partial:
            message["content"][data["index"]]["input"] = json.loads(partial[data["index"]])
        elif name == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
            message["usage"]["output_tokens"] = data["usage"]["output_tokens"]
    return message


def test_the_first_turn_is_the_first_scripted_tool_call(api: FakeApi) -> None:
    got = httpx.post(f"{api.url}/v1/messages", json=_body(0)).json()
    assert got["stop_reason"] == "tool_use"
    assert got["content"] == [
        {"type": "tool_use", "id": tool_use_id(0), "name": "Bash", "input": {"command": "ls"}}
    ]


def test_the_step_is_the_number_of_tool_results_already_sent(api: FakeApi) -> None:
    second = httpx.post(f"{api.url}/v1/messages", json=_body(1)).json()
    again = httpx.post(f"{api.url}/v1/messages", json=_body(1)).json()
    assert second["content"][0]["name"] == "Read"
    assert second["content"][0]["id"] == tool_use_id(1)
    assert again == second


def test_after_the_script_the_model_ends_with_its_final_text(api: FakeApi) -> None:
    got = httpx.post(f"{api.url}/v1/messages", json=_body(2)).json()
    assert got["stop_reason"] == "end_turn"
    assert got["content"] == [{"type": "text", "text": "fin"}]


def test_a_request_without_tools_gets_a_short_text_and_does_not_advance(api: FakeApi) -> None:
    body = _body(0)
    del body["tools"]
    side = httpx.post(f"{api.url}/v1/messages", json=body).json()
    main = httpx.post(f"{api.url}/v1/messages", json=_body(0)).json()
    assert side["content"] == [{"type": "text", "text": SIDE_TEXT}]
    assert main["content"][0]["id"] == tool_use_id(0)


def test_the_stream_carries_the_same_message_as_the_json_reply(api: FakeApi) -> None:
    for results in (0, 2):
        plain = httpx.post(f"{api.url}/v1/messages", json=_body(results)).json()
        streamed = httpx.post(f"{api.url}/v1/messages", json=_body(results, stream=True))
        assert streamed.headers["content-type"] == "text/event-stream"
        events = _sse(streamed.text)
        assert next(n for n, _ in events) == "message_start"
        assert [n for n, _ in events][-2:] == ["message_delta", "message_stop"]
        assert _assemble(events) == plain


def test_the_tool_input_streams_as_one_json_string() -> None:
    message = reply(_body(0), SCRIPT)
    deltas = [d for n, d in sse_events(message) if n == "content_block_delta"]
    assert deltas == [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"command": "ls"}'},
        }
    ]


def test_count_tokens_answers_an_input_token_count(api: FakeApi) -> None:
    got = httpx.post(f"{api.url}/v1/messages/count_tokens", json=_body(0))
    assert got.status_code == 200
    assert set(got.json()) == {"input_tokens"}
    assert got.json()["input_tokens"] >= 1


def test_every_request_body_is_recorded_in_arrival_order(api: FakeApi) -> None:
    httpx.post(f"{api.url}/v1/messages", json=_body(0))
    httpx.post(f"{api.url}/v1/messages/count_tokens", json={"messages": []})
    httpx.post(f"{api.url}/v1/messages", json=_body(1, stream=True))
    assert [r["path"] for r in api.requests] == [
        "/v1/messages",
        "/v1/messages/count_tokens",
        "/v1/messages",
    ]
    assert api.requests[2]["body"] == _body(1, stream=True)
    assert [step_of(b) for b in api.messages()] == [0, 1]


def test_bad_requests_get_the_api_error_shape(api: FakeApi) -> None:
    unknown = httpx.post(f"{api.url}/v1/other", json={})
    garbage = httpx.post(
        f"{api.url}/v1/messages", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert unknown.status_code == 404
    assert unknown.json()["error"]["type"] == "not_found_error"
    assert garbage.status_code == 400
    assert garbage.json()["type"] == "error"


def test_it_binds_loopback_only_and_releases_the_port() -> None:
    api = FakeApi(Script()).start()
    assert api.url.startswith("http://127.0.0.1:")
    url = api.url
    api.close()
    with pytest.raises(RuntimeError):
        _ = api.url
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"{url}/v1/messages", json=_body(0), timeout=2)


def test_an_empty_script_answers_its_final_text_at_once() -> None:
    assert reply(_body(0), Script())["content"] == [{"type": "text", "text": FINAL_TEXT}]
