"""Whether the pinned Claude Code can run live here: installed, the pinned version, and
bubblewrap able to start a user namespace (``live_reason``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from ....oracle import PIN, ClaudeCodeMissing, binary_version, find_claude

__all__ = ["live_reason"]


def _bwrap_works() -> str | None:
    """``None`` when bubblewrap can start a user namespace as uid 1000, else why not."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    argv = [bwrap, "--unshare-user", "--uid", "1000", "--ro-bind", "/", "/", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not start ({exc})"
    return None if done.returncode == 0 else "bubblewrap refuses a user namespace here"


@cache
def _live(environ_key: tuple[tuple[str, str], ...]) -> tuple[Path | None, str]:
    environ = dict(environ_key)
    missing = "Claude Code is not installed here (`make claude-code` installs it)"
    binary = find_claude(environ)
    if binary is None:
        return None, missing
    try:
        version = binary_version(binary)
    except ClaudeCodeMissing:
        return None, missing
    if version != PIN:
        return None, f"the Claude Code found is {version}, not the pinned {PIN}"
    reason = _bwrap_works()
    return (None, reason) if reason else (binary, "")


def live_reason(environ: Mapping[str, str] | None = None) -> tuple[Path | None, str]:
    """The pinned Claude Code to run live and ``""``, or ``None`` and the reason it cannot
    run here (not installed, another version, bubblewrap missing or refused)."""
    env = os.environ if environ is None else environ
    keys = ("MCPMINI_CLAUDE_CODE", "PATH", "MCPMINI_COURSE_RECORDED")
    if env.get("MCPMINI_COURSE_RECORDED"):
        return None, "MCPMINI_COURSE_RECORDED is set"
    return _live(tuple((k, env[k]) for k in keys if k in env))
