"""Protected resource metadata (RFC 9728) and authorization server metadata (RFC 8414,
OpenID Connect Discovery), read and checked, sans-I/O.

Rules of this module:

* a document is a JSON object whose fields have the types the RFCs give; anything else is an
  :class:`~.errors.AuthError` of kind ``metadata`` naming the URL and the field;
* the authorization server's ``issuer`` must equal the issuer the well-known URL was built
  from, by simple string comparison (RFC 8414 §3.3): no normalization at all;
* the resource a PRM names must be the server's own URL or a parent of it (same origin, path
  prefix at a segment boundary), RFC 9728 §3.3 and RFC 8707;
* no downgrade to plain http: an https issuer's authorization, token and registration
  endpoints, and the authorization servers an https resource names, must be https — an
  :class:`~.errors.AuthError` of kind ``insecure`` otherwise — except on a loopback host
  (``127.0.0.0/8``, ``::1``, ``localhost``), as RFC 8252 §8.3 allows for a native client.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .errors import AuthError, AuthErrorKind

__all__ = [
    "ResourceMetadata",
    "ServerMetadata",
    "canonical_resource",
    "downgrades",
    "parse_resource_metadata",
    "parse_server_metadata",
    "resource_allowed",
]


def _bad(url: str, what: str) -> AuthError:
    return AuthError(f"malformed metadata at {url}: {what}", AuthErrorKind.METADATA)


def _strings(doc: Mapping[str, Any], key: str, url: str) -> tuple[str, ...] | None:
    value = doc.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(url, f"{key!r} is not a list of strings")
    return tuple(value)


def _url(doc: Mapping[str, Any], key: str, url: str, required: bool = False) -> str | None:
    value = doc.get(key)
    if value is None:
        if required:
            raise _bad(url, f"{key!r} is missing")
        return None
    parts = urlsplit(value) if isinstance(value, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise _bad(url, f"{key!r} is not an http(s) URL")
    return str(value)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def downgrades(secure: str, target: str) -> bool:
    """Whether going from ``secure`` to ``target`` leaves https for plain http on a host that
    is not loopback (RFC 8252 §8.3 lets a native client use http on a loopback host)."""
    outer, inner = urlsplit(secure), urlsplit(target)
    if outer.scheme.lower() != "https" or inner.scheme.lower() != "http":
        return False
    return not _loopback((inner.hostname or "").lower())


def _insecure(url: str, what: str, target: str, behind: str) -> AuthError:
    return AuthError(
        f"refusing {what} {target} (named at {url}): plain http behind the https {behind}",
        AuthErrorKind.INSECURE,
    )


def canonical_resource(url: str) -> str:
    """The RFC 8707 resource identifier of a server URL: lower-case scheme and host, no
    fragment (the path and query are kept as they are)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))


def resource_allowed(server_url: str, resource: str) -> bool:
    """Whether ``resource`` (from a PRM) covers ``server_url``: the same origin and a path that
    is the server's path or a parent of it at a ``/`` boundary."""
    a, b = urlsplit(canonical_resource(server_url)), urlsplit(canonical_resource(resource))
    if (a.scheme, a.netloc) != (b.scheme, b.netloc):
        return False
    mine, theirs = a.path.rstrip("/") + "/", b.path.rstrip("/") + "/"
    return mine.startswith(theirs)


@dataclass(frozen=True)
class ResourceMetadata:
    """What a protected resource metadata document says (the fields the client uses)."""

    resource: str
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...] | None = None
    url: str = ""


def parse_resource_metadata(doc: Any, url: str, server_url: str) -> ResourceMetadata:
    """Check a PRM document fetched from ``url`` for the MCP server at ``server_url``.

    Raises :class:`AuthError`: kind ``metadata`` for a malformed document, kind ``resource``
    when its ``resource`` does not cover ``server_url``.
    """
    if not isinstance(doc, dict):
        raise _bad(url, "not a JSON object")
    resource = _url(doc, "resource", url, required=True)
    assert resource is not None
    servers = _strings(doc, "authorization_servers", url)
    if not servers:
        raise _bad(url, "'authorization_servers' is missing or empty")
    for server in servers:
        _url({"authorization_servers": server}, "authorization_servers", url)
    if not resource_allowed(server_url, resource):
        raise AuthError(
            f"the protected resource metadata at {url} is for {resource}, not {server_url}",
            AuthErrorKind.RESOURCE,
        )
    for server in servers:
        if downgrades(resource, server):
            raise _insecure(url, "the authorization server", server, f"resource {resource}")
    return ResourceMetadata(resource, servers, _strings(doc, "scopes_supported", url), url)


@dataclass(frozen=True)
class ServerMetadata:
    """What an authorization server metadata document says (the fields the client uses).

    ``legacy`` marks endpoints guessed at the server's root (2025-03-26 fallback), not read.
    """

    issuer: str
    authorization_endpoint: str | None
    token_endpoint: str
    registration_endpoint: str | None = None
    scopes_supported: tuple[str, ...] | None = None
    grant_types_supported: tuple[str, ...] | None = None
    token_endpoint_auth_methods_supported: tuple[str, ...] | None = None
    code_challenge_methods_supported: tuple[str, ...] | None = None
    iss_parameter_supported: bool = False
    client_id_metadata_document_supported: bool = False
    dpop_signing_alg_values_supported: tuple[str, ...] | None = None
    url: str = ""
    legacy: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def fallback(origin: str) -> ServerMetadata:
        """The 2025-03-26 default endpoints at ``origin`` (no metadata document)."""
        return ServerMetadata(
            issuer=origin,
            authorization_endpoint=origin + "/authorize",
            token_endpoint=origin + "/token",
            registration_endpoint=origin + "/register",
            legacy=True,
        )


def _flag(doc: Mapping[str, Any], key: str, url: str) -> bool:
    value = doc.get(key, False)
    if not isinstance(value, bool):
        raise _bad(url, f"{key!r} is not a boolean")
    return value


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def parse_server_metadata(
    doc: Any, url: str, expected_issuer: str, same_origin: bool = False
) -> ServerMetadata:
    """Check an authorization server metadata document fetched from ``url``.

    ``same_origin`` is the 2025-03-26 case (no PRM: the issuer was never announced, only
    guessed from the MCP server's origin): the document's issuer must then be on that origin.

    Raises :class:`AuthError`: kind ``metadata`` for a malformed document, kind ``issuer``
    when its ``issuer`` is not exactly ``expected_issuer`` (RFC 8414 §3.3).
    """
    if not isinstance(doc, dict):
        raise _bad(url, "not a JSON object")
    issuer = doc.get("issuer")
    if not isinstance(issuer, str) or not issuer:
        raise _bad(url, "'issuer' is missing")
    if same_origin and _origin(issuer) == _origin(expected_issuer):
        pass
    elif issuer != expected_issuer:
        raise AuthError(
            f"the authorization server metadata at {url} names the issuer {issuer!r}, "
            f"not {expected_issuer!r}",
            AuthErrorKind.ISSUER,
        )
    token = _url(doc, "token_endpoint", url, required=True)
    assert token is not None
    for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint"):
        endpoint = _url(doc, key, url)
        if endpoint is not None and downgrades(issuer, endpoint):
            raise _insecure(url, key, endpoint, f"issuer {issuer}")
    return ServerMetadata(
        issuer=issuer,
        authorization_endpoint=_url(doc, "authorization_endpoint", url),
        token_endpoint=token,
        registration_endpoint=_url(doc, "registration_endpoint", url),
        scopes_supported=_strings(doc, "scopes_supported", url),
        grant_types_supported=_strings(doc, "grant_types_supported", url),
        token_endpoint_auth_methods_supported=_strings(
            doc, "token_endpoint_auth_methods_supported", url
        ),
        code_challenge_methods_supported=_strings(doc, "code_challenge_methods_supported", url),
        iss_parameter_supported=_flag(doc, "authorization_response_iss_parameter_supported", url),
        client_id_metadata_document_supported=_flag(
            doc, "client_id_metadata_document_supported", url
        ),
        dpop_signing_alg_values_supported=_strings(doc, "dpop_signing_alg_values_supported", url),
        url=url,
        extra=dict(doc),
    )
