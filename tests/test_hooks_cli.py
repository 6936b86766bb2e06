"""``mcpmini hooks run`` / ``mcpmini hooks events`` on the example settings files."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from mcpmini.cli import main
from mcpmini.hooks import EVENTS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "hooks"
ENV_WRITE = ["--event", "PreToolUse", "--tool-name", "Write",
             "--tool-input", '{"file_path": "/repo/.env"}']


@pytest.fixture(autouse=True)
def _fast_python(monkeypatch):
    # "python3" in the example commands should be this interpreter, not a slow shim.
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    monkeypatch.chdir(ROOT)


def hooks_json(capsys, *argv: str) -> dict:
    assert main(["hooks", "run", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_guard_blocks_a_env_write_even_in_bypass_mode(capsys):
    out = hooks_json(capsys, "--settings", str(EXAMPLES / "settings.json"), *ENV_WRITE,
                     "--mode", "bypassPermissions")
    handler = out["handlers"][0]
    assert (handler["matched"], handler["outcome"], handler["exit_code"]) == (
        True, "blocking_error", 2)
    assert out["decision"] == "deny" and out["final"] == "deny"


def test_the_guard_lets_other_writes_reach_the_rules(capsys):
    out = hooks_json(capsys, "--settings", str(EXAMPLES / "settings.json"), "--event",
                     "PreToolUse", "--tool-name", "Write", "--tool-input",
                     '{"file_path": "/repo/app.py"}')
    assert out["handlers"][0]["outcome"] == "success"
    assert out["decision"] is None and out["final"] == "allow"  # allow rule "Edit" in the file


def test_exercise_9_3_a_broken_path_fails_open_by_default(capsys):
    out = hooks_json(capsys, "--settings", str(EXAMPLES / "broken-fail-open.json"), *ENV_WRITE)
    assert out["handlers"][0]["outcome"] == "non_blocking_error"
    assert out["handlers"][0]["exit_code"] == 127
    assert out["decision"] is None and "final" not in out


def test_exercise_9_3_a_broken_path_fails_closed_with_on_failure_block(capsys):
    out = hooks_json(capsys, "--settings", str(EXAMPLES / "broken-fail-closed.json"),
                     *ENV_WRITE, "--allow", "Write", "--mode", "bypassPermissions")
    assert out["handlers"][0]["outcome"] == "blocking_error"
    assert out["decision"] == "deny" and out["final"] == "deny"


def test_the_formatter_tidies_after_a_write_and_reports_context(capsys, tmp_path):
    target = tmp_path / "a.py"
    target.write_text("x = 1   \n\n\n")
    out = hooks_json(capsys, "--settings", str(EXAMPLES / "settings.json"), "--event",
                     "PostToolUse", "--tool-name", "Write", "--tool-input",
                     json.dumps({"file_path": str(target)}))
    assert target.read_text() == "x = 1\n"
    assert out["handlers"][0]["outcome"] == "success" and out["additional_context"]


def test_unmatched_handlers_are_listed_with_null_outcomes(capsys):
    out = hooks_json(capsys, "--settings", str(EXAMPLES / "settings.json"), "--event",
                     "PreToolUse", "--tool-name", "Read", "--tool-input", "{}")
    assert out["handlers"][0]["matched"] is False and out["handlers"][0]["outcome"] is None


def test_rules_from_flags_are_pooled_with_the_settings_rules(capsys):
    out = hooks_json(capsys, "--settings", str(EXAMPLES / "broken-fail-open.json"), "--event",
                     "PreToolUse", "--tool-name", "Bash", "--tool-input",
                     '{"command": "rm -rf build"}', "--allow", "Bash", "--deny", "Bash(rm *)")
    assert out["final"] == "deny"


def test_the_human_report_names_the_rule_and_the_path(capsys):
    assert main(["hooks", "run", "--settings", str(EXAMPLES / "settings.json"), *ENV_WRITE]) == 0
    text = capsys.readouterr().out
    assert "matched (list)" in text and "blocked yes" in text


@pytest.mark.parametrize(
    "argv",
    [["--settings", "no/such/file.json", "--event", "PreToolUse"],
     ["--settings", str(EXAMPLES / "settings.json"), "--event", "PreToolUSe"],
     ["--settings", str(EXAMPLES / "settings.json"), "--event", "PreToolUse",
      "--tool-input", "[1]"],
     ["--settings", str(EXAMPLES / "settings.json"), "--event", "PreToolUse",
      "--tool-input", "{bad"],
     ["--settings", str(EXAMPLES / "settings.json"), "--event", "Stop", "--mode", "plan"],
     ["--settings", str(EXAMPLES / "settings.json"), "--event", "PreToolUse",
      "--tool-name", "Bash", "--mode", "yolo"]],
)
def test_bad_input_is_one_line_on_stderr_and_exit_two(capsys, argv):
    assert main(["hooks", "run", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcpmini hooks:") and len(err.strip().splitlines()) == 1


def test_a_settings_file_with_a_wrong_type_names_the_json_path(capsys, tmp_path):
    bad = tmp_path / "settings.json"
    bad.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command",
                                                              "command": 1}]}]}}))
    assert main(["hooks", "run", "--settings", str(bad), "--event", "Stop"]) == 2
    assert "hooks.Stop[0].hooks[0].command" in capsys.readouterr().err


def test_events_lists_the_whole_catalogue(capsys):
    assert main(["hooks", "events", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["event"] for r in rows] == list(EVENTS) and len(rows) == 33
    assert {r["event"] for r in rows if r["article"]} == {
        "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact",
        "SubagentStart", "SubagentStop"}
    assert main(["hooks", "events"]) == 0
    assert "PreToolUse" in capsys.readouterr().out
