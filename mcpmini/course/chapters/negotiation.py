"""Executable models of the two ways of agreeing on a version (Proposition 3.4).

* 2025-11-25 and earlier: an ``initialize`` **handshake**. The client offers one version,
  the server answers with that version or with one other version of its own, and the client
  disconnects when it cannot speak the answer (:func:`negotiate_handshake`).
* 2026-07-28 and later: **per-request** versions in ``params._meta``. A server that lacks the
  version answers ``-32022`` listing every version it supports, so the client can retry with
  one from the intersection (:func:`negotiate_per_request`).

Both return a :class:`Negotiation` that records the agreed version (or ``None``), how many
requests the client sent, and the messages exchanged, in wire form, so the notebooks can
show them. :func:`set_pairs` enumerates every pair of non-empty version sets over a small
universe for the exhaustive checks. ``tests/test_negotiation.py`` runs the models against the
real :class:`~mcpmini.mcp.Client` and :class:`~mcpmini.mcp.Server` and asserts they agree.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ...mcp import META_PREFIX

__all__ = [
    "Negotiation",
    "is_interval",
    "negotiate_handshake",
    "negotiate_per_request",
    "non_empty_subsets",
    "set_pairs",
]


@dataclass(frozen=True)
class Negotiation:
    """The outcome of one negotiation model run.

    ``agreed`` is the version both sides will use, or ``None`` when the negotiation
    fails; ``requests`` counts the requests the client sent; ``messages`` lists the
    exchanged messages in order as ``(sender, message_dict)`` pairs.
    """

    method: str
    client: tuple[str, ...]
    server: tuple[str, ...]
    agreed: str | None
    requests: int
    messages: tuple[tuple[str, dict[str, Any]], ...] = field(default=(), repr=False)

    @property
    def ok(self) -> bool:
        """True when a version was agreed."""
        return self.agreed is not None


def _sorted(versions: Iterable[str], name: str) -> tuple[str, ...]:
    out = tuple(sorted(set(versions)))
    if not out:
        raise ValueError(f"the {name}'s version set must not be empty")
    return out


def negotiate_handshake(
    client: Collection[str],
    server: Collection[str],
    offer: str | None = None,
    fallback: str | None = None,
) -> Negotiation:
    """Model of the 2025-11-25 lifecycle rule (Proposition 3.4, parts 1–3).

    The client offers ``offer`` (default: its newest version). The server answers
    with the offer when it supports it, otherwise with ``fallback`` (default: its own
    newest version). The client accepts the answer only if it is in its own set;
    otherwise it disconnects. Returns the :class:`Negotiation`; raises ``ValueError``
    for an empty set or an offer/fallback outside its side's set.
    """
    c, s = _sorted(client, "client"), _sorted(server, "server")
    offer = c[-1] if offer is None else offer
    fallback = s[-1] if fallback is None else fallback
    if offer not in c:
        raise ValueError(f"offer {offer!r} is not in the client's set {list(c)}")
    if fallback not in s:
        raise ValueError(f"fallback {fallback!r} is not in the server's set {list(s)}")
    answer = offer if offer in s else fallback
    messages: list[tuple[str, dict[str, Any]]] = [
        (
            "client",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": offer,
                    "capabilities": {},
                    "clientInfo": {"name": "client", "version": "1"},
                },
            },
        ),
        (
            "server",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "protocolVersion": answer,
                    "capabilities": {},
                    "serverInfo": {"name": "server", "version": "1"},
                },
            },
        ),
    ]
    if answer in c:
        messages.append(("client", {"jsonrpc": "2.0", "method": "notifications/initialized"}))
        agreed: str | None = answer
    else:
        # "reason" and "version" let a report say it in the learner's language
        messages.append(
            (
                "client",
                {
                    "disconnect": f"{answer} is not supported by the client",
                    "reason": "unsupported",
                    "version": answer,
                },
            )
        )
        agreed = None
    return Negotiation("handshake", c, s, agreed, 1, tuple(messages))


def negotiate_per_request(
    client: Collection[str],
    server: Collection[str],
    first: str | None = None,
    choose: Callable[[Sequence[str]], str] = max,
) -> Negotiation:
    """Model of the 2026-07-28 per-request rule (Proposition 3.4, part 4).

    The client sends a request carrying ``first`` (default: its newest version). If
    the server lacks it, the server replies ``-32022`` with its whole set; the client
    retries once with ``choose(C ∩ S)`` when the intersection is non-empty. Returns the
    :class:`Negotiation` (at most two requests). Raises ``ValueError`` for an empty
    set or a ``first`` outside the client's set.
    """
    c, s = _sorted(client, "client"), _sorted(server, "server")
    first = c[-1] if first is None else first
    if first not in c:
        raise ValueError(f"first {first!r} is not in the client's set {list(c)}")

    def request(rid: int, version: str) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/list",
            "params": {
                "_meta": {
                    META_PREFIX + "protocolVersion": version,
                    META_PREFIX + "clientCapabilities": {},
                }
            },
        }

    def success(rid: int) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"},
        }

    messages: list[tuple[str, dict[str, Any]]] = [("client", request(1, first))]
    if first in s:
        messages.append(("server", success(1)))
        return Negotiation("per-request", c, s, first, 1, tuple(messages))
    messages.append(
        (
            "server",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "error": {
                    "code": -32022,
                    "message": "Unsupported protocol version",
                    "data": {"supported": list(s), "requested": first},
                },
            },
        )
    )
    common = sorted(set(c) & set(s))
    if not common:
        messages.append(("client", {"disconnect": "no version in common", "reason": "no_common"}))
        return Negotiation("per-request", c, s, None, 1, tuple(messages))
    retry = choose(common)
    messages.append(("client", request(2, retry)))
    messages.append(("server", success(2)))
    return Negotiation("per-request", c, s, retry, 2, tuple(messages))


def non_empty_subsets(universe: Sequence[str]) -> Iterator[tuple[str, ...]]:
    """Every non-empty subset of ``universe``, as sorted tuples, smallest first."""
    items = sorted(set(universe))
    for size in range(1, len(items) + 1):
        yield from combinations(items, size)


def set_pairs(universe: Sequence[str]) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every pair ``(C, S)`` of non-empty subsets of ``universe``: (2^n − 1)² pairs."""
    subsets = list(non_empty_subsets(universe))
    for c in subsets:
        for s in subsets:
            yield c, s


def is_interval(versions: Collection[str], universe: Sequence[str]) -> bool:
    """Whether ``versions`` contains every version of ``universe`` between its min and max.

    Raises ``ValueError`` when a version is not in the universe or the set is empty.
    """
    ordered = sorted(set(universe))
    picked = set(versions)
    if not picked:
        raise ValueError("an empty set is not an interval")
    missing = picked - set(ordered)
    if missing:
        raise ValueError(f"versions {sorted(missing)} are not in the universe")
    lo, hi = ordered.index(min(picked)), ordered.index(max(picked))
    return set(ordered[lo : hi + 1]) == picked
