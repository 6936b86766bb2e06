"""Inline tools over Streamable HTTP: run on the event loop, no thread hand-off.

A tool registered with ``inline=True`` promises it neither blocks nor asks the client; the
ASGI layer then runs it on the event loop (the hand-off to a worker thread was most of the
server's cost per call: ``bench/http_load.py``). What it emits still travels first on an event
stream, and a request to the client from it is a tool error, never a blocked loop.
"""

from __future__ import annotations

import threading

import pytest

from mcpmini.mcp import Client, HttpTransport, OutcomeKind, Server, Traced, current_call, serve_http

pytestmark = pytest.mark.slow


def threads_server() -> Server:
    server = Server("threads", "1.0")

    @server.tool(inline=True)
    def inline_thread() -> str:
        """The name of the thread running this tool."""
        return threading.current_thread().name

    @server.tool()
    def worker_thread() -> str:
        """The name of the thread running this tool."""
        return threading.current_thread().name

    @server.tool(inline=True)
    def inline_progress() -> str:
        """Reports progress twice, then answers."""
        call = current_call()
        call.progress(1, 2)
        call.progress(2, 2)
        return "done"

    @server.tool(inline=True)
    def inline_asks() -> str:
        """Asks the client a question (an inline tool must not)."""
        current_call().request("elicitation/create", {"message": "?", "requestedSchema": {}})
        return "answered"

    return server


@pytest.fixture(scope="module")
def url():
    with serve_http(threads_server()) as address:
        yield address


@pytest.mark.parametrize("mode", ["legacy", "modern"])
def test_an_inline_tool_runs_on_the_event_loop_and_a_plain_one_in_a_worker(url, mode):
    with Client(HttpTransport(url, timeout=10), mode=mode, timeout=10) as client:
        client.connect()
        assert client.call_tool("inline_thread", {}).text == "mcpmini-http"
        assert client.call_tool("worker_thread", {}).text != "mcpmini-http"


def test_an_inline_tool_s_progress_still_precedes_its_result_on_the_event_stream(url):
    transport = Traced(HttpTransport(url, timeout=10))
    with Client(transport, mode="legacy", timeout=10) as client:
        client.connect()
        result = client.request(
            "tools/call",
            {"name": "inline_progress", "arguments": {}, "_meta": {"progressToken": 3}},
        )
    assert result["content"][0]["text"] == "done"
    received = [e.json() for e in transport.trace.events if e.direction == "recv"]
    progress = [
        m["params"]["progress"] for m in received if m.get("method") == "notifications/progress"
    ]
    assert progress == [1, 2]


def test_an_inline_tool_that_asks_the_client_gets_a_tool_error_not_a_blocked_loop(url):
    with Client(
        HttpTransport(url, timeout=10),
        mode="legacy",
        timeout=10,
        capabilities={"elicitation": {}},
        handlers={"elicitation/create": lambda params: {"action": "accept", "content": {}}},
    ) as client:
        client.connect()
        assert client.call_tool("inline_asks", {}).kind is OutcomeKind.TOOL_ERROR
        assert client.call_tool("inline_thread", {}).text == "mcpmini-http"  # the loop still runs
