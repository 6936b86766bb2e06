"""``mcpmini claude-code``: run the real Claude Code offline on a case and report every call.

Given settings per scope, a permission mode, MCP servers, plugin and skill folders and a list
of tool calls (flags, or a JSON / YAML case file with ``--case``), the pinned Claude Code runs
inside bubblewrap against the scripted model (:mod:`mcpmini.oracle`): a temporary home and
workspace, nothing of the learner's files writable. The report says, per call, whether Claude
Code ran it, asked or denied it and by what, with the text the model got back (hook output
included), and what the model was shown (tools, deferred tools, skill listing, sizes).
``--compare`` puts mcpmini's own verdict beside each call.

``--session`` is the kind of Claude Code session the run stands for, as for ``mcpmini tools``
and ``config resolve``: the binary always runs as ``claude -p`` (the oracle drives no
terminal), so ``interactive`` (the default) answers every permission prompt through the
oracle's ``--permission-prompt-tool``, which stands in for the user (the call is reported as
asked), and ``print`` runs a plain ``claude -p``: a prompt is refused headlessly and
PermissionRequest hooks answer it. A project ``.mcp.json`` server the case never approved is
named in a warning either way: ``claude -p`` (this run) starts it, an interactive session asks
first; mcpmini itself never starts one.

Exit codes: 0 the run finished (with ``--compare``: and every verdict agreed), 1 a verdict
differed under ``--compare``, 2 no Claude Code, no bubblewrap, a bad case, or a Claude Code that
hung, crashed or asked for a login (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..config.trust import SessionKind
from ..errors import UsageError
from .output import echo, json_object, print_json

__all__ = ["add"]

_SCOPES = ("user", "project", "local", "flag", "managed")


def add(sub: Any) -> None:
    p = sub.add_parser(
        "claude-code",
        help="run the real Claude Code offline on tool calls and report each verdict",
        description="Run the pinned Claude Code (install it with `make claude-code`) in a "
        "sandbox against a scripted model and report, per tool call, ran / asked / denied and "
        "by what, plus what the model was shown.",
    )
    p.add_argument("--case", metavar="FILE", help="a case file (JSON or YAML, one case object)")
    for scope in _SCOPES:
        name = "flag-settings" if scope == "flag" else scope
        p.add_argument(
            f"--{name}",
            dest=f"settings_{scope}",
            metavar="FILE",
            help=f"a settings file for the {scope} scope"
            + (" (passed with --settings)" if scope == "flag" else ""),
        )
    p.add_argument("--mode", help="the permission mode (default, acceptEdits, plan, ...)")
    p.add_argument(
        "--session",
        choices=[k.value for k in SessionKind],
        help="the session the run stands for: interactive (the oracle's prompt tool answers "
        "each prompt, as the user would be asked) or print (a plain claude -p: a prompt is "
        "refused headlessly, PermissionRequest hooks answer). Default: the case file's "
        "prompt_tool, else interactive",
    )
    p.add_argument(
        "--untrusted", action="store_true", help="do not accept the workspace's trust dialog"
    )
    for kind in ("allow", "ask", "deny"):
        p.add_argument(
            f"--{kind}",
            action="append",
            default=[],
            metavar="RULE",
            help=f"an extra {kind} rule (in the --settings scope); repeatable",
        )
    p.add_argument(
        "--mcp-config", metavar="FILE", help="an .mcp.json-shaped file of MCP servers to start"
    )
    p.add_argument(
        "--plugin-dir", action="append", default=[], metavar="DIR", help="a plugin folder"
    )
    p.add_argument(
        "--skills", metavar="DIR", help="a folder of skills, copied to the workspace's .claude/"
    )
    p.add_argument(
        "--bash",
        action="append",
        dest="calls",
        default=[],
        metavar="CMD",
        help="a Bash call; repeatable (calls keep their command-line order)",
    )
    p.add_argument(
        "--call",
        action="append",
        dest="calls",
        nargs=2,
        metavar=("TOOL", "JSON"),
        help="a tool call with its JSON input; repeatable",
    )
    p.add_argument(
        "--no-tool-search",
        action="store_true",
        help="load MCP tools up front (ENABLE_TOOL_SEARCH=false) instead of deferring them",
    )
    p.add_argument("--compare", action="store_true", help="print mcpmini's verdict beside it")
    p.add_argument("--shown", action="store_true", help="print the skill listing and tool list")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds in all")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_cmd_claude_code)


def _read_structured(path: str) -> Any:
    text = Path(path).read_text(encoding="utf-8")
    if path.endswith((".yaml", ".yml")):
        import yaml

        return yaml.safe_load(text)
    return json.loads(text)


def _case_data(args: argparse.Namespace) -> dict[str, Any]:
    data: dict[str, Any] = dict(_read_structured(args.case)) if args.case else {}
    data.setdefault("name", Path(args.case).stem if args.case else "cli")
    settings = dict(data.get("settings") or {})
    for scope in _SCOPES:
        path = getattr(args, f"settings_{scope}")
        if path:
            settings[scope] = json_object(Path(path).read_text(encoding="utf-8"), path)
    extra = {k: getattr(args, k) for k in ("allow", "ask", "deny") if getattr(args, k)}
    if extra:
        flag = dict(settings.get("flag") or {})
        perms = dict(flag.get("permissions") or {})
        for kind, rules in extra.items():
            perms[kind] = [*perms.get(kind, []), *rules]
        flag["permissions"] = perms
        settings["flag"] = flag
    if settings:
        data["settings"] = settings
    if args.mode:
        data["mode"] = args.mode
    if args.session:
        data["prompt_tool"] = SessionKind(args.session) is SessionKind.INTERACTIVE
    if args.untrusted:
        data["trusted"] = False
    if args.no_tool_search:
        data["tool_search"] = False
    if args.mcp_config:
        servers = _read_structured(args.mcp_config).get("mcpServers", {})
        data["mcp_servers"] = {**(data.get("mcp_servers") or {}), **servers}
    copies = dict(data.get("copies") or {})
    plugins = list(data.get("plugin_dirs") or [])
    for i, folder in enumerate(args.plugin_dir):
        dest = f"{{root}}/plugins/{i}-{Path(folder).name}"
        copies[dest] = str(Path(folder).resolve())
        plugins.append(dest)
    if args.skills:
        copies["{ws}/.claude/skills"] = str(Path(args.skills).resolve())
    data["copies"], data["plugin_dirs"] = copies, plugins
    calls = list(data.get("calls") or [])
    for item in args.calls:
        if isinstance(item, str):
            calls.append({"bash": item})
        else:
            calls.append({"tool": item[0], "input": json_object(item[1], "--call")})
    data["calls"] = calls
    return data


def _short(value: Any, width: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(rows: list[dict[str, Any]], compare: bool) -> None:
    head = ["#", "tool", "call", "claude code", "by"] + (["mcpmini", ""] if compare else [])
    body = []
    for r in rows:
        shown = r["label"].removeprefix(r["tool"]).strip() or r["input"]
        line = [str(r["index"]), r["tool"], _short(shown, 40), r["verdict"], r["cause"]]
        if compare:
            line += [r["mcpmini"], "ok" if r["agree"] else "DIFFERS"]
        body.append(line)
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    for line in [head, *body]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    for r in rows:
        if r["text"]:
            print(f"  [{r['index']}] {_short(r['text'], 150)}")
        for text in r.get("after", []):
            print(f"  [{r['index']}] then: {_short(text, 140)}")


def _pending_servers(tree: Any) -> list[str]:
    """The project ``.mcp.json`` servers of the laid-out case that were never approved (read
    as :mod:`mcpmini.config.trust` reads them; nothing is started or expanded)."""
    from ..config import load_held_sources
    from ..config.trust import pending_names, read_record

    project = tree.ws / ".mcp.json"
    if not project.is_file():
        return []
    sources, _, plugins = load_held_sources(
        {"project": project, "user": None, "local": None},
        environ={},
        project_dir=tree.ws,
    )
    record = read_record(tree.ws, home=tree.home, managed_dir=tree.root / "managed")
    return pending_names(sources, record, plugins)


def _pending_lines(names: list[str], session: SessionKind) -> list[str]:
    asks = session is SessionKind.INTERACTIVE
    return [
        f"warning: project server {n!r} was never approved: claude -p (this run) started it"
        + ("; an interactive session asks first" if asks else "")
        for n in names
    ]


def _cmd_claude_code(args: argparse.Namespace) -> int:
    import os

    from ..oracle import (
        PIN,
        Case,
        ClaudeCodeMissing,
        binary_version,
        find_claude,
        judge,
        lay_out,
        pair,
        run_tree,
    )

    binary = find_claude(os.environ)
    if binary is None:
        raise ClaudeCodeMissing(
            f"Claude Code is not installed: run `make claude-code` (installs the pinned {PIN} "
            "into .claude-code/) or set MCPMINI_CLAUDE_CODE to its executable"
        )
    if not args.timeout > 0:
        raise UsageError("--timeout must be a positive number of seconds")
    case = Case.from_dict(_case_data(args), source=args.case)
    if not case.calls:
        raise UsageError("no tool calls: give --bash, --call or a case file with calls")
    version = binary_version(binary)
    kind = SessionKind.INTERACTIVE if case.prompt_tool else SessionKind.PRINT
    with lay_out(case) as tree:
        pending = _pending_servers(tree)
        judged = judge(tree) if args.compare else None
        session = run_tree(tree, binary, timeout=args.timeout)
    rows = (
        [p.to_dict() for p in pair(session, judged)]
        if judged is not None
        else [o.to_dict() for o in session.calls]
    )
    differ = any(not r.get("agree", True) for r in rows)
    if args.json:
        out = session.to_dict()
        out.update(
            claude_code=version,
            pinned=PIN,
            session=kind.value,
            pending_project_servers=pending,
            calls=rows,
        )
        if args.shown:
            out["shown"]["system_messages"] = list(session.shown.system_messages)
        print_json(out)
        return 1 if differ else 0
    pinned = "" if version == PIN else f" (not the pinned {PIN})"
    sizes = session.shown.sizes()
    print(
        f"Claude Code {version}{pinned}: {len(session.shown.tools)} tools "
        f"({sizes['tools']['tokens']} tokens), {len(session.shown.deferred)} deferred, "
        f"system {sizes['system']['tokens']} tokens, skill listing "
        f"{sizes['skill_listing']['tokens']} tokens; session: {kind.value}"
    )
    for line in _pending_lines(pending, kind):
        echo(line, err=True)
    _table(rows, args.compare)
    if args.shown:
        print("tools: " + ", ".join(session.shown.tools))
        if session.shown.deferred:
            print("deferred: " + ", ".join(session.shown.deferred))
        if session.shown.skill_listing:
            print(session.shown.skill_listing)
    return 1 if differ else 0
