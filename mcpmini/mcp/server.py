"""An MCP server with no I/O: a registry of tools, resources and prompts plus ``handle()``.

``Server.handle(message)`` takes one parsed message and returns the reply (or ``None``
for a notification); ``Server.handle_line(bytes)`` does the same for one wire line and
turns *every* problem into a JSON-RPC error reply, so a malformed line never stops the
server. The transport (:mod:`mcpmini.mcp.transport`) only moves lines.

Both protocol generations are spoken, and the first request fixes the generation of
the connection (as the official SDK server does): a request with the 2026-07-28
``_meta`` envelope makes it *modern* (stateless, ``server/discover``, ``-32022`` on an
unknown version, ``resultType``/``ttlMs``/``cacheScope`` in results); ``initialize``
makes it *legacy* (handshake). One ``Server`` object serves one connection.

Tools are plain functions. ``@server.tool()`` derives the input schema from the type
hints and the docstring (:mod:`mcpmini.mcp.schema`), which also validates the arguments
before the call.
Invalid arguments and exceptions raised by the tool become ``isError: true`` results
(the model can fix them); an unknown tool name is a protocol error ``-32602``, as the
article's Definition 3.6 puts it (the official SDK returns ``isError`` instead).
"""

from __future__ import annotations

import copy
import inspect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import orjson

from ..errors import RemoteProtocolError
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
from .schema import Validator, check_schema, docstring_parts, schema_from_function
from .versions import LEGACY, META_PREFIX, MODERN, Generation, is_modern

__all__ = [
    "Prompt",
    "Resource",
    "Server",
    "Tool",
]

VERSION_KEY = META_PREFIX + "protocolVersion"
CAPABILITIES_KEY = META_PREFIX + "clientCapabilities"
CLIENT_INFO_KEY = META_PREFIX + "clientInfo"
SERVER_INFO_KEY = META_PREFIX + "serverInfo"
_F = TypeVar("_F", bound=Callable[..., object])  # a tool function, returned unchanged


@dataclass
class Tool:
    """A registered tool: its wire definition and the function behind it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    fn: Callable[..., object]
    output_schema: dict[str, Any] | None = None
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


class Server:
    """A sans-I/O MCP server for one connection.

    ``versions`` lists every protocol version the server accepts: handshake versions
    (before 2026-07-28) through ``initialize``, per-request versions through the
    ``_meta`` envelope. ``list_ttl_ms`` and ``cache_scope`` go into modern list results.
    """

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        versions: Sequence[str] = (LEGACY, MODERN),
        instructions: str | None = None,
        list_ttl_ms: int = 300_000,
        cache_scope: str = "public",
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
        #: None until the first request fixes the generation of the connection.
        self.generation: Generation | None = None
        self.negotiated: str | None = None

    def connection(self, generation: Generation | None = None) -> Server:
        """A server for one more connection: the same tools, resources and prompts (shared),
        none of this connection's state; ``generation`` fixes it up front (stateless HTTP)."""
        other = copy.copy(self)
        other.generation = generation
        other.negotiated = None
        return other

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
    ) -> Callable[[_F], _F]:
        """Decorator registering a function as a tool; returns the function unchanged.

        The name defaults to the function's name, the description to its docstring
        (without the ``Args:`` section), the schema to :func:`schema_from_function`.
        Raises ``ValueError`` for a duplicate name or an invalid explicit schema.
        """

        def register(fn: _F) -> _F:
            self.add_tool(fn, name, description, input_schema, output_schema)
            return fn

        return register

    def add_tool(
        self,
        fn: Callable[..., object],
        name: str | None = None,
        description: str | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
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

    def capabilities(self) -> dict[str, Any]:
        """The server capabilities advertised in ``initialize`` / ``server/discover``."""
        caps: dict[str, Any] = {"tools": {"listChanged": False}}
        if self.resources:
            caps["resources"] = {"subscribe": False, "listChanged": False}
        if self.prompts:
            caps["prompts"] = {"listChanged": False}
        return caps

    def server_info(self) -> dict[str, str]:
        """``{"name", "version"}`` of this server."""
        return {"name": self.name, "version": self.version}

    # --- the wire -----------------------------------------------------------------------

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
        (protocol errors keep their code; anything else is ``-32603`` without detail).
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
        enveloped = isinstance(meta, dict) and VERSION_KEY in meta
        if self.generation is None:
            if req.method == "initialize" and self.legacy_versions:
                self.generation = Generation.LEGACY
            elif (enveloped and self.modern_versions) or not self.legacy_versions:
                self.generation = Generation.MODERN
        if req.method == "initialize":
            return self._initialize(req, params)
        if self.generation is Generation.MODERN:
            self._check_envelope(req, meta)
            return self._dispatch(req, params, modern=True)
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
        return self._dispatch(req, params, modern=False)

    def _initialize(self, req: Request, params: dict[str, Any]) -> Message:
        if self.generation is Generation.MODERN:
            raise RemoteProtocolError(
                "This connection is stateless (2026-07-28); initialize is not supported",
                ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                req.id,
                {"supported": self.modern_versions, "requested": params.get("protocolVersion")},
            )
        requested = params.get("protocolVersion")
        if (
            not isinstance(requested, str)
            or not isinstance(params.get("clientInfo"), dict)
            or not isinstance(params.get("capabilities"), dict)
        ):
            raise RemoteProtocolError(
                "initialize needs protocolVersion (string), capabilities and clientInfo (objects)",
                ErrorCode.INVALID_PARAMS,
                req.id,
            )
        # The handshake rule: echo a supported version, else answer with our newest one.
        agreed = requested if requested in self.legacy_versions else self.legacy_versions[-1]
        self.negotiated = agreed
        result: dict[str, Any] = {
            "protocolVersion": agreed,
            "capabilities": self.capabilities(),
            "serverInfo": self.server_info(),
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return Response(req.id, result)

    def _check_envelope(self, req: Request, meta: object) -> None:
        if not isinstance(meta, dict):
            raise RemoteProtocolError(
                "Invalid params: missing params._meta envelope (2026-07-28)",
                ErrorCode.INVALID_PARAMS,
                req.id,
            )
        version = meta.get(VERSION_KEY)
        if not isinstance(version, str):
            raise RemoteProtocolError(
                f"Invalid params: _meta[{VERSION_KEY!r}] must be a string",
                ErrorCode.INVALID_PARAMS,
                req.id,
            )
        if not isinstance(meta.get(CAPABILITIES_KEY), dict):
            raise RemoteProtocolError(
                f"Invalid params: _meta[{CAPABILITIES_KEY!r}] must be an object",
                ErrorCode.INVALID_PARAMS,
                req.id,
            )
        info = meta.get(CLIENT_INFO_KEY)
        if info is not None and not (
            isinstance(info, dict)
            and isinstance(info.get("name"), str)
            and isinstance(info.get("version"), str)
        ):
            raise RemoteProtocolError(
                f"Invalid params: _meta[{CLIENT_INFO_KEY!r}] needs string name and version",
                ErrorCode.INVALID_PARAMS,
                req.id,
            )
        if version not in self.modern_versions:
            raise RemoteProtocolError(
                "Unsupported protocol version",
                ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                req.id,
                {"supported": self.modern_versions, "requested": version},
            )

    def _dispatch(self, req: Request, params: dict[str, Any], modern: bool) -> Message:
        handler = self._METHODS.get(req.method)
        if (
            handler is None
            or (req.method == "server/discover" and not modern)
            or (req.method == "ping" and modern)
        ):
            raise RemoteProtocolError(
                f"Method not found: {req.method}", ErrorCode.METHOD_NOT_FOUND, req.id
            )
        result, is_list = handler(self, req, params)
        if modern:
            result.setdefault("resultType", "complete")  # "input_required" is kept (SEP-2322)
            if is_list:
                result.setdefault("ttlMs", self.list_ttl_ms)
                result.setdefault("cacheScope", self.cache_scope)
            result["_meta"] = {SERVER_INFO_KEY: self.server_info()}
        return Response(req.id, result)

    # Each method handler returns (result dict, whether it is a list result).

    def _discover(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        result: dict[str, Any] = {
            "supportedVersions": self.modern_versions,
            "capabilities": self.capabilities(),
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result, True

    def _ping(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        return {}, False

    def _tools_list(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        return {"tools": self.tool_definitions()}, True

    def _tools_call(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        name = params.get("name")
        if not isinstance(name, str):
            raise RemoteProtocolError(
                "Invalid params: tools/call needs a string name", ErrorCode.INVALID_PARAMS, req.id
            )
        tool = self.tools.get(name)
        if tool is None:
            raise RemoteProtocolError(f"Unknown tool: {name}", ErrorCode.INVALID_PARAMS, req.id)
        arguments = params.get("arguments", {})
        if arguments is None:
            arguments = {}
        return self.call_tool(tool, arguments), False

    def call_tool(self, tool: Tool | str, arguments: object) -> dict[str, Any]:
        """Validate ``arguments`` and run the tool; return the ``tools/call`` result.

        Invalid arguments and exceptions raised by the tool give ``isError: true`` with a
        short text the model can act on. Raises ``KeyError`` for an unknown tool name.
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
            return {
                "content": [{"type": "text", "text": f"{type(exc).__name__}: {exc}"}],
                "isError": True,
            }
        result: dict[str, Any] = {"content": content, "isError": False}
        if structured is not None:
            result["structuredContent"] = structured
        return result

    def _resources_list(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        items = [
            {"uri": r.uri, "name": r.name, "description": r.description, "mimeType": r.mime_type}
            for _, r in sorted(self.resources.items())
        ]
        return {"resources": items}, True

    def _resources_read(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        uri = params.get("uri")
        resource = self.resources.get(uri) if isinstance(uri, str) else None
        if resource is None:
            raise RemoteProtocolError(
                f"Resource not found: {uri}", ErrorCode.INVALID_PARAMS, req.id, {"uri": uri}
            )
        return {
            "contents": [
                {"uri": resource.uri, "mimeType": resource.mime_type, "text": resource.fn()}
            ]
        }, False

    def _prompts_list(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        items = [
            {"name": p.name, "description": p.description, "arguments": p.arguments}
            for _, p in sorted(self.prompts.items())
        ]
        return {"prompts": items}, True

    def _prompts_get(self, req: Request, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        name = params.get("name")
        prompt = self.prompts.get(name) if isinstance(name, str) else None
        if prompt is None:
            raise RemoteProtocolError(f"Unknown prompt: {name}", ErrorCode.INVALID_PARAMS, req.id)
        arguments = params.get("arguments") or {}
        missing = [
            a["name"] for a in prompt.arguments if a["required"] and a["name"] not in arguments
        ]
        if not isinstance(arguments, dict) or missing:
            raise RemoteProtocolError(
                f"Invalid params: missing prompt arguments {missing}",
                ErrorCode.INVALID_PARAMS,
                req.id,
            )
        text = prompt.fn(**arguments)
        return {
            "description": prompt.description,
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        }, False

    _METHODS: ClassVar[dict[str, Callable[..., tuple[dict[str, Any], bool]]]] = {
        "server/discover": _discover,
        "ping": _ping,
        "tools/list": _tools_list,
        "tools/call": _tools_call,
        "resources/list": _resources_list,
        "resources/read": _resources_read,
        "prompts/list": _prompts_list,
        "prompts/get": _prompts_get,
    }
