"""``mcpmini serve`` and ``mcpmini call``: example servers, and an inspector for any MCP server."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from ..deadline import Deadline
from ..errors import UsageError
from .output import json_object, print_json

if TYPE_CHECKING:  # the mcp package is imported when a command runs, not when the CLI loads
    from ..mcp import CallRecord, Traced
    from ..mcp.inspection import MethodRecord
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
    (
        "--max-calls-per-session",
        "max_calls_per_session",
        int,
        "calls of one session (one address, stateless) running at once, below "
        "--worker-threads; the next is refused with 429",
    ),
    (
        "--max-calls-per-address",
        "max_calls_per_address",
        int,
        "calls of all sessions of one client address running at once, below "
        "--worker-threads (behind a reverse proxy every client has its address); "
        "the next is refused with 429",
    ),
    (
        "--resume-wait",
        "resume_wait",
        float,
        "seconds a call whose client hung up on its event stream waits for a Last-Event-ID "
        "resumption before it is cancelled",
    ),
    (
        "--session-keep",
        "session_keep",
        float,
        "seconds after its last use during which a session is never evicted to make room "
        "(a flood of new sessions gets 503 instead)",
    ),
    (
        "--sessions-per-minute",
        "sessions_per_minute",
        int,
        "new sessions one client address may open per minute (429 past it)",
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


def _call_transport(args: argparse.Namespace, console: Console, deadline: Deadline) -> Traced:
    """The traced transport ``mcpmini call`` talks over: ``--url`` or the command after ``--``,
    bound to the call's ``deadline`` (it never waits past it, not even to close); with
    ``--raw`` its trace writes each line to the console as it crosses.

    Raises ``UsageError`` for contradictory or missing options, ``TransportError`` when the
    command cannot be started.
    """
    from ..mcp import HttpTransport, Method, StdioTransport, Traced
    from .inspect import LiveTrace

    argv = list(args.command_line)
    if argv and args.url:
        raise UsageError("give either --url or a server command after --, not both")
    if not argv and not args.url:
        raise UsageError("give --url URL or the server command after --, e.g. -- mcpmini serve add")
    headers = _headers(args.header)
    if args.method == Method.TOOLS_CALL and not args.tool:
        raise UsageError("tools/call needs --tool NAME")
    if args.url and not args.url.startswith(("http://", "https://")):
        raise UsageError(f"--url {args.url!r} is not an http:// or https:// URL")
    trace = LiveTrace(console) if args.raw else None
    if not args.url:
        return Traced(StdioTransport(argv, deadline=deadline), trace)
    auth = _oauth(args.url, headers, deadline)
    transport = HttpTransport(args.url, headers, timeout=args.timeout, auth=auth, deadline=deadline)
    return Traced(transport, trace)


def _oauth(url: str, headers: dict[str, str], deadline: Deadline) -> Any:
    """The stored OAuth login of ``url`` (``mcpmini auth login``), unless the caller sends its
    own ``Authorization`` header; its discovery and token requests end by ``deadline``."""
    if any(k.lower() == "authorization" for k in headers):
        return None
    from ..mcp.auth import oauth_for

    return oauth_for(url, os.environ, deadline=deadline)


def _show(record: CallRecord | MethodRecord, args: argparse.Namespace, console: Console) -> int:
    """Print what the call showed; the exit code: 0, or 1 for an error or a failed call."""
    from ..mcp import CallRecord, OutcomeKind
    from .inspect import save_blocks

    console.end_progress()
    if isinstance(record, CallRecord):
        console.lines(record.lines())
        blocks: Any = record.blocks
        failed = record.outcome.kind is not OutcomeKind.OK
    elif record.is_error:
        console.lines(record.lines(), "err")
        return 1
    else:
        lines = record.lines()
        if lines or record.blocks is not None:
            console.lines(lines)
        else:
            print_json(dict(record.result or {}))
        blocks, failed = record.blocks or (), False
    if args.save is not None:
        for path in save_blocks(args.save, blocks):
            console.line(f"saved {path}")
    return 1 if failed else 0


def _cmd_call(args: argparse.Namespace) -> int:
    from ..mcp import TASKS_EXTENSION, Client, Method
    from ..mcp.inspection import exchange, inspect, notification_line
    from .inspect import Console

    params = json_object(args.args, "--args")
    # The one deadline of the whole call, made here: connecting, discovery, the handshake,
    # tools/list for the output schema, the call, its input rounds or task, and closing.
    deadline = Deadline.after(args.timeout, label=f"--timeout {args.timeout:g} s")
    console = Console()
    transport = _call_transport(args, console, deadline)
    capabilities: dict[str, Any] = {"extensions": {TASKS_EXTENSION: {}}} if args.task else {}
    handlers = {}
    if args.elicit is not None:
        answer = json_object(args.elicit, "--elicit")
        capabilities["elicitation"] = {}
        handlers[Method.ELICITATION_CREATE.value] = lambda params: answer
    # --json: stdout holds the JSON alone, so notifications go to stderr
    notify = (lambda n: console.line(notification_line(n), "err")) if args.json else None
    try:
        client = Client(
            transport,
            mode=args.mode,
            timeout=args.timeout,
            capabilities=capabilities,
            handlers=handlers,
            on_notification=notify or console.notification,
        )
        connection = client.connect(deadline)
        if args.json:
            found, failed = exchange(
                client,
                args.method,
                params,
                tool=args.tool,
                deadline=deadline,
                log_level=args.log_level,
            )
            print_json(found)
            return 1 if failed else 0
        info = connection.server_info
        console.line(
            f"connected: {connection.generation} {connection.version} "
            f"({info.get('name')} {info.get('version')})"
        )
        record = inspect(
            client,
            args.method,
            params,
            tool=args.tool,
            deadline=deadline,
            log_level=args.log_level,
            on_notification=console.notification,
        )
        return _show(record, args, console)
    finally:
        console.end_progress()
        transport.close()
