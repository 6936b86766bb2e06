"""The one error of the OAuth client: :class:`AuthError`, with its :class:`AuthErrorKind`.

Rules of this module: a message names what was wrong and where (a URL, a field), never a
token, a client secret, a code or a PKCE verifier. Callers decide by ``kind``, never by text.
"""

from __future__ import annotations

from enum import StrEnum

from ...errors import McpminiError

__all__ = ["AuthError", "AuthErrorKind"]


class AuthErrorKind(StrEnum):
    """Why an authorization could not be completed."""

    METADATA = "metadata"  # a metadata document that is missing, malformed or inconsistent
    RESOURCE = "resource"  # the protected resource metadata names another resource
    ISSUER = "issuer"  # an issuer that does not match (metadata or the redirect's iss)
    REGISTRATION = "registration"  # no client id could be had
    AUTHORIZATION = "authorization"  # the authorization step failed (error, state, redirects)
    TOKEN = "token"  # the token endpoint refused or answered garbage
    LOGIN_REQUIRED = "login required"  # a person has to log in first
    REFUSED = "refused"  # the server keeps refusing fresh tokens
    INSECURE = "insecure"  # a plain-http endpoint where https was promised (not loopback)


class AuthError(McpminiError):
    """An OAuth authorization that could not be completed; ``kind`` says why."""

    exit_code = 2

    def __init__(self, message: str, kind: AuthErrorKind) -> None:
        super().__init__(message)
        self.kind = kind
