"""Subprocess and in-memory transports: bounded waits, stderr, and no process left behind."""

from __future__ import annotations

import sys
import time

import psutil
import pytest
from attack_support import Owned

from mcpmini.errors import TransportError, TransportErrorKind
from mcpmini.mcp import Client, LineBuffer, MemoryTransport, StdioTransport, Trace, Traced

SERVE_ADD = [sys.executable, "-m", "mcpmini", "serve", "add"]


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_stdio_client_talks_to_mcpmini_serve_and_the_server_exits_zero_on_close():
    transport = Traced(StdioTransport(SERVE_ADD))
    with Client(transport) as client:
        client.connect()
        assert client.call_tool("add", {"a": 2, "b": 3}).text == "5"
        pid = transport.pid
    assert transport.inner.process.returncode == 0
    assert gone(pid)
    assert transport.trace.lines()[0].startswith("C→S ")


def test_receive_times_out_within_its_bound():
    with StdioTransport(
        [sys.executable, "-c", "import time; time.sleep(1000)"], close_grace=0.1
    ) as transport:
        # the server outlives the test's own bound: only the receive's bound can end it, as a
        # TimeoutError (waiting for the server would fail the test through pytest-timeout)
        with pytest.raises(TimeoutError):
            transport.receive(0.2)


def test_close_ends_a_hung_server_and_the_children_it_started():
    script = (
        "import subprocess, sys, time; "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print(child.pid, flush=True); time.sleep(60)"
    )
    transport = StdioTransport([sys.executable, "-c", script], close_grace=0.2)
    child_pid = int(transport.receive(60))  # a bound for a loaded machine, not a timing
    server_pid = transport.pid
    assert not gone(child_pid)
    transport.close()
    deadline = time.monotonic() + 30
    while not (gone(child_pid) and gone(server_pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(child_pid) and gone(server_pid)


def test_stderr_is_captured_and_the_end_of_output_is_a_closed_error_with_the_exit_code():
    transport = StdioTransport(
        [sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); print('line')"]
    )
    assert transport.receive(10) == b"line"
    with pytest.raises(TransportError) as info:
        transport.receive(10)
    assert info.value.kind is TransportErrorKind.CLOSED
    assert (info.value.returncode, info.value.stderr_tail) == (0, "boom")
    transport.close()
    assert "boom" in transport.stderr


def test_a_missing_command_is_a_transport_error_of_kind_not_started():
    with pytest.raises(TransportError) as info:
        StdioTransport(["/nonexistent/mcp-server"])
    assert info.value.kind is TransportErrorKind.NOT_STARTED and info.value.returncode is None


def test_sending_to_an_exited_server_is_a_closed_error_with_its_code_and_stderr():
    transport = StdioTransport(
        [sys.executable, "-c", "import sys; sys.stderr.write('a\\nb\\n'); sys.exit(3)"]
    )
    transport.process.wait(10)
    with pytest.raises(TransportError) as info:
        for _ in range(100):  # the pipe buffer may accept a few writes first
            transport.send(b"x" * 65536 + b"\n")
    assert info.value.kind is TransportErrorKind.CLOSED
    assert (info.value.returncode, info.value.stderr_tail) == (3, "a\nb")
    transport.close()


def test_a_client_whose_server_exits_at_start_gets_the_code_and_the_last_stderr_lines():
    crash = "import sys; sys.stderr.write('Traceback\\nKeyError: db\\n'); sys.exit(7)"
    with Client(StdioTransport([sys.executable, "-c", crash])) as client:
        with pytest.raises(TransportError) as info:
            client.connect()
        assert client.state == "closed"
    assert info.value.returncode == 7 and info.value.stderr_tail.splitlines()[-1] == "KeyError: db"


def test_a_closed_memory_transport_refuses_to_send_with_kind_closed():
    transport = MemoryTransport(lambda raw: raw)
    transport.close()
    with pytest.raises(TransportError) as info:
        transport.send(b"{}\n")
    assert info.value.kind is TransportErrorKind.CLOSED


def test_line_buffer_joins_split_chunks():
    buffer = LineBuffer()
    buffer.feed(b'{"a":')
    buffer.feed(b'1}\n{"b"')
    assert list(buffer.lines) == [b'{"a":1}']
    buffer.flush_tail()
    assert list(buffer.lines) == [b'{"a":1}', b'{"b"']


def test_memory_transport_shuffles_with_a_seed_and_records_in_a_trace():
    transport = Traced(MemoryTransport(lambda raw: raw, seed=3), Trace())
    for i in range(10):
        transport.send(f"{i}\n".encode())
    received = [transport.receive() for _ in range(10)]
    assert sorted(received) == sorted(f"{i}".encode() for i in range(10))
    assert received != sorted(received)
    assert len(transport.trace) == 20
    with pytest.raises(TimeoutError):
        transport.receive()
    transport.close()
    assert transport.receive() is None


@pytest.fixture(scope="module", autouse=True)
def module_processes():
    """Every process this module starts; none may outlive it (checked again at its end)."""
    with Owned() as owned:
        yield owned
        assert owned.wait_gone() == []


def test_no_stray_processes_remain_from_this_module(module_processes):
    # only what this module started: kernels and servers of other fixtures are theirs
    assert module_processes.wait_gone() == []


def test_http_notifications_that_cannot_be_delivered_say_why():
    from mcpmini.mcp import HttpTransport

    line = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n'
    transport = HttpTransport("http://127.0.0.1:9/mcp", timeout=5, open_stream=False)
    with pytest.raises(TransportError) as info:
        transport.send(line)
    assert info.value.kind is TransportErrorKind.UNREACHABLE
    transport.close()
    with pytest.raises(TransportError) as info:
        transport.send(line)
    assert info.value.kind is TransportErrorKind.CLOSED
