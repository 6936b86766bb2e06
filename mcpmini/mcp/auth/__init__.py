"""The OAuth 2.1 client of MCP over HTTP (MCP "Authorization", 2025-11-25 and 2026-07-28).

Sans-I/O decisions: ``WWW-Authenticate`` challenges (:mod:`.challenge`), where metadata is
looked for (:mod:`.discovery`), what it says and whether it may be used (:mod:`.metadata`),
which scopes to ask for (:mod:`.scopes`), who the client is (:mod:`.registration`), PKCE
(:mod:`.pkce`), token requests and answers (:mod:`.tokens`), DPoP proofs (:mod:`.dpop`).
At the edge: the ``httpx.Auth`` that runs them (:mod:`.flow`), the user agent that opens the
authorization URL (:mod:`.agent`) and the token store (:mod:`.store`).
"""

from __future__ import annotations

from .agent import HeadlessAgent, LoopbackAgent, UserAgent
from .challenge import Challenge, parse_challenges
from .discovery import resource_metadata_urls, server_metadata_urls
from .dpop import DpopKey
from .errors import AuthError, AuthErrorKind
from .flow import OAuth, oauth_for
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
from .tokens import Token, client_assertion, parse_token, token_request

__all__ = [
    "AuthError",
    "AuthErrorKind",
    "Challenge",
    "ClientInfo",
    "DpopKey",
    "FileStore",
    "Grant",
    "HeadlessAgent",
    "LoopbackAgent",
    "MemoryStore",
    "OAuth",
    "OAuthOptions",
    "Pkce",
    "Record",
    "ResourceMetadata",
    "ServerMetadata",
    "Token",
    "TokenStore",
    "UserAgent",
    "canonical_resource",
    "choose_method",
    "client_assertion",
    "oauth_for",
    "parse_challenges",
    "parse_registration",
    "parse_resource_metadata",
    "parse_server_metadata",
    "parse_token",
    "registration_body",
    "resource_allowed",
    "resource_metadata_urls",
    "select_scopes",
    "server_metadata_urls",
    "token_request",
    "tokens_dir",
    "union",
]
