"""The sandboxed Python runner: bubblewrap namespaces, wall-clock, CPU, memory and output limits.

:func:`run_python` runs ``python -I -c <code>`` in the workspace folder through
:func:`mcpmini.process.run` (one deadline, capped output, everything it started ended at
the end). A tiny launcher sets ``RLIMIT_CPU`` and ``RLIMIT_AS`` and then ``exec``s the
program, so the limits hold inside any confinement.

Where bubblewrap (``bwrap``, the mechanism Claude Code's own sandbox uses on Linux) works,
:func:`confine` wraps the command in new user, PID, network, IPC, UTS and mount
namespaces: the system is mounted read-only, only the workspace is writable, ``/tmp`` and
the home folder are private and empty, files under ``/etc`` that not everyone may read
are hidden, the process cannot gain privileges, and ``--die-with-parent`` plus the PID
namespace mean that nothing started inside outlives the run (a ``setsid`` daemon dies
with it). The result says ``isolated=True``.

Where bubblewrap is missing or cannot create namespaces, the program runs with the limits
only (and without network where ``unshare --user --net`` works); the result says
``isolated=False``, a :class:`SandboxWarning` is issued and the text the model sees starts
with a warning line — the runner never claims an isolation it does not have. POSIX only.
"""

from __future__ import annotations

import enum
import os
import shutil
import signal
import stat
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .. import process
from . import cgroup

__all__ = [
    "Limits",
    "SandboxOutcome",
    "SandboxResult",
    "SandboxWarning",
    "bubblewrap_available",
    "confine",
    "network_isolation_available",
    "run_python",
]

NOT_ISOLATED = (
    "warning: bubblewrap is not available here, so this program ran WITHOUT "
    "isolation (only time, CPU, memory and output limits)"
)


class SandboxWarning(UserWarning):
    """Issued when a program runs without the isolation bubblewrap gives."""


@dataclass(frozen=True)
class Limits:
    """Limits of one sandboxed run.

    ``wall_seconds`` bounds real time, ``cpu_seconds`` CPU time (``RLIMIT_CPU``),
    ``memory_mb`` memory (each process's address space, ``RLIMIT_AS``, and — where a cgroup
    can be made — everything the sandbox's processes use together, its ``/tmp`` included),
    ``output_bytes`` the bytes kept from stdout and stderr together (the program is stopped
    once it writes more), ``max_processes`` the processes and threads alive at once,
    ``tmp_mb`` the size of the private ``/tmp`` and ``workspace_mb`` what the workspace folder
    may grow to (no single file larger, ``RLIMIT_FSIZE``; the whole folder checked every
    ``0.1`` s, so it can overshoot by what is written in that time).
    """

    wall_seconds: float = 5.0
    cpu_seconds: int = 2
    memory_mb: int = 256
    output_bytes: int = 64_000
    max_processes: int = 32
    tmp_mb: int = 32
    workspace_mb: int = 64


class SandboxOutcome(enum.Enum):
    """How a sandboxed run ended."""

    OK = "ok"  # exit code 0
    ERROR = "error"  # non-zero exit code (an exception, sys.exit(n))
    MEMORY = "memory"  # MemoryError under RLIMIT_AS
    CPU_LIMIT = "cpu_limit"  # killed by the kernel at RLIMIT_CPU
    TIMEOUT = "timeout"  # wall-clock deadline passed; we killed it
    OUTPUT_LIMIT = "output_limit"  # wrote more than output_bytes; we killed it
    PROCESS_LIMIT = "process_limit"  # tried to run more than max_processes; we ended it
    WORKSPACE_LIMIT = "workspace_limit"  # the workspace grew past workspace_mb; we ended it
    TMP_LIMIT = "tmp_limit"  # its private /tmp (tmp_mb) was full


@dataclass(frozen=True)
class SandboxResult:
    """The outcome of :func:`run_python`: what ran, how it ended and what it printed."""

    outcome: SandboxOutcome
    exit_code: int | None
    stdout: str
    stderr: str
    elapsed: float
    pid: int
    network_isolated: bool
    isolated: bool = False  # bubblewrap namespaces (see the module doc)
    enforcement: str = ""  # how memory and process count were limited (cgroup or rlimits)

    @property
    def ok(self) -> bool:
        """True when the program exited with code 0 within every limit."""
        return self.outcome is SandboxOutcome.OK

    def as_text(self) -> str:
        """The text a model sees: outcome line, then stdout and stderr."""
        head = f"[{self.outcome.value}] exit code {self.exit_code}"
        parts = [head] if self.isolated else [NOT_ISOLATED, head]
        if self.stdout:
            parts.append(self.stdout.rstrip("\n"))
        if self.stderr:
            parts.append("stderr:\n" + self.stderr.rstrip("\n"))
        return "\n".join(parts)


@lru_cache(maxsize=1)
def network_isolation_available() -> bool:
    """True when a network namespace is available here: bubblewrap works, or
    ``unshare --user --net`` does (checked once)."""
    if bubblewrap_available():
        return True
    exe = shutil.which("unshare")
    if exe is None or not sys.platform.startswith("linux"):
        return False
    done = process.run([exe, "--user", "--map-root-user", "--net", "true"], timeout=5)
    return done.exit_code == 0


@lru_cache(maxsize=1)
def _bwrap() -> str | None:
    exe = shutil.which("bwrap")
    if exe is None or not sys.platform.startswith("linux"):
        return None
    probe = confine(["true"], Path("/"), bwrap=exe, writable=False)
    done = process.run(probe, timeout=10)
    return exe if done.exit_code == 0 else None


def bubblewrap_available() -> bool:
    """True when ``bwrap`` is installed and can create the sandbox's namespaces here
    (checked once, by running ``true`` in it)."""
    return _bwrap() is not None


@lru_cache(maxsize=1)
def _hidden_in_etc() -> tuple[tuple[str, bool], ...]:
    """Entries under ``/etc`` that not every user may read (``/etc/shadow``, ``sudoers``…),
    as ``(path, is_dir)``: inside the sandbox the program owns what root owns outside, so
    these are covered up rather than trusted to their mode."""
    hidden: list[tuple[str, bool]] = []
    for root, dirs, files in os.walk("/etc"):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISLNK(info.st_mode):
                continue
            is_dir = stat.S_ISDIR(info.st_mode)
            if not info.st_mode & (stat.S_IROTH | (stat.S_IXOTH if is_dir else 0)):
                hidden.append((path, is_dir))
                if is_dir:
                    dirs.remove(name) if name in dirs else None
    return tuple(hidden)


_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
HOME = "/home/sandbox"


def confine(
    argv: Sequence[str],
    workspace: str | os.PathLike[str],
    *,
    read_only: Sequence[str | os.PathLike[str]] = (),
    writable: bool = True,
    bwrap: str | None = None,
    tmp_bytes: int | None = None,
) -> list[str]:
    """The ``bwrap`` command that runs ``argv`` confined (see the module doc).

    ``workspace`` is bound at its own path (writable unless ``writable=False``) and is the
    working directory; ``read_only`` are extra paths bound read-only at their own path
    (the interpreter's prefix is always bound); ``tmp_bytes`` sizes the private ``/tmp``.
    Returns the argv only; it runs nothing.
    """
    exe = bwrap or _bwrap() or "bwrap"
    ws = os.fspath(Path(workspace).resolve())
    cmd = [
        exe,
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--uid",
        "65534",
        "--gid",
        "65534",
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    for path in _SYSTEM:
        if os.path.isdir(path) and not os.path.islink(path):
            cmd += ["--ro-bind", path, path]
        elif os.path.islink(path):
            cmd += ["--symlink", os.readlink(path), path]
    for path, is_dir in _hidden_in_etc():
        cmd += ["--tmpfs", path] if is_dir else ["--ro-bind", "/dev/null", path]
    cmd += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        *(["--size", str(tmp_bytes)] if tmp_bytes else []),
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        "/home",
        "--tmpfs",
        "/root",
        "--tmpfs",
        "/run",
        "--tmpfs",
        "/var",
        "--dir",
        HOME,
    ]
    extra = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, *read_only)}
    for path in sorted(extra):
        if not any(path == s or path.startswith(s + "/") for s in _SYSTEM) and os.path.exists(path):
            cmd += ["--ro-bind", path, path]
    if ws != "/":
        cmd += ["--bind" if writable else "--ro-bind", ws, ws]
    cmd += ["--chdir", ws, "--", *argv]
    return cmd


# The child sets its own limits, then replaces itself with the real program: rlimits
# survive exec, and no Python code has to run between fork and exec in *this* process
# (``preexec_fn`` is unsafe when threads exist, as in a Jupyter kernel).
# RLIMIT_NPROC counts the caller's whole user and does not bind root: it is the fallback where
# no cgroup can be made (a non-root laptop), not the limit CI relies on.
_BOOT = """
import os, resource, sys
cpu, mem, nproc, fsize = (int(v) for v in sys.argv[1:5])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
if nproc:
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
os.execv(sys.executable, [sys.executable, "-I", "-c", sys.argv[5]])
"""
RLIMITS_ONLY = "rlimits (memory per process; process count per user, not binding root)"


def _disk_usage(folder: Path) -> int:
    """Bytes the files under ``folder`` occupy on disk (allocated blocks: sparse files count
    what they use). Unreadable entries are skipped."""
    total = 0
    stack = [os.fspath(folder)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                stack.append(entry.path)
            else:
                total += info.st_blocks * 512
    return total


def run_python(
    code: str,
    workspace: str | os.PathLike[str],
    limits: Limits | None = None,
    environ: Mapping[str, str] | None = None,
    isolate_network: bool = True,
    *,
    isolate: bool = True,
    require_isolation: bool = False,
) -> SandboxResult:
    """Run ``code`` with the current interpreter inside ``workspace`` under ``limits``
    (default :class:`Limits`), in the bubblewrap sandbox when ``isolate`` and it works here.

    ``environ`` is the child's whole environment (default: only ``PATH``, ``LANG`` and a
    private ``HOME``, so no secrets leak in). Without bubblewrap the program runs with the
    limits only and a :class:`SandboxWarning` is issued — or, with ``require_isolation``,
    ``RuntimeError`` is raised and nothing runs. Memory and the process count hold over the
    whole sandbox where a cgroup can be made here (:mod:`.cgroup`), else per process
    (:attr:`SandboxResult.enforcement` says which). Returns a :class:`SandboxResult` for every
    program, including runaway ones.
    """
    limits = limits or Limits()
    cwd = Path(workspace)
    isolated = isolate and bubblewrap_available()
    if require_isolation and not isolated:
        raise RuntimeError("isolation was required but bubblewrap is not available here")
    group = cgroup.create(limits.memory_mb * 1024 * 1024, limits.max_processes)
    try:
        argv, net = _command(code, cwd, limits, isolated, isolate_network, group)
        if not isolated:
            warnings.warn(NOT_ISOLATED, SandboxWarning, stacklevel=2)
        env = (
            dict(environ)
            if environ is not None
            else {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "LANG": "C.UTF-8",
                "PYTHONIOENCODING": "utf-8",
                "HOME": HOME if isolated else os.fspath(cwd.resolve()),
            }
        )
        workspace_cap = limits.workspace_mb * 1024 * 1024

        def watch() -> str | None:
            if group is not None and group.memory_killed():
                return "memory"
            if group is not None and group.processes_refused():
                return "processes"
            return "workspace" if _disk_usage(cwd) > workspace_cap else None

        done = process.run(
            argv,
            env=env,
            cwd=cwd,
            timeout=limits.wall_seconds,
            total_cap=limits.output_bytes,
            stop_at_cap=True,
            grace=0.0,
            after_exit=0.5,
            watch=watch,
        )
        if done.start_error is not None:
            raise OSError(f"cannot start the sandbox: {done.start_error}")
        memory_killed = group is not None and group.memory_killed()
        refused = group is not None and group.processes_refused()
    finally:
        if group is not None:
            group.remove()
    out = done.stdout.decode("utf-8", "replace")
    err = done.stderr.decode("utf-8", "replace")
    code_ = done.exit_code
    if isolated and code_ is not None and code_ > 128:
        code_ = -(code_ - 128)  # bwrap reports a child killed by signal N as 128 + N
    outcome = _outcome(done, code_, err, limits, memory_killed=memory_killed, refused=refused)
    enforcement = group.mechanism if group is not None else RLIMITS_ONLY
    return SandboxResult(
        outcome, code_, out, err, done.elapsed, done.pid, net, isolated, enforcement
    )


def _command(
    code: str,
    cwd: Path,
    limits: Limits,
    isolated: bool,
    isolate_network: bool,
    group: cgroup.RunGroup | None,
) -> tuple[list[str], bool]:
    """The argv of one run (launcher, confinement, boot script) and whether it has no network."""
    inner = [
        sys.executable,
        "-I",
        "-c",
        _BOOT,
        str(limits.cpu_seconds),
        str(limits.memory_mb * 1024 * 1024),
        "0" if group is not None else str(limits.max_processes),
        str(limits.workspace_mb * 1024 * 1024),
        code,
    ]
    if isolated:
        argv, net = confine(inner, cwd, tmp_bytes=limits.tmp_mb * 1024 * 1024), True
    elif isolate_network and network_isolation_available():
        argv, net = (
            [shutil.which("unshare") or "unshare", "--user", "--map-root-user", "--net", *inner],
            True,
        )
    else:
        argv, net = inner, False
    return ([*group.launcher(), *argv] if group is not None else argv), net


# The first matching row names the outcome: limits the runner saw first, then the exit.
_NO_SPACE = "[Errno 28]"  # ENOSPC: only the sized /tmp can be full (the workspace is watched)
_TOO_LARGE = "[Errno 27]"  # EFBIG: one file reached RLIMIT_FSIZE, the workspace cap


def _outcome(
    done: process.Completed,
    code: int | None,
    err: str,
    limits: Limits,
    *,
    memory_killed: bool,
    refused: bool,
) -> SandboxOutcome:
    by_limit = {
        "processes": SandboxOutcome.PROCESS_LIMIT,
        "workspace": SandboxOutcome.WORKSPACE_LIMIT,
    }
    if done.ending is process.Ending.LIMIT and done.limit in by_limit:
        return by_limit[done.limit]
    if done.ending is process.Ending.TIMEOUT:
        return SandboxOutcome.TIMEOUT
    if done.ending is process.Ending.OUTPUT_LIMIT:
        return SandboxOutcome.OUTPUT_LIMIT
    if code == 0:
        return SandboxOutcome.OK
    if memory_killed or "MemoryError" in err:
        return SandboxOutcome.MEMORY
    if refused:
        return SandboxOutcome.PROCESS_LIMIT
    if code in (-signal.SIGXCPU, -signal.SIGKILL) and done.elapsed < limits.wall_seconds:
        return SandboxOutcome.CPU_LIMIT
    if _NO_SPACE in err:
        return SandboxOutcome.TMP_LIMIT
    if _TOO_LARGE in err:
        return SandboxOutcome.WORKSPACE_LIMIT
    return SandboxOutcome.ERROR
