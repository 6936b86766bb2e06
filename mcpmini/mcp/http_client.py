"""The client side of Streamable HTTP over httpx: a transport that moves JSON-RPC lines.

:class:`HttpTransport` has the same three methods as the stdio transport (``send``,
``receive``, ``close``), so :class:`~mcpmini.mcp.Client` speaks both generations over HTTP
with the same auto / modern / legacy logic. Underneath:

* every JSON-RPC request is one ``POST`` run on a small thread pool (so requests can be
  pipelined and a server can send requests back while a call is running); the answer is one
  JSON body or an event stream whose messages are queued in arrival order for ``receive``;
* notifications and replies to the server's requests are ``POST``\\ ed at once (``202``);
* the headers come from :func:`~mcpmini.mcp.http.request_headers`: ``MCP-Protocol-Version``
  (from the request's ``_meta`` on the stateless wire, from the ``initialize`` reply on the
  handshake wire), ``Mcp-Session-Id`` once the server gave one, ``Mcp-Method`` / ``Mcp-Name``
  on the stateless wire, plus any fixed ``headers`` (e.g. ``Authorization``);
* after ``notifications/initialized`` the standalone ``GET`` stream is opened, and ``send``
  returns once its status is known (at most :data:`STREAM_WAIT` seconds), so a request the
  server sends there at once is not lost (a ``405`` means the server offers none);
* an event stream cut before the reply is resumed with ``GET`` and ``Last-Event-ID`` after
  the server's ``retry`` delay;
* an HTTP status without a JSON-RPC body (``404``, ``500`` …) is the server's answer: it
  becomes an error reply to the request (the server error kind of the failure contract);
* an exchange that fails on the way (the server cannot be reached, does not answer in time,
  cuts the stream, sends a reply past the size cap) fails its request with the library's
  exception, as the stdio transport does: ``receive`` raises a
  :class:`~mcpmini.errors.TransportError` naming the ``request_id`` — :class:`TimedOut`,
  or kind ``unreachable``, ``closed``, ``too large`` — and the client fails that request
  alone; every wait is bounded by ``timeout`` and by the call's ``deadline``, and the
  exchanges run on daemon threads, so a server that trickles bytes never holds the process;
* a reply has the stdio transport's size cap (``max_reply``, default
  :data:`~mcpmini.mcp.transport.MAX_LINE`), enforced while the body or the event stream is
  read — never read whole into memory;
* what belongs to no request (a notification that cannot be delivered, a send after
  :meth:`~HttpTransport.close`) raises :class:`~mcpmini.errors.TransportError` from ``send``
  with its kind: ``unreachable``, ``timed out`` or ``closed``.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson

from ..deadline import Deadline
from ..errors import (
    McpminiError,
    RemoteProtocolError,
    TimedOut,
    TransportError,
    TransportErrorKind,
)
from .envelope import version_of
from .http import encode_header_value, request_headers
from .jsonrpc import (
    ErrorCode,
    ErrorResponse,
    JsonId,
    Message,
    Notification,
    Request,
    Response,
    encode,
    parse_line,
)
from .methods import Method, Target, method_spec
from .transport import MAX_LINE, LineBuffer

if TYPE_CHECKING:
    import httpx

__all__ = [
    "STREAM_WAIT",
    "HttpExchange",
    "HttpTransport",
]

_CLOSED = object()

#: how long opening the standalone stream may hold ``notifications/initialized`` at most (the
#: stream is optional: a server that never answers its ``GET`` costs this once, not a call)
STREAM_WAIT = 5.0


@dataclass(frozen=True)
class HttpExchange:
    """One HTTP request and its response as they crossed the wire (``record=True``).

    ``response_body`` is the JSON body, or the event stream's text as received.
    """

    method: str
    url: str
    request_headers: tuple[tuple[str, str], ...]
    request_body: bytes
    status: int
    response_headers: tuple[tuple[str, str], ...]
    response_body: bytes

    def lines(self) -> list[str]:
        """The exchange as text: request line, headers, body; status line, headers, body."""
        out = [f"{self.method} {urlsplit(self.url).path or '/'} HTTP/1.1"]
        out += [f"{k}: {v}" for k, v in self.request_headers]
        out += ["", self.request_body.decode(errors="replace").rstrip("\n"), ""]
        out += [f"HTTP/1.1 {self.status}"]
        out += [f"{k}: {v}" for k, v in self.response_headers]
        out += ["", self.response_body.decode(errors="replace").rstrip("\n")]
        return out


class _TooLarge(Exception):
    """A reply passed the cap while it was read."""


def _bounded(chunks: Iterator[bytes], deadline: Deadline, what: str) -> Iterator[bytes]:
    """``chunks`` until ``deadline`` passes (then :class:`TimedOut`): a server trickling bytes
    cannot stretch a read past the call's deadline, whatever the per-read timeout."""
    for chunk in chunks:
        deadline.check(what)
        yield chunk


def _capped_lines(chunks: Iterator[bytes], cap: int) -> Iterator[str]:
    """The lines of a byte stream (without the newline); raises :class:`_TooLarge` as soon as
    one line passes ``cap`` bytes."""
    buffer = LineBuffer()
    for chunk in chunks:
        buffer.feed(chunk)
        while buffer.lines:
            line = buffer.lines.popleft()
            if len(line) > cap:
                raise _TooLarge
            yield line.decode("utf-8", "replace")
        if buffer.tail_size > cap:
            raise _TooLarge
    buffer.flush_tail()
    for line in buffer.lines:
        if len(line) > cap:
            raise _TooLarge
        yield line.decode("utf-8", "replace")


def _capped_body(response: httpx.Response, cap: int, deadline: Deadline) -> bytes:
    """The whole body, read in chunks; raises :class:`_TooLarge` past ``cap`` bytes (at once
    when ``Content-Length`` says so), :class:`TimedOut` past ``deadline``."""
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > cap:
        raise _TooLarge
    chunks, size = [], 0
    for chunk in _bounded(response.iter_bytes(), deadline, "the reply body"):
        size += len(chunk)
        if size > cap:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _tap(lines: Iterator[str], sink: list[str] | None) -> Iterator[str]:
    for line in lines:
        if sink is not None:
            sink.append(line)
        yield line


def _sse_events(
    lines: Iterator[str], cap: int = MAX_LINE
) -> Iterator[tuple[str | None, str, int | None]]:
    """``(id, data, retry)`` for each event of a ``text/event-stream`` body; raises
    :class:`_TooLarge` when one event's data passes ``cap`` characters."""
    data: list[str] = []
    size = 0
    event_id: str | None = None
    retry: int | None = None
    for raw in lines:
        line = raw.rstrip("\r")
        if not line:
            if data or event_id is not None:
                yield event_id, "\n".join(data), retry
            data, size, event_id, retry = [], 0, None, None
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            size += len(value) + 1
            if size > cap:
                raise _TooLarge
            data.append(value)
        elif name == "id":
            event_id = value
        elif name == "retry" and value.isdigit():
            retry = int(value)
    if data:
        yield event_id, "\n".join(data), retry


class HttpTransport:
    """A :class:`~mcpmini.mcp.Transport` over Streamable HTTP to ``url``.

    ``headers`` are sent on every request; ``timeout`` bounds each HTTP exchange and each
    ``receive`` without its own timeout; ``deadline`` is the call's (a transport made for one
    call, as ``mcpmini call`` makes it): no exchange, read or close goes past it;
    ``open_stream=False`` skips the standalone GET stream; ``max_workers`` exchanges run at
    once; ``record=True`` keeps every POST and DELETE as an :class:`HttpExchange` in
    ``exchanges``; ``auth`` (e.g. :class:`~mcpmini.mcp.auth.OAuth`) authorizes every
    request — an authorization that fails becomes the request's error reply, whose message
    is the :class:`~mcpmini.mcp.auth.AuthError`'s one line (kept in :attr:`auth_error`).
    Raises :class:`TransportError` from ``send`` when a notification or reply cannot be
    delivered (kind ``unreachable`` or ``timed out``) or the transport is closed, and the
    ``AuthError`` when a notification cannot be authorized.
    """

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        open_stream: bool = True,
        max_workers: int = 8,
        record: bool = False,
        max_reply: int = MAX_LINE,
        auth: httpx.Auth | None = None,
        deadline: Deadline | None = None,
    ) -> None:
        self.url = url
        self.deadline = deadline or Deadline.never()
        self.max_reply = max_reply
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}
        self.timeout = timeout
        self.open_stream = open_stream
        self.session_id: str | None = None
        self.version: str | None = None  # the handshake version, once agreed
        self.statuses: list[tuple[str, int]] = []  # (method, HTTP status) of every exchange
        self.record = record
        self.exchanges: list[HttpExchange] = []
        self.auth_error: McpminiError | None = None
        import httpx  # imported here: `import mcpmini.mcp` stays cheap for stdio-only use

        self._httpx = httpx
        self.auth = auth
        self._http = httpx.Client(timeout=httpx.Timeout(timeout), http2=False, auth=auth)
        # Exchanges run on daemon threads (at most max_workers at once): a pool's threads are
        # joined at exit, so one exchange a server keeps trickling would hold the process.
        self._slots = threading.BoundedSemaphore(max_workers)
        self._inbox: queue.Queue[Any] = queue.Queue()
        self._initialize_ids: set[JsonId] = set()
        self._closed = threading.Event()
        self._stream: threading.Thread | None = None
        #: tool name → {argument: header name}, learnt from ``tools/list`` results (SEP-2243)
        self.tool_headers: dict[str, dict[str, str]] = {}

    # --- the Transport protocol ---------------------------------------------------------

    def send(self, line: bytes) -> None:
        """POST one JSON-RPC message (requests run in the background; see the module doc)."""
        if self._closed.is_set():
            raise TransportError("the HTTP transport is closed", TransportErrorKind.CLOSED)
        message = parse_line(line)
        version = self.version
        if isinstance(message, (Request, Notification)):
            version = version_of(message.params) or version
            if isinstance(message, Request) and message.method == Method.INITIALIZE:
                self._initialize_ids.add(message.id)
        headers = {**request_headers(message, version, self.session_id), **self.headers}
        headers.update(self._param_headers(message, version))
        if isinstance(message, Request):
            self._spawn(self._exchange, message, line, headers)
            return
        self._post_quietly(message, line, headers)
        if isinstance(message, Notification) and message.method == Method.NOTIFICATIONS_INITIALIZED:
            self._start_stream()

    def _spawn(self, work: Callable[..., None], *args: Any) -> None:
        def run() -> None:
            with self._slots:
                if not self._closed.is_set():
                    work(*args)

        threading.Thread(target=run, name="mcp-http", daemon=True).start()

    def receive(self, timeout: float | None = None) -> bytes | None:
        """The next message line from the server; ``None`` after :meth:`close`.

        Raises :class:`~mcpmini.errors.TimedOut` when nothing arrives within ``timeout``
        seconds (never past the deadline), and the :class:`TransportError` of a request whose
        exchange failed (it names the ``request_id``).
        """
        wait = min(self.timeout if timeout is None else max(0.0, timeout), self.deadline.left())
        try:
            item = self._inbox.get(timeout=wait)
        except queue.Empty:
            raise TimedOut("no message from the HTTP server in time") from None
        if item is _CLOSED:
            self._inbox.put(_CLOSED)
            return None
        if isinstance(item, TransportError):
            raise item
        assert isinstance(item, bytes)
        return item

    def close(self) -> None:
        """End the session (``DELETE``, bounded), stop the background work, close sockets."""
        if self._closed.is_set():
            return
        self._closed.set()
        wait = self.deadline.within(min(self.timeout, 5.0)).left()
        if self.session_id is not None and wait > 0:  # a passed deadline leaves it to expire
            headers = {**self._base_headers(), "mcp-session-id": self.session_id}
            try:
                reply = self._http.delete(self.url, headers=headers, timeout=wait)
                self._remember("DELETE", headers, b"", reply, reply.content)
            except (self._httpx.HTTPError, McpminiError):
                pass
        self._http.close()
        self._inbox.put(_CLOSED)

    def __enter__(self) -> HttpTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- plumbing -----------------------------------------------------------------------

    def _base_headers(self) -> dict[str, str]:
        out = dict(self.headers)
        if self.version is not None:
            out["mcp-protocol-version"] = self.version
        return out

    def _param_headers(self, message: Message, version: str | None) -> dict[str, str]:
        """``Mcp-Param-*`` headers for arguments whose schema names an ``x-mcp-header``."""
        if not isinstance(message, Request) or not self.tool_headers:
            return {}
        spec = method_spec(message.method)
        if spec is None or spec.target is not Target.TOOL:
            return {}
        params = message.params or {}
        learnt = self.tool_headers.get(str(params.get("name")), {})
        arguments = params.get("arguments") or {}
        out: dict[str, str] = {}
        for prop, header in learnt.items():
            if isinstance(arguments, dict) and prop in arguments:
                value = encode_header_value(arguments[prop])
                if value is not None:
                    out["mcp-param-" + header.lower()] = value
        return out

    def _deliver(self, data: bytes, request: Request | None = None) -> None:
        """Queue one message line; learn the version and tool headers from the replies."""
        try:
            message = parse_line(data)
        except RemoteProtocolError:
            self._inbox.put(data)  # the client decides what a garbled line means
            return
        if isinstance(message, Response):
            if message.id in self._initialize_ids:
                self._initialize_ids.discard(message.id)
                agreed = message.result.get("protocolVersion")
                if isinstance(agreed, str):
                    self.version = agreed
            if request is not None and request.method == Method.TOOLS_LIST:
                self._learn_tool_headers(message.result)
        self._inbox.put(data.rstrip(b"\n"))

    def _learn_tool_headers(self, result: Mapping[str, Any]) -> None:
        learnt = dict(self.tool_headers)
        for tool in result.get("tools") or []:
            props = (
                ((tool.get("inputSchema") or {}).get("properties") or {})
                if isinstance(tool, dict)
                else {}
            )
            spec = {
                p: s["x-mcp-header"]
                for p, s in props.items()
                if isinstance(s, dict) and isinstance(s.get("x-mcp-header"), str)
            }
            if spec:
                learnt[str(tool.get("name"))] = spec
        self.tool_headers = learnt

    def _remember(
        self,
        method: str,
        headers: Mapping[str, str],
        body: bytes,
        response: httpx.Response,
        received: bytes,
    ) -> None:
        if self.record:
            self.exchanges.append(
                HttpExchange(
                    method,
                    self.url,
                    tuple(headers.items()),
                    body,
                    response.status_code,
                    tuple(response.headers.items()),
                    received,
                )
            )

    def _fail(self, request: Request, code: int, text: str) -> None:
        """The server's answer without a JSON-RPC body, as an error reply to ``request``."""
        self._inbox.put(encode(ErrorResponse(request.id, code, text)).rstrip(b"\n"))

    def _lost(self, error: TransportError) -> None:
        """A request's exchange failed on the way: ``receive`` raises ``error``."""
        self._inbox.put(error)

    def _timeout(self) -> httpx.Timeout:
        """httpx's bounds for one exchange: ``timeout``, cut to what is left of the deadline."""
        return self._httpx.Timeout(min(self.timeout, self.deadline.left()))

    def failure(self, exc: Exception, request_id: JsonId | None = None) -> TransportError:
        """An httpx failure as the library's exception (the failure contract)."""
        if isinstance(exc, (self._httpx.TimeoutException, TimedOut)):
            bound = min(self.timeout, self.deadline.left() or self.timeout)
            return TimedOut(f"no answer from {self.url} within {bound:g} s", request_id)
        if isinstance(exc, (self._httpx.RemoteProtocolError, self._httpx.ReadError)):
            return TransportError(
                f"{self.url} closed the connection: {exc}",
                TransportErrorKind.CLOSED,
                request_id=request_id,
            )
        return TransportError(
            f"cannot reach {self.url}: {exc}", TransportErrorKind.UNREACHABLE, request_id=request_id
        )

    def _post_quietly(self, message: Message, line: bytes, headers: Mapping[str, str]) -> None:
        try:
            response = self._http.post(
                self.url, content=line, headers=dict(headers), timeout=self._timeout()
            )
        except self._httpx.HTTPError as exc:
            raise self.failure(exc, None) from None
        self.statuses.append((getattr(message, "method", "reply"), response.status_code))
        self._remember("POST", headers, line, response, response.content)

    def _exchange(self, request: Request, line: bytes, headers: Mapping[str, str]) -> None:
        try:
            with self._http.stream(
                "POST", self.url, content=line, headers=dict(headers), timeout=self._timeout()
            ) as response:
                self.statuses.append((request.method, response.status_code))
                sid = response.headers.get("mcp-session-id")
                if sid and request.method == Method.INITIALIZE:
                    self.session_id = sid
                sink: list[str] | None = [] if self.record else None
                self._read_reply(request, response, sink)
                if sink is not None:
                    self._remember("POST", headers, line, response, "\n".join(sink).encode())
        except _TooLarge:
            self._lost(
                TransportError(
                    f"reply larger than {self.max_reply} bytes (the reply cap); dropped",
                    TransportErrorKind.TOO_LARGE,
                    request_id=request.id,
                )
            )
        except TimedOut as exc:  # the call's deadline passed while the reply trickled in
            self._lost(self.failure(exc, request.id))
        except TransportError as exc:
            self._lost(exc)
        except McpminiError as exc:  # an authorization that could not be completed
            self.auth_error = exc
            self._fail(request, ErrorCode.INTERNAL_ERROR, f"authorization failed: {exc}")
        except self._httpx.HTTPError as exc:
            self._lost(self.failure(exc, request.id))
        except RuntimeError:  # httpx refuses a client closed meanwhile: the transport is closed
            return

    def _read_reply(
        self, request: Request, response: httpx.Response, sink: list[str] | None
    ) -> None:
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            self._read_stream(request, response, sink)
            return
        body = _capped_body(response, self.max_reply, self.deadline)
        if sink is not None:
            sink.append(body.decode(errors="replace"))
        if kind == "application/json" and body.strip():
            try:
                obj = orjson.loads(body)
            except ValueError:
                obj = None
            if isinstance(obj, dict) and ("result" in obj or "error" in obj):
                if obj.get("id") is None and "error" in obj:  # an HTTP-layer rejection
                    obj = {**obj, "id": request.id}
                self._deliver(orjson.dumps(obj), request)
                return
        if response.status_code == 202:
            self._fail(request, ErrorCode.INTERNAL_ERROR, "HTTP 202 without a reply to a request")
            return
        code = (
            ErrorCode.METHOD_NOT_FOUND
            if response.status_code in (404, 405)
            else ErrorCode.INVALID_REQUEST
        )
        self._fail(
            request, code, f"HTTP {response.status_code}: {body[:200].decode(errors='replace')}"
        )

    def _read_stream(
        self, request: Request, response: httpx.Response, sink: list[str] | None
    ) -> None:
        last_id, retry, answered = None, None, False
        cap = self.max_reply
        what = f"the answer to {request.method}"
        lines = _capped_lines(_bounded(response.iter_bytes(), self.deadline, what), cap)
        for event_id, data, event_retry in _sse_events(_tap(lines, sink), cap):
            last_id = event_id or last_id
            retry = event_retry if event_retry is not None else retry
            if data.strip():
                answered = self._deliver_event(data, request) or answered
        resumes = 0
        while not answered and last_id is not None and resumes < 3 and not self._closed.is_set():
            resumes += 1  # the server cut the stream before the reply: resume it (SSE polling)
            if self._closed.wait((retry or 1000) / 1000):
                return
            headers = {
                **self._base_headers(),
                "accept": "text/event-stream",
                "last-event-id": last_id,
            }
            if self.session_id is not None:
                headers["mcp-session-id"] = self.session_id
            with self._http.stream(
                "GET", self.url, headers=headers, timeout=self._timeout()
            ) as again:
                if again.status_code != 200:
                    break
                again_lines = _capped_lines(_bounded(again.iter_bytes(), self.deadline, what), cap)
                for event_id, data, event_retry in _sse_events(again_lines, cap):
                    last_id = event_id or last_id
                    retry = event_retry if event_retry is not None else retry
                    if data.strip():
                        answered = self._deliver_event(data, request) or answered
                    if answered:
                        break  # a resumed stream may stay open: the reply is all we waited for
        if not answered:
            self._lost(
                TransportError(
                    "the event stream ended without a reply",
                    TransportErrorKind.CLOSED,
                    request_id=request.id,
                )
            )

    def _deliver_event(self, data: str, request: Request) -> bool:
        raw = data.encode()
        self._deliver(raw, request)
        try:
            obj = orjson.loads(raw)
        except ValueError:
            return False
        return (
            isinstance(obj, dict)
            and obj.get("id") == request.id
            and ("result" in obj or "error" in obj)
        )

    def _start_stream(self) -> None:
        """Open the standalone ``GET`` stream and wait (bounded) until its status is known.

        A server may send a request on that stream as soon as it exists and drops what it
        sends while there is none (the TypeScript SDK does): returning before the ``GET`` has
        reached the server let a busy machine lose a server's first request.
        """
        if not self.open_stream or self.session_id is None or self._stream is not None:
            return
        known = threading.Event()
        self._stream = threading.Thread(
            target=self._listen, args=(known,), name="mcp-http-get", daemon=True
        )
        self._stream.start()
        known.wait(self.deadline.within(min(self.timeout, STREAM_WAIT)).left())

    def _listen(self, known: threading.Event) -> None:
        try:
            self._listen_until_closed(known)
        finally:
            known.set()

    def _listen_until_closed(self, known: threading.Event) -> None:
        headers = {**self._base_headers(), "accept": "text/event-stream"}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        try:
            with self._http.stream(
                "GET",
                self.url,
                headers=headers,
                timeout=self._httpx.Timeout(self.timeout, read=None),
            ) as response:
                self.statuses.append(("GET", response.status_code))
                known.set()
                if response.status_code != 200:
                    return
                lines = _capped_lines(response.iter_bytes(), self.max_reply)
                for _, data, _ in _sse_events(lines, self.max_reply):
                    if self._closed.is_set():
                        return
                    if data.strip():
                        self._deliver(data.encode())
        except (self._httpx.HTTPError, RuntimeError, _TooLarge, McpminiError):
            return  # the stream is optional; closing the client (or a message past the cap)
            # ends it here
