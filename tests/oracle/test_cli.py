"""``mcpmini claude-code`` against the pinned Claude Code: the per-call report and --compare."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mcpmini.cli import main


def test_the_report_gives_each_verdict_and_what_the_model_saw(
    claude_binary: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPMINI_CLAUDE_CODE", str(claude_binary))
    code = main(
        [
            "claude-code",
            "--deny",
            "Bash(rm *)",
            "--bash",
            "ls",
            "--bash",
            "rm -f x",
            "--bash",
            "touch y",
            "--compare",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(c["verdict"], c["cause"]) for c in out["calls"]] == [
        ("allow", "none"),
        ("deny", "rule"),
        ("ask", "prompt"),
    ]
    assert [c["mcpmini"] for c in out["calls"]] == ["allow", "deny", "ask"]
    assert "Bash" in out["shown"]["tools"]
    assert out["shown"]["sizes"]["system"]["tokens"] > 0


def test_compare_exits_1_when_the_verdicts_differ(
    claude_binary: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("MCPMINI_CLAUDE_CODE", str(claude_binary))
    # A hook that denies only when Claude Code runs it (it exports CLAUDECODE=1 to hooks, which
    # mcpmini does not): Claude Code denies, mcpmini, running the same hook in the same
    # sandbox, asks.
    deny = (
        "cat >/dev/null; [ -n \"$CLAUDECODE\" ] && printf '%s' "
        '\'{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
        '"permissionDecision":"deny"}}\'; exit 0'
    )
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": deny}]}]
        }
    }
    user = tmp_path / "settings.json"
    user.write_text(json.dumps(settings))
    code = main(["claude-code", "--user", str(user), "--bash", "touch x", "--compare"])
    out = capsys.readouterr().out
    assert code == 1
    assert "DIFFERS" in out
    assert "hook" in out


def test_a_print_session_is_a_plain_claude_p_that_starts_a_pending_project_server(
    claude_binary: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("MCPMINI_CLAUDE_CODE", str(claude_binary))
    server = {"command": sys.executable, "args": ["-I", "-m", "mcpmini.oracle.probe", "tools"]}
    case = {
        "files": {".mcp.json": json.dumps({"mcpServers": {"extra": server}})},
        "calls": [{"bash": "touch y"}],
    }
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    code = main(["claude-code", "--case", str(path), "--session", "print", "--compare", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["session"] == "print"
    assert out["pending_project_servers"] == ["extra"]
    # claude -p started the never-approved server: its tools are listed behind ToolSearch
    assert any(name.startswith("mcp__extra__") for name in out["shown"]["deferred"])
    # no prompt tool: the ask is Claude Code's headless refusal, and mcpmini asks too
    [call] = out["calls"]
    assert (call["verdict"], call["cause"], call["mcpmini"]) == ("ask", "prompt", "ask")
    assert "requested permissions" in call["text"] or "approval" in call["text"]


def test_a_claude_subcommand_runs_in_the_same_sandbox(claude_binary: Path) -> None:
    from mcpmini.oracle import Case, lay_out, run_command

    case = Case("validate", files={"p/.claude-plugin/plugin.json": '{"name": "ok-plugin"}'})
    with lay_out(case) as tree:
        done = run_command(tree, claude_binary, ["plugin", "validate", str(tree.ws / "p")])
    assert done.exit_code == 0
    assert "ok-plugin" in done.stdout or "passed" in done.stdout.lower()
