"""``mcpmini hooks run`` and ``mcpmini hooks events``: real hook settings, run for one event."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..errors import UsageError
from .output import echo, json_object, print_json

__all__ = ["add"]


def add(sub: Any) -> None:
    hooks = sub.add_parser("hooks", help="run real hook settings, or list the hook events")
    actions = hooks.add_subparsers(dest="hooks_command", metavar="ACTION")
    run = actions.add_parser(
        "run", help="run the handlers of settings files for one event and show the decision"
    )
    run.add_argument(
        "--settings",
        nargs="+",
        required=True,
        metavar="FILE",
        help="settings.json, settings.local.json, hooks/hooks.json or SKILL.md",
    )
    run.add_argument("--event", required=True, help="hook event, e.g. PreToolUse")
    run.add_argument("--tool-name", help="tool name (the matcher value of tool events)")
    run.add_argument("--tool-input", default="{}", metavar="JSON", help="tool input object")
    run.add_argument(
        "--payload",
        default="{}",
        metavar="JSON",
        help='other event fields, e.g. \'{"prompt": "hi"}\'',
    )
    for name in ("allow", "ask", "deny"):
        run.add_argument(
            f"--{name}",
            nargs="+",
            default=[],
            metavar="RULE",
            help=f"extra {name} permission rules",
        )
    run.add_argument(
        "--mode", help="permission mode (default, acceptEdits, plan, dontAsk, bypassPermissions)"
    )
    run.add_argument("--project-dir", help="CLAUDE_PROJECT_DIR and working directory")
    run.add_argument(
        "--add-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="one more working directory, as claude --add-dir (repeatable)",
    )
    run.add_argument(
        "--permission-prompt-tool",
        action="store_true",
        help="the session answers prompts through a prompt tool, as claude -p "
        "--permission-prompt-tool: PermissionRequest hooks run but do not decide",
    )
    run.add_argument("--timeout", type=float, help="timeout for handlers that set none (s)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.set_defaults(handler=_cmd_hooks_run)
    events = actions.add_parser("events", help="print the hook event catalogue")
    events.add_argument("--json", action="store_true", help="print JSON")
    events.set_defaults(handler=_cmd_hooks_events)
    hooks.set_defaults(handler=lambda args: (hooks.print_help(), 2)[1])


def _cmd_hooks_run(args: argparse.Namespace) -> int:
    from ..config.trust import read_record
    from ..hooks import decide, load_settings
    from ..permissions import PermissionRules

    home = os.environ.get("HOME")
    where = args.project_dir or os.getcwd()
    # trust is read where Claude Code records it: ~/.claude.json's projects[<git root>]
    trusted = read_record(where, home=home or os.path.expanduser("~")).trusted
    settings = load_settings(args.settings, trusted=trusted)
    payload = json_object(args.payload, "--payload")
    tool_input = json_object(args.tool_input, "--tool-input")
    rules = settings.permissions.merged(PermissionRules(args.allow, args.ask, args.deny))
    wanted = args.mode or settings.default_mode
    starting = settings.starting_mode(args.mode)
    gated = bool(rules.allow or rules.ask or rules.deny or wanted)
    if gated and not args.tool_name:
        raise UsageError("permission rules or --mode need --tool-name to reach a decision")
    decided = decide(
        settings,
        args.tool_name or "",
        tool_input,
        event=args.event,
        payload=payload,
        rules=rules,
        mode=starting.mode,
        cwd=args.project_dir or "",
        home=home,
        gated=gated,
        tool_use_id="toolu_cli",
        project_dir=args.project_dir,
        timeout=args.timeout,
        additional_dirs=[*settings.additional_dirs, *args.add_dir],
        prompt_tool=args.permission_prompt_tool,
    )
    result, gate_result = decided.hooks, decided.gate
    assert result is not None
    warnings = [
        *settings.warnings,
        *rules.warnings,
        *(starting.warnings if gated else ()),
        *(w.message for w in (gate_result.warnings if gate_result else ())),
    ]
    if args.json:
        out = decided.to_dict()
        gate_part = {k: out.pop(k) for k in ("final", "gate_path") if k in out}
        print_json({**out, "warnings": warnings, **gate_part})  # the key order of before
        return 0
    for warning in warnings:
        echo(f"warning: {warning}")
    echo(f"event {result.event}: {len(result.runs)} handler(s), {len(result.ran)} ran")
    for i, run in enumerate(result.runs, 1):
        echo(
            f"[{i}] {run.source}  matcher {run.matcher!r}  "
            f"{'matched' if run.matched else 'no match'} ({run.rule.value}): {run.why}"
        )
        echo(f"    {run.handler_type}: {run.handler}")
        if run.skipped:
            echo(f"    skipped: {run.skipped}")
        elif run.outcome is not None:
            line = f"    outcome {run.outcome.value}, exit {run.exit_code}, {run.duration:.3f}s"
            if run.failure:
                line += f", failure {run.failure.value}"
            echo(line + (f": {run.reason}" if run.reason else ""))
    echo(
        f"hooks: decision {result.decision or 'none'}, blocked {'yes' if result.blocked else 'no'}"
        + (f" ({result.reason})" if result.blocked and result.reason else "")
    )
    for text in result.additional_context:
        echo(f"context: {text[:200]}")
    if gate_result is not None:
        trail = " -> ".join(f"{s.step}({s.verdict or 'pass'})" for s in gate_result.path)
        echo(f"final: {gate_result.final}  [{trail}]  {gate_result.reason}")
    return 0


def _cmd_hooks_events(args: argparse.Namespace) -> int:
    from ..hooks import EVENTS

    if args.json:
        print_json(
            [
                {
                    "event": s.name,
                    "fires": s.fires,
                    "matcher": s.matcher_field,
                    "exit2": s.exit2.value,
                    "effect": s.effect,
                    "can_block": s.can_block,
                    "article": s.article,
                    "on_failure_ignored": s.on_failure_ignored,
                    "timeout": s.timeout,
                }
                for s in EVENTS.values()
            ]
        )
        return 0
    echo(f"{'event':<20} {'matcher reads':<18} {'exit 2':<9} effect")
    for s in EVENTS.values():
        mark = "*" if s.article else " "
        echo(f"{mark}{s.name:<19} {s.matcher_field or '-':<18} {s.exit2.value:<9} {s.effect}")
    echo("* = in the article's §4.1 table")
    return 0
