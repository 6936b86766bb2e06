"""The oracle's process inside the sandbox: the fake model and Claude Code, side by side.

``python -m mcpmini.oracle.supervisor PLAN`` reads the plan (JSON written by
:mod:`.run`), starts :class:`~.fakeapi.FakeApi` on the sandbox's own loopback (the sandbox has
no network of its own, ``--unshare-net``), runs Claude Code with ``ANTHROPIC_BASE_URL`` pointed
at it through :func:`mcpmini.process.run` (one deadline, every descendant ended), and writes
what it saw to the plan's ``out`` file: how Claude Code ended, its exit code, stdout, stderr and
every request body the fake model received.

Rules of this module:

- It always writes ``out`` (also when Claude Code cannot start or hangs), and exits 0 when it
  did; exit 2 means the plan itself was unreadable.
- It never reads the caller's environment for Claude Code: the plan's ``env`` is the whole
  environment Claude Code gets (plus ``ANTHROPIC_BASE_URL``).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..process import run
from .fakeapi import FakeApi, Script, ScriptedCall

__all__ = ["main", "supervise"]

OUTPUT_CAP = 4_000_000


def _script(data: Mapping[str, Any]) -> Script:
    calls = tuple(ScriptedCall(str(c["name"]), dict(c["input"])) for c in data.get("calls", ()))
    return Script(calls, str(data.get("final", "Done.")))


def supervise(plan: Mapping[str, Any]) -> dict[str, Any]:
    """Run one planned Claude Code session against the fake model; return what was seen.

    ``plan`` holds ``argv`` (Claude Code's command line), ``env``, ``cwd``, ``timeout``
    (seconds) and ``script`` (``calls`` of ``name`` / ``input``, and ``final``).
    """
    started = time.monotonic()
    with FakeApi(_script(plan.get("script", {}))) as api:
        env = {**plan.get("env", {}), "ANTHROPIC_BASE_URL": api.url}
        done = run(
            list(plan["argv"]),
            env=env,
            cwd=plan.get("cwd"),
            timeout=float(plan.get("timeout", 60)),
            cap=OUTPUT_CAP,
        )
        requests = list(api.requests)
    return {
        "ending": done.ending.value,
        "exit_code": done.exit_code,
        "start_error": done.start_error,
        "stdout": done.stdout.decode("utf-8", "replace"),
        "stderr": done.stderr.decode("utf-8", "replace"),
        "leftovers": done.leftovers,
        "elapsed": time.monotonic() - started,
        "requests": requests,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Read the plan named by ``argv[0]``, supervise it, write ``plan["out"]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        plan = json.loads(Path(args[0]).read_text(encoding="utf-8"))
        out = Path(plan["out"])
    except (IndexError, OSError, ValueError, KeyError, TypeError) as exc:
        print(f"oracle supervisor: unreadable plan: {exc}", file=sys.stderr)
        return 2
    seen = supervise(plan)
    out.write_text(json.dumps(seen), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
