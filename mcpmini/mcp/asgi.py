"""A plain ASGI application serving an MCP server over Streamable HTTP (no web framework).

``asgi_app(server)`` returns an ASGI callable, so any ASGI server (uvicorn, hypercorn …) can
host an mcpmini server; ``mcpmini serve NAME --http`` runs it under uvicorn. The decisions are
made by :class:`~mcpmini.mcp.http.HttpEndpoint`; this module only moves bytes:

* a reply known at once (an error, ``202``) is written as it is;
* a ``tools/call`` of a tool registered ``inline`` (it never blocks nor asks the client) runs
  on the event loop: no thread hand-off, whatever it emits still precedes the result on an
  event stream;
* any other method that runs user code (``streams`` in :mod:`.methods`: ``tools/call``,
  ``prompts/get``, ``resources/read``) runs in a worker thread inside a
  :class:`~mcpmini.mcp.context.CallContext`: when the call finishes before emitting anything,
  the reply is one JSON body; when it first sends progress, log messages or a request to the
  client (sampling, elicitation), the response becomes an event stream carrying those
  messages and then the result; any other request is answered on the event loop;
* a ``GET`` with a session holds the standalone event stream open until the session ends or
  the client goes away (one per session); a ``GET`` with ``Last-Event-ID`` replays that
  stream's kept events and forwards the rest (every stateful event is recorded in the
  session's :class:`~mcpmini.mcp.http.EventLog` before it is written);
* ``subscriptions/listen`` (a row that ``holds``) answers with an event stream: the
  acknowledgement, then every :meth:`McpAsgi.announce` notification its filter asks for,
  until the client goes away or the server shuts down (then the listen result).

Rules of this module (the bounds are :class:`~mcpmini.mcp.http.HttpLimits`):

* calls run on a pool of ``worker_threads`` threads of the app's own; a session (a
  stateless client: its address) runs at most ``max_calls_per_session`` of them at once, the
  sessions of one address ``max_calls_per_address`` together (the next is refused at once,
  ``429``), and at most ``max_waiting`` of them
  (``max_waiting_per_session`` per session) may wait on the client at once — a further
  request to the client fails at once in the tool (an ``isError`` result) — so one session
  never holds every thread and another session's plain call runs;
* a call whose client hangs up before its answer is cancelled: its context's ``cancelled``
  is set (a tool waits on it instead of sleeping), its waits on the client end, and nothing is
  written; the thread is counted against its session until the tool returns (a session's
  event stream that sent events with ids is the exception: it can be resumed, so the call
  goes on until it ends or its session does, as the specification asks — unless no
  connection carries that stream for ``resume_wait`` seconds: then it is cancelled too);
* each event stream is carried by one connection at a time: a resumption
  (``Last-Event-ID``) takes it over and the connection that carried it ends;
* every error reply this module writes comes from ``jsonrpc.error_reply``.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..errors import McpminiError, RemoteProtocolError
from .context import CallContext, in_call
from .envelope import MetaKey
from .http import (
    Dispatch,
    HttpEndpoint,
    HttpLimits,
    HttpReply,
    HttpRequest,
    Resume,
    Route,
    Session,
    sse_event,
)
from .jsonrpc import ErrorResponse, JsonId, Message, Notification, Request, Response, error_reply
from .methods import Method, method_spec
from .server import Server
from .subscriptions import acknowledgement, ended, tagged, wants

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "McpAsgi",
    "asgi_app",
    "serve_http",
]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_SSE_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


class _Final:
    """Marks the last item of a call's queue: the reply (or ``None``)."""

    __slots__ = ("reply",)

    def __init__(self, reply: Message | None) -> None:
        self.reply = reply


def _encode_headers(headers: tuple[tuple[str, str], ...]) -> list[tuple[bytes, bytes]]:
    return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]


async def _watch_disconnect(receive: Receive, gone: asyncio.Event) -> None:
    """Set ``gone`` when the client hangs up (the request body was read already, so the next
    message is the disconnect)."""
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            gone.set()
            return


async def _next(
    queue: asyncio.Queue[Message | _Final], *stops: asyncio.Event
) -> Message | _Final | None:
    """The call's next item, or ``None`` once one of ``stops`` is set (its client hung up,
    or a resumption took its stream over)."""
    import asyncio

    if any(stop.is_set() for stop in stops):
        return None
    item = asyncio.ensure_future(queue.get())
    waits = [asyncio.ensure_future(stop.wait()) for stop in stops]
    await asyncio.wait({item, *waits}, return_when=asyncio.FIRST_COMPLETED)
    for wait in waits:
        wait.cancel()
    if item.done():
        return item.result()
    item.cancel()
    return None


class _Listener:
    """One open ``subscriptions/listen`` stream: its id, agreed filter and queue."""

    __slots__ = ("agreed", "loop", "queue", "subscription")

    def __init__(
        self,
        subscription: JsonId,
        agreed: Mapping[str, Any],
        loop: asyncio.AbstractEventLoop,
        queue: asyncio.Queue[Notification | None],
    ) -> None:
        self.subscription = subscription
        self.agreed = agreed
        self.loop = loop
        self.queue = queue


class McpAsgi:
    """The ASGI callable. ``path`` (e.g. ``"/mcp"``) restricts the endpoint to one path;
    ``None`` serves every path. The bounds (threads, waiting calls, ``ask_timeout`` for a
    tool's wait on the client's reply) are the endpoint's :class:`HttpLimits`;
    ``ask_timeout`` overrides that field."""

    def __init__(
        self, endpoint: HttpEndpoint, path: str | None = None, ask_timeout: float | None = None
    ) -> None:
        self.endpoint = endpoint
        self.path = path
        limits: HttpLimits = endpoint.limits
        self.ask_timeout = limits.ask_timeout if ask_timeout is None else ask_timeout
        self.waiting = 0  # calls waiting on the client now, over all sessions
        self._lock = threading.Lock()
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._listeners: dict[int, _Listener] = {}
        # Each app hears every change of a task's state itself (notifications/tasks to its own
        # listen streams): two apps over one server both do. Ended at lifespan shutdown.
        self._unsubscribe = endpoint.server.tasks.subscribe(self._announce_task)

    def _announce_task(self, task: dict[str, Any]) -> None:
        self.announce(Notification(Method.NOTIFICATIONS_TASKS, task))

    @property
    def pool(self) -> concurrent.futures.ThreadPoolExecutor:
        """The threads running calls (``limits.worker_threads``), made on first use."""
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(
                self.endpoint.limits.worker_threads, thread_name_prefix="mcpmini-call"
            )
        return self._pool

    def announce(self, notification: Notification) -> int:
        """Send ``notification`` (e.g. ``notifications/tools/list_changed``) to every open
        ``subscriptions/listen`` stream whose filter asks for it; safe from any thread.
        Returns how many streams it was queued on."""
        count = 0
        for listener in list(self._listeners.values()):
            if wants(listener.agreed, notification):
                listener.loop.call_soon_threadsafe(listener.queue.put_nowait, notification)
                count += 1
        return count

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if self.path is not None and scope.get("path", "/").rstrip("/") != self.path.rstrip("/"):
            await self._write(
                send, HttpReply(404, (("content-type", "text/plain"),), b"Not Found\n")
            )
            return
        body, too_big = await self._read_body(receive)
        # One pass into the mapping HttpRequest.build would make (names folded, last one wins).
        headers = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])
        }
        peer = scope.get("client")
        client = str(peer[0]) if peer else None
        request = HttpRequest(scope["method"], headers, body, scope.get("path", "/"), client)
        decision = self.endpoint.receive(request, too_big=too_big)
        if isinstance(decision, HttpReply):
            await self._write(send, decision)
        elif isinstance(decision, Session):
            try:
                await self._hold_stream(decision, receive, send)
            finally:
                self.endpoint.stream_closed(decision)
        elif isinstance(decision, Resume):
            await self._resume(decision, receive, send)
        else:
            session = decision.session
            if session is not None:
                session.calls += 1
            try:
                await self._run(decision, receive, send)
            finally:
                if session is not None:
                    session.calls -= 1
                    self.endpoint.touch(session)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self._unsubscribe()
                for session in list(self.endpoint.sessions.values()):
                    self.endpoint.end(session)
                for listener in list(self._listeners.values()):
                    listener.queue.put_nowait(None)  # the listen stream ends with its result
                if self._pool is not None:
                    self._pool.shutdown(wait=False, cancel_futures=True)
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _read_body(self, receive: Receive) -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        too_big = False
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.endpoint.max_body:
                too_big = True  # keep draining, keep nothing
            else:
                chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks), too_big

    @staticmethod
    async def _write(send: Send, reply: HttpReply) -> None:
        # A Content-Length lets the server write head and body at once (no chunked trailer).
        headers = [
            *_encode_headers(reply.headers),
            (b"content-length", str(len(reply.body)).encode()),
        ]
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        await send({"type": "http.response.body", "body": reply.body})

    def _context(
        self,
        dispatch: Dispatch,
        emit: Callable[[Message], None],
        ask: bool = True,
        cancelled: threading.Event | None = None,
    ) -> CallContext:
        """The call's context; ``ask=False`` for a call that must not wait on the client (an
        inline tool on the event loop: a request to the client would block the loop);
        ``cancelled`` is set when the client hangs up or cancels the call."""
        params = dispatch.message.params or {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        assert isinstance(meta, dict)
        token = meta.get("progressToken")
        connection = dispatch.connection
        caps = connection.client_capabilities_of(params)
        stop = cancelled if cancelled is not None else threading.Event()
        if dispatch.route is Route.STATELESS:
            level = meta.get(MetaKey.LOG_LEVEL)
            level = level if isinstance(level, str) else None
            return CallContext(params, token, level, caps, emit, None, stop)
        session = dispatch.session
        asker = self._asker(session, emit, stop) if session is not None and ask else None
        return CallContext(params, token, connection.log_level, caps, emit, asker, stop)

    def _asker(
        self, session: Session, emit: Callable[[Message], None], stop: threading.Event
    ) -> Callable[[str, Mapping[str, Any], float], Mapping[str, Any]]:
        limits = self.endpoint.limits

        def ask(method: str, params: Mapping[str, Any], timeout: float) -> Mapping[str, Any]:
            with self._lock:
                if session.asking >= limits.max_waiting_per_session:
                    raise McpminiError(
                        f"{method}: this session already has {session.asking} calls waiting "
                        f"on the client (limit {limits.max_waiting_per_session})"
                    )
                if self.waiting >= limits.max_waiting:
                    raise McpminiError(
                        f"{method}: {self.waiting} calls are waiting on clients "
                        f"(limit {limits.max_waiting}); try again later"
                    )
                session.asking += 1
                self.waiting += 1
            try:
                return self._wait_for_client(session, emit, method, params, timeout, stop)
            finally:
                with self._lock:
                    session.asking -= 1
                    self.waiting -= 1

        return ask

    def _wait_for_client(
        self,
        session: Session,
        emit: Callable[[Message], None],
        method: str,
        params: Mapping[str, Any],
        timeout: float,
        stop: threading.Event,
    ) -> Mapping[str, Any]:
        """Send one request to the client and wait (bounded) for its reply; the wait ends
        when the call is cancelled (``stop``: its client hung up)."""
        rid = session.new_request_id()
        future: concurrent.futures.Future[Message] = concurrent.futures.Future()
        session.waiting[rid] = future.set_result
        emit(Request(rid, method, dict(params)))
        limit = time.monotonic() + min(timeout, self.ask_timeout)
        while not future.done():
            left = limit - time.monotonic()
            if left <= 0 or stop.is_set():
                session.waiting.pop(rid, None)
                if stop.is_set():
                    raise McpminiError(f"{method}: the call was cancelled (its client went away)")
                raise TimeoutError(f"no reply to {method} within {timeout} s")
            stop.wait(min(left, 0.05))  # woken early by a cancel; the reply sets the future
        reply = future.result()
        if isinstance(reply, ErrorResponse):
            raise RemoteProtocolError(reply.message, reply.code, rid, reply.data)
        assert isinstance(reply, Response)
        return reply.result

    async def _run(self, dispatch: Dispatch, receive: Receive, send: Send) -> None:
        import asyncio  # here, not at the top: `import mcpmini.mcp` stays cheap

        connection = dispatch.connection
        message = dispatch.message
        spec = method_spec(message.method)
        if spec is not None and spec.holds:
            await self._listen(dispatch, receive, send)
            return
        if spec is None or not spec.streams:
            await self._write(send, self.endpoint.reply(dispatch, connection.handle(message)))
            return
        if self._inline(dispatch):
            await self._run_inline(dispatch, send)
            return
        refused = self.endpoint.reserve(dispatch)  # the per-session cap of running calls
        if refused is not None:
            await self._write(send, refused)
            return
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Message | _Final] = asyncio.Queue()
        cancelled = threading.Event()
        session = dispatch.session
        if session is not None and message.id is not None:
            session.cancels[message.id] = cancelled  # notifications/cancelled names it

        def emit(item: Message) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, item)

        context = self._context(dispatch, emit, cancelled=cancelled)

        def work() -> None:
            reply: Message | None
            try:
                with in_call(context):
                    reply = connection.handle(message)
            except BaseException as exc:  # handle() answers every Exception; be total anyway
                reply = error_reply(exc, message.id)
            finally:
                with contextlib.suppress(RuntimeError):  # the loop is gone: nothing to count
                    loop.call_soon_threadsafe(self.endpoint.release, dispatch)
            loop.call_soon_threadsafe(queue.put_nowait, _Final(reply))

        loop.run_in_executor(self.pool, contextvars.copy_context().run, work)
        gone = asyncio.Event()
        watcher = asyncio.ensure_future(_watch_disconnect(receive, gone))
        # A client that hangs up before any event of the call reached it can never get the
        # answer (there is no event id to resume from): the call is cancelled. Once events
        # with ids went out, a stateful stream can be resumed (Last-Event-ID), and the call
        # goes on until it ends, its session does or nobody resumed it for resume_wait
        # seconds (the specification: a disconnection is not a cancellation).
        resumable = False
        try:
            first = await _next(queue, gone)
            if first is None:
                return
            if isinstance(first, _Final) or not dispatch.sse:
                while not isinstance(first, _Final):  # a client that refuses SSE loses extras
                    first = await _next(queue, gone)
                    if first is None:
                        return
                await self._write(send, self.endpoint.reply(dispatch, first.reply))
                return
            resumable = await self._stream(dispatch, first, queue, send, gone)
        finally:
            watcher.cancel()
            if gone.is_set() and not resumable:
                cancelled.set()  # the client hung up and cannot get the answer: stop the tool
            if session is not None and message.id is not None:
                session.cancels.pop(message.id, None)

    async def _stream(
        self,
        dispatch: Dispatch,
        first: Message,
        queue: asyncio.Queue[Message | _Final],
        send: Send,
        gone: asyncio.Event,
    ) -> bool:
        """Write a call's messages then its reply as an event stream; a session's events are
        recorded with ids first, so a cut stream can be resumed (``Last-Event-ID``). Returns
        whether the call goes on: ``False`` when its client hung up and nobody can resume
        the stream (stateless)."""
        import asyncio

        loop = asyncio.get_running_loop()
        status, headers = self.endpoint.finish(dispatch, None)
        session = dispatch.session
        log = session.log if session is not None else None
        stream = log.open() if log is not None else ""
        taken = asyncio.Event()  # a Last-Event-ID resumption took the stream over
        let_go = taken.set  # one object: detach() knows this connection by it
        if session is not None:
            self.endpoint.attach(session, stream, let_go)

        def event(message: Message) -> bytes:
            return log.record(stream, message) if log is not None else sse_event(message)

        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": _SSE_HEADERS + _encode_headers(headers),
            }
        )
        try:
            item: Message | _Final | None = first
            while not isinstance(item, _Final):
                if item is None:  # the client hung up mid-stream, or a resumption took over
                    if session is None or log is None:
                        return False  # stateless: nobody can resume it, the call is cancelled
                    self.endpoint.detach(session, stream, let_go)
                    if not gone.is_set():  # taken over: this response ends here
                        await send({"type": "http.response.body", "body": b""})
                    # it may come back with Last-Event-ID: the rest goes into the session's
                    # log. Cancelled when the session ends, or when no connection has carried
                    # the stream for resume_wait seconds (nobody came back for it).
                    wait = self.endpoint.limits.resume_wait
                    given_up = loop.time() + wait
                    while True:
                        try:
                            rest = await asyncio.wait_for(queue.get(), 0.5)
                        except TimeoutError:
                            if stream in session.attached:
                                given_up = loop.time() + wait
                            elif loop.time() > given_up:
                                return False
                            continue
                        if not isinstance(rest, _Final):
                            event(rest)
                            continue
                        if rest.reply is not None:
                            event(rest.reply)
                        return True
                await send({"type": "http.response.body", "body": event(item), "more_body": True})
                item = await _next(queue, gone, taken)
            body = event(item.reply) if item.reply is not None else b""
        finally:
            if log is not None:
                log.close(stream)
            if session is not None:
                self.endpoint.detach(session, stream, let_go)
        await send({"type": "http.response.body", "body": body})
        return True

    async def _resume(self, resume: Resume, receive: Receive, send: Send) -> None:
        """Replay the kept events of ``resume.stream`` after ``resume.seq``, then forward its
        live ones until it finishes, the session ends, the client goes away or a later
        resumption takes the stream over."""
        import asyncio

        loop = asyncio.get_running_loop()
        session, log = resume.session, resume.session.log
        changed = asyncio.Event()
        taken = False

        def wake() -> None:
            loop.call_soon_threadsafe(changed.set)

        def let_go() -> None:  # called on the loop (HttpEndpoint.attach of a later GET)
            nonlocal taken
            taken = True
            changed.set()

        self.endpoint.attach(session, resume.stream, let_go)

        log.on_record.append(wake)
        session.on_close.append(wake)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*_SSE_HEADERS, (b"mcp-session-id", session.id.encode())],
            }
        )
        seq = resume.seq
        gone = asyncio.ensure_future(receive())
        try:
            while True:
                changed.clear()
                for number, event in log.after(resume.stream, seq):
                    await send({"type": "http.response.body", "body": event, "more_body": True})
                    seq = number
                if taken or not log.live(resume.stream) or session.closed.is_set():
                    break
                waiter = asyncio.ensure_future(changed.wait())
                await asyncio.wait({gone, waiter}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if gone.done():
                    break
        finally:
            gone.cancel()
            self.endpoint.detach(session, resume.stream, let_go)
            if wake in log.on_record:
                log.on_record.remove(wake)
            if wake in session.on_close:
                session.on_close.remove(wake)
        await send({"type": "http.response.body", "body": b""})

    async def _listen(self, dispatch: Dispatch, receive: Receive, send: Send) -> None:
        """``subscriptions/listen``: acknowledge, then forward announced notifications its
        filter asks for until the client goes away or the server shuts down."""
        import asyncio

        message = dispatch.message
        reply = dispatch.connection.handle(message)
        if not isinstance(reply, Response) or not dispatch.sse:
            await self._write(send, self.endpoint.reply(dispatch, reply))
            return
        agreed = reply.result.get("notifications") or {}
        queue: asyncio.Queue[Notification | None] = asyncio.Queue()
        listener = _Listener(message.id, agreed, asyncio.get_running_loop(), queue)
        key = id(listener)
        self._listeners[key] = listener
        status, headers = self.endpoint.finish(dispatch, None)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": _SSE_HEADERS + _encode_headers(headers),
            }
        )
        ack = sse_event(acknowledgement(message.id, agreed))
        await send({"type": "http.response.body", "body": ack, "more_body": True})
        gone = asyncio.ensure_future(receive())
        closing = b""
        try:
            while True:
                item = asyncio.ensure_future(queue.get())
                await asyncio.wait({gone, item}, return_when=asyncio.FIRST_COMPLETED)
                if gone.done():
                    item.cancel()
                    break
                note = item.result()
                if note is None:  # the server is shutting down: end with the listen result
                    closing = sse_event(ended(message.id, self.endpoint.server.server_info()))
                    break
                body = sse_event(tagged(note, message.id))
                await send({"type": "http.response.body", "body": body, "more_body": True})
        finally:
            gone.cancel()
            self._listeners.pop(key, None)
        await send({"type": "http.response.body", "body": closing})

    @staticmethod
    def _inline(dispatch: Dispatch) -> bool:
        """True for a ``tools/call`` of a tool registered ``inline`` (no thread hand-off)."""
        if dispatch.message.method != Method.TOOLS_CALL:
            return False
        name = (dispatch.message.params or {}).get("name")
        tool = dispatch.connection.server.tools.get(name) if isinstance(name, str) else None
        return tool is not None and tool.inline

    async def _run_inline(self, dispatch: Dispatch, send: Send) -> None:
        """Run an inline tool on the event loop; what it emits precedes the result on an
        event stream (or is dropped for a client that refuses one), as in :meth:`_run`."""
        emitted: list[Message] = []
        context = self._context(dispatch, emitted.append, ask=False)
        message = dispatch.message
        try:
            with in_call(context):
                reply = dispatch.connection.handle(message)
        except BaseException as exc:  # handle() answers every Exception; be total anyway
            reply = error_reply(exc, message.id)
        if not emitted or not dispatch.sse:
            await self._write(send, self.endpoint.reply(dispatch, reply))
            return
        status, headers = self.endpoint.finish(dispatch, None)
        events = b"".join(sse_event(m) for m in emitted)
        if reply is not None:
            events += sse_event(reply)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": _SSE_HEADERS + _encode_headers(headers),
            }
        )
        await send({"type": "http.response.body", "body": events})

    async def _hold_stream(self, session: Session, receive: Receive, send: Send) -> None:
        import asyncio

        loop = asyncio.get_running_loop()
        ended = asyncio.Event()

        def callback() -> None:
            loop.call_soon_threadsafe(ended.set)

        session.on_close.append(callback)
        if session.closed.is_set():
            callback()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*_SSE_HEADERS, (b"mcp-session-id", session.id.encode())],
            }
        )
        await send({"type": "http.response.body", "body": b": stream open\n\n", "more_body": True})
        waiter = asyncio.ensure_future(ended.wait())
        while not ended.is_set():
            gone = asyncio.ensure_future(receive())
            done, _ = await asyncio.wait({gone, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if gone in done and gone.result().get("type") == "http.disconnect":
                waiter.cancel()
                break
            if gone not in done:
                gone.cancel()
        if callback in session.on_close:
            session.on_close.remove(callback)
        await send({"type": "http.response.body", "body": b""})


def asgi_app(
    server: Server,
    *,
    path: str | None = None,
    protect_dns: bool = True,
    allowed_hosts: tuple[str, ...] = (),
    stateful: bool = True,
    max_body: int | None = None,
    limits: HttpLimits | None = None,
    identify: Callable[[HttpRequest], str | None] | None = None,
) -> McpAsgi:
    """An ASGI application serving ``server`` over Streamable HTTP (both generations).

    ``path`` limits the endpoint to one URL path (``None``: every path). ``stateful=False``
    serves only the stateless generation (no sessions: several workers can share one URL).
    ``limits`` (:class:`~mcpmini.mcp.http.HttpLimits`) holds every bound; ``max_body``
    overrides its field; ``identify`` names the authenticated caller of a request (a task
    counts against its caller). See :class:`~mcpmini.mcp.http.HttpEndpoint` for the other
    options.
    """
    endpoint = HttpEndpoint(
        server,
        protect_dns=protect_dns,
        allowed_hosts=allowed_hosts,
        stateful=stateful,
        max_body=max_body,
        limits=limits,
        identify=identify,
    )
    return McpAsgi(endpoint, path)


def listening_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A TCP socket listening on ``host:port`` (0: a free port) with ``TCP_NODELAY``.

    Accepted connections inherit ``TCP_NODELAY``: without it, a reply written as head then
    body waits for the peer's delayed ACK (about 40 ms per request on Linux).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=512)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


@contextmanager
def serve_http(
    app: Server | Callable[..., Any],
    host: str = "127.0.0.1",
    port: int = 0,
    stop_timeout: float = 10.0,
) -> Iterator[str]:
    """Serve ``app`` (an mcpmini ``Server`` or any ASGI app) under uvicorn in a background
    thread; yield the endpoint URL (``http://host:port/mcp``).

    The socket listens before the ``with`` body starts, so the URL works at once. On exit the
    server is asked to stop and the thread is joined (at most ``stop_timeout`` seconds).
    """
    import uvicorn

    application = asgi_app(app) if isinstance(app, Server) else app
    sock = listening_socket(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    config = uvicorn.Config(
        application, log_level="warning", access_log=False, timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="mcpmini-http"
    )
    thread.start()
    try:
        name = f"[{bound_host}]" if ":" in bound_host else bound_host
        yield f"http://{name}:{bound_port}/mcp"
    finally:
        server.should_exit = True
        thread.join(stop_timeout)
        sock.close()
