"""Thin transports that move newline-delimited JSON-RPC lines.

A transport has three methods: ``send(line)``, ``receive(timeout) -> line | None``
(``None`` means the peer closed the stream; a timeout raises :class:`TimeoutError`) and
``close()``. Nothing here understands JSON: :class:`~mcpmini.mcp.Server` and
:class:`~mcpmini.mcp.Client` do.

* :class:`StdioTransport` starts a server as a subprocess in its own process group,
  reads its stdout through ``select`` with a timeout (so every wait is bounded), keeps
  the last 64 KiB of its stderr, and on ``close()`` ends the whole group and reaps it.
* :class:`MemoryTransport` calls a line handler in-process (``server.handle_line``);
  with a seed it delivers queued replies in shuffled order, for Proposition 3.3.
* :func:`serve_stdio` is the server side: it reads stdin in chunks, answers every
  complete line, writes all replies of a chunk with one flush, and returns on EOF.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, Protocol

from ..errors import TransportError

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


class Transport(Protocol):
    """What :class:`~mcpmini.mcp.Client` needs from a transport."""

    def send(self, line: bytes) -> None: ...

    def receive(self, timeout: float | None = None) -> bytes | None: ...

    def close(self) -> int | None: ...  # a process transport returns the exit code


class LineBuffer:
    """Splits a byte stream into lines; keeps the unfinished tail for the next chunk."""

    def __init__(self) -> None:
        self._tail = b""
        self.lines: deque[bytes] = deque()

    def feed(self, chunk: bytes) -> None:
        """Add ``chunk``; complete lines (without the newline) become available in ``lines``."""
        data = self._tail + chunk
        parts = data.split(b"\n")
        self._tail = parts.pop()
        self.lines.extend(parts)

    def flush_tail(self) -> None:
        """At end of stream, treat an unterminated last line as a line."""
        if self._tail:
            self.lines.append(self._tail)
            self._tail = b""

    @property
    def tail_size(self) -> int:
        """Bytes of the current unfinished line."""
        return len(self._tail)


class StdioTransport:
    """A subprocess speaking newline-delimited JSON-RPC on its stdin/stdout.

    ``argv`` is the command; ``env`` (a full environment mapping, default: inherit) and
    ``cwd`` are passed to the process. Raises :class:`TransportError` when the command
    cannot be started. Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        close_grace: float = 2.0,
    ) -> None:
        if not argv:
            raise TransportError("no server command given")
        self.argv = list(argv)
        self.close_grace = close_grace
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=dict(env) if env is not None else None, cwd=cwd,
                start_new_session=True, bufsize=0,
            )
        except OSError as exc:
            raise TransportError(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self._stdin = self.process.stdin
        self._out_fd = self.process.stdout.fileno()
        self._buffer = LineBuffer()
        self._outgoing: list[bytes] = []
        self._outgoing_size = 0
        self._eof = False
        self._stderr = bytearray()
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()

    def _drain_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        while chunk := stream.read(4096):
            self._stderr += chunk
            if len(self._stderr) > _STDERR_KEEP:
                del self._stderr[: len(self._stderr) - _STDERR_KEEP]

    @property
    def stderr(self) -> str:
        """The last 64 KiB the server wrote to stderr, decoded leniently."""
        return bytes(self._stderr).decode("utf-8", "replace")

    @property
    def pid(self) -> int:
        """The server's process id (also its process group id)."""
        return self.process.pid

    def send(self, line: bytes) -> None:
        """Queue one line (ending with a newline) for the server.

        Lines are written together when the client next waits for a reply (or the queue
        passes 64 KiB, or :meth:`flush` is called): pipelined requests then cost one
        system call instead of one each. Raises :class:`TransportError` if the server
        has gone away.
        """
        self._outgoing.append(line)
        self._outgoing_size += len(line)
        if self._outgoing_size >= 1 << 16:
            self.flush()

    def flush(self) -> None:
        """Write every queued line now. Raises :class:`TransportError` if the server is gone."""
        if not self._outgoing:
            return
        data = b"".join(self._outgoing)
        self._outgoing.clear()
        self._outgoing_size = 0
        try:
            self._stdin.write(data)
        except (BrokenPipeError, ValueError, OSError):
            raise TransportError(
                f"server exited (code {self.process.poll()}) while sending") from None

    def receive(self, timeout: float | None = None) -> bytes | None:
        """The next line from the server, ``None`` at EOF.

        Raises :class:`TimeoutError` when no complete line arrives within ``timeout``
        seconds (``None`` waits for ever).
        """
        self.flush()
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._buffer.lines:
            if self._eof:
                self._buffer.flush_tail()
                if self._buffer.lines:
                    break
                return None
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self._out_fd], [], [], remaining)
            if not ready:
                raise TimeoutError(f"no reply from the server within {timeout} s")
            chunk = os.read(self._out_fd, 1 << 16)
            if chunk:
                self._buffer.feed(chunk)
            else:
                self._eof = True
        return self._buffer.lines.popleft()

    def close(self) -> int | None:
        """Close stdin, give the server ``close_grace`` seconds to exit, then end its group.

        Returns the exit code (negative for a signal). Never leaves a zombie.
        """
        if self.process.poll() is None:
            try:
                self.flush()
            except TransportError:
                pass
            try:
                self._stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(self.close_grace)
            except subprocess.TimeoutExpired:
                pass
        self._kill_group()
        code = self.process.wait()
        for stream in (self.process.stdout, self._stdin):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        self._stderr_thread.join(timeout=1.0)
        return code

    def _kill_group(self) -> None:
        # The server may have started children; they share its process group and must go
        # even when the server itself already exited: TERM, a short wait, then KILL.
        for sig, wait in ((signal.SIGTERM, 0.5), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self.process.pid, sig)
            except (ProcessLookupError, PermissionError):
                return  # the group is empty: nothing is left running
            try:
                self.process.wait(wait)
            except subprocess.TimeoutExpired:
                pass

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
            raise TransportError("transport is closed")
        reply = self.handler(line)
        if reply is not None:
            self._replies.append(reply.rstrip(b"\n"))

    def receive(self, timeout: float | None = None) -> bytes | None:
        """Next queued reply. Raises TimeoutError when none is queued; ``None`` once closed."""
        if self._replies:
            index = self._rng.randrange(len(self._replies)) if self._rng else 0
            return self._replies.pop(index)
        if self.closed:
            return None
        raise TimeoutError("no reply queued (in-memory transport)")

    def close(self) -> None:
        """Close the transport; later sends raise, receives return ``None``."""
        self.closed = True


def memory_pair(server: Any, seed: int | None = None) -> MemoryTransport:
    """A :class:`MemoryTransport` connected to ``server.handle_line``."""
    return MemoryTransport(server.handle_line, seed)


def serve_stdio(
    server: Any, rfile: IO[bytes] | None = None, wfile: IO[bytes] | None = None
) -> None:
    """Serve ``server`` over stdin/stdout until stdin reaches EOF.

    While serving, ``sys.stdout`` is pointed at stderr so a stray ``print`` in a tool
    cannot corrupt the protocol stream. A line longer than :data:`MAX_LINE` is
    discarded and answered with ``-32600``.
    """
    from .jsonrpc import ErrorCode, ErrorResponse, encode

    rfile = rfile if rfile is not None else sys.stdin.buffer
    wfile = wfile if wfile is not None else sys.stdout.buffer
    saved_stdout, sys.stdout = sys.stdout, sys.stderr
    read = getattr(rfile, "read1", rfile.read)
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
                reply = server.handle_line(line)
                if reply is not None:
                    out.append(reply)
            if buffer.tail_size > MAX_LINE:
                buffer = LineBuffer()
                skipping = True
                out.append(encode(ErrorResponse(
                    None, ErrorCode.INVALID_REQUEST, f"message larger than {MAX_LINE} bytes")))
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
