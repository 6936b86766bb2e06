"""Protocol versions and their two generations.

MCP versions are date strings ``YYYY-MM-DD``; their order is the order of the dates,
which for this format is plain string order. Two generations matter:

* ``2025-11-25`` and earlier: an ``initialize`` **handshake**. The client offers one
  version, the server answers with that version or with one other version of its own,
  and the client disconnects when it cannot speak the answer.
* ``2026-07-28`` and later: **per-request** versions in ``params._meta``. A server that
  lacks the version answers ``-32022`` listing every version it supports, so the client
  can retry with one from the intersection.

The course's executable models of both rules (Proposition 3.4) live in
``mcpmini.course.chapters.negotiation``.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "GENERATIONS",
    "KNOWN_VERSIONS",
    "LEGACY",
    "META_PREFIX",
    "MODERN",
    "Generation",
    "is_modern",
]

#: The last version of the handshake generation.
LEGACY = "2025-11-25"
#: The current version, the first of the stateless per-request generation.
MODERN = "2026-07-28"
GENERATIONS = (LEGACY, MODERN)
#: Dated versions that have been published, oldest first (a universe for the course).
KNOWN_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", LEGACY, MODERN)
#: Prefix of the reserved ``_meta`` keys of 2026-07-28.
META_PREFIX = "io.modelcontextprotocol/"


class Generation(StrEnum):
    """The two protocol generations; the value is what JSON output and ``print`` show."""

    LEGACY = "legacy"  # the ``initialize`` handshake, 2025-11-25 and earlier
    MODERN = "modern"  # per-request versions in ``_meta``, 2026-07-28 and later


def is_modern(version: str) -> bool:
    """Whether ``version`` belongs to the per-request generation (2026-07-28 or later)."""
    return version >= MODERN
