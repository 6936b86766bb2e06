"""``mcpmini serve`` and ``mcpmini call``: the inspector-like workbench commands."""

from __future__ import annotations

import json
import sys

import pytest

from mcpmini.cli import main

SERVE = ["--", sys.executable, "-m", "mcpmini", "serve"]


def test_call_tools_list_prints_each_tool(capsys):
    assert main(["call", "tools/list", *SERVE, "weather"]) == 0
    out = capsys.readouterr().out
    assert "get_current_weather:" in out and "get_weather_history:" in out


@pytest.mark.parametrize("mode, generation", [("modern", "2026-07-28"), ("legacy", "2025-11-25")])
def test_call_tools_call_json_prints_the_raw_result(capsys, mode, generation):
    code = main(
        [
            "call",
            "tools/call",
            "--tool",
            "add",
            "--args",
            '{"a": 2, "b": 3}',
            "--mode",
            mode,
            "--json",
            "--trace",
            *SERVE,
            "add",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    result = json.loads(captured.out)
    assert result["content"] == [{"type": "text", "text": "5"}] and result["isError"] is False
    assert ("resultType" in result) is (mode == "modern")
    # --trace shows every line both ways on stderr, the handshake included.
    trace = captured.err.splitlines()
    assert trace[0].startswith("C→S ") and any(line.startswith("S→C ") for line in trace)
    assert generation in captured.err


def test_an_unknown_tool_is_reported_with_exit_code_1(capsys):
    assert main(["call", "tools/call", "--tool", "mul", *SERVE, "add"]) == 1
    assert "protocol_error" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["call", "tools/call", "--args", "{}"],  # no --tool
        ["call", "tools/call", "--tool", "add", "--args", "{oops"],  # invalid JSON
        ["call", "tools/call", "--tool", "add", "--args", "[1]"],  # not an object
        ["call", "tools/list"],  # no server command
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, argv):
    extra = [*SERVE, "add"] if argv[-1] != "tools/list" else []
    assert main(argv + extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mcpmini call:")


def test_a_server_that_cannot_start_exits_2(capsys):
    assert main(["call", "tools/list", "--", "/nonexistent/server"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_call_over_http_prints_the_result_of_any_method(capsys):
    from mcpmini.mcp import add_server, serve_http

    with serve_http(add_server()) as url:
        code = main(["call", "resources/list", "--url", url, "--header", "X-Test: 1"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("connected: modern 2026-07-28 (add-server")
    assert json.loads(out.split("\n", 1)[1])["resources"] == []


@pytest.mark.parametrize(
    "extra",
    [
        ["--url", "ftp://example.com/mcp"],
        ["--url", "http://127.0.0.1:9/mcp", "--header", "no colon"],
        ["--url", "http://127.0.0.1:9/mcp", *SERVE, "add"],
    ],
)
def test_bad_url_or_header_options_exit_2(capsys, extra):
    assert main(["call", "tools/list", *extra]) == 2
    assert capsys.readouterr().err.startswith("mcpmini call:")
