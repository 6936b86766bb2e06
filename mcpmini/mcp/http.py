"""Streamable HTTP, sans-I/O: an HTTP request in, a decision out.

:class:`HttpEndpoint` maps one HTTP request (method, headers, body) either to an immediate
:class:`HttpReply` (status, headers, body: errors, ``202 Accepted``, a deleted session) or to
a :class:`Dispatch`: the parsed JSON-RPC request and the
:class:`~mcpmini.mcp.server.ServerConnection` that must handle it. The ASGI application
(:mod:`mcpmini.mcp.asgi`) runs the dispatch and writes the reply as one JSON body or as an
event stream (:func:`sse_event`) when the call sends progress, log messages or requests to the
client before its result.

Both generations share one URL:

* **stateful** (2025-11-25 and earlier): ``initialize`` creates a :class:`Session` holding its
  own connection (``Server.connection()``) and an ``Mcp-Session-Id``; every later request
  carries that id and an ``MCP-Protocol-Version`` header; ``DELETE`` ends the session (later
  requests get 404).
* **stateless** (2026-07-28): no handshake and no session. A request is stateless when its
  ``params._meta`` carries the protocol version, or when its ``MCP-Protocol-Version`` header
  names a per-request version and no session id is sent. Each request gets a fresh modern
  connection.

Rules of this module:

* Every refusal is a :class:`~mcpmini.errors.RemoteProtocolError` carrying its HTTP status as
  ``status_hint``, turned into a body by ``jsonrpc.error_reply``; a dispatched request's
  error reply takes its status from the same hint (stateless route; the stateful route
  answers 200 with the JSON-RPC error).
* Which methods the stateless route removed, which param names a request's target (the
  ``Mcp-Name`` header) and whether ``Mcp-Param-*`` headers apply (a tool call) are read from
  :mod:`.methods`; this module names no method.
* On the stateless route the ``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name`` and
  ``Mcp-Param-*`` headers must agree with the body (``HEADER_MISMATCH``, 400).
* DNS-rebinding protection is on by default: ``Host`` (and ``Origin`` when present) must name
  a loopback host (``localhost``, ``127.0.0.1``, ``[::1]``), else ``403``.
* Every limit is a field of one :class:`HttpLimits`: the session table is bounded and kept in
  least-recently-used order (a request naming a session, and the end of each of its calls,
  make it the most recent); a session idle for ``session_idle`` seconds (no request, no call
  in flight) is ended, and when the table is full the least recently used session that has no
  call in flight and was not used within ``session_keep`` seconds makes room — a session used
  a moment ago is never evicted: a flood of ``initialize`` is refused instead (``503``), and
  each client address may open at most ``sessions_per_minute`` sessions (``429``). A session
  has at most one standalone ``GET`` stream (the next gets ``409``, as the official SDK
  answers), and each of its event streams goes to one connection at a time: a ``GET`` with
  ``Last-Event-ID`` takes the stream over from the connection still carrying it (its ``POST``
  or an earlier resumption, which then ends — a client that reconnects is often ahead of the
  server noticing the old connection is gone), so resumptions never multiply its streams.
* A session (a stateless client: its address) runs at most ``max_calls_per_session`` calls
  of user code at once, and the sessions of one client address ``max_calls_per_address``
  together (:meth:`HttpEndpoint.reserve`; the next is refused at once with ``429``), below
  ``worker_threads``, so another client's call always finds a thread; a
  running call is cancelled (its context's ``cancelled`` set) when its client hangs up or
  sends ``notifications/cancelled`` naming it.
* Every event of a stateful event stream carries an id ``<stream>.<n>`` and is kept in the
  session's bounded :class:`EventLog`, so a ``GET`` with ``Last-Event-ID`` resumes that stream
  (:class:`Resume`): the events after the id, then the live ones.
* A stateless request must carry the ``MCP-Protocol-Version`` and ``Mcp-Method`` headers
  (``_meta`` alone is refused with ``400`` and ``HEADER_MISMATCH``, as the official SDK does).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..errors import ProtocolError, RemoteProtocolError
from .envelope import is_enveloped, version_of
from .jsonrpc import (
    ErrorCode,
    ErrorResponse,
    JsonId,
    Message,
    Notification,
    Request,
    Response,
    error_reply,
    parse_object,
    to_dict,
)
from .methods import Method, Target, method_spec
from .server import Server, ServerConnection
from .versions import KNOWN_VERSIONS, Generation, is_modern

__all__ = [
    "DEFAULT_MAX_BODY",
    "LOCAL_HOSTS",
    "Dispatch",
    "EventLog",
    "HttpEndpoint",
    "HttpLimits",
    "HttpReply",
    "HttpRequest",
    "Resume",
    "Route",
    "Session",
    "decode_header_value",
    "encode_header_value",
    "request_headers",
    "sse_event",
    "target_name",
]

#: Bodies larger than this are refused with 413.
DEFAULT_MAX_BODY = 4 * 1024 * 1024
#: Host names accepted by the DNS-rebinding check on a loopback server.
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})
#: Handshake-era versions a stateful request may name in ``MCP-Protocol-Version``.
STATEFUL_HEADER_VERSIONS = frozenset(v for v in KNOWN_VERSIONS if not is_modern(v))

_JSON = (("content-type", "application/json"),)
_ADDRESSES = 4096  # client addresses the new-session rate limit remembers (the oldest go)


@dataclass(frozen=True)
class HttpLimits:
    """Every bound of the HTTP server in one place (``mcpmini serve --http`` flags set them).

    ``max_sessions`` sessions at most (the least recently used one without a call in flight
    makes room; none free: ``503``); ``session_idle`` seconds without a request or a call in
    flight end a session; ``max_body`` bytes per request body (``413``); ``worker_threads``
    run the calls that execute user code; ``max_waiting`` calls at most, over all sessions,
    may wait on the client (sampling, elicitation) at once, and ``max_waiting_per_session``
    per session — both below ``worker_threads``, so waiting calls never take every thread and
    another session's plain call still runs; ``ask_timeout`` seconds bound one such wait;
    ``replay_events`` events per session are kept for ``Last-Event-ID`` resumption;
    ``max_calls_per_session`` calls of one session (of one address, stateless) run user code
    at once, and ``max_calls_per_address`` calls of one client address over all its sessions
    (both below ``worker_threads``; the next: ``429``) — so neither one session nor a client
    that opens many can take every thread (behind a reverse proxy every client has the
    proxy's address: raise it there); a call whose client hung up on its event stream goes on
    while a connection carries the stream again within ``resume_wait`` seconds (a
    ``Last-Event-ID`` resumption), else it is cancelled; a session used within
    ``session_keep`` seconds is never evicted to make room (``503`` instead); one client
    address opens at most ``sessions_per_minute`` sessions a minute (``429``).
    """

    max_sessions: int = 1000
    session_idle: float = 1800.0
    max_body: int = DEFAULT_MAX_BODY
    worker_threads: int = 32
    max_waiting: int = 16
    max_waiting_per_session: int = 4
    ask_timeout: float = 60.0
    replay_events: int = 256
    max_calls_per_session: int = 8
    max_calls_per_address: int = 16
    resume_wait: float = 60.0
    session_keep: float = 60.0
    sessions_per_minute: int = 600

    def __post_init__(self) -> None:
        for name in (
            "max_sessions",
            "max_body",
            "worker_threads",
            "replay_events",
            "max_calls_per_session",
            "sessions_per_minute",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.session_idle <= 0 or self.ask_timeout <= 0:
            raise ValueError("session_idle and ask_timeout must be positive")
        if self.resume_wait <= 0:
            raise ValueError("resume_wait must be positive")
        if not self.max_calls_per_session <= self.max_calls_per_address < self.worker_threads:
            raise ValueError(
                "max_calls_per_session must be at most max_calls_per_address, and that below "
                "worker_threads (another client's call must always find a thread)"
            )
        if not 0 <= self.session_keep <= self.session_idle:
            raise ValueError("session_keep must be between 0 and session_idle")
        if not 0 <= self.max_waiting < self.worker_threads:
            raise ValueError("max_waiting must be at least 0 and below worker_threads")
        if not 0 <= self.max_waiting_per_session <= max(self.max_waiting, 0):
            raise ValueError("max_waiting_per_session must be between 0 and max_waiting")


class EventLog:
    """The recent events of one session's event streams, for ``Last-Event-ID`` resumption.

    Each stream gets an id (:meth:`open`); each event recorded on it the id
    ``<stream>.<n>``. At most ``limit`` events are kept over all streams (the oldest go
    first). ``on_record`` callbacks run after each record (a resumed stream waits on them).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._events: deque[tuple[str, int, bytes]] = deque(maxlen=limit)
        self._live: set[str] = set()
        self._streams = 0
        self.on_record: list[Callable[[], None]] = []

    def open(self) -> str:
        """A fresh stream id (the stream is live until :meth:`close`)."""
        self._streams += 1
        stream = f"s{self._streams}"
        self._live.add(stream)
        return stream

    def close(self, stream: str) -> None:
        """Mark ``stream`` finished: a resumption replays what is kept, then ends."""
        self._live.discard(stream)
        for callback in list(self.on_record):
            callback()

    def live(self, stream: str) -> bool:
        """True while ``stream`` may still get events."""
        return stream in self._live

    def record(self, stream: str, message: Message) -> bytes:
        """The event carrying ``message`` on ``stream``, with its id; kept for replay."""
        seq = 1 + next((n for s, n, _ in reversed(self._events) if s == stream), 0)
        event = sse_event(message, f"{stream}.{seq}")
        self._events.append((stream, seq, event))
        for callback in list(self.on_record):
            callback()
        return event

    def find(self, event_id: str) -> tuple[str, int] | None:
        """``(stream, n)`` for an event id this log can resume from, else ``None``."""
        stream, _, seq = event_id.strip().rpartition(".")
        if not seq.isdigit() or not stream:
            return None
        if stream in self._live or any(s == stream for s, _, _ in self._events):
            return stream, int(seq)
        return None

    def after(self, stream: str, seq: int) -> list[tuple[int, bytes]]:
        """The kept events of ``stream`` numbered above ``seq``, in order."""
        return [(n, e) for s, n, e in self._events if s == stream and n > seq]


class Route(StrEnum):
    """Which generation's rules apply to a request."""

    STATEFUL = "stateful"
    STATELESS = "stateless"


@dataclass(frozen=True)
class HttpRequest:
    """One HTTP request: ``headers`` maps lower-case names to values; ``client`` is the
    peer's address (``None``: unknown), which the per-address limits count by."""

    method: str
    headers: Mapping[str, str]
    body: bytes = b""
    path: str = "/"
    client: str | None = None

    @classmethod
    def build(
        cls,
        method: str,
        headers: Iterable[tuple[str, str]] | Mapping[str, str],
        body: bytes = b"",
        path: str = "/",
        client: str | None = None,
    ) -> HttpRequest:
        """A request with header names folded to lower case (the last of a repeated name wins)."""
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        return cls(method.upper(), {k.lower(): v for k, v in pairs}, body, path, client)


@dataclass(frozen=True)
class HttpReply:
    """A complete HTTP response: status, headers (name, value) and body."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""

    def json(self) -> Any:
        """The body decoded as JSON. Raises ``ValueError`` if it is not JSON."""
        return orjson.loads(self.body)


@dataclass
class Session:
    """A stateful session: its id, its connection and the client replies it awaits.

    ``last_used`` is the ``time.monotonic()`` of its latest request or finished call,
    ``calls`` its requests in flight, ``asking`` its calls waiting on the client now,
    ``stream_open`` whether its standalone ``GET`` stream is open, ``attached`` the event
    streams a connection carries now (a ``POST``'s or a resumption's), each with the callback
    that makes that connection let go, ``log`` its :class:`EventLog`, ``cancels`` the cancel
    event of each running call by request id.
    """

    id: str
    connection: ServerConnection
    #: server-to-client request id → callback receiving the client's reply
    waiting: dict[JsonId, Any] = field(default_factory=dict)
    closed: threading.Event = field(default_factory=threading.Event)
    #: called once when the session ends (the transport closes its open streams)
    on_close: list[Callable[[], None]] = field(default_factory=list)
    last_used: float = 0.0
    calls: int = 0
    asking: int = 0
    stream_open: bool = False
    attached: dict[str, Callable[[], None]] = field(default_factory=dict)
    log: EventLog = field(default_factory=lambda: EventLog(HttpLimits.replay_events))
    cancels: dict[JsonId, threading.Event] = field(default_factory=dict)
    _next: int = 0

    @property
    def version(self) -> str:
        """The protocol version ``initialize`` agreed on."""
        return self.connection.version or ""

    def new_request_id(self) -> str:
        """A fresh id for a server-to-client request (never reused in the session)."""
        self._next += 1
        return f"s{self._next}"


@dataclass(frozen=True)
class Resume:
    """A ``GET`` with ``Last-Event-ID``: replay ``stream`` of ``session`` after event ``seq``,
    then forward its live events until it finishes."""

    session: Session
    stream: str
    seq: int


@dataclass(frozen=True)
class Dispatch:
    """A JSON-RPC request the server must handle, and how to answer it.

    ``connection`` handles ``message``; ``session`` is the stateful session (``None`` when
    stateless; for ``initialize`` it is created by :meth:`HttpEndpoint.finish`). ``sse`` tells
    whether the client accepts an event stream, ``headers`` go on the response.
    """

    message: Request
    route: Route
    connection: ServerConnection
    session: Session | None
    version: str
    sse: bool
    headers: tuple[tuple[str, str], ...] = ()
    client: str | None = None

    @property
    def caller(self) -> str:
        """Whom the per-session call cap counts this request against: its session, or (on
        the stateless route) its client's address."""
        if self.session is not None:
            return "session " + self.session.id
        return "address " + (self.client or "unknown")

    @property
    def server(self) -> ServerConnection:
        """The connection, under the name chapter 02b's notebook calls ``.handle()`` on."""
        return self.connection


def _refuse(exc: ProtocolError, extra: tuple[tuple[str, str], ...] = ()) -> HttpReply:
    """The HTTP answer to a refused request: ``exc``'s status hint and its JSON-RPC error."""
    return HttpReply(exc.status_hint, _JSON + extra, orjson.dumps(to_dict(error_reply(exc))))


def _bad(
    status: int, code: int, message: str, id: JsonId | None = None, data: Any = None
) -> RemoteProtocolError:
    return RemoteProtocolError(message, code, id, data, status_hint=status)


def sse_event(message: Message, event_id: str | None = None) -> bytes:
    """One server-sent event carrying ``message`` as compact JSON on a single ``data:`` line."""
    head = f"id: {event_id}\n".encode() if event_id is not None else b""
    return head + b"event: message\ndata: " + orjson.dumps(to_dict(message)) + b"\n\n"


@functools.lru_cache(maxsize=256)
def _media_types(value: str) -> frozenset[str]:
    """The media types a ``Content-Type`` or ``Accept`` value names, parameters dropped.

    Cached: a client repeats the same two header values on every request, and parsing them
    was a tenth of a call's cost (``bench/http_load.py``, table 3); the bound keeps a client
    that varies them from growing the cache.
    """
    return frozenset(
        part.split(";")[0].strip().lower() for part in value.split(",") if part.strip()
    )


def _accepts(accept: str, wanted: str) -> bool:
    kinds = _media_types(accept)
    major = wanted.split("/")[0] + "/*"
    return wanted in kinds or major in kinds or "*/*" in kinds


def _host_name(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("["):
        return value[: value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def encode_header_value(value: Any) -> str | None:
    """An argument value as an ``Mcp-Param-*`` header value (SEP-2243), or ``None`` to omit it.

    Printable ASCII without surrounding blanks is sent as is; anything else as
    ``=?base64?<UTF-8 in base64>?=``. Numbers are decimals, booleans ``true`` / ``false``.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    if text == text.strip() and all(0x20 <= ord(c) < 0x7F for c in text):
        return text
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


def decode_header_value(value: str) -> str:
    """Undo :func:`encode_header_value` for a string. Raises ``ValueError`` for bad base64."""
    value = value.strip()
    if value.startswith("=?base64?") and value.endswith("?=") and len(value) >= 11:
        inner = value[9:-2]
        try:
            return base64.b64decode(inner, validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise ValueError("invalid base64 header value") from None
    return value


def target_name(message: Message) -> str | None:
    """What ``Mcp-Name`` says for ``message``: the param its method's row names as the target
    (the tool or prompt name, the resource URI, the task id) when it is a string, else
    ``None`` (no header). The one rule both sides read: :func:`request_headers` writes the
    header from it, the stateless route checks the header against it."""
    if not isinstance(message, (Request, Notification)):
        return None
    spec = method_spec(message.method)
    if spec is None or spec.target is None:
        return None
    name = (message.params or {}).get(spec.target.param)
    return name if isinstance(name, str) else None


def request_headers(
    message: Message, version: str | None = None, session_id: str | None = None
) -> dict[str, str]:
    """The headers a client puts on the POST carrying ``message``.

    ``MCP-Protocol-Version`` when the version is known, ``Mcp-Session-Id`` for a session,
    and on the stateless generation ``Mcp-Method`` plus ``Mcp-Name`` (the tool or prompt name
    or the resource URI) for a request.
    """
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if version is not None:
        headers["mcp-protocol-version"] = version
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    if isinstance(message, (Request, Notification)) and version is not None and is_modern(version):
        headers["mcp-method"] = message.method
        name = target_name(message)
        if name is not None:
            headers["mcp-name"] = encode_header_value(name) or ""
    return headers


class HttpEndpoint:
    """The Streamable HTTP endpoint of one ``Server``, free of I/O.

    ``allowed_hosts`` (host names, ports ignored) and ``allowed_origins`` (``scheme://host``
    prefixes or host names) extend the loopback defaults; ``protect_dns=False`` turns the
    check off (for a server behind a reverse proxy that checks hosts itself).
    ``limits`` (:class:`HttpLimits`) bounds sessions, bodies, waiting calls and the replay
    log; ``max_body`` / ``max_sessions`` override those two fields. ``clock`` is the
    monotonic clock the idle timeout reads (a test passes its own). ``identify`` says who is
    calling — an authenticated identity from a credential the deployment checked (the subject
    of a verified bearer token), ``None`` for anonymous; mcpmini checks no credential
    itself. The connection carries it (``ServerConnection.caller``): a task counts against
    its caller (:class:`~mcpmini.mcp.tasks.TaskTable`), and a session belongs to the caller
    that opened it (another caller naming it gets ``404``).
    """

    def __init__(
        self,
        server: Server,
        *,
        protect_dns: bool = True,
        allowed_hosts: Collection[str] = (),
        max_body: int | None = None,
        max_sessions: int | None = None,
        stateful: bool = True,
        limits: HttpLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
        identify: Callable[[HttpRequest], str | None] | None = None,
    ) -> None:
        limits = limits or HttpLimits()
        if max_body is not None or max_sessions is not None:
            limits = HttpLimits(
                **{
                    **limits.__dict__,
                    "max_body": max_body or limits.max_body,
                    "max_sessions": max_sessions or limits.max_sessions,
                }
            )
        self.server = server
        self.protect_dns = protect_dns
        self.allowed_hosts = LOCAL_HOSTS | {h.lower() for h in allowed_hosts}
        self.limits = limits
        self.max_body = limits.max_body
        self.max_sessions = limits.max_sessions
        self.stateful = stateful
        self.clock = clock
        self.identify = identify
        #: least recently used first
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        #: calls running user code now, by caller (a session, or a stateless client address)
        self.running: dict[str, int] = {}
        #: when each client address opened its recent sessions (the last minute), least
        #: recently seen address first; at most _ADDRESSES addresses are remembered
        self._opened: OrderedDict[str, deque[float]] = OrderedDict()

    # --- helpers ------------------------------------------------------------------------

    def _host_ok(self, headers: Mapping[str, str]) -> bool:
        if not self.protect_dns:
            return True
        host = headers.get("host")
        if host is None or _host_name(host) not in self.allowed_hosts:
            return False
        origin = headers.get("origin")
        if origin is None:
            return True
        parts = urlsplit(origin)
        hostname = (parts.hostname or "").lower()
        if ":" in hostname:
            hostname = f"[{hostname}]"
        return parts.scheme in ("http", "https") and hostname in self.allowed_hosts

    # --- the mapping --------------------------------------------------------------------

    def receive(
        self, request: HttpRequest, too_big: bool = False
    ) -> HttpReply | Dispatch | Session | Resume:
        """Decide what to do with one HTTP request.

        Returns an :class:`HttpReply` to send as is, a :class:`Dispatch` to run, for a
        ``GET`` opening the standalone event stream the :class:`Session` whose stream the
        transport should hold open (it calls :meth:`stream_closed` when it ends), or for a
        ``GET`` with a known ``Last-Event-ID`` the :class:`Resume` to replay. ``too_big``
        says the transport stopped keeping a body larger than ``max_body``. Never raises for
        anything the client sends.
        """
        headers = request.headers
        if not self._host_ok(headers):
            return _refuse(
                _bad(403, ErrorCode.INVALID_REQUEST, "Forbidden: invalid Host or Origin header")
            )
        caller = self.identify(request) if self.identify is not None else None
        if request.method == "POST":
            return self._post(request, too_big, caller)
        if request.method == "GET":
            return self._get(headers, caller)
        if request.method == "DELETE":
            return self._delete(headers, caller)
        return _refuse(
            _bad(405, ErrorCode.INVALID_REQUEST, f"Method not allowed: {request.method}"),
            (("allow", "GET, POST, DELETE"),),
        )

    def _session(
        self, headers: Mapping[str, str], caller: str | None = None
    ) -> Session | HttpReply:
        sid = headers.get("mcp-session-id")
        if sid is None:
            return _refuse(
                _bad(400, ErrorCode.INVALID_REQUEST, "Bad Request: missing Mcp-Session-Id header")
            )
        self.sweep()
        session = self.sessions.get(sid.strip())
        if session is not None and session.connection.caller != caller:
            session = None  # another caller's session: as unknown to this one as any other
        if session is None:
            return _refuse(
                _bad(404, ErrorCode.INVALID_REQUEST, "Session not found (unknown or ended)")
            )
        self.touch(session)
        return session

    def touch(self, session: Session) -> None:
        """Make ``session`` the most recently used (a request named it, a call of it ended)."""
        session.last_used = self.clock()
        if session.id in self.sessions:
            self.sessions.move_to_end(session.id)

    def sweep(self) -> int:
        """End every session idle longer than ``limits.session_idle`` (no request, no call in
        flight); returns how many ended."""
        cutoff = self.clock() - self.limits.session_idle
        idle = []
        for session in self.sessions.values():
            if session.last_used > cutoff:
                break  # least recently used first: the rest are newer
            if session.calls == 0:
                idle.append(session)
        for session in idle:
            self.end(session)
        return len(idle)

    def _make_room(self) -> bool:
        """Free a slot for a new session: the least recently used one that has no call in
        flight and was not used within ``limits.session_keep`` seconds is ended. False when
        no session may go (a flood of new sessions is then refused; a session used a moment
        ago is never evicted)."""
        self.sweep()
        if len(self.sessions) < self.max_sessions:
            return True
        recent = self.clock() - self.limits.session_keep
        victim = next(
            (s for s in self.sessions.values() if s.calls == 0 and s.last_used <= recent), None
        )
        if victim is None:
            return False
        self.end(victim)
        return True

    def _recent_sessions(self, client: str | None) -> deque[float]:
        """When ``client``'s address opened its sessions of the last minute (the address
        becomes the most recently seen; the table stays bounded)."""
        address = client or "unknown"
        now = self.clock()
        opened = self._opened.pop(address, None) or deque()
        while opened and opened[0] <= now - 60.0:
            opened.popleft()
        self._opened[address] = opened
        while len(self._opened) > _ADDRESSES:
            self._opened.popitem(last=False)
        return opened

    def _session_wait(self, client: str | None) -> float | None:
        """``None`` when ``client``'s address may open a session now, else the seconds until
        it may (``limits.sessions_per_minute`` per address)."""
        opened = self._recent_sessions(client)
        if len(opened) < self.limits.sessions_per_minute:
            return None
        return max(1.0, opened[0] + 60.0 - self.clock())

    # --- calls that run user code --------------------------------------------------------

    def _counted(self, dispatch: Dispatch) -> tuple[tuple[str, int, str], ...]:
        """What a call counts against: ``(key, limit, who)`` for its caller (a session, or a
        stateless client's address) and, for a session's call, its client's address too."""
        caller = (
            dispatch.caller,
            self.limits.max_calls_per_session,
            "session" if dispatch.session is not None else "client",
        )
        if dispatch.session is None:
            return (caller,)
        address = "sessions of " + (dispatch.client or "unknown")
        return caller, (address, self.limits.max_calls_per_address, "client address")

    def reserve(self, dispatch: Dispatch) -> HttpReply | None:
        r"""Count a call that runs user code against its caller and its client's address
        (:meth:`_counted`); the ``429`` refusal when either already runs its limit
        (``limits.max_calls_per_session`` / ``max_calls_per_address``). Every reserved call
        is :meth:`release`\ d when its work ends (not when its client goes: a thread still
        runs until the tool returns)."""
        counted = self._counted(dispatch)
        for key, limit, who in counted:
            running = self.running.get(key, 0)
            if running >= limit:
                return _refuse(
                    _bad(
                        429,
                        ErrorCode.INTERNAL_ERROR,
                        f"Too Many Requests: {running} calls of this {who} are running "
                        f"(limit {limit}); try again when one has ended",
                        dispatch.message.id,
                    ),
                    (("retry-after", "1"),),
                )
        for key, _, _ in counted:
            self.running[key] = self.running.get(key, 0) + 1
        return None

    def release(self, dispatch: Dispatch) -> None:
        """A reserved call's work ended."""
        for key, _, _ in self._counted(dispatch):
            left = self.running.get(key, 0) - 1
            if left > 0:
                self.running[key] = left
            else:
                self.running.pop(key, None)

    def stream_closed(self, session: Session) -> None:
        """The transport closed ``session``'s standalone GET stream (another may open)."""
        session.stream_open = False

    def attach(self, session: Session, stream: str, let_go: Callable[[], None]) -> None:
        """A connection carries ``stream`` of ``session`` now; ``let_go`` makes it stop (the
        connection that carried the stream before is told to let go first)."""
        before = session.attached.pop(stream, None)
        if before is not None:
            before()
        session.attached[stream] = let_go

    def detach(self, session: Session, stream: str, let_go: Callable[[], None]) -> None:
        """The connection of ``let_go`` no longer carries ``stream`` (a later one may)."""
        if session.attached.get(stream) is let_go:
            del session.attached[stream]

    def _get(
        self, headers: Mapping[str, str], caller: str | None = None
    ) -> HttpReply | Session | Resume:
        if not self.stateful or "mcp-session-id" not in headers:
            return _refuse(
                _bad(
                    405,
                    ErrorCode.INVALID_REQUEST,
                    "Method not allowed: GET needs a session (stateless servers have no stream)",
                ),
                (("allow", "POST, DELETE"),),
            )
        if not _accepts(headers.get("accept", ""), "text/event-stream"):
            return _refuse(
                _bad(
                    406,
                    ErrorCode.INVALID_REQUEST,
                    "Not Acceptable: GET needs Accept: text/event-stream",
                )
            )
        session = self._session(headers, caller)
        if isinstance(session, HttpReply):
            return session
        last = headers.get("last-event-id")
        found = session.log.find(last) if last else None
        if found is not None:
            return Resume(session, *found)
        if session.stream_open:
            return _refuse(
                _bad(
                    409,
                    ErrorCode.INVALID_REQUEST,
                    "Conflict: only one standalone GET stream is allowed per session",
                )
            )
        session.stream_open = True
        return session

    def _delete(self, headers: Mapping[str, str], caller: str | None = None) -> HttpReply:
        if not self.stateful:
            return _refuse(
                _bad(405, ErrorCode.INVALID_REQUEST, "Method not allowed: no sessions here"),
                (("allow", "POST"),),
            )
        session = self._session(headers, caller)
        if isinstance(session, HttpReply):
            return session
        self.end(session)
        return HttpReply(200)

    def end(self, session: Session) -> None:
        """End ``session``: later requests naming it get 404; waiting tools are released."""
        self.sessions.pop(session.id, None)
        session.closed.set()
        for cancel in list(session.cancels.values()):
            cancel.set()  # its running calls are told to stop
        for waiter in list(session.waiting.values()):
            waiter(ErrorResponse(None, ErrorCode.INVALID_REQUEST, "session ended"))
        session.waiting.clear()
        for callback in session.on_close:
            callback()
        session.on_close.clear()

    def _post(
        self, request: HttpRequest, too_big: bool, caller: str | None = None
    ) -> HttpReply | Dispatch:
        headers = request.headers
        if "application/json" not in _media_types(headers.get("content-type", "")):
            return _refuse(
                _bad(
                    415,
                    ErrorCode.INVALID_REQUEST,
                    "Unsupported Media Type: Content-Type must be application/json",
                )
            )
        accept = headers.get("accept", "")
        sse = _accepts(accept, "text/event-stream")
        if not (sse and _accepts(accept, "application/json")):
            return _refuse(
                _bad(
                    406,
                    ErrorCode.INVALID_REQUEST,
                    "Not Acceptable: Accept must list application/json and text/event-stream",
                )
            )
        if too_big or len(request.body) > self.max_body:
            return _refuse(
                _bad(
                    413,
                    ErrorCode.INVALID_REQUEST,
                    f"Payload Too Large: the body exceeds {self.max_body} bytes",
                )
            )
        try:
            message = parse_object(orjson.loads(request.body))
        except ValueError as exc:  # orjson.JSONDecodeError
            return _refuse(_bad(400, ErrorCode.PARSE_ERROR, f"Parse error: {exc}"))
        except RemoteProtocolError as exc:
            return _refuse(exc)
        header_version = headers.get("mcp-protocol-version")
        sid = headers.get("mcp-session-id")
        params = message.params if isinstance(message, (Request, Notification)) else None
        enveloped = is_enveloped(params)
        stateless = enveloped or (
            sid is None
            and header_version is not None
            and header_version not in STATEFUL_HEADER_VERSIONS
        )
        if stateless or not self.stateful:
            decision = self._stateless(message, headers)
        else:
            decision = self._stateful(
                message, headers, header_version, sid, sse, request.client, caller
            )
        if isinstance(decision, Dispatch):
            if decision.session is None:  # a fresh connection: this request's caller
                decision.connection.caller = caller
            if request.client is not None:
                decision = dataclasses.replace(decision, client=request.client)
        return decision

    def _stateless(self, message: Message, headers: Mapping[str, str]) -> HttpReply | Dispatch:
        if not isinstance(message, Request):
            return HttpReply(202)  # notifications and stray replies: nothing to answer
        header_version = headers.get("mcp-protocol-version")
        body_version = version_of(message.params)
        if (
            header_version is not None
            and body_version is not None
            and header_version != body_version
        ):
            return _refuse(
                _bad(
                    400,
                    ErrorCode.HEADER_MISMATCH,
                    "Header mismatch: MCP-Protocol-Version differs from params._meta",
                    message.id,
                )
            )
        problem = self._check_mcp_headers(message, headers)
        if problem is not None:
            return _refuse(_bad(400, ErrorCode.HEADER_MISMATCH, problem, message.id))
        spec = method_spec(message.method)
        if spec is not None and spec.removed_stateless:
            return _refuse(
                _bad(
                    404,
                    ErrorCode.METHOD_NOT_FOUND,
                    f"Method not found: {message.method} (removed in the stateless generation)",
                    message.id,
                )
            )
        return Dispatch(
            message,
            Route.STATELESS,
            self.server.connection(Generation.MODERN),
            None,
            str(body_version or header_version or ""),
            _accepts(headers.get("accept", ""), "text/event-stream"),
        )

    def _check_mcp_headers(self, message: Request, headers: Mapping[str, str]) -> str | None:
        if headers.get("mcp-protocol-version") is None:
            return "Header mismatch: the MCP-Protocol-Version header is required"
        method = headers.get("mcp-method")
        if method is not None and method.strip() != message.method:
            return f"Header mismatch: Mcp-Method {method!r} but the body calls {message.method!r}"
        if method is None:
            return "Header mismatch: the Mcp-Method header is required"
        params = message.params or {}
        spec = method_spec(message.method)
        if spec is None or spec.target is None:
            return None
        expected = target_name(message)
        name = headers.get("mcp-name")
        if expected is None:  # the body names no target: the handler answers -32602
            if name is not None:
                return f"Header mismatch: Mcp-Name {name!r} but the body names no {spec.target}"
            return None
        if name is None:
            return "Header mismatch: the Mcp-Name header is required"
        try:
            decoded = decode_header_value(name)
        except ValueError:
            return "Header mismatch: Mcp-Name is not valid base64"
        if decoded != expected:
            return f"Header mismatch: Mcp-Name {name!r} but the body names {expected!r}"
        if spec.target is Target.TOOL:
            return self._check_param_headers(params, headers)
        return None

    def _check_param_headers(
        self, params: Mapping[str, Any], headers: Mapping[str, str]
    ) -> str | None:
        tool = (
            self.server.tools.get(params.get("name", ""))
            if isinstance(params.get("name"), str)
            else None
        )
        if tool is None:
            return None
        arguments = params.get("arguments") or {}
        if not isinstance(arguments, dict):
            return None
        for prop, schema in (tool.input_schema.get("properties") or {}).items():
            header = schema.get("x-mcp-header") if isinstance(schema, dict) else None
            if not isinstance(header, str) or prop not in arguments or arguments[prop] is None:
                continue
            sent = headers.get("mcp-param-" + header.lower())
            if sent is None:
                return f"Header mismatch: Mcp-Param-{header} is required"
            try:
                value = decode_header_value(sent)
            except ValueError:
                return f"Header mismatch: Mcp-Param-{header} is not valid base64"
            if value != encode_header_value(arguments[prop]) and value != str(arguments[prop]):
                return f"Header mismatch: Mcp-Param-{header} differs from the argument {prop!r}"
        return None

    def _stateful(
        self,
        message: Message,
        headers: Mapping[str, str],
        header_version: str | None,
        sid: str | None,
        sse: bool,
        client: str | None = None,
        caller: str | None = None,
    ) -> HttpReply | Dispatch:
        if header_version is not None and header_version not in STATEFUL_HEADER_VERSIONS:
            return _refuse(
                _bad(
                    400,
                    ErrorCode.INVALID_REQUEST,
                    f"Bad Request: unsupported MCP-Protocol-Version {header_version!r}",
                    getattr(message, "id", None),
                    {"supported": sorted(STATEFUL_HEADER_VERSIONS)},
                )
            )
        if isinstance(message, Request) and message.method == Method.INITIALIZE:
            if sid is not None and sid in self.sessions:
                return _refuse(
                    _bad(
                        400,
                        ErrorCode.INVALID_REQUEST,
                        "Bad Request: this session is already initialized",
                        message.id,
                    )
                )
            wait = self._session_wait(client)
            if wait is not None:
                return _refuse(
                    _bad(
                        429,
                        ErrorCode.INTERNAL_ERROR,
                        f"Too Many Requests: this address opened "
                        f"{self.limits.sessions_per_minute} sessions in the last minute",
                        message.id,
                    ),
                    (("retry-after", str(int(wait + 0.999))),),
                )
            if not self._make_room():
                return _refuse(
                    _bad(
                        503,
                        ErrorCode.INTERNAL_ERROR,
                        f"Service Unavailable: all {self.max_sessions} sessions are in use",
                        message.id,
                    ),
                    (("retry-after", "1"),),
                )
            self._recent_sessions(client).append(self.clock())  # counted once admitted
            connection = self.server.connection()
            return Dispatch(message, Route.STATEFUL, connection, None, header_version or "", sse)
        session = self._session(headers, caller)
        if isinstance(session, HttpReply):
            return session
        if isinstance(message, (Response, ErrorResponse)):
            waiter = session.waiting.pop(message.id, None) if message.id is not None else None
            if waiter is not None:
                waiter(message)
            return HttpReply(202)
        if isinstance(message, Notification):
            if message.method == Method.NOTIFICATIONS_CANCELLED:
                named = (message.params or {}).get("requestId")
                cancel = session.cancels.get(named) if isinstance(named, (str, int)) else None
                if cancel is not None:
                    cancel.set()  # the running call it names is told to stop
            session.connection.handle(message)
            return HttpReply(202)
        return Dispatch(
            message,
            Route.STATEFUL,
            session.connection,
            session,
            session.version,
            sse,
            (("mcp-session-id", session.id),),
        )

    def finish(
        self, dispatch: Dispatch, reply: Message | None
    ) -> tuple[int, tuple[tuple[str, str], ...]]:
        """Status and headers for the reply of ``dispatch`` (creates the session of
        ``initialize``). A stateless error reply takes the status its error suggested."""
        headers = dispatch.headers
        if dispatch.route is Route.STATELESS:
            status = 200
            if isinstance(reply, ErrorResponse) and reply.status_hint is not None:
                status = reply.status_hint
            return status, headers
        if dispatch.message.method == Method.INITIALIZE and isinstance(reply, Response):
            if len(self.sessions) >= self.max_sessions:
                self._make_room()  # checked when the request came; a busy table may pass by one
            session = Session(
                secrets.token_hex(16),
                dispatch.connection,
                last_used=self.clock(),
                log=EventLog(self.limits.replay_events),
            )
            self.sessions[session.id] = session
            headers = (*headers, ("mcp-session-id", session.id))
        return 200, headers

    def reply(self, dispatch: Dispatch, reply: Message | None) -> HttpReply:
        """The whole JSON response for ``reply`` (202 when there is none)."""
        if reply is None:
            return HttpReply(202)
        status, headers = self.finish(dispatch, reply)
        return HttpReply(status, _JSON + headers, orjson.dumps(to_dict(reply)))
