"""The one subprocess runner: start, feed stdin, bounded reads, one deadline, kill, reap.

Every module that starts a process (the stdio transport, command hooks, skill
``!`cmd``` lines, the sandbox, the grader) goes through this module, so there is one kill
policy: when a run ends, times out or is closed, **everything it started** is ended —
the whole process group, plus any descendant that left the group (``setsid``, ``nohup``,
a double fork). Descendants are found by a marker variable placed in the child's
environment (``MCPMINI_PROCESS_RUN=<token>``), which every descendant inherits whatever
group or session it moves to; each gets ``SIGTERM``, then after ``grace`` seconds
``SIGKILL``, and the sweep is repeated until none is left. A program that deliberately
clears its own environment escapes the marker; ``Process(reaper=True)`` (every stdio MCP
server, and ``run(reaper=True)``: every command hook and skill command) closes that gap
with a sub-reaper launcher that every orphan is reparented to and that ends them all with
the program — only a descendant that SIGKILLs the launcher, its
own ancestor, still escapes. The sandbox runs programs in a PID namespace where nothing
outlives the run.

* :class:`Process` is a started process with non-blocking pipes: :meth:`Process.write`
  and :meth:`Process.read` take a deadline (``time.monotonic()`` value) that bounds the
  whole call, however the data trickles in.
* :func:`run` runs a command to the end: feeds ``stdin``, drains stdout and stderr through
  one selector loop, keeps at most ``cap`` bytes per stream (or ``total_cap`` for both),
  stops at one deadline and returns a :class:`Completed` — start errors, timeouts and
  exit codes are data, never exceptions.

This is a base module: it imports nothing from ``mcpmini`` but :mod:`mcpmini.errors`.
POSIX only.
"""

from __future__ import annotations

import math
import os
import secrets
import select
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "MARKER",
    "Completed",
    "Ending",
    "Process",
    "descendants",
    "end_all",
    "run",
]

#: The environment variable that tags every process a run started (value: a run token).
MARKER = "MCPMINI_PROCESS_RUN"
_CHUNK = 1 << 16

# The sub-reaper launcher (``Process(reaper=True)``): run as ``python -I -S -c _REAPER FD ARGV``.
# It marks itself PR_SET_CHILD_SUBREAPER, so every orphan of the program (a ``setsid`` daemon
# that also cleared the run marker, a double fork) is reparented to it instead of to init;
# it starts the program, reports an exec failure through FD (closed on exec: EOF means it
# started), and when the program exits — or the launcher is told to stop (TERM, INT, HUP) —
# it ends every process still under it (TERM, a grace, KILL, repeated) and exits with the
# program's own status (dying by the same signal when the program was killed).
_REAPER = r"""
import ctypes, os, signal, sys, time
fd, argv = int(sys.argv[1]), sys.argv[2:]
os.set_inheritable(fd, False)  # the program must not hold it: EOF means it was exec'd
try:
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
except Exception:
    pass
class Stop(Exception):
    pass
def stop(signum, frame):
    raise Stop()
STOPS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
for s in STOPS:
    signal.signal(s, stop)
pid = os.fork()
if pid == 0:
    for s in (*STOPS, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(s, signal.SIG_DFL)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(fd, str(exc.errno or 2).encode())
    os._exit(127)
os.close(fd)
null = os.open(os.devnull, os.O_RDWR)
for n in (0, 1, 2):
    os.dup2(null, n)
def under():
    found, todo = [], [os.getpid()]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children") as fh:
                    kids = [int(k) for k in fh.read().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found
def reap():
    global status
    while True:
        try:
            got, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if got == 0:
            return
        if got == pid:
            status = st
def sweep():
    for s in STOPS:
        signal.signal(s, signal.SIG_IGN)
    for sig in [signal.SIGTERM] + [signal.SIGKILL] * 20:
        reap()
        alive = under()
        if not alive:
            return
        for p in alive:
            try:
                os.kill(p, sig)
            except OSError:
                pass
        until = time.monotonic() + (0.3 if sig == signal.SIGTERM else 1.0)
        while time.monotonic() < until:
            reap()
            if not under():
                return
            time.sleep(0.005)
status = None
try:
    while status is None:
        got, st = os.waitpid(pid, 0)
        if got == pid:
            status = st
except (Stop, ChildProcessError):
    pass
sweep()
reap()
if status is None:
    os._exit(143)
if os.WIFSIGNALED(status):
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    except (OSError, ValueError):  # SIGKILL and SIGSTOP keep their default anyway
        pass
    os.kill(os.getpid(), os.WTERMSIG(status))
os._exit(os.waitstatus_to_exitcode(status))
"""


class Ending(StrEnum):
    """How :func:`run` ended."""

    EXITED = "exited"  # the program exited by itself (any exit code or signal)
    TIMEOUT = "timeout"  # the deadline passed; we ended it
    OUTPUT_LIMIT = "output_limit"  # it wrote past the cap with ``stop_at_cap``; we ended it
    LIMIT = "limit"  # the caller's ``watch`` named a limit it passed; we ended it
    START_ERROR = "start_error"  # it could not be started


@dataclass(frozen=True)
class Completed:
    """What :func:`run` saw.

    ``exit_code`` is the program's own status (negative: killed by that signal) when it
    exited by itself, else ``None``. ``stdout`` / ``stderr`` are the kept bytes;
    ``stdout_bytes`` / ``stderr_bytes`` count everything read, so ``truncated`` says
    whether anything was dropped. ``start_error`` says why it could not start.
    ``leftovers`` counts the descendants that were still running when it ended and had to
    be killed. ``limit`` is the reason the caller's ``watch`` gave (:attr:`Ending.LIMIT`).
    """

    argv: tuple[str, ...]
    ending: Ending
    exit_code: int | None
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    start_error: str | None = None
    pid: int = 0
    elapsed: float = 0.0
    leftovers: int = 0
    limit: str | None = None

    @property
    def timed_out(self) -> bool:
        """True when the deadline cut the program off."""
        return self.ending is Ending.TIMEOUT

    @property
    def truncated(self) -> bool:
        """True when some output was read and dropped (over the cap)."""
        return self.stdout_bytes > len(self.stdout) or self.stderr_bytes > len(self.stderr)


def _stat(pid: str) -> tuple[str, int] | None:
    """``(state, process group)`` of a process from ``/proc/<pid>/stat``, ``None`` if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[2])


def _last_pid() -> int | None:
    try:
        with open("/proc/sys/kernel/ns_last_pid", "rb") as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return None


def descendants(token: str, pgid: int | None = None, since: int | None = None) -> list[int]:
    """Pids of live (not zombie) processes whose environment carries ``MARKER=token``, or
    that belong to process group ``pgid`` (Linux ``/proc``).

    ``since`` is the pid of the run's first process: pids are handed out in increasing
    order, so only pids from ``since`` on are read — unless the counter wrapped around
    since then, in which case every process is.
    """
    needle = f"{MARKER}={token}".encode()
    found = []
    me = os.getpid()
    try:
        entries = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    if since is not None:
        last = _last_pid()
        if last is not None and last >= since:
            entries = [pid for pid in entries if pid >= since]
    for pid in entries:
        if pid == me:
            continue
        info = _stat(str(pid))
        if info is None or info[0] in ("Z", "X"):
            continue
        if info[1] == pgid:
            found.append(pid)
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                environ = fh.read()
        except OSError:
            continue
        if needle in environ:
            found.append(pid)
    return found


def _signal_all(pgid: int, pids: Sequence[int], sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _wait_gone(proc: subprocess.Popen[bytes], token: str, until: float) -> list[int]:
    """Poll (bounded by ``until``) until the group and the marked processes are gone;
    returns those still alive."""
    pause = 0.002
    while True:
        proc.poll()  # reap the leader
        left = descendants(token, proc.pid, proc.pid)
        if not left or time.monotonic() >= until:
            return left
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def end_all(proc: subprocess.Popen[bytes], token: str, grace: float) -> int:
    """End ``proc``'s group and every marked descendant: TERM, ``grace`` s, KILL; reap.

    Returns how many processes other than ``proc`` were still running. Never raises.
    """
    proc.poll()
    left = descendants(token, proc.pid, proc.pid)
    count = len([p for p in left if p != proc.pid])
    if left and grace > 0:
        _signal_all(proc.pid, left, signal.SIGTERM)
        left = _wait_gone(proc, token, time.monotonic() + grace)
    for _ in range(50):  # a process that forks while we kill is caught on the next pass
        if not left:
            break
        _signal_all(proc.pid, left, signal.SIGKILL)
        left = _wait_gone(proc, token, time.monotonic() + 1.0)
    try:
        proc.wait(5.0)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
        pass
    return count


def _only_child(pid: int) -> int | None:
    """The first child of ``pid`` (Linux ``/proc``), ``None`` when it has none or it is gone."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
            children = fh.read().split()
    except OSError:
        return None
    return int(children[0]) if children else None


class Process:
    """A started process in its own process group, with non-blocking pipes.

    ``stdin`` / ``stdout`` / ``stderr`` say which streams are pipes (the others are
    ``/dev/null``). Raises ``OSError`` when the command cannot be started. Always
    :meth:`close` it (or use it as a context manager): that ends everything it started.
    With ``reaper`` the program runs under a small sub-reaper launcher (see ``_REAPER``), so
    even a descendant that cleared the run marker and left the session is ended with it;
    :attr:`pid` is then the launcher's, its exit status the program's.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stdin: bool = True,
        stdout: bool = True,
        stderr: bool = True,
        new_session: bool = False,
        pass_fds: Sequence[int] = (),
        reaper: bool = False,
    ) -> None:
        self.argv = tuple(argv)
        self.token = secrets.token_hex(8)
        environ = dict(os.environ if env is None else env)
        environ[MARKER] = self.token
        pipe, null = subprocess.PIPE, subprocess.DEVNULL
        options: dict[str, Any] = (
            {"start_new_session": True} if new_session else {"process_group": 0}
        )
        status_r = status_w = -1
        command = list(argv)
        if reaper and sys.executable and argv:
            status_r, status_w = os.pipe()
            command = [sys.executable, "-I", "-S", "-c", _REAPER, str(status_w), *argv]
            pass_fds = (*pass_fds, status_w)
        try:
            self.popen = subprocess.Popen(
                command,
                stdin=pipe if stdin else null,
                stdout=pipe if stdout else null,
                stderr=pipe if stderr else null,
                env=environ,
                cwd=cwd,
                bufsize=0,
                pass_fds=tuple(pass_fds),
                **options,
            )
        finally:
            if status_w >= 0:
                os.close(status_w)
        #: the program's own pid: the launcher's child under ``reaper`` (signals meant for the
        #: program go there: a SIGKILL to the launcher would orphan the program)
        self.program_pid = self.popen.pid
        if status_r >= 0:
            self._started_or_raise(status_r)
            self.program_pid = _only_child(self.popen.pid) or self.popen.pid
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            if stream is not None:
                os.set_blocking(stream.fileno(), False)
        self.started = time.monotonic()
        self.leftovers = 0
        self._lock = threading.Lock()
        self._pollers: dict[int, select.poll] = {}
        self._ended = False

    def _started_or_raise(self, status_r: int) -> None:
        """Read the launcher's report: EOF once the program was exec'd, else its errno, which
        is raised as the ``OSError`` ``Popen`` would have raised (after reaping the launcher)."""
        report = b""
        try:
            while chunk := os.read(status_r, 64):
                report += chunk
        finally:
            os.close(status_r)
        if report:
            self.popen.wait()
            for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
                if stream is not None:
                    stream.close()
            code = int(report or b"2")
            raise OSError(code, os.strerror(code), self.argv[0])

    @property
    def pid(self) -> int:
        """The process id (also its process group id)."""
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once it has exited (negative: the signal), else ``None``."""
        return self.popen.poll()

    def write(self, data: bytes, deadline: float | None) -> int:
        """Write ``data`` to stdin until all is written or ``deadline`` passes (``None``: no
        limit); returns the bytes written — fewer than ``len(data)`` means the program did
        not read in time. Raises ``BrokenPipeError`` when it closed its stdin or exited."""
        stream = self.popen.stdin
        if stream is None:
            raise BrokenPipeError("stdin is not a pipe")
        fd = stream.fileno()
        view = memoryview(data)
        written = 0
        poller: select.poll | None = None
        while written < len(view):
            try:
                written += os.write(fd, view[written : written + _CHUNK])
                continue
            except BlockingIOError:
                pass
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                break
            if poller is None:
                poller = select.poll()
                poller.register(fd, select.POLLOUT)
            poller.poll(None if wait is None else max(1, math.ceil(wait * 1000)))
        return written

    def close_stdin(self) -> None:
        """Close stdin (the program then reads EOF). Never raises."""
        if self.popen.stdin is not None:
            try:
                self.popen.stdin.close()
            except OSError:
                pass

    def read(self, deadline: float | None, stream: str = "stdout", size: int = _CHUNK) -> bytes:
        """The next bytes (at most ``size``) of ``stream``; ``b""`` at end of stream.

        Raises ``TimeoutError`` when nothing arrives before ``deadline`` (``None``: wait
        for ever). The deadline is absolute, so a caller looping over partial data keeps
        one deadline for the whole message.
        """
        pipe = self.popen.stdout if stream == "stdout" else self.popen.stderr
        if pipe is None:
            return b""
        fd = pipe.fileno()
        poller = self._pollers.get(fd)
        if poller is None:
            poller = self._pollers[fd] = select.poll()
            poller.register(fd, select.POLLIN)
        while True:
            wait = None if deadline is None else deadline - time.monotonic()
            if poller.poll(None if wait is None else max(0, math.ceil(wait * 1000))):
                try:
                    return os.read(fd, size)
                except BlockingIOError:
                    continue
            if wait is not None and wait <= 0:
                raise TimeoutError("no output before the deadline")

    def wait(self, deadline: float | None) -> int | None:
        """Wait until the program exits or ``deadline`` passes; its status or ``None``."""
        try:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            return self.popen.wait(wait)
        except subprocess.TimeoutExpired:
            return None

    def terminate(self, grace: float = 0.5) -> int | None:
        """End the program and everything it started (TERM, ``grace`` s, KILL) and reap
        it; the pipes stay open so the last output can still be read. Returns the exit
        status. Safe to call twice; never raises."""
        with self._lock:
            if not self._ended:
                self._ended = True
                self.leftovers = end_all(self.popen, self.token, grace)
        return self.popen.returncode

    def close(self, grace: float = 0.5) -> int | None:
        """:meth:`terminate`, then close the pipes. Returns the exit status; never raises."""
        code = self.terminate(grace)
        for s in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            if s is not None:
                try:
                    s.close()
                except OSError:
                    pass
        return code

    def __enter__(self) -> Process:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _streams(proc: Process) -> Iterator[tuple[int, str]]:
    if proc.popen.stdout is not None:
        yield proc.popen.stdout.fileno(), "stdout"
    if proc.popen.stderr is not None:
        yield proc.popen.stderr.fileno(), "stderr"


class _Drain:
    """The state of one :func:`run` loop: what is kept of each stream, what is left to write.

    Each selector event goes to one method; ``ending`` is set when the loop must stop early.
    """

    def __init__(
        self,
        proc: Process,
        stdin: bytes,
        *,
        cap: int,
        total_cap: int | None,
        stop_at_cap: bool,
        deadline: float,
        after_exit: float,
        watch: Callable[[], str | None] | None = None,
        watch_every: float = 0.1,
    ) -> None:
        self.proc = proc
        self.watch = watch
        self.watch_every = watch_every
        self.next_watch = 0.0
        self.limit: str | None = None
        self.kept: dict[int, list[bytes]] = {fd: [] for fd, _ in _streams(proc)}
        self.seen = dict.fromkeys(self.kept, 0)
        self.room = dict.fromkeys(self.kept, cap)
        self.total_room = total_cap  # None: no shared cap
        self.stop_at_cap = stop_at_cap
        self.view = memoryview(stdin)
        self.deadline = deadline
        self.after_exit = after_exit
        self.exited = False
        self.open_reads = len(self.kept)
        self.ending: Ending | None = None
        self.stdin_fd = proc.popen.stdin.fileno() if proc.popen.stdin is not None else None

    def on_exit(self, now: float) -> None:
        """The program exited: output still held by its children is read a little longer."""
        self.exited = True
        self.proc.popen.poll()
        self.deadline = min(self.deadline, now + self.after_exit)

    def on_writable(self, sel: selectors.BaseSelector, fd: int) -> None:
        try:
            self.view = self.view[os.write(fd, self.view[:_CHUNK]) :]
        except BlockingIOError:
            return
        except OSError:
            self.view = self.view[:0]  # it closed its stdin: its right
        if not self.view:
            sel.unregister(fd)
            self.proc.close_stdin()

    def on_readable(self, sel: selectors.BaseSelector, fd: int) -> None:
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            return
        if not chunk:
            sel.unregister(fd)
            self.open_reads -= 1
            return
        self.seen[fd] += len(chunk)
        keep = self.room[fd] if self.total_room is None else min(self.room[fd], self.total_room)
        if keep > 0:
            self.kept[fd].append(chunk[:keep])
            self.room[fd] -= min(keep, len(chunk))
            if self.total_room is not None:
                self.total_room -= min(keep, len(chunk))
        if self.stop_at_cap and len(chunk) > keep:
            self.ending = Ending.OUTPUT_LIMIT

    def loop(self, pidfd: int | None) -> None:
        """Feed stdin and drain both streams until the end, the deadline or a cap."""
        with selectors.DefaultSelector() as sel:
            for fd in self.kept:
                sel.register(fd, selectors.EVENT_READ)
            if self.stdin_fd is not None:
                sel.register(self.stdin_fd, selectors.EVENT_WRITE)
            if pidfd is not None:
                sel.register(pidfd, selectors.EVENT_READ)
            while self.ending is None and (self.open_reads or not self.exited):
                now = time.monotonic()
                if now >= self.deadline:
                    if not self.exited:
                        self.ending = Ending.TIMEOUT
                    return
                if not self.exited and pidfd is None and self.proc.popen.poll() is not None:
                    self.on_exit(now)
                tick = self.deadline - now if pidfd is not None else min(self.deadline - now, 0.02)
                if self.watch is not None:
                    tick = min(tick, self.watch_every)
                for key, _ in sel.select(tick):
                    if key.fd == pidfd:
                        sel.unregister(key.fd)
                        self.on_exit(time.monotonic())
                    elif key.fd == self.stdin_fd:
                        self.on_writable(sel, key.fd)
                    else:
                        self.on_readable(sel, key.fd)
                if self.watch is not None and self.ending is None:
                    self._check(time.monotonic())

    def _check(self, now: float) -> None:
        """Ask the caller's ``watch`` (at most every ``watch_every`` s) whether a limit passed."""
        if self.watch is None or now < self.next_watch:
            return
        self.next_watch = now + self.watch_every
        self.limit = self.watch()
        if self.limit is not None:
            self.ending = Ending.LIMIT

    def completed(self, started: float) -> Completed:
        code = self.proc.popen.returncode if self.ending is None else None
        out_fd, err_fd = [*self.kept, -1, -1][:2]
        return Completed(
            self.proc.argv,
            self.ending or Ending.EXITED,
            code,
            stdout=b"".join(self.kept.get(out_fd, [])),
            stderr=b"".join(self.kept.get(err_fd, [])),
            stdout_bytes=self.seen.get(out_fd, 0),
            stderr_bytes=self.seen.get(err_fd, 0),
            pid=self.proc.pid,
            elapsed=time.monotonic() - started,
            leftovers=self.proc.leftovers,
            limit=self.limit,
        )


def run(
    argv: Sequence[str],
    *,
    stdin: bytes = b"",
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float,
    cap: int = 1_000_000,
    total_cap: int | None = None,
    stop_at_cap: bool = False,
    grace: float = 0.2,
    new_session: bool = False,
    after_exit: float = 2.0,
    watch: Callable[[], str | None] | None = None,
    watch_every: float = 0.1,
    reaper: bool = False,
) -> Completed:
    """Run ``argv`` to the end, within ``timeout`` seconds; never raises for the program.

    ``stdin`` is written as the program reads it (a program that never reads its stdin
    is fine). stdout and stderr are drained together; at most ``cap`` bytes of each are
    kept (``total_cap``: of both together), the rest is read and dropped — or, with
    ``stop_at_cap``, the program is ended (:attr:`Ending.OUTPUT_LIMIT`). When the program
    exits, output still coming from children that hold the pipes is read for at most
    ``after_exit`` seconds; then everything it started is ended (see the module doc).
    ``watch``, when given, is called about every ``watch_every`` seconds while the program
    runs; a string it returns names a limit the program passed, and the run ends there
    (:attr:`Ending.LIMIT`, :attr:`Completed.limit`). With ``reaper`` the program runs under
    the sub-reaper launcher (see :class:`Process`): a descendant that cleared the run marker
    and left the session is ended when the program exits (command hooks, skill commands).
    """
    started = time.monotonic()
    try:
        proc = Process(
            argv, env=env, cwd=cwd, stdin=bool(stdin), new_session=new_session, reaper=reaper
        )
    except OSError as exc:
        reason = f"{type(exc).__name__}: {exc.strerror or exc}"
        return Completed(
            tuple(argv),
            Ending.START_ERROR,
            None,
            start_error=reason,
            elapsed=time.monotonic() - started,
        )
    drain = _Drain(
        proc,
        stdin,
        cap=cap,
        total_cap=total_cap,
        stop_at_cap=stop_at_cap,
        deadline=started + timeout,
        after_exit=after_exit,
        watch=watch,
        watch_every=watch_every,
    )
    pidfd: int | None
    try:
        pidfd = os.pidfd_open(proc.pid)  # readable once the program has exited (Linux 5.3+)
    except (AttributeError, OSError):
        pidfd = None
    try:
        drain.loop(pidfd)
    finally:
        if pidfd is not None:
            os.close(pidfd)
        proc.close(grace)
    return drain.completed(started)
