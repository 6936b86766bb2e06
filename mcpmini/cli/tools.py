"""``mcpmini tools``: every MCP tool a configuration gives the model, under Claude Code's names.

The work is done by :func:`mcpmini.config.take_inventory`; this module reads the options,
prints a table (or JSON) and sets the exit code: 0 when every server answered, 1 when one
failed, timed out or answered garbage, 2 for unreadable input (a source file that cannot be
read is a :class:`SourceUnreadable`). A project's servers go through
:func:`mcpmini.cli.approval.gate` first: pending, rejected and disabled ones are listed with
their command as written and never started.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import McpminiError, UsageError
from .approval import add_trust_option, gate, project_dir_of
from .output import echo, print_json, problem_dict

__all__ = ["SourceUnreadable", "add"]


class SourceUnreadable(McpminiError):
    """A configuration file given to ``mcpmini tools`` cannot be read as JSON; exit code 2."""

    exit_code = 2


def add(sub: Any) -> None:
    p = sub.add_parser(
        "tools",
        help="start every configured MCP server and list the tools the model would see",
        description="Resolve the configuration like `config resolve`, start every stdio server "
        "(and connect to http ones), and report each tool under its Claude Code "
        "name with its context cost. Every process a server started is ended when it returns: "
        "each stdio server runs under a sub-reaper launcher, so descendants that leave the "
        "session and clear MCPMINI_PROCESS_RUN are ended too (only a process that SIGKILLs "
        "that launcher, its own parent, escapes). A project's servers (.mcp.json, plugins "
        "inside the project) need an approval first, as in Claude Code: see --trust-project.",
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
    add_trust_option(p)
    p.set_defaults(handler=_cmd_tools)


def _held_reports(judged: dict[str, Any], resolved: dict[str, Any]) -> list[Any]:
    """A :class:`~mcpmini.config.ServerReport` per server the gate kept back."""
    from ..config import ServerReport, ServerStatus
    from ..config.trust import shown_command

    return [
        ServerReport(
            name,
            resolved[name].source,
            ServerStatus(v.state.value),
            v.reason + (f" ({v.scope} settings)" if v.scope else ""),
            command=shown_command(resolved[name].value),
        )
        for name, v in judged.items()
        if not v.may_start
    ]


def _cmd_tools(args: argparse.Namespace) -> int:
    import os
    import sys

    from ..config import (
        Inventory,
        ServerStatus,
        load_held_sources,
        take_inventory,
    )
    from ..errors import Severity

    if not args.timeout > 0:
        raise UsageError("--timeout must be a positive number of seconds")
    scopes = {"local": args.local, "project": args.project, "user": args.user}
    if not any(scopes.values()) and not args.plugin and os.path.exists(".mcp.json"):
        scopes["project"] = ".mcp.json"
    project_dir = project_dir_of(scopes["project"])
    sources, problems, held = load_held_sources(
        scopes, tuple(args.plugin), environ=os.environ, project_dir=project_dir
    )
    files = {str(f) for f in scopes.values() if f}
    unreadable = [
        p
        for p in problems
        if p.severity is Severity.ERROR and p.source in files and p.path in (None, "mcpServers")
    ]
    if unreadable:
        raise SourceUnreadable(str(unreadable[0]))
    ask = not args.json and sys.stdin.isatty() and sys.stderr.isatty()
    decided = gate(args, sources, held, environ=os.environ, project_dir=project_dir, ask=ask)
    resolved = decided.resolved
    problems = [*problems, *decided.problems]
    started = take_inventory(
        decided.released, timeout=args.timeout, problems=tuple(str(p) for p in problems)
    )
    order = list(resolved)
    reports = {s.name: s for s in [*started.servers, *_held_reports(decided.judged, resolved)]}
    inventory = Inventory(tuple(reports[n] for n in order if n in reports), started.problems)
    return _print(args, inventory, problems, ServerStatus)


def _print(args: argparse.Namespace, inventory: Any, problems: list[Any], status: Any) -> int:
    from ..config import DESCRIPTION_CAP

    quiet = (status.OK, status.UNSUPPORTED, status.PENDING, status.REJECTED, status.DISABLED)
    bad = [s for s in inventory.servers if s.status not in quiet]
    if args.json:
        out = inventory.to_dict()
        out["problems"] = [problem_dict(p) for p in problems]
        print_json(out)
        return 1 if bad else 0
    for server in inventory.servers:
        head = f"{server.name} [{server.source}] {server.status.value}"
        if server.status is status.OK:
            head += f": {len(server.tools)} tools, {server.definition_tokens} tokens"
        else:
            head += f": {server.reason}"
        echo(head)
        if server.command:
            echo(f"    command: {server.command}")
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
    _summary(inventory, status)
    for p in problems:
        echo(p)
    return 1 if bad else 0


def _summary(inventory: Any, status: Any) -> None:
    tools = inventory.tools
    answered = sum(1 for s in inventory.servers if s.status is status.OK)
    waiting = sum(1 for s in inventory.servers if s.status is status.PENDING)
    echo(f"{len(tools)} tools from {answered} of {len(inventory.servers)} servers")
    if waiting:
        echo(
            f"{waiting} project server(s) pending approval, not started: run again with "
            "--trust-project to trust this project and approve them"
        )
    echo(
        f"up front: {inventory.upfront_tokens} tokens; deferred (tool search): "
        f"{inventory.deferred_tokens} tokens of names + the definitions of the tools used"
    )
    if inventory.break_even is not None:
        echo(
            f"break-even: deferring costs less while fewer than {inventory.break_even:.1f} "
            f"of the {len(tools)} tools are used (Prop. 3.8)"
        )
