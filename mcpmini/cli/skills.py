"""``mcpmini skills list`` and ``mcpmini skills lint``."""

from __future__ import annotations

import argparse
from typing import Any

from .output import echo, print_json, problem_dict, report

__all__ = ["add"]


def add(sub: Any) -> None:
    skills = sub.add_parser("skills", help="list or lint skills (SKILL.md and commands)")
    ssub = skills.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, helptext in (
        ("list", "list the skills found and what the listing keeps"),
        ("lint", ("report problems: bad YAML, types, unknown fields, cut descriptions, budget")),
    ):
        p = ssub.add_parser(action, help=helptext)
        p.add_argument(
            "paths",
            nargs="+",
            metavar="PATH",
            help="a project or .claude folder, a skills folder, a skill, a file",
        )
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument(
            "--context-window",
            type=int,
            default=1_000_000,
            metavar="TOKENS",
            help="the model's window (default: Claude Code 2.1.332's default model, 1M)",
        )
        p.add_argument("--model", default="claude-opus-5-5", help="counts 3 or 4 chars a token")
        p.add_argument(
            "--budget-chars",
            type=int,
            default=None,
            metavar="N",
            help="fixed listing budget (like SLASH_COMMAND_TOOL_CHAR_BUDGET)",
        )
        p.add_argument("--strict", action="store_true", help="lint: warnings also fail")
        p.set_defaults(handler=_cmd_skills)


def _cmd_skills(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from ..config import load_plugin
    from ..skills import build_listing, lint_skills, load_skills
    from ..skills.listing import listed_name

    is_plugin = [(Path(p) / ".claude-plugin").is_dir() for p in args.paths]
    found = load_skills(
        [p for p, plug in zip(args.paths, is_plugin) if not plug],
        plugins=[
            load_plugin(p, environ=os.environ) for p, plug in zip(args.paths, is_plugin) if plug
        ],
    )
    opts = {
        "context_window_tokens": args.context_window,
        "budget_chars": args.budget_chars,
        "model": args.model,
    }
    if args.action == "lint":
        problems = lint_skills(found, **opts)
        if args.json:
            print_json({"problems": [problem_dict(p) for p in problems]})
        elif not problems:
            echo(f"{len(found)} skills, no problems")
        return report(problems, args.json, args.strict)
    listing = build_listing(found, **opts)
    by_listed = {e.name: e for e in listing.entries}
    shown = {s.name: by_listed[listed_name(s)] for s in found if listed_name(s) in by_listed}
    rows = [
        {
            "name": s.name,
            "kind": s.kind,
            "level": s.level.value,
            "source": s.source,
            "in_listing": s.name in shown,
            "listed_chars": len(shown[s.name].text) if s.name in shown else 0,
            "truncated": bool(s.name in shown and shown[s.name].truncated),
            "description_dropped": bool(s.name in shown and shown[s.name].dropped),
            "description": s.description,
            "shadowed": found.shadowed.get(s.name, []),
        }
        for s in found
    ]
    if args.json:
        print_json(
            {
                "skills": rows,
                "listing_chars": listing.chars,
                "budget_chars": listing.budget_chars,
                "problems": [problem_dict(p) for p in found.problems],
            }
        )
    else:
        for r in rows:
            flags = "".join(
                [
                    "" if r["in_listing"] else " [not listed]",
                    " [cut]" if r["truncated"] else "",
                    " [description dropped]" if r["description_dropped"] else "",
                    f" [hides {len(r['shadowed'])}]" if r["shadowed"] else "",
                ]
            )
            echo(
                f"{r['name']:<32} {r['kind']:<7} {r['level']:<10} {r['listed_chars']:>5} "
                f"chars{flags}"
            )
        echo(f"listing: {listing.chars} of {listing.budget_chars} characters")
    return report(found.problems, args.json)
