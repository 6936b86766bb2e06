"""Issue 22, process sweep: a stdio server that removes ``MCPMINI_PROCESS_RUN`` from its
environment and ``setsid``s a daemon no longer outlives ``mcpmini tools`` / ``run``: stdio
servers run under the sub-reaper launcher of :mod:`mcpmini.process`, to which every orphan is
reparented and which ends them all with the server."""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path

import pytest
from attack_support import running_with, snapshot
from trust_support import fresh_home

from mcpmini.cli import main
from mcpmini.process import Process

# A server that starts a daemon with a clean environment in a new session (double fork, so
# the daemon is an orphan at once), then serves MCP normally.
SERVER = """\
import os, subprocess, sys
env = {{k: v for k, v in os.environ.items() if k != "MCPMINI_PROCESS_RUN"}}
subprocess.Popen(
    ["sh", "-c", "(sleep 300; echo {tag}) &"], env=env, start_new_session=True,
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
).wait()
from mcpmini.mcp import Server, serve_stdio
server = Server("escaper")
def ping() -> str:
    return "pong"
server.add_tool(ping)
serve_stdio(server)
"""


def _escaper(tmp_path: Path) -> tuple[Path, str]:
    tag = "escaped-" + secrets.token_hex(6)
    script = tmp_path / "escaper.py"
    script.write_text(SERVER.format(tag=tag))
    return script, tag


def test_a_daemon_that_cleared_the_marker_and_setsid_does_not_outlive_mcpmini_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh_home(tmp_path / "h", monkeypatch)
    script, tag = _escaper(tmp_path)
    config = tmp_path / ".mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"e": {"command": sys.executable, "args": [str(script)]}}})
    )
    outside = snapshot(Path(__file__).parent / "fixtures")
    code = main(["tools", "--project", str(config), "--json", "--trust-project"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and [s["status"] for s in out["servers"]] == ["ok"]
    assert running_with(tag) == []
    assert snapshot(Path(__file__).parent / "fixtures") == outside


def test_a_daemon_that_escaped_does_not_outlive_mcpmini_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script, tag = _escaper(tmp_path)
    code = main(["run", "ping", "--max-turns", "1", "--", sys.executable, str(script)])
    capsys.readouterr()
    assert code == 0
    assert running_with(tag) == []


def test_the_reaper_keeps_the_programs_exit_status_and_start_errors() -> None:
    with Process([sys.executable, "-c", "import sys; sys.exit(7)"], reaper=True) as proc:
        assert proc.wait(None) == 7
    with Process([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"], reaper=True) as p:
        assert p.wait(None) == -9
    with pytest.raises(FileNotFoundError):
        Process(["/nonexistent/program"], reaper=True)


DAEMON = """\
import os, subprocess
env = {{k: v for k, v in os.environ.items() if k != "MCPMINI_PROCESS_RUN"}}
subprocess.Popen(
    ["sh", "-c", "(sleep 300; echo {tag}) &"], env=env, start_new_session=True,
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
).wait()
"""


def _daemon(tmp_path: Path) -> tuple[str, str]:
    """A command that leaves a daemon behind (marker cleared, new session), and its tag."""
    tag = "escaped-" + secrets.token_hex(6)
    script = tmp_path / "daemon.py"
    script.write_text(DAEMON.format(tag=tag))
    return f"{sys.executable} {script}", tag


def test_a_hook_that_setsids_a_daemon_leaves_nothing_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: command hooks ran without the sub-reaper and the daemon outlived the hook
    command, tag = _daemon(tmp_path)
    settings = tmp_path / "settings.json"
    hook = {"type": "command", "command": command}
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}))
    code = main(["hooks", "run", "--settings", str(settings), "--event", "Stop", "--json"])
    capsys.readouterr()
    assert code == 0
    assert running_with(tag) == []


def test_a_skill_command_that_setsids_a_daemon_leaves_nothing_running(tmp_path: Path) -> None:
    from mcpmini.skills import run_shell

    command, tag = _daemon(tmp_path)
    done = run_shell(command, timeout=20)
    assert done.returncode == 0
    assert running_with(tag) == []
