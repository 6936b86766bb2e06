"""The id rules of both generations as models over a sender's history (exercise 9.2).

A history is a sequence of ``("send", id)`` / ``("reply", id)`` events in time order.
:func:`id_violations` judges it against one version's rule (never reuse an id in a
2025-11-25 session; from 2026-07-28 on, only never equal an outstanding request's id), and
:func:`outstanding_is_injective` checks the hypothesis of Proposition 3.3 (outstanding
requests have distinct ids, so replies map to requests uniquely). The runtime's own
bookkeeping is :class:`~mcpmini.mcp.PendingTable`.

Notebook 02 shows them on data kept here: :data:`MALFORMED_LINES` (lines MCP refuses, each
with its label), :data:`ID_HISTORIES` (three histories judged by both rules, see
:func:`id_rule_table`), and every line it prints is a row of :data:`WORDS` in the learner's
language.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from ...mcp import LEGACY, MODERN, JsonId, is_modern
from ..language import Text

__all__ = [
    "ID_HISTORIES",
    "MALFORMED_LINES",
    "WORDS",
    "IdEvent",
    "IdRule",
    "IdViolation",
    "id_rule_table",
    "id_violations",
    "outstanding_is_injective",
]

#: Every line notebook 02 prints, one row each (``{name}`` fields are formatted in).
WORDS: dict[str, Text] = {
    "violation": Text("違反", "violation"),
    "obeys": Text("守る", "ok"),
    "injective": Text("単射", "injective"),
    "history": Text("履歴", "history"),
    "checked": Text(
        "{n} 通りの履歴を確かめました。{weaker} 通りは 2026-07-28 を守り、2025-11-25 には反します",
        "{n} histories checked; {weaker} obey 2026-07-28 but not 2025-11-25",
    ),
    "sent_order": Text("送った順の id: {ids}", "ids in the order sent: {ids}"),
    "arrival_order": Text("届いた順の id: {ids}", "ids in the order of arrival: {ids}"),
    "matched": Text(
        "  応答 id={id} → 要求 add({a}, {b}) = {text}",
        "  reply id={id} → request add({a}, {b}) = {text}",
    ),
    "pending": Text("未応答の要求: {n}", "requests awaiting a reply: {n}"),
    "mismatches": Text("取り違えた応答: {n}", "mismatched replies: {n}"),
    "shuffled": Text(
        "届いた順が送った順と違った回: {n} / {runs}",
        "runs whose arrival order differed from the send order: {n} of {runs}",
    ),
    "maps": Text("応答 → 要求 の対応の種類: {n}", "distinct reply → request maps: {n}"),
    "refused": Text("拒否: コード {code}、id {id}", "refused: code {code}, id {id}"),
    "outstanding": Text("未応答の id: {ids}", "outstanding ids: {ids}"),
    "naive": Text(
        "応答 id={id} 本文={text:>3}  候補={candidates}  素朴な表の答え {guess}",
        "reply id={id} text={text:>3}  candidates={candidates}  naive table says {guess}",
    ),
    "server_reply": Text("サーバの返事: {reply}", "server reply: {reply}"),
    "pending_notify": Text(
        "通知の前後の未応答の要求: {before} → {after}",
        "pending requests before → after the notification: {before} → {after}",
    ),
    "notification_id": Text(
        "Notification に id の欄があるか: {has}", "a Notification has an id field: {has}"
    ),
}


class IdRule(StrEnum):
    """Which id rule a send breaks."""

    OUTSTANDING = "equals an outstanding request's id"  # both generations forbid it
    REUSED = "reuses an id already used in the session"  # the handshake generation only

    @property
    def text(self) -> Text:
        """The rule in the learner's language."""
        return _RULE_TEXT[self]


_RULE_TEXT = {
    IdRule.OUTSTANDING: Text("応答を待っている要求と同じ id", IdRule.OUTSTANDING.value),
    IdRule.REUSED: Text("このセッションで一度使った id の使い直し", IdRule.REUSED.value),
}


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
    rule: IdRule

    def __str__(self) -> str:
        return str(_EVENT.format(index=self.index, id=repr(self.id), rule=self.rule.text))


_EVENT = Text("出来事 {index}（id {id}）: {rule}", "event {index} (id {id}): {rule}")


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
            violations.append(IdViolation(index, event.id, IdRule.OUTSTANDING))
        elif not modern and event.id in used:
            violations.append(IdViolation(index, event.id, IdRule.REUSED))
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


# --- notebook 02: the data its cells show ---------------------------------------------------

#: Lines ``parse_line`` refuses, each with what is wrong with it; two of them (a batch, and
#: ``params`` as an array) are valid JSON-RPC 2.0 that MCP forbids.
MALFORMED_LINES: tuple[tuple[Text, bytes], ...] = (
    (Text("JSON ではない", "not JSON"), b'{"jsonrpc":"2.0","id":1,"method":'),
    (Text("UTF-8 ではない", "not UTF-8"), b"\xff\xfe"),
    (
        Text("一括（配列）", "a batch (an array)"),
        b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]',
    ),
    (Text("`jsonrpc` が無い", "no `jsonrpc`"), b'{"id":1,"method":"tools/list"}'),
    (
        Text("id が `null`", "the id is `null`"),
        b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
    ),
    (
        Text("id が真偽値", "the id is a boolean"),
        b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}',
    ),
    (
        Text("id が小数", "the id is a fraction"),
        b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
    ),
    (
        Text("`params` が配列", "`params` is an array"),
        b'{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1,2]}',
    ),
    (
        Text("`result` と `error` の両方", "both `result` and `error`"),
        b'{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":"x"}}',
    ),
)

#: Three histories of a sender, by key: their label and the events.
ID_HISTORIES: dict[str, tuple[Text, tuple[tuple[str, JsonId], ...]]] = {
    "fresh": (
        Text("毎回新しい id", "a new id every time"),
        (("send", 1), ("send", 2), ("reply", 2), ("reply", 1), ("send", 3)),
    ),
    "reused": (
        Text("応答済みの id を再び使う", "an answered id used again"),
        (("send", 4), ("send", 5), ("reply", 5), ("send", 5), ("reply", 4)),
    ),
    "outstanding": (
        Text("未応答の id と同じ id", "the same id as an outstanding one"),
        (("send", "a"), ("send", "a")),
    ),
}


def id_rule_table(
    histories: Mapping[str, tuple[Text, Sequence[tuple[str, JsonId]]]] = ID_HISTORIES,
) -> Any:
    """Each history judged by both generations' rules and by the hypothesis of
    Proposition 3.3, as a ``pandas.DataFrame`` (one row per history, labels in the learner's
    language)."""
    import pandas as pd

    def verdict(history: Sequence[tuple[str, JsonId]], version: str) -> str:
        return str(WORDS["violation"] if id_violations(history, version) else WORDS["obeys"])

    rows = [
        {
            LEGACY: verdict(history, LEGACY),
            MODERN: verdict(history, MODERN),
            str(WORDS["injective"]): outstanding_is_injective(history),
            str(WORDS["history"]): str(label),
        }
        for label, history in histories.values()
    ]
    return pd.DataFrame(rows)
