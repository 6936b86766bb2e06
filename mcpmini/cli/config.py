"""``mcpmini config resolve`` and ``mcpmini plugin validate``: the §6 configuration files."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .output import print_json, problem_dict, report

__all__ = ["add"]


def add(sub: Any) -> None:
    config = sub.add_parser("config", help="resolve configuration sources")
    csub = config.add_subparsers(dest="action", metavar="ACTION", required=True)
    res = csub.add_parser("resolve", help="which MCP server definition wins, from which file")
    for scope in ("local", "project", "user"):
        res.add_argument(f"--{scope}", metavar="FILE",
                         help=f"the {scope} scope: an .mcp.json-shaped file"
                         + ("" if scope == "project" else " or ~/.claude.json"))
    res.add_argument("--plugin", nargs="+", default=[], metavar="DIR", help="plugin folders")
    res.add_argument("--json", action="store_true", help="print JSON")
    res.set_defaults(handler=_cmd_config_resolve)
    plugin = sub.add_parser("plugin", help="check plugins")
    psub = plugin.add_subparsers(dest="action", metavar="ACTION", required=True)
    val = psub.add_parser("validate", help="check a plugin folder (and its marketplace.json)")
    val.add_argument("dir", metavar="DIR")
    val.add_argument("--json", action="store_true", help="print JSON")
    val.set_defaults(handler=_cmd_plugin_validate)


def _is_claude_json(path: str) -> bool:
    """Whether ``path`` holds a ``~/.claude.json`` rather than an ``.mcp.json``-shaped file.

    Decided by the parsed structure: a top-level object whose ``projects`` is an object (the
    per-project entries that carry the local scope). Unreadable or invalid JSON is ``False``,
    so :func:`~mcpmini.config.load_mcp_json` reports it with its usual problem.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, Mapping) and isinstance(data.get("projects"), Mapping)


def _cmd_config_resolve(args: argparse.Namespace) -> int:
    import os

    from ..config import (
        McpConfig,
        load_claude_json,
        load_mcp_json,
        load_plugin,
        resolve_mcp_servers,
    )
    from ..errors import ConfigError, Problem

    sources: list[McpConfig] = []
    problems: list[Problem] = []
    for scope in ("local", "project", "user"):
        path = getattr(args, scope)
        if not path:
            continue
        try:
            if scope != "project" and _is_claude_json(path):
                # a ~/.claude.json: user = top level, local = this project's entry
                user, local = load_claude_json(path, project_dir=os.getcwd(), environ=os.environ)
                cfg = user if scope == "user" else local
            else:
                cfg = load_mcp_json(path, environ=os.environ, source=scope)
        except ConfigError as exc:
            problems.append(Problem.from_error(exc))
            continue
        sources.append(cfg)
        problems.extend(cfg.problems)
    for d in args.plugin:
        plugin = load_plugin(d, environ=os.environ)
        problems.extend(p for p in plugin.problems if (p.path or "").startswith("mcpServers")
                        or p.severity.value == "error")
        sources.append(plugin.mcp_source)
    resolved = resolve_mcp_servers(sources)
    if args.json:
        print_json({"servers": {n: {"source": r.source, "file": r.origin, "shadowed":
                                     list(r.shadowed), "definition": r.value}
                                 for n, r in resolved.items()},
                     "problems": [problem_dict(p) for p in problems]})
    else:
        for n, r in resolved.items():
            hidden = f" (hides {', '.join(r.shadowed)})" if r.shadowed else ""
            print(f"{n}: from {r.source} {r.origin or ''}{hidden}")
            print(f"    {json.dumps(r.value, ensure_ascii=False)}")
        if not resolved:
            print("no MCP servers defined")
    return report(problems, args.json)


def _cmd_plugin_validate(args: argparse.Namespace) -> int:
    import os

    from ..config import load_plugin, validate_plugin

    problems = validate_plugin(args.dir, environ=os.environ)
    plugin = load_plugin(args.dir, environ=os.environ)
    summary = {"name": plugin.name, "skills": [s.name for s in plugin.skills],
               "agents": list(plugin.agents), "hooks": [o for o, _ in plugin.hooks],
               "mcp_servers": list(plugin.mcp_source.servers)}
    if args.json:
        print_json({**summary, "problems": [problem_dict(p) for p in problems]})
    else:
        for key, value in summary.items():
            print(f"{key}: {value if isinstance(value, str) else ', '.join(value) or '-'}")
        errors = sum(p.severity.value == "error" for p in problems)
        print(f"{errors} errors, {len(problems) - errors} warnings")
    return report(problems, args.json)
