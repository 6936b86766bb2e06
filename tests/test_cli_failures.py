"""The failure contract of the command line (issue 27): every command that talks to a server,
driven with each failure kind, ends in one line on stderr and the code the error's class owns
(``errors.McpminiError``: 3 the server could not be started or reached or went away, 4 the
deadline passed, 5 the server refused the protocol; 1 an error answer, which the command
returns itself). ``mcpmini tools`` is a report: each failure is its server's row, exit 1."""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from mcpmini.cli import main
from mcpmini.mcp import serve_http

PY = sys.executable
SILENT = "import sys\nfor line in sys.stdin:\n    pass\n"
EXITS = "import sys; sys.exit(3)"
# Answers every request with an error: no protocol version can be agreed.
REFUSES = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if 'id' in m:\n"
    "        e = {'code': -32600, 'message': 'no thanks'}\n"
    "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'error': e}), flush=True)\n"
)
SERVE_ADD = [PY, "-m", "mcpmini", "serve", "add"]

# kind → (the server command after --, the exit code). Only the timed-out kind has a short
# --timeout; the others get a long one, which their failure never reaches (a busy machine
# may take seconds to start a Python server, and that must not turn them into a timeout).
STDIO_KINDS = {
    "not started": (["/nonexistent/mcp-server"], 3),
    "closed": ([PY, "-c", EXITS], 3),
    "timed out": ([PY, "-c", SILENT], 4),
    "protocol refused": ([PY, "-c", REFUSES], 5),
}
LONG, SHORT = "120", "2"


def _timeout(kind: str) -> str:
    return SHORT if kind == "timed out" else LONG


@pytest.fixture(scope="module")
def closed_port() -> Iterator[int]:
    # bound and never listening, for the whole module: connections are refused, and no other
    # test's server can take the port meanwhile
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        yield int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def mute_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join(5)
    for conn in held:
        conn.close()
    listener.close()


async def _fails(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An HTTP server that answers every request 500 without a JSON-RPC body."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 500, "headers": []})
    await send({"type": "http.response.body", "body": b"boom"})


def _one_line(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"mcpmini {command}:") and "Traceback" not in err[0]
    return err[0]


@pytest.mark.parametrize("kind", list(STDIO_KINDS))
def test_call_over_stdio_ends_each_failure_in_one_line_and_its_code(capsys, kind):
    argv, code = STDIO_KINDS[kind]
    assert main(["call", "tools/list", "--timeout", _timeout(kind), "--", *argv]) == code
    _one_line(capsys, "call")


@pytest.mark.parametrize("kind", list(STDIO_KINDS))
def test_run_ends_each_failure_of_its_stdio_server_in_one_line_and_its_code(capsys, kind):
    argv, code = STDIO_KINDS[kind]
    assert main(["run", "x", "--timeout", _timeout(kind), "--", *argv]) == code
    _one_line(capsys, "run")


def test_call_over_http_ends_each_failure_in_one_line_and_its_code(capsys, closed_port, mute_port):
    unreachable = f"http://127.0.0.1:{closed_port}/mcp"
    assert main(["call", "tools/list", "--timeout", LONG, "--url", unreachable]) == 3
    assert "cannot reach" in _one_line(capsys, "call")
    mute = f"http://127.0.0.1:{mute_port}/mcp"
    assert main(["call", "tools/list", "--timeout", "1", "--url", mute]) == 4
    assert "timed out" in _one_line(capsys, "call")
    with serve_http(_fails) as url:
        assert main(["call", "tools/list", "--timeout", LONG, "--url", url]) == 5
    assert "HTTP 500" in _one_line(capsys, "call")


def test_an_error_answer_is_one_line_and_exit_one_on_both_transports(capsys):
    from mcpmini.mcp import add_server

    assert main(["call", "no/such-method", "--timeout", LONG, "--", *SERVE_ADD]) == 1
    over_stdio = capsys.readouterr().err.strip().splitlines()
    with serve_http(add_server()) as url:
        assert main(["call", "no/such-method", "--timeout", LONG, "--url", url]) == 1
    over_http = capsys.readouterr().err.strip().splitlines()
    for err in (over_stdio, over_http):
        assert len(err) == 1 and err[0].startswith("error -32601: Method not found"), err


def test_auth_login_ends_each_failure_in_one_line_and_its_code(
    capsys, closed_port, mute_port, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    login = ["auth", "login", "--headless", "--timeout"]
    assert main([*login, LONG, f"http://127.0.0.1:{closed_port}/mcp"]) == 3
    _one_line(capsys, "auth")
    assert main([*login, SHORT, f"http://127.0.0.1:{mute_port}/mcp"]) == 4
    _one_line(capsys, "auth")


@pytest.mark.parametrize("kind", [k for k in STDIO_KINDS if k != "not started"])
def test_tools_reports_each_failure_as_its_servers_row_and_exit_one(capsys, tmp_path, kind):
    argv, _ = STDIO_KINDS[kind]
    config = tmp_path / "user.json"
    config.write_text(json.dumps({"mcpServers": {"x": {"command": argv[0], "args": argv[1:]}}}))
    assert main(["tools", "--user", str(config), "--timeout", _timeout(kind)]) == 1
    out = capsys.readouterr().out.splitlines()
    row = [line for line in out if line.startswith("x [user]")]
    assert len(row) == 1, out
