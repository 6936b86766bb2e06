"""Where the metadata documents are looked for, in the order the specifications give, sans-I/O.

* Protected resource metadata (MCP 2025-11-25 "Protected Resource Metadata Discovery",
  RFC 9728 §3.1): the ``resource_metadata`` URL of the ``WWW-Authenticate`` challenge, then
  the path-suffixed well-known URL ``/.well-known/oauth-protected-resource/<path>``, then the
  root one. A challenge of an https server naming a plain-http metadata URL (not loopback)
  is refused: that document would choose the authorization server, and over plain http
  anyone on the path could choose it (an :class:`~.errors.AuthError` of kind ``insecure``).
* Authorization server metadata (MCP "Authorization Server Metadata Discovery", RFC 8414 §3.1,
  OpenID Connect Discovery 1.0 §4): for an issuer with a path, the OAuth path-inserted URL,
  the OIDC path-inserted URL, then the OIDC path-appended URL; for an issuer without one,
  ``/.well-known/oauth-authorization-server`` then ``/.well-known/openid-configuration``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .errors import AuthError, AuthErrorKind
from .metadata import downgrades

__all__ = ["origin", "resource_metadata_urls", "server_metadata_urls"]


def origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def resource_metadata_urls(server_url: str, hinted: str | None = None) -> list[str]:
    """The URLs to try for the PRM of ``server_url``, best first (no duplicates). Raises
    :class:`AuthError` (``insecure``) for a ``hinted`` URL that leaves https for plain http."""
    if hinted and downgrades(server_url, hinted):
        raise AuthError(
            f"refusing the protected resource metadata {hinted} (named by {server_url}'s "
            "challenge): plain http behind an https server",
            AuthErrorKind.INSECURE,
        )
    base, path = origin(server_url), urlsplit(server_url).path.rstrip("/")
    urls = [hinted] if hinted else []
    if path:
        urls.append(f"{base}/.well-known/oauth-protected-resource{path}")
    urls.append(f"{base}/.well-known/oauth-protected-resource")
    return list(dict.fromkeys(urls))


def server_metadata_urls(issuer: str) -> list[str]:
    """The URLs to try for the metadata of the authorization server ``issuer``, best first."""
    base, path = origin(issuer), urlsplit(issuer).path.rstrip("/")
    if path:
        return [
            f"{base}/.well-known/oauth-authorization-server{path}",
            f"{base}/.well-known/openid-configuration{path}",
            f"{base}{path}/.well-known/openid-configuration",
        ]
    return [
        f"{base}/.well-known/oauth-authorization-server",
        f"{base}/.well-known/openid-configuration",
    ]
