"""What a running tool may do besides returning: progress, log messages, requests to the client.

A transport that can carry messages *during* a call (Streamable HTTP answers with an event
stream) sets a :class:`CallContext` around ``Server.handle``; a tool reads it with
:func:`current_call`. Over a transport that cannot (or outside any call) the context is
:data:`NO_CALL`, whose ``progress`` and ``log`` do nothing and whose ``request`` raises.

The context only calls the functions it was given (``emit`` puts one message on the call's
stream, ``ask`` sends a request to the client and waits for its reply), so it stays free of
I/O like the rest of the core.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import McpminiError
from .jsonrpc import JsonId, Message, Notification
from .methods import Method

__all__ = [
    "LOG_LEVELS",
    "NO_CALL",
    "CallContext",
    "current_call",
    "in_call",
]

#: RFC 5424 severities as MCP names them, least severe first.
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def _drop(message: Message) -> None:
    return None


#: The ``cancelled`` event of a call that cannot be cancelled (never set).
_NEVER = threading.Event()


@dataclass(frozen=True)
class CallContext:
    """The running request as its tool sees it.

    ``params`` are the request's params (``_meta``, ``inputResponses``, ``requestState`` …),
    ``progress_token`` the token to echo in progress notifications (``None``: the client
    asked for none), ``log_level`` the least severe level the client wants (``None``: send no
    log messages), ``client_capabilities`` what the client declared. ``emit`` sends one
    message on the call's stream; ``ask`` (``None`` when the transport has no way back, as
    on the stateless wire) sends a request and returns the client's result. ``cancelled`` is
    set when the client cancels the call (a task's ``tasks/cancel``) or it expires: a long
    tool waits on it (``call.cancelled.wait(seconds)``) instead of sleeping.
    """

    params: Mapping[str, Any] = field(default_factory=dict)
    progress_token: JsonId | None = None
    log_level: str | None = None
    client_capabilities: Mapping[str, Any] = field(default_factory=dict)
    emit: Callable[[Message], None] = _drop
    ask: Callable[[str, Mapping[str, Any], float], Mapping[str, Any]] | None = None
    cancelled: threading.Event = _NEVER

    def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send ``notifications/progress`` when the client gave a progress token."""
        if self.progress_token is None:
            return
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self.emit(Notification(Method.NOTIFICATIONS_PROGRESS, params))

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send ``notifications/message`` when ``level`` is at least the client's level.

        Raises ``ValueError`` for a level that is not one of :data:`LOG_LEVELS`.
        """
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        if self.log_level is None or LOG_LEVELS.index(level) < LOG_LEVELS.index(self.log_level):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        self.emit(Notification(Method.NOTIFICATIONS_MESSAGE, params))

    def request(
        self, method: str, params: Mapping[str, Any], timeout: float = 30.0
    ) -> Mapping[str, Any]:
        """Send a request to the client (sampling, elicitation, roots) and return its result.

        Raises :class:`McpminiError` when this transport cannot carry a request to the
        client, :class:`~mcpmini.errors.RemoteProtocolError` for an error reply and
        ``TimeoutError`` when no reply comes within ``timeout`` seconds.
        """
        if self.ask is None:
            raise McpminiError(f"{method}: this connection cannot send requests to the client")
        return self.ask(method, params, timeout)


#: The context outside any call: progress and log do nothing, request raises.
NO_CALL = CallContext()

_CURRENT: contextvars.ContextVar[CallContext] = contextvars.ContextVar(
    "mcpmini_call", default=NO_CALL
)


def current_call() -> CallContext:
    """The :class:`CallContext` of the request being handled (``NO_CALL`` outside one)."""
    return _CURRENT.get()


class in_call:  # named as the function it replaces: ``with in_call(context):``
    """Make ``context`` the current call for the duration of the ``with`` block.

    A class rather than a ``@contextmanager`` generator: it runs once per tool call on the
    HTTP hot path, where the generator's setup cost showed in the profile.
    """

    __slots__ = ("context", "token")

    def __init__(self, context: CallContext) -> None:
        self.context = context

    def __enter__(self) -> CallContext:
        self.token = _CURRENT.set(self.context)
        return self.context

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self.token)
