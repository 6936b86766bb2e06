"""Shared helpers of the attack tests: a real component or a reasoned skip, file snapshots,
and a check that nothing an attack started is still running."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import psutil
import pytest

from mcpmini.agent import bubblewrap_available


def require_bubblewrap() -> None:
    """Skip without bubblewrap — except under ``CI=true``, where a missing component fails."""
    if bubblewrap_available():
        return
    reason = "bubblewrap (bwrap) is not installed or cannot create namespaces here"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def snapshot(*roots: Path) -> dict[str, str]:
    """Every file under ``roots`` with a hash of its bytes."""
    files = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                files[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def running_with(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line mentions ``marker``."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if any(marker in part for part in proc.info["cmdline"] or []):
            found.append(proc.pid)
    return found


def descendants() -> set[int]:
    """The pids of this process's live descendants (a zombie has already ended)."""
    alive = set()
    for p in psutil.Process().children(recursive=True):
        try:
            if p.status() != psutil.STATUS_ZOMBIE:
                alive.add(p.pid)
        except psutil.Error:  # it ended between the listing and the look
            pass
    return alive
