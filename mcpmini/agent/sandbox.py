"""A sandboxed Python runner: one subprocess with wall-clock, CPU, memory and output limits.

:func:`run_python` starts ``python -I -c <code>`` in the workspace folder, in a new
session (so the whole process group can be killed), with ``RLIMIT_CPU`` and
``RLIMIT_AS`` set by a tiny launcher that then ``exec``s the program. Both pipes are read with
``select`` in one loop until the program ends, the wall-clock deadline passes or the
output cap is reached; whatever happens, the process group is sent ``SIGKILL`` at the
end and reaped, so nothing is left running. When the OS allows unprivileged user
namespaces, the program runs under ``unshare --user --net`` and has no network at all
(only a loopback interface that is down); elsewhere it runs with the network of the
caller and :attr:`SandboxResult.network_isolated` says so. POSIX only.
"""

from __future__ import annotations

import enum
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = [
    "Limits",
    "SandboxOutcome",
    "SandboxResult",
    "network_isolation_available",
    "run_python",
]


@dataclass(frozen=True)
class Limits:
    """Limits of one sandboxed run.

    ``wall_seconds`` bounds real time, ``cpu_seconds`` CPU time (``RLIMIT_CPU``),
    ``memory_mb`` the address space (``RLIMIT_AS``), ``output_bytes`` the bytes kept
    from stdout and stderr together (the program is stopped once it writes more).
    """

    wall_seconds: float = 5.0
    cpu_seconds: int = 2
    memory_mb: int = 256
    output_bytes: int = 64_000


class SandboxOutcome(enum.Enum):
    """How a sandboxed run ended."""

    OK = "ok"                      # exit code 0
    ERROR = "error"                # non-zero exit code (an exception, sys.exit(n))
    MEMORY = "memory"              # MemoryError under RLIMIT_AS
    CPU_LIMIT = "cpu_limit"        # killed by the kernel at RLIMIT_CPU
    TIMEOUT = "timeout"            # wall-clock deadline passed; we killed it
    OUTPUT_LIMIT = "output_limit"  # wrote more than output_bytes; we killed it


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

    @property
    def ok(self) -> bool:
        """True when the program exited with code 0 within every limit."""
        return self.outcome is SandboxOutcome.OK

    def as_text(self) -> str:
        """The text a model sees: outcome line, then stdout and stderr."""
        head = f"[{self.outcome.value}] exit code {self.exit_code}"
        parts = [head]
        if self.stdout:
            parts.append(self.stdout.rstrip("\n"))
        if self.stderr:
            parts.append("stderr:\n" + self.stderr.rstrip("\n"))
        return "\n".join(parts)


@lru_cache(maxsize=1)
def network_isolation_available() -> bool:
    """True when ``unshare --user --net`` works here (checked once by running ``true``)."""
    exe = shutil.which("unshare")
    if exe is None or not sys.platform.startswith("linux"):
        return False
    try:
        done = subprocess.run([exe, "--user", "--map-root-user", "--net", "true"],
                              capture_output=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


# The child sets its own limits, then replaces itself with the real program: rlimits
# survive exec, and no Python code has to run between fork and exec in *this* process
# (``preexec_fn`` is unsafe when threads exist, as in a Jupyter kernel).
_BOOT = """
import os, resource, sys
cpu, mem = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
os.execv(sys.executable, [sys.executable, "-I", "-c", sys.argv[3]])
"""


def run_python(
    code: str,
    workspace: str | os.PathLike[str],
    limits: Limits | None = None,
    environ: Mapping[str, str] | None = None,
    isolate_network: bool = True,
) -> SandboxResult:
    """Run ``code`` with the current interpreter inside ``workspace`` under ``limits``
    (default :class:`Limits`).

    ``environ`` is the child's whole environment (default: only ``PATH`` and ``LANG``,
    so no secrets leak in). Returns a :class:`SandboxResult` for every program,
    including runaway ones; raises ``OSError`` only if the interpreter cannot start.
    """
    limits = limits or Limits()
    cwd = Path(workspace)
    isolated = isolate_network and network_isolation_available()
    argv = [sys.executable, "-I", "-c", _BOOT, str(limits.cpu_seconds),
            str(limits.memory_mb * 1024 * 1024), code]
    if isolated:
        argv = [shutil.which("unshare") or "unshare", "--user", "--map-root-user", "--net", *argv]
    env = dict(environ) if environ is not None else {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8"}
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True,
    )
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()  # type: ignore[union-attr]
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    open_fds = set(chunks)
    kept = 0
    stopped: SandboxOutcome | None = None
    deadline = start + limits.wall_seconds
    try:
        while open_fds:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                stopped = SandboxOutcome.TIMEOUT
                break
            ready, _, _ = select.select(list(open_fds), [], [], remaining)
            for fd in ready:
                data = os.read(fd, 65536)
                if not data:
                    open_fds.discard(fd)
                    continue
                room = limits.output_bytes - kept
                chunks[fd].append(data[:room])
                kept += min(len(data), room)
                if len(data) > room:
                    stopped = SandboxOutcome.OUTPUT_LIMIT
            if stopped is not None:
                break
        if stopped is None:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                stopped = SandboxOutcome.TIMEOUT
    finally:
        # The program may have started children of its own: kill the whole group.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
    elapsed = time.monotonic() - start
    out = b"".join(chunks[out_fd]).decode("utf-8", "replace")
    err = b"".join(chunks[err_fd]).decode("utf-8", "replace")
    code_ = proc.returncode
    if stopped is not None:
        outcome = stopped
    elif code_ == 0:
        outcome = SandboxOutcome.OK
    elif code_ in (-signal.SIGXCPU, -signal.SIGKILL) and elapsed < limits.wall_seconds:
        outcome = SandboxOutcome.CPU_LIMIT
    elif "MemoryError" in err:
        outcome = SandboxOutcome.MEMORY
    else:
        outcome = SandboxOutcome.ERROR
    return SandboxResult(outcome, code_ if stopped is None else None, out, err, elapsed,
                         proc.pid, isolated)
