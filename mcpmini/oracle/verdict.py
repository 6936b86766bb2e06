"""Read Claude Code's verdict on each scripted call from what it sent back to the model.

Rules of this module (sans-I/O: request bodies, the result object and the prompt log in,
:class:`Observed` values out):

- A call was **asked** when the oracle's permission-prompt tool was called for it (its log
  names the ``tool_use_id``; older binaries without the id are matched by tool and input),
  or, in a run without the prompt tool, when its ``tool_result`` is Claude Code's headless
  refusal of a prompt ("Claude requested permissions to use …").
- Otherwise it was **denied** when Claude Code lists it in ``permission_denials`` or its
  ``tool_result`` says the tool does not exist (a bare deny rule removes the tool); what denied
  it is read from the result text through :data:`CAUSES`, the one table of those texts.
- Otherwise it **ran** (``allow``), also when the tool itself then failed (``is_error``).
- A call whose ``tool_result`` never came back (the session stopped first) is ``unreached``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .case import Call

__all__ = ["CAUSES", "Cause", "Observed", "Verdict", "observe", "result_text"]


class Verdict(StrEnum):
    """What Claude Code did with a call."""

    ALLOW = "allow"  # it ran
    ASK = "ask"  # Claude Code asked (the prompt tool was called)
    DENY = "deny"  # refused without asking
    UNREACHED = "unreached"  # no tool_result came back


class Cause(StrEnum):
    """What made the verdict, as far as Claude Code's own texts tell."""

    NONE = "none"  # it ran
    PROMPT = "prompt"  # the permission prompt (an ask rule, a hook ask, or the mode)
    RULE = "rule"  # a deny rule
    HOOK = "hook"  # a PreToolUse hook
    MODE = "mode"  # the permission mode (dontAsk, plan)
    CLASSIFIER = "classifier"  # the auto-mode safety check, which cannot run offline
    REMOVED = "removed"  # the tool was not in the tool list
    OTHER = "other"  # listed as a denial, the text matches no known form


#: ``(text Claude Code puts in the tool_result, cause)``, first match wins (lower-cased).
CAUSES: tuple[tuple[str, Cause], ...] = (
    ("no such tool available", Cause.REMOVED),
    # a headless run without --permission-prompt-tool refuses what it would ask about
    ("requested permissions to", Cause.PROMPT),
    ("haven't granted it yet", Cause.PROMPT),
    ("needs approval", Cause.PROMPT),
    ("asked for confirmation", Cause.PROMPT),  # a hook's ask, refused headlessly
    ("while in plan mode", Cause.PROMPT),  # plan's ask of an edit, refused headlessly
    ("this command requires approval", Cause.PROMPT),
    # found by the fuzzer: a redirect followed by more words ("echo x > f # note") is asked
    # in an interactive session; claude -p refuses that prompt with this reason instead
    ("redirect has multiple targets", Cause.PROMPT),
    ("auto mode is unavailable", Cause.CLASSIFIER),
    ("hook error", Cause.HOOK),
    ("blocked by hook", Cause.HOOK),
    ("pretooluse", Cause.HOOK),
    ("hook", Cause.HOOK),
    ("don't ask mode", Cause.MODE),
    ("dont ask mode", Cause.MODE),
    ("plan mode", Cause.MODE),
    ("has been denied", Cause.RULE),
    ("denied by your permission settings", Cause.RULE),
    ("permission settings", Cause.RULE),
)


@dataclass(frozen=True)
class Observed:
    """Claude Code's verdict on call number ``index``: the ``tool_result`` text it sent the
    model, whether it was an error, and the system texts that followed it (hook feedback)."""

    index: int
    call: Call
    verdict: Verdict
    cause: Cause
    text: str
    is_error: bool
    after: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "index": self.index,
            "tool": self.call.tool,
            "input": dict(self.call.input),
            "label": self.call.label,
            "verdict": self.verdict.value,
            "cause": self.cause.value,
            "text": self.text,
            "is_error": self.is_error,
            "after": list(self.after),
        }


def result_text(block: Mapping[str, Any]) -> str:
    """The text of a ``tool_result`` block (its string, or its text parts joined)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, Mapping) and p.get("type") == "text"
        )
    return ""


def _results(
    bodies: Sequence[Mapping[str, Any]],
) -> dict[str, tuple[Mapping[str, Any], tuple[str, ...]]]:
    """Every tool_result by id, from the last request that carries it, with the texts that
    follow it up to the next assistant message."""
    found: dict[str, tuple[Mapping[str, Any], tuple[str, ...]]] = {}
    for body in bodies:
        messages = [m for m in body.get("messages") or () if isinstance(m, Mapping)]
        for i, message in enumerate(messages):
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for j, block in enumerate(content):
                if not (isinstance(block, Mapping) and block.get("type") == "tool_result"):
                    continue
                after = [
                    str(b.get("text", ""))
                    for b in content[j + 1 :]
                    if isinstance(b, Mapping) and b.get("type") == "text"
                ]
                for later in messages[i + 1 :]:
                    if later.get("role") == "assistant":
                        break
                    text = later.get("content")
                    if isinstance(text, str):
                        after.append(text)
                found[str(block.get("tool_use_id"))] = (block, tuple(after))
    return found


def _cause(text: str) -> Cause:
    low = text.lower()
    return next((cause for needle, cause in CAUSES if needle in low), Cause.OTHER)


def _asked_ids(
    prompts: Sequence[Mapping[str, Any]], calls: Sequence[Call], ids: Sequence[str]
) -> set[str]:
    asked = {str(p["tool_use_id"]) for p in prompts if p.get("tool_use_id")}
    for p in prompts:
        if p.get("tool_use_id"):
            continue
        for call, cid in zip(calls, ids, strict=True):
            if p.get("tool_name") == call.tool and p.get("input") == dict(call.input):
                asked.add(cid)
    return asked


def observe(
    calls: Sequence[Call],
    ids: Sequence[str],
    bodies: Sequence[Mapping[str, Any]],
    result: Mapping[str, Any],
    prompts: Sequence[Mapping[str, Any]],
) -> tuple[Observed, ...]:
    """One :class:`Observed` per call (see the module doc). ``ids`` are the calls'
    ``tool_use`` ids, ``bodies`` the recorded ``/v1/messages`` request bodies, ``result`` Claude
    Code's ``--output-format json`` object, ``prompts`` the prompt tool's log rows."""
    results = _results(bodies)
    denied = {
        str(d.get("tool_use_id"))
        for d in result.get("permission_denials") or ()
        if isinstance(d, Mapping)
    }
    asked = _asked_ids(prompts, calls, ids)
    out = []
    for index, (call, cid) in enumerate(zip(calls, ids, strict=True)):
        if cid not in results:
            out.append(Observed(index, call, Verdict.UNREACHED, Cause.OTHER, "", False))
            continue
        block, after = results[cid]
        text = result_text(block)
        is_error = bool(block.get("is_error"))
        cause = _cause(text) if is_error else Cause.NONE
        if cid in asked or (is_error and cause is Cause.PROMPT):
            verdict, cause = Verdict.ASK, Cause.PROMPT
        elif cid in denied or (is_error and cause is Cause.REMOVED):
            verdict = Verdict.DENY
        else:
            verdict, cause = Verdict.ALLOW, Cause.NONE
        out.append(Observed(index, call, verdict, cause, text, is_error, after))
    return tuple(out)
