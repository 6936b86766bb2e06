"""``mcpmini skills``, ``mcpmini config resolve`` and ``mcpmini plugin validate``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .output import print_json, problem_dict, report

__all__ = ["add"]

def add(sub: Any) -> None:
    skills = sub.add_parser("skills", help="list or lint skills (SKILL.md and commands)")
    ssub = skills.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, helptext in (("list", "list the skills found and what the listing keeps"),
                             ("lint", ("report problems: bad YAML, types, unknown fields, "
                                       "cut descriptions, budget"))):
        p = ssub.add_parser(action, help=helptext)
        p.add_argument("paths", nargs="+", metavar="PATH",
                       help="a project or .claude folder, a skills folder, a skill, a file")
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("--context-window", type=int, default=200_000, metavar="TOKENS")
        p.add_argument("--budget-chars", type=int, default=None, metavar="N",
                       help="fixed listing budget (like SLASH_COMMAND_TOOL_CHAR_BUDGET)")
        p.add_argument("--strict", action="store_true", help="lint: warnings also fail")
        p.set_defaults(handler=_cmd_skills)
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






def _cmd_skills(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from ..config import load_plugin
    from ..skills import build_listing, lint_skills, load_skills

    is_plugin = [(Path(p) / ".claude-plugin").is_dir() for p in args.paths]
    found = load_skills([p for p, plug in zip(args.paths, is_plugin) if not plug],
                        plugins=[load_plugin(p, environ=os.environ)
                                 for p, plug in zip(args.paths, is_plugin) if plug])
    opts = {"context_window_tokens": args.context_window, "budget_chars": args.budget_chars}
    if args.action == "lint":
        problems = lint_skills(found, **opts)
        if args.json:
            print_json({"problems": [problem_dict(p) for p in problems]})
        elif not problems:
            print(f"{len(found)} skills, no problems")
        return report(problems, args.json, args.strict)
    listing = build_listing(found, **opts)
    shown = {e.name: e for e in listing.entries}
    rows = [{"name": s.name, "kind": s.kind, "level": s.level.value, "source": s.source,
             "in_listing": s.name in shown,
             "listed_chars": len(shown[s.name].text) if s.name in shown else 0,
             "truncated": bool(s.name in shown and shown[s.name].truncated),
             "description_dropped": bool(s.name in shown and shown[s.name].dropped),
             "description": s.description, "shadowed": found.shadowed.get(s.name, [])}
            for s in found]
    if args.json:
        print_json({"skills": rows, "listing_chars": listing.chars,
                     "budget_chars": listing.budget_chars,
                     "problems": [problem_dict(p) for p in found.problems]})
    else:
        for r in rows:
            flags = "".join(["" if r["in_listing"] else " [not listed]",
                             " [cut]" if r["truncated"] else "",
                             " [description dropped]" if r["description_dropped"] else "",
                             f" [hides {len(r['shadowed'])}]" if r["shadowed"] else ""])
            print(f"{r['name']:<32} {r['kind']:<7} {r['level']:<10} {r['listed_chars']:>5} "
                  f"chars{flags}")
        print(f"listing: {listing.chars} of {listing.budget_chars} characters")
    return report(found.problems, args.json)


def _cmd_config_resolve(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from ..config import load_claude_json, load_mcp_json, load_plugin, resolve_mcp_servers
    from ..errors import ConfigError, Problem

    sources: list[Any] = []
    problems: list[Any] = []
    for scope in ("local", "project", "user"):
        path = getattr(args, scope)
        if path:
            try:
                cfg = load_mcp_json(path, environ=os.environ, source=scope)
                if scope != "project" and '"projects"' in Path(path).read_text(encoding="utf-8"):
                    # a ~/.claude.json: user = top level, local = this project's entry
                    user, local = load_claude_json(path, project_dir=os.getcwd(),
                                                   environ=os.environ)
                    cfg = user if scope == "user" else local
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
