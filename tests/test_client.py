"""The client: connection modes, pipelining, outcome classification and the map θ."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpmini.errors import (
    LocalProtocolError,
    McpminiError,
    RemoteProtocolError,
    TransportError,
    TransportErrorKind,
)
from mcpmini.mcp import (
    LEGACY,
    MODERN,
    Client,
    ClientConnection,
    ClientMode,
    ClientState,
    ErrorCode,
    Generation,
    MemoryTransport,
    Notification,
    OutcomeKind,
    Request,
    Response,
    Server,
    ToolOutcome,
    Traced,
    add_server,
    memory_pair,
    to_tool_result,
)
from mcpmini.mcp.client import TRANSITIONS, Connected, Outgoing, ReplyReceived, Stray


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
    server = add_server().connection()  # one peer: one connection

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
    server = add_server().connection()  # one peer: one connection
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
    server = add_server().connection()  # one peer: one connection
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


# --- requests from the server --------------------------------------------------------------


def asking_server(method: str):
    """A transport whose server answers ``tools/call`` only after asking the client ``method``;
    ``answers`` collects what the client sent back to that request."""
    server = add_server().connection()  # one peer: one connection
    answers: list[dict] = []
    waiting: dict[str, object] = {}

    def handler(raw: bytes):
        message = json.loads(raw)
        if message.get("method") == "tools/call":
            waiting["call"] = message["id"]
            return json.dumps(
                {"jsonrpc": "2.0", "id": "ask-1", "method": method, "params": {"message": "?"}}
            ).encode()
        if message.get("id") == "ask-1" and "method" not in message:
            answers.append(message)
            result = {"content": [{"type": "text", "text": "done"}], "isError": False}
            return json.dumps({"jsonrpc": "2.0", "id": waiting["call"], "result": result}).encode()
        return server.handle_line(raw)

    return MemoryTransport(handler), answers


def test_a_failing_handler_never_sends_the_exception_type_or_text_to_the_server():
    def broken(params):
        raise ValueError("cannot read /home/alice/.secret-token")

    transport, answers = asking_server("elicitation/create")
    client = Client(transport, mode="modern", handlers={"elicitation/create": broken})
    client.connect()
    assert client.call_tool("add", {"a": 1, "b": 2}).text == "done"
    (answer,) = answers
    assert answer["error"]["code"] == ErrorCode.INTERNAL_ERROR
    wire = json.dumps(answer)
    assert "ValueError" not in wire and "secret" not in wire and "alice" not in wire


def test_a_request_no_handler_answers_gets_method_not_found():
    transport, answers = asking_server("roots/list")
    client = Client(transport, mode="legacy")
    client.connect()
    assert client.call_tool("add", {"a": 1, "b": 2}).text == "done"
    assert answers[0]["error"]["code"] == ErrorCode.METHOD_NOT_FOUND


def test_a_handler_result_is_sent_back_with_the_servers_id():
    transport, answers = asking_server("roots/list")
    client = Client(transport, handlers={"roots/list": lambda p: {"roots": []}})
    client.connect()
    client.call_tool("add", {"a": 1, "b": 2})
    assert answers == [{"jsonrpc": "2.0", "id": "ask-1", "result": {"roots": []}}]


# --- the sans-I/O connection ---------------------------------------------------------------


def reply_line(request, result=None, error=None) -> bytes:
    body = {"error": error} if error is not None else {"result": result}
    return json.dumps({"jsonrpc": "2.0", "id": request.id, **body}).encode()


def test_a_legacy_negotiation_goes_idle_initializing_ready_and_sends_initialized_first():
    conn = ClientConnection(mode="legacy")
    assert conn.state is ClientState.IDLE
    initialize = conn.start()
    assert (initialize.method, conn.state) == ("initialize", ClientState.INITIALIZING)
    events = conn.receive(
        reply_line(initialize, {"protocolVersion": LEGACY, "capabilities": {}, "serverInfo": {}})
    )
    assert [type(e) for e in events] == [Outgoing, Connected]
    assert events[0].message == Notification("notifications/initialized")
    assert conn.state is ClientState.READY and events[1].connection.version == LEGACY


def test_auto_falls_back_from_a_discover_error_to_initialize_as_the_next_message():
    conn = ClientConnection(mode="auto")
    discover = conn.start()
    assert conn.state is ClientState.DISCOVERING and conn.can_fall_back
    (event,) = conn.receive(reply_line(discover, error={"code": -32601, "message": "no"}))
    assert isinstance(event, Outgoing) and event.message.method == "initialize"
    assert conn.state is ClientState.INITIALIZING and len(conn.pending) == 1


def test_a_discover_timeout_falls_back_in_auto_and_closes_in_modern():
    auto = ClientConnection(mode="auto")
    (event,) = auto.timed_out(auto.start().id)
    assert event.message.method == "initialize" and auto.state is ClientState.INITIALIZING
    modern = ClientConnection(mode="modern")
    with pytest.raises(TimeoutError):
        modern.timed_out(modern.start().id)
    assert modern.state is ClientState.CLOSED and len(modern.pending) == 0


def test_nothing_but_the_negotiation_is_sent_while_it_runs_and_nothing_once_closed():
    conn = ClientConnection(mode="legacy")
    conn.start()
    with pytest.raises(LocalProtocolError):
        conn.send_request("tools/list")
    conn.close()
    with pytest.raises(TransportError) as info:
        conn.send_request("tools/list")
    assert info.value.kind is TransportErrorKind.CLOSED
    with pytest.raises(LocalProtocolError):
        conn.start()


def test_an_idle_connection_may_send_with_an_explicit_version():
    conn = ClientConnection()
    request = conn.send_request("tools/list", version=MODERN)
    assert request.params["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN
    (event,) = conn.receive(Response(request.id, {"tools": []}))  # a parsed message works too
    assert isinstance(event, ReplyReceived) and event.request == request


def test_unreadable_lines_and_unknown_ids_are_stray_and_a_garbled_reply_is_marked():
    conn = ClientConnection()
    request = conn.send_request("tools/list")
    assert [type(e) for e in conn.receive(b"Welcome!")] == [Stray]
    assert [type(e) for e in conn.receive(reply_line(Request(99, "x"), {}))] == [Stray]
    (event,) = conn.receive(reply_line(request, 42))
    assert isinstance(event, ReplyReceived) and event.garbled
    assert event.reply.code == ErrorCode.INVALID_REQUEST and len(conn.pending) == 0


class Recording(ClientConnection):
    """A connection that records every state it enters."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen = [self.state]

    def _move(self, state):
        super()._move(state)
        if self.seen[-1] is not state:
            self.seen.append(state)


VERSION_SETS = st.sets(st.sampled_from(["2024-11-05", LEGACY, MODERN, "2027-01-01"]), min_size=1)


@given(st.sampled_from(list(ClientMode)), VERSION_SETS, VERSION_SETS)
def test_every_negotiation_moves_only_along_the_transition_table(mode, ours, theirs):
    client = Client(memory_pair(Server("s", versions=tuple(theirs))), mode=mode)
    client.conn = conn = Recording(mode, ours)
    try:
        client.connect()
    except (McpminiError, TimeoutError):
        assert conn.state is ClientState.CLOSED and conn.connection is None
    else:
        assert conn.state is ClientState.READY and conn.connection.version in ours
    assert conn.seen[0] is ClientState.IDLE
    for before, after in zip(conn.seen, conn.seen[1:]):
        assert after in TRANSITIONS[before]
