"""DPoP proofs (RFC 9449) through joserfc: one ES256 key per server, a fresh proof per request.

A proof is a ``dpop+jwt`` JWS whose header carries the public key; its claims are a fresh
``jti``, ``htm`` (the method), ``htu`` (the URL without query and fragment), ``iat``, ``ath``
(the SHA-256 of the access token, on resource requests) and the server's ``nonce`` once one
was given (§8, §9). The private key is kept only in the token store (0600).
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from authlib.common.security import generate_token
from joserfc import jwt
from joserfc.jwk import ECKey

__all__ = ["ALG", "DpopKey", "htu"]

ALG = "ES256"


def htu(url: str) -> str:
    """The ``htu`` of a request URL: no query, no fragment (RFC 9449 §4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class DpopKey:
    """An ES256 key pair that signs DPoP proofs."""

    def __init__(self, key: ECKey | None = None) -> None:
        self._key = key if key is not None else ECKey.generate_key("P-256")

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> DpopKey:
        return DpopKey(ECKey.import_key(dict(obj)))

    def to_json(self) -> dict[str, Any]:
        return dict(self._key.as_dict(private=True))

    @property
    def thumbprint(self) -> str:
        return str(self._key.thumbprint())

    def proof(
        self, method: str, url: str, access_token: str | None = None, nonce: str | None = None
    ) -> str:
        """A fresh proof for one request."""
        claims: dict[str, Any] = {
            "jti": generate_token(32),
            "htm": method.upper(),
            "htu": htu(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            digest = hashlib.sha256(access_token.encode("ascii")).digest()
            claims["ath"] = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        if nonce is not None:
            claims["nonce"] = nonce
        public = self._key.as_dict(private=False)
        header = {"typ": "dpop+jwt", "alg": ALG, "jwk": public}
        return str(jwt.encode(header, claims, self._key, algorithms=[ALG]))
