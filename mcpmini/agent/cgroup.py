"""A control group for one sandboxed run: memory and process count over the whole sandbox.

Rules of this module:

- A :class:`RunGroup` is made for one run and removed after it; the program is placed in it
  by a launcher (``sh -c 'echo $$ > cgroup.procs; exec "$@"'``) *before* it execs anything, so
  no child can be forked outside it.
- cgroup v2 is used where this process may create a child group whose parent delegates the
  ``memory`` and ``pids`` controllers; cgroup v1 where the ``memory`` and ``pids`` hierarchies
  are writable (root on a v1 host, as on this project's CI); otherwise :func:`create` returns
  ``None`` and the caller falls back to per-process rlimits (and says so).
- Memory counts every page the group's processes use, tmpfs pages they write included (the
  sandbox's ``/tmp``); the process count counts every task.
- What was hit is read from the kernel's own counters (``oom_kill``, ``pids`` ``max`` events),
  never guessed from the program's output.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RunGroup", "create"]

ROOT = Path("/sys/fs/cgroup")


def _own_path(controller: str) -> str:
    """This process's cgroup path in ``controller``'s hierarchy ("" for v2's unified one)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return "/"
    for line in lines:
        _, names, path = line.split(":", 2)
        if names.split(",").count(controller) or (controller == "" and names == ""):
            return path
    return "/"


def _counter(path: Path, key: str) -> int:
    """The value of ``key`` in a flat-keyed cgroup file (0 when absent or unreadable)."""
    with contextlib.suppress(OSError, ValueError):
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    return 0


@dataclass
class RunGroup:
    """The cgroup(s) of one run. ``folders`` maps each controller (``memory``, ``pids``) to
    its group directory (the same one under v2's unified hierarchy); ``version`` is 1 or 2."""

    version: int
    folders: dict[str, Path]

    @property
    def mechanism(self) -> str:
        """How the limits hold, for the report."""
        return f"cgroup v{self.version} (memory and process count over the whole sandbox)"

    def launcher(self) -> list[str]:
        """An argv prefix that joins the group, then execs the rest of the command line."""
        unique = dict.fromkeys(self.folders.values())
        joins = " && ".join(f"echo $$ > {folder}/cgroup.procs" for folder in unique)
        return ["/bin/sh", "-c", f'{joins} && exec "$@"', "sh"]

    def memory_killed(self) -> bool:
        """True when the kernel killed a process of the group for memory."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        return _counter(self.folders["memory"] / name, "oom_kill") > 0

    def processes_refused(self) -> bool:
        """True when a fork was refused because the group was at its process limit."""
        return _counter(self.folders["pids"] / "pids.events", "max") > 0

    def remove(self) -> None:
        """Kill whatever is left in the group and remove it (bounded; never raises)."""
        for folder in dict.fromkeys(self.folders.values()):
            deadline = time.monotonic() + 2.0
            while folder.exists() and time.monotonic() < deadline:
                with contextlib.suppress(OSError, ValueError):
                    for pid in (folder / "cgroup.procs").read_text().split():
                        with contextlib.suppress(OSError):
                            os.kill(int(pid), signal.SIGKILL)
                try:
                    folder.rmdir()
                except OSError:
                    time.sleep(0.01)


def _v2(memory_bytes: int, max_processes: int) -> RunGroup | None:
    if not (ROOT / "cgroup.controllers").exists():
        return None
    parent = ROOT / _own_path("").lstrip("/")
    try:
        delegated = (parent / "cgroup.subtree_control").read_text().split()
    except OSError:
        return None
    if not {"memory", "pids"} <= set(delegated):
        return None
    folder = parent / f"mcpmini-{secrets.token_hex(6)}"
    try:
        folder.mkdir()
        (folder / "memory.max").write_text(str(memory_bytes))
        with contextlib.suppress(OSError):
            (folder / "memory.swap.max").write_text("0")
        (folder / "pids.max").write_text(str(max_processes))
    except OSError:
        RunGroup(2, {"memory": folder, "pids": folder}).remove()
        return None
    return RunGroup(2, {"memory": folder, "pids": folder})


def _v1(memory_bytes: int, max_processes: int) -> RunGroup | None:
    made: dict[str, Path] = {}
    name = f"mcpmini-{secrets.token_hex(6)}"
    try:
        for controller in ("memory", "pids"):
            base = ROOT / controller
            if not (base / "cgroup.procs").exists():
                return None
            parent = base / _own_path(controller).lstrip("/")
            folder = (parent if os.access(parent, os.W_OK) else base) / name
            folder.mkdir()
            made[controller] = folder
        memory, pids = made["memory"], made["pids"]
        (memory / "memory.limit_in_bytes").write_text(str(memory_bytes))
        with contextlib.suppress(OSError):  # only where swap accounting is on
            (memory / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
        (pids / "pids.max").write_text(str(max_processes))
    except OSError:
        RunGroup(1, made).remove()
        return None
    return RunGroup(1, made)


def create(memory_bytes: int, max_processes: int) -> RunGroup | None:
    """A fresh group limited to ``memory_bytes`` of memory and ``max_processes`` tasks, or
    ``None`` where this process may not create one (then nothing was created)."""
    return _v2(memory_bytes, max_processes) or _v1(memory_bytes, max_processes)
