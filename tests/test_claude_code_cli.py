"""``mcpmini claude-code`` without a working Claude Code: one line, exit 2 (no binary needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcpmini.cli import main


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
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo '2.1.328 (Claude Code)'; exit 0; }\nexit 7\n"
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
