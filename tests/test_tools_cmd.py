"""``mcpmini tools`` and :func:`mcpmini.config.take_inventory` on a fixture project: three
servers (one broken), one plugin, a remote entry, and servers that hang or answer garbage.
Every process a server started must be gone when the command returns."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from attack_support import descendants
from trust_support import approving_home

from mcpmini.cli import main
from mcpmini.config import (
    DESCRIPTION_CAP,
    Resolved,
    ServerStatus,
    load_sources,
    resolve_mcp_servers,
    take_inventory,
)

FIXTURE = Path(__file__).parent / "fixtures" / "tools"
PY = sys.executable


@pytest.fixture
def env(monkeypatch, tmp_path):
    # the fixture project's servers approved by the user's own settings (tests/test_trust.py
    # checks that they stay pending without it)
    approving_home(tmp_path, monkeypatch)
    monkeypatch.setenv("MCPMINI_PYTHON", PY)
    return {"MCPMINI_PYTHON": PY}


def _entry(code: str) -> Resolved:
    return Resolved("x", {"command": PY, "args": ["-c", code]}, "project")


def test_the_fixture_project_lists_every_tool_under_claude_codes_names(env, capsys):
    before = descendants()
    code = main(
        [
            "tools",
            "--project",
            str(FIXTURE / "project" / ".mcp.json"),
            "--user",
            str(FIXTURE / "user.json"),
            "--plugin",
            str(FIXTURE / "shop-plugin"),
            "--timeout",
            "20",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 1  # one server failed
    status = {s["name"]: s["status"] for s in out["servers"]}
    assert status == {
        "add": "ok",
        "weather": "ok",
        "broken": "failed",
        "remote-docs": "failed",
        "old-events": "unsupported",
        "plugin:shop:orders": "ok",
    }
    names = {t["name"] for s in out["servers"] for t in s["tools"]}
    assert names == {
        "mcp__add__add",
        "mcp__weather__get_current_weather",
        "mcp__weather__get_weather_history",
        "mcp__plugin_shop_orders__query_order",
        "mcp__plugin_shop_orders__list_recent_orders",
    }
    broken = next(s for s in out["servers"] if s["name"] == "broken")
    assert "cannot open the order database" in broken["reason"]
    assert out["upfront_tokens"] == sum(s["definition_tokens"] for s in out["servers"])
    assert 0 < out["deferred_tokens"] < out["upfront_tokens"]
    assert 0 < out["break_even"] < len(names)
    assert descendants() <= before


def test_the_table_names_the_broken_server_and_still_lists_the_others(env, capsys):
    code = main(
        [
            "tools",
            "--project",
            str(FIXTURE / "project" / ".mcp.json"),
            "--user",
            str(FIXTURE / "user.json"),
            "--plugin",
            str(FIXTURE / "shop-plugin"),
            "--timeout",
            "20",
        ]
    )
    text = capsys.readouterr().out
    assert code == 1
    assert "broken [project] failed" in text and "mcp__add__add" in text
    assert "old-events [user] unsupported" in text
    assert "5 tools from 3 of 6 servers" in text and "break-even" in text


def test_a_hung_server_times_out_and_its_children_are_killed():
    before = descendants()
    hang = (
        "import subprocess, sys, time; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
        "time.sleep(120)"
    )
    inv = take_inventory({"hang": _entry(hang)}, timeout=1.5)
    assert inv.servers[0].status is ServerStatus.TIMEOUT and inv.tools == []
    assert descendants() <= before


def test_a_server_answering_garbage_is_reported_as_such():
    before = descendants()
    garbage = "import sys\nprint('Welcome to my server!', flush=True)\nsys.stdin.read()"
    inv = take_inventory({"noisy": _entry(garbage)}, timeout=2.5)
    report = inv.servers[0]
    assert report.status is ServerStatus.GARBAGE and "Welcome" in report.reason
    assert inv.tools == [] and inv.break_even is None
    assert descendants() <= before


def test_an_http_server_is_listed_and_an_unreachable_one_fails():
    from mcpmini.mcp import orders_server, serve_http

    with serve_http(orders_server()) as url:
        inv = take_inventory(
            {
                "shop": Resolved("shop", {"type": "http", "url": url}, "project"),
                "gone": Resolved("gone", {"type": "http", "url": "http://127.0.0.1:9/mcp"}, "user"),
            },
            timeout=10,
        )
    by = {s.name: s for s in inv.servers}
    assert by["shop"].status is ServerStatus.OK
    assert {t.name for t in by["shop"].tools} == {
        "mcp__shop__query_order",
        "mcp__shop__list_recent_orders",
    }
    assert by["gone"].status is ServerStatus.FAILED and by["gone"].reason


def test_a_missing_command_fails_with_a_reason():
    inv = take_inventory(
        {"ghost": Resolved("ghost", {"command": "/nonexistent/server"}, "user")}, timeout=2
    )
    assert inv.servers[0].status is ServerStatus.FAILED and inv.servers[0].reason


def test_long_descriptions_and_name_problems_are_flagged(tmp_path):
    server = tmp_path / "wordy.py"
    server.write_text(
        "from mcpmini.mcp import Server, serve_stdio\n"
        "s = Server('wordy')\n"
        f"s.add_tool(lambda: 1, name='t', description='説明' * {DESCRIPTION_CAP // 2 + 10})\n"
        f"s.add_tool(lambda: 1, name='u', description='説明' * {DESCRIPTION_CAP // 6 + 10})\n"
        f"s.add_tool(lambda: 1, name='{'n' * 70}', description='ok')\n"
        f"s.add_tool(lambda: 1, name='{'m' * 130}', description='ok')\n"
        "serve_stdio(s)\n",
        encoding="utf-8",
    )
    inv = take_inventory(
        {"wordy": Resolved("wordy", {"command": PY, "args": [str(server)]}, "project")}, timeout=20
    )
    tools = {t.tool: t for t in inv.tools}
    # Claude Code 2.1.332 cuts at 4,096 characters (not "2KB"), whatever the bytes
    assert tools["t"].description_cut and tools["t"].description_chars > DESCRIPTION_CAP
    assert not tools["u"].description_cut and tools["u"].description_bytes > DESCRIPTION_CAP
    # names up to 128 characters are sent; a longer one is left out of the tool list
    assert "too_long" not in tools["n" * 70].problems and tools["n" * 70].sent
    assert "too_long" in tools["m" * 130].problems and not tools["m" * 130].sent


def test_sources_load_like_config_resolve_and_bad_files_are_problems(env, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    sources, problems = load_sources(
        {"project": FIXTURE / "project" / ".mcp.json", "user": bad},
        (FIXTURE / "shop-plugin",),
        environ=env,
    )
    resolved = resolve_mcp_servers(sources)
    assert list(resolved) == ["add", "weather", "broken", "plugin:shop:orders"]
    assert resolved["add"].value["command"] == PY
    assert len(problems) == 1 and problems[0].severity.value == "error"


def test_a_bad_timeout_is_a_usage_error(capsys):
    assert main(["tools", "--timeout", "0"]) == 2
    assert "timeout" in capsys.readouterr().err


def test_a_server_that_exits_at_start_is_reported_with_its_exit_code_and_last_stderr_line():
    crash = "import sys; sys.stderr.write('starting\\nno database at /srv/db\\n'); sys.exit(4)"
    report = take_inventory({"crash": _entry(crash)}, timeout=10).servers[0]
    assert report.status is ServerStatus.FAILED
    assert report.reason == "exited (code 4) before answering: no database at /srv/db"


@pytest.mark.parametrize("kind", ["a folder", "invalid JSON", "not an object"])
def test_an_unreadable_source_file_is_one_line_and_exit_code_2(env, tmp_path, capsys, kind):
    # before: a problem printed after the table, and exit code 0
    bad = tmp_path / "bad.json"
    if kind == "a folder":
        bad.mkdir()
    else:
        bad.write_text('{"mcpServers": ' if kind == "invalid JSON" else "[1]")
    code = main(["tools", "--project", str(bad)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == "" and len(err.strip().splitlines()) == 1 and str(bad) in err
