"""``decide``: the hooks of one call, then the permission gate, in one function."""

from __future__ import annotations

import json
from typing import Any

from mcpmini.hooks import Decided, HookMatcher, decide, has_hooks
from mcpmini.permissions import PermissionRules


def says(decision: str) -> Any:
    def hook(input_data: Any, tool_use_id: Any, context: Any) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision}
        }

    return hook


def test_a_hook_deny_stops_the_call_before_any_rule() -> None:
    decided = decide(
        {"PreToolUse": [HookMatcher("Write", [says("deny")])]},
        "Write",
        {"file_path": "/repo/a"},
        rules=PermissionRules(allow=("Write",)),
    )
    assert decided.final == "deny" and decided.gate is not None
    assert decided.gate.decided_by == "hooks"
    assert decided.hooks is not None and decided.hooks.blocked


def test_a_hook_allow_never_beats_a_deny_rule() -> None:
    decided = decide(
        {"PreToolUse": [HookMatcher("*", [says("allow")])]},
        "Write",
        {"file_path": "/repo/a"},
        rules=PermissionRules(deny=("Write",)),
    )
    assert (decided.final, decided.gate and decided.gate.decided_by) == ("deny", "deny_rules")


def test_without_hooks_only_the_gate_decides() -> None:
    decided = decide(None, "Read", {"file_path": "/repo/a"}, cwd="/repo")
    assert decided.hooks is None and decided.final == "allow"
    assert not has_hooks({"PostToolUse": []}, "PreToolUse")


def test_ungated_runs_only_the_hooks_and_the_summary_is_json() -> None:
    def note(input_data: Any, tool_use_id: Any, context: Any) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": input_data["prompt"],
            }
        }

    decided = decide(
        {"UserPromptSubmit": [HookMatcher(None, [note])]},
        "",
        {},
        event="UserPromptSubmit",
        payload={"prompt": "hi"},
        gated=False,
    )
    assert isinstance(decided, Decided) and decided.gate is None
    out = json.loads(json.dumps(decided.to_dict()))
    assert out["additional_context"] == ["hi"] and "final" not in out


def test_updated_input_reaches_the_rules_and_the_result() -> None:
    def rewrite(input_data: Any, tool_use_id: Any, context: Any) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "updatedInput": {"file_path": "/repo/safe"},
            }
        }

    decided = decide(
        {"PreToolUse": [HookMatcher("*", [rewrite])]},
        "Write",
        {"file_path": "/repo/.env"},
        rules=PermissionRules(allow=("Write(/repo/safe)",), deny=("Write(/repo/.env)",)),
        cwd="/repo",
    )
    assert decided.tool_input == {"file_path": "/repo/safe"}


# --- issue 32: what the session starts in, PermissionRequest answers --------------------


def test_the_starting_mode_follows_the_scopes_claude_code_reads_it_from():
    from mcpmini.permissions import PermissionMode, starting_mode

    assert starting_mode(None, ("user", "bypassPermissions")).mode is PermissionMode.BYPASS
    for scope in ("project", "local"):
        got = starting_mode(None, (scope, "bypassPermissions"))
        assert got.mode is PermissionMode.DEFAULT and "ignored" in got.warnings[0]
    assert starting_mode(None, ("project", "acceptEdits")).mode is PermissionMode.ACCEPT_EDITS
    refused = starting_mode("bypassPermissions", ("user", "acceptEdits"), disable_bypass=True)
    assert refused.mode is PermissionMode.ACCEPT_EDITS and "disabled" in refused.warnings[0]
    both = starting_mode(None, ("user", "bypassPermissions"), disable_bypass=True)
    assert both.mode is PermissionMode.DEFAULT


def _permission_request(tmp_path, answer: dict) -> dict:
    script = tmp_path / "pr.sh"
    script.write_text(f"printf '%s' '{json.dumps(answer)}'\n")
    return {
        "PermissionRequest": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": f"sh {script}"}]}
        ]
    }


def test_a_permission_request_allow_runs_the_rewritten_input_past_the_deny_rules(tmp_path):
    out = {"behavior": "allow", "updatedInput": {"command": "touch rewritten.txt"}}
    hooks = _permission_request(
        tmp_path, {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": out}}
    )
    call = {"command": "touch a.txt"}
    allowed = decide(hooks, "Bash", call, cwd=str(tmp_path))
    assert allowed.final == "allow" and allowed.tool_input == out["updatedInput"]
    assert allowed.gate.decided_by == "fallback" and "PermissionRequest" in allowed.gate.reason
    denied = decide(
        hooks, "Bash", call, cwd=str(tmp_path), rules=PermissionRules(deny=["Bash(touch re*)"])
    )
    assert denied.final == "deny" and "deny rule" in denied.gate.reason
    ignored = decide(hooks, "Bash", call, cwd=str(tmp_path), prompt_tool=True)
    assert ignored.final == "ask" and ignored.permission_request is not None
