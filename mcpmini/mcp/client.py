"""An MCP client: version negotiation, pipelined requests, and tool-call outcomes.

``Client.connect()`` follows the official SDK client (reference: ``mcp-wire.md`` §2):

* ``modern``: ``server/discover`` with the 2026-07-28 envelope; on ``-32022`` one retry
  with the newest version of the intersection; no intersection is an error.
* ``legacy``: the ``initialize`` handshake, then ``notifications/initialized``; a
  version the client cannot speak ends the connection.
* ``auto`` (default): modern first; any other error, an invalid discover result or no
  reply within ``discover_timeout`` falls back to the handshake.

Requests can be pipelined: :meth:`Client.send_request` returns the id at once and
:meth:`Client.receive_reply` matches replies through a
:class:`~mcpmini.mcp.PendingTable`, in whatever order they come (Proposition 3.3).
:meth:`Client.call_tool` never raises for what the server does: it returns a
:class:`ToolOutcome` classified as ok / tool error / protocol error / no answer, and
:func:`to_tool_result` maps **every** outcome to exactly one ``tool_result``
(Proposition 3.7).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

from ..errors import LocalProtocolError, McpminiError, RemoteProtocolError, TransportError
from .jsonrpc import (
    ErrorCode,
    ErrorResponse,
    JsonId,
    Notification,
    PendingTable,
    Request,
    Response,
    encode,
    parse_line,
)
from .transport import Transport
from .versions import LEGACY, META_PREFIX, MODERN, Generation, is_modern

__all__ = [
    "Client",
    "ClientMode",
    "Connection",
    "OutcomeKind",
    "ToolOutcome",
    "to_tool_result",
]


class ClientMode(StrEnum):
    """How :meth:`Client.connect` agrees on a version (see the module docstring)."""

    AUTO = "auto"  # modern first, the handshake as fallback
    MODERN = "modern"  # ``server/discover`` only
    LEGACY = "legacy"  # the ``initialize`` handshake only


#: How many ``input_required`` rounds :meth:`Client.tool_outcome` answers before giving up.
MAX_INPUT_ROUNDS = 8


class OutcomeKind(Enum):
    """The four outcomes of a ``tools/call`` (Proposition 3.7, (i)–(iv))."""

    OK = "ok"  # (i)  result with isError false
    TOOL_ERROR = "tool_error"  # (ii) result with isError true
    PROTOCOL_ERROR = "protocol_error"  # (iii) JSON-RPC error reply
    NO_ANSWER = "no_answer"  # (iv) timeout, server exited, garbled reply


@dataclass(frozen=True)
class ToolOutcome:
    """What came back from one ``tools/call``.

    ``content`` holds the result's content blocks (empty unless a result arrived),
    ``code``/``message`` the JSON-RPC error (PROTOCOL_ERROR), ``reason`` why no answer
    came (``"timeout"``, ``"server exited"``, ``"garbled reply"``).
    """

    kind: OutcomeKind
    tool: str
    content: tuple[dict[str, Any], ...] = ()
    structured: Any = None
    code: int | None = None
    message: str = ""
    reason: str = ""

    @property
    def text(self) -> str:
        """The text blocks of the content joined by newlines."""
        return "\n".join(b.get("text", "") for b in self.content if b.get("type") == "text")


def _render(content: Iterable[Mapping[str, Any]]) -> str:
    """Content blocks as text for the model: text as is, other blocks as a short placeholder."""
    parts = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "resource_link" or kind == "resource":
            inner = block.get("resource", block)
            parts.append(f"[resource {inner.get('uri', '?')}]")
        else:
            parts.append(f"[{kind} content, {block.get('mimeType', 'unknown type')}]")
    return "\n".join(parts)


def to_tool_result(outcome: ToolOutcome, tool_use_id: str) -> dict[str, Any]:
    """Map any outcome to exactly one ``tool_result`` block for the model (total θ).

    (i) and (ii) carry the server's text with ``is_error`` from ``isError``; (iii) and
    (iv) are written by the client itself so the loop can always continue.
    """
    kind = outcome.kind
    if kind is OutcomeKind.OK:
        text, is_error = _render(outcome.content), False
    elif kind is OutcomeKind.TOOL_ERROR:
        text, is_error = _render(outcome.content) or "The tool reported an error.", True
    elif kind is OutcomeKind.PROTOCOL_ERROR:
        text, is_error = f"MCP error {outcome.code}: {outcome.message}", True
    else:
        text, is_error = f"No answer from the MCP server ({outcome.reason}).", True
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": text,
        "is_error": is_error,
    }


@dataclass(frozen=True)
class Connection:
    """What ``connect()`` agreed: generation, version, and the server's self-description."""

    generation: Generation
    version: str
    server_info: Mapping[str, Any]
    capabilities: Mapping[str, Any]
    instructions: str | None = None
    steps: tuple[str, ...] = field(default=())


class Client:
    """An MCP client over any :class:`~mcpmini.mcp.Transport`.

    ``mode`` is a :class:`ClientMode` (or its value, e.g. ``"auto"``); ``versions`` are the
    protocol versions the client speaks; ``timeout`` bounds every wait for a reply,
    ``discover_timeout`` the wait for ``server/discover`` in auto mode.
    """

    def __init__(
        self,
        transport: Transport,
        mode: ClientMode | str = ClientMode.AUTO,
        versions: Collection[str] = (LEGACY, MODERN),
        client_info: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        discover_timeout: float = 5.0,
        capabilities: Mapping[str, Any] | None = None,
        handlers: Mapping[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]] | None = None,
    ) -> None:
        if mode not in tuple(ClientMode):
            raise ValueError(f"mode must be auto, modern or legacy, not {mode!r}")
        self.transport = transport
        self.mode = ClientMode(mode)
        self.versions = tuple(sorted(set(versions)))
        self.client_info = dict(client_info or {"name": "mcpmini", "version": "0.1.0"})
        self.timeout = timeout
        self.discover_timeout = discover_timeout
        #: what the client declares (``elicitation``, ``sampling``, ``roots`` …) in both generations
        self.capabilities = dict(capabilities or {})
        #: method → function answering the server's requests (elicitation, sampling, roots/list)
        self.handlers = dict(handlers or {})
        self.pending = PendingTable()
        self.connection: Connection | None = None
        self.stray: list[bytes] = []  # lines that matched no outstanding request
        self._done: dict[JsonId, Response | ErrorResponse] = {}
        self._garbled: set[JsonId] = set()
        self._calls: dict[
            JsonId, dict[str, Any]
        ] = {}  # tools/call params, for input_required retries
        self._version: str | None = None  # modern: the version put in every envelope

    # --- plumbing -----------------------------------------------------------------------

    def _envelope(self, params: Mapping[str, Any] | None, version: str) -> dict[str, Any]:
        out = dict(params or {})
        meta = {
            META_PREFIX + "protocolVersion": version,
            META_PREFIX + "clientCapabilities": self.capabilities,
            META_PREFIX + "clientInfo": self.client_info,
        }
        if out.get("_meta"):
            meta = {**out["_meta"], **meta}
        out["_meta"] = meta
        return out

    def send_request(
        self, method: str, params: Mapping[str, Any] | None = None, version: str | None = None
    ) -> JsonId:
        """Send a request without waiting; return its id.

        After a modern ``connect()`` the envelope is added automatically (``version``
        overrides it). Raises :class:`TransportError` if the server is gone.
        """
        version = version or self._version
        if version is not None:
            params = self._envelope(params, version)
        request = Request(
            self.pending.allocate(), method, dict(params) if params is not None else None
        )
        self.pending.add(request)
        self.transport.send(encode(request))
        return request.id

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Send a notification (no reply will come)."""
        self.transport.send(encode(Notification(method, dict(params) if params else None)))

    def receive_reply(
        self, timeout: float | None = None
    ) -> tuple[Request, Response | ErrorResponse]:
        """Wait for the next reply to any outstanding request; return ``(request, reply)``.

        Lines that are not JSON, replies to unknown ids and server-initiated messages are
        set aside (``self.stray``), as the official client tolerates them. Raises
        :class:`TimeoutError`, or :class:`TransportError` when the server closed stdout.
        """
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no reply in time")
            line = self.transport.receive(remaining)
            if line is None:
                raise TransportError("server closed the connection")
            if not line.strip():
                continue
            try:
                message = parse_line(line)
            except RemoteProtocolError as exc:
                if exc.id is not None and exc.id in self.pending:
                    self._garbled.add(exc.id)
                    request = self.pending.resolve(ErrorResponse(exc.id, exc.code, exc.message))
                    return request, ErrorResponse(exc.id, exc.code, "garbled reply: " + exc.message)
                self.stray.append(line)
                continue
            if isinstance(message, (Response, ErrorResponse)):
                if message.id is None and len(self.pending) != 1:
                    self.stray.append(line)
                    continue
                if message.id is not None and message.id not in self.pending:
                    self.stray.append(line)  # e.g. a late reply to a request we gave up on
                    continue
                return self.pending.resolve(message), message
            if isinstance(message, Request):
                self.transport.send(encode(self._answer(message)))
            # server notifications (logging, progress…) are not needed here

    def _answer(self, request: Request) -> Response | ErrorResponse:
        """The reply to a request from the server: its handler's result, or ``-32601``."""
        handler = self.handlers.get(request.method)
        if handler is None:
            return ErrorResponse(
                request.id, ErrorCode.METHOD_NOT_FOUND, f"Method not found: {request.method}"
            )
        try:
            return Response(request.id, dict(handler(request.params or {})))
        except Exception as exc:
            return ErrorResponse(
                request.id, ErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}"
            )

    def wait_for(
        self, request_id: JsonId, timeout: float | None = None
    ) -> Response | ErrorResponse:
        """Wait for the reply to ``request_id``, keeping replies to others for later.

        Raises :class:`TimeoutError` (the request is then forgotten, so a late reply is
        set aside) or :class:`TransportError`.
        """
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while request_id not in self._done:
            try:
                request, reply = self.receive_reply(max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                self.pending.discard(request_id)
                raise
            self._done[request.id] = reply
        return self._done.pop(request_id)

    def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        version: str | None = None,
    ) -> dict[str, Any]:
        """Send a request and wait for its result.

        Returns the result object. Raises :class:`RemoteProtocolError` carrying the
        server's error code, :class:`TimeoutError`, or :class:`TransportError`.
        """
        reply = self.wait_for(self.send_request(method, params, version), timeout)
        if isinstance(reply, ErrorResponse):
            raise RemoteProtocolError(reply.message, reply.code, reply.id, reply.data)
        return dict(reply.result)

    def gather(
        self, calls: Iterable[tuple[str, Mapping[str, Any] | None]], timeout: float | None = None
    ) -> list[Response | ErrorResponse]:
        """Pipeline several requests: send all, then collect the replies in request order."""
        ids = [self.send_request(method, params) for method, params in calls]
        return [self.wait_for(i, timeout) for i in ids]

    # --- connecting ---------------------------------------------------------------------

    def connect(self) -> Connection:
        """Agree on a protocol version with the server (see the module docstring).

        Returns the :class:`Connection`. Raises :class:`McpminiError` when no version
        can be agreed, :class:`TransportError` when the server goes away.
        """
        steps: list[str] = []
        modern = [v for v in self.versions if is_modern(v)]
        legacy = [v for v in self.versions if not is_modern(v)]
        if self.mode in (ClientMode.AUTO, ClientMode.MODERN) and modern:
            connection = self._discover(
                modern, steps, fallback=self.mode is ClientMode.AUTO and bool(legacy)
            )
            if connection is not None:
                self.connection = connection
                return connection
        if self.mode is ClientMode.MODERN or not legacy:
            raise McpminiError("the client has no protocol version this mode can use")
        try:
            self.connection = self._initialize(legacy, steps)
        except RemoteProtocolError as exc:
            # A server slow to start may answer our discover after we gave up on it; it is
            # then stateless and refuses initialize with -32022. Ask it again, patiently.
            if (
                self.mode is not ClientMode.AUTO
                or exc.code != ErrorCode.UNSUPPORTED_PROTOCOL_VERSION
                or not modern
            ):
                raise
            steps.append("initialize refused with -32022: the server is stateless after all")
            connection = self._discover(modern, steps, fallback=False)
            assert connection is not None
            self.connection = connection
        return self.connection

    def _discover(self, modern: list[str], steps: list[str], fallback: bool) -> Connection | None:
        version = modern[-1]
        for attempt in (1, 2):
            steps.append(f"server/discover with {version}")
            timeout = self.discover_timeout if fallback else self.timeout
            try:
                result = self.request("server/discover", None, timeout, version=version)
            except TimeoutError:
                steps.append("no reply in time")
                if fallback:
                    return None
                raise
            except RemoteProtocolError as exc:
                if exc.code == ErrorCode.UNSUPPORTED_PROTOCOL_VERSION and attempt == 1:
                    supported = (
                        (exc.data or {}).get("supported", []) if isinstance(exc.data, dict) else []
                    )
                    common = sorted(set(modern) & set(supported))
                    steps.append(f"-32022, server supports {supported}")
                    if common:
                        version = common[-1]
                        continue
                    if supported and all(is_modern(v) for v in supported):
                        raise McpminiError(
                            f"no protocol version in common: client {modern}, server {supported}"
                        ) from None
                else:
                    steps.append(f"error {exc.code}")
                if fallback:
                    return None
                raise McpminiError(f"server/discover failed: {exc.message} ({exc.code})") from None
            valid = (
                isinstance(result.get("supportedVersions"), list)
                and isinstance(result.get("capabilities"), dict)
                and result.get("cacheScope", "public") in ("public", "private")
            )
            if not valid:
                steps.append("invalid discover result")
                if fallback:
                    return None
                raise McpminiError("server/discover returned an invalid result")
            if version not in result["supportedVersions"]:
                common = sorted(set(modern) & set(result["supportedVersions"]))
                if not common:
                    raise McpminiError("no protocol version in common")
                version = common[-1]
            self._version = version
            steps.append(f"modern, version {version}")
            info = (result.get("_meta") or {}).get(META_PREFIX + "serverInfo", {})
            return Connection(
                Generation.MODERN,
                version,
                info,
                result["capabilities"],
                result.get("instructions"),
                tuple(steps),
            )
        return None

    def _initialize(self, legacy: list[str], steps: list[str]) -> Connection:
        offer = legacy[-1]
        steps.append(f"initialize with {offer}")
        result = self.request(
            "initialize",
            {
                "protocolVersion": offer,
                "capabilities": self.capabilities,
                "clientInfo": self.client_info,
            },
        )
        answer = result.get("protocolVersion")
        if answer not in legacy:
            steps.append(f"server answered {answer}: disconnect")
            raise McpminiError(
                f"server answered protocol version {answer!r}, "
                f"which this client does not speak ({legacy})"
            )
        self.notify("notifications/initialized")
        steps.append(f"legacy, version {answer}")
        return Connection(
            Generation.LEGACY,
            answer,
            result.get("serverInfo", {}),
            result.get("capabilities", {}),
            result.get("instructions"),
            tuple(steps),
        )

    # --- tools --------------------------------------------------------------------------

    def list_tools(self) -> list[dict[str, Any]]:
        """All tool definitions (follows ``nextCursor`` pages). Raises like :meth:`request`."""
        tools: list[dict[str, Any]] = []
        cursor = None
        while True:
            result = self.request("tools/list", {"cursor": cursor} if cursor else None)
            tools.extend(result.get("tools", []))
            cursor = result.get("nextCursor")
            if not cursor:
                return tools

    def send_tool_call(self, name: str, arguments: Mapping[str, Any] | None = None) -> JsonId:
        """Send a ``tools/call`` without waiting; collect it with :meth:`tool_outcome`."""
        params = {"name": name, "arguments": dict(arguments or {})}
        request_id = self.send_request("tools/call", params)
        self._calls[request_id] = params
        return request_id

    def _input_responses(self, result: Mapping[str, Any]) -> dict[str, Any]:
        """Answers to an ``input_required`` result's requests, from :attr:`handlers` (SEP-2322).

        Raises :class:`LocalProtocolError` (``-32601``) for a request no handler answers.
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
        return answers

    def tool_outcome(
        self, name: str, request_id: JsonId, timeout: float | None = None
    ) -> ToolOutcome:
        """Wait for the reply to a ``tools/call`` and classify it; never raises for the server.

        An ``input_required`` result (2026-07-28, SEP-2322) is answered through
        :attr:`handlers` and the call repeated with a new id, ``inputResponses`` and the
        unchanged ``requestState``, at most ``MAX_INPUT_ROUNDS`` times.
        """
        params = self._calls.pop(request_id, None)
        try:
            reply = self.wait_for(request_id, timeout)
            rounds = 0
            while (
                isinstance(reply, Response)
                and reply.result.get("resultType") == "input_required"
                and params is not None
                and rounds < MAX_INPUT_ROUNDS
            ):
                rounds += 1
                try:
                    answers = self._input_responses(reply.result)
                except LocalProtocolError as exc:
                    return ToolOutcome(
                        OutcomeKind.PROTOCOL_ERROR, name, code=exc.code, message=exc.message
                    )
                retry = {
                    "name": params["name"],
                    "arguments": params["arguments"],
                    "inputResponses": answers,
                }
                if "requestState" in reply.result:
                    retry["requestState"] = reply.result["requestState"]
                request_id = self.send_request("tools/call", retry)
                reply = self.wait_for(request_id, timeout)
        except TimeoutError:
            return ToolOutcome(OutcomeKind.NO_ANSWER, name, reason="timeout")
        except TransportError:
            return ToolOutcome(OutcomeKind.NO_ANSWER, name, reason="server exited")
        if request_id in self._garbled:
            self._garbled.discard(request_id)
            return ToolOutcome(OutcomeKind.NO_ANSWER, name, reason="garbled reply")
        if isinstance(reply, ErrorResponse):
            return ToolOutcome(
                OutcomeKind.PROTOCOL_ERROR, name, code=reply.code, message=reply.message
            )
        content = reply.result.get("content")
        if not isinstance(content, list):
            return ToolOutcome(OutcomeKind.NO_ANSWER, name, reason="garbled reply")
        kind = OutcomeKind.TOOL_ERROR if reply.result.get("isError") is True else OutcomeKind.OK
        return ToolOutcome(
            kind,
            name,
            tuple(b for b in content if isinstance(b, dict)),
            reply.result.get("structuredContent"),
        )

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, timeout: float | None = None
    ) -> ToolOutcome:
        """Call a tool and return its :class:`ToolOutcome` (never raises for the server)."""
        try:
            request_id = self.send_tool_call(name, arguments)
        except TransportError:
            return ToolOutcome(OutcomeKind.NO_ANSWER, name, reason="server exited")
        return self.tool_outcome(name, request_id, timeout)

    def close(self) -> int | None:
        """Close the transport (for a subprocess: end it and its children).

        Returns the transport's answer: a process's exit code, ``None`` for the others.
        """
        return self.transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
