"""Tokens and token requests (RFC 6749 §4.1.3, §4.4, §5, §6; RFC 7523; RFC 8693), sans-I/O.

:func:`token_request` builds the form and headers of one token request with the client's
authentication (``client_secret_basic``, ``client_secret_post``, ``none`` or
``private_key_jwt``, the assertion signed by joserfc); :func:`parse_token` reads the answer
into a :class:`Token`. Rules: the ``resource`` (RFC 8707) goes into every token request that
has one; a token's text never appears in a message or a ``repr``.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from authlib.common.security import generate_token
from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey, RSAKey

from .errors import AuthError, AuthErrorKind
from .registration import ClientInfo

__all__ = ["ASSERTION_TYPE", "Token", "client_assertion", "parse_token", "token_request"]

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
_SKEW = 30.0  # seconds before expiry a token counts as expired


@dataclass(frozen=True)
class Token:
    """An access token (and what came with it). ``scopes`` are the granted scopes (the
    requested ones when the server did not say, RFC 6749 §5.1)."""

    access_token: str = field(repr=False)
    token_type: str = "Bearer"
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None
    scopes: tuple[str, ...] = ()
    requested: tuple[str, ...] = ()

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at - _SKEW

    @property
    def dpop(self) -> bool:
        return self.token_type.lower() == "dpop"

    def to_json(self) -> dict[str, Any]:
        return {
            "access_token": self.access_token,
            "token_type": self.token_type,
            "refresh_token": self.refresh_token,
            "expires_at": self.expires_at,
            "scopes": list(self.scopes),
            "requested": list(self.requested),
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> Token:
        return Token(
            str(obj["access_token"]),
            str(obj.get("token_type") or "Bearer"),
            obj.get("refresh_token"),
            obj.get("expires_at"),
            tuple(obj.get("scopes") or ()),
            tuple(obj.get("requested") or ()),
        )


def parse_token(
    doc: Any,
    url: str,
    requested: tuple[str, ...],
    now: float,
    previous: Token | None = None,
) -> Token:
    """The token of a successful token response. A refresh answer without ``refresh_token``
    or ``scope`` keeps the previous ones (RFC 6749 §6).

    Raises :class:`AuthError` (kind ``token``) for an answer without an access token.
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("access_token"), str):
        raise AuthError(f"the token endpoint {url} returned no access_token", AuthErrorKind.TOKEN)
    expires_in = doc.get("expires_in")
    if isinstance(expires_in, str) and expires_in.isdigit():
        expires_in = int(expires_in)
    numeric = isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool)
    expires_at = now + float(expires_in) if numeric and expires_in is not None else None
    scope = doc.get("scope")
    if isinstance(scope, str):
        scopes = tuple(scope.split())
    else:
        scopes = previous.scopes if previous is not None else requested
    refresh = doc.get("refresh_token")
    if not isinstance(refresh, str):
        refresh = previous.refresh_token if previous is not None else None
    kind = doc.get("token_type")
    return Token(
        doc["access_token"],
        kind if isinstance(kind, str) else "Bearer",
        refresh,
        expires_at,
        scopes,
        requested or (previous.requested if previous is not None else ()),
    )


def _load_key(pem: str) -> ECKey | RSAKey | OKPKey:
    for kind in (ECKey, RSAKey, OKPKey):
        try:
            return kind.import_key(pem)
        except (ValueError, TypeError):
            continue
    raise AuthError("the private key is not a PEM EC, RSA or OKP key", AuthErrorKind.TOKEN)


def client_assertion(client_id: str, audience: str, pem: str, alg: str) -> str:
    """A ``private_key_jwt`` client assertion (RFC 7523 §3): ``iss`` = ``sub`` = the client
    id, ``aud`` = the authorization server's issuer, a fresh ``jti``, five minutes valid."""
    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 300,
        "jti": generate_token(32),
    }
    return str(jwt.encode({"alg": alg, "typ": "JWT"}, claims, _load_key(pem), algorithms=[alg]))


def token_request(
    grant: Mapping[str, str],
    client: ClientInfo | None,
    resource: str | None,
    scopes: tuple[str, ...] = (),
    issuer: str = "",
    private_key_pem: str | None = None,
    signing_alg: str = "ES256",
) -> tuple[dict[str, str], dict[str, str]]:
    """``(form, headers)`` of a token request: the grant's fields, ``resource``, ``scope``
    (when given) and the client authentication its ``method`` asks for."""
    data = dict(grant)
    headers = {"accept": "application/json"}
    if resource:
        data["resource"] = resource
    if scopes:
        data["scope"] = " ".join(scopes)
    if client is None:
        return data, headers
    if client.method == "client_secret_basic" and client.client_secret is not None:
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    elif client.method == "client_secret_post" and client.client_secret is not None:
        data["client_id"] = client.client_id
        data["client_secret"] = client.client_secret
    elif client.method == "private_key_jwt" and private_key_pem:
        data["client_id"] = client.client_id
        data["client_assertion_type"] = ASSERTION_TYPE
        data["client_assertion"] = client_assertion(
            client.client_id, issuer, private_key_pem, signing_alg
        )
    else:
        data["client_id"] = client.client_id
    return data, headers
