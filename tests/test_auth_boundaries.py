"""The OAuth client's boundaries (issue 29, item 6): no plain-http endpoint behind an https
issuer or resource (loopback exempt, RFC 8252), discovery bounded by the whole call's deadline,
a callback whose state is not ours ignored, and a client secret that need not be an argument."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from typing import Any

import pytest
from oauth_server import FakeServer, Knobs

from mcpmini.cli import main
from mcpmini.mcp.auth import AuthError, AuthErrorKind, LoopbackAgent
from mcpmini.mcp.auth.metadata import parse_resource_metadata, parse_server_metadata

ISSUER = "https://as.example"
CALL = [sys.executable, "-m", "mcpmini", "call"]


def _asm(**endpoints: str) -> dict[str, Any]:
    doc = {
        "issuer": ISSUER,
        "authorization_endpoint": ISSUER + "/authorize",
        "token_endpoint": ISSUER + "/token",
        "registration_endpoint": ISSUER + "/register",
    }
    doc.update(endpoints)
    return doc


@pytest.mark.parametrize(
    "field", ["authorization_endpoint", "token_endpoint", "registration_endpoint"]
)
def test_a_plain_http_endpoint_of_an_https_issuer_is_refused(field):
    url = ISSUER + "/.well-known/oauth-authorization-server"
    with pytest.raises(AuthError) as info:
        parse_server_metadata(_asm(**{field: "http://as.example/x"}), url, ISSUER)
    assert info.value.kind is AuthErrorKind.INSECURE and field in str(info.value)


@pytest.mark.parametrize("host", ["127.0.0.1", "[::1]", "localhost"])
def test_a_loopback_endpoint_may_be_plain_http_as_rfc_8252_allows(host):
    url = ISSUER + "/.well-known/oauth-authorization-server"
    found = parse_server_metadata(_asm(token_endpoint=f"http://{host}:8080/token"), url, ISSUER)
    assert found.token_endpoint == f"http://{host}:8080/token"


def test_an_https_resource_naming_a_plain_http_authorization_server_is_refused():
    prm = {"resource": "https://mcp.example/mcp", "authorization_servers": ["http://as.example"]}
    url = "https://mcp.example/.well-known/oauth-protected-resource/mcp"
    with pytest.raises(AuthError) as info:
        parse_resource_metadata(prm, url, "https://mcp.example/mcp")
    assert info.value.kind is AuthErrorKind.INSECURE
    loopback = {**prm, "authorization_servers": ["http://127.0.0.1:9000"]}
    assert parse_resource_metadata(loopback, url, "https://mcp.example/mcp").authorization_servers


def test_an_https_servers_challenge_naming_plain_http_metadata_is_refused():
    from mcpmini.mcp.auth import resource_metadata_urls

    hint = "http://mcp.example/.well-known/oauth-protected-resource/mcp"
    with pytest.raises(AuthError) as info:
        resource_metadata_urls("https://mcp.example/mcp", hint)
    assert info.value.kind is AuthErrorKind.INSECURE and hint in str(info.value)
    loopback = "http://127.0.0.1:9000/.well-known/oauth-protected-resource"
    assert resource_metadata_urls("https://mcp.example/mcp", loopback)[0] == loopback
    assert resource_metadata_urls("http://mcp.example/mcp", hint)[0] == hint  # no https to lose


# --- discovery within the call's deadline -----------------------------------------------------


def test_a_metadata_server_that_trickles_ends_mcpmini_call_in_one_line_within_its_timeout(
    tmp_path,
):
    with FakeServer(Knobs(trickle=True)) as server:
        done = subprocess.run(
            [*CALL, "tools/list", "--timeout", "3", "--url", server.mcp_url],
            capture_output=True,
            text=True,
            timeout=120,
            env={"XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 4, done.stderr[-2000:]  # before: 19 s and a traceback
    assert len(lines) == 1 and lines[0].startswith("mcpmini call: timed out")


# --- the loopback callback ----------------------------------------------------------------


def _get(port: int, path: str) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        head = b""
        while b"\r\n" not in head:
            chunk = conn.recv(1024)
            if not chunk:
                break
            head += chunk
    return int(head.split()[1])


def test_a_callback_whose_state_is_not_ours_is_ignored_and_the_wait_goes_on():
    with LoopbackAgent(notify=lambda text: None, open_browser=False, timeout=60) as agent:
        url = "https://as.example/authorize?client_id=c&state=the-real-state&code_challenge=x"
        got: list[str] = []
        waiting = threading.Thread(target=lambda: got.append(agent.authorize(url)), daemon=True)
        waiting.start()
        # any local process can reach the port first: a forged state is turned away …
        assert _get(agent.port, "/callback?state=forged&code=evil") == 400
        assert _get(agent.port, "/callback?code=evil") == 400
        assert waiting.is_alive()
        # … and the real redirect still ends the login
        assert _get(agent.port, "/callback?state=the-real-state&code=good") == 200
        waiting.join(30)
    assert got == [f"http://127.0.0.1:{agent.port}/callback?state=the-real-state&code=good"]


# --- the client secret outside the process list ---------------------------------------------


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("MCPMINI_CLIENT_SECRET", raising=False)
    return tmp_path


def _machine_login(server: FakeServer, *extra: str) -> int:
    argv = ["auth", "login", server.mcp_url, "--grant", "client_credentials"]
    return main([*argv, "--client-id", "machine", *extra])


def test_the_client_secret_can_come_from_a_file(config, capsys):
    secret = config / "secret"
    secret.write_text("machine-secret\n")
    secret.chmod(0o600)
    with FakeServer() as server:
        assert _machine_login(server, "--client-secret-file", str(secret)) == 0
    assert "machine-secret" not in capsys.readouterr().out


def test_the_client_secret_can_come_from_the_environment(config, monkeypatch, capsys):
    monkeypatch.setenv("MCPMINI_CLIENT_SECRET", "machine-secret")
    with FakeServer() as server:
        assert _machine_login(server) == 0


def test_a_client_secret_option_beats_the_environment(config, monkeypatch):
    secret = config / "secret"
    secret.write_text("machine-secret\n")
    monkeypatch.setenv("MCPMINI_CLIENT_SECRET", "wrong")
    with FakeServer() as server:
        assert _machine_login(server, "--client-secret-file", str(secret)) == 0
        assert _machine_login(server) != 0  # the environment's wrong secret alone is refused


def test_a_client_secret_file_that_cannot_be_read_or_two_sources_are_one_line(config, capsys):
    with FakeServer() as server:
        assert _machine_login(server, "--client-secret-file", str(config / "missing")) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--client-secret-file" in err[0]
        both = ["--client-secret", "x", "--client-secret-file", str(config / "missing")]
        assert _machine_login(server, *both) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
