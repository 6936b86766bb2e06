"""Streamable HTTP: the sans-I/O mapping, the ASGI app under uvicorn, the httpx client, bad
input."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import orjson
import pytest

from mcpmini.mcp import (
    Client,
    HttpEndpoint,
    HttpRequest,
    HttpTransport,
    OutcomeKind,
    Traced,
    add_server,
    asgi_app,
    conformance_server,
    serve_http,
)
from mcpmini.mcp.http import decode_header_value, encode_header_value, request_headers, sse_event
from mcpmini.mcp.jsonrpc import Notification, Request

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
BOTH = "application/json, text/event-stream"


def post(body: object, **headers: str) -> HttpRequest:
    base = {"host": "127.0.0.1:8000", "content-type": "application/json", "accept": BOTH}
    base.update({k.replace("_", "-"): v for k, v in headers.items()})
    raw = body if isinstance(body, bytes) else orjson.dumps(body)
    return HttpRequest.build("POST", base, raw)


def modern(method: str, id: int = 1, **params: object) -> dict:
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {**params, "_meta": META}}


def initialize(id: int = 1) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }


# --- sans-I/O ------------------------------------------------------------------------------


def test_a_stateless_request_is_dispatched_to_a_fresh_server_with_no_session():
    endpoint = HttpEndpoint(add_server())
    decision = endpoint.receive(
        post(modern("tools/list"), mcp_protocol_version=MODERN, mcp_method="tools/list")
    )
    assert decision.route.value == "stateless" and decision.session is None
    reply = endpoint.reply(decision, decision.server.handle(decision.message))
    assert reply.status == 200 and reply.json()["result"]["resultType"] == "complete"
    assert endpoint.sessions == {}


def test_initialize_opens_a_session_and_delete_ends_it_so_a_later_request_gets_404():
    endpoint = HttpEndpoint(add_server())
    decision = endpoint.receive(post(initialize()))
    reply = endpoint.reply(decision, decision.server.handle(decision.message))
    sid = dict(reply.headers)["mcp-session-id"]
    assert reply.status == 200 and sid in endpoint.sessions and sid.isascii() and sid.isprintable()
    note = endpoint.receive(
        post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            mcp_session_id=sid,
            mcp_protocol_version="2025-11-25",
        )
    )
    assert note.status == 202
    gone = endpoint.receive(
        HttpRequest.build("DELETE", {"host": "localhost", "mcp-session-id": sid})
    )
    assert gone.status == 200
    later = endpoint.receive(
        post(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            mcp_session_id=sid,
            mcp_protocol_version="2025-11-25",
        )
    )
    assert later.status == 404


def test_each_session_holds_its_own_connection_so_subscriptions_stay_in_their_session():
    endpoint = HttpEndpoint(conformance_server())
    sessions = []
    for _ in range(2):
        decision = endpoint.receive(post(initialize()))
        reply = endpoint.reply(decision, decision.connection.handle(decision.message))
        sessions.append(endpoint.sessions[dict(reply.headers)["mcp-session-id"]])
    first, second = sessions
    subscribe = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "resources/subscribe",
        "params": {"uri": "test://watched-resource"},
    }
    decision = endpoint.receive(
        post(subscribe, mcp_session_id=first.id, mcp_protocol_version="2025-11-25")
    )
    assert decision.connection is first.connection and decision.server is first.connection
    assert endpoint.reply(decision, decision.connection.handle(decision.message)).status == 200
    assert first.connection.subscriptions == {"test://watched-resource"}
    assert second.connection.subscriptions == set()
    assert first.version == second.version == "2025-11-25"


def test_a_stateless_error_takes_the_status_its_protocol_error_suggested():
    endpoint = HttpEndpoint(add_server())
    for method, params, status in [
        ("tools/unknown", {}, 404),
        ("tools/call", {"name": "nope"}, 400),
        ("tools/list", {}, 200),
    ]:
        headers = {"mcp_protocol_version": MODERN, "mcp_method": method}
        if "name" in params:
            headers["mcp_name"] = params["name"]
        decision = endpoint.receive(post(modern(method, **params), **headers))
        reply = endpoint.reply(decision, decision.connection.handle(decision.message))
        assert reply.status == status, method


def test_the_removed_methods_answer_404_and_header_disagreements_400_on_the_stateless_wire():
    endpoint = HttpEndpoint(conformance_server())
    for method in ("initialize", "ping", "logging/setLevel", "resources/subscribe"):
        reply = endpoint.receive(
            post(modern(method), mcp_protocol_version=MODERN, mcp_method=method)
        )
        assert (reply.status, reply.json()["error"]["code"]) == (404, -32601)
    mismatch = endpoint.receive(
        post(modern("tools/list"), mcp_protocol_version=MODERN, mcp_method="tools/call")
    )
    assert (mismatch.status, mismatch.json()["error"]["code"]) == (400, -32020)
    name = endpoint.receive(
        post(
            modern("tools/call", name="test_simple_text"),
            mcp_protocol_version=MODERN,
            mcp_method="tools/call",
            mcp_name="other",
        )
    )
    assert (name.status, name.json()["error"]["code"], name.json()["id"]) == (400, -32020, 1)
    version = endpoint.receive(
        post(modern("tools/list"), mcp_protocol_version="2099-01-01", mcp_method="tools/list")
    )
    assert version.json()["error"]["code"] == -32020


@pytest.mark.parametrize(
    "value, header",
    [
        ("Hello", "Hello"),
        ("  padded ", "=?base64?ICBwYWRkZWQg?="),
        ("日本", "=?base64?5pel5pys?="),
        (True, "true"),
        (3, "3"),
        (None, None),
    ],
)
def test_parameter_header_values_are_plain_ascii_or_base64_and_decode_back(value, header):
    assert encode_header_value(value) == header
    if isinstance(value, str):
        assert decode_header_value(header) == value


def test_bad_base64_in_a_header_value_is_refused():
    for bad in ("=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?="):
        with pytest.raises(ValueError):
            decode_header_value(bad)


def test_a_client_puts_method_and_name_headers_only_on_the_stateless_wire():
    call = Request(1, "tools/call", {"name": "add"})
    assert request_headers(call, MODERN)["mcp-name"] == "add"
    assert "mcp-method" not in request_headers(call, "2025-11-25", "abc")
    assert (
        request_headers(Notification("notifications/initialized"), "2025-11-25", "abc")[
            "mcp-session-id"
        ]
        == "abc"
    )


def test_an_event_carries_one_message_on_one_data_line():
    event = sse_event(Notification("notifications/progress", {"progress": 1}), "e1")
    assert event.startswith(b"id: e1\n") and event.endswith(b"\n\n")
    assert event.count(b"\ndata: ") == 1


# --- over a real socket ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def conformance_url():
    with serve_http(conformance_server()) as url:
        yield url


@pytest.fixture(scope="module")
def small_url():
    with serve_http(asgi_app(add_server(), max_body=1024)) as url:
        yield url


@pytest.mark.parametrize(
    "mode, generation", [("auto", "modern"), ("modern", "modern"), ("legacy", "legacy")]
)
def test_the_mcpmini_client_calls_tools_over_http_in_every_mode(small_url, mode, generation):
    with Client(HttpTransport(small_url, timeout=10), mode=mode, timeout=10) as client:
        assert client.connect().generation == generation
        assert [t["name"] for t in client.list_tools()] == ["add"]
        assert client.call_tool("add", {"a": 2, "b": 3}).text == "5"
        assert client.call_tool("add", {"a": 2, "b": "x"}).kind is OutcomeKind.TOOL_ERROR
        assert client.call_tool("mul", {}).kind is OutcomeKind.PROTOCOL_ERROR
        replies = client.gather(
            [("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}}) for i in range(20)]
        )
        assert [r.result["content"][0]["text"] for r in replies] == [str(i + 1) for i in range(20)]


def test_progress_logs_and_elicitation_travel_on_the_event_stream_before_the_result(
    conformance_url,
):
    asked = []

    def elicit(params):
        asked.append(params["message"])
        return {"action": "accept", "content": {"response": "yes"}}

    transport = Traced(HttpTransport(conformance_url, timeout=10))
    with Client(
        transport,
        mode="legacy",
        timeout=10,
        capabilities={"elicitation": {}},
        handlers={"elicitation/create": elicit},
    ) as client:
        client.connect()
        client.request("logging/setLevel", {"level": "debug"})
        assert client.call_tool("test_tool_with_logging", {}).kind is OutcomeKind.OK
        outcome = client.call_tool("test_elicitation", {"message": "Continue?"})
        assert asked == ["Continue?"] and "action=accept" in outcome.text
        progress = client.request(
            "tools/call",
            {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": 7}},
        )
        assert progress["isError"] is False
    received = [e.json() for e in transport.trace.events if e.direction == "recv"]
    methods = [m.get("method") for m in received]
    assert methods.count("notifications/message") == 3
    tokens = [
        m["params"]["progressToken"]
        for m in received
        if m.get("method") == "notifications/progress"
    ]
    assert tokens == [7, 7, 7]
    assert methods.index("elicitation/create") < len(methods)


def test_a_session_ends_when_the_client_closes_it(conformance_url):
    transport = HttpTransport(conformance_url, timeout=10)
    client = Client(transport, mode="legacy", timeout=10)
    client.connect()
    sid = transport.session_id
    client.close()
    again = httpx.post(
        conformance_url,
        json={"jsonrpc": "2.0", "id": 9, "method": "tools/list"},
        headers={"accept": BOTH, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"},
    )
    assert again.status_code == 404


def test_three_concurrent_posts_are_all_answered(small_url):
    statuses = []

    def one(i):
        reply = httpx.post(
            small_url,
            content=orjson.dumps(modern("tools/list", i)),
            timeout=10,
            headers={
                "content-type": "application/json",
                "accept": BOTH,
                "mcp-protocol-version": MODERN,
                "mcp-method": "tools/list",
            },
        )
        statuses.append(reply.status_code)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert statuses == [200, 200, 200]


# --- the bad-input table ---------------------------------------------------------------------

GOOD = {
    "content-type": "application/json",
    "accept": BOTH,
    "mcp-protocol-version": MODERN,
    "mcp-method": "tools/list",
}


def _bad_cases(url: str, session: str, deleted: str):
    body = orjson.dumps(modern("tools/list"))
    stateful = {
        "content-type": "application/json",
        "accept": BOTH,
        "mcp-protocol-version": "2025-11-25",
    }
    plain = orjson.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
    return [
        ("wrong Content-Type", "POST", {**GOOD, "content-type": "text/plain"}, body, 415, None),
        (
            "missing Content-Type",
            "POST",
            {k: v for k, v in GOOD.items() if k != "content-type"},
            body,
            415,
            None,
        ),
        ("wrong Accept", "POST", {**GOOD, "accept": "text/html"}, body, 406, None),
        (
            "Accept without event-stream",
            "POST",
            {**GOOD, "accept": "application/json"},
            body,
            406,
            None,
        ),
        ("missing Accept", "POST", {**GOOD, "accept": ""}, body, 406, None),
        ("invalid JSON", "POST", GOOD, b'{"jsonrpc": "2.0", "id": 1,', 400, -32700),
        ("body over the cap", "POST", GOOD, b" " * 2048, 413, None),
        ("a batch", "POST", GOOD, orjson.dumps([modern("tools/list")]), 400, -32600),
        ("unknown session id", "POST", {**stateful, "mcp-session-id": "nope"}, plain, 404, None),
        ("deleted session id", "POST", {**stateful, "mcp-session-id": deleted}, plain, 404, None),
        ("wrong Host", "POST", {**GOOD, "host": "evil.example.com"}, body, 403, None),
        ("wrong Origin", "POST", {**GOOD, "origin": "http://evil.example.com"}, body, 403, None),
        (
            "unsupported MCP-Protocol-Version",
            "POST",
            {**stateful, "mcp-session-id": session, "mcp-protocol-version": "1999-01-01"},
            plain,
            400,
            None,
        ),
        (
            "a notification",
            "POST",
            GOOD,
            orjson.dumps({"jsonrpc": "2.0", "method": "notifications/x"}),
            202,
            None,
        ),
        ("PUT", "PUT", GOOD, body, 405, None),
        ("GET without a session", "GET", {"accept": "text/event-stream"}, b"", 405, None),
        ("DELETE of an unknown session", "DELETE", {"mcp-session-id": "nope"}, b"", 404, None),
    ]


def test_every_bad_request_gets_its_status_and_the_next_good_request_still_works(small_url):
    with httpx.Client(timeout=10) as http:

        def session() -> str:
            reply = http.post(
                small_url,
                content=orjson.dumps(initialize()),
                headers={"content-type": "application/json", "accept": BOTH},
            )
            return reply.headers["mcp-session-id"]

        live, deleted = session(), session()
        assert http.delete(small_url, headers={"mcp-session-id": deleted}).status_code == 200
        seen = []
        for name, method, headers, body, _status, code in _bad_cases(small_url, live, deleted):
            reply = http.request(method, small_url, content=body, headers=headers)
            got = reply.json()["error"]["code"] if code is not None else None
            seen.append((name, reply.status_code, got))
            good = http.post(
                small_url, content=orjson.dumps(modern("tools/list", 99)), headers=GOOD
            )
            assert good.status_code == 200 and good.json()["id"] == 99, name
        expected = [(c[0], c[4], c[5]) for c in _bad_cases(small_url, live, deleted)]
        assert seen == expected


# --- the agent loop and the command line ---------------------------------------------------------


def test_a_mcp_json_entry_of_type_http_works_in_the_agent_loop(small_url):
    from mcpmini.agent import AgentOptions, ScriptedModel, run

    model = ScriptedModel(
        [
            [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "mcp__calc__add",
                    "input": {"a": 2, "b": 3},
                }
            ],
            "done",
        ]
    )
    options = AgentOptions(
        mcp_servers={"calc": {"type": "http", "url": small_url}}, allowed_tools=["mcp__calc__add"]
    )
    result = run("add", model, options)
    results = [
        b
        for m in result.messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert [(r["content"], r["is_error"]) for r in results] == [("5", False)]


def test_an_http_entry_without_a_url_is_a_config_error():
    from mcpmini.agent import AgentOptions, ScriptedModel, run
    from mcpmini.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        run("x", ScriptedModel(["done"]), AgentOptions(mcp_servers={"calc": {"type": "http"}}))
    assert info.value.path == "mcp_servers.calc"


def test_serve_http_and_call_url_work_from_the_command_line():
    import subprocess
    import sys

    from tests.conformance.suite import http_server

    with http_server("add") as url:

        def call(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "mcpmini", "call", *args, "--url", url, "--timeout", "20"],
                capture_output=True,
                text=True,
                timeout=60,
            )

        ok = call("tools/call", "--tool", "add", "--args", '{"a": 2, "b": 3}')
        lines = ok.stdout.splitlines()
        assert ok.returncode == 0 and lines[1:4] == [
            "ok: 1 content block",
            "[0] text  1 chars",
            "    5",
        ]
        legacy = call("tools/list", "--mode", "legacy", "--header", "X-Trace: 1")
        assert legacy.returncode == 0 and legacy.stdout.splitlines()[-1].startswith("add:")
        bad = call("tools/list", "--header", "no colon")
        assert bad.returncode == 2 and "Traceback" not in bad.stderr


# --- the standalone stream exists before the client goes on (issue 27) --------------------


def _late_stream_server(delay: float) -> tuple[Any, dict[str, Any]]:
    """A handshake-wire server, as the TypeScript SDK's behaves: a request it sends while no
    standalone ``GET`` stream is registered is dropped. Its ``GET`` is processed ``delay``
    seconds late (a busy server). ``tools/call`` sends ``elicitation/create`` on the
    standalone stream and answers with what became of it."""
    import asyncio

    seen: dict[str, Any] = {"stream": None, "answers": None}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        json_headers = [(b"content-type", b"application/json"), (b"mcp-session-id", b"s1")]
        if scope["method"] == "GET":
            await asyncio.sleep(delay)
            stream: asyncio.Queue[bytes] = asyncio.Queue()
            seen["stream"] = stream
            head = [(b"content-type", b"text/event-stream")]
            await send({"type": "http.response.start", "status": 200, "headers": head})
            await send({"type": "http.response.body", "body": b"", "more_body": True})
            while True:
                chunk = await stream.get()
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        if scope["method"] == "DELETE":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        message = orjson.loads(body)
        reply: dict[str, Any] | None = None
        if message.get("method") == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "late-stream", "version": "1"},
            }
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        elif message.get("method") == "tools/call":
            answered = asyncio.get_running_loop().create_future()
            seen["answers"] = answered
            what = "dropped: no standalone stream yet"
            if seen["stream"] is not None:
                ask = {"message": "Go on?", "requestedSchema": {"type": "object"}}
                seen["stream"].put_nowait(sse_event(Request(99, "elicitation/create", ask)))
                try:
                    what = (await asyncio.wait_for(answered, 10))["action"]
                except TimeoutError:
                    what = "no answer"
            text = {"content": [{"type": "text", "text": what}], "isError": False}
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": text}
        elif message.get("id") == 99 and seen["answers"] is not None:
            seen["answers"].set_result(message["result"])
        if reply is None:
            await send({"type": "http.response.start", "status": 202, "headers": json_headers})
            await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": 200, "headers": json_headers})
        await send({"type": "http.response.body", "body": orjson.dumps(reply)})

    return app, seen


def test_a_request_the_server_sends_on_the_standalone_stream_at_once_is_not_lost():
    # Under load the client's GET thread reached the server after its first tools/call, and
    # the conformance suite's elicitation scenario lost its request (seen once at load 30).
    app, _ = _late_stream_server(delay=1.0)
    with serve_http(app) as url:
        client = Client(
            HttpTransport(url, timeout=10),
            mode="legacy",
            timeout=15,
            capabilities={"elicitation": {}},
            handlers={"elicitation/create": lambda params: {"action": "accept", "content": {}}},
        )
        with client:
            client.connect()
            assert client.call_tool("ask", {}).text == "accept"


def test_a_server_that_never_answers_its_get_holds_connect_at_most_the_stream_wait(monkeypatch):
    from mcpmini.mcp import http_client

    monkeypatch.setattr(http_client, "STREAM_WAIT", 0.2)
    app, seen = _late_stream_server(delay=3600)  # the GET never gets its headers
    with serve_http(app, stop_timeout=1) as url:
        with Client(HttpTransport(url, timeout=10), mode="legacy", timeout=15) as client:
            client.connect()  # returns: the stream is optional
            assert seen["stream"] is None
            assert client.call_tool("ask", {}).text == "dropped: no standalone stream yet"
