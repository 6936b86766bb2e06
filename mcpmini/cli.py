"""The ``mcpmini`` command: a workbench over the runtime.

Each subcommand group is added by one ``_add_<group>`` function and runs through a
``_cmd_<name>`` function that returns the process exit code. Errors a user can fix
(a missing file, invalid JSON, a server that will not start) are printed as one line
on stderr with exit code 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .errors import McpminiError

__all__ = ["main", "build_parser"]


def _print_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


# --- region: MCP (serve, call) ---------------------------------------------------------

def _add_mcp(sub: Any) -> None:
    from .samples import SAMPLES

    serve = sub.add_parser("serve", help="serve an example MCP server over stdio")
    serve.add_argument("name", choices=sorted(SAMPLES), help="which example server")
    serve.set_defaults(handler=_cmd_serve)

    call = sub.add_parser(
        "call", help="start a stdio MCP server, connect, and run one method",
        description="Inspector-like: start SERVER_COMMAND, connect, run METHOD, print the result.",
        usage="mcpmini call METHOD [options] -- SERVER_COMMAND...",
    )
    call.add_argument("method", help="tools/list, tools/call, resources/list, prompts/list, ...")
    call.add_argument("--tool", help="tool name for tools/call")
    call.add_argument("--args", default="{}", help="tool arguments (or params) as a JSON object")
    call.add_argument("--mode", choices=("auto", "modern", "legacy"), default="auto")
    call.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each reply")
    call.add_argument("--json", action="store_true", help="print the raw result object")
    call.add_argument("--trace", action="store_true", help="print every line both ways")
    call.set_defaults(server=[])
    call.set_defaults(handler=_cmd_call)


def _cmd_serve(args: argparse.Namespace) -> int:
    from .samples import SAMPLES
    from .transport import serve_stdio

    serve_stdio(SAMPLES[args.name]())
    return 0


def _cmd_call(args: argparse.Namespace) -> int:
    from .client import Client, OutcomeKind
    from .errors import RemoteProtocolError
    from .jsonrpc import ErrorResponse
    from .trace import Traced
    from .transport import StdioTransport

    argv = list(args.server)
    if not argv:
        raise ValueError("give the server command after --, e.g. -- mcpmini serve add")
    try:
        params = json.loads(args.args)
    except ValueError as exc:
        raise ValueError(f"--args is not valid JSON: {exc}") from None
    if not isinstance(params, dict):
        raise ValueError("--args must be a JSON object")
    if args.method == "tools/call" and not args.tool:
        raise ValueError("tools/call needs --tool NAME")
    transport = Traced(StdioTransport(argv))
    status = 0
    try:
        client = Client(transport, mode=args.mode, timeout=args.timeout)
        connection = client.connect()
        if not args.json:
            print(f"connected: {connection.generation} {connection.version} "
                  f"({connection.server_info.get('name')} {connection.server_info.get('version')})")
        if args.json:
            # The raw reply: the result object, or {"error": {...}} for an error reply.
            if args.method == "tools/call":
                request_id = client.send_tool_call(args.tool, params)
            else:
                request_id = client.send_request(args.method, params or None)
            reply = client.wait_for(request_id, timeout=args.timeout)
            if isinstance(reply, ErrorResponse):
                _print_json({"error": {"code": reply.code, "message": reply.message,
                                       "data": reply.data}})
                status = 1
            else:
                _print_json(reply.result)
                status = 1 if reply.result.get("isError") is True else 0
        elif args.method == "tools/call":
            outcome = client.call_tool(args.tool, params, timeout=args.timeout)
            print(f"{outcome.kind.value}: {outcome.text or outcome.message or outcome.reason}")
            status = 0 if outcome.kind is OutcomeKind.OK else 1
        else:
            try:
                result = client.request(args.method, params or None, timeout=args.timeout)
            except RemoteProtocolError as exc:
                print(f"error {exc.code}: {exc.message}", file=sys.stderr)
                status = 1
            else:
                if args.method == "tools/list":
                    for tool in result.get("tools", []):
                        first = (tool.get("description") or "").splitlines()[:1]
                        print(f"{tool['name']}: {first[0] if first else ''}")
                else:
                    _print_json(result)
    finally:
        transport.close()
        if args.trace:
            for line in transport.trace.lines():
                print(line, file=sys.stderr)
    return status


# --- region: hooks (hooks run, hooks events) ---------------------------------------------

def _add_hooks(sub: Any) -> None:
    pass


# --- region: skills, config, plugin ----------------------------------------------------------

def _add_skills(sub: Any) -> None:
    pass


# --- region: course (grade, progress) -------------------------------------------------------

def _add_course(sub: Any) -> None:
    pass


# --- region: loop (run) ----------------------------------------------------------------

def _add_loop(sub: Any) -> None:
    pass


_GROUPS: list[Callable[[Any], None]] = [_add_mcp, _add_hooks, _add_skills, _add_course, _add_loop]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="mcpmini", description="A workbench for MCP servers, hooks, skills and plugins."
    )
    parser.add_argument("--version", action="version", version=f"mcpmini {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in _GROUPS:
        add(sub)
    return parser


def _skip_slow_optional_imports() -> None:
    # jsonschema imports rfc3987_syntax when it is installed (Jupyter brings it) only to
    # check the "iri" string format, and that import builds a parser grammar for about
    # two seconds. mcpmini never checks string formats, so a command-line process (this
    # function runs only in main(), never on a library import) blocks that optional import.
    if "rfc3987_syntax" not in sys.modules:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 1 a check failed, 2 usage/input error)."""
    _skip_slow_optional_imports()
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after the first "--" is a command line of its own (e.g. the server to
    # start); argparse's handling of "--" inside subcommands is unreliable, so split here.
    rest: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, rest = argv[:cut], argv[cut + 1 :]
    args = parser.parse_args(argv)
    if rest:
        if not hasattr(args, "server"):
            parser.error("unexpected arguments after --")
        args.server = rest
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except McpminiError as exc:
        print(f"mcpmini {args.command}: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"mcpmini {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
