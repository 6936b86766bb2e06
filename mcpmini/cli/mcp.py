"""``mcpmini serve`` and ``mcpmini call``: example servers, and an inspector for any MCP server."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from ..errors import McpminiError, UsageError
from .output import json_object, print_json

if TYPE_CHECKING:  # the mcp package is imported when a command runs, not when the CLI loads
    from ..mcp import Client, Traced
    from .inspect import Console

__all__ = ["add", "http_app"]

#: Tells uvicorn worker processes which example server to build (see :func:`http_app`).
SERVER_ENV = "MCPMINI_HTTP_SERVER"


def http_app() -> Any:
    """ASGI factory for ``uvicorn --factory``: the example server named in
    ``$MCPMINI_HTTP_SERVER``."""
    import json

    from ..mcp import SAMPLES, asgi_app
    from ..mcp.http import HttpLimits

    name = os.environ.get(SERVER_ENV, "add")
    allowed = tuple(h for h in os.environ.get(SERVER_ENV + "_ALLOWED_HOSTS", "").split(",") if h)
    limits = HttpLimits(**json.loads(os.environ.get(SERVER_ENV + "_LIMITS", "{}")))
    return asgi_app(
        SAMPLES[name](),
        stateful=os.environ.get(SERVER_ENV + "_STATELESS") != "1",
        protect_dns=os.environ.get(SERVER_ENV + "_PROTECT_DNS", "1") == "1",
        allowed_hosts=allowed,
        limits=limits,
    )


#: ``serve --http`` limit flags: (flag, HttpLimits field, type, help).
_LIMIT_FLAGS = (
    (
        "--max-sessions",
        "max_sessions",
        int,
        "sessions kept; the least recently used idle one "
        "makes room, 503 when every session has a call in flight",
    ),
    (
        "--session-idle",
        "session_idle",
        float,
        "seconds without a request or a call in flight after which a session ends",
    ),
    ("--max-body", "max_body", int, "bytes per request body (413 above)"),
    ("--worker-threads", "worker_threads", int, "threads running tool, prompt and resource calls"),
    (
        "--max-waiting",
        "max_waiting",
        int,
        "calls that may wait on clients (sampling, "
        "elicitation) at once, over all sessions; below --worker-threads",
    ),
    (
        "--max-waiting-per-session",
        "max_waiting_per_session",
        int,
        "such calls per session; a further request to the client fails in the tool at once",
    ),
    ("--ask-timeout", "ask_timeout", float, "seconds a call waits for the client's reply"),
    (
        "--replay-events",
        "replay_events",
        int,
        "events kept per session for Last-Event-ID resumption",
    ),
)


def add(sub: Any) -> None:
    from ..mcp import LOG_LEVELS, SAMPLES, ClientMode

    serve = sub.add_parser(
        "serve", help="serve an example MCP server over stdio or Streamable HTTP"
    )
    serve.add_argument("name", choices=sorted(SAMPLES), help="which example server")
    serve.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument(
        "--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)"
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="uvicorn worker processes (more than 1 implies --stateless)",
    )
    serve.add_argument(
        "--fd",
        type=int,
        default=None,
        help="serve on this already listening socket (inherited file descriptor)",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="also accept this Host/Origin name (DNS-rebinding protection, repeatable)",
    )
    serve.add_argument(
        "--stateless",
        action="store_true",
        help="serve only the 2026-07-28 stateless generation (no sessions)",
    )
    from ..mcp.http import HttpLimits

    defaults = HttpLimits()
    for flag, field, kind, text in _LIMIT_FLAGS:
        serve.add_argument(
            flag,
            type=kind,
            default=None,
            dest="limit_" + field,
            metavar="SECONDS" if kind is float else "N",
            help=f"--http: {text} (default {getattr(defaults, field)})",
        )
    serve.set_defaults(handler=_cmd_serve)

    call = sub.add_parser(
        "call",
        help="connect to an MCP server (stdio command or HTTP URL) and run one method",
        description="Inspector-like: start SERVER_COMMAND (or reach --url), connect, run METHOD, "
        "print the result.",
        usage="mcpmini call METHOD [options] (--url URL | -- SERVER_COMMAND...)",
    )
    call.add_argument("method", help="tools/list, tools/call, resources/list, prompts/list, ...")
    call.add_argument("--tool", help="tool name for tools/call")
    call.add_argument("--args", default="{}", help="tool arguments (or params) as a JSON object")
    call.add_argument(
        "--mode", choices=[m.value for m in ClientMode], default=ClientMode.AUTO.value
    )
    call.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        help="seconds the whole call may take (connecting, writing, every reply)",
    )
    call.add_argument("--url", help="a Streamable HTTP server, e.g. http://127.0.0.1:8000/mcp")
    call.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'K: V'",
        help="an HTTP header for every request (repeatable), e.g. 'Authorization: Bearer T'",
    )
    call.add_argument(
        "--json", action="store_true", help="print the result object as exact JSON (nothing else)"
    )
    call.add_argument(
        "--raw",
        "--trace",
        dest="raw",
        action="store_true",
        help="print every JSON-RPC line both ways on stderr as it crosses",
    )
    call.add_argument(
        "--save",
        metavar="DIR",
        help="write image, audio and blob content into DIR as <index>.<extension>",
    )
    call.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=None,
        help="the least severe log message to receive (default: the server's; info on 2026-07-28)",
    )
    call.add_argument(
        "--task",
        action="store_true",
        help="declare the tasks extension (2026-07-28): the server may run the call as a task; "
        "its state is polled and shown until it ends, and cancelled at --timeout or Ctrl-C",
    )
    call.add_argument(
        "--elicit",
        metavar="JSON",
        help="declare elicitation and answer every elicitation request with this result, e.g. "
        '\'{"action": "accept", "content": {"confirm": true}}\' (a task\'s input requests too)',
    )
    call.set_defaults(command_line=[], handler=_cmd_call)


def _cmd_serve(args: argparse.Namespace) -> int:
    from ..mcp import SAMPLES, serve_stdio

    if not args.http:
        serve_stdio(SAMPLES[args.name]())
        return 0
    import json

    import uvicorn

    from ..mcp.asgi import listening_socket
    from ..mcp.http import HttpLimits

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    chosen = {field: getattr(args, "limit_" + field) for _, field, _, _ in _LIMIT_FLAGS}
    chosen = {k: v for k, v in chosen.items() if v is not None}
    try:
        HttpLimits(**chosen)
    except ValueError as exc:
        raise UsageError(f"--http limits: {exc}") from None
    os.environ[SERVER_ENV + "_LIMITS"] = json.dumps(chosen)
    os.environ[SERVER_ENV] = args.name
    os.environ[SERVER_ENV + "_ALLOWED_HOSTS"] = ",".join(args.allow_host)
    # DNS-rebinding protection (Host and Origin checked) is on for a loopback address; a server
    # bound to another address is meant to be reached by other names, unless --allow-host
    # lists them.
    loopback = args.host in ("127.0.0.1", "localhost", "::1")
    os.environ[SERVER_ENV + "_PROTECT_DNS"] = "1" if loopback or args.allow_host else "0"
    if args.stateless or args.workers > 1:
        # Sessions live in one process: several workers can only share the stateless wire.
        os.environ[SERVER_ENV + "_STATELESS"] = "1"
    fd, sock = args.fd, None
    if fd is None:
        # Bind here so --port 0 can report the port it got, with TCP_NODELAY (see listening_socket).
        try:
            sock = listening_socket(args.host, args.port)
        except OSError as exc:  # address in use, not this host's, a name that does not resolve
            raise UsageError(f"cannot listen on {args.host} port {args.port}: {exc}") from None
        sock.set_inheritable(True)
        fd = sock.fileno()
        host, port = sock.getsockname()[:2]
        where = f"http://{'[' + host + ']' if ':' in host else host}:{port}/mcp"
    else:
        where = f"socket fd {fd}"
    print(
        f"mcpmini: serving {args.name} on {where} "
        f"({args.workers} worker{'s' if args.workers > 1 else ''})",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(
        "mcpmini.cli.mcp:http_app",
        factory=True,
        fd=fd,
        workers=args.workers,
        log_level="warning",
        timeout_graceful_shutdown=2,
        access_log=False,
    )
    if sock is not None:
        sock.close()
    return 0


def _headers(items: list[str]) -> dict[str, str]:
    """``--header 'Name: value'`` options as a mapping. Raises ``UsageError`` for a bad one."""
    headers = {}
    for item in items:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"--header {item!r} is not 'Name: value'")
        headers[name.strip()] = value.strip()
    return headers


def _call_transport(args: argparse.Namespace, console: Console) -> Traced:
    """The traced transport ``mcpmini call`` talks over: ``--url`` or the command after ``--``;
    with ``--raw`` its trace writes each line to the console as it crosses.

    Raises ``UsageError`` for contradictory or missing options, ``TransportError`` when the
    command cannot be started.
    """
    from ..mcp import HttpTransport, StdioTransport, Traced
    from .inspect import LiveTrace

    argv = list(args.command_line)
    if argv and args.url:
        raise UsageError("give either --url or a server command after --, not both")
    if not argv and not args.url:
        raise UsageError("give --url URL or the server command after --, e.g. -- mcpmini serve add")
    headers = _headers(args.header)
    if args.method == "tools/call" and not args.tool:
        raise UsageError("tools/call needs --tool NAME")
    if args.url and not args.url.startswith(("http://", "https://")):
        raise UsageError(f"--url {args.url!r} is not an http:// or https:// URL")
    trace = LiveTrace(console) if args.raw else None
    if not args.url:
        return Traced(StdioTransport(argv), trace)
    return Traced(HttpTransport(args.url, headers, timeout=args.timeout), trace)


class _Budget:
    """One deadline for a whole ``mcpmini call`` (``--timeout``): the handshake, ``tools/list``
    for the output schema and the call itself each wait only for what is left of it."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left (a small positive floor, so a spent budget fails at the next wait)."""
        return max(0.01, self.deadline - time.monotonic())


def _print_raw(
    client: Client, args: argparse.Namespace, params: dict[str, Any], budget: _Budget
) -> int:
    """``--json``: the raw reply, the result object or ``{"error": {...}}``; 1 for an error."""
    from ..mcp import ErrorResponse, call_meta

    if args.method == "tools/call":
        meta = call_meta(client, args.log_level or "info")
        request_id = client.send_tool_call(args.tool, params, meta)
    else:
        request_id = client.send_request(args.method, params or None)
    reply = client.wait_for(request_id, timeout=budget.left())
    if isinstance(reply, ErrorResponse):
        print_json({"error": {"code": reply.code, "message": reply.message, "data": reply.data}})
        return 1
    result = dict(reply.result)
    if result.get("resultType") == "task":  # the final state of the task, as tasks/get gave it
        try:
            result = client.follow_task(result, budget.left())
        except TimeoutError:
            raise McpminiError(
                f"task {result.get('taskId')} did not end within --timeout {args.timeout:g} s "
                "(cancelled)"
            ) from None
        print_json(result)
        inner = result.get("result")
        return 0 if isinstance(inner, dict) and inner.get("isError") is not True else 1
    print_json(result)
    return 1 if result.get("isError") is True else 0


def _output_schema(client: Client, tool: str, budget: _Budget) -> dict[str, Any] | None:
    """The ``outputSchema`` ``tools/list`` gives for ``tool`` (``None``: none, or no list)."""
    from ..errors import RemoteProtocolError

    client.timeout = budget.left()  # list_tools waits (per page) with the client's timeout
    try:
        tools = client.list_tools()
    except (RemoteProtocolError, TimeoutError):
        return None
    found = next((t for t in tools if isinstance(t, dict) and t.get("name") == tool), None)
    schema = found.get("outputSchema") if found is not None else None
    return schema if isinstance(schema, dict) else None


def _save(console: Console, folder: str | None, blocks: Any) -> None:
    from .inspect import save_blocks

    if folder is None:
        return
    for path in save_blocks(folder, blocks):
        console.line(f"saved {path}")


def _print_call(
    client: Client,
    args: argparse.Namespace,
    params: dict[str, Any],
    console: Console,
    budget: _Budget,
) -> int:
    """``tools/call``: notifications as they arrive, then the outcome, every content block
    and the structured-content verdict; 0 only for ok."""
    from ..mcp import OutcomeKind
    from ..mcp.inspection import inspect_call

    schema = _output_schema(client, args.tool, budget)
    record = inspect_call(
        client,
        args.tool,
        params,
        schema,
        on_notification=console.notification,
        log_level=args.log_level or "info",
        timeout=budget.left(),
    )
    console.end_progress()
    console.lines(record.lines())
    _save(console, args.save, record.blocks)
    return 0 if record.outcome.kind is OutcomeKind.OK else 1


def _contents(method: str, result: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The content blocks of a ``resources/read`` or ``prompts/get`` result, else ``None``."""
    if method == "resources/read":
        items = result.get("contents")
        if isinstance(items, list):
            return [{"type": "resource", "resource": c} for c in items if isinstance(c, dict)]
    if method == "prompts/get":
        messages = result.get("messages")
        if isinstance(messages, list):
            return [m["content"] for m in messages if isinstance(m, dict) and "content" in m]
    return None


def _print_result(
    client: Client,
    args: argparse.Namespace,
    params: dict[str, Any],
    console: Console,
    budget: _Budget,
) -> int:
    """Any other method: one line per tool for ``tools/list``, the blocks of
    ``resources/read`` and ``prompts/get``, else the result as JSON."""
    from ..errors import RemoteProtocolError
    from ..mcp.inspection import view_block

    try:
        result = client.request(args.method, params or None, timeout=budget.left())
    except RemoteProtocolError as exc:
        console.line(f"error {exc.code}: {exc.message}", "err")
        return 1
    console.end_progress()
    blocks = _contents(args.method, result)
    if blocks is not None:
        views = [view_block(i, b) for i, b in enumerate(blocks)]
        for view in views:
            console.lines(view.lines())
        _save(console, args.save, views)
        return 0
    if args.method != "tools/list":
        print_json(result)
        return 0
    for tool in result.get("tools", []):
        first = (tool.get("description") or "").splitlines()[:1]
        console.line(f"{tool['name']}: {first[0] if first else ''}")
    return 0


def _set_log_level(client: Client, level: str | None, budget: _Budget) -> None:
    """On the handshake generation, ``logging/setLevel`` when asked and the server logs."""
    from ..errors import RemoteProtocolError
    from ..mcp import Generation

    connection = client.connection
    if level is None or connection is None or connection.generation is not Generation.LEGACY:
        return
    if "logging" in connection.capabilities:
        try:
            client.request("logging/setLevel", {"level": level}, timeout=budget.left())
        except RemoteProtocolError:
            pass  # the server keeps its own level; its messages still show


def _cmd_call(args: argparse.Namespace) -> int:
    from ..mcp import TASKS_EXTENSION, Client, Method
    from ..mcp.inspection import notification_line
    from .inspect import Console

    params = json_object(args.args, "--args")
    budget = _Budget(args.timeout)
    console = Console()
    transport = _call_transport(args, console)
    capabilities: dict[str, Any] = {"extensions": {TASKS_EXTENSION: {}}} if args.task else {}
    handlers = {}
    if args.elicit is not None:
        answer = json_object(args.elicit, "--elicit")
        capabilities["elicitation"] = {}
        handlers[Method.ELICITATION_CREATE.value] = lambda params: answer
    try:
        if args.json:  # stdout holds the JSON alone: notifications go to stderr
            client = Client(
                transport,
                mode=args.mode,
                timeout=args.timeout,
                capabilities=capabilities,
                handlers=handlers,
                on_notification=lambda n: console.line(notification_line(n), "err"),
            )
            client.connect()
            return _print_raw(client, args, params, budget)
        client = Client(
            transport,
            mode=args.mode,
            timeout=args.timeout,
            capabilities=capabilities,
            handlers=handlers,
            on_notification=console.notification,
        )
        connection = client.connect()
        info = connection.server_info
        console.line(
            f"connected: {connection.generation} {connection.version} "
            f"({info.get('name')} {info.get('version')})"
        )
        _set_log_level(client, args.log_level, budget)
        if args.method == "tools/call":
            return _print_call(client, args, params, console, budget)
        return _print_result(client, args, params, console, budget)
    finally:
        console.end_progress()
        transport.close()
