"""The record of a run: its messages, their pairing invariant, and how a reply is repaired.

The agent loop (:mod:`mcpmini.agent.loop`) writes a transcript in the Messages API shape: user
and assistant messages whose content is a list of blocks. This module holds what can be
said about such a transcript without running anything: :func:`pairing_violations`
checks that every ``tool_use`` is answered by exactly one ``tool_result`` with its id in
the next message; :func:`repair_reply` turns an untrusted model reply into valid blocks,
giving a fresh id to a call whose id is missing or reused and reporting the calls that
cannot run; and the values a run returns (:class:`RunResult`, :class:`LoopEvent`,
:class:`RequestRecord`, :class:`Step`, :class:`StopReason`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import McpminiError
from .cost import cache_hits

__all__ = [
    "LoopEvent",
    "PairingError",
    "PairingViolation",
    "Repaired",
    "RequestRecord",
    "RunResult",
    "Step",
    "StopReason",
    "pairing_violations",
    "repair_reply",
]


class StopReason(enum.Enum):
    """Why a run ended."""

    END_TURN = "end_turn"  # the model asked for no tool and Stop hooks agreed
    MAX_TURNS = "max_turns"  # the model still wanted tools after T turns
    PROMPT_BLOCKED = "prompt_blocked"  # a UserPromptSubmit hook blocked the prompt


class Step(enum.Enum):
    """The places of the loop where something happens (for chapter 01's map)."""

    USER_PROMPT_SUBMIT = "UserPromptSubmit hooks"
    MODEL_CALL = "model call"
    MALFORMED = "malformed reply repaired"
    DEFINITION_LOADED = "tool definition appended"
    PRE_TOOL_USE = "PreToolUse hooks"
    PERMISSION = "permission gate"
    TOOL_RUN = "tool run"
    POST_TOOL_USE = "PostToolUse hooks"  # or PostToolUseFailure after a failed run
    TRUNCATED = "result truncated"
    PAIRING_CHECK = "pairing check"
    STOP = "Stop hooks"


@dataclass(frozen=True)
class LoopEvent:
    """One step of a run: where (``step``), in which turn, for which tool, and what happened."""

    step: Step
    turn: int
    tool: str | None
    detail: str


@dataclass(frozen=True)
class RequestRecord:
    """The size of one model request by layer, plus its segments for the cache simulation."""

    index: int
    system_tokens: int
    tools_tokens: int
    messages_tokens: int
    segments: tuple[str, ...] = field(repr=False)

    @property
    def total_tokens(self) -> int:
        """All three layers together."""
        return self.system_tokens + self.tools_tokens + self.messages_tokens


@dataclass
class RunResult:
    """Everything a run produced: transcript, events, per-request sizes and why it stopped."""

    messages: list[dict[str, Any]]
    events: list[LoopEvent]
    requests: list[RequestRecord]
    stop_reason: StopReason
    model_calls: int
    turns: int
    full_results: dict[str, str]

    @property
    def final_text(self) -> str:
        """The text of the last assistant message ("" if none)."""
        for m in reversed(self.messages):
            if m["role"] == "assistant":
                return "".join(b.get("text", "") for b in m["content"] if b.get("type") == "text")
        return ""

    def cache_report(self) -> list[list[bool]]:
        """:func:`mcpmini.agent.cache_hits` over this run's requests (tools, system, messages)."""
        return cache_hits([r.segments for r in self.requests])


class PairingViolation(enum.Enum):
    """Ways the tool_use ↔ tool_result pairing can break."""

    MISSING_RESULT = "tool_use without a tool_result in the next message"
    DUPLICATE_RESULT = "more than one tool_result for one tool_use"
    ORPHAN_RESULT = "tool_result whose id matches no tool_use of the previous message"
    DUPLICATE_ID = "two tool_use blocks share an id"


class PairingError(McpminiError):
    """The loop broke its own pairing invariant (a bug); ``violations`` lists how."""

    def __init__(self, violations: list[tuple[PairingViolation, str]]) -> None:
        super().__init__(
            "pairing invariant broken: " + ", ".join(f"{v.name} {i}" for v, i in violations)
        )
        self.violations = violations


def _blocks(message: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind]


def pairing_violations(
    messages: Sequence[Mapping[str, Any]], complete: bool = True
) -> list[tuple[PairingViolation, str]]:
    """Check the pairing invariant over a transcript; return ``(violation, id)`` pairs.

    Each assistant ``tool_use`` must be answered by exactly one ``tool_result`` with
    the same id in the message right after it, and every ``tool_result`` must answer
    a ``tool_use`` of the message right before. With ``complete=False`` a trailing
    assistant message may still wait for its results. Returns ``[]`` when it holds.
    """
    found: list[tuple[PairingViolation, str]] = []
    seen_ids: set[str] = set()
    for i, msg in enumerate(messages):
        prev_ids = [str(b.get("id")) for b in _blocks(messages[i - 1], "tool_use")] if i else []
        if msg.get("role") == "user":
            answered = [str(b.get("tool_use_id")) for b in _blocks(msg, "tool_result")]
            found += [(PairingViolation.ORPHAN_RESULT, a) for a in answered if a not in prev_ids]
            found += [
                (PairingViolation.DUPLICATE_RESULT, u) for u in prev_ids if answered.count(u) > 1
            ]
            found += [(PairingViolation.MISSING_RESULT, u) for u in prev_ids if u not in answered]
        elif i and messages[i - 1].get("role") == "assistant":
            found += [(PairingViolation.MISSING_RESULT, u) for u in prev_ids]
        if msg.get("role") == "assistant":
            ids = [str(b.get("id")) for b in _blocks(msg, "tool_use")]
            found += [
                (PairingViolation.DUPLICATE_ID, u)
                for u in sorted(set(ids))
                if ids.count(u) > 1 or u in seen_ids
            ]
            seen_ids.update(ids)
    if complete and messages and messages[-1].get("role") == "assistant":
        found += [
            (PairingViolation.MISSING_RESULT, str(b.get("id")))
            for b in _blocks(messages[-1], "tool_use")
        ]
    return found


@dataclass(frozen=True)
class Repaired:
    """A reply made safe: valid ``blocks``, the calls that must not run (id → problem)
    and every repair made, as ``(tool name or None, note)`` pairs."""

    blocks: list[dict[str, Any]]
    bad: dict[str, str]
    notes: list[tuple[str | None, str]]


def repair_reply(reply: Any, used_ids: set[str], fresh_id: Callable[[], str]) -> Repaired:
    """Turn an untrusted model reply into text and tool_use blocks; never raises.

    A ``str`` becomes one text block, anything else that is not a list becomes an empty
    text block, unknown blocks are dropped. A ``tool_use`` whose id is missing or already
    in ``used_ids`` gets ``fresh_id()`` (and may still run); one whose name is not a
    non-empty string or whose input is not an object is kept (so it can be answered) but
    listed in :attr:`Repaired.bad`. ``used_ids`` is updated with every id given out.
    """
    if isinstance(reply, str):
        reply = [{"type": "text", "text": reply}]
    if not isinstance(reply, list):
        return Repaired(
            [{"type": "text", "text": ""}],
            {},
            [(None, f"reply is a {type(reply).__name__}, not a list")],
        )
    blocks: list[dict[str, Any]] = []
    bad: dict[str, str] = {}
    notes: list[tuple[str | None, str]] = []
    for raw in reply:
        kind = raw.get("type") if isinstance(raw, dict) else None
        if kind == "text" and isinstance(raw.get("text"), str):
            blocks.append({"type": "text", "text": raw["text"]})
            continue
        if kind != "tool_use":
            notes.append((None, f"dropped a block of type {kind!r}"))
            continue
        problems = []
        tid = raw.get("id")
        if not isinstance(tid, str) or not tid or tid in used_ids:
            problems.append(f"id {tid!r} missing or reused")
            tid = fresh_id()
        name, tool_input = raw.get("name"), raw.get("input", {})
        if not isinstance(name, str) or not name:
            problems.append("name is not a non-empty string")
        if not isinstance(tool_input, dict):
            problems.append("input is not an object")
        used_ids.add(tid)
        shown = name if isinstance(name, str) else str(name)
        blocks.append(
            {
                "type": "tool_use",
                "id": tid,
                "name": shown,
                "input": tool_input if isinstance(tool_input, dict) else {},
            }
        )
        if problems:
            notes.append((shown, "; ".join(problems)))
        if not (isinstance(name, str) and name and isinstance(tool_input, dict)):
            bad[tid] = "; ".join(problems)  # a repaired id alone does not stop the call
    return Repaired(blocks, bad, notes)
