"""Streamable HTTP under a real load generator (wrk), side by side in one run; prints ratios.

Table 1 (wrk, the C load generator from Debian's ``wrk`` package: one thread, ``--connections``
connections, the same ``tools/call`` body on every request) drives, round after round and
alternating so a change of load on the machine hits every row:

- the **floor**: a bare uvicorn ASGI app that parses the JSON body and answers a fixed result
  (``tests/peers/bare_asgi.py``) — no Python ASGI MCP server here can be faster;
- the official SDK's Streamable HTTP app (stateful session, JSON replies);
- ``mcpmini serve add --http`` (stateful session);
- ``mcpmini serve add --http --stateless`` with 1 and with 2 uvicorn workers;
- each of the floor, the SDK and mcpmini again for an **event-stream** reply (a tool that
  reports progress first: the reply is ``text/event-stream``);
- the floor plus 10 and 20 microseconds of busy Python per request (``SPINS``): what any
  per-call work costs under wrk once the kernel's share and the wake-ups of a slower server
  are counted, so mcpmini's rows can be read against "the floor + its own Python".

Per row: requests/s, p50 and p99 latency, non-2xx answers and socket errors (must be 0), the
server's CPU milliseconds per call (psutil, the server process and its workers) and how busy
the whole machine was (wrk included: with one wrk thread on two cores, a second worker has at
most what wrk leaves). The ratios against the
issue's targets come last. Table 2 keeps the earlier Python-client comparison (the official SDK
client against both servers), where the client's own CPU dominates on two cores. Table 3 drives
the ASGI apps in process (no sockets, no HTTP parser): the CPU each app itself spends per call,
which a busy machine disturbs least — where the time goes once uvicorn's share is taken away.

Run: ``.venv/bin/python bench/http_load.py [--seconds S] [--repeat N] [--connections C]``
(``make bench`` runs every script in ``bench/``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcpmini.course.chapters import wrk  # noqa: E402
from mcpmini.mcp.asgi import listening_socket  # noqa: E402
from mcpmini.mcp.versions import META_PREFIX  # noqa: E402

#: Microseconds of busy Python the "floor + N us" rows add per request: what a server's own
#: per-call work costs under load (the machine's share included), beside mcpmini's rows.
SPINS = (10, 20)
LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
ACCEPT = "application/json, text/event-stream"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` and its children (the uvicorn workers)."""
    import psutil

    proc = psutil.Process(pid)
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            times = p.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


@dataclass
class Served:
    """A running server: its URL and the pid whose CPU time is counted."""

    url: str
    pid: int


@contextmanager
def server(argv: list[str], env: dict[str, str] | None = None) -> Iterator[Served]:
    """Start ``argv + ["--fd", N]`` on a listening socket; yield it once it answers; stop it."""
    sock = listening_socket()
    sock.set_inheritable(True)
    port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [*argv, "--fd", str(sock.fileno())],
        pass_fds=[sock.fileno()],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )
    sock.close()
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 30
        while True:  # bounded wait for the first answer (any status)
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"{argv} did not start") from None
                time.sleep(0.05)
        yield Served(url, proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(15)


def uvicorn(target: str, *, factory: bool = False) -> list[str]:
    return [
        sys.executable,
        "-m",
        "uvicorn",
        *(["--factory"] if factory else []),
        target,
        "--log-level",
        "warning",
        "--no-access-log",
    ]


def mcpmini_server(name: str = "add", workers: int = 1, stateless: bool = False) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mcpmini",
        "serve",
        name,
        "--http",
        "--workers",
        str(workers),
        *(["--stateless"] if stateless else []),
    ]


# --- request bodies and sessions ----------------------------------------------------------------


def call_body(tool: str, *, modern: bool, progress: bool) -> dict[str, object]:
    params: dict[str, object] = {
        "name": tool,
        "arguments": {"a": 2, "b": 3} if "add" in tool else {},
    }
    meta: dict[str, object] = {}
    if progress:
        meta["progressToken"] = "bench"
    if modern:
        meta[META_PREFIX + "protocolVersion"] = MODERN_VERSION
        meta[META_PREFIX + "clientCapabilities"] = {}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


_INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def open_session(url: str) -> dict[str, str]:
    """Initialize a 2025-11-25 session on ``url``; the headers every later call carries."""
    init = _INIT
    base = {"content-type": "application/json", "accept": ACCEPT}
    reply = httpx.post(url, json=init, headers=base, timeout=10)
    reply.raise_for_status()
    headers = {**base, "mcp-protocol-version": LEGACY_VERSION}
    session = reply.headers.get("mcp-session-id")
    if session:
        headers["mcp-session-id"] = session
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    httpx.post(url, json=note, headers=headers, timeout=10).raise_for_status()
    return headers


def stateless_headers(tool: str) -> dict[str, str]:
    return {
        "content-type": "application/json",
        "accept": ACCEPT,
        "mcp-protocol-version": MODERN_VERSION,
        "mcp-method": "tools/call",
        "mcp-name": tool,
    }


# --- wrk ----------------------------------------------------------------------------------------


@dataclass
class Row:
    """One line of table 1: how to reach a server and what was measured."""

    label: str
    served: Served
    body: dict[str, object]
    headers: dict[str, str]
    rates: list[float] = field(default_factory=list)
    p50: list[float] = field(default_factory=list)
    p99: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    busy: list[float] = field(default_factory=list)
    bad: int = 0

    def check(self) -> None:
        """One request through httpx first: the body must be answered with a result."""
        reply = httpx.post(self.served.url, json=self.body, headers=self.headers, timeout=10)
        text = reply.text
        if reply.status_code != 200 or '"result"' not in text:
            raise RuntimeError(f"{self.label}: {reply.status_code} {text[:200]}")


def run_wrk(row: Row, seconds: int, connections: int) -> None:
    """One wrk run of ``row``; appends its rate, latency percentiles and server CPU per call."""
    import psutil

    cpu0, machine0 = cpu_seconds(row.served.pid), psutil.cpu_times()
    result = wrk(row.served.url, row.body, row.headers, seconds=seconds, connections=connections)
    cpu, machine1 = cpu_seconds(row.served.pid) - cpu0, psutil.cpu_times()
    idle = (machine1.idle + machine1.iowait) - (machine0.idle + machine0.iowait)
    total = sum(machine1) - sum(machine0)
    row.busy.append(100 * (1 - idle / total) if total > 0 else 0.0)
    row.rates.append(result.requests_per_second)
    row.p50.append(result.p50_ms)
    row.p99.append(result.p99_ms)
    row.cpu_ms.append(cpu * 1000 / max(result.requests, 1))
    row.bad += result.non_2xx + result.socket_errors


def wrk_table(seconds: int, repeat: int, connections: int) -> dict[str, Row]:
    sdk = uvicorn("tests.peers.sdk_http_app:app", factory=True)
    sdk_sse = uvicorn("tests.peers.sdk_http_app:app_sse", factory=True)
    with ExitStack() as stack:
        up = {
            name: stack.enter_context(server(argv))
            for name, argv in {
                "floor": uvicorn("tests.peers.bare_asgi:app"),
                "sdk": sdk,
                "sdk-sse": sdk_sse,
                "mini": mcpmini_server(),
                "mini-conf": mcpmini_server("conformance"),
                "mini-1": mcpmini_server(stateless=True),
                "mini-2": mcpmini_server(workers=2, stateless=True),
            }.items()
        }
        for spin in SPINS:
            up[f"spin-{spin}"] = stack.enter_context(
                server(
                    uvicorn("tests.peers.bare_asgi:spinning", factory=True),
                    {"BARE_ASGI_SPIN_US": str(spin)},
                )
            )
        plain = call_body("add", modern=False, progress=False)
        json_headers = {"content-type": "application/json", "accept": ACCEPT}
        rows = [
            Row("floor", up["floor"], plain, json_headers),
            *(
                Row(f"floor + {spin} us of Python", up[f"spin-{spin}"], plain, json_headers)
                for spin in SPINS
            ),
            Row("SDK stateful", up["sdk"], plain, open_session(up["sdk"].url)),
            Row("mcpmini stateful", up["mini"], plain, open_session(up["mini"].url)),
            Row(
                "mcpmini stateless 1 worker",
                up["mini-1"],
                call_body("add", modern=True, progress=False),
                stateless_headers("add"),
            ),
            Row(
                "mcpmini stateless 2 workers",
                up["mini-2"],
                call_body("add", modern=True, progress=False),
                stateless_headers("add"),
            ),
            Row(
                "floor, event stream",
                up["floor"],
                call_body("add", modern=False, progress=True),
                json_headers,
            ),
            Row(
                "SDK, event stream",
                up["sdk-sse"],
                call_body("add_with_progress", modern=False, progress=True),
                open_session(up["sdk-sse"].url),
            ),
        ]
        conf = open_session(up["mini-conf"].url)
        rows += [
            Row(
                "mcpmini conformance, JSON",
                up["mini-conf"],
                call_body("test_simple_text", modern=False, progress=False),
                conf,
            ),
            Row(
                "mcpmini conformance, event stream",
                up["mini-conf"],
                call_body("test_tool_with_progress", modern=False, progress=True),
                conf,
            ),
        ]
        for row in rows:
            row.check()
            run_wrk(row, 1, connections)  # warm-up, discarded
            for measured in (row.rates, row.p50, row.p99, row.cpu_ms, row.busy):
                measured.clear()
        for n in range(repeat):
            print(f"  round {n + 1}/{repeat}", flush=True)
            for row in rows:
                run_wrk(row, seconds, connections)
    return {row.label: row for row in rows}


def print_wrk(rows: dict[str, Row]) -> None:
    med = statistics.median
    print(
        "| server | requests/s | p50 ms | p99 ms | server CPU ms/call | machine busy % | failed |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in rows.values():
        print(
            f"| {row.label} | {med(row.rates):,.0f} | {med(row.p50):.2f} | {med(row.p99):.2f} | "
            f"{med(row.cpu_ms):.3f} | {med(row.busy):.0f} | {row.bad} |"
        )
    rate = {k: med(r.rates) for k, r in rows.items()}
    cpu = {k: med(r.cpu_ms) for k, r in rows.items()}
    checks = [
        ("mcpmini stateful / floor", rate["mcpmini stateful"] / rate["floor"], ">= 0.60", 0.60),
        (
            "mcpmini stateful / SDK stateful",
            rate["mcpmini stateful"] / rate["SDK stateful"],
            ">= 10",
            10,
        ),
        (
            "stateless 2 workers / 1 worker",
            rate["mcpmini stateless 2 workers"] / rate["mcpmini stateless 1 worker"],
            ">= 1.6",
            1.6,
        ),
        (
            "mcpmini event stream / JSON (conformance server)",
            rate["mcpmini conformance, event stream"] / rate["mcpmini conformance, JSON"],
            ">= 0.5",
            0.5,
        ),
        (
            "floor event stream / JSON",
            rate["floor, event stream"] / rate["floor"],
            "(reference)",
            0,
        ),
        (
            "server CPU per call: mcpmini stateful / floor",
            cpu["mcpmini stateful"] / cpu["floor"],
            "<= 2",
            -2,
        ),
        *(
            (
                f"floor + {spin} us of Python / floor",
                rate[f"floor + {spin} us of Python"] / rate["floor"],
                "(reference)",
                0,
            )
            for spin in SPINS
        ),
        (
            "floor / SDK stateful (the most any server reaches)",
            rate["floor"] / rate["SDK stateful"],
            "(reference)",
            0,
        ),
    ]
    print()
    print("| ratio | measured | target | met |")
    print("|---|---|---|---|")
    for label, value, target, bound in checks:
        met = (
            "—"
            if bound == 0
            else ("yes" if (value >= bound if bound > 0 else value <= -bound) else "NO")
        )
        print(f"| {label} | {value:.2f} | {target} | {met} |")
    busy = med(rows["mcpmini stateless 1 worker"].busy)
    print(
        f"\nThe 1-worker stateless row already kept the machine {busy:.0f} % busy (wrk and the "
        f"server, {os.cpu_count()} CPUs): a second worker can only use what is left."
    )


# --- table 2: the official SDK client against both servers -----------------------------------


async def _sdk_calls(url: str, seconds: float) -> float:
    from mcp import Client as SdkClient

    async with SdkClient(url) as client:
        for _ in range(20):  # warm-up: connection, caches, the first list_tools
            await client.call_tool("add", {"a": 1, "b": 2})
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            await client.call_tool("add", {"a": calls, "b": 1})
            calls += 1
        return calls / (time.perf_counter() - start)


def sdk_client_table(seconds: float, repeat: int) -> None:
    sdk_argv = uvicorn("tests.peers.sdk_http_app:app", factory=True)
    with server(sdk_argv) as sdk, server(mcpmini_server()) as mini:
        a, b = [], []
        for _ in range(repeat):
            a.append(asyncio.run(asyncio.wait_for(_sdk_calls(sdk.url, seconds), seconds + 60)))
            b.append(asyncio.run(asyncio.wait_for(_sdk_calls(mini.url, seconds), seconds + 60)))
    sdk_rate, mini_rate = statistics.median(a), statistics.median(b)
    print("| client | SDK server calls/s | mcpmini server calls/s | mcpmini / SDK |")
    print("|---|---|---|---|")
    print(
        f"| official SDK client, sequential | {sdk_rate:.0f} | {mini_rate:.0f} | "
        f"{mini_rate / sdk_rate:.2f}x |"
    )


# --- table 3: the ASGI apps driven in process -------------------------------------------------


def _asgi_caller(app: object, body: bytes, headers: dict[str, str]) -> object:
    raw = [(k.encode(), v.encode()) for k, v in headers.items()]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": raw}

    async def one() -> list[dict[str, object]]:
        pending = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive() -> dict[str, object]:
            return pending.pop() if pending else {"type": "http.disconnect"}

        sent: list[dict[str, object]] = []

        async def send(message: dict[str, object]) -> None:
            sent.append(message)

        await app(scope, receive, send)  # type: ignore[operator]
        return sent

    return one


async def _asgi_rows(calls: int) -> dict[str, float]:
    from mcpmini.mcp import asgi_app, conformance_server
    from mcpmini.mcp.samples import add_server
    from tests.peers.bare_asgi import app as floor

    base = {"content-type": "application/json", "accept": ACCEPT, "host": "127.0.0.1"}
    out: dict[str, float] = {}
    targets = [
        ("floor", floor, "add", False),
        ("mcpmini stateful, inline tool (add)", asgi_app(add_server()), "add", True),
        (
            "mcpmini stateful, worker-thread tool (test_simple_text)",
            asgi_app(conformance_server()),
            "test_simple_text",
            True,
        ),
    ]
    for label, app, tool, session in targets:
        headers = dict(base)
        if session:
            init = _asgi_caller(app, orjson.dumps(_INIT), base)
            started = await init()  # type: ignore[operator]
            sid = dict(started[0]["headers"])[b"mcp-session-id"].decode()
            headers.update({"mcp-session-id": sid, "mcp-protocol-version": LEGACY_VERSION})
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await _asgi_caller(app, orjson.dumps(note), headers)()  # type: ignore[operator]
        call = _asgi_caller(
            app, orjson.dumps(call_body(tool, modern=False, progress=False)), headers
        )
        for _ in range(200):
            await call()  # type: ignore[operator]
        start = time.process_time()
        for _ in range(calls):
            await call()  # type: ignore[operator]
        out[label] = (time.process_time() - start) / calls * 1e6
    return out


def asgi_table(calls: int) -> None:
    rows = asyncio.run(_asgi_rows(calls))
    floor = rows["floor"]
    print("| app (driven in process) | CPU us per call | / floor |")
    print("|---|---|---|")
    for label, us in rows.items():
        print(f"| {label} | {us:.1f} | {us / floor:.1f}x |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=3, help="wrk seconds per row and round")
    parser.add_argument("--repeat", type=int, default=3, help="rounds over every row")
    parser.add_argument("--connections", type=int, default=8, help="wrk connections")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("bench/http_load.py needs wrk (apt-get install wrk)", file=sys.stderr)
        return 2
    print(f"bench/http_load.py on {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"1. wrk -t1 -c{args.connections}, {args.seconds} s per row, {args.repeat} rounds")
    print_wrk(wrk_table(args.seconds, args.repeat, args.connections))
    print()
    print("2. the official SDK client (Python; its own CPU dominates on two cores)")
    sdk_client_table(args.seconds, args.repeat)
    print()
    print("3. the ASGI apps driven in process (no sockets, no HTTP parsing)")
    asgi_table(3000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
