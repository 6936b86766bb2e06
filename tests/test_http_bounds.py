"""The HTTP server's bounds under a hostile or careless client (issue 22), event replay for
``Last-Event-ID``, ``subscriptions/listen`` and the stateless header rule (issue 19).

Every case runs against a live server on loopback (``serve_http``) with bounded waits, except
the ones that need a clock of their own (the idle timeout), which drive the sans-I/O endpoint.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from attack_support import Owned

from mcpmini.mcp import Server, add_server, asgi_app, serve_http
from mcpmini.mcp.context import current_call
from mcpmini.mcp.http import HttpEndpoint, HttpLimits, HttpRequest, Resume
from mcpmini.mcp.jsonrpc import Notification
from mcpmini.mcp.methods import Method
from mcpmini.mcp.subscriptions import SUBSCRIPTION_KEY
from mcpmini.mcp.versions import Generation

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
BOTH = "application/json, text/event-stream"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _initialize(client: httpx.Client, url: str, capabilities: dict[str, Any] | None = None) -> str:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    reply = client.post(url, json=body, headers={"accept": BOTH})
    assert reply.status_code == 200, reply.text
    return reply.headers["mcp-session-id"]


def _headers(session: str) -> dict[str, str]:
    return {"accept": BOTH, "mcp-session-id": session, "mcp-protocol-version": LEGACY}


def _call(name: str, id: int = 2, **extra: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": {}, **extra}
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}


def _events(lines: Iterator[str]) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """``(id, message)`` for each event of an event stream (bounded by the client timeout)."""
    event_id = None
    for line in lines:
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            yield event_id, orjson.loads(line[5:])
            event_id = None


@pytest.fixture(autouse=True)
def nothing_left_running() -> Iterator[None]:
    # only what this test started: other fixtures' kernels and servers are not its business
    with Owned() as owned:
        threads = set(threading.enumerate())
        yield
        assert owned.wait_gone() == []
    assert [
        t.name for t in threading.enumerate() if t.name == "mcpmini-http" and t not in threads
    ] == []


# --- sessions: least recently used, idle timeout ---------------------------------------------


def test_many_new_sessions_evict_the_least_recently_used_not_an_active_old_one():
    limits = HttpLimits(max_sessions=3, session_keep=0.0)  # any unused session may make room
    with serve_http(asgi_app(add_server(), limits=limits)) as url:
        with httpx.Client(timeout=10) as client:
            active = _initialize(client, url)
            for _ in range(6):  # a client opening sessions, while `active` keeps working
                _initialize(client, url)
                listed = client.post(
                    url,
                    json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                    headers=_headers(active),
                )
                assert listed.status_code == 200


def _post(body: object, **headers: str) -> HttpRequest:
    base = {"host": "127.0.0.1", "content-type": "application/json", "accept": BOTH}
    base.update({k.replace("_", "-"): v for k, v in headers.items()})
    return HttpRequest.build("POST", base, orjson.dumps(body))


def _open(endpoint: HttpEndpoint) -> str:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t"}},
    }
    init["params"]["clientInfo"]["version"] = "1"
    decision = endpoint.receive(_post(init))
    reply = endpoint.reply(decision, decision.connection.handle(decision.message))
    return dict(reply.headers)["mcp-session-id"]


def test_a_session_idle_past_the_timeout_is_ended_and_a_used_one_is_kept():
    now = [0.0]
    endpoint = HttpEndpoint(
        add_server(), limits=HttpLimits(session_idle=60.0), clock=lambda: now[0]
    )
    idle, used = _open(endpoint), _open(endpoint)
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    for _ in range(3):
        now[0] += 40.0
        decision = endpoint.receive(
            _post(listing, mcp_session_id=used, mcp_protocol_version=LEGACY)
        )
        assert decision.session is not None
    assert idle not in endpoint.sessions and used in endpoint.sessions
    gone = endpoint.receive(_post(listing, mcp_session_id=idle, mcp_protocol_version=LEGACY))
    assert gone.status == 404


def test_when_every_session_has_a_call_in_flight_a_new_one_is_refused_with_503():
    endpoint = HttpEndpoint(add_server(), limits=HttpLimits(max_sessions=2))
    for sid in (_open(endpoint), _open(endpoint)):
        endpoint.sessions[sid].calls = 1
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    refused = endpoint.receive(_post(init))
    assert refused.status == 503 and len(endpoint.sessions) == 2


@pytest.mark.parametrize(
    "field, value",
    [("max_sessions", 0), ("max_waiting", 32), ("max_waiting_per_session", 17)],
)
def test_limits_that_cannot_hold_are_refused(field, value):
    with pytest.raises(ValueError):
        HttpLimits(**{field: value})


# --- one standalone GET stream per session ---------------------------------------------------


def test_a_second_get_stream_of_a_session_gets_409_and_a_new_one_opens_after_the_first_ends():
    with serve_http(add_server()) as url:
        with httpx.Client(timeout=10) as client:
            sid = _initialize(client, url)
            get = {"accept": "text/event-stream", "mcp-session-id": sid}
            with client.stream("GET", url, headers=get) as first:
                assert first.status_code == 200
                second = client.get(url, headers=get)
                assert second.status_code == 409
                assert second.json()["error"]["code"] == -32600
            for _ in range(200):  # the server notices the first stream closed (bounded)
                with client.stream("GET", url, headers=get) as again:
                    if again.status_code == 200:
                        break
            assert again.status_code == 200


# --- calls waiting on the client cannot starve other sessions --------------------------------


def _asking_server() -> Server:
    server = Server("asking")

    @server.tool()
    def ask() -> str:
        """Ask the client to sample (it never answers)."""
        result = current_call().request("sampling/createMessage", {"messages": []}, 30.0)
        return str(result)

    @server.tool()
    def echo(text: str = "hi") -> str:
        """Return the text (runs in a worker thread: not inline)."""
        return text

    return server


def _raw_post(url: str, body: dict[str, Any], headers: dict[str, str]) -> socket.socket:
    parts = httpx.URL(url)
    sock = socket.create_connection((parts.host, parts.port), timeout=10)
    data = orjson.dumps(body)
    head = [f"POST {parts.path} HTTP/1.1", f"host: {parts.host}:{parts.port}"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    head += ["content-type: application/json", f"content-length: {len(data)}", "", ""]
    sock.sendall("\r\n".join(head).encode() + data)
    return sock


ASKED = b'"method":"sampling/createMessage"'
REFUSED = b'"isError":true'
BUSY = b"Too Many Requests"


def _answer(sock: socket.socket) -> bytes:
    """What the server first says on ``sock``: a request to the client or a refusal (each
    ``recv`` bounded by the socket timeout)."""
    data = b""
    while ASKED not in data and REFUSED not in data and BUSY not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_sampling_requests_the_client_never_answers_do_not_starve_another_sessions_call():
    limits = HttpLimits(ask_timeout=30.0)
    with serve_http(asgi_app(_asking_server(), limits=limits)) as url:
        with httpx.Client(timeout=10) as client:
            greedy = _initialize(client, url, {"sampling": {}})
            sockets = [_raw_post(url, _call("ask", id=i), _headers(greedy)) for i in range(40)]
            try:
                answers = [_answer(sock) for sock in sockets]
                held = [a for a in answers if ASKED in a]
                refused = [a for a in answers if REFUSED in a]
                capped = [a for a in answers if BUSY in a]  # issue 29: calls running, capped
                assert len(held) == limits.max_waiting_per_session
                # the rest were refused in the tool or, while max_calls_per_session of the
                # session's calls ran, with 429 (which of the two depends on how fast the
                # refused ones end and free their place)
                assert len(refused) + len(capped) == 40 - len(held)
                other = _initialize(client, url)
                reply = client.post(url, json=_call("echo"), headers=_headers(other))
                assert reply.status_code == 200
                assert reply.json()["result"]["content"][0]["text"] == "hi"
            finally:
                for sock in sockets:
                    sock.close()


# --- Last-Event-ID: the server replays a cut stream ------------------------------------------


def test_a_cut_event_stream_is_resumed_with_last_event_id_and_delivers_the_rest():
    gate = threading.Event()
    server = Server("steps")

    @server.tool()
    def steps() -> str:
        """Report two steps, wait for the test, finish."""
        call = current_call()
        call.progress(1, 3)
        call.progress(2, 3)
        gate.wait(10)
        call.progress(3, 3)
        return "done"

    with serve_http(server) as url:
        with httpx.Client(timeout=10) as client:
            sid = _initialize(client, url)
            body = _call("steps", _meta={"progressToken": "t"})
            with client.stream("POST", url, json=body, headers=_headers(sid)) as cut:
                first_id, first = next(_events(cut.iter_lines()))
            assert first["params"]["progress"] == 1 and first_id is not None
            gate.set()
            resume = {"accept": "text/event-stream", "mcp-session-id": sid}
            resume["last-event-id"] = first_id
            with client.stream("GET", url, headers=resume) as again:
                assert again.status_code == 200
                rest = [m for _, m in _events(again.iter_lines())]
    assert [m.get("params", {}).get("progress") for m in rest[:-1]] == [2, 3]
    assert rest[-1]["id"] == 2 and rest[-1]["result"]["content"][0]["text"] == "done"


def test_each_event_stream_goes_to_one_connection_a_resumption_takes_it_over():
    # Issue 29: GETs with Last-Event-ID on one live session all got 200 and all stayed open,
    # so resumptions multiplied a session's streams. Now the newest connection carries the
    # stream and the one before it ends (a reconnecting client is often ahead of the server
    # noticing that its old connection is gone).
    gate = threading.Event()
    server = Server("steps")

    @server.tool()
    def steps() -> str:
        """Report a step, wait for the test, finish."""
        current_call().progress(1, 2)
        gate.wait(30)
        current_call().progress(2, 2)
        return "done"

    with serve_http(server) as url, httpx.Client(timeout=30) as client:
        sid = _initialize(client, url)
        body = _call("steps", _meta={"progressToken": "t"})
        resume = {"accept": "text/event-stream", "mcp-session-id": sid}
        with client.stream("POST", url, json=body, headers=_headers(sid)) as post:
            lines = post.iter_lines()
            first_id, _ = next(_events(lines))
            resume["last-event-id"] = str(first_id)
            with client.stream("GET", url, headers=resume) as taker:
                assert taker.status_code == 200
                assert list(_events(lines)) == []  # the POST let go (before: it stayed open)
                with client.stream("GET", url, headers=resume) as again:
                    assert again.status_code == 200
                    assert list(_events(taker.iter_lines())) == []  # so did the first GET
                    gate.set()
                    rest = [m for _, m in _events(again.iter_lines())]
    assert rest[0]["params"]["progress"] == 2
    assert rest[-1]["result"]["content"][0]["text"] == "done"


def test_an_unknown_last_event_id_opens_the_standalone_stream_and_the_log_is_bounded():
    endpoint = HttpEndpoint(add_server(), limits=HttpLimits(replay_events=3))
    session = endpoint.sessions[_open(endpoint)]
    stream = session.log.open()
    for n in range(5):
        session.log.record(stream, Notification("notifications/progress", {"progress": n}))
    assert [n for n, _ in session.log.after(stream, 0)] == [3, 4, 5]
    get = {"host": "127.0.0.1", "accept": "text/event-stream", "mcp-session-id": session.id}
    known = endpoint.receive(HttpRequest.build("GET", {**get, "last-event-id": f"{stream}.4"}))
    assert isinstance(known, Resume) and (known.stream, known.seq) == (stream, 4)
    unknown = endpoint.receive(HttpRequest.build("GET", {**get, "last-event-id": "zz.1"}))
    assert unknown is session and session.stream_open


# --- the stateless wire: headers required; subscriptions/listen ------------------------------


def test_a_stateless_request_with_meta_but_no_headers_is_refused_with_header_mismatch():
    endpoint = HttpEndpoint(add_server())
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": META}}
    refused = endpoint.receive(_post(body))
    assert refused.status == 400
    assert refused.json()["error"]["code"] == -32020 and refused.json()["id"] == 7
    no_method = endpoint.receive(_post(body, mcp_protocol_version=MODERN))
    assert no_method.status == 400 and no_method.json()["error"]["code"] == -32020
    served = endpoint.receive(_post(body, mcp_protocol_version=MODERN, mcp_method="tools/list"))
    assert served.route.value == "stateless"


class _Changing(Server):
    def capabilities(self, generation: Generation) -> dict[str, Any]:
        caps = super().capabilities(generation)
        caps["tools"] = {"listChanged": True}
        return caps


def _listen(filter: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    body = {
        "jsonrpc": "2.0",
        "id": "sub-1",
        "method": "subscriptions/listen",
        "params": {"notifications": filter, "_meta": META},
    }
    headers = {"accept": BOTH, "mcp-protocol-version": MODERN, "mcp-method": body["method"]}
    return body, headers


def test_listen_acknowledges_then_sends_only_the_notifications_its_filter_asked_for():
    app = asgi_app(_Changing("changing"))
    with serve_http(app) as url:
        with httpx.Client(timeout=10) as client:
            body, headers = _listen({"toolsListChanged": True, "promptsListChanged": True})
            with client.stream("POST", url, json=body, headers=headers) as stream:
                assert stream.status_code == 200
                events = _events(stream.iter_lines())
                _, ack = next(events)
                # the stream is registered before its acknowledgement is written
                assert app.announce(Notification(Method.NOTIFICATIONS_PROMPTS_LIST_CHANGED)) == 0
                assert app.announce(Notification(Method.NOTIFICATIONS_TOOLS_LIST_CHANGED)) == 1
                _, change = next(events)
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"] == {
        "notifications": {"toolsListChanged": True},  # no prompts: not offered
        "_meta": {SUBSCRIPTION_KEY: "sub-1"},
    }
    assert change["method"] == "notifications/tools/list_changed"
    assert change["params"]["_meta"][SUBSCRIPTION_KEY] == "sub-1"


def test_a_second_app_over_the_same_server_sends_task_notifications_to_its_own_streams():
    # Bug (issue 27): only the first asgi_app over a Server took the task table's one
    # on_change slot, so a listen stream of any other app never heard of a task.
    from mcpmini.mcp import TaskSupport
    from mcpmini.mcp.envelope import TASKS_EXTENSION

    server = Server("tasky")
    server.add_tool(lambda: "done", name="job", task=TaskSupport.OPTIONAL)
    first, second = asgi_app(server), asgi_app(server)
    task_id = server.tasks.create()["taskId"]
    caps = {"extensions": {TASKS_EXTENSION: {}}}
    body, headers = _listen({"taskIds": [task_id]})
    body["params"]["_meta"] = {**META, "io.modelcontextprotocol/clientCapabilities": caps}
    with serve_http(second) as url, httpx.Client(timeout=10) as client:
        with client.stream("POST", url, json=body, headers=headers) as stream:
            assert stream.status_code == 200
            events = _events(stream.iter_lines())
            _, ack = next(events)
            server.tasks.complete(task_id, {"content": [], "isError": False})
            _, change = next(events)
    assert ack["params"]["notifications"] == {"taskIds": [task_id]}
    assert change["method"] == "notifications/tasks"
    assert (change["params"]["taskId"], change["params"]["status"]) == (task_id, "completed")
    assert first is not second


def test_listen_with_a_bad_filter_is_invalid_params_and_is_gone_from_the_handshake_wire():
    endpoint = HttpEndpoint(add_server())
    body, headers = _listen({"toolsListChanged": "yes"})
    decision = endpoint.receive(_post(body, **{k.replace("-", "_"): v for k, v in headers.items()}))
    reply = decision.connection.handle(decision.message)
    assert reply.code == -32602
    sid = _open(endpoint)
    legacy = {"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen", "params": {}}
    decision = endpoint.receive(_post(legacy, mcp_session_id=sid, mcp_protocol_version=LEGACY))
    assert decision.connection.handle(decision.message).code == -32601


# --- the HTTP client's reply cap --------------------------------------------------------------


def _huge_app(kind: bytes, total: int, line: bool) -> Any:
    """An ASGI app answering every POST with ``total`` bytes of one JSON reply (in 1 MiB
    chunks, no Content-Length), as a JSON body or as one event-stream line."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-type", kind)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        head = b'data: {"jsonrpc":"2.0","id":1,"result":{"x":"' if line else b'{"jsonrpc":"2.0",'
        await send({"type": "http.response.body", "body": head, "more_body": True})
        chunk = b"y" * (1 << 20)
        for _ in range(total >> 20):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b'"}}\n\n' if line else b'"x":1}'})

    return app


@pytest.mark.parametrize("kind, line", [(b"application/json", False), (b"text/event-stream", True)])
def test_a_reply_past_the_cap_is_refused_while_it_is_read(kind, line):
    from mcpmini.errors import TransportError, TransportErrorKind
    from mcpmini.mcp import HttpTransport
    from mcpmini.mcp.jsonrpc import Request as Req
    from mcpmini.mcp.jsonrpc import encode

    with serve_http(_huge_app(kind, 64 << 20, line)) as url:
        with HttpTransport(url, timeout=20, open_stream=False, max_reply=1 << 20) as transport:
            transport.send(encode(Req(1, "tools/list", {})))
            with pytest.raises(TransportError) as info:
                transport.receive(20)
    # the failure contract: the stdio transport's kind, naming the request it belongs to
    assert (info.value.kind, info.value.request_id) == (TransportErrorKind.TOO_LARGE, 1)


def test_the_http_client_reply_cap_is_the_stdio_cap_by_default():
    from mcpmini.mcp import HttpTransport
    from mcpmini.mcp.transport import MAX_LINE

    with HttpTransport("http://127.0.0.1:9/mcp", open_stream=False) as transport:
        assert transport.max_reply == MAX_LINE


# --- the command line ---------------------------------------------------------------------


def test_serve_http_limit_flags_reach_the_server_and_bad_ones_are_a_usage_error():
    import subprocess
    import sys

    from tests.conformance.suite import http_server

    with http_server("add", "--max-sessions", "2", "--session-keep", "0") as url:
        with httpx.Client(timeout=20) as client:
            first = _initialize(client, url)
            _initialize(client, url)
            _initialize(client, url)  # the table holds 2: the least recently used goes
            listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
            assert client.post(url, json=listing, headers=_headers(first)).status_code == 404
    bad = subprocess.run(
        [sys.executable, "-m", "mcpmini", "serve", "add", "--http", "--max-waiting", "99"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_listen_over_stdio_is_acknowledged_instead_of_answered():
    import io

    from mcpmini.mcp import serve_stdio

    body, _ = _listen({"toolsListChanged": True})
    out = io.BytesIO()
    serve_stdio(_Changing("changing"), io.BytesIO(orjson.dumps(body) + b"\n"), out)
    ack = orjson.loads(out.getvalue())
    assert ack["method"] == "notifications/subscriptions/acknowledged" and "id" not in ack
    assert ack["params"]["_meta"][SUBSCRIPTION_KEY] == "sub-1"
