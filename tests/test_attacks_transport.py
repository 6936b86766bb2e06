"""Issue 14, the stdio transport under attack by its server: every wait is bounded, a reply
has a size cap, and nothing the server started is left running."""

from __future__ import annotations

import sys
import threading

import pytest
from attack_support import running_with

from mcpmini.errors import McpminiError, TransportError, TransportErrorKind
from mcpmini.mcp import Client, OutcomeKind, StdioTransport

# Each server sleeps a length no other test uses, so leftovers can be found by command line.
STREAMER = (
    "import sys, time\nmarker = 'sleep 43.1'\n"
    "while True:\n    sys.stdout.write('x' * 512); sys.stdout.flush(); time.sleep(0.005)\n"
)
NEVER_READS = "import time\nmarker = 'sleep 43.2'\ntime.sleep(60)\n"
HUGE = (
    "import sys\nmarker = 'sleep 43.3'\nsys.stdout.write('y' * (3 << 20) + '\\n')\n"
    "sys.stdout.write('{\"ok\": 1}\\n'); sys.stdout.flush()\nimport time; time.sleep(60)\n"
)


def test_a_server_streaming_without_a_newline_cannot_outlast_the_timeout() -> None:
    transport = StdioTransport([sys.executable, "-c", STREAMER], close_grace=0.1)
    with pytest.raises(TimeoutError):
        transport.receive(0.5)
    # bounded: the streamer never stops, so a receive past its bound runs into pytest-timeout
    transport.close()
    assert running_with("sleep 43.1") == []


def test_the_client_timeout_holds_against_a_streaming_server() -> None:
    transport = StdioTransport([sys.executable, "-c", STREAMER], close_grace=0.1)
    with (
        Client(transport, timeout=0.5, discover_timeout=0.5) as client,
        pytest.raises((TimeoutError, TransportError, McpminiError)),
    ):
        client.connect()
    assert running_with("sleep 43.1") == []


def test_a_reply_over_the_size_cap_is_refused_and_skipped() -> None:
    transport = StdioTransport([sys.executable, "-c", HUGE], close_grace=0.1, max_line=1 << 20)
    with pytest.raises(TransportError) as info:
        for _ in range(100):  # the oversized line arrives in chunks
            transport.receive(20)
    assert info.value.kind is TransportErrorKind.TOO_LARGE
    assert transport.receive(20) == b'{"ok": 1}'  # the stream goes on after it
    transport.close()
    assert running_with("sleep 43.3") == []


def test_a_server_that_never_reads_cannot_block_a_write() -> None:
    transport = StdioTransport(
        [sys.executable, "-c", NEVER_READS], close_grace=0.1, write_timeout=0.3
    )
    with pytest.raises(TimeoutError):
        for _ in range(1000):  # 64 MiB: far more than any pipe buffer
            transport.send(b"z" * 65535 + b"\n")
    with pytest.raises(TimeoutError):
        transport.receive(0.3)  # the queued rest cannot be written either: bounded too
    transport.close()
    assert running_with("sleep 43.2") == []


# Answers the negotiation like `mcpmini serve add`, then never reads stdin again.
STOPS_READING = (
    "import sys, time\nmarker = 'sleep 43.4'\nfrom mcpmini.mcp import add_server\n"
    "server = add_server()\nline = sys.stdin.buffer.readline()\n"
    "sys.stdout.buffer.write(server.handle_line(line)); sys.stdout.buffer.flush()\n"
    "time.sleep(60)\n"
)


def test_the_call_timeout_bounds_a_write_the_server_never_reads() -> None:
    # Before: send() waited write_timeout (30 s) for a request larger than the pipe, so
    # `mcpmini call --timeout 5` returned after 34 s.
    transport = StdioTransport([sys.executable, "-c", STOPS_READING], close_grace=2.0)
    client = Client(transport, mode="modern", timeout=30.0)
    client.connect()  # the server may start slowly on a busy machine
    outcomes = []
    worker = threading.Thread(
        target=lambda: outcomes.append(
            client.call_tool("add", {"a": 1, "pad": "x" * 200_000}, timeout=1.0)
        )
    )
    worker.start()
    worker.join(15)  # bounded: the call gives up after its 1 s timeout, writes included
    assert not worker.is_alive() and outcomes[0].kind is OutcomeKind.NO_ANSWER
    closer = threading.Thread(target=client.close)
    closer.start()
    closer.join(15)  # no grace wait for a server that stopped reading
    assert not closer.is_alive()
    assert running_with("sleep 43.4") == []
