"""Hook runner benchmark, side by side in one run; prints ratios.

1. Parallelism: eight matching command hooks that each sleep 0.2 s, against one such hook.
   Target: the eight finish in <= 1.3x the wall time of one.
2. Overhead: ``run_hooks`` with one matching command hook, against a bare
   ``subprocess.run`` of the same command with the same stdin (``sh -c``, output captured).
   Target: <= 1.2x. Measured for a trivial command (``true``, worst case for the ratio)
   and for the example .env guard run by this interpreter.

Timings are medians of interleaved repetitions; the overhead ratio is the median of the
per-pair ratios. Run: ``.venv/bin/python bench/hooks.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from mcpmini.hooks import CommandHandler, HookMatcher, run_hooks

ROOT = Path(__file__).resolve().parents[1]
ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
PAYLOAD = {"tool_name": "Write", "tool_input": {"file_path": "/repo/app.py"}}


def median_time(fn, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def hooks_of(commands: list[str]) -> dict:
    return {"PreToolUse": [HookMatcher("Write", [CommandHandler(c) for c in commands])]}


def parallel(repeat: int = 5) -> float:
    # Distinct commands: identical ones would be de-duplicated only across settings files,
    # but distinct text keeps the comparison obviously fair.
    one = hooks_of(["sleep 0.2"])
    eight = hooks_of([f"sleep 0.2; : {i}" for i in range(8)])
    t1 = t8 = 0.0
    for _ in range(repeat):
        t1 += median_time(lambda: run_hooks(one, "PreToolUse", PAYLOAD, environ=ENV), 1)
        t8 += median_time(lambda: run_hooks(eight, "PreToolUse", PAYLOAD, environ=ENV), 1)
    t1, t8 = t1 / repeat, t8 / repeat
    print(
        f"parallel: 1 hook {t1 * 1000:7.1f} ms | 8 hooks {t8 * 1000:7.1f} ms | "
        f"ratio {t8 / t1:.2f} (target <= 1.30)"
    )
    return t8 / t1


def overhead(label: str, command: str, repeat: int) -> float:
    hooks = hooks_of([command])
    body = json.dumps(
        {
            "session_id": "mcpmini",
            "transcript_path": "",
            "cwd": str(ROOT),
            "hook_event_name": "PreToolUse",
            **PAYLOAD,
        }
    ).encode()
    env = {**ENV, "CLAUDE_PROJECT_DIR": str(ROOT)}

    def bare() -> None:
        subprocess.run(
            ["sh", "-c", command], input=body, capture_output=True, env=env, cwd=ROOT, check=False
        )

    def runner() -> None:
        run_hooks(hooks, "PreToolUse", PAYLOAD, environ=ENV, project_dir=ROOT)

    bare()
    runner()  # warm up imports and caches
    bare_times, runner_times = [], []
    for _ in range(repeat):  # interleave so drift hits both sides alike
        bare_times.append(median_time(bare, 1))
        runner_times.append(median_time(runner, 1))
    b, r = statistics.median(bare_times), statistics.median(runner_times)
    # The median of per-pair ratios resists load drift better than a ratio of medians.
    ratio = statistics.median(x / y for x, y in zip(runner_times, bare_times, strict=True))
    print(
        f"overhead [{label}]: subprocess.run {b * 1000:6.2f} ms | run_hooks {r * 1000:6.2f} ms"
        f" | ratio {ratio:.2f} (target <= 1.20)"
    )
    return ratio


def main() -> int:
    ratios = [parallel()]
    ratios.append(overhead("sh -c true", "true", 400))
    guard = f"{sys.executable} {ROOT / 'examples' / 'hooks' / 'protect_env.py'}"
    ratios.append(overhead("example .env guard", guard, 30))
    ok = ratios[0] <= 1.3 and all(r <= 1.2 for r in ratios[1:])
    print("all targets met" if ok else "some target missed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
