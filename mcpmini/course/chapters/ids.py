"""The id rules of both generations as models over a sender's history (exercise 9.2).

A history is a sequence of ``("send", id)`` / ``("reply", id)`` events in time order.
:func:`id_violations` judges it against one version's rule (never reuse an id in a
2025-11-25 session; from 2026-07-28 on, only never equal an outstanding request's id), and
:func:`outstanding_is_injective` checks the hypothesis of Proposition 3.3 (outstanding
requests have distinct ids, so replies map to requests uniquely). The runtime's own
bookkeeping is :class:`~mcpmini.mcp.PendingTable`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ...mcp import JsonId, is_modern

__all__ = ["IdEvent", "IdViolation", "id_violations", "outstanding_is_injective"]


@dataclass(frozen=True)
class IdEvent:
    """One step of a sender's history: it sent a request, or received the reply to one."""

    kind: Literal["send", "reply"]
    id: JsonId


@dataclass(frozen=True)
class IdViolation:
    """A send that breaks a generation's id rule. ``index`` is the event's position."""

    index: int
    id: JsonId
    rule: str


def _events(history: Iterable[IdEvent | tuple[str, JsonId]]) -> list[IdEvent]:
    out = []
    for item in history:
        event = item if isinstance(item, IdEvent) else IdEvent(item[0], item[1])  # type: ignore[arg-type]
        if event.kind not in ("send", "reply"):
            raise ValueError(f"unknown event kind {event.kind!r}; use 'send' or 'reply'")
        out.append(event)
    return out


def id_violations(
    history: Iterable[IdEvent | tuple[str, JsonId]], version: str
) -> list[IdViolation]:
    """Judge a sender's history of ids against the rule of ``version``'s generation.

    ``history`` is a sequence of ``("send", id)`` / ``("reply", id)`` events in time
    order. Under 2025-11-25 and earlier (handshake generation) an id must never have
    been used before in the session; from 2026-07-28 on it must only differ from the
    ids of requests still awaiting a reply. Returns the violating sends (empty when
    the history obeys the rule). Raises ``ValueError`` for a reply to an id that is not
    outstanding.
    """
    modern = is_modern(version)
    used: set[JsonId] = set()
    # A multiset: after a violating send, two requests with one id are really outstanding.
    outstanding: Counter[JsonId] = Counter()
    violations = []
    for index, event in enumerate(_events(history)):
        if event.kind == "reply":
            if not outstanding[event.id]:
                raise ValueError(f"event {index}: reply to id {event.id!r} that is not outstanding")
            outstanding[event.id] -= 1
            continue
        if outstanding[event.id]:
            violations.append(IdViolation(index, event.id, "equals an outstanding request's id"))
        elif not modern and event.id in used:
            violations.append(
                IdViolation(index, event.id, "reuses an id already used in the session")
            )
        used.add(event.id)
        outstanding[event.id] += 1
    return violations


def outstanding_is_injective(history: Iterable[IdEvent | tuple[str, JsonId]]) -> bool:
    """Whether, at every moment of ``history``, outstanding requests have distinct ids.

    This is the hypothesis of Proposition 3.3 (replies map to requests uniquely).
    Raises ``ValueError`` for a reply to an id that is not outstanding, as
    :func:`id_violations` does.
    """
    outstanding: Counter[JsonId] = Counter()
    for index, event in enumerate(_events(history)):
        if event.kind == "send":
            if outstanding[event.id]:
                return False
            outstanding[event.id] += 1
        elif not outstanding[event.id]:
            raise ValueError(f"event {index}: reply to id {event.id!r} that is not outstanding")
        else:
            outstanding[event.id] -= 1
    return True
