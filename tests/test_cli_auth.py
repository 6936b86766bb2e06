"""``mcpmini auth login|logout|list`` and the stored login used by ``mcpmini call --url``."""

from __future__ import annotations

import stat

import pytest

from mcpmini.cli import main
from tests.oauth_server import FakeServer, Knobs


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    return tmp_path / "mcpmini" / "tokens"


def test_login_keeps_an_owner_only_record_that_call_and_list_use_without_printing_it(
    config, capsys
):
    with FakeServer() as server:
        assert main(["auth", "login", server.mcp_url, "--headless"]) == 0
        out = capsys.readouterr()
        assert "logged in to" in out.out
        files = list(config.glob("*.json"))
        assert len(files) == 1
        assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
        assert stat.S_IMODE(config.stat().st_mode) == 0o700
        assert main(["call", "tools/list", "--url", server.mcp_url]) == 0
        assert "echo" in capsys.readouterr().out
        assert server.log.paths().count("/authorize") == 1  # the call used the stored token
        assert main(["auth", "list"]) == 0
        listed = capsys.readouterr()
        assert server.mcp_url in listed.out
        assert main(["auth", "list", "--json"]) == 0
        as_json = capsys.readouterr().out
        for text in (out.out + out.err, listed.out + listed.err, as_json):
            assert "tok-1-secret" not in text and "ref-1-secret" not in text
        assert main(["auth", "logout", server.mcp_url]) == 0
        assert list(config.glob("*.json")) == []
        assert main(["auth", "logout", server.mcp_url]) == 1


def test_call_without_a_login_says_which_command_logs_in(config, capsys):
    with FakeServer() as server:
        code = main(["call", "tools/list", "--url", server.mcp_url, "--timeout", "10"])
        err = capsys.readouterr().err
    assert code != 0
    assert f"mcpmini auth login {server.mcp_url}" in err
    assert len(err.strip().splitlines()) == 1


def test_a_login_refused_by_a_wrong_iss_is_one_line_with_exit_2_and_stores_no_token(config, capsys):
    with FakeServer(Knobs(iss="wrong")) as server:
        assert main(["auth", "login", server.mcp_url, "--headless"]) == 2
        err = capsys.readouterr().err
        assert "iss" in err and len(err.strip().splitlines()) == 1
        assert main(["auth", "list", "--json"]) == 0
        assert '"token_type": null' in capsys.readouterr().out.replace(":null", ": null")


def test_logout_needs_a_url_or_all(config, capsys):
    assert main(["auth", "logout"]) == 2
    assert main(["auth", "logout", "--all"]) == 0


def test_a_client_credentials_login_renews_itself_when_the_token_expires(config, capsys):
    from dataclasses import replace

    from mcpmini.mcp.auth import FileStore

    with FakeServer() as server:
        argv = ["auth", "login", server.mcp_url, "--grant", "client_credentials"]
        assert main([*argv, "--client-id", "machine", "--client-secret", "machine-secret"]) == 0
        assert "/authorize" not in server.log.paths()
        store = FileStore(config)
        record = store.load(server.mcp_url)
        expired = replace(record.token, expires_at=0.0, refresh_token=None)
        store.save(replace(record, token=expired))  # no refresh token: a new grant is needed
        capsys.readouterr()
        assert main(["call", "tools/list", "--url", server.mcp_url]) == 0
        assert server.log.paths().count("/token") == 2 and "/authorize" not in server.log.paths()
        assert "machine-secret" not in capsys.readouterr().out
    assert main(["auth", "login", "http://127.0.0.1:9/mcp", "--grant", "client_credentials"]) == 2
