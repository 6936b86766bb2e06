"""The ``mcpmini`` command: a workbench over the runtime.

Each subcommand group is added by one ``_add_<group>`` function and runs through a
``_cmd_<name>`` function that returns the process exit code. Errors a user can fix
(a missing file, invalid JSON, a server that will not start) are printed as one line
on stderr with exit code 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import __version__
from ..errors import McpminiError

__all__ = ["main", "build_parser"]


def _print_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


# --- region: MCP (serve, call) ---------------------------------------------------------

def _add_mcp(sub: Any) -> None:
    from ..mcp.samples import SAMPLES

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
    call.add_argument("--mode", choices=("auto", "modern", "legacy"), default="auto")
    call.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each reply")
    call.add_argument("--json", action="store_true", help="print the raw result object")
    call.add_argument("--trace", action="store_true", help="print every line both ways")
    call.set_defaults(server=[])
    call.set_defaults(handler=_cmd_call)


def _cmd_serve(args: argparse.Namespace) -> int:
    from ..mcp.samples import SAMPLES
    from ..mcp.transport import serve_stdio

    serve_stdio(SAMPLES[args.name]())
    return 0


def _cmd_call(args: argparse.Namespace) -> int:
    from ..mcp.client import Client, OutcomeKind
    from ..errors import RemoteProtocolError
    from ..mcp.jsonrpc import ErrorResponse
    from ..mcp.trace import Traced
    from ..mcp.transport import StdioTransport

    argv = list(args.server)
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
                _print_json({"error": {"code": reply.code, "message": reply.message,
                                       "data": reply.data}})
                status = 1
            else:
                _print_json(reply.result)
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
                    _print_json(result)
    finally:
        transport.close()
        if args.trace:
            for line in transport.trace.lines():
                print(line, file=sys.stderr)
    return status


# --- region: hooks (hooks run, hooks events) ---------------------------------------------

def _add_hooks(sub: Any) -> None:
    hooks = sub.add_parser("hooks", help="run real hook settings, or list the hook events")
    actions = hooks.add_subparsers(dest="hooks_command", metavar="ACTION")
    run = actions.add_parser(
        "run", help="run the handlers of settings files for one event and show the decision")
    run.add_argument("--settings", nargs="+", required=True, metavar="FILE",
                     help="settings.json, settings.local.json, hooks/hooks.json or SKILL.md")
    run.add_argument("--event", required=True, help="hook event, e.g. PreToolUse")
    run.add_argument("--tool-name", help="tool name (the matcher value of tool events)")
    run.add_argument("--tool-input", default="{}", metavar="JSON", help="tool input object")
    run.add_argument("--payload", default="{}", metavar="JSON",
                     help="other event fields, e.g. '{\"prompt\": \"hi\"}'")
    for name in ("allow", "ask", "deny"):
        run.add_argument(f"--{name}", nargs="+", default=[], metavar="RULE",
                         help=f"extra {name} permission rules")
    run.add_argument("--mode", help="permission mode (default, acceptEdits, plan, dontAsk, "
                     "bypassPermissions)")
    run.add_argument("--project-dir", help="CLAUDE_PROJECT_DIR and working directory")
    run.add_argument("--timeout", type=float, help="timeout for handlers that set none (s)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.set_defaults(handler=_cmd_hooks_run)
    events = actions.add_parser("events", help="print the hook event catalogue")
    events.add_argument("--json", action="store_true", help="print JSON")
    events.set_defaults(handler=_cmd_hooks_events)
    hooks.set_defaults(handler=lambda args: (hooks.print_help(), 2)[1])


def _json_object(text: str, option: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{option} is not valid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{option} must be a JSON object")
    return value


def _cmd_hooks_run(args: argparse.Namespace) -> int:
    from ..hooks.runner import load_settings, run_hooks
    from ..permissions.evaluate import PermissionRules, gate

    settings = load_settings(args.settings)
    payload = _json_object(args.payload, "--payload")
    tool_input = _json_object(args.tool_input, "--tool-input")
    if args.tool_name:
        payload.setdefault("tool_name", args.tool_name)
        payload.setdefault("tool_input", tool_input)
    result = run_hooks(settings, args.event, payload, tool_use_id="toolu_cli",
                       project_dir=args.project_dir, timeout=args.timeout)
    rules = settings.permissions.merged(PermissionRules(args.allow, args.ask, args.deny))
    mode = args.mode or settings.default_mode
    gated = None
    if rules.allow or rules.ask or rules.deny or mode:
        if not args.tool_name:
            raise ValueError("permission rules or --mode need --tool-name to reach a decision")
        gated = gate(args.tool_name, tool_input,
                     hooks=result if args.event == "PreToolUse" else None, rules=rules,
                     mode=mode or "default", cwd=args.project_dir or "")
    warnings = [*settings.warnings, *rules.warnings]
    if args.json:
        out: dict[str, Any] = {
            "event": result.event, "handlers": [r.to_dict() for r in result.runs],
            "decision": result.decision, "blocked": result.blocked, "reason": result.reason,
            "additional_context": result.additional_context,
            "system_messages": result.system_messages, "stop": result.stop,
            "updated_input": result.updated_input, "warnings": warnings,
        }
        if gated is not None:
            out["final"] = gated.final
            out["gate_path"] = [{"step": s.step, "verdict": s.verdict, "detail": s.detail}
                                for s in gated.path]
        _print_json(out)
        return 0
    for warning in warnings:
        print(f"warning: {warning}")
    print(f"event {result.event}: {len(result.runs)} handler(s), {len(result.ran)} ran")
    for i, run in enumerate(result.runs, 1):
        print(f"[{i}] {run.source}  matcher {run.matcher!r}  "
              f"{'matched' if run.matched else 'no match'} ({run.rule.value}): {run.why}")
        print(f"    {run.handler_type}: {run.handler}")
        if run.skipped:
            print(f"    skipped: {run.skipped}")
        elif run.outcome is not None:
            line = f"    outcome {run.outcome.value}, exit {run.exit_code}, {run.duration:.3f}s"
            if run.failure:
                line += f", failure {run.failure.value}"
            print(line + (f": {run.reason}" if run.reason else ""))
    print(f"hooks: decision {result.decision or 'none'}, blocked {'yes' if result.blocked else 'no'}"
          + (f" ({result.reason})" if result.blocked and result.reason else ""))
    for text in result.additional_context:
        print(f"context: {text[:200]}")
    if gated is not None:
        trail = " -> ".join(f"{s.step}({s.verdict or 'pass'})" for s in gated.path)
        print(f"final: {gated.final}  [{trail}]  {gated.reason}")
    return 0


def _cmd_hooks_events(args: argparse.Namespace) -> int:
    from ..hooks.events import EVENTS

    if args.json:
        _print_json([{"event": s.name, "fires": s.fires, "matcher": s.matcher_field,
                      "exit2": s.exit2.value, "effect": s.effect, "can_block": s.can_block,
                      "article": s.article, "on_failure_ignored": s.on_failure_ignored,
                      "timeout": s.timeout} for s in EVENTS.values()])
        return 0
    print(f"{'event':<20} {'matcher reads':<18} {'exit 2':<9} effect")
    for s in EVENTS.values():
        mark = "*" if s.article else " "
        print(f"{mark}{s.name:<19} {s.matcher_field or '-':<18} {s.exit2.value:<9} {s.effect}")
    print("* = in the article's §4.1 table")
    return 0


# --- region: skills, config, plugin ----------------------------------------------------------

def _add_skills(sub: Any) -> None:
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


def _problem_dict(p: Any) -> dict[str, Any]:
    return {"severity": p.severity.value, "message": p.message, "source": p.source,
            "path": p.path, "line": p.line}


def _report(problems: Sequence[Any], as_json: bool, strict: bool = False) -> int:
    """Print problems (stderr unless JSON was asked for); 1 when one fails the check."""
    if not as_json:
        for p in problems:
            print(p, file=sys.stderr)
    failing = [p for p in problems if strict or p.severity.value == "error"]
    return 1 if failing else 0


def _cmd_skills(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from ..config.plugins import load_plugin
    from ..skills.loader import build_listing, lint_skills, load_skills

    is_plugin = [(Path(p) / ".claude-plugin").is_dir() for p in args.paths]
    found = load_skills([p for p, plug in zip(args.paths, is_plugin) if not plug],
                        plugins=[load_plugin(p, environ=os.environ)
                                 for p, plug in zip(args.paths, is_plugin) if plug])
    opts = {"context_window_tokens": args.context_window, "budget_chars": args.budget_chars}
    if args.action == "lint":
        problems = lint_skills(found, **opts)
        if args.json:
            _print_json({"problems": [_problem_dict(p) for p in problems]})
        elif not problems:
            print(f"{len(found)} skills, no problems")
        return _report(problems, args.json, args.strict)
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
        _print_json({"skills": rows, "listing_chars": listing.chars,
                     "budget_chars": listing.budget_chars,
                     "problems": [_problem_dict(p) for p in found.problems]})
    else:
        for r in rows:
            flags = "".join(["" if r["in_listing"] else " [not listed]",
                             " [cut]" if r["truncated"] else "",
                             " [description dropped]" if r["description_dropped"] else "",
                             f" [hides {len(r['shadowed'])}]" if r["shadowed"] else ""])
            print(f"{r['name']:<32} {r['kind']:<7} {r['level']:<10} {r['listed_chars']:>5} "
                  f"chars{flags}")
        print(f"listing: {listing.chars} of {listing.budget_chars} characters")
    return _report(found.problems, args.json)


def _cmd_config_resolve(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from ..errors import ConfigError
    from ..config.plugins import load_plugin
    from ..config.mcp_json import load_claude_json, load_mcp_json
    from ..config.precedence import resolve_mcp_servers
    from ..errors import Problem

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
        _print_json({"servers": {n: {"source": r.source, "file": r.origin, "shadowed":
                                     list(r.shadowed), "definition": r.value}
                                 for n, r in resolved.items()},
                     "problems": [_problem_dict(p) for p in problems]})
    else:
        for n, r in resolved.items():
            hidden = f" (hides {', '.join(r.shadowed)})" if r.shadowed else ""
            print(f"{n}: from {r.source} {r.origin or ''}{hidden}")
            print(f"    {json.dumps(r.value, ensure_ascii=False)}")
        if not resolved:
            print("no MCP servers defined")
    return _report(problems, args.json)


def _cmd_plugin_validate(args: argparse.Namespace) -> int:
    import os

    from ..config.plugins import load_plugin, validate_plugin

    problems = validate_plugin(args.dir, environ=os.environ)
    plugin = load_plugin(args.dir, environ=os.environ)
    summary = {"name": plugin.name, "skills": [s.name for s in plugin.skills],
               "agents": list(plugin.agents), "hooks": [o for o, _ in plugin.hooks],
               "mcp_servers": list(plugin.mcp_source.servers)}
    if args.json:
        _print_json({**summary, "problems": [_problem_dict(p) for p in problems]})
    else:
        for key, value in summary.items():
            print(f"{key}: {value if isinstance(value, str) else ', '.join(value) or '-'}")
        errors = sum(p.severity.value == "error" for p in problems)
        print(f"{errors} errors, {len(problems) - errors} warnings")
    return _report(problems, args.json)


# --- region: course (grade, progress) -------------------------------------------------------

def _add_course(sub: Any) -> None:
    grade = sub.add_parser(
        "grade", help="grade a class's exercise notebooks into a CSV",
        description="Run each notebook in a fresh kernel and grade exercises 9.1-9.4. "
                    "SUBMISSIONS are notebooks, learner folders, or a class folder of them.")
    grade.add_argument("submissions", nargs="+", metavar="SUBMISSIONS")
    grade.add_argument("--out", required=True, help="CSV file to write (always written)")
    grade.add_argument("--workers", type=int, default=2, help="notebooks run at once (2)")
    grade.add_argument("--timeout", type=float, default=60.0,
                       help="seconds allowed per notebook (60)")
    grade.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    grade.set_defaults(handler=_cmd_grade)
    prog = sub.add_parser("progress", help="show your exercise progress",
                          description="Show the results recorded by check() in the notebooks.")
    prog.add_argument("--json", action="store_true", help="print the rows as JSON")
    prog.set_defaults(handler=_cmd_progress)


def _cmd_grade(args: argparse.Namespace) -> int:
    from collections import Counter

    from ..course.batch import grade_class

    rows = grade_class(args.submissions, args.out, workers=args.workers, timeout=args.timeout,
                       progress=not args.no_progress)
    counts = Counter(row.status.value for row in rows)
    learners = len({row.learner for row in rows})
    print(f"{len(rows)} rows for {learners} learners written to {args.out}: "
          + ", ".join(f"{status} {n}" for status, n in sorted(counts.items())))
    return 0


def _cmd_progress(args: argparse.Namespace) -> int:
    import os

    from ..course.exercises import EXERCISE_IDS, TITLES, get_exercise
    from ..course.progress import load_progress, progress_path, summary

    path = progress_path(os.environ)
    if path is None:
        print("progress recording is off (MCPMINI_PROGRESS=off)", file=sys.stderr)
        return 0
    catalogue = [(i, TITLES[i], get_exercise(i).max_score) for i in EXERCISE_IDS]
    rows = summary(load_progress(path), catalogue)
    if args.json:
        _print_json({"path": str(path), "exercises": rows})
        return 0
    print(f"progress file: {path}")
    for row in rows:
        best = f"  best {row['best_score']}/{row['max_score']}" if row["attempts"] else ""
        print(f"  {row['exercise']} {row['title']}: {row['label']}{best}  "
              f"checks {row['attempts']}  practice {row['practice']}")
    done = sum(1 for row in rows if row["label"] == "全問正解")
    print(f"{done}/{len(rows)} exercises fully correct")
    return 0


# --- region: loop (run) ----------------------------------------------------------------

def _add_loop(sub: Any) -> None:
    from ..mcp.samples import SAMPLES

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
    from ..agent.loop import AgentOptions, run
    from ..agent.models import AlwaysToolModel, RouterModel
    from ..mcp.samples import SAMPLES
    from ..agent.tools import builtin_tools

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
        _print_json({"messages": result.messages, "stop_reason": result.stop_reason.value,
                     "model_calls": result.model_calls, "turns": result.turns})
    else:
        for m in result.messages:
            print(f"{m['role']:<9} {json.dumps(m['content'], ensure_ascii=False)}")
        print(f"stop: {result.stop_reason.value}  model calls: {result.model_calls}  "
              f"turns: {result.turns}  tokens of the last request: "
              f"{result.requests[-1].total_tokens if result.requests else 0}")
    return 0


_GROUPS: list[Callable[[Any], None]] = [_add_mcp, _add_hooks, _add_skills, _add_course, _add_loop]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="mcpmini", description="A workbench for MCP servers, hooks, skills and plugins."
    )
    parser.add_argument("--version", action="version", version=f"mcpmini {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in _GROUPS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 1 a check failed, 2 usage/input error)."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after the first "--" is a command line of its own (e.g. the server to
    # start); argparse's handling of "--" inside subcommands is unreliable, so split here.
    rest: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, rest = argv[:cut], argv[cut + 1 :]
    args = parser.parse_args(argv)
    if rest:
        if not hasattr(args, "server"):
            parser.error("unexpected arguments after --")
        args.server = rest
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except McpminiError as exc:
        print(f"mcpmini {args.command}: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"mcpmini {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
