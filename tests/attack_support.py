"""Shared helpers of the attack tests: a real component or a reasoned skip, file snapshots,
and a check that nothing a test started is still running — and only what it started.

A leftover check must not see processes other fixtures own (a session-wide JupyterLab, its
kernels, a server another module keeps): :class:`Owned` marks what one test or module starts
and waits, bounded, for exactly those to be gone, so the machine's load and the other tests
of the worker cannot decide the result."""

from __future__ import annotations

import hashlib
import os
import secrets
import time
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


#: The environment variable every process started inside an :class:`Owned` scope inherits.
OWNER = "MCPMINI_TEST_OWNER"


def _marked(pid: int, token: str) -> bool:
    """Whether process ``pid`` inherited the mark ``token`` (scopes nest: a list)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            entries = fh.read().split(b"\0")
    except OSError:  # gone, or another user's
        return False
    prefix = f"{OWNER}=".encode()
    for entry in entries:
        if entry.startswith(prefix):
            return token.encode() in entry[len(prefix) :].split(b",")
    return False


class Owned:
    """What one test or module starts, and nothing else.

    While the scope is open, ``$MCPMINI_TEST_OWNER`` names it, so every process started from
    this process inherits the mark, whatever group or session it moves to. A leftover is a
    live process that carries the mark, or a new descendant of this process that is not
    under a process that was already running when the scope opened (a kernel a session-wide
    JupyterLab starts meanwhile is the lab's, not this scope's). Use as a context manager.
    """

    def __init__(self) -> None:
        self.token = secrets.token_hex(8)
        self.before = descendants()
        self._saved = os.environ.get(OWNER)
        os.environ[OWNER] = f"{self._saved},{self.token}" if self._saved else self.token

    def leftovers(self) -> list[int]:
        """The live processes this scope started that are still running."""
        me = psutil.Process()
        found = set()
        for child in me.children(recursive=True):
            try:
                if child.pid in self.before or child.status() == psutil.STATUS_ZOMBIE:
                    continue
                ancestry = {p.pid for p in child.parents()}
            except psutil.Error:  # it ended meanwhile
                continue
            if not ancestry & self.before:
                found.add(child.pid)
        for pid in psutil.pids():
            if pid not in found and pid != me.pid and _marked(pid, self.token):
                try:
                    if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                        found.add(pid)
                except psutil.Error:
                    continue
        return sorted(found)

    def wait_gone(self, timeout: float = 60.0) -> list[int]:
        """Wait (bounded: a condition, not a fixed time) until nothing this scope started is
        running; return what still is (empty: all gone)."""
        until = time.monotonic() + timeout
        while True:
            left = self.leftovers()
            if not left or time.monotonic() >= until:
                return [p for p in left if _alive(p)]
            time.sleep(0.05)

    def close(self) -> None:
        """End the scope: later processes are not marked."""
        if self._saved is None:
            os.environ.pop(OWNER, None)
        else:
            os.environ[OWNER] = self._saved

    def __enter__(self) -> Owned:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
