"""Streamable HTTP benchmark, side by side in one run; prints the ratios.

1. Server speed: the official SDK client (``mcp.Client(url)``, mode auto → 2026-07-28) calls
   ``add`` sequentially against the official SDK's ``MCPServer`` Streamable HTTP app and
   against ``mcpmini serve add --http``; both under uvicorn with one worker on a pre-bound
   ``TCP_NODELAY`` socket. Target: mcpmini serves >= 3x the calls per second.
2. Scale-out: the mcpmini client (several processes, each pipelining requests) against
   ``mcpmini serve add --http --stateless`` with 1 and then 2 uvicorn workers. Target: >= 1.6x
   from 1 to 2 workers on two cores.

Each side runs for a fixed time after a warm-up; the sides alternate (A, B, A, B …) so a load
change on the machine hits both, and the medians are compared. For the first comparison the
server processes' CPU time per call is printed too: the SDK client spends several times the
CPU of either server, so on a busy machine the calls per second mostly measure the client.

Run: ``.venv/bin/python bench/http_load.py [--seconds S] [--repeat N]`` (or ``make bench``).
"""

from __future__ import annotations

# ruff: noqa: E402
import sys
from pathlib import Path

# This file is named http.py: drop its folder from the path so `import http` finds the stdlib.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse
import asyncio
import multiprocessing
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcpmini.mcp import Client, HttpTransport
from mcpmini.mcp.asgi import listening_socket


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


SERVER_PIDS: dict[str, int] = {}


@contextmanager
def server(argv: list[str]) -> Iterator[str]:
    """Start ``argv + ["--fd", N]`` on a listening socket; yield the URL; stop it."""
    sock = listening_socket()
    sock.set_inheritable(True)
    port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [*argv, "--fd", str(sock.fileno())],
        pass_fds=[sock.fileno()],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    sock.close()
    url = f"http://127.0.0.1:{port}/mcp"
    SERVER_PIDS[url] = proc.pid
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(15)


SDK_SERVER = [
    sys.executable,
    "-m",
    "uvicorn",
    "--factory",
    "tests.peers.sdk_http_app:app",
    "--log-level",
    "warning",
    "--no-access-log",
]


def mcpmini_server(workers: int = 1, stateless: bool = False) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mcpmini",
        "serve",
        "add",
        "--http",
        "--workers",
        str(workers),
        *(["--stateless"] if stateless else []),
    ]


# --- 1. the official SDK client against both servers --------------------------------------------

#: server CPU milliseconds per call of each run, by URL (the client cost cannot hide it)
SERVER_MS: dict[str, list[float]] = {}


async def _sdk_calls(url: str, seconds: float) -> float:
    from mcp import Client as SdkClient

    async with SdkClient(url) as client:
        for _ in range(20):  # warm-up: connection, caches, the first list_tools
            await client.call_tool("add", {"a": 1, "b": 2})
        cpu0 = cpu_seconds(SERVER_PIDS[url])
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            await client.call_tool("add", {"a": calls, "b": 1})
            calls += 1
        rate = calls / (time.perf_counter() - start)
        SERVER_MS.setdefault(url, []).append(
            (cpu_seconds(SERVER_PIDS[url]) - cpu0) * 1000 / max(calls, 1)
        )
        return rate


def sdk_client_rate(url: str, seconds: float) -> float:
    return asyncio.run(asyncio.wait_for(_sdk_calls(url, seconds), seconds + 60))


# --- 2. mcpmini clients against 1 and 2 workers -------------------------------------------------


def _client_process(url: str, seconds: float, batch: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    with Client(
        HttpTransport(url, timeout=30, max_workers=batch), mode="modern", timeout=30
    ) as client:
        client.connect()
        calls_of = [
            ("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}}) for i in range(batch)
        ]
        client.gather(calls_of)
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            replies = client.gather(calls_of)
            calls += len(replies)
        out.put(calls / (time.perf_counter() - start))


def mcpmini_clients_rate(url: str, seconds: float, processes: int = 4, batch: int = 8) -> float:
    out: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    procs = [
        multiprocessing.Process(target=_client_process, args=(url, seconds, batch, out))
        for _ in range(processes)
    ]
    for p in procs:
        p.start()
    rates = [out.get(timeout=seconds + 60) for _ in procs]
    for p in procs:
        p.join(30)
    return sum(rates)


def side_by_side(
    label_a: str, run_a: Callable[[], float], label_b: str, run_b: Callable[[], float], repeat: int
) -> tuple[float, float]:
    a, b = [], []
    for _ in range(repeat):
        a.append(run_a())
        b.append(run_b())
        print(f"  {label_a}: {a[-1]:8.0f} calls/s   {label_b}: {b[-1]:8.0f} calls/s", flush=True)
    return statistics.median(a), statistics.median(b)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="measured time per side and round"
    )
    parser.add_argument("--repeat", type=int, default=3, help="rounds (A, B) per comparison")
    args = parser.parse_args()
    print(f"bench/http_load.py on {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    print("1. official SDK client, sequential tools/call, one uvicorn worker each")
    with server(SDK_SERVER) as sdk_url, server(mcpmini_server()) as mini_url:
        sdk, mini = side_by_side(
            "SDK server",
            lambda: sdk_client_rate(sdk_url, args.seconds),
            "mcpmini server",
            lambda: sdk_client_rate(mini_url, args.seconds),
            args.repeat,
        )
        sdk_ms, mini_ms = (
            statistics.median(SERVER_MS[sdk_url]),
            statistics.median(SERVER_MS[mini_url]),
        )

    print("2. mcpmini clients (4 processes x 8 pipelined calls), stateless mcpmini server")
    with server(mcpmini_server(1, True)) as one_url, server(mcpmini_server(2, True)) as two_url:
        one, two = side_by_side(
            "1 worker",
            lambda: mcpmini_clients_rate(one_url, args.seconds),
            "2 workers",
            lambda: mcpmini_clients_rate(two_url, args.seconds),
            args.repeat,
        )

    print()
    print("| comparison | A (calls/s) | B (calls/s) | B / A | target |")
    print("|---|---|---|---|---|")
    print(
        f"| SDK client: SDK server (A) vs mcpmini server (B) | {sdk:.0f} | {mini:.0f} | "
        f"{mini / sdk:.2f}x | >= 3x |"
    )
    print(
        f"| mcpmini clients: 1 worker (A) vs 2 workers (B), stateless | {one:.0f} | {two:.0f} | "
        f"{two / one:.2f}x | >= 1.6x |"
    )
    print()
    print(
        "Server CPU per call (the client's own cost cannot hide it; calls per server CPU-second):"
    )
    print(
        f"  SDK server {sdk_ms:.2f} ms, mcpmini server {mini_ms:.2f} ms: "
        f"{sdk_ms / mini_ms:.2f}x the calls per CPU-second"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
