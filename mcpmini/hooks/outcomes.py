"""Outcomes of hook runs: from raw execution facts to success / blocking / non-blocking.

:func:`classify` applies the rules of the article's Definition 4.2 and reference §1.6 to one
:class:`~mcpmini.hooks.Execution`:

* stdout is JSON only when its first non-blank character is ``{``; JSON output is checked
  against :data:`OUTPUT_SCHEMA` (``jsonschema``) and ``hookEventName`` must name the event;
* exit 2 is a blocking error, whatever the JSON says (even invalid JSON);
* exit 0 is success, unless the JSON is unparseable or fails the schema (a failure);
* any other exit code is a failure, unless stdout is schema-valid JSON, which then decides
  alone (but counts as a failure when ``onFailure`` is ``"block"``, article Def. 4.2);
* not starting, timing out, a callback raising or returning something other than a dict,
  an HTTP error or an MCP tool error are failures.

A failure is a non-blocking error, or a blocking one when ``onFailure`` is ``"block"`` on
an event that honours it. SDK callbacks that time out on PreToolUse, UserPromptSubmit and
UserPromptExpansion block (reference §1.6). :func:`combine_decisions` ranks decisions
deny > defer > ask > allow.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from .events import CONTEXT_STDOUT_EVENTS, PERMISSION_EVENTS, EventSpec
from .handlers import Execution

__all__ = [
    "DECISION_RANK",
    "OUTPUT_SCHEMA",
    "STRING_CAP",
    "FailureKind",
    "HookOutcome",
    "Verdict",
    "classify",
    "combine_decisions",
]

STRING_CAP = 10_000  # characters per additionalContext / plain-stdout string (reference §1.7)
DECISION_RANK = {"deny": 3, "defer": 2, "ask": 1, "allow": 0}
_CALLBACK_TIMEOUT_BLOCKS = frozenset({"PreToolUse", "UserPromptSubmit", "UserPromptExpansion"})


class HookOutcome(enum.Enum):
    """The three outcomes of one handler run (article Definition 4.2)."""

    SUCCESS = "success"
    BLOCKING_ERROR = "blocking_error"
    NON_BLOCKING_ERROR = "non_blocking_error"


class FailureKind(enum.Enum):
    """Why a run counts as a failure (``None`` on a run that did not fail)."""

    NOT_STARTED = "not_started"  # missing or not executable (also shell exit 126/127)
    TIMEOUT = "timeout"
    EXIT_CODE = "exit_code"  # exit code other than 0 and 2
    INVALID_JSON = "invalid_json"  # stdout starts with "{" but does not parse
    SCHEMA = "schema"  # parses, but fails the output schema
    CALLBACK_ERROR = "callback_error"  # raised, or returned a non-dict / None
    HTTP_ERROR = "http_error"  # non-2xx, or a 2xx plain-text body
    TOOL_ERROR = "tool_error"  # mcp_tool returned isError
    UNSUPPORTED = "unsupported"  # prompt / agent handler without a model


_HSO = {
    "type": "object",
    "required": ["hookEventName"],
    "properties": {
        "hookEventName": {"type": "string"},
        "decision": {"type": "object", "properties": {"behavior": {"enum": ["allow", "deny"]}}},
        "permissionDecision": {"enum": ["allow", "deny", "ask", "defer"]},
        "permissionDecisionReason": {"type": "string"},
        "updatedInput": {"type": "object"},
        "additionalContext": {"type": "string"},
    },
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "continue": {"type": "boolean"},
        "stopReason": {"type": "string"},
        "suppressOutput": {"type": "boolean"},
        "systemMessage": {"type": "string"},
        "decision": {"enum": ["block", "approve"]},
        "reason": {"type": "string"},
        "hookSpecificOutput": _HSO,
    },
}
_VALIDATOR = jsonschema.Draft202012Validator(OUTPUT_SCHEMA)


@dataclass(frozen=True)
class Verdict:
    """What one run means: its outcome and the fields it contributes to the event."""

    outcome: HookOutcome
    failure: FailureKind | None = None
    output: dict[str, Any] | None = None
    decision: str | None = None
    reason: str | None = None
    context: tuple[str, ...] = field(default_factory=tuple)
    updated_input: dict[str, Any] | None = None
    stop: bool = False
    stop_reason: str | None = None
    problem: str | None = None  # why the run failed, in words
    blocks: bool = False  # this run stops the event's action


def _parse(stdout: str, event: str) -> tuple[dict[str, Any] | None, FailureKind | None, str | None]:
    """JSON output of a hook: (object, None, None), (None, kind, why) or (None, None, None)."""
    text = stdout.lstrip()
    if not text.startswith("{"):
        return None, None, None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, FailureKind.INVALID_JSON, f"stdout is not valid JSON: {exc.msg}"
    errors = sorted(_VALIDATOR.iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        where = ".".join(str(p) for p in errors[0].absolute_path) or "(top)"
        return None, FailureKind.SCHEMA, f"output fails the schema at {where}: {errors[0].message}"
    hso = value.get("hookSpecificOutput")
    if hso is not None and hso.get("hookEventName") != event:
        name = hso.get("hookEventName")
        return None, FailureKind.SCHEMA, f"hookEventName is {name!r}, not {event!r}"
    return value, None, None


def _cap(text: str) -> str:
    return text if len(text) <= STRING_CAP else text[:STRING_CAP] + f"… [{len(text)} chars]"


def _fields(output: dict[str, Any], spec: EventSpec) -> dict[str, Any]:
    hso = output.get("hookSpecificOutput") or {}
    decision = hso.get("permissionDecision") if spec.name in PERMISSION_EVENTS else None
    behavior = hso.get("decision")
    if spec.name == "PermissionRequest" and isinstance(behavior, dict):
        answer = behavior.get("behavior")
        decision = answer if answer in ("allow", "deny") else None
    if spec.name == "PreToolUse" and decision is None and output.get("decision"):
        decision = {"approve": "allow", "block": "deny"}[output["decision"]]  # deprecated form
    blocked = output.get("decision") == "block" and spec.can_block
    reason = hso.get("permissionDecisionReason") or output.get("reason")
    if spec.name == "PermissionRequest" and isinstance(behavior, dict):
        reason = behavior.get("message") or reason
    context = (_cap(hso["additionalContext"]),) if hso.get("additionalContext") else ()
    return {
        "decision": decision,
        "reason": reason,
        "context": context,
        "updated_input": hso.get("updatedInput"),
        "stop": output.get("continue") is False,
        "stop_reason": output.get("stopReason"),
        "json_block": blocked,
    }


def classify(ex: Execution, spec: EventSpec, *, on_failure: str = "continue",
             callback: bool = False) -> Verdict:
    """Return the :class:`Verdict` of one execution of a handler on event ``spec``."""
    honours_block = on_failure == "block" and not spec.on_failure_ignored and spec.can_block

    def failed(kind: FailureKind, problem: str, *, force_block: bool = False) -> Verdict:
        outcome = (HookOutcome.BLOCKING_ERROR if honours_block or force_block
                   else HookOutcome.NON_BLOCKING_ERROR)
        blocks = outcome is HookOutcome.BLOCKING_ERROR and spec.can_block
        return Verdict(outcome, kind, decision="deny" if blocks else None, reason=problem,
                       problem=problem, blocks=blocks)

    if ex.start_error:
        model = ex.kind in ("prompt", "agent")
        kind = FailureKind.UNSUPPORTED if model else FailureKind.NOT_STARTED
        return failed(kind, ex.start_error)
    if ex.timed_out:
        return failed(FailureKind.TIMEOUT, "timed out",
                      force_block=(callback and spec.name in _CALLBACK_TIMEOUT_BLOCKS)
                      or spec.name == "PreModelSwitch")
    if callback:
        if ex.error:
            return failed(FailureKind.CALLBACK_ERROR, ex.error)
        if not isinstance(ex.value, dict):
            return failed(FailureKind.CALLBACK_ERROR,
                          f"callback returned {type(ex.value).__name__}, not a dict")
        stdout = json.dumps(_wire(ex.value))
        code: int | None = 0
    else:
        stdout, code = ex.stdout, ex.exit_code
    output, bad, why = _parse(stdout, spec.name)
    if code == 2:  # blocks even with JSON, even with JSON that fails the schema
        fields = _fields(output, spec) if output else {}
        reason = fields.get("reason") or ex.stderr.strip() or "blocked by hook (exit 2)"
        return Verdict(HookOutcome.BLOCKING_ERROR, output=output,
                       decision="deny" if spec.can_block else None, reason=reason,
                       blocks=spec.can_block)
    if ex.kind == "http" and ex.error:
        return failed(FailureKind.HTTP_ERROR, ex.error)
    if ex.kind == "mcp_tool" and ex.error:
        return failed(FailureKind.TOOL_ERROR, ex.error)
    if bad is not None:
        return failed(bad, why or bad.value)
    if code not in (0, None) and spec.name == "WorktreeCreate":  # any nonzero exit fails it
        return failed(FailureKind.EXIT_CODE, f"exit code {code}", force_block=True)
    if code not in (0, None) and output is None:
        kind = FailureKind.NOT_STARTED if code in (126, 127) else FailureKind.EXIT_CODE
        first = ex.stderr.strip().splitlines()[:1]
        return failed(kind, f"exit code {code}" + (f": {first[0]}" if first else ""))
    if code not in (0, None) and honours_block:  # schema-valid JSON still counts as a failure
        return failed(FailureKind.EXIT_CODE, f"exit code {code} (onFailure is block)")
    if ex.kind == "http" and output is None and stdout.strip():
        return failed(FailureKind.HTTP_ERROR, "2xx reply with a plain-text body")
    if output is None:
        text = stdout.strip()
        context = (_cap(text),) if text and spec.name in CONTEXT_STDOUT_EVENTS else ()
        return Verdict(HookOutcome.SUCCESS, context=context)
    f = _fields(output, spec)
    decision = f["decision"]
    if f["json_block"] and spec.name in PERMISSION_EVENTS:
        decision = "deny"
    reason = f["reason"] or ("blocked by hook output" if f["json_block"] else None)
    return Verdict(
        HookOutcome.SUCCESS, output=output, decision=decision, reason=reason,
        context=f["context"], updated_input=f["updated_input"], stop=f["stop"],
        stop_reason=f["stop_reason"], blocks=f["json_block"] or decision == "deny",
    )


def _wire(value: dict[str, Any]) -> dict[str, Any]:
    """SDK callbacks write ``continue_`` / ``async_``; the wire spells them without ``_``."""
    return {k[:-1] if k in ("continue_", "async_") else k: v for k, v in value.items()}


def combine_decisions(decisions: Iterable[str | None]) -> str | None:
    """Combine permission decisions, deny > defer > ask > allow; ``None`` if there are none."""
    present = [d for d in decisions if d in DECISION_RANK]
    return max(present, key=DECISION_RANK.__getitem__) if present else None
