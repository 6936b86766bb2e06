"""The OAuth 2.1 client of an MCP server over HTTP: :class:`OAuth`, an ``httpx.Auth``.

This is the I/O edge. Every decision is made by the sans-I/O modules of this package
(:mod:`.challenge`, :mod:`.discovery`, :mod:`.metadata`, :mod:`.scopes`,
:mod:`.registration`, :mod:`.tokens`, :mod:`.dpop`); the flow only moves their requests
through httpx (``yield request`` → response) and keeps the state of one server.

What happens on a request:

1. the stored token is attached (``Bearer``, or ``DPoP`` plus a fresh proof); an expired one
   is refreshed first when there is a refresh token, else dropped;
2. on ``401``: a ``use_dpop_nonce`` challenge is answered once with the server's nonce;
   otherwise the protected resource metadata is discovered again (the ``WWW-Authenticate``
   hint, then the well-known URLs), then the authorization server's metadata; a changed
   issuer drops the credentials bound to the old one (SEP-2352); then a refresh, or a new
   token by the configured :class:`~.options.Grant`; the request is sent again;
3. on ``403`` with ``error="insufficient_scope"``: one step-up to the union of the scopes
   asked for before and the challenged ones, unless the token already had them or that set
   was tried before (a token that never works stops here);

Rules of this module: per request at most one authorization for a ``401``, one step-up for a
``403`` and one nonce retry; a fresh token refused again is an :class:`AuthError` of kind
``refused``; every state change happens under one lock and is saved to the store; nothing
here prints a token, a secret, a code or a verifier. Every request the flow makes itself
(metadata, registration, token) ends by the call's
:class:`~mcpmini.deadline.Deadline` (``deadline``): httpx's timeouts are cut to what is left of
it and a body that trickles in is abandoned when it passes
(:class:`~mcpmini.errors.TimedOut`), so discovery never outlasts the call that needed it.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import orjson

from ...deadline import Deadline
from .agent import UserAgent
from .challenge import Challenge, parse_challenges
from .discovery import origin, resource_metadata_urls, server_metadata_urls
from .dpop import ALG, DpopKey
from .errors import AuthError, AuthErrorKind
from .metadata import (
    ResourceMetadata,
    ServerMetadata,
    canonical_resource,
    parse_resource_metadata,
    parse_server_metadata,
    resource_allowed,
)
from .options import Grant, OAuthOptions
from .pkce import Pkce
from .registration import ClientInfo, choose_method, parse_registration, registration_body
from .scopes import select_scopes, union
from .store import FileStore, MemoryStore, Record, TokenStore, tokens_dir
from .tokens import Token, parse_token, token_request

__all__ = ["OAuth", "oauth_for"]

MAX_DOCUMENT = 1 << 20  # bytes of one metadata, registration or token answer
_Flow = Generator[httpx.Request, httpx.Response, Any]


def _challenge(response: httpx.Response) -> Challenge:
    """The first challenge of a response (an empty one when there is none)."""
    found = parse_challenges(response.headers.get("www-authenticate"))
    return found[0] if found else Challenge("")


def _read_json(response: httpx.Response, deadline: Deadline | None = None) -> Any:
    """The JSON body (capped at :data:`MAX_DOCUMENT`), or ``None`` when it is not JSON.

    The body is kept on the response (httpx reads it again after the flow step). Raises
    :class:`~mcpmini.errors.TimedOut` when ``deadline`` passes while it trickles in.
    """
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_DOCUMENT:
        raise AuthError(
            f"{response.request.url} answered more than {MAX_DOCUMENT} bytes",
            AuthErrorKind.METADATA,
        )
    body, size = [], 0
    for chunk in response.iter_bytes():
        if deadline is not None:
            deadline.check(f"the answer of {response.request.url}")
        size += len(chunk)
        if size > MAX_DOCUMENT:
            raise AuthError(
                f"{response.request.url} answered more than {MAX_DOCUMENT} bytes",
                AuthErrorKind.METADATA,
            )
        body.append(chunk)
    response._content = b"".join(body)  # what response.read() returns from now on
    try:
        return orjson.loads(response._content)
    except ValueError:
        return None


def _error_of(doc: Any) -> str:
    if isinstance(doc, dict) and isinstance(doc.get("error"), str):
        return f" ({doc['error'][:60]})"
    return ""


class OAuth(httpx.Auth):
    """OAuth for the MCP server at ``server_url`` (see the module doc).

    ``store`` keeps the record between runs (default: memory only), ``agent`` opens the
    authorization URL (``None``: a grant that needs a person raises an :class:`AuthError` of
    kind ``login required``), ``clock`` gives the time in seconds, ``deadline`` (the call's;
    default none) bounds every request the flow makes itself.
    """

    requires_request_body = True

    def __init__(
        self,
        server_url: str,
        options: OAuthOptions | None = None,
        store: TokenStore | None = None,
        agent: UserAgent | None = None,
        clock: Callable[[], float] = time.time,
        deadline: Deadline | None = None,
    ) -> None:
        self.server_url = server_url
        self.deadline = deadline or Deadline.never()
        self.options = options or OAuthOptions()
        self.store: TokenStore = store if store is not None else MemoryStore()
        self.agent = agent
        self.clock = clock
        self._lock = threading.RLock()
        self.record = self.store.load(server_url) or Record(canonical_resource(server_url))
        self.prm: ResourceMetadata | None = None
        self.asm: ServerMetadata | None = None
        self._asm_for: str | None = None  # the issuer self.asm was looked up for
        self._nonces: dict[str, str] = {}
        self._stepped: set[frozenset[str]] = set()
        #: what the flow did, one short line per step (no secrets): for tests and ``--verbose``
        self.steps: list[str] = []

    # --- the httpx.Auth protocol ----------------------------------------------------------

    def auth_flow(self, request: httpx.Request) -> _Flow:
        with self._lock:
            token = self.record.token
            if token is not None and token.expired(self.clock()):
                if token.refresh_token:
                    yield from self._refresh()
                else:  # a known-dead token is not sent: the 401 then gets a new one
                    self._save(replace(self.record, token=None))
            used = self._apply(request)
        response = yield request
        self._learn_nonce(response)
        tries = {"nonce": 1, "401": 2, "403": 1}  # the second 401 only to say "refused"
        fresh = False
        while True:
            step = self._next_step(response, tries)
            if step is None:
                return
            with self._lock:
                if step == "401":
                    if fresh and self.record.token is used:
                        self._save(replace(self.record, token=None))  # never offer it again
                        raise AuthError(
                            f"{self.server_url} refused a freshly issued token (HTTP 401)",
                            AuthErrorKind.REFUSED,
                        )
                    if self.record.token is used:
                        yield from self._recover(_challenge(response))
                        fresh = True
                elif step == "403":
                    yield from self._step_up(_challenge(response))
                    fresh = True
                used = self._apply(request)
            response = yield request
            self._learn_nonce(response)

    def _next_step(self, response: httpx.Response, tries: dict[str, int]) -> str | None:
        challenge = _challenge(response)
        if response.status_code == 401:
            token = self.record.token
            nonce_asked = challenge.get("error") == "use_dpop_nonce"
            if nonce_asked and token is not None and token.dpop and tries["nonce"] > 0:
                tries["nonce"] -= 1
                return "nonce"
            if tries["401"] > 0:
                tries["401"] -= 1
                return "401"
            return None
        if response.status_code == 403 and challenge.get("error") == "insufficient_scope":
            token = self.record.token
            if tries["403"] <= 0 or token is None:
                return None
            wanted = union(token.requested, challenge.scopes)
            if set(challenge.scopes or ()) <= set(token.scopes) or frozenset(wanted) in (
                self._stepped
            ):
                return None  # the token has what was asked for: another login cannot help
            tries["403"] -= 1
            return "403"
        return None

    # --- attaching the token ----------------------------------------------------------------

    def _dpop_key(self) -> DpopKey:
        if self.record.dpop_key is not None:
            return DpopKey.from_json(self.record.dpop_key)
        key = DpopKey()
        self.record = replace(self.record, dpop_key=key.to_json())
        return key

    def _apply(self, request: httpx.Request) -> Token | None:
        token = self.record.token
        if token is None:
            return None
        if token.dpop:
            request.headers["authorization"] = f"DPoP {token.access_token}"
            nonce = self._nonces.get(origin(str(request.url)))
            request.headers["dpop"] = self._dpop_key().proof(
                request.method, str(request.url), token.access_token, nonce
            )
        else:
            request.headers["authorization"] = f"Bearer {token.access_token}"
        return token

    def _learn_nonce(self, response: httpx.Response) -> None:
        nonce = response.headers.get("dpop-nonce")
        if nonce:
            self._nonces[origin(str(response.request.url))] = nonce

    def _save(self, record: Record) -> None:
        self.record = record
        self.store.save(record)

    # --- the flow's own requests ----------------------------------------------------------

    def _request(self, method: str, url: str, **kwargs: Any) -> httpx.Request:
        """A request of the flow, its timeouts cut to what is left of the deadline."""
        request = httpx.Request(method, url, **kwargs)
        if self.deadline.finite:
            self.deadline.check(f"the authorization ({method} {url})")
            left = self.deadline.left()
            request.extensions["timeout"] = {k: left for k in ("connect", "read", "write", "pool")}
        return request

    def _json(self, response: httpx.Response) -> Any:
        return _read_json(response, self.deadline)

    # --- discovery ---------------------------------------------------------------------------

    def _get(self, url: str) -> Generator[httpx.Request, httpx.Response, tuple[int, Any]]:
        response = yield self._request("GET", url, headers={"accept": "application/json"})
        status = response.status_code
        return status, (self._json(response) if status == 200 else None)

    def _discover(self, challenge: Challenge) -> _Flow:
        """Find the PRM and the authorization server metadata; rebind on an issuer change."""
        self.prm = None
        hint = challenge.get("resource_metadata") or self.record.prm_url
        for url in resource_metadata_urls(self.server_url, hint):
            status, doc = yield from self._get(url)
            self.steps.append(f"prm {status} {url}")
            if status == 200:
                self.prm = parse_resource_metadata(doc, url, self.server_url)
                break
            if status >= 500:
                raise AuthError(f"{url} answered HTTP {status}", AuthErrorKind.METADATA)
        legacy = self.prm is None  # 2025-03-26: the MCP server's origin is the server
        expected = (
            origin(self.server_url) if self.prm is None else self.prm.authorization_servers[0]
        )
        if self._asm_for != expected or self.asm is None:
            self.asm = yield from self._server_metadata(expected, legacy)
            self._asm_for = expected
        issuer = self.asm.issuer
        if self.record.issuer is not None and self.record.issuer != issuer:
            self.steps.append(f"issuer changed to {issuer}")
            client = self.record.client
            kept = client if client is not None and client.usable_at(issuer) else None
            self._save(Record(self.record.server, issuer, kept, None, self.record.dpop_key, None))
        prm_url = self.prm.url if self.prm else None
        if self.record.issuer != issuer or self.record.prm_url != prm_url:
            self._save(replace(self.record, issuer=issuer, prm_url=prm_url))

    def _server_metadata(
        self, issuer: str, legacy: bool
    ) -> Generator[httpx.Request, httpx.Response, Any]:
        for url in server_metadata_urls(issuer):
            status, doc = yield from self._get(url)
            self.steps.append(f"asm {status} {url}")
            if status == 200:
                return parse_server_metadata(doc, url, issuer, same_origin=legacy)
            if status >= 500:
                raise AuthError(f"{url} answered HTTP {status}", AuthErrorKind.METADATA)
        return replace(ServerMetadata.fallback(origin(issuer)), issuer=issuer)

    def resource(self) -> str:
        """The ``resource`` of every authorization and token request (RFC 8707)."""
        mine = canonical_resource(self.server_url)
        if self.prm is not None and resource_allowed(mine, self.prm.resource):
            return self.prm.resource
        return mine

    # --- getting a token -------------------------------------------------------------------

    def login(self, scopes: tuple[str, ...] | None = None) -> Callable[[httpx.Client], Token]:
        """A function that runs discovery and a new authorization with ``client`` (for
        ``mcpmini auth login``, before any MCP request); it returns the token."""

        def run(client: httpx.Client) -> Token:
            flow = self._login(scopes)
            try:
                request = next(flow)
                while True:
                    response = client.send(request, stream=True)
                    try:
                        request = flow.send(response)
                    finally:
                        response.close()
            except StopIteration:
                pass
            assert self.record.token is not None
            return self.record.token

        return run

    def _login(self, scopes: tuple[str, ...] | None) -> _Flow:
        with self._lock:
            yield from self._discover(Challenge(""))
            yield from self._obtain(scopes)

    def _recover(self, challenge: Challenge) -> _Flow:
        yield from self._discover(challenge)
        token = self.record.token
        if token is not None and token.refresh_token and (yield from self._refresh()):
            return
        yield from self._obtain(challenge.scopes)

    def _step_up(self, challenge: Challenge) -> _Flow:
        token = self.record.token
        wanted = union(token.requested if token else (), challenge.scopes)
        self._stepped.add(frozenset(wanted))
        self.steps.append(f"step-up {' '.join(wanted)}")
        if self.asm is None:
            yield from self._discover(challenge)
        yield from self._obtain(wanted, exact=True)

    def _obtain(self, challenged: tuple[str, ...] | None, exact: bool = False) -> _Flow:
        if self.asm is None:
            yield from self._discover(Challenge(""))
        asm = self.asm
        assert asm is not None
        grant_kind = self.options.grant
        if self.options.scope is not None:
            scopes = tuple(self.options.scope.split())
        elif exact:
            scopes = tuple(challenged or ())
        else:
            wants_refresh = grant_kind is Grant.AUTHORIZATION_CODE
            scopes = select_scopes(challenged, self.prm, asm, wants_refresh)
        if grant_kind is Grant.AUTHORIZATION_CODE:
            client = yield from self._client(asm, scopes)
            grant = self._authorize(asm, client, scopes)
        else:
            client = self._static_client(asm)
            grant = {"grant_type": str(grant_kind)}
            if grant_kind is not Grant.CLIENT_CREDENTIALS:
                grant["grant_type"] = str(Grant.JWT_BEARER)
                grant["assertion"] = yield from self._assertion(asm)
        token = yield from self._token(asm, grant, client, scopes)
        self._save(
            replace(self.record, client=client, token=token, issuer=asm.issuer, grant=grant_kind)
        )

    def _assertion(self, asm: ServerMetadata) -> Generator[httpx.Request, httpx.Response, str]:
        """The jwt-bearer assertion: the configured one, or an ID-JAG from the enterprise
        identity provider (RFC 8693 token exchange, SEP-990)."""
        options = self.options
        if options.grant is Grant.JWT_BEARER:
            if not options.assertion:
                raise AuthError("the jwt-bearer grant needs an assertion", AuthErrorKind.TOKEN)
            return options.assertion
        if not (options.idp_token_endpoint and options.idp_id_token):
            raise AuthError(
                "the token exchange needs the identity provider's token endpoint and ID token",
                AuthErrorKind.TOKEN,
            )
        form = {
            "grant_type": str(Grant.TOKEN_EXCHANGE),
            "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
            "subject_token": options.idp_id_token,
            "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
            "audience": asm.issuer,
            "resource": self.resource(),
        }
        if options.idp_client_id:
            form["client_id"] = options.idp_client_id
        url = options.idp_token_endpoint
        response = yield self._request(
            "POST", url, data=form, headers={"accept": "application/json"}
        )
        doc = self._json(response)
        self.steps.append(f"token-exchange {response.status_code} {url}")
        if response.status_code != 200 or not isinstance(doc, dict):
            raise AuthError(
                f"the identity provider {url} refused the token exchange: "
                f"HTTP {response.status_code}{_error_of(doc)}",
                AuthErrorKind.TOKEN,
            )
        jag = doc.get("access_token")
        if not isinstance(jag, str):
            raise AuthError(
                f"the identity provider {url} returned no assertion", AuthErrorKind.TOKEN
            )
        return jag

    def _static_client(self, asm: ServerMetadata) -> ClientInfo:
        options = self.options
        if not options.client_id:
            raise AuthError(
                f"the {options.grant} grant needs a pre-registered client id",
                AuthErrorKind.REGISTRATION,
            )
        method = choose_method(
            asm, options.client_secret is not None, bool(options.private_key_pem)
        )
        return ClientInfo(options.client_id, options.client_secret, method)

    def _client(
        self, asm: ServerMetadata, scopes: tuple[str, ...]
    ) -> Generator[httpx.Request, httpx.Response, ClientInfo]:
        """Pre-registered, stored, CIMD or freshly registered (in that order)."""
        options = self.options
        redirect = self.agent.redirect_uri if self.agent is not None else None
        if options.client_id:
            method = choose_method(asm, options.client_secret is not None)
            return ClientInfo(options.client_id, options.client_secret, method, None, redirect)
        stored = self.record.client
        reusable = stored is not None and stored.usable_at(asm.issuer)
        if (
            stored is not None
            and reusable
            and (not stored.cimd or asm.client_id_metadata_document_supported)
        ):
            return replace(stored, redirect_uri=redirect or stored.redirect_uri)
        if asm.client_id_metadata_document_supported and options.client_metadata_url:
            self.steps.append("cimd")
            return ClientInfo(options.client_metadata_url, None, "none", None, redirect, cimd=True)
        if asm.registration_endpoint is None:
            raise AuthError(
                f"{asm.issuer} offers no dynamic client registration: use a pre-registered "
                "client id (--client-id)",
                AuthErrorKind.REGISTRATION,
            )
        if redirect is None:
            raise self._login_required()
        body = registration_body(options, asm, redirect, scopes)
        url = asm.registration_endpoint
        response = yield self._request(
            "POST", url, json=body, headers={"accept": "application/json"}
        )
        doc = self._json(response)
        self.steps.append(f"register {response.status_code} {url}")
        if response.status_code not in (200, 201):
            raise AuthError(
                f"the registration at {url} failed: HTTP {response.status_code}{_error_of(doc)}",
                AuthErrorKind.REGISTRATION,
            )
        client = parse_registration(doc, url, asm.issuer, body)
        self._save(replace(self.record, client=client, issuer=asm.issuer))
        return client

    def _login_required(self) -> AuthError:
        return AuthError(
            f"{self.server_url} needs a login: run `mcpmini auth login {self.server_url}`",
            AuthErrorKind.LOGIN_REQUIRED,
        )

    def _authorize(
        self, asm: ServerMetadata, client: ClientInfo, scopes: tuple[str, ...]
    ) -> dict[str, str]:
        """The authorization code grant's front channel; the token request's grant fields."""
        if self.agent is None:
            raise self._login_required()
        if asm.authorization_endpoint is None:
            raise AuthError(f"{asm.url} names no authorization_endpoint", AuthErrorKind.METADATA)
        methods = asm.code_challenge_methods_supported
        if not asm.legacy and (methods is None or "S256" not in methods):
            raise AuthError(
                f"{asm.issuer} does not support PKCE with S256: refusing to authorize",
                AuthErrorKind.METADATA,
            )
        pkce = Pkce()
        redirect = self.agent.redirect_uri
        params = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": redirect,
            "state": pkce.state,
            "code_challenge": pkce.challenge,
            "code_challenge_method": pkce.method,
            "resource": self.resource(),
        }
        if scopes:
            params["scope"] = " ".join(scopes)
        endpoint = asm.authorization_endpoint
        url = endpoint + ("&" if urlsplit(endpoint).query else "?") + urlencode(params)
        self.steps.append(f"authorize {endpoint}")
        back = parse_qs(urlsplit(self.agent.authorize(url)).query)
        first = {k: v[0] for k, v in back.items() if v}
        self._check_redirect(asm, first, pkce.state)
        return {
            "grant_type": str(Grant.AUTHORIZATION_CODE),
            "code": first["code"],
            "redirect_uri": redirect,
            "code_verifier": pkce.verifier,
        }

    @staticmethod
    def _check_redirect(asm: ServerMetadata, back: dict[str, str], state: str) -> None:
        """RFC 6749 §4.1.2 and RFC 9207 §2.4 (simple string comparison of ``iss``)."""
        if "error" in back:
            raise AuthError(
                f"the authorization server refused: {back['error'][:60]}",
                AuthErrorKind.AUTHORIZATION,
            )
        if not secrets.compare_digest(back.get("state", ""), state):
            raise AuthError("the redirect's state does not match", AuthErrorKind.AUTHORIZATION)
        iss = back.get("iss")
        if iss is not None and iss != asm.issuer:
            raise AuthError(
                f"the redirect's iss {iss!r} is not the issuer {asm.issuer!r}",
                AuthErrorKind.ISSUER,
            )
        if iss is None and asm.iss_parameter_supported:
            raise AuthError(
                f"the redirect has no iss although {asm.issuer} announces it",
                AuthErrorKind.ISSUER,
            )
        if not back.get("code"):
            raise AuthError("the redirect carries no code", AuthErrorKind.AUTHORIZATION)

    def _uses_dpop(self, asm: ServerMetadata) -> bool:
        offered = asm.dpop_signing_alg_values_supported or ()
        return self.options.dpop and ALG in offered

    def _token(
        self,
        asm: ServerMetadata,
        grant: dict[str, str],
        client: ClientInfo | None,
        scopes: tuple[str, ...],
        previous: Token | None = None,
        quiet: bool = False,
    ) -> Generator[httpx.Request, httpx.Response, Token | None]:
        """One token request (one retry for a DPoP nonce). A refusal raises, or returns
        ``None`` when ``quiet`` (a refresh)."""
        data, headers = token_request(
            grant,
            client,
            self.resource(),
            scopes,
            asm.issuer,
            self.options.private_key_pem,
            self.options.signing_alg,
        )
        url = asm.token_endpoint
        dpop = self._uses_dpop(asm)
        for attempt in range(2):
            if dpop:
                nonce = self._nonces.get(origin(url))
                headers["dpop"] = self._dpop_key().proof("POST", url, nonce=nonce)
            response = yield self._request("POST", url, data=data, headers=headers)
            self._learn_nonce(response)
            doc = self._json(response)
            self.steps.append(f"token {grant['grant_type']} {response.status_code}")
            nonce_asked = isinstance(doc, dict) and doc.get("error") == "use_dpop_nonce"
            if dpop and attempt == 0 and response.status_code == 400 and nonce_asked:
                continue
            if response.status_code in (200, 201):
                return parse_token(doc, url, scopes, self.clock(), previous)
            if quiet:
                return None
            raise AuthError(
                f"the token endpoint {url} refused the request: "
                f"HTTP {response.status_code}{_error_of(doc)}",
                AuthErrorKind.TOKEN,
            )
        raise AssertionError("unreachable")  # pragma: no cover

    def _refresh(self) -> Generator[httpx.Request, httpx.Response, bool]:
        """Refresh the stored token; ``False`` (and the token dropped) when refused."""
        token = self.record.token
        if token is None or token.refresh_token is None:
            return False
        if self.asm is None:
            yield from self._discover(Challenge(""))
        assert self.asm is not None
        grant = {"grant_type": "refresh_token", "refresh_token": token.refresh_token}
        fresh = yield from self._token(
            self.asm, grant, self.record.client, (), previous=token, quiet=True
        )
        self._save(replace(self.record, token=fresh))
        return fresh is not None


def oauth_for(
    server_url: str,
    environ: Mapping[str, str],
    agent: UserAgent | None = None,
    options: OAuthOptions | None = None,
    deadline: Deadline | None = None,
) -> OAuth:
    """The OAuth of ``server_url`` over the user's token store (:func:`~.store.tokens_dir` of
    ``environ``). Without ``agent`` a needed login is an :class:`AuthError` of kind
    ``login required`` naming ``mcpmini auth login``; stored tokens are used and refreshed,
    and a stored ``client_credentials`` login gets a new token by itself. ``deadline`` is
    the call's (:class:`OAuth`)."""
    store = FileStore(tokens_dir(environ))
    if options is None:
        record = store.load(server_url)
        client = record.client if record is not None else None
        if record is not None and record.grant == Grant.CLIENT_CREDENTIALS and client:
            options = OAuthOptions(
                grant=Grant.CLIENT_CREDENTIALS,
                client_id=client.client_id,
                client_secret=client.client_secret,
            )
    return OAuth(server_url, options, store, agent, deadline=deadline)
