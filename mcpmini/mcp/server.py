"""An MCP server with no I/O: the app (:class:`Server`) and one connection's state
(:class:`ServerConnection`).

A :class:`Server` is the registry: tools, resources, prompts, server info, the versions it
accepts, and one ``on_<method>`` handler per method it answers. A
:class:`ServerConnection` is one peer's state — generation, agreed version, client
capabilities, log level, subscriptions — and owns ``handle()`` (one parsed message in, the
reply or ``None`` out) and ``handle_line()`` (one wire line in, every problem answered as a
JSON-RPC error so a malformed line never stops the server). ``server.connection()`` makes a
fresh one for each peer (``memory_pair`` for each client, ``serve_stdio`` for its stream, the
HTTP endpoint for each session and each stateless request); ``server.handle()`` /
``server.handle_line()`` answer one message on a connection of its own, which suits the
stateless generation (each request carries its context) and nothing that needs a handshake.
The transports (:mod:`mcpmini.mcp.transport`, :mod:`mcpmini.mcp.asgi`) only move lines.

Rules of this module:

* Connection state lives only in :class:`ServerConnection` (one dataclass; a server with
  more per-connection state subclasses it and names it in ``Server.connection_class``).
  The ``Server`` holds no connection — not even a default one — and nothing that one
  connection may change, so connections never see each other's state — with one stated
  exception: ``Server.tasks``, the tasks extension's table (:mod:`.tasks`), which every
  connection shares because a task outlives the request that created it. Its task ids are
  unguessable handles (there is no ``tasks/list``); the table lives in one process, so
  ``serve --workers N`` cannot follow a task across workers.
* The first request fixes a connection's generation (as the official SDK server does): a
  request with the 2026-07-28 ``_meta`` envelope makes it *modern* (stateless,
  ``server/discover``, ``UNSUPPORTED_PROTOCOL_VERSION`` on an unknown version,
  ``resultType`` / ``ttlMs`` / ``cacheScope`` in results); ``initialize`` makes it
  *legacy* (handshake).
* Which methods exist, in which generation, and which results carry ``ttlMs`` is read from
  :mod:`.methods`; a request goes to the handler the row names, or gets ``METHOD_NOT_FOUND``.
* Handlers raise :class:`~mcpmini.errors.RemoteProtocolError` for protocol problems;
  ``handle()`` turns every exception into an error reply through ``jsonrpc.error_reply``.

Tools are plain functions. ``@server.tool()`` derives the input schema from the type hints
and the docstring (:mod:`mcpmini.mcp.schema`), which also validates the arguments before the
call. Invalid arguments and exceptions raised by the tool become ``isError: true`` results
(the model can fix them); an unknown tool name is the protocol error ``INVALID_PARAMS``, as
the article's Definition 3.6 puts it (the official SDK returns ``isError`` instead).
"""

from __future__ import annotations

import inspect
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import orjson

from ..errors import RemoteProtocolError
from .context import CallContext, in_call
from .envelope import TASKS_EXTENSION, MetaKey, is_enveloped, meta_of, server_meta
from .jsonrpc import (
    ErrorCode,
    Message,
    Notification,
    Request,
    Response,
    encode,
    error_reply,
    parse_line,
)
from .methods import Method, method_spec
from .schema import Validator, check_schema, docstring_parts, schema_from_function
from .tasks import (
    TaskCancelled,
    TaskSupport,
    TaskTable,
    UnknownTask,
    declares_tasks,
)
from .versions import LEGACY, MODERN, Generation, is_modern

__all__ = [
    "Prompt",
    "Resource",
    "Server",
    "ServerConnection",
    "Tool",
    "runs_as_task",
]

_F = TypeVar("_F", bound=Callable[..., object])  # a tool function, returned unchanged
#: A method handler: (connection, request, params) → the result object.
Handler = Callable[["ServerConnection", Request, dict[str, Any]], dict[str, Any]]


@dataclass
class Tool:
    """A registered tool: its wire definition and the function behind it.

    ``inline`` says the function neither blocks nor asks the client anything (sampling,
    elicitation), so an HTTP server may run it on its event loop instead of handing it to a
    worker thread; it may still report progress and log messages. ``task`` says whether a
    call may run as a task of the tasks extension (:class:`~mcpmini.mcp.tasks.TaskSupport`).
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    fn: Callable[..., object]
    output_schema: dict[str, Any] | None = None
    inline: bool = False
    task: TaskSupport = TaskSupport.FORBIDDEN
    _validator: Validator | None = field(default=None, repr=False)

    def definition(self) -> dict[str, Any]:
        """The ``tools/list`` entry for this tool."""
        out = {"name": self.name, "description": self.description, "inputSchema": self.input_schema}
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema
        return out

    def errors(self, arguments: object) -> list[str]:
        """Validation messages for ``arguments`` against the input schema (empty when valid)."""
        if self._validator is None:  # compiled on first use: listing many tools stays cheap
            self._validator = Validator(self.input_schema)
        return self._validator.errors(arguments)


@dataclass
class Resource:
    """A registered resource: a URI and a function returning its text."""

    uri: str
    name: str
    description: str
    mime_type: str
    fn: Callable[[], str]


@dataclass
class Prompt:
    """A registered prompt template: a function returning the prompt text."""

    name: str
    description: str
    arguments: list[dict[str, Any]]
    fn: Callable[..., str]


def _non_finite(value: object, where: str = "result") -> str | None:
    """The path of the first NaN or infinity inside ``value`` (JSON has neither), else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return where
    if isinstance(value, Mapping):
        items: Iterable[tuple[object, object]] = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _non_finite(item, f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}")
        if found:
            return found
    return None


def _content(value: object) -> tuple[list[dict[str, Any]], Any]:
    """Wrap a tool's return value as MCP content blocks (and structured content).

    A list of content blocks passes through; any other value is sent as its JSON text plus
    ``structuredContent`` (wrapped as ``{"result": …}`` unless it is an object, as the
    official SDK does, an empty list included). Raises ``TypeError`` for a value that is
    not JSON and ``ValueError`` for a NaN or infinity (orjson would silently send ``null``).
    """
    if isinstance(value, str):
        return [{"type": "text", "text": value}], None
    if (
        isinstance(value, list)
        and value
        and all(isinstance(b, dict) and "type" in b for b in value)
    ):
        return value, None
    bad = _non_finite(value)
    if bad:
        raise ValueError(f"{bad} is not a finite number, which JSON cannot carry")
    text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()  # TypeError if not JSON
    structured = value if isinstance(value, dict) else {"result": value}
    return [{"type": "text", "text": text}], structured


def _invalid(message: str, req: Request, data: Any = None) -> RemoteProtocolError:
    return RemoteProtocolError(message, ErrorCode.INVALID_PARAMS, req.id, data)


#: The ``data`` of a ``MISSING_CLIENT_CAPABILITY`` error asking for the tasks extension.
NEEDS_TASKS: dict[str, Any] = {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}


def _needs_tasks(req: Request, what: str) -> RemoteProtocolError:
    return RemoteProtocolError(
        f"{what} needs the client capability extensions[{TASKS_EXTENSION!r}]",
        ErrorCode.MISSING_CLIENT_CAPABILITY,
        req.id,
        NEEDS_TASKS,
    )


def runs_as_task(
    conn: ServerConnection, req: Request, params: Mapping[str, Any], support: TaskSupport
) -> bool:
    """Whether a request with ``params`` runs as a task: only on 2026-07-28, when its client
    capabilities declare the tasks extension and ``support`` allows one. Raises
    ``MISSING_CLIENT_CAPABILITY`` (with the extension in ``data``) for a ``required`` tool
    and a client without the extension.
    """
    if support is TaskSupport.FORBIDDEN:
        return False
    declared = conn.generation is Generation.MODERN and declares_tasks(
        conn.client_capabilities_of(params)
    )
    if not declared and support is TaskSupport.REQUIRED:
        raise _needs_tasks(req, f"{req.method} {params.get('name')}")
    return declared


def _start_thread(work: Callable[[], None]) -> None:
    threading.Thread(target=work, name="mcpmini-task", daemon=True).start()


def _progress_text(params: Mapping[str, Any]) -> str:
    """A task's ``statusMessage`` for one progress notification of its work."""
    message = params.get("message")
    if isinstance(message, str):
        return message
    total = params.get("total")
    done = params.get("progress")
    return f"{done}/{total}" if total is not None else f"{done}"


def _not_found(req: Request) -> RemoteProtocolError:
    return RemoteProtocolError(
        f"Method not found: {req.method}", ErrorCode.METHOD_NOT_FOUND, req.id, status_hint=404
    )


@dataclass(eq=False)
class ServerConnection:
    """One connection's state, and ``handle()`` for the messages of that connection.

    ``generation`` is ``None`` until the first request fixes it; ``version`` is the agreed
    version (handshake) or the version of the latest request (2026-07-28);
    ``client_capabilities`` what ``initialize`` declared; ``log_level`` the least severe
    level the client wants (``logging/setLevel``); ``subscriptions`` the resource URIs it
    subscribed to; ``caller`` who the transport says the peer is (an authenticated identity;
    ``None``: anonymous) — its tasks count against it (:mod:`.tasks`).
    """

    server: Server
    generation: Generation | None = None
    version: str | None = None
    client_capabilities: Mapping[str, Any] = field(default_factory=dict)
    log_level: str = "info"
    subscriptions: set[str] = field(default_factory=set)
    caller: str | None = None

    def client_capabilities_of(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        """The client capabilities in force for a request with ``params``: on 2026-07-28
        those of its ``_meta`` envelope, on the handshake what ``initialize`` declared."""
        if self.generation is Generation.MODERN:
            caps = meta_of(params).get(MetaKey.CLIENT_CAPABILITIES)
            return caps if isinstance(caps, dict) else {}
        return self.client_capabilities

    def handle_line(self, line: bytes | str) -> bytes | None:
        """Handle one wire line; return the reply line, or ``None`` when no reply is due.

        Never raises for anything the peer sends: parse errors and invalid requests are
        answered per JSON-RPC 2.0 (``id: null`` when the id cannot be read). A blank
        line is ignored.
        """
        if not line.strip():
            return None
        try:
            message = parse_line(line)
        except RemoteProtocolError as exc:
            return encode(error_reply(exc))
        reply = self.handle(message)
        return None if reply is None else encode(reply)

    def handle(self, message: Message) -> Message | None:
        """Handle one parsed message; return the reply, or ``None`` for anything but a request.

        Every exception raised while handling a request becomes an error reply here
        (protocol errors keep their code; anything else is ``INTERNAL_ERROR`` without detail).
        """
        if isinstance(message, Notification):
            return None  # notifications/initialized and the others change nothing here
        if not isinstance(message, Request):
            return None  # a stray reply: this server sends no requests
        try:
            return self._request(message)
        except Exception as exc:
            return error_reply(exc, message.id)

    def _request(self, req: Request) -> Message:
        params = dict(req.params or {})
        meta = params.get("_meta")
        enveloped = is_enveloped(params)
        server = self.server
        if self.generation is None:
            if req.method == Method.INITIALIZE and server.legacy_versions:
                self.generation = Generation.LEGACY
            elif (enveloped and server.modern_versions) or not server.legacy_versions:
                self.generation = Generation.MODERN
        if req.method == Method.INITIALIZE:
            return self._initialize(req, params)
        if self.generation is Generation.MODERN:
            self._check_envelope(req, meta)
            return self._dispatch(req, params)
        if enveloped:
            raise RemoteProtocolError(
                "This connection uses the initialize handshake; requests must not carry the "
                "2026-07-28 _meta envelope",
                ErrorCode.INVALID_REQUEST,
                req.id,
            )
        if self.generation is None:
            raise RemoteProtocolError(
                "Not initialized: send initialize first, or use the 2026-07-28 _meta envelope",
                ErrorCode.INVALID_REQUEST,
                req.id,
            )
        return self._dispatch(req, params)

    def _initialize(self, req: Request, params: dict[str, Any]) -> Message:
        server = self.server
        if self.generation is Generation.MODERN:
            raise RemoteProtocolError(
                "This connection is stateless (2026-07-28); initialize is not supported",
                ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                req.id,
                {"supported": server.modern_versions, "requested": params.get("protocolVersion")},
            )
        requested = params.get("protocolVersion")
        caps = params.get("capabilities")
        if (
            not isinstance(requested, str)
            or not isinstance(params.get("clientInfo"), dict)
            or not isinstance(caps, dict)
        ):
            raise _invalid(
                "initialize needs protocolVersion (string), capabilities and clientInfo (objects)",
                req,
            )
        # The handshake rule: echo a supported version, else answer with our newest one.
        legacy = server.legacy_versions
        self.version = requested if requested in legacy else legacy[-1]
        self.client_capabilities = caps
        result: dict[str, Any] = {
            "protocolVersion": self.version,
            "capabilities": server.capabilities(Generation.LEGACY),
            "serverInfo": server.server_info(),
        }
        if server.instructions:
            result["instructions"] = server.instructions
        return Response(req.id, result)

    def _check_envelope(self, req: Request, meta: object) -> None:
        if not isinstance(meta, dict):
            raise _invalid("Invalid params: missing params._meta envelope (2026-07-28)", req)
        version = meta.get(MetaKey.PROTOCOL_VERSION)
        if not isinstance(version, str):
            raise _invalid(
                f"Invalid params: _meta[{MetaKey.PROTOCOL_VERSION.value!r}] must be a string", req
            )
        if not isinstance(meta.get(MetaKey.CLIENT_CAPABILITIES), dict):
            raise _invalid(
                f"Invalid params: _meta[{MetaKey.CLIENT_CAPABILITIES.value!r}] must be an object",
                req,
            )
        info = meta.get(MetaKey.CLIENT_INFO)
        if info is not None and not (
            isinstance(info, dict)
            and isinstance(info.get("name"), str)
            and isinstance(info.get("version"), str)
        ):
            raise _invalid(
                f"Invalid params: _meta[{MetaKey.CLIENT_INFO.value!r}] needs string name and "
                "version",
                req,
            )
        supported = self.server.modern_versions
        if version not in supported:
            raise RemoteProtocolError(
                "Unsupported protocol version",
                ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                req.id,
                {"supported": supported, "requested": version},
            )
        self.version = version

    def _dispatch(self, req: Request, params: dict[str, Any]) -> Message:
        spec = method_spec(req.method)
        if spec is None or not spec.answered_by_server or self.generation not in spec.generations:
            raise _not_found(req)
        handler: Handler | None = getattr(self.server, spec.handler, None)
        if handler is None:
            raise _not_found(req)
        result = handler(self, req, params)
        if self.generation is Generation.MODERN:
            result.setdefault("resultType", "complete")  # "input_required" is kept (SEP-2322)
            if spec.cached:
                result.setdefault("ttlMs", self.server.list_ttl_ms)
                result.setdefault("cacheScope", self.server.cache_scope)
            result["_meta"] = server_meta(self.server.server_info())
        return Response(req.id, result)


class Server:
    """A sans-I/O MCP server: the registry every connection shares.

    ``versions`` lists every protocol version the server accepts: handshake versions
    (before 2026-07-28) through ``initialize``, per-request versions through the
    ``_meta`` envelope. ``list_ttl_ms`` and ``cache_scope`` go into modern results the
    method table marks as cached. ``connection_class`` is the state of one connection.
    ``tasks`` is the table of the tasks extension (its TTL, polling interval and bounds —
    by default at most 256 live tasks of anonymous callers together and 64 of each
    authenticated caller, counted against that caller only; a flood of anonymous tasks can
    fill the anonymous pool for a TTL (5 minutes), never an authenticated caller's),
    ``run_task`` what starts a task's work (a daemon thread by default; a test passes one
    that runs it at once or keeps it).
    """

    connection_class: ClassVar[type[ServerConnection]] = ServerConnection

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        versions: Sequence[str] = (LEGACY, MODERN),
        instructions: str | None = None,
        list_ttl_ms: int = 300_000,
        cache_scope: str = "public",
        tasks: TaskTable | None = None,
        run_task: Callable[[Callable[[], None]], None] = _start_thread,
    ) -> None:
        if not versions:
            raise ValueError("a server needs at least one protocol version")
        self.name = name
        self.version = version
        self.versions = tuple(sorted(set(versions)))
        self.instructions = instructions
        self.list_ttl_ms = list_ttl_ms
        self.cache_scope = cache_scope
        self.tools: dict[str, Tool] = {}
        self.resources: dict[str, Resource] = {}
        self.prompts: dict[str, Prompt] = {}
        #: The tasks of the tasks extension: shared by every connection, since a task outlives
        #: the request (and, on the stateless wire, the connection) that created it.
        self.tasks = tasks if tasks is not None else TaskTable()
        #: Starts a task's work off the caller's thread (a daemon thread by default).
        self.run_task = run_task

    def connection(self, generation: Generation | None = None) -> ServerConnection:
        """A fresh connection to this server: the same tools, resources and prompts, its own
        state; ``generation`` fixes it up front (the stateless HTTP route)."""
        return self.connection_class(self, generation)

    def handle(self, message: Message) -> Message | None:
        """Answer ``message`` on a connection of its own (``connection().handle(message)``).

        Right for a stateless 2026-07-28 request, which carries its context; a handshake
        needs one connection for all its messages — use :meth:`connection`.
        """
        return self.connection().handle(message)

    def handle_line(self, line: bytes | str) -> bytes | None:
        """Answer one wire line on a connection of its own (see :meth:`handle`)."""
        return self.connection().handle_line(line)

    # --- registration -------------------------------------------------------------------

    @property
    def modern_versions(self) -> list[str]:
        """The per-request versions this server accepts, oldest first."""
        return [v for v in self.versions if is_modern(v)]

    @property
    def legacy_versions(self) -> list[str]:
        """The handshake versions this server accepts, oldest first."""
        return [v for v in self.versions if not is_modern(v)]

    def tool(
        self,
        name: str | None = None,
        description: str | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        *,
        inline: bool = False,
        task: TaskSupport = TaskSupport.FORBIDDEN,
    ) -> Callable[[_F], _F]:
        """Decorator registering a function as a tool; returns the function unchanged.

        The name defaults to the function's name, the description to its docstring
        (without the ``Args:`` section), the schema to :func:`schema_from_function`.
        ``inline=True`` promises the function never blocks nor asks the client (see
        :class:`Tool`); ``task`` lets a call run as a task (tasks extension). Raises
        ``ValueError`` for a duplicate name or an invalid explicit schema.
        """

        def register(fn: _F) -> _F:
            self.add_tool(
                fn, name, description, input_schema, output_schema, inline=inline, task=task
            )
            return fn

        return register

    def add_tool(
        self,
        fn: Callable[..., object],
        name: str | None = None,
        description: str | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        *,
        inline: bool = False,
        task: TaskSupport = TaskSupport.FORBIDDEN,
    ) -> Tool:
        """Register ``fn`` as a tool (the non-decorator form of :meth:`tool`)."""
        tool_name = name or fn.__name__
        if tool_name in self.tools:
            raise ValueError(f"tool {tool_name!r} is already registered")
        doc_text, _ = docstring_parts(fn.__doc__)
        schema = input_schema if input_schema is not None else schema_from_function(fn)
        check_schema(schema)
        tool = Tool(
            tool_name,
            description if description is not None else doc_text,
            schema,
            fn,
            output_schema,
            inline,
            TaskSupport(task),
        )
        self.tools[tool_name] = tool
        return tool

    def resource(
        self, uri: str, name: str | None = None, mime_type: str = "text/plain"
    ) -> Callable[[Callable[[], str]], Callable[[], str]]:
        """Decorator registering a function returning text as the resource ``uri``."""

        def register(fn: Callable[[], str]) -> Callable[[], str]:
            doc, _ = docstring_parts(fn.__doc__)
            self.resources[uri] = Resource(uri, name or fn.__name__, doc, mime_type, fn)
            return fn

        return register

    def prompt(self, name: str | None = None) -> Callable[[Callable[..., str]], Callable[..., str]]:
        """Decorator registering a function returning text as a prompt template."""

        def register(fn: Callable[..., str]) -> Callable[..., str]:
            doc, texts = docstring_parts(fn.__doc__)
            args = [
                {
                    "name": p.name,
                    "description": texts.get(p.name, ""),
                    "required": p.default is p.empty,
                }
                for p in inspect.signature(fn).parameters.values()
            ]
            self.prompts[name or fn.__name__] = Prompt(name or fn.__name__, doc, args, fn)
            return fn

        return register

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The ``tools/list`` entries, sorted by name (a deterministic order keeps caches warm)."""
        return [self.tools[n].definition() for n in sorted(self.tools)]

    def capabilities(self, generation: Generation) -> dict[str, Any]:
        """The server capabilities advertised in ``initialize`` / ``server/discover``."""
        caps: dict[str, Any] = {"tools": {"listChanged": False}}
        if self.resources:
            caps["resources"] = {"subscribe": False, "listChanged": False}
        if self.prompts:
            caps["prompts"] = {"listChanged": False}
        if generation is Generation.MODERN and self.offers_tasks:
            caps["extensions"] = {TASKS_EXTENSION: {}}
        return caps

    @property
    def offers_tasks(self) -> bool:
        """Whether some tool may run as a task (the server then advertises the extension)."""
        return any(t.task is not TaskSupport.FORBIDDEN for t in self.tools.values())

    def server_info(self) -> dict[str, str]:
        """``{"name", "version"}`` of this server."""
        return {"name": self.name, "version": self.version}

    def call_tool(
        self,
        tool: Tool | str,
        arguments: object,
        reraise: tuple[type[BaseException], ...] = (),
    ) -> dict[str, Any]:
        """Validate ``arguments`` and run the tool; return the ``tools/call`` result.

        Invalid arguments and exceptions raised by the tool give ``isError: true`` with a
        short text the model can act on, except those of the types in ``reraise`` (a task
        turns a protocol error into ``failed``). Raises ``KeyError`` for an unknown tool name.
        """
        tool = self.tools[tool] if isinstance(tool, str) else tool
        problems = tool.errors(arguments)
        if problems or not isinstance(arguments, Mapping):  # keywords, whatever the schema says
            why = "; ".join(problems) or "arguments must be a JSON object"
            return {
                "content": [{"type": "text", "text": "Invalid arguments: " + why}],
                "isError": True,
            }
        try:
            content, structured = _content(tool.fn(**arguments))
        except Exception as exc:
            if isinstance(exc, reraise):
                raise
            return {
                "content": [{"type": "text", "text": f"{type(exc).__name__}: {exc}"}],
                "isError": True,
            }
        result: dict[str, Any] = {"content": content, "isError": False}
        if structured is not None:
            result["structuredContent"] = structured
        return result

    # --- method handlers: on_<Method member>(connection, request, params) → result ------

    def on_server_discover(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``server/discover``: the versions, capabilities and instructions."""
        result: dict[str, Any] = {
            "supportedVersions": self.modern_versions,
            "capabilities": self.capabilities(Generation.MODERN),
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def on_ping(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``ping``: an empty result."""
        return {}

    def on_tools_list(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``tools/list``: every tool definition."""
        return {"tools": self.tool_definitions()}

    def on_tools_call(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``tools/call``: run the named tool (an unknown name is ``INVALID_PARAMS``)."""
        name = params.get("name")
        if not isinstance(name, str):
            raise _invalid("Invalid params: tools/call needs a string name", req)
        tool = self.tools.get(name)
        if tool is None:
            raise _invalid(f"Unknown tool: {name}", req)
        arguments = params.get("arguments", {})
        if arguments is None:
            arguments = {}
        if not runs_as_task(conn, req, params, tool.task):
            return self.call_tool(tool, arguments)
        if tool.errors(arguments) or not isinstance(arguments, Mapping):
            return self.call_tool(tool, arguments)  # the isError result, at once
        return self.start_task(
            req,
            lambda: self.call_tool(tool, arguments, (RemoteProtocolError, TaskCancelled)),
            params,
            conn.client_capabilities_of(params),
            owner=conn.caller,
        )

    # --- the tasks extension (SEP-2663) -----------------------------------------------

    def start_task(
        self,
        req: Request,
        work: Callable[[], Mapping[str, Any]],
        params: Mapping[str, Any] | None = None,
        capabilities: Mapping[str, Any] | None = None,
        *,
        owner: str | None = None,
    ) -> dict[str, Any]:
        """Create a task of ``owner`` (the connection's authenticated caller, ``None``:
        anonymous) running ``work`` off this thread; return the ``CreateTaskResult``.

        ``work`` runs with a :class:`~mcpmini.mcp.context.CallContext` (the request's
        ``params`` and client ``capabilities``) whose ``request`` becomes the task's input
        requests (answered by ``tasks/update``; the wait lasts as long as the task lives),
        whose progress becomes its ``statusMessage`` and whose ``cancelled`` is set by
        ``tasks/cancel`` or the end of its TTL. Log messages are dropped (SEP-2663 has none
        for tasks). Its result completes the task; a
        :class:`~mcpmini.errors.RemoteProtocolError` fails it with that error, any other
        exception with ``INTERNAL_ERROR``. The task exists before this returns (a
        ``tasks/get`` right after resolves). Raises ``INTERNAL_ERROR`` when the owner's pool
        of the table is full (the limits: :class:`~mcpmini.mcp.tasks.TaskTable`).
        """
        table = self.tasks
        try:
            created = table.create(owner)
        except OverflowError as exc:
            raise RemoteProtocolError(str(exc), ErrorCode.INTERNAL_ERROR, req.id) from None
        task_id = created["taskId"]

        def ask(method: str, params: Mapping[str, Any], timeout: float) -> Mapping[str, Any]:
            answer = table.wait_answer(
                task_id, table.ask(task_id, {"method": method, "params": dict(params)})
            )
            return answer if isinstance(answer, dict) else {}

        def emit(message: Message) -> None:
            if (
                isinstance(message, Notification)
                and message.method == Method.NOTIFICATIONS_PROGRESS
            ):
                table.note(task_id, _progress_text(message.params or {}))

        context = CallContext(
            dict(params or {}),
            task_id,
            None,
            dict(capabilities or {}),
            emit,
            ask,
            table.stopped(task_id),
        )

        def run() -> None:
            with in_call(context):
                try:
                    result = work()
                except TaskCancelled:
                    return
                except Exception as exc:
                    reply = error_reply(exc)
                    error = {"code": reply.code, "message": reply.message}
                    if reply.data is not None:
                        error["data"] = reply.data
                    table.fail(task_id, error)
                else:
                    table.complete(task_id, result)

        try:
            self.run_task(run)
        except Exception as exc:  # no thread to run it: the task fails, visibly
            table.fail(task_id, {"code": ErrorCode.INTERNAL_ERROR, "message": str(exc)})
        return {"resultType": "task", **created}

    def _task_params(self, conn: ServerConnection, req: Request, params: dict[str, Any]) -> Any:
        if not declares_tasks(conn.client_capabilities_of(params)):
            raise _needs_tasks(req, req.method)
        return params.get("taskId")

    def on_tasks_get(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``tasks/get``: the task's state, its result or error inlined once it ended."""
        task_id = self._task_params(conn, req, params)
        try:
            return self.tasks.get(task_id, conn.caller)
        except UnknownTask as exc:
            raise _invalid(f"Failed to retrieve task: {exc}", req) from None

    def on_tasks_update(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``tasks/update``: deliver ``inputResponses``; an empty acknowledgement."""
        task_id = self._task_params(conn, req, params)
        responses = params.get("inputResponses")
        if not isinstance(responses, dict):
            raise _invalid("Invalid params: tasks/update needs an inputResponses object", req)
        try:
            self.tasks.update(task_id, responses, conn.caller)
        except UnknownTask as exc:
            raise _invalid(f"Failed to update task: {exc}", req) from None
        return {}

    def on_tasks_cancel(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``tasks/cancel``: cancel the task (a finished one stays as it is); an empty
        acknowledgement."""
        task_id = self._task_params(conn, req, params)
        try:
            self.tasks.cancel(task_id, conn.caller)
        except UnknownTask as exc:
            raise _invalid(f"Failed to cancel task: {exc}", req) from None
        return {}

    def on_resources_list(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``resources/list``: every resource, sorted by URI."""
        items = [
            {"uri": r.uri, "name": r.name, "description": r.description, "mimeType": r.mime_type}
            for _, r in sorted(self.resources.items())
        ]
        return {"resources": items}

    def on_resources_read(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``resources/read``: the text of the resource ``uri``."""
        uri = params.get("uri")
        resource = self.resources.get(uri) if isinstance(uri, str) else None
        if resource is None:
            raise _invalid(f"Resource not found: {uri}", req, {"uri": uri})
        content = {"uri": resource.uri, "mimeType": resource.mime_type, "text": resource.fn()}
        return {"contents": [content]}

    def on_prompts_list(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``prompts/list``: every prompt template, sorted by name."""
        items = [
            {"name": p.name, "description": p.description, "arguments": p.arguments}
            for _, p in sorted(self.prompts.items())
        ]
        return {"prompts": items}

    def on_prompts_get(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``prompts/get``: the rendered prompt. Arguments that are not an object of strings,
        missing required ones and names the prompt does not declare are ``INVALID_PARAMS``
        (the template never sees them)."""
        name = params.get("name")
        prompt = self.prompts.get(name) if isinstance(name, str) else None
        if prompt is None:
            raise _invalid(f"Unknown prompt: {name}", req)
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict) or not all(
            isinstance(v, str) for v in arguments.values()
        ):
            raise _invalid("Invalid params: prompt arguments must be an object of strings", req)
        declared = [a["name"] for a in prompt.arguments]
        unknown = sorted(set(arguments) - set(declared))
        if unknown:
            raise _invalid(f"Invalid params: unknown prompt arguments {unknown}", req)
        missing = [
            a["name"] for a in prompt.arguments if a["required"] and a["name"] not in arguments
        ]
        if missing:
            raise _invalid(f"Invalid params: missing prompt arguments {missing}", req)
        text = prompt.fn(**arguments)
        return {
            "description": prompt.description,
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        }

    def on_subscriptions_listen(
        self, conn: ServerConnection, req: Request, params: dict[str, Any]
    ) -> dict[str, Any]:
        """``subscriptions/listen``: the filter this server agrees to honour (the transport
        sends it as the stream's acknowledgement, see :mod:`.subscriptions`); a filter that is
        not an object is ``INVALID_PARAMS``, task ids from a client without the tasks
        extension ``MISSING_CLIENT_CAPABILITY``."""
        from .subscriptions import agreed_filter

        requested = params.get("notifications")
        if not isinstance(requested, dict):
            raise _invalid("Invalid params: subscriptions/listen needs a notifications object", req)
        if requested.get("taskIds") and not declares_tasks(conn.client_capabilities_of(params)):
            raise _needs_tasks(req, "notifications.taskIds")
        try:
            return {"notifications": agreed_filter(requested, self.capabilities(Generation.MODERN))}
        except ValueError as exc:
            raise _invalid(f"Invalid params: {exc}", req) from None
