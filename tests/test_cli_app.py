"""``mcpmini``'s one error boundary: the project's own errors are one line and their exit code;
anything else is a bug and keeps its traceback (click's model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mcpmini.hooks
from mcpmini.cli import main
from mcpmini.errors import (
    ConfigError,
    McpminiError,
    RemoteProtocolError,
    TimedOut,
    TransportError,
    UsageError,
)
from mcpmini.mcp.auth import AuthError
from mcpmini.oracle.binary import ClaudeCodeMissing

SETTINGS = str(Path(__file__).resolve().parents[1] / "examples" / "hooks" / "settings.json")
HOOKS_RUN = ["hooks", "run", "--settings", SETTINGS, "--event", "Stop"]


def test_every_project_error_owns_the_exit_code_of_its_failure_kind() -> None:
    # The documented table (errors.McpminiError): 2 input or environment, 3 transport,
    # 4 timed out, 5 the server broke or refused the protocol.
    for cls in (McpminiError, UsageError, ConfigError, ClaudeCodeMissing, AuthError):
        assert cls.exit_code == 2
    assert (TransportError.exit_code, TimedOut.exit_code, RemoteProtocolError.exit_code) == (
        3,
        4,
        5,
    )


def test_a_config_error_is_one_line_and_its_exit_code(capsys, tmp_path) -> None:
    bad = tmp_path / "settings.json"
    bad.write_text("{not json")
    assert main(["hooks", "run", "--settings", str(bad), "--event", "Stop"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcpmini hooks:") and len(err.strip().splitlines()) == 1


def test_a_usage_error_is_one_line_and_exit_two(capsys) -> None:
    assert main([*HOOKS_RUN, "--payload", "[1]"]) == UsageError.exit_code
    err = capsys.readouterr().err
    assert err.startswith("mcpmini hooks:") and len(err.strip().splitlines()) == 1


def test_an_error_class_chooses_the_exit_code(monkeypatch, capsys) -> None:
    class Unavailable(McpminiError):
        exit_code = 69

    def broken(*args, **kwargs):
        raise Unavailable("the service is down")

    monkeypatch.setattr(mcpmini.hooks, "load_settings", broken)
    assert main(HOOKS_RUN) == 69
    assert capsys.readouterr().err.strip() == "mcpmini hooks: the service is down"


@pytest.mark.parametrize("bug", [KeyError("tool_name"), ValueError("bad state"), OSError(5, "EIO")])
def test_a_bug_in_the_runtime_is_not_reported_as_a_user_error(monkeypatch, capsys, bug) -> None:
    def broken(*args, **kwargs):
        raise bug

    monkeypatch.setattr(mcpmini.hooks, "load_settings", broken)
    with pytest.raises(type(bug)):
        main(HOOKS_RUN)
    assert capsys.readouterr().err == ""


def test_a_bug_ends_the_process_with_a_traceback_and_not_exit_two() -> None:
    script = (
        "import mcpmini.hooks, sys\n"
        "def broken(*a, **k):\n"
        "    raise KeyError('tool_name')\n"
        "mcpmini.hooks.load_settings = broken\n"
        "from mcpmini.cli import main\n"
        f"sys.exit(main({HOOKS_RUN!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode not in (0, 2)
    assert "Traceback (most recent call last)" in done.stderr
    assert "KeyError: 'tool_name'" in done.stderr


def test_a_server_that_exits_with_0_still_ends_mcpmini_call_with_the_transport_code(
    capsys,
) -> None:
    # TransportError carries the server's own status as `returncode`; `exit_code` stays the CLI's
    code = main(["call", "tools/list", "--", sys.executable, "-c", "pass"])
    assert code == TransportError.exit_code
    assert "exited (code 0)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "answers",
    [{"items": ["no-such-item"], "answers": {}}, {"no-such-item": "A"}],
    ids=["unknown item", "answer for an item not in the exam"],
)
def test_grading_an_answers_file_with_an_unknown_item_id_is_one_line_and_exit_two(
    capsys, tmp_path, answers
) -> None:
    # Bug (issue 27): grade()'s documented ValueError ended `mcpmini quiz grade` in a traceback.
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers))
    assert main(["quiz", "grade", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mcpmini quiz:") and "no-such-item" in err[0]
