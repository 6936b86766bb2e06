"""``mcpmini run`` with a server command after ``--``, and ``--`` on commands that take none."""

from __future__ import annotations

import json
import sys

import pytest

from mcpmini.cli import main

SERVE = ["--", sys.executable, "-m", "mcpmini", "serve"]


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_a_command_after_dashes_is_one_more_stdio_server_beside_the_sample_servers(capsys):
    doc = run_json(
        [
            "run",
            "x",
            "--server",
            "add",
            "--model",
            "always",
            "--tool",
            "mcp__stdio__add",
            "--args",
            '{"a": 20, "b": 22}',
            "--max-turns",
            "1",
            "--json",
            *SERVE,
            "add",
        ],
        capsys,
    )
    results = [
        block
        for m in doc["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_result"
    ]
    assert (results[0]["content"], results[0]["is_error"]) == ("42", False)
    assert doc["stop_reason"] == "max_turns"  # the turn limit, not a failed connection, ended it


def test_the_stdio_server_takes_the_name_given_by_stdio_name(capsys):
    doc = run_json(
        [
            "run",
            "x",
            "--model",
            "always",
            "--tool",
            "mcp__calc__add",
            "--args",
            '{"a": 1, "b": 2}',
            "--max-turns",
            "1",
            "--stdio-name",
            "calc",
            "--json",
            *SERVE,
            "add",
        ],
        capsys,
    )
    uses = [
        block["name"]
        for m in doc["messages"]
        if m["role"] == "assistant"
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]
    assert uses and set(uses) == {"mcp__calc__add"}


@pytest.mark.parametrize(
    "argv, code",
    [
        (["run", "x", "--server", "add", "--stdio-name", "add", *SERVE, "add"], 2),  # name twice
        (["run", "x", "--", sys.executable + "-missing"], 3),  # a server that cannot start
        (["run", "x", "--", sys.executable, "-c", "import sys; sys.exit('no MCP here')"], 3),
        (["run", "x", "--stdio-name", "", *SERVE, "add"], 2),  # no name for its tools
    ],
)
def test_run_refuses_a_bad_stdio_server_with_one_line_and_its_exit_code(argv, code, capsys):
    assert main(argv) == code  # 2 a usage error, 3 a server that cannot start or exits
    err = capsys.readouterr().err
    assert err.startswith("mcpmini run:") and err.count("\n") == 1


def test_a_command_after_dashes_is_a_usage_error_where_none_is_taken(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["serve", "add", "--", "python3", "x.py"])
    assert exc.value.code == 2
    assert "serve" in capsys.readouterr().err
