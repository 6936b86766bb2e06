"""The OAuth client (mcpmini.mcp.auth): the sans-I/O rules, then the flow against a small
protected server (tests/oauth_server.py), the bad input the issue lists, and the store."""

from __future__ import annotations

import stat

import httpx
import pytest

from mcpmini.mcp.auth import (
    AuthError,
    AuthErrorKind,
    ClientInfo,
    FileStore,
    HeadlessAgent,
    LoopbackAgent,
    MemoryStore,
    OAuth,
    Record,
    ResourceMetadata,
    ServerMetadata,
    Token,
    canonical_resource,
    choose_method,
    parse_challenges,
    parse_resource_metadata,
    parse_server_metadata,
    parse_token,
    resource_allowed,
    resource_metadata_urls,
    select_scopes,
    server_metadata_urls,
    token_request,
    tokens_dir,
    union,
)
from tests.oauth_server import FakeServer, Knobs

# --- sans-I/O -------------------------------------------------------------------------------


def test_a_challenge_is_read_with_quoted_commas_and_a_second_scheme():
    found = parse_challenges(
        'Bearer error="insufficient_scope", scope="a b", error_description="x, y", '
        'resource_metadata="https://h/.well-known/oauth-protected-resource", DPoP algs="ES256"'
    )
    assert [c.scheme for c in found] == ["Bearer", "DPoP"]
    assert found[0].scopes == ("a", "b") and found[0].get("error_description") == "x, y"
    assert found[1].get("algs") == "ES256"
    assert parse_challenges(None) == [] and parse_challenges('Bearer ="') == [
        parse_challenges("Bearer")[0]
    ]


def test_prm_urls_try_the_hint_then_the_path_then_the_root():
    assert resource_metadata_urls("http://h:1/a/mcp", "http://h:1/custom.json") == [
        "http://h:1/custom.json",
        "http://h:1/.well-known/oauth-protected-resource/a/mcp",
        "http://h:1/.well-known/oauth-protected-resource",
    ]
    assert resource_metadata_urls("http://h/") == ["http://h/.well-known/oauth-protected-resource"]


def test_as_metadata_urls_follow_rfc8414_then_oidc_for_an_issuer_with_a_path():
    assert server_metadata_urls("https://as/tenant1") == [
        "https://as/.well-known/oauth-authorization-server/tenant1",
        "https://as/.well-known/openid-configuration/tenant1",
        "https://as/tenant1/.well-known/openid-configuration",
    ]
    assert server_metadata_urls("https://as") == [
        "https://as/.well-known/oauth-authorization-server",
        "https://as/.well-known/openid-configuration",
    ]


def test_a_resource_covers_its_own_path_and_children_only_on_the_same_origin():
    assert resource_allowed("http://h/mcp", "http://h/mcp")
    assert resource_allowed("http://h/mcp", "http://h")
    assert resource_allowed("HTTP://H/mcp", "http://h/mcp/")
    assert not resource_allowed("http://h/mcp", "https://evil.example.com/mcp")
    assert not resource_allowed("http://h/mcp2", "http://h/mcp")
    assert canonical_resource("HTTP://Host/Path#frag") == "http://host/Path"


def test_a_prm_for_another_resource_is_refused():
    doc = {"resource": "https://evil.example.com/mcp", "authorization_servers": ["http://as"]}
    with pytest.raises(AuthError) as caught:
        parse_resource_metadata(doc, "http://h/prm", "http://h/mcp")
    assert caught.value.kind is AuthErrorKind.RESOURCE


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"authorization_servers": ["http://as"]},
        {"resource": "http://h/mcp", "authorization_servers": []},
        {"resource": "http://h/mcp", "authorization_servers": "http://as"},
        {"resource": "http://h/mcp", "authorization_servers": ["ftp://as"]},
        {"resource": "http://h/mcp", "authorization_servers": ["http://as"], "scopes_supported": 1},
    ],
)
def test_a_malformed_prm_is_a_metadata_error(doc):
    with pytest.raises(AuthError) as caught:
        parse_resource_metadata(doc, "http://h/prm", "http://h/mcp")
    assert caught.value.kind is AuthErrorKind.METADATA
    assert "\n" not in str(caught.value)


def test_the_metadata_issuer_must_match_exactly_even_a_trailing_slash():
    doc = {"issuer": "https://as/", "token_endpoint": "https://as/token"}
    with pytest.raises(AuthError) as caught:
        parse_server_metadata(doc, "https://as/.well-known/x", "https://as")
    assert caught.value.kind is AuthErrorKind.ISSUER
    assert parse_server_metadata(doc, "u", "https://as/").token_endpoint == "https://as/token"


def test_scopes_come_from_the_challenge_then_the_prm_then_nowhere():
    prm = ResourceMetadata("http://h/mcp", ("http://as",), ("a", "b"))
    asm = ServerMetadata("http://as", None, "http://as/t", scopes_supported=("a", "offline_access"))
    assert select_scopes(("x",), prm, None) == ("x",)
    assert select_scopes(None, prm, None) == ("a", "b")
    assert select_scopes(None, None, None) == ()
    assert select_scopes(None, prm, asm) == ("a", "b", "offline_access")
    assert select_scopes(None, prm, asm, wants_refresh=False) == ("a", "b")
    assert union(("a", "b"), ("b", "c")) == ("a", "b", "c")


def test_the_auth_method_is_the_first_usable_one_the_server_offers():
    def asm(*methods: str) -> ServerMetadata:
        return ServerMetadata("i", None, "t", token_endpoint_auth_methods_supported=methods)

    assert choose_method(asm("client_secret_post", "none"), has_secret=True) == "client_secret_post"
    assert choose_method(asm("client_secret_basic", "none"), has_secret=False) == "none"
    assert choose_method(asm("client_secret_basic"), has_secret=True) == "client_secret_basic"
    assert choose_method(asm("client_secret_post"), has_secret=True) == "client_secret_post"
    assert choose_method(asm("private_key_jwt"), False, has_key=True) == "private_key_jwt"


def test_token_requests_carry_the_resource_and_the_client_authentication():
    basic = ClientInfo("id:1", "s e", "client_secret_basic")
    data, headers = token_request({"grant_type": "x"}, basic, "http://h/mcp", ("a",))
    assert data == {"grant_type": "x", "resource": "http://h/mcp", "scope": "a"}
    assert headers["authorization"] == "Basic aWQlM0ExOnMlMjBl"  # RFC 6749 §2.3.1 encoding
    post = ClientInfo("c", "s", "client_secret_post")
    data, headers = token_request({"grant_type": "x"}, post, None)
    assert data["client_secret"] == "s" and "authorization" not in headers


def test_a_token_keeps_the_refresh_token_and_scope_a_refresh_answer_leaves_out():
    old = Token("tok-A", refresh_token="ref-A", scopes=("s",), requested=("s",))
    new = parse_token({"access_token": "tok-B", "expires_in": "60"}, "u", (), 100.0, old)
    assert (new.refresh_token, new.scopes, new.expires_at) == ("ref-A", ("s",), 160.0)
    assert new.expired(140.0) and not new.expired(120.0)
    assert "tok-B" not in repr(new) and "ref-A" not in repr(new)
    with pytest.raises(AuthError) as caught:
        parse_token({"token_type": "Bearer"}, "u", (), 0.0)
    assert caught.value.kind is AuthErrorKind.TOKEN


def test_the_token_directory_follows_xdg_then_home(tmp_path):
    assert tokens_dir({"XDG_CONFIG_HOME": "/x"}).as_posix() == "/x/mcpmini/tokens"
    assert tokens_dir({"HOME": "/h"}).as_posix() == "/h/.config/mcpmini/tokens"


def test_the_file_store_is_owner_only_and_survives_a_broken_file(tmp_path):
    store = FileStore(tmp_path / "tokens")
    record = Record("http://h/mcp", "http://as", ClientInfo("c"), Token("secret-token"))
    store.save(record)
    path = store.path("HTTP://H/mcp")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "tokens").stat().st_mode) == 0o700
    assert store.load("http://h/mcp") == record
    (tmp_path / "tokens" / "junk.json").write_text("{")
    assert store.records() == [record]
    assert store.delete("http://h/mcp") and not store.delete("http://h/mcp")


# --- the flow against a protected server ------------------------------------------------------


def _call(auth: OAuth, url: str, method: str = "tools/list") -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
    with httpx.Client(auth=auth, timeout=10) as http:
        return http.post(url, json=body, headers={"accept": "application/json"})


def test_a_401_leads_to_discovery_registration_pkce_and_a_retry_with_the_token():
    with FakeServer() as server:
        auth = OAuth(server.mcp_url, agent=HeadlessAgent())
        reply = _call(auth, server.mcp_url)
        assert reply.status_code == 200 and reply.json()["result"]["tools"][0]["name"] == "echo"
        assert server.log.paths() == [
            "/mcp",
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-authorization-server",
            "/register",
            "/authorize",
            "/token",
            "/mcp",
        ]
        assert auth.record.client is not None and auth.record.client.issuer == server.base


def test_an_expired_token_is_refreshed_before_the_request():
    now = [1000.0]
    with FakeServer(Knobs(expires_in=60)) as server:
        auth = OAuth(server.mcp_url, agent=HeadlessAgent(), clock=lambda: now[0])
        assert _call(auth, server.mcp_url).status_code == 200
        now[0] += 3600
        assert _call(auth, server.mcp_url).status_code == 200
        assert server.log.paths().count("/authorize") == 1
        assert server.log.paths().count("/token") == 2  # the code, then the refresh


def test_a_later_process_refreshes_a_stored_token_at_a_prm_only_the_challenge_named(tmp_path):
    now = [1000.0]
    with FakeServer(Knobs(expires_in=60, prm_path="/custom/prm.json")) as server:
        store = FileStore(tmp_path)
        first = OAuth(server.mcp_url, store=store, agent=HeadlessAgent(), clock=lambda: now[0])
        assert _call(first, server.mcp_url).status_code == 200
        now[0] += 3600
        later = OAuth(server.mcp_url, store=store, clock=lambda: now[0])  # no agent
        assert _call(later, server.mcp_url).status_code == 200
        assert server.log.paths().count("/authorize") == 1
        assert server.log.paths().count("/custom/prm.json") == 2


def test_a_stored_login_is_used_without_a_new_authorization(tmp_path):
    with FakeServer() as server:
        store = FileStore(tmp_path)
        assert _call(OAuth(server.mcp_url, store=store, agent=HeadlessAgent()), server.mcp_url)
        again = OAuth(server.mcp_url, store=store)  # no agent: a login would fail
        assert _call(again, server.mcp_url).status_code == 200
        assert server.log.paths().count("/authorize") == 1


def test_without_a_user_agent_a_needed_login_names_the_command():
    with FakeServer() as server, pytest.raises(AuthError) as caught:
        _call(OAuth(server.mcp_url), server.mcp_url)
    assert caught.value.kind is AuthErrorKind.LOGIN_REQUIRED
    assert f"mcpmini auth login {server.mcp_url}" in str(caught.value)


@pytest.mark.parametrize("metadata", ["not-json", "bad-field"])
def test_malformed_metadata_is_one_clear_line_and_nothing_is_registered(metadata):
    with FakeServer(Knobs(metadata=metadata)) as server, pytest.raises(AuthError) as caught:
        _call(OAuth(server.mcp_url, agent=HeadlessAgent()), server.mcp_url)
    assert caught.value.kind is AuthErrorKind.METADATA and "\n" not in str(caught.value)
    assert "/register" not in server.log.paths()


def test_metadata_naming_another_issuer_is_not_used():
    with FakeServer(Knobs(metadata="wrong-issuer")) as server, pytest.raises(AuthError) as caught:
        _call(OAuth(server.mcp_url, agent=HeadlessAgent()), server.mcp_url)
    assert caught.value.kind is AuthErrorKind.ISSUER
    assert "/register" not in server.log.paths() and "/authorize" not in server.log.paths()


@pytest.mark.parametrize("iss", ["wrong", "omit"])
def test_a_wrong_or_missing_iss_stops_before_the_token_request(iss):
    with FakeServer(Knobs(iss=iss)) as server, pytest.raises(AuthError) as caught:
        _call(OAuth(server.mcp_url, agent=HeadlessAgent()), server.mcp_url)
    assert caught.value.kind is AuthErrorKind.ISSUER
    assert "/token" not in server.log.paths()


def test_an_endless_redirect_stops_after_a_bounded_number_of_hops():
    with FakeServer(Knobs(hops=-1)) as server, pytest.raises(AuthError) as caught:
        _call(OAuth(server.mcp_url, agent=HeadlessAgent(max_redirects=5)), server.mcp_url)
    assert caught.value.kind is AuthErrorKind.AUTHORIZATION
    assert sum(p.startswith("/hop/") for p in server.log.paths()) == 5
    assert "/token" not in server.log.paths()


def test_a_few_redirects_before_the_callback_are_followed():
    with FakeServer(Knobs(hops=2)) as server:
        assert (
            _call(OAuth(server.mcp_url, agent=HeadlessAgent()), server.mcp_url).status_code == 200
        )


def test_a_token_that_never_works_is_tried_once_then_refused():
    store = MemoryStore()
    with FakeServer(Knobs(refuse_tokens=True)) as server, pytest.raises(AuthError) as caught:
        _call(OAuth(server.mcp_url, store=store, agent=HeadlessAgent()), server.mcp_url)
    assert caught.value.kind is AuthErrorKind.REFUSED
    assert store.load(server.mcp_url).token is None  # the refused token is not kept
    assert server.log.paths().count("/token") == 1
    assert server.log.paths().count("/mcp") == 2
    assert "tok-1-secret" not in str(caught.value)


def test_the_loopback_agent_waits_a_bounded_time_and_closes_its_port():
    shown: list[str] = []
    agent = LoopbackAgent(notify=shown.append, open_browser=False, timeout=0.05)
    with agent, pytest.raises(AuthError) as caught:
        agent.authorize("http://as/authorize?x=1")
    assert caught.value.kind is AuthErrorKind.AUTHORIZATION
    assert "http://as/authorize?x=1" in shown[0]
    assert agent._sock.fileno() == -1


def test_the_loopback_agent_returns_the_browser_redirect():
    import threading

    agent = LoopbackAgent(notify=lambda _: None, open_browser=False, timeout=10)
    target = agent.redirect_uri + "?code=c&state=s"
    hit = threading.Thread(target=lambda: httpx.get(target, timeout=5))
    with agent:
        hit.start()
        assert agent.authorize("http://as/authorize") == target
    hit.join(5)


def test_the_memory_store_keys_by_the_canonical_url():
    store = MemoryStore()
    store.save(Record("HTTP://H/mcp"))
    assert store.load("http://h/mcp") is not None


def test_a_dpop_proof_binds_method_url_token_and_nonce_and_is_fresh_each_time():
    import base64
    import hashlib

    from joserfc import jwt as jose_jwt
    from joserfc.jwk import ECKey

    from mcpmini.mcp.auth import DpopKey

    key = DpopKey()
    proof = key.proof("post", "https://rs/mcp?x=1#f", "tok-Z", nonce="n1")
    header = jose_jwt.decode(proof, ECKey.import_key(key.to_json())).header
    claims = jose_jwt.decode(proof, ECKey.import_key(key.to_json())).claims
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and "d" not in header["jwk"]
    assert (claims["htm"], claims["htu"], claims["nonce"]) == ("POST", "https://rs/mcp", "n1")
    digest = base64.urlsafe_b64encode(hashlib.sha256(b"tok-Z").digest()).rstrip(b"=").decode()
    assert claims["ath"] == digest
    again = jose_jwt.decode(key.proof("POST", "https://rs/mcp"), ECKey.import_key(key.to_json()))
    assert again.claims["jti"] != claims["jti"] and "ath" not in again.claims
    assert DpopKey.from_json(key.to_json()).thumbprint == key.thumbprint


def test_a_private_key_jwt_assertion_names_the_client_and_the_issuer():
    from joserfc import jwt as jose_jwt
    from joserfc.jwk import ECKey

    from mcpmini.mcp.auth import client_assertion

    key = ECKey.generate_key("P-256")
    pem = key.as_pem(private=True).decode()
    client = ClientInfo("cid", None, "private_key_jwt")
    data, _ = token_request(
        {"grant_type": "client_credentials"}, client, None, (), "https://as", pem
    )
    assert data["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    claims = jose_jwt.decode(data["client_assertion"], key).claims
    assert (claims["iss"], claims["sub"], claims["aud"]) == ("cid", "cid", "https://as")
    assert claims["exp"] > claims["iat"] and claims["jti"]
    with pytest.raises(AuthError):
        client_assertion("cid", "https://as", "not a key", "ES256")


def test_requests_that_meet_the_401_together_share_one_authorization():
    import threading

    with FakeServer() as server:
        auth = OAuth(server.mcp_url, agent=HeadlessAgent())
        statuses: list[int] = []
        with httpx.Client(auth=auth, timeout=10) as http:

            def one() -> None:
                body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
                statuses.append(http.post(server.mcp_url, json=body).status_code)

            threads = [threading.Thread(target=one) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
        assert statuses == [200] * 4
        assert server.log.paths().count("/authorize") == 1
        assert server.log.paths().count("/register") == 1


def test_a_busy_redirect_port_is_one_clear_error():
    with LoopbackAgent(notify=lambda _: None, open_browser=False) as first:
        with pytest.raises(AuthError) as caught:
            LoopbackAgent(first.port, notify=lambda _: None, open_browser=False)
    assert caught.value.kind is AuthErrorKind.AUTHORIZATION and str(first.port) in str(caught.value)
