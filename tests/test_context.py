"""What a running tool may send: progress, log messages by level, requests to the client."""

from __future__ import annotations

import pytest

from mcpmini.errors import McpminiError
from mcpmini.mcp import NO_CALL, CallContext, conformance_server, current_call, in_call
from mcpmini.mcp.jsonrpc import Request


def test_outside_a_call_progress_and_logs_do_nothing_and_requests_raise():
    assert current_call() is NO_CALL
    NO_CALL.progress(1, 2)
    NO_CALL.log("error", "ignored")
    with pytest.raises(McpminiError):
        NO_CALL.request("sampling/createMessage", {})


def test_log_messages_below_the_clients_level_are_dropped():
    sent = []
    context = CallContext(log_level="warning", emit=sent.append)
    for level in ("debug", "info", "warning", "error"):
        context.log(level, level)
    assert [m.params["level"] for m in sent] == ["warning", "error"]
    with pytest.raises(ValueError):
        context.log("loud", "x")


def test_progress_echoes_the_token_unchanged_and_only_when_one_was_given():
    sent = []
    CallContext(progress_token=None, emit=sent.append).progress(1)
    CallContext(progress_token=0, emit=sent.append).progress(5, 10)
    assert [m.params for m in sent] == [{"progressToken": 0, "progress": 5, "total": 10}]


def test_a_tool_reads_the_current_call_and_over_stdio_a_sampling_tool_fails_as_a_tool_error():
    server = conformance_server()
    seen = []
    with in_call(CallContext(progress_token="t", emit=seen.append)):
        assert current_call().progress_token == "t"
        result = server.call_tool("test_tool_with_progress", {})
    assert result["isError"] is False and len(seen) == 3
    assert current_call() is NO_CALL
    sampled = server.call_tool("test_sampling", {"prompt": "hi"})
    assert sampled["isError"] is True


def test_a_tampered_request_state_is_refused_with_invalid_params():
    server = conformance_server()
    state = server.sign({"tool": "x", "round": 1})
    assert server.verify(state, Request(1, "tools/call")) == {"tool": "x", "round": 1}
    with pytest.raises(Exception) as info:
        server.verify(state + "-TAMPERED", Request(1, "tools/call"))
    assert getattr(info.value, "code", None) == -32602
