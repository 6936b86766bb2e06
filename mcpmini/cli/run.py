"""``mcpmini run``: the offline agent loop from the command line."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .output import print_json

__all__ = ["add"]

def add(sub: Any) -> None:
    from ..mcp import SAMPLES

    p = sub.add_parser(
        "run", help="run the offline agent loop on a prompt and print the transcript",
        description="Run mcpmini's agent loop with an offline model against example MCP "
                    "servers (and, with --workspace, the built-in tools).")
    p.add_argument("prompt", help="the user prompt")
    p.add_argument("--server", action="append", choices=sorted(SAMPLES), default=[],
                   help="example MCP server to connect (repeatable); tools are mcp__NAME__TOOL")
    p.add_argument("--model", choices=("router", "always"), default="router",
                   help="router: pick a tool by description overlap; always: call --tool every time")
    p.add_argument("--tool", help="the tool --model always calls")
    p.add_argument("--args", default="{}", help="tool input as a JSON object")
    p.add_argument("--workspace", help="folder for the built-in Read/Write/Edit/Grep/Glob/Python tools")
    p.add_argument("--max-turns", type=int, default=None, help="tool-use turn limit T")
    p.add_argument("--tool-search", action="store_true", help="send names first, definitions on use")
    p.add_argument("--permission-mode", default="bypassPermissions",
                   help="permission mode (default bypassPermissions: nobody is there to ask)")
    p.add_argument("--json", action="store_true", help="print the messages as one JSON document")
    p.set_defaults(handler=_cmd_run)


def _cmd_run(args: argparse.Namespace) -> int:
    from ..agent import AgentOptions, AlwaysToolModel, RouterModel, builtin_tools, run
    from ..mcp import SAMPLES

    tool_input = json.loads(args.args)
    if not isinstance(tool_input, dict):
        raise ValueError("--args must be a JSON object")
    options = AgentOptions(
        mcp_servers={name: SAMPLES[name]() for name in args.server},
        tools=builtin_tools(args.workspace) if args.workspace else (),
        max_turns=args.max_turns, tool_search=args.tool_search,
        permission_mode=args.permission_mode, cwd=args.workspace or "")
    if args.model == "always":
        if args.tool is None:
            raise ValueError("--model always needs --tool")
        model: Any = AlwaysToolModel(args.tool, tool_input)
    else:
        model = RouterModel(default_input=tool_input)
    result = run(args.prompt, model, options)
    if args.json:
        print_json({"messages": result.messages, "stop_reason": result.stop_reason.value,
                     "model_calls": result.model_calls, "turns": result.turns})
    else:
        for m in result.messages:
            print(f"{m['role']:<9} {json.dumps(m['content'], ensure_ascii=False)}")
        print(f"stop: {result.stop_reason.value}  model calls: {result.model_calls}  "
              f"turns: {result.turns}  tokens of the last request: "
              f"{result.requests[-1].total_tokens if result.requests else 0}")
    return 0
