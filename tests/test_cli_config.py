"""``mcpmini config resolve``: a ``~/.claude.json`` is recognised by its structure, not its text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpmini.cli import main


def resolve(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["config", "resolve", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def in_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_mcp_json_that_mentions_projects_stays_an_mcp_json(capsys, in_project):
    # A server named "projects" and a description with the word in quotes: still an .mcp.json,
    # so its servers are the local scope (a text search took it for ~/.claude.json and lost them).
    local = in_project / "local.json"
    local.write_text(
        json.dumps(
            {"mcpServers": {"projects": {"command": "projects-server", "args": ['"projects"']}}}
        )
    )
    servers = resolve(capsys, "--local", str(local))["servers"]
    assert servers["projects"]["definition"]["command"] == "projects-server"
    assert servers["projects"]["source"] == "local"


def test_a_claude_json_is_recognised_without_the_word_projects_in_its_text(capsys, in_project):
    # The key is spelt with a JSON escape: the text never says "projects", the structure does.
    entry = json.dumps({str(in_project.resolve()): {"mcpServers": {"db": {"command": "local-db"}}}})
    claude_json = in_project / ".claude.json"
    claude_json.write_text(
        '{"mcpServers": {"db": {"command": "user-db"}}, "\\u0070rojects": ' + entry + "}"
    )
    assert '"projects"' not in claude_json.read_text()
    local = resolve(capsys, "--local", str(claude_json))["servers"]
    user = resolve(capsys, "--user", str(claude_json))["servers"]
    assert local["db"]["definition"] == {"command": "local-db"}
    assert user["db"]["definition"] == {"command": "user-db"}


def test_a_claude_json_without_an_entry_for_this_project_gives_an_empty_local_scope(
    capsys, in_project
):
    claude_json = in_project / ".claude.json"
    claude_json.write_text(
        json.dumps(
            {
                "mcpServers": {"db": {"command": "user-db"}},
                "projects": {"/elsewhere": {"mcpServers": {"other": {"command": "x"}}}},
            }
        )
    )
    assert resolve(capsys, "--local", str(claude_json))["servers"] == {}


def test_projects_that_is_not_an_object_does_not_make_a_claude_json(capsys, in_project):
    odd = in_project / "odd.json"
    odd.write_text(json.dumps({"mcpServers": {"db": {"command": "db"}}, "projects": ["a"]}))
    servers = resolve(capsys, "--local", str(odd))["servers"]
    assert servers["db"]["source"] == "local" and servers["db"]["definition"]["command"] == "db"


def test_invalid_json_is_a_problem_with_exit_code_1_not_a_traceback(capsys, in_project):
    bad = in_project / "bad.json"
    bad.write_text('{"projects": ')
    code = main(["config", "resolve", "--user", str(bad), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [p["severity"] for p in doc["problems"]] == ["error"]
    assert doc["problems"][0]["source"] in (str(bad), "user")
