"""``mcpmini tools``: every MCP tool a configuration gives the model, under Claude Code's names.

The work is done by :func:`mcpmini.config.take_inventory`; this module reads the options,
prints a table (or JSON) and sets the exit code: 0 when every server answered, 1 when one
failed, timed out or answered garbage, 2 for unreadable input.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from .output import echo, print_json, problem_dict

__all__ = ["add"]


def add(sub: Any) -> None:
    p = sub.add_parser(
        "tools",
        help="start every configured MCP server and list the tools the model would see",
        description="Resolve the configuration like `config resolve`, start every stdio server "
        "(and connect to http ones), and report each tool under its Claude Code "
        "name with its context cost. Every process a server started is ended when it returns: "
        "each stdio server runs under a sub-reaper launcher, so descendants that leave the "
        "session and clear MCPMINI_PROCESS_RUN are ended too (only a process that SIGKILLs "
        "that launcher, its own parent, escapes).",
    )
    p.add_argument("--project", metavar="FILE", help="the project scope (.mcp.json)")
    p.add_argument(
        "--user", metavar="FILE", help="the user scope (~/.claude.json or .mcp.json-shaped)"
    )
    p.add_argument(
        "--local", metavar="FILE", help="the local scope (~/.claude.json or .mcp.json-shaped)"
    )
    p.add_argument("--plugin", nargs="+", default=[], metavar="DIR", help="plugin folders")
    p.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds each server gets to start and list its tools",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_cmd_tools)


def _cmd_tools(args: argparse.Namespace) -> int:
    import os

    from ..config import (
        DESCRIPTION_CAP,
        ServerStatus,
        load_sources,
        resolve_mcp_servers,
        take_inventory,
    )

    if not args.timeout > 0:
        raise UsageError("--timeout must be a positive number of seconds")
    scopes = {"local": args.local, "project": args.project, "user": args.user}
    if not any(scopes.values()) and not args.plugin and os.path.exists(".mcp.json"):
        scopes["project"] = ".mcp.json"
    sources, problems = load_sources(scopes, tuple(args.plugin), environ=os.environ)
    inventory = take_inventory(
        resolve_mcp_servers(sources), timeout=args.timeout, problems=tuple(str(p) for p in problems)
    )
    bad = [
        s for s in inventory.servers if s.status not in (ServerStatus.OK, ServerStatus.UNSUPPORTED)
    ]
    if args.json:
        out = inventory.to_dict()
        out["problems"] = [problem_dict(p) for p in problems]
        print_json(out)
        return 1 if bad else 0
    for server in inventory.servers:
        head = f"{server.name} [{server.source}] {server.status.value}"
        if server.status is ServerStatus.OK:
            head += f": {len(server.tools)} tools, {server.definition_tokens} tokens"
        else:
            head += f": {server.reason}"
        echo(head)
        for t in server.tools:
            flags = "".join(
                [
                    f" [description cut: {t.description_chars} > {DESCRIPTION_CAP} chars]"
                    if t.description_cut
                    else "",
                    *(f" [{p}]" for p in t.problems),
                ]
            )
            echo(
                f"    {t.name:<48} {t.definition_tokens:>6} tokens  "
                f"{t.description_chars:>5} chars{flags}"
            )
    tools = inventory.tools
    answered = sum(1 for s in inventory.servers if s.status is ServerStatus.OK)
    echo(f"{len(tools)} tools from {answered} of {len(inventory.servers)} servers")
    echo(
        f"up front: {inventory.upfront_tokens} tokens; deferred (tool search): "
        f"{inventory.deferred_tokens} tokens of names + the definitions of the tools used"
    )
    if inventory.break_even is not None:
        echo(
            f"break-even: deferring costs less while fewer than {inventory.break_even:.1f} "
            f"of the {len(tools)} tools are used (Prop. 3.8)"
        )
    for p in problems:
        echo(p)
    return 1 if bad else 0
