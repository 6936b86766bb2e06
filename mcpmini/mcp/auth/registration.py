"""Who the client is at an authorization server: pre-registration, a Client ID Metadata
Document, or dynamic client registration (RFC 7591), sans-I/O.

Rules of this module:

* client credentials are bound to the issuer that issued them (SEP-2352): a
  :class:`ClientInfo` with another ``issuer`` is never presented (a CIMD URL is portable);
* the token endpoint auth method is the one the server registered; a pre-registered client
  authenticates with what it holds (:func:`choose_method`); dynamic registration asks for
  ``none`` when the server offers it (a command-line tool is a public client).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import AuthError, AuthErrorKind
from .metadata import ServerMetadata
from .options import Grant, OAuthOptions

__all__ = [
    "METHODS",
    "ClientInfo",
    "choose_method",
    "parse_registration",
    "registration_body",
]

#: Token endpoint auth methods this client can use, most preferred first.
METHODS = ("none", "client_secret_basic", "client_secret_post", "private_key_jwt")


@dataclass(frozen=True)
class ClientInfo:
    """A client id (and secret) at one authorization server.

    ``issuer`` is ``None`` for pre-registered and CIMD clients, which are not bound by us.
    """

    client_id: str
    client_secret: str | None = field(default=None, repr=False)
    method: str = "none"
    issuer: str | None = None
    redirect_uri: str | None = None
    cimd: bool = False

    def usable_at(self, issuer: str) -> bool:
        """Whether these credentials may be presented to ``issuer``."""
        return self.issuer is None or self.issuer == issuer

    def to_json(self) -> dict[str, Any]:
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "method": self.method,
            "issuer": self.issuer,
            "redirect_uri": self.redirect_uri,
            "cimd": self.cimd,
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> ClientInfo:
        return ClientInfo(
            str(obj["client_id"]),
            obj.get("client_secret"),
            str(obj.get("method") or "none"),
            obj.get("issuer"),
            obj.get("redirect_uri"),
            bool(obj.get("cimd")),
        )


def choose_method(asm: ServerMetadata, has_secret: bool, has_key: bool = False) -> str:
    """The token endpoint auth method to use with ``asm``: a client with a private key or a
    secret is confidential and authenticates with it (``private_key_jwt``, then
    ``client_secret_basic``, then ``client_secret_post``), any other is public (``none``).
    RFC 8414's default is ``client_secret_basic`` when the server lists none."""
    offered = asm.token_endpoint_auth_methods_supported or ("client_secret_basic",)
    order = (
        (["private_key_jwt"] if has_key else [])
        + (["client_secret_basic", "client_secret_post"] if has_secret else [])
        + ["none"]
    )
    usable = [m for m in order if m in offered]
    if usable:
        return usable[0]
    return "client_secret_basic" if has_secret else "none"


def registration_body(
    options: OAuthOptions, asm: ServerMetadata, redirect_uri: str, scopes: tuple[str, ...]
) -> dict[str, Any]:
    """The RFC 7591 client metadata to register (``application_type`` per SEP-837)."""
    offered = asm.token_endpoint_auth_methods_supported or ("client_secret_basic",)
    method = next(
        (m for m in ("none", "client_secret_basic", "client_secret_post") if m in offered),
        "client_secret_basic",
    )
    body: dict[str, Any] = {
        "client_name": options.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": [str(Grant.AUTHORIZATION_CODE), "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": options.application_type,
    }
    if scopes:
        body["scope"] = " ".join(scopes)
    return body


def parse_registration(doc: Any, url: str, issuer: str, requested: Mapping[str, Any]) -> ClientInfo:
    """The client a registration response describes, bound to ``issuer``.

    Raises :class:`AuthError` (kind ``registration``) for a response without a ``client_id``
    or one registering a method this client cannot use.
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("client_id"), str):
        raise AuthError(
            f"the registration at {url} returned no client_id", AuthErrorKind.REGISTRATION
        )
    secret = doc.get("client_secret")
    method = doc.get("token_endpoint_auth_method") or requested.get("token_endpoint_auth_method")
    if not isinstance(method, str) or method not in METHODS[:3]:
        raise AuthError(
            f"the registration at {url} assigned the unusable auth method {method!r}",
            AuthErrorKind.REGISTRATION,
        )
    if method != "none" and not isinstance(secret, str):
        raise AuthError(
            f"the registration at {url} assigned {method} but issued no client_secret",
            AuthErrorKind.REGISTRATION,
        )
    redirect = (requested.get("redirect_uris") or [None])[0]
    info = ClientInfo(doc["client_id"], secret if isinstance(secret, str) else None, method)
    return replace(info, issuer=issuer, redirect_uri=redirect)
