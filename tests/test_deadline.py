"""One deadline per call (issue 27): the :class:`Deadline` itself, and the bugs where a call's
time was split — a silent server's discovery, handshake and close each waiting their own
timeout, input-required rounds restarting it, an HTTP timeout reported as the server's error —
each checked on a clock the test advances itself (never a timed assertion)."""

from __future__ import annotations

import json
import math
import socket
import sys
import threading
from collections import deque
from typing import Any

import pytest

from mcpmini.deadline import Deadline
from mcpmini.errors import TimedOut, TransportError, TransportErrorKind
from mcpmini.mcp import (
    Client,
    ClientState,
    Generation,
    HttpTransport,
    OutcomeKind,
    Server,
    StdioTransport,
    add_server,
    memory_pair,
)
from mcpmini.mcp.client import DISCOVER_WAIT, discover_deadline

MCPMINI_CALL = [sys.executable, "-m", "mcpmini", "call"]


class Clock:
    """A monotonic clock that moves only when the test (or a fake transport) says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# --- the Deadline ---------------------------------------------------------------------------


def test_a_deadline_counts_down_on_the_clock_it_was_given():
    clock = Clock()
    deadline = Deadline.after(2.0, clock, "--timeout 2 s")
    assert (deadline.left(), deadline.expired) == (2.0, False)
    clock.now = 1.5
    assert deadline.left() == 0.5
    clock.now = 2.5
    assert (deadline.left(), deadline.expired) == (0.0, True)
    with pytest.raises(TimedOut, match="the answer to tools/list within --timeout 2 s"):
        deadline.check("the answer to tools/list")


def test_within_can_shorten_a_deadline_but_never_extend_it():
    clock = Clock()
    deadline = Deadline.after(10.0, clock)
    assert deadline.within(3.0).at == 3.0
    assert deadline.within(30.0) is deadline  # a component's own default cannot outlast it
    assert deadline.within(None) is deadline
    never = Deadline.never(clock)
    assert never.within(5.0).at == 5.0 and math.isinf(never.left())
    assert never.timeout() is None and deadline.timeout() == 10.0


def test_a_negative_or_nan_deadline_is_refused():
    for bad in (-1.0, math.nan):
        with pytest.raises(ValueError):
            Deadline.after(bad)


def test_timed_out_is_a_timeout_and_a_transport_error_of_kind_timed_out():
    error = Deadline.after(0.0, Clock()).error("x")
    assert isinstance(error, TimeoutError) and isinstance(error, TransportError)
    assert error.kind is TransportErrorKind.TIMED_OUT and error.exit_code == 4


def test_discovery_waits_at_most_its_cap_and_half_of_what_is_left():
    clock = Clock()
    assert discover_deadline(Deadline.after(1.0, clock)).at == 0.5
    assert discover_deadline(Deadline.after(60.0, clock)).at == DISCOVER_WAIT
    assert discover_deadline(Deadline.never(clock)).at == DISCOVER_WAIT


# --- bug: a silent server made `mcpmini call --timeout 1` take ~8.6 s -----------------------


class Silent:
    """A server that never answers: each wait uses up all the time it was given."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.sent: list[str] = []

    def send(self, line: bytes) -> None:
        self.sent.append(json.loads(line).get("method"))

    def receive(self, timeout: float | None = None) -> bytes | None:
        assert timeout is not None, "an unbounded wait inside a call with a deadline"
        self.clock.now += timeout
        raise TimedOut("no reply")

    def close(self) -> None:
        return None


def test_connecting_to_a_silent_server_ends_at_the_one_deadline_of_the_call():
    clock = Clock()
    transport = Silent(clock)
    client = Client(transport, clock=clock)  # a 30 s timeout and a 5 s discovery cap
    with pytest.raises(TimedOut, match="within --timeout 1 s"):
        client.connect(Deadline.after(1.0, clock, "--timeout 1 s"))
    assert clock.now <= 1.0  # not discover's 5 s, then initialize's 30 s
    assert transport.sent == ["server/discover", "initialize"]  # the fallback had its turn
    assert client.state is ClientState.CLOSED


def test_a_client_without_a_deadline_makes_one_from_its_timeout_at_the_call_start():
    clock = Clock()
    client = Client(Silent(clock), timeout=3.0, clock=clock)
    with pytest.raises(TimedOut):
        client.connect()
    assert clock.now <= 3.0


def test_mcpmini_call_against_a_silent_server_is_one_line_and_the_timeout_exit_code():
    import subprocess

    silent = "import sys\nfor line in sys.stdin:\n    pass\n"
    done = subprocess.run(
        [*MCPMINI_CALL, "tools/list", "--timeout", "1", "--", sys.executable, "-c", silent],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == TimedOut.exit_code, done.stderr
    assert len(lines) == 1 and lines[0].startswith("mcpmini call: timed out:")
    assert "--timeout 1 s" in lines[0] and "Traceback" not in done.stderr


# --- bug: each input-required round restarted the call's timeout -----------------------------


class AlwaysAsking:
    """A 2026-07-28 server whose tool asks for input on every round, 0.4 s into each."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.rounds = 0
        self.replies: deque[bytes] = deque()

    def send(self, line: bytes) -> None:
        message = json.loads(line)
        if message.get("method") != "tools/call":
            return
        self.rounds += 1
        self.clock.now += 0.4
        ask = {"method": "elicitation/create", "params": {"message": "again?"}}
        result = {"resultType": "input_required", "inputRequests": {"q": ask}}
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        self.replies.append(json.dumps(reply).encode())

    def receive(self, timeout: float | None = None) -> bytes | None:
        if self.replies:
            return self.replies.popleft()
        assert timeout is not None
        self.clock.now += timeout
        raise TimedOut("no reply")

    def close(self) -> None:
        return None


def test_input_required_rounds_share_the_calls_deadline():
    clock = Clock()
    server = AlwaysAsking(clock)
    answer = {"action": "accept", "content": {}}
    client = Client(server, clock=clock, handlers={"elicitation/create": lambda p: answer})
    outcome = client.call_tool("ask", {}, deadline=Deadline.after(1.0, clock))
    assert (outcome.kind, outcome.reason) == (OutcomeKind.NO_ANSWER, "timeout")
    assert server.rounds == 3 and clock.now <= 1.6  # 0.4 s a round: the third one is late
    # before: every round waited a fresh timeout, eight rounds, 3.6 s of a 1 s call


def test_a_timeout_in_seconds_is_one_deadline_for_all_the_rounds_too():
    clock = Clock()
    server = AlwaysAsking(clock)
    answer = {"action": "accept", "content": {}}
    client = Client(server, clock=clock, handlers={"elicitation/create": lambda p: answer})
    assert client.call_tool("ask", {}, timeout=1.0).kind is OutcomeKind.NO_ANSWER
    assert server.rounds == 3


# --- bug: an HTTP timeout was reported as the server's internal error -------------------------


@pytest.fixture
def mute_port():
    """A TCP port that accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(5)
    for conn in accepted:
        conn.close()
    listener.close()


def test_an_http_exchange_that_times_out_is_no_answer_as_on_stdio(mute_port):
    http = Client(HttpTransport(f"http://127.0.0.1:{mute_port}/mcp", timeout=0.3))
    over_http = http.call_tool("add", {"a": 1, "b": 2})  # the client's own deadline is 30 s
    http.close()
    silent = "import sys\nfor line in sys.stdin:\n    pass\n"
    stdio = Client(StdioTransport([sys.executable, "-c", silent]), timeout=0.3)
    over_stdio = stdio.call_tool("add", {"a": 1, "b": 2})
    stdio.close()
    assert (over_http.kind, over_http.reason) == (OutcomeKind.NO_ANSWER, "timeout")
    assert (over_stdio.kind, over_stdio.reason) == (OutcomeKind.NO_ANSWER, "timeout")


def test_an_http_server_that_cannot_be_reached_fails_the_request_as_unreachable():
    with socket.socket() as probe:  # bound, never listening (and held: nobody else takes it)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        client = Client(HttpTransport(f"http://127.0.0.1:{port}/mcp", timeout=5))
        request_id = client.send_request("tools/list")
        with pytest.raises(TransportError) as info:
            client.wait_for(request_id)
        client.close()
    assert info.value.kind is TransportErrorKind.UNREACHABLE
    assert info.value.request_id == request_id and info.value.exit_code == 3


# --- bug: two memory_pair clients shared one server connection -------------------------------


class Introspective(Server):
    """``ping`` answers with what this connection knows of its client."""

    def on_ping(self, conn: Any, req: Any, params: dict[str, Any]) -> dict[str, Any]:
        return {"capabilities": dict(conn.client_capabilities), "generation": conn.generation}


def test_each_memory_pair_client_has_a_connection_of_its_own():
    server = add_server()
    legacy = Client(memory_pair(server), mode="legacy")
    assert legacy.connect().generation is Generation.LEGACY
    modern = Client(memory_pair(server), mode="modern")
    assert modern.connect().generation is Generation.MODERN  # before: refused
    assert legacy.call_tool("add", {"a": 1, "b": 2}).kind is OutcomeKind.OK


def test_a_second_memory_pair_client_does_not_overwrite_the_firsts_capabilities():
    server = Introspective("i")
    first = Client(memory_pair(server), mode="legacy", capabilities={"elicitation": {}})
    second = Client(memory_pair(server), mode="legacy", capabilities={"roots": {}})
    first.connect()
    second.connect()
    assert first.request("ping")["capabilities"] == {"elicitation": {}}
    assert second.request("ping")["capabilities"] == {"roots": {}}
