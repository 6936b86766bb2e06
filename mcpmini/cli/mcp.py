"""``mcpmini serve`` and ``mcpmini call``: example servers, and an inspector for any MCP server."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .output import print_json

__all__ = ["add"]

def add(sub: Any) -> None:
    from ..mcp import SAMPLES, ClientMode

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
    call.add_argument("--mode", choices=[m.value for m in ClientMode], default=ClientMode.AUTO.value)
    call.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each reply")
    call.add_argument("--json", action="store_true", help="print the raw result object")
    call.add_argument("--trace", action="store_true", help="print every line both ways")
    call.set_defaults(command_line=[], handler=_cmd_call)


def _cmd_serve(args: argparse.Namespace) -> int:
    from ..mcp import SAMPLES, serve_stdio

    serve_stdio(SAMPLES[args.name]())
    return 0


def _cmd_call(args: argparse.Namespace) -> int:
    from ..errors import RemoteProtocolError
    from ..mcp import Client, ErrorResponse, OutcomeKind, StdioTransport, Traced

    argv = list(args.command_line)
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
                print_json({"error": {"code": reply.code, "message": reply.message,
                                       "data": reply.data}})
                status = 1
            else:
                print_json(reply.result)
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
                    print_json(result)
    finally:
        transport.close()
        if args.trace:
            for line in transport.trace.lines():
                print(line, file=sys.stderr)
    return status
