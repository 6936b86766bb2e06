"""Traces: every line both ways, in order, as wire text or decoded JSON."""

from __future__ import annotations

import pytest

from mcpmini.mcp import Client, MemoryTransport, Trace, Traced, add_server, memory_pair


class Recording(MemoryTransport):
    """A memory transport that remembers being closed and reports an exit code."""

    def close(self) -> int | None:
        super().close()
        return 7


def test_a_tool_call_is_recorded_as_one_send_and_one_receive_in_order():
    traced = Traced(memory_pair(add_server()))
    client = Client(traced, mode="modern")
    client.connect()
    traced.trace.clear()
    assert len(traced.trace) == 0
    client.call_tool("add", {"a": 1, "b": 2})
    assert [e.direction for e in traced.trace.events] == ["send", "recv"]
    (_, request), (_, reply) = traced.trace.messages()
    assert request["method"] == "tools/call" and request["params"]["arguments"] == {"a": 1, "b": 2}
    assert reply["id"] == request["id"] and reply["result"]["content"][0]["text"] == "3"


def test_lines_are_the_wire_text_with_or_without_arrows():
    traced = Traced(memory_pair(add_server()))
    Client(traced, mode="legacy").connect()
    arrows, bare = traced.trace.lines(), traced.trace.lines(arrows=False)
    assert [line[:4] for line in arrows] == [
        "C→S ",
        "S→C ",
        "C→S ",
    ]  # initialize, reply, initialized
    assert [a[4:] for a in arrows] == bare
    assert all(not line.endswith("\n") for line in bare) and '"initialize"' in bare[0]


def test_timestamps_never_go_backwards():
    traced = Traced(memory_pair(add_server()))
    client = Client(traced)
    client.connect()
    for i in range(5):
        client.call_tool("add", {"a": i, "b": i})
    stamps = [e.at for e in traced.trace.events]
    assert stamps == sorted(stamps) and len(stamps) >= 10


def test_a_line_that_is_not_json_decodes_to_none():
    trace = Trace()
    trace.record("recv", b"not json\n")
    trace.record("send", b'{"jsonrpc": "2.0"}\n')
    assert trace.messages() == [("recv", None), ("send", {"jsonrpc": "2.0"})]
    assert trace.events[0].line == b"not json"


def test_two_wrappers_can_share_one_trace():
    shared = Trace()
    first, second = (
        Traced(memory_pair(add_server()), shared),
        Traced(memory_pair(add_server()), shared),
    )
    Client(first, mode="modern").connect()
    Client(second, mode="modern").connect()
    assert len(shared) == 4 and first.trace is second.trace is shared


def test_nothing_is_recorded_when_no_line_arrives_and_close_passes_through():
    inner = Recording(lambda raw: None)
    traced = Traced(inner)
    traced.send(b'{"jsonrpc": "2.0", "method": "x"}\n')
    with pytest.raises(TimeoutError):
        traced.receive(0)
    assert traced.close() == 7 and inner.closed
    assert traced.receive(0) is None
    assert [e.direction for e in traced.trace.events] == ["send"]
    assert traced.handler is inner.handler  # other attributes come from the wrapped transport
