"""``mcpmini run``: the offline agent loop from the command line."""

from __future__ import annotations

import argparse
import json
import re
import shlex
from typing import Any

from ..deadline import Deadline
from ..errors import McpminiError, UsageError
from ..mcp import Client, StdioTransport
from .output import echo, json_object, print_json

__all__ = ["add"]


def add(sub: Any) -> None:
    from ..mcp import SAMPLES

    p = sub.add_parser(
        "run",
        help="run the offline agent loop on a prompt and print the transcript",
        description="Run mcpmini's agent loop with an offline model against example MCP "
        "servers (and, with --workspace, the built-in tools). A command after -- "
        "is started as one more MCP server over stdio, named by --stdio-name.",
        usage="mcpmini run PROMPT [options] [-- SERVER_COMMAND...]",
    )
    p.add_argument("prompt", help="the user prompt")
    p.add_argument(
        "--server",
        action="append",
        choices=sorted(SAMPLES),
        default=[],
        help="example MCP server to connect (repeatable); tools are mcp__NAME__TOOL",
    )
    p.add_argument(
        "--model",
        choices=("router", "always"),
        default="router",
        help="router: pick a tool by description overlap; always: call --tool every time",
    )
    p.add_argument("--tool", help="the tool --model always calls")
    p.add_argument("--args", default="{}", help="tool input as a JSON object")
    p.add_argument(
        "--workspace", help="folder for the built-in Read/Write/Edit/Grep/Glob/Python tools"
    )
    p.add_argument("--max-turns", type=int, default=None, help="tool-use turn limit T")
    p.add_argument(
        "--tool-search", action="store_true", help="send names first, definitions on use"
    )
    p.add_argument(
        "--permission-mode",
        default="bypassPermissions",
        help="permission mode (default bypassPermissions: nobody is there to ask)",
    )
    p.add_argument(
        "--stdio-name",
        default="stdio",
        metavar="NAME",
        help="name of the server started from the command after -- (default stdio); "
        "its tools are mcp__NAME__TOOL",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="the deadline of connecting to the server after -- and of each MCP tool call "
        "(default 30)",
    )
    p.add_argument("--json", action="store_true", help="print the messages as one JSON document")
    p.set_defaults(command_line=[], handler=_cmd_run)


def _cmd_run(args: argparse.Namespace) -> int:
    from ..agent import AgentOptions, AlwaysToolModel, RouterModel, builtin_tools, run
    from ..mcp import SAMPLES, Server

    tool_input = json_object(args.args, "--args")
    if args.model == "always" and args.tool is None:
        raise UsageError("--model always needs --tool")
    if args.command_line and not re.fullmatch(r"[A-Za-z0-9_-]+", args.stdio_name):
        raise UsageError(f"--stdio-name must be letters, digits, - and _, not {args.stdio_name!r}")
    if not args.timeout > 0:
        raise UsageError("--timeout must be a positive number of seconds")
    if args.command_line and args.stdio_name in args.server:
        raise UsageError(
            f"--stdio-name {args.stdio_name} is already taken by --server "
            f"{args.stdio_name}; choose another name"
        )
    servers: dict[str, Server | Client] = {name: SAMPLES[name]() for name in args.server}
    model: Any = (
        AlwaysToolModel(args.tool, tool_input)
        if args.model == "always"
        else RouterModel(default_input=tool_input)
    )
    try:
        if args.command_line:
            servers[args.stdio_name] = _connect(args.command_line, args.timeout)
        options = AgentOptions(
            mcp_servers=servers,
            tools=builtin_tools(args.workspace) if args.workspace else (),
            max_turns=args.max_turns,
            tool_search=args.tool_search,
            permission_mode=args.permission_mode,
            cwd=args.workspace or "",
            tool_timeout=args.timeout,
        )
        result = run(args.prompt, model, options)
    finally:
        for target in servers.values():
            if isinstance(target, Client):
                target.close()
    if args.json:
        print_json(
            {
                "messages": result.messages,
                "stop_reason": result.stop_reason.value,
                "model_calls": result.model_calls,
                "turns": result.turns,
            }
        )
    else:
        for m in result.messages:
            echo(f"{m['role']:<9} {json.dumps(m['content'], ensure_ascii=False)}")
        echo(
            f"stop: {result.stop_reason.value}  model calls: {result.model_calls}  "
            f"turns: {result.turns}  tokens of the last request: "
            f"{result.requests[-1].total_tokens if result.requests else 0}"
        )
    return 0


def _connect(argv: list[str], timeout: float) -> Client:
    """Start ``argv`` as a stdio MCP server and connect to it within ``timeout`` seconds (one
    deadline, the transport bound to it too); return the connected client.

    Raises what connecting raised — the same kind, so the same exit code (a
    :class:`~mcpmini.errors.TimedOut`, a ``TransportError``, a ``RemoteProtocolError``) —
    with a message naming the command and the last line of its stderr.
    """
    deadline = Deadline.after(timeout, label=f"--timeout {timeout:g} s")
    transport = StdioTransport(argv)
    client = Client(transport, timeout=timeout)
    try:
        client.connect(deadline)
    except McpminiError as exc:  # the same kind of error (and exit code), with the context
        client.close()
        last = transport.stderr.strip().splitlines()[-1:]
        raise exc.in_context(
            f"the MCP server after -- ({shlex.join(argv)}) did not connect: "
            f"{exc}" + (f"; its stderr ends with: {last[0]}" if last else "")
        ) from None
    return client
