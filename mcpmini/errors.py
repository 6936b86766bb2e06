"""The exception hierarchy of mcpmini.

Every exception the runtime raises on purpose derives from :class:`McpminiError`.
Protocol problems are split the way h11 splits them: a :class:`LocalProtocolError`
means *we* were about to break the protocol (a bug in the caller), a
:class:`RemoteProtocolError` means the *peer* sent something that breaks it. Both carry
the JSON-RPC ``code`` that describes the problem and, when known, the ``id`` of the
request it concerns, so the one function that turns exceptions into wire errors
(:func:`mcpmini.mcp.error_reply`) never has to parse a message text; and, as h11's errors
do, the HTTP status the problem suggests (``status_hint``), so the HTTP layer keeps no
code → status table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "ConfigError",
    "LocalProtocolError",
    "McpminiError",
    "Problem",
    "ProtocolError",
    "RemoteProtocolError",
    "Severity",
    "TimedOut",
    "TransportError",
    "TransportErrorKind",
    "UsageError",
    "json_path",
]


class McpminiError(Exception):
    """Base class of every error mcpmini raises deliberately.

    ``exit_code`` is what the ``mcpmini`` command exits with when the error reaches it (one
    line on stderr, no traceback); a subclass that means something else sets its own. Only
    these errors are reported that way: any other exception is a bug and keeps its traceback.

    The codes (the CLI's documented contract, one row per failure kind; 0 is success and 1
    a check that failed — a tool error, an error reply — which commands return themselves):

    ===  ==================================================================================
    2    the input or the environment is wrong: a usage error, a bad file, an authorization
         that cannot be completed (:class:`UsageError`, :class:`ConfigError`, the default)
    3    the server could not be started or reached, or went away (:class:`TransportError`)
    4    the call's deadline passed before the answer came (:class:`TimedOut`)
    5    the server broke or refused the protocol (:class:`RemoteProtocolError`)
    ===  ==================================================================================
    """

    exit_code: int = 2  # the input or the environment is wrong, as for a usage error

    def in_context(self, message: str) -> McpminiError:
        """A copy of this error (same class, same data, so the same exit code) whose message
        is ``message``: a caller adds what it knows (which server, which command)."""
        twin = type(self).__new__(type(self))  # no __init__: subclasses take other arguments
        twin.__dict__.update(self.__dict__)
        twin.args = (message,)
        if "message" in twin.__dict__:
            twin.__dict__["message"] = message
        return twin


class UsageError(McpminiError):
    """A command line the user got wrong: a missing, malformed or contradictory option."""

    exit_code = 2


class ProtocolError(McpminiError):
    """A JSON-RPC / MCP protocol violation.

    ``code`` is the JSON-RPC error code (an :class:`~mcpmini.mcp.ErrorCode` value),
    ``id`` the id of the request concerned (``None`` when it could not be read), and
    ``data`` optional structured detail that may travel in the wire error.
    ``status_hint`` is the HTTP status a transport that has statuses should answer with
    (400 unless the raiser knows better, as h11's ``error_status_hint``); the stdio wire
    ignores it.
    """

    def __init__(
        self,
        message: str,
        code: int,
        id: int | str | None = None,
        data: Any = None,
        status_hint: int = 400,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = int(code)
        self.id = id
        self.data = data
        self.status_hint = status_hint


class LocalProtocolError(ProtocolError):
    """We were about to send something the protocol forbids (e.g. a duplicate id)."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol forbids (e.g. invalid JSON, a bad id), or refused
    what we asked in a way that ends the exchange (no protocol version in common)."""

    exit_code = 5


class ConfigError(McpminiError, ValueError):
    """A settings, skill, plugin or MCP configuration file is invalid.

    ``source`` names the file (or ``None``), ``path`` the JSON path or YAML key inside
    it (e.g. ``"hooks.PreToolUse[0].matcher"``), ``line`` the line number where known.
    """

    def __init__(
        self,
        message: str,
        source: str | None = None,
        path: str | None = None,
        line: int | None = None,
    ) -> None:
        where = ":".join(str(p) for p in (source, line) if p is not None)
        if path:
            where = f"{where} at {path}" if where else f"at {path}"
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message
        self.source = source
        self.path = path
        self.line = line


class TransportErrorKind(StrEnum):
    """Why a transport failed; :class:`TransportError` carries one."""

    NOT_STARTED = "not started"  # the command could not be started (missing, not executable)
    CLOSED = "closed"  # the peer ended the stream, or the transport was closed
    TOO_LARGE = "too large"  # a message passed the size cap
    TIMED_OUT = "timed out"  # the transport gave up waiting (an HTTP exchange)
    UNREACHABLE = "unreachable"  # the server's address could not be reached


class TransportError(McpminiError):
    """A transport could not start, write or read (server missing, pipe closed…).

    ``kind`` says which (a :class:`TransportErrorKind`); for a process, ``returncode`` is the
    server's exit status once known (negative: the signal) and ``stderr_tail`` the last lines
    it wrote to stderr, so a caller can report both without reaching into the transport.
    ``request_id`` names the request whose exchange failed, when the failure belongs to one
    request only (an HTTP POST that timed out or could not connect): the client then fails
    that request and the connection goes on. (``exit_code``, as on every
    :class:`McpminiError`, is the CLI's own exit code.)
    """

    exit_code = 3

    def __init__(
        self,
        message: str,
        kind: TransportErrorKind = TransportErrorKind.CLOSED,
        returncode: int | None = None,
        stderr_tail: str = "",
        request_id: int | str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = TransportErrorKind(kind)
        self.returncode = returncode
        self.stderr_tail = stderr_tail
        self.request_id = request_id


class TimedOut(TransportError, TimeoutError):
    """A wait passed its deadline (:class:`~mcpmini.deadline.Deadline`): the one timeout error
    of the library. A :class:`TransportError` of kind ``timed out`` — and a ``TimeoutError``,
    so ``except TimeoutError`` keeps catching it."""

    exit_code = 4

    def __init__(self, message: str, request_id: int | str | None = None) -> None:
        if not message.startswith("timed out"):  # every timeout reads the same way
            message = f"timed out: {message}"
        super().__init__(message, TransportErrorKind.TIMED_OUT, request_id=request_id)


class Severity(StrEnum):
    """How bad a :class:`Problem` is: an ``error`` skips the thing, a ``warning`` does not."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One finding about one file: ``source`` names the file, ``path`` the key inside it."""

    severity: Severity
    message: str
    source: str | None = None
    path: str | None = None
    line: int | None = None

    @classmethod
    def from_error(cls, exc: ConfigError) -> Problem:
        """The :class:`ConfigError` ``exc`` as an error-severity problem."""
        return cls(Severity.ERROR, exc.message, exc.source, exc.path, exc.line)

    def __str__(self) -> str:
        where = ":".join(str(p) for p in (self.source, self.line) if p is not None)
        if self.path:
            where = f"{where} at {self.path}" if where else f"at {self.path}"
        return (
            f"{self.severity.value}: {where}: {self.message}"
            if where
            else (f"{self.severity.value}: {self.message}")
        )


def json_path(parts: Iterable[str | int]) -> str:
    """The one format of a path inside a config file: ``hooks.PreToolUse[0].hooks[1].timeout``.

    Keys are joined with ``.``, list indexes written ``[i]``. Returns ``"(top level)"`` for
    an empty path. Every loader reports ``Problem.path`` / ``ConfigError.path`` this way.
    """
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"
