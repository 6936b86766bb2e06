"""The HTTP server under a session that hogs it (issue 29, item 5): running calls capped per
session, a call whose client hung up cancelled, another session's plain call always answered;
a flood of new sessions refused instead of evicting a session used a moment ago, and rate
limited per client address; one standalone GET stream per session.

The live cases run against ``serve_http`` on loopback and wait for conditions (bounded); the
flood runs against the sans-I/O endpoint with a clock of its own.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from attack_support import Owned

from mcpmini.mcp import Server, add_server, asgi_app, serve_http
from mcpmini.mcp.context import current_call
from mcpmini.mcp.http import HttpEndpoint, HttpLimits, HttpReply, HttpRequest

LEGACY = "2025-11-25"
BOTH = "application/json, text/event-stream"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


@pytest.fixture(autouse=True)
def nothing_left_running() -> Iterator[None]:
    with Owned() as owned:
        yield
        assert owned.wait_gone() == []


def _until(condition: Any, timeout: float = 60.0) -> bool:
    """Wait (bounded) for ``condition()`` to hold; return whether it did."""
    limit = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > limit:
            return False
        time.sleep(0.02)
    return True


class Holding(Server):
    """``hold`` runs until its call is cancelled (it counts how many were); ``add`` answers."""

    def __init__(self) -> None:
        super().__init__("holding")
        self.started = 0
        self.cancelled = 0
        self.lock = threading.Lock()

        @self.tool()
        def hold() -> str:
            call = current_call()
            with self.lock:
                self.started += 1
            if call.cancelled.wait(120):
                with self.lock:
                    self.cancelled += 1
                return "cancelled"
            return "held"

        @self.tool()
        def report_and_hold() -> str:
            current_call().progress(1)  # an event with an id: the stream can be resumed
            return hold()

        @self.tool()
        def add(a: int, b: int) -> int:
            return a + b


def _open(client: httpx.Client, url: str) -> dict[str, str]:
    reply = client.post(url, json=INIT, headers={"accept": BOTH})
    assert reply.status_code == 200, reply.text
    return {"accept": BOTH, "mcp-session-id": reply.headers["mcp-session-id"]}


def _call(name: str, id: int, **arguments: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}


def test_a_session_holding_long_calls_cannot_starve_another_sessions_plain_call():
    server = Holding()
    limits = HttpLimits(
        worker_threads=4,
        max_waiting=2,
        max_waiting_per_session=1,
        max_calls_per_session=2,
        max_calls_per_address=3,  # every client of this test is 127.0.0.1
    )
    app = asgi_app(server, limits=limits)
    with serve_http(app) as url:
        hog = httpx.Client(timeout=30, limits=httpx.Limits(max_connections=20))
        headers = _open(hog, url)
        answers: list[httpx.Response] = []

        def fire(i: int) -> None:
            try:
                answers.append(hog.post(url, json=_call("hold", 10 + i), headers=headers))
            except httpx.HTTPError:
                pass  # the hog hangs up below

        threads = [threading.Thread(target=fire, args=(i,), daemon=True) for i in range(6)]
        for thread in threads:
            thread.start()
        # the cap: two of the six run, the other four are refused at once
        assert _until(lambda: server.started == 2 and len(answers) == 4)
        assert all(a.status_code == 429 for a in answers), [a.text for a in answers]
        assert all(a.json()["error"]["message"].startswith("Too Many Requests") for a in answers)
        with httpx.Client(timeout=30) as other:  # another session's plain call still runs
            mine = _open(other, url)
            reply = other.post(url, json=_call("add", 2, a=2, b=3), headers=mine)
        assert reply.status_code == 200 and reply.json()["result"]["content"][0]["text"] == "5"
        hog.close()  # the hog hangs up: its running calls are cancelled, their threads freed
        assert _until(lambda: server.cancelled == 2)
        for thread in threads:
            thread.join(30)
        with httpx.Client(timeout=30) as again:
            headers = _open(again, url)
            reply = again.post(url, json=_call("add", 3, a=1, b=1), headers=headers)
        assert reply.json()["result"]["content"][0]["text"] == "2"


def test_the_per_session_and_per_address_caps_stay_below_the_thread_count():
    with pytest.raises(ValueError, match="max_calls_per_session"):
        HttpLimits(
            worker_threads=4, max_waiting=2, max_waiting_per_session=1, max_calls_per_session=4
        )
    with pytest.raises(ValueError, match="max_calls_per_address"):
        HttpLimits(worker_threads=4, max_waiting=2, max_calls_per_address=4)
    with pytest.raises(ValueError, match="resume_wait"):
        HttpLimits(resume_wait=0)


def test_many_sessions_of_one_address_cannot_take_every_thread_either():
    # one session per call would sidestep the per-session cap: the sessions of one client
    # address share max_calls_per_address
    limits = HttpLimits(
        worker_threads=4,
        max_waiting=2,
        max_waiting_per_session=1,
        max_calls_per_session=1,
        max_calls_per_address=2,
    )
    endpoint = HttpEndpoint(add_server(), limits=limits)

    def call_in_new_session(address: str) -> Any:
        sid = dict(_initialize(endpoint, address).headers)["mcp-session-id"]
        call = _call("add", 2, a=1, b=2)
        headers = {"mcp_session_id": sid, "mcp_protocol_version": LEGACY}
        decision = endpoint.receive(_post(call, address, **headers))
        assert not isinstance(decision, HttpReply), decision
        return decision

    hog = [call_in_new_session("10.0.0.1") for _ in range(3)]
    assert [endpoint.reserve(d) for d in hog[:2]] == [None, None]
    refused = endpoint.reserve(hog[2])
    assert refused is not None and refused.status == 429
    assert "client address" in refused.json()["error"]["message"]
    other = call_in_new_session("10.0.0.2")
    assert endpoint.reserve(other) is None  # another address still finds a thread
    endpoint.release(hog[0])
    assert endpoint.reserve(hog[2]) is None  # one ended: the next may run
    for decision in (hog[1], hog[2], other):
        endpoint.release(decision)
    assert endpoint.running == {}  # every count went back


def test_a_call_whose_client_hung_up_on_its_stream_is_cancelled_if_nobody_resumes_it():
    # the stream sent an event with an id, so a Last-Event-ID could resume it: the call goes
    # on for resume_wait seconds, then it is cancelled (before: it held its thread for good)
    server = Holding()
    app = asgi_app(server, limits=HttpLimits(resume_wait=0.5))
    with serve_http(app) as url:
        client = httpx.Client(timeout=30)
        headers = _open(client, url)
        body = _call("report_and_hold", 5)
        body["params"]["_meta"] = {"progressToken": "p"}
        with client.stream("POST", url, json=body, headers=headers) as stream:
            assert any(line.startswith("data:") for line in stream.iter_lines())
        assert _until(lambda: server.started == 1)
        client.close()  # hangs up without resuming
        assert _until(lambda: server.cancelled == 1)


def test_notifications_cancelled_cancels_the_running_call_it_names():
    server = Holding()
    with serve_http(asgi_app(server)) as url, httpx.Client(timeout=30) as client:
        headers = _open(client, url)
        result: list[httpx.Response] = []
        thread = threading.Thread(
            target=lambda: result.append(client.post(url, json=_call("hold", 7), headers=headers)),
            daemon=True,
        )
        thread.start()
        assert _until(lambda: server.started == 1)
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 7},
        }
        assert client.post(url, json=cancel, headers=headers).status_code == 202
        thread.join(60)
    assert server.cancelled == 1 and result[0].json()["result"]["content"][0]["text"] == (
        "cancelled"
    )


# --- a flood of new sessions -------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _post(body: dict[str, Any], client: str = "10.0.0.1", **headers: str) -> HttpRequest:
    import orjson

    fixed = {"host": "127.0.0.1", "content-type": "application/json", "accept": BOTH}
    fixed.update({k.replace("_", "-"): v for k, v in headers.items()})
    return HttpRequest.build("POST", fixed, orjson.dumps(body), client=client)


def _initialize(endpoint: HttpEndpoint, client: str) -> HttpReply:
    decision = endpoint.receive(_post(INIT, client))
    if isinstance(decision, HttpReply):
        return decision
    return endpoint.reply(decision, decision.connection.handle(decision.message))


def test_a_flood_of_new_sessions_never_evicts_a_session_used_a_moment_ago():
    clock = Clock()
    limits = HttpLimits(max_sessions=50, session_keep=60.0, sessions_per_minute=1000)
    endpoint = HttpEndpoint(add_server(), limits=limits, clock=clock)
    victim = dict(_initialize(endpoint, "10.0.0.9").headers)["mcp-session-id"]
    statuses = []
    for _ in range(1100):  # 1,100 anonymous initialize in 1.5 s
        clock.now += 1.5 / 1100
        statuses.append(_initialize(endpoint, "10.0.0.1").status)
    assert statuses.count(200) == 49 and set(statuses) == {200, 503}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    decision = endpoint.receive(
        _post(listing, "10.0.0.9", mcp_session_id=victim, mcp_protocol_version=LEGACY)
    )
    assert not isinstance(decision, HttpReply), decision  # before: 404, evicted
    clock.now += 61  # once no session was used within session_keep, one may make room
    assert _initialize(endpoint, "10.0.0.2").status == 200


def test_new_sessions_are_rate_limited_per_client_address():
    clock = Clock()
    endpoint = HttpEndpoint(add_server(), limits=HttpLimits(sessions_per_minute=5), clock=clock)
    first = [_initialize(endpoint, "10.0.0.1").status for _ in range(7)]
    assert first == [200] * 5 + [429, 429]
    refused = _initialize(endpoint, "10.0.0.1")
    assert dict(refused.headers).get("retry-after") and refused.json()["error"]["code"] < 0
    assert _initialize(endpoint, "10.0.0.2").status == 200  # another address is not affected
    clock.now += 61
    assert _initialize(endpoint, "10.0.0.1").status == 200


# --- one standalone GET stream per session -----------------------------------------------------


def _raw_get(port: int, session: str) -> tuple[socket.socket, int]:
    """Open a GET stream on its own connection and keep it open; the status."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=30)
    conn.sendall(
        (
            f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
            f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {LEGACY}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n" not in head:
        head += conn.recv(1024)
    return conn, int(head.split()[1])


def test_a_session_gets_one_standalone_get_stream_and_409_for_each_further_one():
    with serve_http(add_server()) as url, httpx.Client(timeout=30) as client:
        session = _open(client, url)["mcp-session-id"]
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        streams = [_raw_get(port, session) for _ in range(3)]
        try:
            assert [status for _, status in streams] == [200, 409, 409]
        finally:
            for conn, _ in streams:
                conn.close()
        # the first one closed: the next GET opens the stream again
        assert _until(lambda: _reopened(port, session))


def _reopened(port: int, session: str) -> bool:
    conn, status = _raw_get(port, session)
    conn.close()
    return status == 200
