"""Tool calls per second over stdio, side by side in one run, with the ratios that matter.

Rows (all on this machine, same `add` tool, same kind of OS pipe):

* raw echo      – a stdlib line-echo process: the pipe round-trip limit;
* SDK → SDK     – the official MCP SDK client calling an official SDK server;
* SDK → mcpmini – the official client calling ``mcpmini serve add``;
* mcpmini seq   – the mcpmini client, one call at a time;
* mcpmini pipe  – the mcpmini client with ``PIPE_DEPTH`` calls in flight.

Server CPU per call is read from the server process's CPU times around the timed loop.
Run: ``python bench/stdio.py`` (or ``make bench``). Prints a table and the ratios
against the targets of issue 2; it never fails on a missed target.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcpmini.mcp import (  # noqa: E402
    Client,
    StdioTransport,
)

SDK_SERVER = [sys.executable, str(ROOT / "tests" / "peers" / "sdk_add_server.py")]
MCPMINI_SERVER = [sys.executable, "-m", "mcpmini", "serve", "add"]
ECHO = [
    sys.executable,
    "-c",
    "import sys\nr, w = sys.stdin.buffer, sys.stdout.buffer\nfor line in r:\n"
    "    w.write(line); w.flush()",
]
SECONDS = float(os.environ.get("BENCH_SECONDS", "1.5"))
PIPE_DEPTH = 64


def cpu_seconds(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def timed(run_batch, pid: int | None) -> tuple[float, float | None]:
    """Run batches until SECONDS elapse; return (calls per second, server CPU ms per call)."""
    run_batch()  # warm-up
    cpu0 = cpu_seconds(pid) if pid else None
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < SECONDS:
        calls += run_batch()
    elapsed = time.perf_counter() - started
    cpu = (cpu_seconds(pid) - cpu0) / calls * 1000 if pid else None
    return calls / elapsed, cpu


def bench_echo() -> tuple[float, float | None]:
    line = (
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
            }
        ).encode()
        + b"\n"
    )
    with StdioTransport(ECHO) as transport:

        def batch() -> int:
            for _ in range(200):
                transport.send(line)
                transport.receive(10)
            return 200

        return timed(batch, transport.pid)


def bench_mcpmini(pipelined: bool) -> tuple[float, float | None]:
    transport = StdioTransport(MCPMINI_SERVER)
    with Client(transport, mode="modern", timeout=10) as client:
        client.connect()
        if pipelined:

            def batch() -> int:
                ids = [client.send_tool_call("add", {"a": i, "b": 1}) for i in range(PIPE_DEPTH)]
                for rid in ids:
                    client.tool_outcome("add", rid)
                return PIPE_DEPTH
        else:

            def batch() -> int:
                for i in range(200):
                    client.call_tool("add", {"a": i, "b": 1})
                return 200

        return timed(batch, transport.pid)


def bench_sdk_client(server_argv: list[str]) -> tuple[float, float | None]:
    from mcp import Client as SdkClient
    from mcp import StdioServerParameters

    async def main() -> tuple[float, float | None]:
        params = StdioServerParameters(command=server_argv[0], args=server_argv[1:])
        async with SdkClient(params, mode="auto") as client:
            await client.list_tools()
            children = psutil.Process().children(recursive=True)
            pid = children[-1].pid if children else None
            loop_batch = 100

            async def batch() -> int:
                for i in range(loop_batch):
                    await client.call_tool("add", {"a": i, "b": 1})
                return loop_batch

            await batch()
            cpu0 = cpu_seconds(pid) if pid else None
            calls, started = 0, time.perf_counter()
            while time.perf_counter() - started < SECONDS:
                calls += await batch()
            elapsed = time.perf_counter() - started
            cpu = (cpu_seconds(pid) - cpu0) / calls * 1000 if pid else None
            return calls / elapsed, cpu

    return asyncio.run(main())


def main() -> None:
    rows = {
        "raw echo": bench_echo(),
        "SDK -> SDK": bench_sdk_client(SDK_SERVER),
        "SDK -> mcpmini": bench_sdk_client(MCPMINI_SERVER),
        "mcpmini seq": bench_mcpmini(pipelined=False),
        f"mcpmini pipe x{PIPE_DEPTH}": bench_mcpmini(pipelined=True),
    }
    print(f"{'pair':<20}{'calls/s':>12}{'server CPU ms/call':>22}")
    for name, (rate, cpu) in rows.items():
        print(f"{name:<20}{rate:>12,.0f}{'' if cpu is None else f'{cpu:.4f}':>22}")
    sdk = rows["SDK -> SDK"][0]
    seq = rows["mcpmini seq"][0]
    pipe = rows[f"mcpmini pipe x{PIPE_DEPTH}"][0]
    echo = rows["raw echo"][0]
    sdk_cpu = rows["SDK -> SDK"][1]
    our_cpu = rows["mcpmini seq"][1]
    print()
    checks = [
        ("mcpmini seq / SDK->SDK", seq / sdk, ">= 10", seq / sdk >= 10),
        ("mcpmini seq / raw echo", seq / echo, ">= 0.70", seq / echo >= 0.70),
        ("mcpmini pipe / SDK->SDK", pipe / sdk, ">= 60", pipe / sdk >= 60),
    ]
    if sdk_cpu and our_cpu:
        checks.append(
            ("server CPU mcpmini / SDK", our_cpu / sdk_cpu, "<= 0.10", our_cpu / sdk_cpu <= 0.10)
        )
    for name, value, target, ok in checks:
        print(f"{name:<28}{value:>9.3f}   target {target:<8} {'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
