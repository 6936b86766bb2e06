"""``mcpmini serve`` and ``mcpmini call``: the inspector-like workbench commands."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from attack_support import Owned

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


def test_a_server_that_cannot_start_exits_with_the_transport_code(capsys):
    assert main(["call", "tools/list", "--", "/nonexistent/server"]) == 3
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


# --- the inspector: every content type, live notifications, --raw, --save ---------------

CONFORMANCE = [*SERVE, "conformance"]
PEER = ["--", sys.executable, str(Path(__file__).parent / "peers" / "inspector_server.py")]


def _call(capsys, tool, server, *options):
    code = main(["call", "tools/call", "--tool", tool, *options, *server])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


@pytest.mark.parametrize(
    "tool, expected",
    [
        (
            "test_simple_text",
            ["[0] text  43 chars", "    This is a simple text response for testing."],
        ),
        ("test_image_content", ["[0] image  image/png  70 bytes"]),
        ("test_audio_content", ["[0] audio  audio/wav  44 bytes"]),
        (
            "test_embedded_resource",
            [
                "[0] resource  test://embedded-resource  text/plain  37 chars",
                "    This is an embedded resource content.",
            ],
        ),
        (
            "test_multiple_content_types",
            [
                "[0] text  28 chars",
                "    Multiple content types test:",
                "[1] image  image/png  70 bytes",
                "[2] resource  test://mixed-content-resource  application/json  27 chars",
            ],
        ),
    ],
)
def test_call_shows_each_content_type_of_the_conformance_server(capsys, tool, expected):
    code, out, _ = _call(capsys, tool, CONFORMANCE)
    assert code == 0 and out[1].startswith("ok: ")
    assert out[2 : 2 + len(expected)] == expected


def test_save_writes_image_and_audio_as_files_named_by_index_and_extension(capsys, tmp_path):
    from mcpmini.mcp.conformance import PNG, WAV

    folder = tmp_path / "out"
    for tool in ("test_image_content", "test_audio_content"):
        code, out, _ = _call(capsys, tool, CONFORMANCE, "--save", str(folder))
        assert code == 0 and out[-1].startswith("saved ")
    assert sorted(p.name for p in folder.iterdir()) == ["0.png", "0.wav"]
    assert (folder / "0.png").read_bytes() == base64.b64decode(PNG)
    assert (folder / "0.wav").read_bytes() == base64.b64decode(WAV)


def test_save_refuses_a_symlink_planted_where_a_file_goes(capsys, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "0.png").symlink_to(outside)
    code, _, err = _call(capsys, "test_image_content", CONFORMANCE, "--save", str(folder))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert outside.read_text() == "keep"


def test_save_refuses_a_name_that_leaves_its_folder(tmp_path):
    from mcpmini.cli.inspect import _write_inside
    from mcpmini.errors import UsageError

    for name in ("../escape.png", "sub/../../escape.png", ".."):
        with pytest.raises(UsageError):
            _write_inside(tmp_path / "out", name, b"x")
    assert not (tmp_path / "escape.png").exists()


def test_a_resource_link_shows_uri_name_mime_type_and_size(capsys):
    code, out, _ = _call(capsys, "linked", PEER)
    assert code == 0
    assert (
        out[2]
        == "[0] resource_link  file:///srv/report.pdf  name=report.pdf  application/pdf  2.0 KiB"
    )


@pytest.mark.parametrize("tool, verdict", [("shaped", "valid"), ("misshaped", "invalid")])
def test_structured_content_is_checked_against_the_tools_output_schema(capsys, tool, verdict):
    code, out, _ = _call(capsys, tool, PEER)
    assert code == 0 and f"structured content: {verdict}" in out
    assert any(line.startswith("    problem: n:") for line in out) is (verdict == "invalid")


def test_an_is_error_result_is_marked_and_exits_1(capsys):
    code, out, _ = _call(capsys, "test_error_handling", CONFORMANCE)
    assert code == 1 and out[1].startswith("tool_error (isError: true)")


def test_text_from_the_server_is_printed_with_its_controls_escaped(capsys):
    code, out, _ = _call(capsys, "hostile", PEER)
    text = "\n".join(out)
    assert code == 0 and "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\r" not in text and out[-1].endswith("\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil\\x0dforged")


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_progress_and_log_messages_are_printed_before_the_result_over_http(capsys, mode):
    from mcpmini.mcp import conformance_server, serve_http

    with serve_http(conformance_server()) as url:
        progress = _call(capsys, "test_tool_with_progress", ["--url", url], "--mode", mode)
        logging = _call(capsys, "test_tool_with_logging", ["--url", url], "--mode", mode)
    code, out, _ = progress
    assert code == 0
    assert out[1:5] == [
        "progress 0/100 (0%)",
        "progress 50/100 (50%)",
        "progress 100/100 (100%)",
        "ok: 1 content block",
    ]
    code, out, _ = logging
    assert code == 0 and [line.split(":")[0] for line in out[1:5]] == [
        "log info",
        "log info",
        "log info",
        "ok",
    ]


def test_raw_prints_each_wire_line_as_it_crosses_and_json_stays_exact(capsys):
    from mcpmini.mcp import conformance_server, serve_http

    with serve_http(conformance_server()) as url:
        code, out, err = _call(capsys, "test_tool_with_logging", ["--url", url], "--raw")
        assert code == 0
        raw = err.splitlines()
        assert raw[0].startswith("C→S ") and '"server/discover"' in raw[0]
        assert any(line.startswith("S→C ") and "notifications/message" in line for line in raw)
        code, out, err = _call(capsys, "test_tool_with_logging", ["--url", url], "--json")
    assert code == 0
    assert json.loads("\n".join(out))["content"][0]["type"] == "text"  # stdout: the JSON alone
    assert err.splitlines() == [
        "log info: Tool execution started",
        "log info: Tool processing data",
        "log info: Tool execution completed",
    ]


def test_resources_read_shows_its_contents_as_blocks(capsys, tmp_path):
    code = main(
        [
            "call",
            "resources/read",
            "--args",
            '{"uri": "test://static-binary"}',
            "--save",
            str(tmp_path),
            *CONFORMANCE,
        ]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and out[1].startswith("[0] resource  test://static-binary")
    assert out[1].endswith("image/png  70 bytes") and (tmp_path / "0.png").exists()


def test_an_image_of_50_mib_is_refused_above_the_reply_cap_and_nothing_is_left_running(capsys):
    with Owned() as owned:
        code, out, _ = _call(capsys, "big_image", PEER, "--args", '{"mib": 50}')
        assert owned.wait_gone() == []
    assert code == 1
    assert out[1:] == ["no_answer: too large: reply larger than 16777216 bytes"]


def test_the_progress_bar_is_redrawn_in_place_on_a_terminal_and_cleared_for_other_lines():
    import io

    from mcpmini.cli.inspect import Console
    from mcpmini.mcp import Notification

    out = io.StringIO()
    console = Console(out, io.StringIO(), tty=True)
    for done in (1, 2):
        console.notification(
            Notification(
                "notifications/progress", {"progressToken": 1, "progress": done, "total": 4}
            )
        )
    console.notification(Notification("notifications/message", {"level": "info", "data": "x"}))
    console.end_progress()
    console.line("result")
    text = out.getvalue()
    assert text.count("\r\x1b[K") >= 4 and text.endswith("\nresult\n")
    assert "log info: x\n" in text and "2/4 (50%)" in text
    # the last line before the result is the redrawn bar, left on a line of its own
    assert (
        text.rsplit("\r\x1b[K", 1)[1].startswith("progress ")
        and "2/4" in text.rsplit("\r\x1b[K", 1)[1]
    )
