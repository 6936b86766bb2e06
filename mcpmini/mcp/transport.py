"""Thin transports that move newline-delimited JSON-RPC lines.

A transport has three methods: ``send(line)``, ``receive(timeout) -> line | None`` and
``close()``. Nothing here understands JSON: :class:`~mcpmini.mcp.Server` and
:class:`~mcpmini.mcp.Client` do.

Rules of this module (what every transport promises its client — the failure contract):

* a wait that passes its timeout raises :class:`~mcpmini.errors.TimedOut` (a
  ``TimeoutError``), nothing else;
* every other failure raises :class:`~mcpmini.errors.TransportError` with its ``kind``
  (:class:`~mcpmini.errors.TransportErrorKind`): the command did not start, the stream is
  closed, a message was too large, the server was unreachable; a failure that belongs to one
  request only names it (``request_id``), so the client fails that request alone;
* a transport given the call's :class:`~mcpmini.deadline.Deadline` never waits past it, not
  even to close (a grace it would give the server is cut to what is left);
* the end of the peer's stream is ``None`` from ``receive`` — or, from a transport that
  knows why (a process: its exit code and the tail of its stderr), a ``TransportError`` of
  kind ``closed`` carrying ``returncode`` and ``stderr_tail``.

* :class:`StdioTransport` starts a server through :class:`mcpmini.process.Process`;
  one deadline bounds each read or write however the bytes trickle in, a reply has a
  size cap (``max_line``), the last 64 KiB of stderr are kept, the server's exit raises a
  ``TransportError`` carrying its exit code and stderr tail, and ``close()`` ends the
  server and everything it started.
* :class:`MemoryTransport` calls a line handler in-process; :func:`memory_pair` gives it a
  connection of the server's own for each client (``server.connection().handle_line``);
  with a seed it delivers queued replies in shuffled order, for Proposition 3.3.
* :func:`serve_stdio` is the server side: one connection for the one peer on stdin; it reads
  stdin in chunks, answers every complete line, writes all replies of a chunk with one
  flush, and returns on EOF.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, Protocol

from ..deadline import Deadline
from ..errors import TimedOut, TransportError, TransportErrorKind
from ..process import Process
from .methods import Method

if TYPE_CHECKING:  # the server's type only; importing it would load the schema validator
    from .server import Server, ServerConnection

__all__ = [
    "MAX_LINE",
    "LineBuffer",
    "MemoryTransport",
    "StdioTransport",
    "Transport",
    "memory_pair",
    "serve_stdio",
]

#: Lines longer than this are refused by :func:`serve_stdio` (a guard against memory blow-up).
MAX_LINE = 16 * 1024 * 1024
_STDERR_KEEP = 64 * 1024
_LISTEN = Method.SUBSCRIPTIONS_LISTEN.value.encode()
_TAIL_LINES = 10  # lines of stderr a TransportError carries


class Transport(Protocol):
    """What :class:`~mcpmini.mcp.Client` needs from a transport."""

    def send(self, line: bytes) -> None: ...

    def receive(self, timeout: float | None = None) -> bytes | None: ...  # None: peer closed

    def close(self) -> int | None: ...  # a process transport returns the exit code


class LineBuffer:
    """Splits a byte stream into lines; keeps the unfinished tail for the next chunk.

    Linear in the bytes fed: each chunk is scanned once, and the pieces of an unfinished
    line are only joined when its newline arrives (a 16 MiB line fed in 64 KiB chunks is
    one join, not 256 growing copies).
    """

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._size = 0
        self.lines: deque[bytes] = deque()

    def feed(self, chunk: bytes) -> None:
        """Add ``chunk``; complete lines (without the newline) become available in ``lines``."""
        parts = chunk.split(b"\n")
        if len(parts) == 1:
            if chunk:
                self._pieces.append(chunk)
                self._size += len(chunk)
            return
        if self._pieces:
            self._pieces.append(parts[0])
            parts[0] = b"".join(self._pieces)
            self._pieces.clear()
        last = parts.pop()
        self.lines.extend(parts)
        self._pieces = [last] if last else []
        self._size = len(last)

    def flush_tail(self) -> None:
        """At end of stream, treat an unterminated last line as a line."""
        if self._pieces:
            self.lines.append(b"".join(self._pieces))
            self._pieces = []
            self._size = 0

    @property
    def tail_size(self) -> int:
        """Bytes of the current unfinished line."""
        return self._size


class StdioTransport:
    """A subprocess speaking newline-delimited JSON-RPC on its stdin/stdout.

    ``argv`` is the command; ``env`` (a full environment mapping, default: inherit) and
    ``cwd`` are passed to the process, which runs in a session of its own through
    :class:`mcpmini.process.Process` (so closing ends it and everything it started).
    ``max_line`` caps one reply (a longer one raises :class:`TransportError` of kind
    ``too large`` and is skipped); ``write_timeout`` bounds a write that the server does
    not read. ``deadline`` is the call's (a transport made for one call, as ``mcpmini
    call`` makes it): no wait of this transport — a write, the grace at close, the wait for
    an exit code — goes past it. Raises :class:`TransportError` of kind ``not started``
    when the command cannot be started. Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        close_grace: float = 2.0,
        max_line: int = MAX_LINE,
        write_timeout: float = 30.0,
        deadline: Deadline | None = None,
    ) -> None:
        if not argv:
            raise TransportError("no server command given", TransportErrorKind.NOT_STARTED)
        self.argv = list(argv)
        self.close_grace = close_grace
        self.max_line = max_line
        self.write_timeout = write_timeout
        self.deadline = deadline or Deadline.never()
        try:
            self._proc = Process(self.argv, env=env, cwd=cwd, new_session=True, reaper=True)
        except OSError as exc:
            raise TransportError(
                f"cannot start {self.argv[0]!r}: {exc.strerror or exc}",
                TransportErrorKind.NOT_STARTED,
            ) from None
        self.process = self._proc.popen
        self._buffer = LineBuffer()
        self._outgoing: list[bytes] = []
        self._outgoing_size = 0
        #: chunks the server did not take yet, oldest first (the first may be a remainder)
        self._unsent: deque[bytes] = deque()
        self._unsent_size = 0
        self._eof = False
        self._skipping = False  # dropping the rest of an oversized reply
        self._stderr = bytearray()
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()

    def _drain_stderr(self) -> None:
        try:
            while chunk := self._proc.read(None, "stderr", 4096):
                self._stderr += chunk
                if len(self._stderr) > _STDERR_KEEP:
                    del self._stderr[: len(self._stderr) - _STDERR_KEEP]
        except (OSError, ValueError):
            return

    @property
    def stderr(self) -> str:
        """The last 64 KiB the server wrote to stderr, decoded leniently."""
        return bytes(self._stderr).decode("utf-8", "replace")

    def _until(self, seconds: float, deadline: float | None = None) -> float:
        """A ``time.monotonic()`` instant ``seconds`` from now, cut to ``deadline`` and to the
        call's deadline (rule: never past it)."""
        until = time.monotonic() + seconds
        for bound in (deadline, self.deadline.monotonic()):
            if bound is not None:
                until = min(until, bound)
        return until

    def _exited(self, doing: str, deadline: float | None) -> TransportError:
        """The error for a server that ended its stream: its exit code once it has exited
        (waiting at most ``close_grace`` seconds, and not past ``deadline``) and the last
        lines of its stderr."""
        code = self._proc.wait(self._until(self.close_grace, deadline))
        if code is not None:  # stderr ends with the process, unless a child still holds it
            self._stderr_thread.join(timeout=min(0.5, self.close_grace))
        tail = "\n".join(self.stderr.strip().splitlines()[-_TAIL_LINES:])
        said = "server closed its pipes" if code is None else f"server exited (code {code})"
        return TransportError(f"{said} {doing}", TransportErrorKind.CLOSED, code, tail)

    @property
    def pid(self) -> int:
        """The server's own process id (not its sub-reaper launcher's: a signal sent here
        reaches the server, and the launcher then ends everything it left)."""
        return self._proc.program_pid

    def send(self, line: bytes) -> None:
        """Queue one line (ending with a newline) for the server.

        Lines are written together when the client next waits for a reply (or
        :meth:`flush` is called): pipelined requests then cost one system call instead of
        one each. When the queue passes 64 KiB, what the server takes at once is written and
        the rest stays queued — ``send`` does not wait, so the wait for the reply (whose
        deadline also bounds the rest of the write, see :meth:`receive`) bounds the whole
        call. Only a backlog over ``max_line`` bytes makes ``send`` wait, at most
        ``write_timeout``. Raises :class:`TransportError` if the server has gone away,
        ``TimeoutError`` if that backlog is not read in time.
        """
        self._outgoing.append(line)
        self._outgoing_size += len(line)
        if self._outgoing_size < 1 << 16:
            return
        if self._outgoing_size + self._unsent_size > self.max_line:
            self.flush()  # a backlog past the cap: wait for the server, bounded
            return
        try:
            self.flush(time.monotonic())  # no waiting: only what the pipe takes now
        except TimeoutError:
            pass

    def flush(self, deadline: float | None = None) -> None:
        """Write every queued line now, before ``deadline`` (a ``time.monotonic()`` value;
        default: ``write_timeout`` from now).

        Raises :class:`TransportError` (kind ``closed``, with the exit code and stderr tail)
        if the server is gone, ``TimeoutError`` if it does not read in time — what it did not
        take stays queued, so the stream stays whole.
        """
        if self._outgoing:
            chunk = b"".join(self._outgoing)
            self._unsent.append(chunk)
            self._unsent_size += len(chunk)
            self._outgoing.clear()
            self._outgoing_size = 0
        deadline = self._until(self.write_timeout, deadline)
        while self._unsent:
            data = self._unsent[0]
            try:
                written = self._proc.write(data, deadline)
            except (BrokenPipeError, ValueError, OSError):
                self._unsent.clear()
                self._unsent_size = 0
                raise self._exited("while sending", deadline) from None
            self._unsent_size -= written
            if written < len(data):
                self._unsent[0] = data[written:]
                raise TimedOut(f"the server did not read {self._unsent_size} bytes in time")
            self._unsent.popleft()

    def receive(self, timeout: float | None = None) -> bytes | None:
        """The next line from the server.

        One deadline bounds the whole call — writing what is queued, then reading however
        the bytes trickle in: :class:`~mcpmini.errors.TimedOut` when no complete line
        arrives within ``timeout`` seconds (``None``: until the transport's own deadline, if
        any, else for ever). A line longer than ``max_line``
        raises :class:`TransportError` of kind ``too large`` (the rest of it is skipped).
        When the server has closed its output and every line is read, raises
        :class:`TransportError` of kind ``closed`` with its exit code and stderr tail.
        """
        deadline = self.deadline.monotonic() if timeout is None else self._until(timeout)
        self.flush(deadline)
        while not self._buffer.lines:
            if self._eof:
                self._buffer.flush_tail()
                if self._buffer.lines:
                    break
                raise self._exited("(end of its output)", deadline)
            if deadline is not None and time.monotonic() >= deadline:
                raise TimedOut(f"no complete reply from the server within {timeout} s")
            try:
                chunk = self._proc.read(deadline)
            except TimeoutError:
                raise TimedOut(f"no reply from the server within {timeout} s") from None
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                self._eof = True
                continue
            if self._skipping:
                newline = chunk.find(b"\n")
                if newline < 0:
                    continue
                self._skipping = False
                chunk = chunk[newline + 1 :]
            self._buffer.feed(chunk)
            if self._buffer.tail_size > self.max_line:
                self._buffer = LineBuffer()
                self._skipping = True
                raise TransportError(
                    f"reply larger than {self.max_line} bytes", TransportErrorKind.TOO_LARGE
                )
        line = self._buffer.lines.popleft()
        if len(line) > self.max_line:
            raise TransportError(
                f"reply larger than {self.max_line} bytes", TransportErrorKind.TOO_LARGE
            )
        return line

    def close(self) -> int | None:
        """Close stdin, give the server ``close_grace`` seconds to exit (none when it stopped
        reading: a write is left half done; never past the call's deadline), then end it and
        everything it started (:class:`~mcpmini.process.Process`).

        Returns the exit code (negative for a signal). Never leaves a zombie.
        """
        if self.process.poll() is None:
            reading = not self._unsent  # a write left half done: the server stopped reading
            if reading:
                try:  # what is queued goes out (a passed deadline still tries once)
                    self.flush(self._until(min(self.close_grace, 1.0)))
                except (TransportError, TimeoutError):
                    reading = False
            self._proc.close_stdin()
            if reading:
                self._proc.wait(self._until(self.close_grace))
        code = self._proc.terminate(0.5)
        self._stderr_thread.join(timeout=1.0)
        self._proc.close()
        return code

    def __enter__(self) -> StdioTransport:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class MemoryTransport:
    """An in-process transport: every sent line goes straight to ``handler``.

    Replies are queued; ``receive()`` returns them in order, or in a shuffled order
    when ``seed`` is given (replies can then overtake each other, as with a concurrent
    server). Since nothing runs in the background, an empty queue means no reply will
    ever come: ``receive()`` raises :class:`TimeoutError` at once.
    """

    def __init__(self, handler: Callable[[bytes], bytes | None], seed: int | None = None) -> None:
        self.handler = handler
        self._replies: list[bytes] = []
        self._rng = random.Random(seed) if seed is not None else None
        self.closed = False

    def send(self, line: bytes) -> None:
        """Hand ``line`` to the handler and queue its reply, if any."""
        if self.closed:
            raise TransportError("transport is closed", TransportErrorKind.CLOSED)
        reply = self.handler(line)
        if reply is not None:
            self._replies.append(reply.rstrip(b"\n"))

    def receive(self, timeout: float | None = None) -> bytes | None:
        """Next queued reply. Raises :class:`~mcpmini.errors.TimedOut` when none is queued;
        ``None`` once closed."""
        if self._replies:
            index = self._rng.randrange(len(self._replies)) if self._rng else 0
            return self._replies.pop(index)
        if self.closed:
            return None
        raise TimedOut("no reply queued (in-memory transport)")

    def close(self) -> None:
        """Close the transport; later sends raise, receives return ``None``."""
        self.closed = True


def memory_pair(server: Server, seed: int | None = None) -> MemoryTransport:
    """A :class:`MemoryTransport` to a connection of ``server``'s own: each call makes a
    fresh :meth:`~mcpmini.mcp.Server.connection`, so two clients share the server's tools and
    never each other's state (generation, capabilities, log level, subscriptions)."""
    return MemoryTransport(server.connection().handle_line, seed)


def _answer(connection: ServerConnection, line: bytes) -> bytes | None:
    """The connection's reply line to ``line``; a ``subscriptions/listen`` result becomes the
    stream's acknowledgement (on stdio the subscription shares the one channel; the result
    would mean it ended)."""
    reply: bytes | None = connection.handle_line(line)
    if reply is None or _LISTEN not in line:
        return reply
    from ..errors import RemoteProtocolError
    from .jsonrpc import Request, Response, encode, parse_line
    from .subscriptions import acknowledgement

    try:
        request, answer = parse_line(line), parse_line(reply)
    except RemoteProtocolError:
        return reply
    if (
        isinstance(request, Request)
        and request.method == Method.SUBSCRIPTIONS_LISTEN
        and isinstance(answer, Response)
    ):
        return encode(acknowledgement(answer.id, answer.result.get("notifications") or {}))
    return reply


def serve_stdio(
    server: Server, rfile: IO[bytes] | None = None, wfile: IO[bytes] | None = None
) -> None:
    """Serve ``server`` over stdin/stdout until stdin reaches EOF: one peer, so one
    connection (:meth:`~mcpmini.mcp.Server.connection`) for the whole stream.

    While serving, ``sys.stdout`` is pointed at stderr so a stray ``print`` in a tool
    cannot corrupt the protocol stream. A line longer than :data:`MAX_LINE` is
    discarded and answered with ``-32600``. ``subscriptions/listen`` is acknowledged
    (``notifications/subscriptions/acknowledged``); a stdio server has no changes to send.
    """
    from .jsonrpc import ErrorCode, ErrorResponse, encode

    rfile = rfile if rfile is not None else sys.stdin.buffer
    wfile = wfile if wfile is not None else sys.stdout.buffer
    saved_stdout, sys.stdout = sys.stdout, sys.stderr
    read = getattr(rfile, "read1", rfile.read)
    connection = server.connection()
    buffer = LineBuffer()
    skipping = False
    try:
        while True:
            chunk = read(1 << 16)
            if not chunk:
                buffer.flush_tail()
            else:
                buffer.feed(chunk)
            out = []
            while buffer.lines:
                line = buffer.lines.popleft()
                if skipping:  # the rest of an oversized line
                    skipping = False
                    continue
                reply = _answer(connection, line)
                if reply is not None:
                    out.append(reply)
            if buffer.tail_size > MAX_LINE:
                buffer = LineBuffer()
                skipping = True
                out.append(
                    encode(
                        ErrorResponse(
                            None, ErrorCode.INVALID_REQUEST, f"message larger than {MAX_LINE} bytes"
                        )
                    )
                )
            if out:
                try:
                    wfile.write(b"".join(out))
                    wfile.flush()
                except (BrokenPipeError, OSError):
                    return
            if not chunk:
                return
    finally:
        sys.stdout = saved_stdout
