"""An MCP client: a sans-I/O connection, and the blocking :class:`Client` that drives it.

:class:`ClientConnection` never touches a socket or a pipe: :meth:`~ClientConnection.start`
and :meth:`~ClientConnection.send_request` return the message to send,
:meth:`~ClientConnection.receive` turns one received line (or message) into events.
:class:`Client` moves those messages over any :class:`~mcpmini.mcp.Transport` (stdio,
memory, :class:`~mcpmini.mcp.HttpTransport`) and waits, each wait bounded.

``Client.connect()`` follows the official SDK client (reference: ``mcp-wire.md`` §2):

* ``modern``: ``server/discover`` with the 2026-07-28 envelope; on ``-32022`` one retry
  with the newest version of the intersection; no intersection is an error.
* ``legacy``: the ``initialize`` handshake, then ``notifications/initialized``; a
  version the client cannot speak ends the connection.
* ``auto`` (default): modern first; any other error, an invalid discover result or no
  reply within the discovery wait (:func:`discover_deadline`) falls back to the handshake.

Rules of this module (the connection's invariants; ``TRANSITIONS`` is rule 1 as data):

1. The state is one :class:`ClientState`, and every change is one row of
   :data:`TRANSITIONS` — ``(state, ClientEvent) → state``, the table saying the next state as
   h11's does: ``idle`` → ``discovering`` or ``initializing``
   (:meth:`~ClientConnection.start`) → ``ready``; ``initializing`` goes back to
   ``discovering`` once, when a server refuses ``initialize`` with ``-32022`` in auto mode;
   a failed negotiation, the peer's end of stream and :meth:`~ClientConnection.close` lead
   to ``closed``, which nothing leaves. An event a state has no row for is a bug
   (:class:`~mcpmini.errors.LocalProtocolError`).
2. While a negotiation runs, it alone sends requests: the caller may send in ``idle`` (the
   2026-07-28 generation needs no handshake) and ``ready``; in ``closed`` nothing is sent
   (:class:`~mcpmini.errors.TransportError` of kind ``closed``).
3. Every request sent stays in ``pending`` until its reply arrives or
   :meth:`~ClientConnection.timed_out` forgets it; ids are never reused (Prop. 3.3).
4. Once a modern version is agreed, every request carries the ``_meta`` envelope.
5. A request from the server gets exactly one reply: its handler's result, ``-32601`` when
   no handler answers it, or an error built by :func:`~mcpmini.mcp.error_reply`. A
   handler's exception is sent as ``-32603`` with a fixed text: **no exception type name or
   text reaches the peer** (a deliberate :class:`~mcpmini.errors.ProtocolError` keeps its
   code and message).
6. Lines that are not JSON-RPC and replies that match no outstanding request are
   :class:`Stray` events, never errors, as the official client tolerates them.

Requests can be pipelined: :meth:`Client.send_request` returns the id at once and
:meth:`Client.receive_reply` matches replies in whatever order they come.
:meth:`Client.call_tool` never raises for what the server does: it returns a
:class:`~mcpmini.mcp.ToolOutcome` (see :mod:`.outcome`).

Rules of the driver (:class:`Client`):

7. Every wait asks one :class:`~mcpmini.deadline.Deadline`, made once where the call starts
   (the caller passes it, or the public method makes it from ``timeout`` at its start) and
   handed down to discovery, the handshake, every request, the input-required rounds and
   the task polling; nothing restarts it. The discovery wait is the one rule
   :func:`discover_deadline`.
8. Failures are the library's exceptions: passing the deadline raises
   :class:`~mcpmini.errors.TimedOut`; a transport failure a
   :class:`~mcpmini.errors.TransportError` (one naming a ``request_id`` fails that request
   only, raised from its wait); an error reply a
   :class:`~mcpmini.errors.RemoteProtocolError` with the server's code.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..deadline import Clock, Deadline
from ..errors import (
    LocalProtocolError,
    McpminiError,
    ProtocolError,
    RemoteProtocolError,
    TimedOut,
    TransportError,
    TransportErrorKind,
)
from .envelope import MetaKey, envelope
from .jsonrpc import (
    ErrorCode,
    ErrorResponse,
    JsonId,
    Message,
    Notification,
    PendingTable,
    Request,
    Response,
    encode,
    error_reply,
    parse_line,
)
from .methods import Method
from .outcome import OutcomeKind, ToolOutcome, classify, classify_task
from .tasks import TERMINAL, TaskStatus
from .transport import Transport
from .versions import LEGACY, MODERN, Generation, is_modern

__all__ = [
    "DISCOVER_WAIT",
    "TRANSITIONS",
    "Client",
    "ClientConnection",
    "ClientEvent",
    "ClientMode",
    "ClientState",
    "Connected",
    "Connection",
    "Event",
    "NotificationReceived",
    "Outgoing",
    "ReplyReceived",
    "RequestFailed",
    "RequestReceived",
    "Stray",
    "discover_deadline",
]

Handler = Callable[[Mapping[str, Any]], Mapping[str, Any]]

#: How many ``input_required`` rounds :meth:`Client.tool_outcome` answers before giving up.
MAX_INPUT_ROUNDS = 8
#: The bounds (seconds) put on a task's ``pollIntervalMs`` and the interval without one.
POLL_BOUNDS = (0.05, 5.0)
DEFAULT_POLL = 0.5
#: How long cancelling a task (at Ctrl-C) may wait for the acknowledgement; never past the
#: call's deadline (at the deadline itself the cancel is sent and not waited for).
CANCEL_WAIT = 2.0
#: The most a ``server/discover`` that can still fall back to the handshake waits (seconds).
DISCOVER_WAIT = 5.0
_TERMINAL = {s.value for s in TERMINAL}
_HANDLER_FAILED = "the client could not answer this request"


def discover_deadline(deadline: Deadline, cap: float = DISCOVER_WAIT) -> Deadline:
    """How long a ``server/discover`` that can still fall back may wait: at most ``cap``
    seconds and at most half of what is left of the call's ``deadline``, so the handshake
    fallback always gets the other half. The one answer to "how long may discovery wait"
    (:class:`Client`, the inventory and the agent's registry all come here)."""
    return deadline.within(min(cap, deadline.left() / 2))


class ClientMode(StrEnum):
    """How :meth:`Client.connect` agrees on a version (see the module docstring)."""

    AUTO = "auto"  # modern first, the handshake as fallback
    MODERN = "modern"  # ``server/discover`` only
    LEGACY = "legacy"  # the ``initialize`` handshake only


class ClientState(StrEnum):
    """Where a :class:`ClientConnection` is (rule 1 of the module docstring)."""

    IDLE = "idle"  # nothing agreed; the caller may still send (stateless generation)
    DISCOVERING = "discovering"  # ``server/discover`` sent, its reply awaited
    INITIALIZING = "initializing"  # ``initialize`` sent, its reply awaited
    READY = "ready"  # a version is agreed
    CLOSED = "closed"  # negotiation failed, the peer ended the stream, or closed by us


class ClientEvent(StrEnum):
    """What moves a :class:`ClientConnection` (rule 1)."""

    DISCOVER = "discover sent"  # a server/discover is sent (first try, -32022 retry, or again)
    INITIALIZE = "initialize sent"  # an initialize is sent (first try, or the fallback)
    AGREED = "agreed"  # the negotiation agreed on a version
    FAILED = "failed"  # the negotiation cannot go on
    CLOSE = "close"  # the peer ended its stream, or we closed


_S, _E = ClientState, ClientEvent
#: Every change a connection makes (rule 1): (state, event) → the next state. An event a
#: state has no row for raises LocalProtocolError.
TRANSITIONS: Mapping[tuple[ClientState, ClientEvent], ClientState] = {
    (_S.IDLE, _E.DISCOVER): _S.DISCOVERING,
    (_S.IDLE, _E.INITIALIZE): _S.INITIALIZING,
    (_S.IDLE, _E.FAILED): _S.CLOSED,
    (_S.IDLE, _E.CLOSE): _S.CLOSED,
    (_S.DISCOVERING, _E.DISCOVER): _S.DISCOVERING,  # the -32022 retry with a common version
    (_S.DISCOVERING, _E.INITIALIZE): _S.INITIALIZING,  # the fallback to the handshake
    (_S.DISCOVERING, _E.AGREED): _S.READY,
    (_S.DISCOVERING, _E.FAILED): _S.CLOSED,
    (_S.DISCOVERING, _E.CLOSE): _S.CLOSED,
    (_S.INITIALIZING, _E.DISCOVER): _S.DISCOVERING,  # initialize refused with -32022
    (_S.INITIALIZING, _E.AGREED): _S.READY,
    (_S.INITIALIZING, _E.FAILED): _S.CLOSED,
    (_S.INITIALIZING, _E.CLOSE): _S.CLOSED,
    (_S.READY, _E.CLOSE): _S.CLOSED,
    (_S.CLOSED, _E.CLOSE): _S.CLOSED,
}

_NEGOTIATING = (ClientState.DISCOVERING, ClientState.INITIALIZING)


@dataclass(frozen=True)
class Connection:
    """What ``connect()`` agreed: generation, version, and the server's self-description."""

    generation: Generation
    version: str
    server_info: Mapping[str, Any]
    capabilities: Mapping[str, Any]
    instructions: str | None = None
    steps: tuple[str, ...] = field(default=())


# --- events: what one received line means ------------------------------------------------


@dataclass(frozen=True)
class ReplyReceived:
    """The reply to a request of ours. ``garbled``: the line could not be read, and
    ``reply`` is the error the client wrote for it."""

    request: Request
    reply: Response | ErrorResponse
    garbled: bool = False


@dataclass(frozen=True)
class RequestReceived:
    """A request from the server (sampling, elicitation, roots): answer it with
    :meth:`ClientConnection.answer`."""

    request: Request


@dataclass(frozen=True)
class NotificationReceived:
    """A notification from the server (log message, progress, list changed …)."""

    notification: Notification


@dataclass(frozen=True)
class Stray:
    """A line set aside: not JSON-RPC, or a reply to no outstanding request (rule 6)."""

    line: bytes


@dataclass(frozen=True)
class RequestFailed:
    """A request of ours whose exchange failed in the transport (rule 8): ``error`` is what
    its wait raises."""

    request: Request
    error: TransportError


@dataclass(frozen=True)
class Outgoing:
    """A message the negotiation needs sent now (a retry, the fallback, ``initialized``)."""

    message: Message


@dataclass(frozen=True)
class Connected:
    """The negotiation ended: the connection is ``ready`` with what was agreed."""

    connection: Connection


Event = (
    ReplyReceived
    | RequestFailed
    | RequestReceived
    | NotificationReceived
    | Stray
    | Outgoing
    | Connected
)


def _poll_interval(task: Mapping[str, Any]) -> float:
    """Seconds to wait before the next ``tasks/get``: the task's ``pollIntervalMs`` within
    :data:`POLL_BOUNDS`."""
    value = task.get("pollIntervalMs")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return DEFAULT_POLL
    low, high = POLL_BOUNDS
    return min(max(value / 1000, low), high)


def _supported(data: Any) -> list[str]:
    """The ``supported`` list of a ``-32022`` error's data (empty when there is none)."""
    found = data.get("supported", []) if isinstance(data, dict) else []
    return [v for v in found if isinstance(v, str)] if isinstance(found, list) else []


def _valid_discover(result: Mapping[str, Any]) -> bool:
    return (
        isinstance(result.get("supportedVersions"), list)
        and isinstance(result.get("capabilities"), dict)
        and result.get("cacheScope", "public") in ("public", "private")
    )


class ClientConnection:
    """The client side of one MCP connection, as data (no I/O; see the module rules).

    ``mode`` is a :class:`ClientMode` (or its value); ``versions`` the protocol versions the
    client speaks; ``capabilities`` what it declares in both generations; ``handlers`` map a
    server request's method to the function answering it. Raises ``ValueError`` for an
    unknown mode.
    """

    def __init__(
        self,
        mode: ClientMode | str = ClientMode.AUTO,
        versions: Collection[str] = (LEGACY, MODERN),
        client_info: Mapping[str, str] | None = None,
        capabilities: Mapping[str, Any] | None = None,
        handlers: Mapping[str, Handler] | None = None,
    ) -> None:
        if mode not in tuple(ClientMode):
            raise ValueError(f"mode must be auto, modern or legacy, not {mode!r}")
        self.mode = ClientMode(mode)
        self.versions = tuple(sorted(set(versions)))
        self.client_info = dict(client_info or {"name": "mcpmini", "version": "0.1.0"})
        self.capabilities: dict[str, Any] = dict(capabilities or {})
        self.handlers: dict[str, Handler] = dict(handlers or {})
        self.pending = PendingTable()
        self.state = ClientState.IDLE
        #: what the negotiation agreed (``None`` until ``ready``)
        self.connection: Connection | None = None
        #: modern: the version put in every envelope (rule 4)
        self.version: str | None = None
        self.steps: list[str] = []
        self._asked: JsonId | None = None  # the negotiation request awaiting its reply
        self._attempt = 0  # discover attempts since the last start or restart
        self._fallback = False  # whether a failed discover falls back to the handshake
        self._offer = ""  # the version the awaited discover was sent with

    # --- state ---------------------------------------------------------------------------

    def _on(self, event: ClientEvent) -> None:
        """Take the row of :data:`TRANSITIONS` for ``event`` (rule 1)."""
        try:
            self.state = TRANSITIONS[(self.state, event)]
        except KeyError:
            raise LocalProtocolError(
                f"a client connection that is {self.state} has no move on {event}",
                ErrorCode.INVALID_REQUEST,
            ) from None

    @property
    def modern(self) -> list[str]:
        """The client's 2026-07-28-or-later versions, oldest first."""
        return [v for v in self.versions if is_modern(v)]

    @property
    def legacy(self) -> list[str]:
        """The client's handshake-generation versions, oldest first."""
        return [v for v in self.versions if not is_modern(v)]

    @property
    def awaiting(self) -> JsonId | None:
        """The id of the negotiation request whose reply is awaited, if any."""
        return self._asked

    @property
    def can_fall_back(self) -> bool:
        """Whether the discover now awaited falls back to the handshake when it fails."""
        return self.state is ClientState.DISCOVERING and self._fallback

    def _fail(self, error: McpminiError) -> McpminiError:
        """Close after a failed negotiation; returns ``error`` for the caller to raise."""
        self._asked = None
        self._on(ClientEvent.FAILED)
        return error

    def _sendable(self, what: str) -> None:
        if self.state is ClientState.CLOSED:
            raise TransportError(
                f"cannot send {what}: the connection is closed", TransportErrorKind.CLOSED
            )
        if self.state in _NEGOTIATING:
            raise LocalProtocolError(
                f"cannot send {what} while {self.state}: the negotiation owns the wire",
                ErrorCode.INVALID_REQUEST,
            )

    # --- sending ------------------------------------------------------------------------

    def _request(
        self, method: str, params: Mapping[str, Any] | None, version: str | None
    ) -> Request:
        version = version or self.version
        if version is not None:
            params = envelope(params, version, self.capabilities, self.client_info)
        request = Request(
            self.pending.allocate(), method, dict(params) if params is not None else None
        )
        self.pending.add(request)
        return request

    def send_request(
        self, method: str, params: Mapping[str, Any] | None = None, version: str | None = None
    ) -> Request:
        """The request to send for ``method`` (recorded as outstanding).

        After a modern negotiation the envelope is added (``version`` overrides it). Raises
        :class:`LocalProtocolError` while negotiating, :class:`TransportError` when closed.
        """
        self._sendable(f"{method!r}")
        return self._request(method, params, version)

    def send_notification(
        self, method: str, params: Mapping[str, Any] | None = None
    ) -> Notification:
        """The notification to send (no reply will come). Raises like :meth:`send_request`."""
        self._sendable(f"{method!r}")
        return Notification(method, dict(params) if params else None)

    def answer(self, request: Request) -> Response | ErrorResponse:
        """The one reply to a request from the server (rule 5): its handler's result,
        ``-32601`` without a handler, ``-32603`` with a fixed text when the handler fails.

        Raises :class:`TransportError` when the connection is closed.
        """
        if self.state is ClientState.CLOSED:
            raise TransportError(
                "cannot answer the server: the connection is closed", TransportErrorKind.CLOSED
            )
        handler = self.handlers.get(request.method)
        if handler is None:
            failure: ProtocolError = LocalProtocolError(
                f"Method not found: {request.method}", ErrorCode.METHOD_NOT_FOUND
            )
        else:
            try:
                return Response(request.id, dict(handler(request.params or {})))
            except ProtocolError as exc:  # meant for the peer: its code and message go out
                failure = exc
            except Exception:  # the text may hold local paths or secrets: it stays here
                failure = LocalProtocolError(_HANDLER_FAILED, ErrorCode.INTERNAL_ERROR)
        return dataclasses.replace(error_reply(failure, request.id), id=request.id)

    def answer_input(self, params: Mapping[str, Any], result: Mapping[str, Any]) -> Request:
        """The repeated ``tools/call`` for an ``input_required`` result (SEP-2322): a new id,
        the same name and arguments, ``inputResponses`` from :attr:`handlers` and the
        unchanged ``requestState``. Raises :class:`LocalProtocolError` (``-32601``) for an
        input request no handler answers.
        """
        answers: dict[str, Any] = {}
        requests = result.get("inputRequests")
        for key, asked in requests.items() if isinstance(requests, Mapping) else ():
            method = asked.get("method") if isinstance(asked, Mapping) else None
            handler = self.handlers.get(method) if isinstance(method, str) else None
            if handler is None:
                raise LocalProtocolError(
                    f"the server asks for {method!r}, which this client cannot answer",
                    ErrorCode.METHOD_NOT_FOUND,
                )
            answers[key] = dict(handler(asked.get("params") or {}))
        retry = {"name": params["name"], "arguments": params["arguments"]}
        if "_meta" in params:  # the caller's progress token and log level go on every round
            retry["_meta"] = params["_meta"]
        retry["inputResponses"] = answers
        if "requestState" in result:
            retry["requestState"] = result["requestState"]
        return self.send_request(Method.TOOLS_CALL, retry)

    # --- negotiating --------------------------------------------------------------------

    def start(self) -> Request:
        """Begin the negotiation (rule 1); return its first request.

        Raises :class:`LocalProtocolError` unless ``idle``, :class:`McpminiError` (and
        closes) when the mode leaves the client no version to offer.
        """
        if self.state is not ClientState.IDLE:
            raise LocalProtocolError(
                f"cannot connect while {self.state}", ErrorCode.INVALID_REQUEST
            )
        if self.mode is not ClientMode.LEGACY and self.modern:
            fallback = self.mode is ClientMode.AUTO and bool(self.legacy)
            return self._discover(self.modern[-1], fallback, attempt=1)
        if self.mode is ClientMode.MODERN or not self.legacy:
            raise self._fail(McpminiError("the client has no protocol version this mode can use"))
        return self._initialize()

    def _discover(self, version: str, fallback: bool, attempt: int) -> Request:
        self._on(ClientEvent.DISCOVER)
        self._fallback, self._attempt, self._offer = fallback, attempt, version
        self.steps.append(f"{Method.SERVER_DISCOVER} with {version}")
        request = self._request(Method.SERVER_DISCOVER, None, version)
        self._asked = request.id
        return request

    def _initialize(self) -> Request:
        self._on(ClientEvent.INITIALIZE)
        offer = self.legacy[-1]
        self.steps.append(f"initialize with {offer}")
        params = {
            "protocolVersion": offer,
            "capabilities": self.capabilities,
            "clientInfo": self.client_info,
        }
        request = self._request(Method.INITIALIZE, params, None)
        self._asked = request.id
        return request

    def _discover_failed(self, error: McpminiError) -> list[Event]:
        """Fall back to the handshake when allowed, else close and raise ``error``."""
        if self._fallback:
            return [Outgoing(self._initialize())]
        raise self._fail(error)

    def timed_out(self, request_id: JsonId) -> list[Event]:
        """No reply to ``request_id`` came in time: forget it (a late reply is then stray).

        For the awaited discover in auto mode, returns the fallback to send. Raises
        :class:`~mcpmini.errors.TimedOut` (and closes) when the negotiation cannot go on
        without that reply.
        """
        request = self.pending.discard(request_id)
        if request_id != self._asked:
            return []
        self._asked = None
        if self.state is ClientState.DISCOVERING:
            self.steps.append("no reply in time")
            if self._fallback:
                return [Outgoing(self._initialize())]
        method = request.method if request is not None else "the negotiation"
        raise self._fail(TimedOut(f"no answer to {method}", request_id))

    def failed(self, error: TransportError) -> list[Event]:
        """The exchange of the request ``error.request_id`` failed in the transport (rule 8):
        forget it and return the :class:`RequestFailed` event. For the awaited negotiation
        request, a timeout is :meth:`timed_out` (the fallback may follow); any other failure
        closes and raises ``error``. A failure naming no outstanding request changes nothing.
        """
        request_id = error.request_id
        if request_id is None or request_id not in self.pending:
            return []
        if request_id == self._asked:
            if isinstance(error, TimedOut):
                return self.timed_out(request_id)
            self.pending.discard(request_id)
            raise self._fail(error)
        request = self.pending.discard(request_id)
        assert request is not None
        return [RequestFailed(request, error)]

    def _on_discover(self, reply: Response | ErrorResponse) -> list[Event]:
        modern = self.modern
        if isinstance(reply, ErrorResponse):
            supported = _supported(reply.data)
            if reply.code == ErrorCode.UNSUPPORTED_PROTOCOL_VERSION and self._attempt == 1:
                self.steps.append(f"-32022, server supports {supported}")
                common = sorted(set(modern) & set(supported))
                if common:
                    return [Outgoing(self._discover(common[-1], self._fallback, attempt=2))]
                if supported and all(is_modern(v) for v in supported):
                    raise self._fail(
                        RemoteProtocolError(
                            f"no protocol version in common: client {modern}, server {supported}",
                            ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                            reply.id,
                        )
                    )
            else:
                self.steps.append(f"error {reply.code}")
            failed = f"{Method.SERVER_DISCOVER} failed: {reply.message} ({reply.code})"
            return self._discover_failed(
                RemoteProtocolError(failed, reply.code, reply.id, reply.data)
            )
        result = reply.result
        if not _valid_discover(result):
            self.steps.append("invalid discover result")
            return self._discover_failed(
                RemoteProtocolError(
                    f"{Method.SERVER_DISCOVER} returned an invalid result",
                    ErrorCode.INVALID_REQUEST,
                    reply.id,
                )
            )
        meta = result.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        version = self._offer
        if version not in result["supportedVersions"]:
            common = sorted(set(modern) & set(result["supportedVersions"]))
            if not common:
                raise self._fail(
                    RemoteProtocolError(
                        "no protocol version in common", ErrorCode.UNSUPPORTED_PROTOCOL_VERSION
                    )
                )
            version = common[-1]
        self.version = version
        self.steps.append(f"modern, version {version}")
        return self._ready(
            Generation.MODERN,
            version,
            meta.get(MetaKey.SERVER_INFO, {}),
            result["capabilities"],
            result.get("instructions"),
        )

    def _on_initialize(self, reply: Response | ErrorResponse) -> list[Event]:
        if isinstance(reply, ErrorResponse):
            # A server slow to start may answer our discover after we gave up on it; it is
            # then stateless and refuses initialize with -32022. Ask it again, patiently.
            if (
                self.mode is ClientMode.AUTO
                and reply.code == ErrorCode.UNSUPPORTED_PROTOCOL_VERSION
                and self.modern
            ):
                self.steps.append(
                    "initialize refused with -32022: the server is stateless after all"
                )
                return [Outgoing(self._discover(self.modern[-1], fallback=False, attempt=1))]
            refused = f"{Method.INITIALIZE} refused: {reply.message} ({reply.code})"
            raise self._fail(RemoteProtocolError(refused, reply.code, reply.id, reply.data))
        answer = reply.result.get("protocolVersion")
        if answer not in self.legacy:
            self.steps.append(f"server answered {answer}: disconnect")
            raise self._fail(
                RemoteProtocolError(
                    f"server answered protocol version {answer!r}, "
                    f"which this client does not speak ({self.legacy})",
                    ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                    reply.id,
                )
            )
        self.steps.append(f"legacy, version {answer}")
        initialized = Outgoing(Notification(Method.NOTIFICATIONS_INITIALIZED))
        return [
            initialized,
            *self._ready(
                Generation.LEGACY,
                str(answer),
                reply.result.get("serverInfo", {}),
                reply.result.get("capabilities", {}),
                reply.result.get("instructions"),
            ),
        ]

    def _ready(
        self,
        generation: Generation,
        version: str,
        info: Mapping[str, Any],
        capabilities: Mapping[str, Any],
        instructions: Any,
    ) -> list[Event]:
        self._asked = None
        self._on(ClientEvent.AGREED)
        self.connection = Connection(
            generation, version, info, capabilities, instructions, tuple(self.steps)
        )
        return [Connected(self.connection)]

    # --- receiving ----------------------------------------------------------------------

    def receive(self, data: bytes | Message) -> list[Event]:
        """What one received line (or already parsed message) means, as events.

        The reply to the negotiation request advances it (:class:`Outgoing`,
        :class:`Connected`); raises :class:`McpminiError` (a :class:`RemoteProtocolError`
        for a refused ``initialize``) and closes when it fails. Never raises for a line
        that is merely unreadable (rule 6).
        """
        if isinstance(data, bytes):
            if not data.strip():
                return []
            if self.state is ClientState.CLOSED:
                return [Stray(data)]
            try:
                message = parse_line(data)
            except RemoteProtocolError as exc:
                if exc.id is None or exc.id not in self.pending:
                    return [Stray(data)]
                request = self.pending.resolve(ErrorResponse(exc.id, exc.code, exc.message))
                reply = ErrorResponse(exc.id, exc.code, "garbled reply: " + exc.message)
                return self._replied(request, reply, garbled=True)
            line = data
        else:
            message, line = data, encode(data).rstrip(b"\n")
            if self.state is ClientState.CLOSED:
                return [Stray(line)]
        if isinstance(message, Request):
            return [RequestReceived(message)]
        if isinstance(message, Notification):
            return [NotificationReceived(message)]
        if message.id is None and len(self.pending) != 1:
            return [Stray(line)]
        if message.id is not None and message.id not in self.pending:
            return [Stray(line)]  # e.g. a late reply to a request we gave up on
        return self._replied(self.pending.resolve(message), message, garbled=False)

    def _replied(
        self, request: Request, reply: Response | ErrorResponse, garbled: bool
    ) -> list[Event]:
        if request.id != self._asked:
            return [ReplyReceived(request, reply, garbled)]
        if self.state is ClientState.DISCOVERING:
            return self._on_discover(reply)
        return self._on_initialize(reply)

    def peer_closed(self) -> None:
        """The peer ended its stream: the connection is ``closed`` (rule 1)."""
        self._asked = None
        self._on(ClientEvent.CLOSE)

    def close(self) -> None:
        """Close the connection from our side; nothing is sent after this (rule 2)."""
        self.peer_closed()


class Client:
    """An MCP client over any :class:`~mcpmini.mcp.Transport`: a driver of one
    :class:`ClientConnection` (``self.conn``).

    ``mode`` is a :class:`ClientMode` (or its value, e.g. ``"auto"``); ``versions`` are the
    protocol versions the client speaks; ``timeout`` is the deadline a call gets when its
    caller passes none (seconds from the call's start, rule 7); ``discover_timeout`` caps the
    wait for ``server/discover`` in auto mode (:func:`discover_deadline`); ``clock`` is the
    monotonic clock those deadlines read. ``capabilities``
    (``elicitation``, ``sampling``, ``roots`` …) are declared in both generations;
    ``handlers`` map a server request's method to the function answering it;
    ``on_notification`` (an attribute too, reassignable between calls) is called with each
    notification from the server the moment it is received, while a request is pending —
    the inspector shows progress and log messages live through it. An exception it raises
    propagates out of the wait that received the notification.
    """

    def __init__(
        self,
        transport: Transport,
        mode: ClientMode | str = ClientMode.AUTO,
        versions: Collection[str] = (LEGACY, MODERN),
        client_info: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        discover_timeout: float = DISCOVER_WAIT,
        capabilities: Mapping[str, Any] | None = None,
        handlers: Mapping[str, Handler] | None = None,
        on_notification: Callable[[Notification], None] | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        self.conn = ClientConnection(mode, versions, client_info, capabilities, handlers)
        self.transport = transport
        self.on_notification = on_notification
        self.timeout = timeout
        self.discover_timeout = discover_timeout
        self.clock = clock
        self.stray: list[bytes] = []  # lines that matched no outstanding request
        self._done: dict[JsonId, Response | ErrorResponse] = {}
        self._failed: dict[JsonId, TransportError] = {}
        self._garbled: set[JsonId] = set()
        self._calls: dict[JsonId, dict[str, Any]] = {}  # tools/call params, for retries

    # --- the connection's data, read through ---------------------------------------------

    @property
    def mode(self) -> ClientMode:
        return self.conn.mode

    @property
    def versions(self) -> tuple[str, ...]:
        return self.conn.versions

    @property
    def client_info(self) -> dict[str, str]:
        return self.conn.client_info

    @property
    def capabilities(self) -> dict[str, Any]:
        return self.conn.capabilities

    @property
    def handlers(self) -> dict[str, Handler]:
        """Method → function answering the server's requests (mutable)."""
        return self.conn.handlers

    @handlers.setter
    def handlers(self, value: Mapping[str, Handler]) -> None:
        self.conn.handlers = dict(value)

    @property
    def pending(self) -> PendingTable:
        return self.conn.pending

    @property
    def connection(self) -> Connection | None:
        """What :meth:`connect` agreed, ``None`` before."""
        return self.conn.connection

    @property
    def state(self) -> ClientState:
        return self.conn.state

    # --- deadlines (rule 7) -------------------------------------------------------------

    def deadline(self, timeout: float | None = None) -> Deadline:
        """The deadline of a call starting now: ``timeout`` seconds (default
        :attr:`timeout`) on this client's clock."""
        seconds = self.timeout if timeout is None else timeout
        return Deadline.after(seconds, self.clock, f"{seconds:g} s")

    def _bound(self, timeout: float | None, deadline: Deadline | None) -> Deadline:
        return deadline if deadline is not None else self.deadline(timeout)

    # --- plumbing -----------------------------------------------------------------------

    def _send(self, message: Message) -> None:
        self.transport.send(encode(message))

    def _react(self, events: Iterable[Event]) -> list[Event]:
        """Do what the events ask (send, answer, set aside); return the rest."""
        rest: list[Event] = []
        for event in events:
            if isinstance(event, Outgoing):
                self._send(event.message)
            elif isinstance(event, RequestReceived):
                self._send(self.conn.answer(event.request))
            elif isinstance(event, Stray):
                self.stray.append(event.line)
            elif isinstance(event, (ReplyReceived, RequestFailed, Connected)):
                rest.append(event)
            elif isinstance(event, NotificationReceived) and self.on_notification is not None:
                self.on_notification(event.notification)
        return rest

    def _keep(self, events: Iterable[Event]) -> None:
        """Keep replies and failures for the waits that want them."""
        for event in events:
            if isinstance(event, ReplyReceived):
                if event.garbled:
                    self._garbled.add(event.request.id)
                self._done[event.request.id] = event.reply
            elif isinstance(event, RequestFailed):
                self._failed[event.request.id] = event.error

    def _next_events(self, deadline: Deadline, waiting_for: str) -> list[Event]:
        """Receive one line before ``deadline`` and react to it.

        Raises :class:`~mcpmini.errors.TimedOut` (naming ``waiting_for`` and the deadline),
        or :class:`TransportError` when the server closed the connection. A transport
        failure of one request becomes its :class:`RequestFailed` event (rule 8).
        """
        if deadline.expired:
            raise deadline.error(waiting_for)
        try:
            line = self.transport.receive(deadline.timeout())
        except TransportError as exc:
            if exc.request_id is not None:  # one request failed (a late one: nothing)
                return self._react(self.conn.failed(exc))
            if isinstance(exc, TimedOut):
                raise deadline.error(waiting_for) from None
            if exc.kind is TransportErrorKind.CLOSED:
                self.conn.peer_closed()
            raise
        except TimeoutError:  # a transport of another library's making
            raise deadline.error(waiting_for) from None
        if line is None:
            self.conn.peer_closed()
            raise TransportError("server closed the connection", TransportErrorKind.CLOSED)
        return self._react(self.conn.receive(line))

    def _method_of(self, request_id: JsonId) -> str:
        request = self.conn.pending.outstanding().get(request_id)
        return f"the answer to {request.method}" if request is not None else "an answer"

    def send_request(
        self, method: str, params: Mapping[str, Any] | None = None, version: str | None = None
    ) -> JsonId:
        """Send a request without waiting; return its id.

        After a modern ``connect()`` the envelope is added automatically (``version``
        overrides it). Raises :class:`TransportError` if the server is gone.
        """
        request = self.conn.send_request(method, params, version)
        self._send(request)
        return request.id

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send a notification (no reply will come)."""
        self._send(self.conn.send_notification(method, params))

    def receive_reply(
        self, timeout: float | None = None, *, deadline: Deadline | None = None
    ) -> tuple[Request, Response | ErrorResponse]:
        """Wait for the next reply to any outstanding request; return ``(request, reply)``.

        Lines that are not JSON, replies to unknown ids and server-initiated messages are
        set aside (``self.stray``) or answered. Raises :class:`~mcpmini.errors.TimedOut`,
        the :class:`TransportError` of a request whose exchange failed, or a
        :class:`TransportError` when the server closed the connection.
        """
        deadline = self._bound(timeout, deadline)
        while True:
            for event in self._next_events(deadline, "a reply"):
                if isinstance(event, ReplyReceived):
                    if event.garbled:
                        self._garbled.add(event.request.id)
                    return event.request, event.reply
                if isinstance(event, RequestFailed):
                    raise event.error

    def wait_for(
        self, request_id: JsonId, timeout: float | None = None, *, deadline: Deadline | None = None
    ) -> Response | ErrorResponse:
        """Wait for the reply to ``request_id``, keeping replies to others for later.

        Raises :class:`~mcpmini.errors.TimedOut` (the request is then forgotten, so a late
        reply is set aside), or the :class:`TransportError` that failed it or the connection.
        """
        deadline = self._bound(timeout, deadline)
        waiting_for = self._method_of(request_id)
        while request_id not in self._done:
            if request_id in self._failed:
                raise self._failed.pop(request_id)
            try:
                events = self._next_events(deadline, waiting_for)
            except TimedOut:
                self.conn.timed_out(request_id)
                raise
            self._keep(events)
        return self._done.pop(request_id)

    def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        version: str | None = None,
        *,
        deadline: Deadline | None = None,
    ) -> dict[str, Any]:
        """Send a request and wait for its result (within ``deadline``, else ``timeout``
        seconds from now).

        Returns the result object. Raises :class:`RemoteProtocolError` carrying the
        server's error code, :class:`~mcpmini.errors.TimedOut`, or :class:`TransportError`.
        """
        deadline = self._bound(timeout, deadline)
        reply = self.wait_for(self.send_request(method, params, version), deadline=deadline)
        if isinstance(reply, ErrorResponse):
            raise RemoteProtocolError(reply.message, reply.code, reply.id, reply.data)
        return dict(reply.result)

    def gather(
        self,
        calls: Iterable[tuple[str, Mapping[str, Any] | None]],
        timeout: float | None = None,
        *,
        deadline: Deadline | None = None,
    ) -> list[Response | ErrorResponse]:
        """Pipeline several requests: send all, then collect the replies in request order
        (one deadline for all of them)."""
        deadline = self._bound(timeout, deadline)
        ids = [self.send_request(method, params) for method, params in calls]
        return [self.wait_for(i, deadline=deadline) for i in ids]

    # --- connecting ---------------------------------------------------------------------

    def connect(self, deadline: Deadline | None = None) -> Connection:
        """Agree on a protocol version with the server (see the module docstring), all of it
        within ``deadline`` (default :attr:`timeout` from now).

        A discover that can still fall back waits only :func:`discover_deadline` of it.
        Returns the :class:`Connection`. Raises :class:`RemoteProtocolError` when the
        server refuses or no version can be agreed, :class:`McpminiError` when this client
        has no version its mode can use, :class:`~mcpmini.errors.TimedOut` when the server
        does not answer in time, :class:`TransportError` when it goes away.
        """
        deadline = self._bound(None, deadline)
        conn = self.conn
        self._send(conn.start())
        while conn.state in _NEGOTIATING:
            asked = conn.awaiting
            method = Method.SERVER_DISCOVER if conn.state is ClientState.DISCOVERING else None
            waiting_for = f"the answer to {method or Method.INITIALIZE}"
            wait = (
                discover_deadline(deadline, self.discover_timeout)
                if conn.can_fall_back
                else deadline
            )
            try:
                while conn.awaiting == asked and conn.state in _NEGOTIATING:
                    self._keep(self._next_events(wait, waiting_for))  # requests sent before
            except TimedOut:
                if asked is None or conn.awaiting != asked:  # it ended (closed) on this failure
                    if deadline.expired:
                        raise deadline.error(waiting_for) from None
                    raise  # a bound of the transport's own, shorter than the deadline
                try:
                    self._react(conn.timed_out(asked))
                except TimedOut:
                    raise deadline.error(waiting_for) from None
        assert conn.connection is not None
        return conn.connection

    # --- tools --------------------------------------------------------------------------

    def list_tools(self, *, deadline: Deadline | None = None) -> list[dict[str, Any]]:
        """All tool definitions (follows ``nextCursor`` pages, every page within one
        ``deadline``). Raises like :meth:`request`."""
        deadline = self._bound(None, deadline)
        tools: list[dict[str, Any]] = []
        cursor = None
        while True:
            params = {"cursor": cursor} if cursor else None
            result = self.request(Method.TOOLS_LIST, params, deadline=deadline)
            tools.extend(result.get("tools", []))
            cursor = result.get("nextCursor")
            if not cursor:
                return tools

    def send_tool_call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> JsonId:
        """Send a ``tools/call`` without waiting; collect it with :meth:`tool_outcome`.

        ``meta`` goes into the request's ``_meta`` (e.g. ``progressToken``), beside the
        envelope of the modern generation.
        """
        params: dict[str, Any] = {"name": name, "arguments": dict(arguments or {})}
        if meta:
            params["_meta"] = dict(meta)
        request_id = self.send_request(Method.TOOLS_CALL, params)
        self._calls[request_id] = params
        return request_id

    def tool_outcome(
        self,
        name: str,
        request_id: JsonId,
        timeout: float | None = None,
        *,
        deadline: Deadline | None = None,
    ) -> ToolOutcome:
        """Wait for the reply to a ``tools/call`` and classify it; never raises for the server.

        One deadline (``deadline``, else ``timeout`` from now) bounds the whole call. An
        ``input_required`` result (2026-07-28, SEP-2322) is answered through
        :attr:`handlers` and the call repeated (:meth:`ClientConnection.answer_input`), at
        most ``MAX_INPUT_ROUNDS`` times, every round within the same deadline. A task result
        (tasks extension) is followed to its end with :meth:`follow_task` within what is
        left (then cancelled: no answer, ``timeout (task ID cancelled)``);
        ``KeyboardInterrupt`` cancels the task and propagates.
        """
        deadline = self._bound(timeout, deadline)
        params = self._calls.pop(request_id, None)
        try:
            reply = self.wait_for(request_id, deadline=deadline)
            for _ in range(MAX_INPUT_ROUNDS):
                if not (
                    isinstance(reply, Response)
                    and reply.result.get("resultType") == "input_required"
                    and params is not None
                ):
                    break
                try:
                    retry = self.conn.answer_input(params, reply.result)
                except LocalProtocolError as exc:
                    return ToolOutcome(
                        OutcomeKind.PROTOCOL_ERROR, name, code=exc.code, message=exc.message
                    )
                self._send(retry)
                request_id = retry.id
                reply = self.wait_for(request_id, deadline=deadline)
            if isinstance(reply, Response) and reply.result.get("resultType") == "task":
                return self._task_outcome(name, reply.result, deadline)
        except TimeoutError:
            return ToolOutcome(OutcomeKind.NO_ANSWER, name, reason="timeout")
        except TransportError as exc:
            return ToolOutcome(OutcomeKind.NO_ANSWER, name, reason=_lost(exc))
        garbled = request_id in self._garbled
        self._garbled.discard(request_id)
        return classify(name, reply, garbled)

    def _task_outcome(
        self, name: str, created: Mapping[str, Any], deadline: Deadline
    ) -> ToolOutcome:
        try:
            task = self.follow_task(created, deadline=deadline)
        except TimeoutError:
            why = f"timeout (task {created.get('taskId')} cancelled)"
            return ToolOutcome(OutcomeKind.NO_ANSWER, name, reason=why)
        except ProtocolError as exc:
            return ToolOutcome(OutcomeKind.PROTOCOL_ERROR, name, code=exc.code, message=exc.message)
        outcome = classify_task(name, task)
        assert outcome is not None  # follow_task returns terminal states only
        return outcome

    # --- the tasks extension (SEP-2663) -------------------------------------------------

    def follow_task(
        self,
        created: Mapping[str, Any],
        timeout: float | None = None,
        *,
        deadline: Deadline | None = None,
    ) -> dict[str, Any]:
        """Follow the task ``created`` (a ``CreateTaskResult``) until it ends; return its last
        state (``completed`` / ``failed`` / ``cancelled``, as ``tasks/get`` gave it).

        Polls ``tasks/get`` every ``pollIntervalMs`` (within :data:`POLL_BOUNDS`), reading
        whatever the server sends meanwhile. Input requests are answered once per key through
        :attr:`handlers` (``tasks/update``). Each change of status or ``statusMessage`` goes to
        :attr:`on_notification` as a ``notifications/tasks`` notification (the shape a server
        pushing status sends). When ``deadline`` (default ``timeout`` from now) passes, an
        input request no handler answers comes, or the wait is interrupted
        (``KeyboardInterrupt``), the task is cancelled (``tasks/cancel``, best effort) before
        :class:`~mcpmini.errors.TimedOut` / :class:`LocalProtocolError` (``-32601``) /
        ``KeyboardInterrupt`` propagates. Raises :class:`RemoteProtocolError` for an error of
        ``tasks/get`` (an unknown or expired task) and :class:`TransportError`.
        """
        task_id = created.get("taskId")
        if not isinstance(task_id, str):
            raise LocalProtocolError("the task result has no taskId", ErrorCode.INVALID_PARAMS)
        deadline = self._bound(timeout, deadline)
        task = {k: v for k, v in created.items() if k not in ("resultType", "_meta")}
        answered: set[str] = set()
        shown: tuple[Any, Any] | None = None
        try:
            while True:
                if (task.get("status"), task.get("statusMessage")) != shown:
                    shown = (task.get("status"), task.get("statusMessage"))
                    self._tell_task(task)
                if task.get("status") in _TERMINAL:
                    return task
                if not self._answer_task(task_id, task, answered, deadline):
                    self._idle(_poll_interval(task), deadline)
                deadline.check(f"the end of task {task_id}")
                task = self.request(Method.TASKS_GET, {"taskId": task_id}, deadline=deadline)
                task.pop("resultType", None)
                task.pop("_meta", None)
        except (TimeoutError, LocalProtocolError, KeyboardInterrupt):
            self.cancel_task(task_id, deadline=deadline)
            raise

    def cancel_task(self, task_id: str, *, deadline: Deadline | None = None) -> bool:
        """Send ``tasks/cancel`` and wait briefly (:data:`CANCEL_WAIT`, never past
        ``deadline``) for the acknowledgement; return whether it came. Never raises for the
        server. At a passed deadline the cancel is sent and not waited for."""
        wait = (deadline or Deadline.never(self.clock)).within(CANCEL_WAIT)
        try:
            request_id = self.send_request(Method.TASKS_CANCEL, {"taskId": task_id})
            reply = self.wait_for(request_id, deadline=wait)
        except (McpminiError, TimeoutError):
            return False
        return isinstance(reply, Response)

    def _tell_task(self, task: Mapping[str, Any]) -> None:
        if self.on_notification is not None:
            self.on_notification(Notification(Method.NOTIFICATIONS_TASKS, dict(task)))

    def _answer_task(
        self, task_id: str, task: Mapping[str, Any], answered: set[str], deadline: Deadline
    ) -> bool:
        """Answer the input requests of ``task`` not answered yet; return whether it sent any.
        Raises :class:`LocalProtocolError` (``-32601``) for one no handler answers."""
        if task.get("status") != TaskStatus.INPUT_REQUIRED:
            return False
        requests = task.get("inputRequests")
        answers: dict[str, Any] = {}
        for key, asked in requests.items() if isinstance(requests, Mapping) else ():
            if key in answered:
                continue
            method = asked.get("method") if isinstance(asked, Mapping) else None
            handler = self.handlers.get(method) if isinstance(method, str) else None
            if handler is None:
                raise LocalProtocolError(
                    f"the task asks for {method!r}, which this client cannot answer",
                    ErrorCode.METHOD_NOT_FOUND,
                )
            answers[key] = dict(handler(asked.get("params") or {}))
        if not answers:
            return False
        params = {"taskId": task_id, "inputResponses": answers}
        self.request(Method.TASKS_UPDATE, params, deadline=deadline)
        answered.update(answers)
        return True

    def _idle(self, seconds: float, deadline: Deadline) -> None:
        """Read what the server sends for ``seconds`` (at most until ``deadline``): its
        notifications are passed on, replies kept for their waiters."""
        until = deadline.within(seconds)
        try:
            while not until.expired:
                self._keep(self._next_events(until, "the next poll"))
        except TimeoutError:  # a transport that cannot wait (in memory) gives up at once
            time.sleep(until.left())

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        *,
        deadline: Deadline | None = None,
    ) -> ToolOutcome:
        """Call a tool and return its :class:`ToolOutcome` (never raises for the server);
        the whole call — every input-required round, a task to its end — within
        ``deadline`` (default ``timeout`` from now)."""
        deadline = self._bound(timeout, deadline)
        try:
            request_id = self.send_tool_call(name, arguments)
        except TransportError as exc:
            return ToolOutcome(OutcomeKind.NO_ANSWER, name, reason=_lost(exc))
        return self.tool_outcome(name, request_id, deadline=deadline)

    def close(self) -> int | None:
        """Close the connection and the transport (for a subprocess: end it and its children).

        Returns the transport's answer: a process's exit code, ``None`` for the others.
        """
        self.conn.close()
        return self.transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _lost(exc: TransportError) -> str:
    """The ``no_answer`` reason of a call whose transport failed (rule 8)."""
    if exc.kind is TransportErrorKind.TOO_LARGE:  # the server lives on; the reply is lost
        return f"too large: {exc}"
    if exc.kind is TransportErrorKind.UNREACHABLE:
        return f"unreachable: {exc}"
    return "server exited"
