"""Project trust (issue 22): a freshly cloned project's MCP servers wait for an approval.

Before: ``mcpmini tools`` started every command of a project's ``.mcp.json`` at once and
expanded ``${SECRET}`` from the user's environment into a project server's URL and headers,
sending it to whatever host the file named. Now a project server is *pending* until the
settings keys Claude Code reads (``enableAllProjectMcpServers``, ``enabledMcpjsonServers``,
``disabledMcpjsonServers``) or ``--trust-project`` approve it, as Claude Code 2.1.332 decides
(the oracle check is ``tests/oracle/test_trust_oracle.py``). Every test runs in a home of its
own under ``tmp_path``.
"""

from __future__ import annotations

import http.server
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from attack_support import descendants
from trust_support import fresh_home

from mcpmini.cli import main
from mcpmini.cli.approval import gate
from mcpmini.config import (
    SettingsScope,
    TrustState,
    load_held_sources,
    read_record,
    record_approval,
    resolve_mcp_servers,
    verdicts,
)
from mcpmini.config.trust import RULES, Facts, decide, resolve_trusted


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fresh_home(tmp_path, monkeypatch)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cloned project (its own folder) as the working folder."""
    folder = tmp_path / "clone"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def _marker_server(project: Path) -> Path:
    """An .mcp.json whose one server would create a marker file when started."""
    marker = project / "started.marker"
    code = f"open({str(marker)!r}, 'w').close(); import time; time.sleep(30)"
    servers = {"mark": {"command": sys.executable, "args": ["-c", code, "${SECRET}"]}}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return marker


def _settings(path: Path, value: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def test_a_fresh_clones_server_is_pending_shown_as_written_and_never_started(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET", "hunter2-do-not-send")
    marker = _marker_server(project)
    before = descendants()
    code = main(["tools", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (server,) = out["servers"]
    assert (server["name"], server["status"]) == ("mark", "pending")
    assert server["command"].endswith("${SECRET}")
    assert "hunter2" not in json.dumps(out)
    assert not marker.exists()
    assert descendants() <= before


def test_the_table_says_pending_and_how_to_approve(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _marker_server(project)
    assert main(["tools"]) == 0
    text = capsys.readouterr().out
    assert "mark [project] pending" in text and "${SECRET}" in text
    assert "--trust-project" in text


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str, str]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        type(self).seen.append(("POST", self.path, self.headers.get("Authorization", "")))
        self.send_response(500)
        self.end_headers()

    do_GET = do_POST
    do_DELETE = do_POST

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[tuple[str, str, str]]]]:
    """A loopback HTTP server recording every request (method, path, Authorization)."""
    seen: list[tuple[str, str, str]] = []
    handler = type("Recorder", (_Recorder,), {"seen": seen})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _remote(project: Path, base: str) -> None:
    entry = {
        "type": "http",
        "url": base + "/mcp/${SECRET}",
        "headers": {"Authorization": "Bearer ${SECRET}"},
    }
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"remote": entry}}))


@pytest.mark.parametrize("command", [["tools"], ["config", "resolve", "--project", ".mcp.json"]])
def test_a_pending_servers_secret_is_neither_expanded_nor_sent(
    home: Path,
    project: Path,
    recorder: tuple[str, list[Any]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
) -> None:
    base, seen = recorder
    monkeypatch.setenv("SECRET", "hunter2-do-not-send")
    _remote(project, base)
    code = main([*command, "--json"])
    out = capsys.readouterr().out
    assert code == 0
    assert seen == []
    assert "hunter2" not in out and "${SECRET}" in out


def test_an_approved_remote_server_gets_its_secret_expanded(
    home: Path,
    project: Path,
    recorder: tuple[str, list[Any]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, seen = recorder
    monkeypatch.setenv("SECRET", "s3")
    _remote(project, base)
    _settings(home / ".claude" / "settings.json", {"enabledMcpjsonServers": ["remote"]})
    main(["tools", "--json", "--timeout", "5"])
    capsys.readouterr()
    assert seen and seen[0][1:] == ("/mcp/s3", "Bearer s3")


# (settings file, its keys, workspace trusted) -> state; observed with Claude Code 2.1.332
KEY_CASES = [
    ("user", {"enableAllProjectMcpServers": True}, False, TrustState.APPROVED),
    ("user", {"enabledMcpjsonServers": ["s"]}, False, TrustState.APPROVED),
    ("user", {"enabledMcpjsonServers": ["S"]}, False, TrustState.PENDING),
    ("user", {"enableAllProjectMcpServers": "true"}, False, TrustState.PENDING),
    ("user", {"enableAllProjectMcpServers": False}, True, TrustState.PENDING),
    ("project", {"enableAllProjectMcpServers": True}, False, TrustState.PENDING),
    ("project", {"enableAllProjectMcpServers": True}, True, TrustState.APPROVED),
    ("local", {"enabledMcpjsonServers": ["s"]}, False, TrustState.PENDING),
    ("local", {"enabledMcpjsonServers": ["s"]}, True, TrustState.APPROVED),
    ("managed", {"enabledMcpjsonServers": ["s"]}, False, TrustState.APPROVED),
    ("project", {"disabledMcpjsonServers": ["s"]}, False, TrustState.REJECTED),
    ("local", {"disabledMcpjsonServers": ["s"]}, True, TrustState.REJECTED),
    (
        "user",
        {"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["s"]},
        True,
        TrustState.REJECTED,
    ),
    (
        "user",
        {"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["x"]},
        False,
        "approved",
    ),
]


def _files(home: Path, project: Path, managed: Path) -> dict[str, Path]:
    return {
        "user": home / ".claude" / "settings.json",
        "project": project / ".claude" / "settings.json",
        "local": project / ".claude" / "settings.local.json",
        "managed": managed / "managed-settings.json",
    }


def _trust(home: Path, project: Path, **entry: Any) -> None:
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): entry}}))


@pytest.mark.parametrize(("scope", "keys", "trusted", "state"), KEY_CASES)
def test_each_settings_key_decides_as_claude_code_does(
    home: Path, project: Path, tmp_path: Path, scope: str, keys: dict, trusted: bool, state: str
) -> None:
    _settings(_files(home, project, tmp_path / "managed")[scope], keys)
    if trusted:
        _trust(home, project, hasTrustDialogAccepted=True)
    record = read_record(project, home=home, managed_dir=tmp_path / "managed")
    resolved = resolve_mcp_servers([("project", {"s": {"command": "x"}})])
    assert verdicts(resolved, record)["s"].state == state


def test_the_highest_settings_file_decides_enable_all_in_a_trusted_workspace(
    home: Path, project: Path, tmp_path: Path
) -> None:
    files = _files(home, project, tmp_path / "managed")
    _settings(files["user"], {"enableAllProjectMcpServers": True})
    _settings(files["local"], {"enableAllProjectMcpServers": False})
    _trust(home, project, hasTrustDialogAccepted=True)
    record = read_record(project, home=home, managed_dir=tmp_path / "managed")
    resolved = resolve_mcp_servers([("project", {"s": {"command": "x"}})])
    assert verdicts(resolved, record)["s"].state is TrustState.PENDING


def test_approval_keys_left_in_claude_json_count_as_local_settings(
    home: Path, project: Path, tmp_path: Path
) -> None:
    resolved = resolve_mcp_servers([("project", {"s": {"command": "x"}})])
    _trust(home, project, enabledMcpjsonServers=["s"])
    untrusted = read_record(project, home=home, managed_dir=tmp_path)
    _trust(home, project, enabledMcpjsonServers=["s"], hasTrustDialogAccepted=True)
    trusted = read_record(project, home=home, managed_dir=tmp_path)
    assert verdicts(resolved, untrusted)["s"].state is TrustState.PENDING
    assert verdicts(resolved, trusted)["s"].state is TrustState.APPROVED


def test_a_server_switched_off_for_the_project_is_disabled_once_approved(
    home: Path, project: Path, tmp_path: Path
) -> None:
    resolved = resolve_mcp_servers(
        [("project", {"s": {"command": "x"}}), ("user", {"u": {"command": "y"}})]
    )
    _trust(home, project, disabledMcpServers=["s", "u"])
    untrusted = verdicts(resolved, read_record(project, home=home, managed_dir=tmp_path))
    _trust(home, project, disabledMcpServers=["s", "u"], hasTrustDialogAccepted=True)
    _settings(project / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["s"]})
    trusted = verdicts(resolved, read_record(project, home=home, managed_dir=tmp_path))
    assert untrusted["s"].state is TrustState.PENDING
    assert trusted["s"].state is TrustState.DISABLED
    assert untrusted["u"].state is TrustState.DISABLED  # any scope's server can be switched off


def test_trust_project_starts_it_and_records_what_claude_code_records(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = _marker_server(project)
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3, "projects": {"/x": {}}}))
    before = descendants()
    code = main(["tools", "--json", "--trust-project", "--timeout", "2"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1  # it started, then timed out: the marker server speaks no MCP
    assert out["servers"][0]["status"] == "timeout"
    assert marker.exists()
    assert descendants() <= before
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    state = json.loads((home / ".claude.json").read_text())
    assert local == {"enabledMcpjsonServers": ["mark"]}
    assert state == {
        "numStartups": 3,
        "projects": {"/x": {}, str(project): {"hasTrustDialogAccepted": True}},
    }
    marker.unlink()
    main(["tools", "--json", "--timeout", "2"])  # the approval is remembered
    assert json.loads(capsys.readouterr().out)["servers"][0]["status"] == "timeout"
    assert marker.exists()


def test_a_rejected_server_stays_off_with_enable_all_and_trust_project(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = _marker_server(project)
    _settings(
        home / ".claude" / "settings.json",
        {"enableAllProjectMcpServers": True, "disabledMcpjsonServers": ["mark"]},
    )
    code = main(["tools", "--json", "--trust-project"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["servers"][0]["status"] == "rejected"
    assert not marker.exists()


def test_a_malformed_claude_json_is_one_line_and_never_rewritten(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = _marker_server(project)
    broken = '{"projects": {"/a": {"hasTrustDialogAccepted": true}}, '
    (home / ".claude.json").write_text(broken)
    assert main(["tools", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["servers"][0]["status"] == "pending"
    assert [p["source"] for p in out["problems"]].count(str(home / ".claude.json")) == 1
    code = main(["tools", "--trust-project"])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and ".claude.json" in err
    assert (home / ".claude.json").read_text() == broken
    assert not (project / ".claude" / "settings.local.json").exists()
    assert not marker.exists()


def test_a_plugin_inside_the_project_waits_and_one_outside_does_not(
    home: Path, project: Path, tmp_path: Path
) -> None:
    def plugin(folder: Path) -> Path:
        (folder / ".claude-plugin").mkdir(parents=True)
        (folder / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": folder.name}))
        entry = {"command": "run-${SECRET}", "args": ["${CLAUDE_PLUGIN_ROOT}/x"]}
        (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": entry}}))
        return folder

    inside, outside = plugin(project / "plugins" / "cloned"), plugin(tmp_path / "mine")
    sources, _, held = load_held_sources(
        {}, (inside, outside), environ={"SECRET": "s3"}, project_dir=project
    )
    resolved = resolve_mcp_servers(sources)
    judged = verdicts(resolved, read_record(project, home=home, managed_dir=tmp_path), held)
    assert held == {"cloned"}
    assert judged["plugin:cloned:srv"].state is TrustState.PENDING
    assert judged["plugin:mine:srv"].state is TrustState.APPROVED
    assert resolved["plugin:cloned:srv"].value["command"] == "run-${SECRET}"
    assert resolved["plugin:cloned:srv"].value["args"] == [f"{inside.resolve()}/x"]
    assert resolved["plugin:mine:srv"].value["command"] == "run-s3"


def test_the_prompt_approves_on_yes_and_not_on_anything_else(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    resolved = [("project", {"s": {"command": "x ${SECRET}"}})]
    args = type("Args", (), {"trust_project": False})()
    no = gate(args, resolved, frozenset(), environ={}, project_dir=project, ask=True, home=home,
              reader=lambda: "\n")  # fmt: skip
    assert no.judged["s"].state is TrustState.PENDING and no.released == {}
    yes = gate(args, resolved, frozenset(), environ={"SECRET": "v"}, project_dir=project,
               ask=True, home=home, reader=lambda: "y\n")  # fmt: skip
    assert yes.judged["s"].state is TrustState.APPROVED
    assert yes.released["s"].value["command"] == "x v"
    assert "x ${SECRET}" in capsys.readouterr().err


def test_record_approval_appends_each_name_once_and_keeps_other_settings(
    home: Path, project: Path
) -> None:
    local = project / ".claude" / "settings.local.json"
    _settings(local, {"permissions": {"allow": ["Bash(ls)"]}, "enabledMcpjsonServers": ["a"]})
    record_approval(project, ["a", "b", "b"], home=home)
    assert json.loads(local.read_text()) == {
        "permissions": {"allow": ["Bash(ls)"]},
        "enabledMcpjsonServers": ["a", "b"],
    }


def test_a_pending_project_server_leaves_its_name_to_a_user_server(
    home: Path, project: Path, tmp_path: Path
) -> None:
    # observed in 2.1.332: precedence (project > user) applies among approved servers only
    sources = [("project", {"s": {"command": "p"}}), ("user", {"s": {"command": "u"}})]
    record = read_record(project, home=home, managed_dir=tmp_path)
    resolved, judged = resolve_trusted(sources, record)
    assert (resolved["s"].source, judged["s"].state) == ("user", TrustState.APPROVED)
    _settings(home / ".claude" / "settings.json", {"enabledMcpjsonServers": ["s"]})
    record = read_record(project, home=home, managed_dir=tmp_path)
    resolved, judged = resolve_trusted(sources, record)
    assert (resolved["s"].source, judged["s"].state) == ("project", TrustState.APPROVED)
    assert resolved["s"].shadowed == ("user",)


def test_the_trust_record_is_keyed_by_the_git_root(home: Path, project: Path) -> None:
    (project / ".git").mkdir()
    sub = project / "sub"
    sub.mkdir()
    _trust(home, project, hasTrustDialogAccepted=True)
    assert read_record(sub, home=home).trusted


def test_every_row_of_the_table_is_reachable() -> None:
    facts = [
        Facts(False, switched_off=True),
        Facts(False),
        Facts(True, rejected_in=SettingsScope.USER),
        Facts(True),
        Facts(True, approved_by=SettingsScope.USER, switched_off=True),
        Facts(True, approved_by=SettingsScope.USER),
    ]
    assert [decide(f).reason for f in facts] == [r.reason for r in RULES]


def test_the_trust_oracle_cases_load_and_each_status_text_maps_to_a_state() -> None:
    from mcpmini.oracle.trust import _state_of, load_trust_cases

    cases = load_trust_cases()
    assert len(cases) >= 40 and any(c.trust_project for c in cases)
    assert _state_of("Status: ⏸ Pending approval (run `claude` to approve)") == "pending"
    assert _state_of("✘ Rejected (see disabledMcpjsonServers in settings)") == "rejected"
    assert _state_of("⊘ Disabled for this project (re-enable via /mcp)") == "disabled"
    assert _state_of("✘ Failed to connect") == "approved"  # health-checked: it was approved


def test_a_held_entry_keeps_every_variable_as_written_and_still_warns_with_its_line(
    tmp_path: Path,
) -> None:
    from mcpmini.config import load_mcp_json

    f = tmp_path / ".mcp.json"
    entry = {"command": "run", "args": ["${A:-d}", "${B}", "${C}"]}
    f.write_text(json.dumps({"mcpServers": {"s": entry}}, indent=2))
    held = load_mcp_json(f, environ={"C": "c"}, hold=())
    assert held.servers["s"]["args"] == ["${A:-d}", "${B}", "${C}"]
    assert [(p.path, p.line) for p in held.problems] == [("mcpServers.s.args[1]", 3)]


def test_trust_project_approves_a_pending_server_whose_name_a_user_server_took(
    home: Path, project: Path, tmp_path: Path
) -> None:
    sources = [("project", {"s": {"command": "p"}}), ("user", {"s": {"command": "u"}})]
    args = type("Args", (), {"trust_project": True})()
    done = gate(args, sources, frozenset(), environ={}, project_dir=project, ask=False, home=home)
    assert done.resolved["s"].source == "project" and done.judged["s"].may_start


def test_claude_p_starts_a_pending_server_and_takes_its_name_mcpmini_still_does_not(
    home: Path, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 32, observed in 2.1.332: `claude -p` starts a pending project server (untrusted
    # folder too) and it wins over a user server of the same name; an interactive session asks
    from mcpmini.config.trust import SessionKind, session_differences

    sources = [("project", {"s": {"command": "p"}}), ("user", {"s": {"command": "u"}})]
    record = read_record(project, home=home, managed_dir=tmp_path)
    printed, judged = resolve_trusted(sources, record, session=SessionKind.PRINT)
    assert (printed["s"].source, judged["s"].state) == ("project", TrustState.PENDING)
    differ, warned = session_differences(sources, record)
    assert differ == {"s": {SessionKind.INTERACTIVE: "user", SessionKind.PRINT: "project"}}
    [warning] = warned
    assert "claude -p in this folder would start" in warning.message
    assert "mcpmini does not start it" in warning.message
    _settings(project / ".claude" / "settings.local.json", {"disabledMcpjsonServers": ["s"]})
    record = read_record(project, home=home, managed_dir=tmp_path)
    printed, _ = resolve_trusted(sources, record, session=SessionKind.PRINT)
    assert printed["s"].source == "user" and session_differences(sources, record) == ({}, [])


def test_tools_in_print_mode_lists_the_pending_server_and_starts_nothing(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = _marker_server(project)
    before = descendants()
    assert main(["tools", "--json", "--session", "print"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(s["name"], s["status"]) for s in out["servers"]] == [("mark", "pending")]
    assert any("claude -p in this folder would start" in p["message"] for p in out["problems"])
    assert not marker.exists() and descendants() <= before
