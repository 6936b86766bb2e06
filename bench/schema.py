"""Is the compiled ``fastjsonschema`` path worth its dependency? Side by side in one run.

``mcpmini serve add`` is run twice over stdio: as shipped (valid arguments take the compiled
fast path, see ``mcpmini/mcp/schema.py``) and with the fast path switched off, so every call
is checked by the one cached ``jsonschema`` validator of the tool. The mcpmini client calls
``add`` one at a time and with 64 calls in flight, alternating between the two servers
``ROUNDS`` times; the table gives medians, and the ratio decides (issue 9): keep
``fastjsonschema`` only if it is worth >= 1.3x end to end.

Run: ``.venv/bin/python bench/schema.py`` (or ``make bench``). Never fails on the target.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcpmini.mcp import Client, StdioTransport  # noqa: E402

FAST = [sys.executable, "-m", "mcpmini", "serve", "add"]
PLAIN = [
    sys.executable,
    "-c",
    "import mcpmini.mcp.schema as s\n"
    "s._same_in_both = lambda schema: False  # no compiled fast path: jsonschema only\n"
    "from mcpmini.cli import main\n"
    "main(['serve', 'add'])",
]
SECONDS = float(os.environ.get("BENCH_SECONDS", "1.0"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
PIPE_DEPTH = 64


def measure(argv: list[str], pipelined: bool) -> tuple[float, float]:
    """Calls per second and server CPU milliseconds per call for one server command."""
    transport = StdioTransport(argv, cwd=str(ROOT))
    with Client(transport, mode="modern", timeout=10) as client:
        client.connect()

        def batch() -> int:
            if pipelined:
                ids = [client.send_tool_call("add", {"a": i, "b": 1}) for i in range(PIPE_DEPTH)]
                outcomes = [client.tool_outcome("add", rid) for rid in ids]
            else:
                outcomes = [client.call_tool("add", {"a": i, "b": 1}) for i in range(100)]
            assert all(o.text.isdigit() for o in outcomes)
            return len(outcomes)

        batch()  # warm-up: imports, the validator built on first use
        server = psutil.Process(transport.pid)
        cpu0 = sum(server.cpu_times()[:2])
        calls, started = 0, time.perf_counter()
        while time.perf_counter() - started < SECONDS:
            calls += batch()
        elapsed = time.perf_counter() - started
        cpu = (sum(server.cpu_times()[:2]) - cpu0) / calls * 1000
    return calls / elapsed, cpu


def main() -> None:
    rows: dict[str, dict[str, list[tuple[float, float]]]] = {
        "seq": {"fast": [], "plain": []},
        f"pipe x{PIPE_DEPTH}": {"fast": [], "plain": []},
    }
    runs: list[tuple[str, str, Callable[[], tuple[float, float]]]] = []
    for shape, pipelined in (("seq", False), (f"pipe x{PIPE_DEPTH}", True)):
        runs.append((shape, "fast", lambda p=pipelined: measure(FAST, p)))
        runs.append((shape, "plain", lambda p=pipelined: measure(PLAIN, p)))
    for round_ in range(ROUNDS):
        for shape, kind, run in runs if round_ % 2 == 0 else runs[::-1]:
            rows[shape][kind].append(run())
    print(f"{'calls':<10}{'validation':<22}{'calls/s':>10}{'server CPU ms/call':>22}")
    for shape, kinds in rows.items():
        for kind, label in (("fast", "fastjsonschema path"), ("plain", "jsonschema (cached)")):
            rate = statistics.median(r for r, _ in kinds[kind])
            cpu = statistics.median(c for _, c in kinds[kind])
            print(f"{shape:<10}{label:<22}{rate:>10,.0f}{cpu:>22.4f}")
    print()
    for shape, kinds in rows.items():
        ratio = statistics.median(r for r, _ in kinds["fast"]) / statistics.median(
            r for r, _ in kinds["plain"]
        )
        verdict = "keep fastjsonschema" if ratio >= 1.3 else "jsonschema alone would do"
        print(f"{shape:<10} fast / plain end to end {ratio:6.2f}x   target >= 1.3   {verdict}")


if __name__ == "__main__":
    main()
