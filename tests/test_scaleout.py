"""Scale-out for real: Debian's nginx in front of two ``mcpmini serve add --http`` processes.

The stateless 2026-07-28 generation needs no affinity: any backend answers any request, and when
one backend dies nginx sends the next requests to the other (a refused connection is retried on
the next upstream; the request had not been sent). The stateful 2025-11-25 generation behind the
same round-robin balancer loses its session on the second hop (404 from the backend that never
saw the ``initialize``); ``ip_hash`` affinity keeps a client on one backend and the session works.
Everything listens on 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import os

import httpx
import pytest

from mcpmini.course.chapters import backends, balancer, missing, post_calls
from mcpmini.mcp import Client, HttpTransport

pytestmark = pytest.mark.slow
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.fixture(scope="module", autouse=True)
def _need_nginx() -> None:
    if "nginx" in missing():
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but nginx is missing (.ci/run installs Debian's nginx as root)")
        pytest.skip("nginx is not installed (apt-get install nginx)")


def stateless_adds(count: int) -> list[dict[str, object]]:
    return [
        {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": i, "b": 1}, "_meta": META},
        }
        for i in range(count)
    ]


STATELESS = {**HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call"}


def test_the_mcpmini_client_gets_every_stateless_answer_through_nginx():
    with backends(2, stateless=True) as servers, balancer([b.port for b in servers]) as url:
        with Client(HttpTransport(url, timeout=10), mode="modern", timeout=10) as client:
            client.connect()
            assert [client.call_tool("add", {"a": i, "b": 1}).text for i in range(20)] == [
                str(i + 1) for i in range(20)
            ]


def test_both_stateless_backends_serve_and_every_answer_is_right():
    with backends(2, stateless=True) as servers, balancer([b.port for b in servers]) as url:
        replies = post_calls(url, stateless_adds(40), {**STATELESS, "mcp-name": "add"})
    assert [status for status, _, _ in replies] == [200] * 40
    assert [r["content"][0]["text"] for _, _, r in replies] == [str(i + 1) for i in range(40)]
    ports = {upstream.rsplit(":", 1)[-1] for _, upstream, _ in replies}
    assert ports == {str(b.port) for b in servers}


def test_a_killed_stateless_backend_is_replaced_by_the_other_without_a_failed_call():
    with backends(2, stateless=True) as servers, balancer([b.port for b in servers]) as url:
        post_calls(url, stateless_adds(4), {**STATELESS, "mcp-name": "add"})
        servers[0].kill()
        replies = post_calls(url, stateless_adds(20), {**STATELESS, "mcp-name": "add"})
    assert [status for status, _, _ in replies] == [200] * 20
    assert [r["content"][0]["text"] for _, _, r in replies] == [str(i + 1) for i in range(20)]
    assert all(up.endswith(f":{servers[1].port}") for _, up, _ in replies[-10:])


def session_statuses(url: str, calls: int) -> list[int]:
    """Initialize a 2025-11-25 session through ``url``, then ``calls`` tools/call: statuses."""
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    reply = httpx.post(url, json=init, headers=HEADERS, timeout=10)
    assert reply.status_code == 200
    session = {
        **HEADERS,
        "mcp-session-id": reply.headers["mcp-session-id"],
        "mcp-protocol-version": "2025-11-25",
    }
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
    }
    return [status for status, _, _ in post_calls(url, [call] * calls, session)]


def test_a_stateful_session_behind_round_robin_meets_a_backend_that_never_saw_it():
    with backends(2, stateless=False) as servers, balancer([b.port for b in servers]) as url:
        statuses = session_statuses(url, 6)
    assert 404 in statuses and 200 in statuses


def test_ip_hash_affinity_keeps_a_stateful_session_on_its_backend():
    with (
        backends(2, stateless=False) as servers,
        balancer([b.port for b in servers], affinity=True) as url,
    ):
        statuses = session_statuses(url, 6)
    assert statuses == [200] * 6
