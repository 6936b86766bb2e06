"""``mcpmini hooks run`` / ``mcpmini hooks events`` on the example settings files."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from mcpmini.cli import main
from mcpmini.hooks import EVENTS
from mcpmini.permissions import GateStage

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "hooks"
ENV_WRITE = [
    "--event",
    "PreToolUse",
    "--tool-name",
    "Write",
    "--tool-input",
    '{"file_path": "/repo/.env"}',
]


@pytest.fixture(autouse=True)
def _fast_python(monkeypatch):
    # "python3" in the example commands should be this interpreter, not a slow shim.
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    monkeypatch.chdir(ROOT)


def hooks_json(capsys, *argv: str) -> dict:
    assert main(["hooks", "run", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_guard_blocks_a_env_write_even_in_bypass_mode(capsys):
    out = hooks_json(
        capsys,
        "--settings",
        str(EXAMPLES / "settings.json"),
        *ENV_WRITE,
        "--mode",
        "bypassPermissions",
    )
    handler = out["handlers"][0]
    assert (handler["matched"], handler["outcome"], handler["exit_code"]) == (
        True,
        "blocking_error",
        2,
    )
    assert out["decision"] == "deny" and out["final"] == "deny"


def test_the_guard_lets_other_writes_reach_the_rules(capsys):
    out = hooks_json(
        capsys,
        "--settings",
        str(EXAMPLES / "settings.json"),
        "--event",
        "PreToolUse",
        "--tool-name",
        "Write",
        "--tool-input",
        '{"file_path": "app.py"}',
    )
    assert out["handlers"][0]["outcome"] == "success"
    assert out["decision"] is None and out["final"] == "allow"  # allow rule "Edit(**)"


def test_exercise_9_3_a_broken_path_fails_open_by_default(capsys):
    out = hooks_json(capsys, "--settings", str(EXAMPLES / "broken-fail-open.json"), *ENV_WRITE)
    assert out["handlers"][0]["outcome"] == "non_blocking_error"
    assert out["handlers"][0]["exit_code"] == 127
    assert out["decision"] is None and "final" not in out


def test_exercise_9_3_a_broken_path_fails_closed_with_on_failure_block(capsys):
    out = hooks_json(
        capsys,
        "--settings",
        str(EXAMPLES / "broken-fail-closed.json"),
        *ENV_WRITE,
        "--allow",
        "Write",
        "--mode",
        "bypassPermissions",
    )
    assert out["handlers"][0]["outcome"] == "blocking_error"
    assert out["decision"] == "deny" and out["final"] == "deny"


def test_the_formatter_tidies_after_a_write_and_reports_context(capsys, tmp_path):
    target = tmp_path / "a.py"
    target.write_text("x = 1   \n\n\n")
    out = hooks_json(
        capsys,
        "--settings",
        str(EXAMPLES / "settings.json"),
        "--event",
        "PostToolUse",
        "--tool-name",
        "Write",
        "--tool-input",
        json.dumps({"file_path": str(target)}),
    )
    assert target.read_text() == "x = 1\n"
    assert out["handlers"][0]["outcome"] == "success" and out["additional_context"]


def test_unmatched_handlers_are_listed_with_null_outcomes(capsys):
    out = hooks_json(
        capsys,
        "--settings",
        str(EXAMPLES / "settings.json"),
        "--event",
        "PreToolUse",
        "--tool-name",
        "Read",
        "--tool-input",
        "{}",
    )
    assert out["handlers"][0]["matched"] is False and out["handlers"][0]["outcome"] is None


def test_rules_from_flags_are_pooled_with_the_settings_rules(capsys):
    out = hooks_json(
        capsys,
        "--settings",
        str(EXAMPLES / "broken-fail-open.json"),
        "--event",
        "PreToolUse",
        "--tool-name",
        "Bash",
        "--tool-input",
        '{"command": "rm -rf build"}',
        "--allow",
        "Bash",
        "--deny",
        "Bash(rm *)",
    )
    assert out["final"] == "deny"


def test_the_human_report_names_the_rule_and_the_path(capsys):
    assert main(["hooks", "run", "--settings", str(EXAMPLES / "settings.json"), *ENV_WRITE]) == 0
    text = capsys.readouterr().out
    assert "matched (list)" in text and "blocked yes" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["--settings", "no/such/file.json", "--event", "PreToolUse"],
        ["--settings", str(EXAMPLES / "settings.json"), "--event", "PreToolUSe"],
        [
            "--settings",
            str(EXAMPLES / "settings.json"),
            "--event",
            "PreToolUse",
            "--tool-input",
            "[1]",
        ],
        [
            "--settings",
            str(EXAMPLES / "settings.json"),
            "--event",
            "PreToolUse",
            "--tool-input",
            "{bad",
        ],
        ["--settings", str(EXAMPLES / "settings.json"), "--event", "Stop", "--mode", "plan"],
        [
            "--settings",
            str(EXAMPLES / "settings.json"),
            "--event",
            "PreToolUse",
            "--tool-name",
            "Bash",
            "--mode",
            "yolo",
        ],
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_two(capsys, argv):
    assert main(["hooks", "run", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcpmini hooks:") and len(err.strip().splitlines()) == 1


def test_a_settings_file_with_a_wrong_type_is_ignored_with_a_warning(capsys, tmp_path):
    bad = tmp_path / "settings.json"
    bad.write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": 1}]}]}})
    )
    assert main(["hooks", "run", "--settings", str(bad), "--event", "Stop"]) == 0
    out = capsys.readouterr().out
    assert f"warning: {bad} at hooks.Stop[0].hooks[0].command: " in out
    assert "the whole file is ignored" in out and "0 handler(s)" in out


def test_events_lists_the_whole_catalogue(capsys):
    assert main(["hooks", "events", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["event"] for r in rows] == list(EVENTS) and len(rows) == 33
    assert {r["event"] for r in rows if r["article"]} == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "PreCompact",
        "SubagentStart",
        "SubagentStop",
    }
    assert main(["hooks", "events"]) == 0
    assert "PreToolUse" in capsys.readouterr().out


# One call per station of the gate (and per hook decision), with relative paths so the
# report does not depend on where the repository sits. The golden file was written by the
# gate of bare strings, before GateStage / Behavior became enums: the report must not move.
GATE_GOLDEN = ROOT / "tests" / "fixtures" / "gate" / "hooks_run_golden.json"
_EXAMPLE = "examples/hooks/settings.json"
_DECISIONS = "tests/fixtures/gate/hook_decisions.json"
GATE_CASES = {
    "hooks_deny": ["--settings", _EXAMPLE, *ENV_WRITE, "--mode", "bypassPermissions"],
    "allow_rules": [
        "--settings",
        _EXAMPLE,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Write",
        "--tool-input",
        '{"file_path": "app.py"}',
    ],
    "permission_request_allow": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "NotebookEdit",
        "--tool-input",
        '{"notebook_path": "a.ipynb"}',
        "--mode",
        "default",
    ],
    "deny_rules": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Bash",
        "--tool-input",
        '{"command": "rm -rf build"}',
        "--allow",
        "Bash",
        "--deny",
        "Bash(rm *)",
    ],
    "ask_rules": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Write",
        "--tool-input",
        '{"file_path": "a.txt"}',
        "--ask",
        "Write",
    ],
    "ask_rules_dont_ask": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Write",
        "--tool-input",
        '{"file_path": "a.txt"}',
        "--ask",
        "Write",
        "--mode",
        "dontAsk",
    ],
    "hook_ask": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Bash",
        "--tool-input",
        '{"command": "make"}',
        "--mode",
        "default",
    ],
    "hook_allow_updated_input": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Glob",
        "--tool-input",
        '{"pattern": "*"}',
        "--mode",
        "default",
    ],
    "hook_defer": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Grep",
        "--tool-input",
        '{"pattern": "x"}',
        "--mode",
        "default",
    ],
    "mode_allow": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Read",
        "--tool-input",
        '{"file_path": "a.txt"}',
        "--mode",
        "default",
    ],
    "safety_check": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Bash",
        "--tool-input",
        '{"command": "rm -rf /"}',
        "--mode",
        "bypassPermissions",
    ],
    "mode_deny": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Edit",
        "--tool-input",
        '{"file_path": "a.txt"}',
        "--mode",
        "plan",
    ],
    "fallback_ask": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "WebFetch",
        "--tool-input",
        '{"url": "https://example.com"}',
        "--mode",
        "default",
    ],
    "fallback_deny": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "WebFetch",
        "--tool-input",
        '{"url": "https://example.com"}',
        "--mode",
        "dontAsk",
    ],
    "not_gated": [
        "--settings",
        _DECISIONS,
        "--event",
        "PreToolUse",
        "--tool-name",
        "Bash",
        "--tool-input",
        '{"command": "make"}',
    ],
}


def gate_reports(capsys, argv: list[str]) -> dict[str, object]:
    """``--json`` and the human report of one run, each handler's timing left out."""
    assert main(["hooks", "run", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for handler in out.get("handlers", []):
        handler.pop("duration", None)
    assert main(["hooks", "run", *argv]) == 0
    text = re.sub(r"\d+\.\d{3}s", "#s", capsys.readouterr().out)
    return {"json": out, "text": text.splitlines()}


@pytest.mark.parametrize("case", sorted(GATE_CASES))
def test_the_cli_report_of_each_gate_station_is_the_one_of_the_string_gate(capsys, case):
    golden = json.loads(GATE_GOLDEN.read_text())
    assert gate_reports(capsys, GATE_CASES[case]) == golden[case]


def test_the_golden_cases_reach_every_station_of_the_gate():
    golden = json.loads(GATE_GOLDEN.read_text())
    deciding = {g["json"]["gate_path"][-1]["step"] for g in golden.values() if "final" in g["json"]}
    assert deciding == {s.value for s in GateStage}


def test_hooks_run_reads_trust_where_claude_code_records_it(capsys, tmp_path, monkeypatch):
    # issue 32: with no trust entry in ~/.claude.json a project allow rule does not approve
    home, ws = tmp_path / "home", tmp_path / "ws"
    (ws / ".claude").mkdir(parents=True)
    home.mkdir()
    project = ws / ".claude" / "settings.json"
    project.write_text(json.dumps({"permissions": {"allow": ["Bash(touch *)"]}}))
    monkeypatch.setenv("HOME", str(home))
    argv = ["hooks", "run", "--settings", str(project), "--event", "PreToolUse"]
    argv += ["--tool-name", "Bash", "--tool-input", '{"command": "touch a"}']
    argv += ["--project-dir", str(ws), "--mode", "default", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["final"] == "ask" and any("not been trusted" in w for w in out["warnings"])
    state = {"projects": {str(ws.resolve()): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(state))
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["final"] == "allow"


def test_hooks_run_adds_directories_and_refuses_a_disabled_bypass(capsys, tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    settings = tmp_path / "team.json"
    settings.write_text(json.dumps({"permissions": {"disableBypassPermissionsMode": "disable"}}))
    argv = ["hooks", "run", "--settings", str(settings), "--event", "PreToolUse", "--json"]
    argv += ["--tool-name", "Read", "--tool-input", json.dumps({"file_path": f"{extra}/x"})]
    argv += ["--project-dir", str(tmp_path / "ws"), "--mode", "bypassPermissions"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["final"] == "ask" and any("disabled" in w for w in out["warnings"])
    assert main([*argv, "--add-dir", str(extra)]) == 0
    assert json.loads(capsys.readouterr().out)["final"] == "allow"
