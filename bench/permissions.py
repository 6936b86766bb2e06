"""Permission and Grep benchmark, side by side in one run; prints the ratios.

1. Grep: the pattern ``^(a+)+$`` against a line of ``n`` ``a`` followed by ``b``, with RE2
   (what the Grep tool uses) and with Python ``re`` (what it used before), for growing
   ``n``. Python ``re`` backtracks exponentially, so its side stops at a small ``n`` and is
   run in a child process killed after ``--limit`` seconds; RE2 stays linear up to 10^6.
2. The gate: the median time to decide one Bash call with the tree-sitter analysis,
   over the commands of the shared case table, next to a plain ``str.split`` of the same
   commands (the floor of any hand-written splitter), so the cost of real parsing shows.

Run: ``.venv/bin/python bench/permissions.py [--limit SECONDS]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import re2

from mcpmini.course.chapters import PERMISSION_CASES, run_case
from mcpmini.permissions import analyze


def _re2_seconds(n: int) -> float:
    rx = re2.compile(r"^(a+)+$")
    line = "a" * n + "b"
    start = time.perf_counter()
    assert rx.search(line) is None
    return time.perf_counter() - start


def _python_re_seconds(n: int, limit: float) -> float | None:
    code = (
        f"import re, time; line = 'a' * {n} + 'b'; t = time.perf_counter(); "
        "re.search(r'^(a+)+$', line); print(time.perf_counter() - t)"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=limit, check=True
        )
    except subprocess.TimeoutExpired:
        return None
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=10.0)
    args = parser.parse_args()
    print(f"{'n':>8} {'RE2 s':>10} {'Python re s':>12} {'re / RE2':>10}")
    for n in (10, 18, 22, 24, 26, 1_000, 100_000, 1_000_000):
        fast = _re2_seconds(n)
        slow = _python_re_seconds(n, args.limit) if n <= 26 else None
        shown = "-" if n > 26 else (f"> {args.limit:g}" if slow is None else f"{slow:.4f}")
        ratio = f"{slow / fast:,.0f}x" if slow else "-"
        print(f"{n:>8} {fast:>10.6f} {shown:>12} {ratio:>10}")

    commands = [c for c in PERMISSION_CASES if c.tool == "Bash"]
    gate_times, split_times = [], []
    for _ in range(5):
        analyze.cache_clear()
        start = time.perf_counter()
        for case in commands:
            run_case(case)
        gate_times.append((time.perf_counter() - start) / len(commands))
        start = time.perf_counter()
        for case in commands:
            str(case.tool_input["command"]).split()
        split_times.append((time.perf_counter() - start) / len(commands))
    gate_us = statistics.median(gate_times) * 1e6
    split_us = statistics.median(split_times) * 1e6
    print(
        f"\ngate per Bash call (tree-sitter analysis, uncached): {gate_us:.0f} us; "
        f"str.split: {split_us:.2f} us; ratio {gate_us / split_us:,.0f}x "
        f"({len(commands)} commands, median of 5)"
    )


if __name__ == "__main__":
    main()
