"""``mcpmini config resolve`` and ``mcpmini plugin validate``: the §6 configuration files."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .approval import add_trust_option, gate, project_dir_of
from .output import echo, print_json, problem_dict, report

__all__ = ["add"]


def add(sub: Any) -> None:
    config = sub.add_parser("config", help="resolve configuration sources")
    csub = config.add_subparsers(dest="action", metavar="ACTION", required=True)
    res = csub.add_parser("resolve", help="which MCP server definition wins, from which file")
    for scope in ("local", "project", "user"):
        res.add_argument(
            f"--{scope}",
            metavar="FILE",
            help=f"the {scope} scope: an .mcp.json-shaped file"
            + ("" if scope == "project" else " or ~/.claude.json"),
        )
    res.add_argument("--plugin", nargs="+", default=[], metavar="DIR", help="plugin folders")
    res.add_argument("--json", action="store_true", help="print JSON")
    add_trust_option(res)
    res.set_defaults(handler=_cmd_config_resolve)
    plugin = sub.add_parser("plugin", help="check plugins")
    psub = plugin.add_subparsers(dest="action", metavar="ACTION", required=True)
    val = psub.add_parser(
        "validate", help="check a plugin or marketplace as claude plugin validate does"
    )
    val.add_argument("dir", metavar="DIR")
    val.add_argument("--json", action="store_true", help="print JSON")
    val.add_argument("--strict", action="store_true", help="warnings fail the check too (exit 1)")
    val.set_defaults(handler=_cmd_plugin_validate)


def _cmd_config_resolve(args: argparse.Namespace) -> int:
    import os

    from ..config import load_held_sources

    scopes = {scope: getattr(args, scope) for scope in ("local", "project", "user")}
    project_dir = project_dir_of(scopes["project"])
    sources, problems, held = load_held_sources(
        scopes, tuple(args.plugin), environ=os.environ, project_dir=project_dir
    )
    decided = gate(args, sources, held, environ=os.environ, project_dir=project_dir, ask=False)
    resolved = decided.resolved
    problems = [*problems, *decided.problems]
    shown = {n: decided.released.get(n, r) for n, r in resolved.items()}
    if args.json:
        print_json(
            {
                "servers": {
                    n: {
                        "source": r.source,
                        "file": r.origin,
                        "shadowed": list(r.shadowed),
                        "trust": decided.judged[n].state.value,
                        "definition": r.value,
                    }
                    for n, r in shown.items()
                },
                "session": decided.session.value,
                "session_kinds": {
                    n: {k.value: src for k, src in kinds.items()}
                    for n, kinds in (decided.differ or {}).items()
                },
                "problems": [problem_dict(p) for p in problems],
            }
        )
    else:
        for n, r in shown.items():
            hidden = f" (hides {', '.join(r.shadowed)})" if r.shadowed else ""
            verdict = decided.judged[n]
            state = "" if verdict.may_start else f" [{verdict.state.value}: not expanded]"
            echo(f"{n}: from {r.source} {r.origin or ''}{hidden}{state}")
            echo(f"    {json.dumps(r.value, ensure_ascii=False)}")
            kinds = (decided.differ or {}).get(n)
            if kinds:
                wins = ", ".join(f"{k.value}: {src or 'none'}" for k, src in kinds.items())
                echo(f"    the winning definition differs by session kind ({wins})")
        if not resolved:
            echo("no MCP servers defined")
    return report(problems, args.json)


def _cmd_plugin_validate(args: argparse.Namespace) -> int:
    from ..config.validation import validate

    result = validate(args.dir)
    problems = list(result.problems)
    errors = sum(p.severity.value == "error" for p in problems)
    if args.json:
        print_json(
            {
                "success": result.success and not (args.strict and problems),
                "target": result.target.value,
                "file": result.file,
                "provides": {k: list(v) for k, v in result.provides.items()},
                "problems": [problem_dict(p) for p in problems],
            }
        )
    else:
        echo(f"{result.target.value}: {result.file}")
        for key in ("skills", "commands", "agents"):
            echo(f"{key}: {', '.join(result.provides.get(key, ())) or '-'}")
        echo(f"{errors} errors, {len(problems) - errors} warnings")
    return report(problems, args.json, strict=args.strict)
