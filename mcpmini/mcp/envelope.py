"""Every reserved name under ``io.modelcontextprotocol/`` in one table, and the functions that
write and read the 2026-07-28 ``_meta`` envelope.

On the stateless generation each request carries its context in ``params._meta``: the
protocol version, the client's capabilities and info (and, optionally, the log level it wants);
each result carries the server's info; a ``subscriptions/listen`` notification names its
subscription. The tasks extension is declared under the same prefix in
``capabilities.extensions``.

Rules of this module:

* Every reserved key is one :class:`MetaKey` member; no other module of :mod:`mcpmini.mcp`
  spells one or builds one from :data:`~.versions.META_PREFIX` (``tests/test_methods.py``
  reads them all with ``ast``).
* The client writes the envelope with :func:`envelope` only; the server and the HTTP layer
  read it with :func:`meta_of` / :func:`version_of` only.
* Our keys win over what a caller put in ``_meta`` (a progress token stays beside them).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from .versions import META_PREFIX

__all__ = [
    "TASKS_EXTENSION",
    "MetaKey",
    "envelope",
    "is_enveloped",
    "meta_of",
    "server_meta",
    "version_of",
]


class MetaKey(StrEnum):
    """A reserved ``_meta`` key (its value is the wire name)."""

    PROTOCOL_VERSION = META_PREFIX + "protocolVersion"
    CLIENT_CAPABILITIES = META_PREFIX + "clientCapabilities"
    CLIENT_INFO = META_PREFIX + "clientInfo"
    LOG_LEVEL = META_PREFIX + "logLevel"
    SERVER_INFO = META_PREFIX + "serverInfo"
    SUBSCRIPTION_ID = META_PREFIX + "subscriptionId"


#: The tasks extension's identifier (SEP-2663), in ``capabilities.extensions`` of both sides.
TASKS_EXTENSION = META_PREFIX + "tasks"


def meta_of(params: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The ``_meta`` object of ``params`` (empty when there is none or it is not an object)."""
    meta = (params or {}).get("_meta")
    return meta if isinstance(meta, Mapping) else {}


def version_of(params: Mapping[str, Any] | None) -> str | None:
    """The protocol version a request names in its envelope, or ``None``."""
    version = meta_of(params).get(MetaKey.PROTOCOL_VERSION)
    return version if isinstance(version, str) else None


def is_enveloped(params: Mapping[str, Any] | None) -> bool:
    """Whether ``params`` carry the 2026-07-28 envelope (a protocol version in ``_meta``)."""
    return MetaKey.PROTOCOL_VERSION in meta_of(params)


def envelope(
    params: Mapping[str, Any] | None,
    version: str,
    capabilities: Mapping[str, Any],
    client_info: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``params`` with the envelope of ``version`` in ``_meta`` (what was there is kept,
    our keys win); ``client_info`` is optional on the wire."""
    out = dict(params or {})
    meta: dict[str, Any] = {
        **meta_of(out),
        MetaKey.PROTOCOL_VERSION.value: version,
        MetaKey.CLIENT_CAPABILITIES.value: capabilities,
    }
    if client_info is not None:
        meta[MetaKey.CLIENT_INFO.value] = client_info
    out["_meta"] = meta
    return out


def server_meta(server_info: Mapping[str, Any]) -> dict[str, Any]:
    """The ``_meta`` of a 2026-07-28 result: the server's info."""
    return {MetaKey.SERVER_INFO.value: dict(server_info)}
