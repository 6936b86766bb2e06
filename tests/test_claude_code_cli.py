"""``mcpmini claude-code`` without a working Claude Code: one line, exit 2 (no binary needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcpmini.cli import main
from mcpmini.cli.app import build_parser
from mcpmini.cli.claude_code import _case_data, _pending_lines
from mcpmini.config.trust import SessionKind
from mcpmini.oracle import PIN, Case


def test_without_claude_code_it_says_how_to_install_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MCPMINI_CLAUDE_CODE", str(tmp_path / "missing"))
    assert main(["claude-code", "--bash", "ls"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "make claude-code" in err


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is missing")
def test_a_claude_code_that_crashes_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    exe = tmp_path / "claude"
    exe.write_text(
        f"#!/bin/sh\n[ \"$1\" = --version ] && {{ echo '{PIN} (Claude Code)'; exit 0; }}\nexit 7\n"
    )
    exe.chmod(0o755)
    monkeypatch.setenv("MCPMINI_CLAUDE_CODE", str(exe))
    assert main(["claude-code", "--bash", "ls"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "exited 7" in err


def test_a_call_list_is_required(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    exe = tmp_path / "claude"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    monkeypatch.setenv("MCPMINI_CLAUDE_CODE", str(exe))
    assert main(["claude-code", "--mode", "plan"]) == 2
    assert "no tool calls" in capsys.readouterr().err


def test_a_bad_case_file_names_the_field(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    exe = tmp_path / "claude"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    monkeypatch.setenv("MCPMINI_CLAUDE_CODE", str(exe))
    case = tmp_path / "case.json"
    case.write_text('{"mode": "yolo", "calls": [{"bash": "ls"}]}')
    assert main(["claude-code", "--case", str(case)]) == 2
    assert "mode" in capsys.readouterr().err


def _case(argv: list[str]) -> Case:
    return Case.from_dict(_case_data(build_parser().parse_args(["claude-code", *argv])))


def test_the_session_kind_decides_who_answers_a_prompt(tmp_path: Path) -> None:
    assert _case(["--bash", "ls"]).prompt_tool
    assert _case(["--session", "interactive", "--bash", "ls"]).prompt_tool
    assert not _case(["--session", "print", "--bash", "ls"]).prompt_tool
    case = tmp_path / "case.yaml"
    case.write_text("prompt_tool: false\ncalls: [{bash: ls}]\n")
    assert not _case(["--case", str(case)]).prompt_tool
    assert _case(["--case", str(case), "--session", "interactive"]).prompt_tool


def test_an_unknown_session_kind_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["claude-code", "--session", "batch", "--bash", "ls"])
    assert stop.value.code == 2
    assert "invalid choice: 'batch'" in capsys.readouterr().err


def test_a_never_approved_project_server_is_named_for_each_session_kind() -> None:
    asks, starts = (_pending_lines(["db"], kind) for kind in SessionKind)
    assert asks == [
        "warning: project server 'db' was never approved: claude -p (this run) started it; "
        "an interactive session asks first"
    ]
    assert starts == [
        "warning: project server 'db' was never approved: claude -p (this run) started it"
    ]
