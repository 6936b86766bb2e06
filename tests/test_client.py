"""The client: connection modes, pipelining, outcome classification and the map θ."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpmini.errors import McpminiError, RemoteProtocolError, TransportError
from mcpmini.mcp import (
    LEGACY,
    MODERN,
    Client,
    ClientMode,
    ErrorCode,
    Generation,
    MemoryTransport,
    OutcomeKind,
    Server,
    ToolOutcome,
    Traced,
    add_server,
    memory_pair,
    to_tool_result,
)


def connected(mode="auto", server=None, seed=None) -> Client:
    client = Client(memory_pair(server or add_server(), seed), mode=mode)
    client.connect()
    return client


@pytest.mark.parametrize(
    "mode, generation", [("auto", "modern"), ("modern", "modern"), ("legacy", "legacy")]
)
def test_every_mode_connects_lists_and_calls(mode, generation):
    client = connected(mode)
    assert client.connection.generation == generation
    assert [t["name"] for t in client.list_tools()] == ["add"]
    assert client.call_tool("add", {"a": 2, "b": 3}).text == "5"


def test_auto_falls_back_to_the_handshake_on_a_legacy_only_server():
    client = connected("auto", Server("old", versions=(LEGACY,)))
    assert client.connection.generation == "legacy"
    assert client.connection.steps[0].startswith("server/discover")


def test_auto_falls_back_when_discover_gets_no_reply():
    server = add_server()

    def silent_on_discover(raw: bytes):
        return None if b"server/discover" in raw else server.handle_line(raw)

    client = Client(MemoryTransport(silent_on_discover), mode="auto")
    assert client.connect().generation == "legacy"
    assert "no reply in time" in client.connection.steps


def test_modern_retries_once_with_the_intersection_after_32022():
    trace_transport = Traced(memory_pair(Server("s", versions=(MODERN,))))
    client = Client(trace_transport, mode="modern", versions=(MODERN, "2027-01-01"))
    assert client.connect().version == MODERN
    requests = [m for d, m in trace_transport.trace.messages() if d == "send"]
    assert len(requests) == 2
    assert requests[0]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2027-01-01"


def test_no_common_modern_version_is_an_error():
    client = Client(
        memory_pair(Server("s", versions=(MODERN,))), mode="auto", versions=("2027-01-01",)
    )
    with pytest.raises(McpminiError):
        client.connect()


def test_legacy_client_disconnects_when_the_server_answers_an_unknown_version():
    client = Client(
        memory_pair(Server("s", versions=(LEGACY,))), mode="legacy", versions=("2024-11-05",)
    )
    with pytest.raises(McpminiError):
        client.connect()


def test_modern_mode_against_a_legacy_only_server_fails_clearly():
    with pytest.raises(McpminiError):
        Client(memory_pair(Server("old", versions=(LEGACY,))), mode="modern").connect()


def test_hundred_pipelined_calls_answered_in_shuffled_order_all_match():
    client = connected(seed=42)
    ids = {client.send_tool_call("add", {"a": i, "b": i}): i for i in range(100)}
    order = []
    for _ in range(100):
        request, reply = client.receive_reply()
        order.append(request.id)
        assert reply.result["content"][0]["text"] == str(2 * ids[request.id])
        assert request.params["arguments"]["a"] == ids[request.id]
    assert sorted(order) == sorted(ids) and order != sorted(order)
    assert len(client.pending) == 0


def test_gather_returns_replies_in_request_order():
    client = connected(seed=7)
    replies = client.gather(
        [("tools/call", {"name": "add", "arguments": {"a": i, "b": 0}}) for i in range(20)]
    )
    assert [r.result["content"][0]["text"] for r in replies] == [str(i) for i in range(20)]


def test_request_raises_remote_error_with_the_server_code():
    client = connected()
    with pytest.raises(RemoteProtocolError) as info:
        client.request("tools/frobnicate")
    assert info.value.code == ErrorCode.METHOD_NOT_FOUND


# --- outcomes (i)–(iv) -------------------------------------------------------------------


def test_outcome_ok_tool_error_and_protocol_error():
    client = connected()
    assert client.call_tool("add", {"a": 1, "b": 1}).kind is OutcomeKind.OK
    assert client.call_tool("add", {"a": 1, "b": "x"}).kind is OutcomeKind.TOOL_ERROR
    unknown = client.call_tool("mul", {"a": 1})
    assert unknown.kind is OutcomeKind.PROTOCOL_ERROR and unknown.code == ErrorCode.INVALID_PARAMS


def faulty(fault: str):
    """A connected client whose server misbehaves on tools/call in the way ``fault`` says."""
    server = add_server()
    transport = None

    def handler(raw: bytes):
        if b"tools/call" not in raw:
            return server.handle_line(raw)
        rid = json.loads(raw)["id"]
        if fault == "silent":
            return None
        if fault == "garbled":
            return json.dumps({"jsonrpc": "2.0", "id": rid, "result": 42}).encode()
        if fault == "no content":
            return json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"x": 1}}).encode()
        if fault == "exit":
            transport.close()
            return None
        raise AssertionError(fault)

    transport = MemoryTransport(handler)
    client = Client(transport, mode="modern")
    client.connect()
    return client


@pytest.mark.parametrize(
    "fault, reason",
    [
        ("silent", "timeout"),
        ("garbled", "garbled reply"),
        ("no content", "garbled reply"),
        ("exit", "server exited"),
    ],
)
def test_no_answer_outcomes_say_why(fault, reason):
    outcome = faulty(fault).call_tool("add", {"a": 1, "b": 2}, timeout=0.5)
    assert outcome.kind is OutcomeKind.NO_ANSWER and outcome.reason == reason


def test_a_timed_out_request_is_forgotten_and_its_late_reply_set_aside():
    client = faulty("silent")
    client.call_tool("add", {"a": 1, "b": 2}, timeout=0.1)
    assert len(client.pending) == 0


def test_server_gone_while_sending_is_no_answer():
    client = connected()
    client.transport.close()
    assert client.call_tool("add", {"a": 1, "b": 2}).reason == "server exited"
    with pytest.raises(TransportError):
        client.request("tools/list")


@given(st.sampled_from(list(OutcomeKind)), st.text(max_size=20), st.text(min_size=1, max_size=8))
def test_theta_maps_every_outcome_to_exactly_one_tool_result(kind, text, tool_use_id):
    # Proposition 3.7, part 2: θ is total, so the pairing invariant holds for all outcomes.
    outcome = ToolOutcome(
        kind, "t", ({"type": "text", "text": text},), code=-32602, message="m", reason="timeout"
    )
    result = to_tool_result(outcome, tool_use_id)
    assert result["type"] == "tool_result" and result["tool_use_id"] == tool_use_id
    assert isinstance(result["content"], str)
    if kind is not OutcomeKind.OK:
        assert result["content"]  # the model always learns what went wrong
    assert result["is_error"] is (kind is not OutcomeKind.OK)


@pytest.mark.parametrize("mode", list(ClientMode))
def test_a_mode_enum_and_its_string_connect_the_same_way(mode):
    by_enum, by_string = connected(mode), connected(mode.value)
    assert by_enum.connection.generation is by_string.connection.generation
    assert by_enum.mode is by_string.mode is mode


def test_generations_print_and_serialise_as_their_plain_names():
    connection = connected("legacy").connection
    assert connection.generation is Generation.LEGACY
    assert f"{connection.generation}" == "legacy"
    assert json.dumps({"generation": connection.generation}) == '{"generation": "legacy"}'


def test_invalid_mode_is_refused():
    with pytest.raises(ValueError):
        Client(memory_pair(add_server()), mode="sometimes")


def test_auto_recovers_when_a_slow_server_answers_discover_after_the_fallback_began():
    server = add_server()
    late: list[bytes] = []

    def slow_discover(raw: bytes):
        reply = server.handle_line(raw)
        if b"server/discover" in raw and not late:
            late.append(reply)  # answered, but only after the client stopped waiting
            return None
        return reply

    transport = MemoryTransport(slow_discover)
    client = Client(transport, mode="auto")
    connection = client.connect()
    assert connection.generation == "modern"
    assert client.call_tool("add", {"a": 1, "b": 2}).text == "3"


def test_non_text_content_is_not_dropped_from_the_tool_result():
    outcome = ToolOutcome(
        OutcomeKind.OK,
        "shot",
        (
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": "a cat"},
        ),
    )
    result = to_tool_result(outcome, "tu")
    assert "image/png" in result["content"] and "a cat" in result["content"]
