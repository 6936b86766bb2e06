"""How the OAuth client should present itself: :class:`OAuthOptions` and the :class:`Grant`.

Everything here is passed in by the caller (the CLI, a test, the conformance client); nothing
reads the environment.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Grant", "OAuthOptions"]


class Grant(StrEnum):
    """How a token is obtained."""

    AUTHORIZATION_CODE = "authorization_code"  # a person logs in (PKCE, S256)
    CLIENT_CREDENTIALS = "client_credentials"  # the client itself (secret or private key JWT)
    JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"  # a workload's JWT (RFC 7523)
    TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"  # ID-JAG (SEP-990)


@dataclass(frozen=True)
class OAuthOptions:
    """The client's side of the authorization.

    ``client_id`` / ``client_secret`` are a pre-registration (no dynamic registration then);
    ``client_metadata_url`` an HTTPS Client ID Metadata Document used when the server accepts
    one; ``scope`` overrides the scope selection; ``private_key_pem`` / ``signing_alg`` sign a
    ``private_key_jwt`` client assertion; ``assertion`` is the JWT of the jwt-bearer grant;
    ``idp_*`` describe the enterprise identity provider of the token-exchange grant; ``dpop``
    uses sender-constrained tokens when the authorization server offers them.
    """

    client_name: str = "mcpmini"
    grant: Grant = Grant.AUTHORIZATION_CODE
    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scope: str | None = None
    private_key_pem: str | None = None
    signing_alg: str = "ES256"
    assertion: str | None = None
    idp_token_endpoint: str | None = None
    idp_id_token: str | None = None
    idp_client_id: str | None = None
    dpop: bool = True
    application_type: str = "native"
