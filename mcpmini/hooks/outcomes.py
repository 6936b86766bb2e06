"""Outcomes of hook runs: from raw execution facts to success / blocking / non-blocking.

:func:`classify` applies the article's Definition 4.2 and reference §1.6 to one
:class:`~mcpmini.hooks.Execution`. It first reads the execution into :class:`Facts` (JSON
output parsed and checked against :data:`OUTPUT_SCHEMA`, ``hookEventName`` compared with
the event), then walks :data:`RULES`, an ordered table of :class:`Rule` rows: the first row
whose condition holds decides. Every event-specific difference comes from the event's
:class:`~mcpmini.hooks.EventSpec` (which fields carry a decision, whether stdout becomes
context, whether a timeout or any nonzero exit blocks); no event is named here.

In short: exit 2 blocks whatever the JSON says; exit 0 succeeds unless the JSON is broken;
any other exit code is a failure unless stdout is schema-valid JSON, which then decides
alone (still a failure when ``onFailure`` is ``"block"``). A failure is a non-blocking
error, or a blocking one when ``onFailure: "block"`` applies on the event.
:func:`combine_decisions` ranks decisions deny > defer > ask > allow.

Rules of this module:

* :func:`classify` is pure: one :class:`~mcpmini.hooks.Execution`, the event's spec and the
  handler's *resolved* ``onFailure`` in, one frozen :class:`Verdict` out; no I/O, no clock.
* :data:`RULES` is ordered and total: the first row whose condition holds decides, and the
  last row always holds. A new case is a new row, placed by precedence, never an ``if``
  elsewhere.
* No event is named here; every difference between events is a field of its
  :class:`~mcpmini.hooks.EventSpec`.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from .. import jsonfile
from ..errors import json_path
from .events import DecisionField, EventSpec
from .handlers import Execution
from .options import OnFailure  # re-exported: defined with the other handler options

__all__ = [
    "DECISION_RANK",
    "OUTPUT_SCHEMA",
    "RULES",
    "STRING_CAP",
    "Decision",
    "Facts",
    "FailureKind",
    "HookOutcome",
    "OnFailure",
    "Rule",
    "Verdict",
    "classify",
    "combine_decisions",
    "read_facts",
]

STRING_CAP = 10_000  # characters per additionalContext / plain-stdout string (reference §1.7)


class Decision(enum.StrEnum):
    """A permission decision a hook can return (``str``: JSON carries the value)."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask"
    DEFER = "defer"

    def __str__(self) -> str:
        return self.value


DECISION_RANK = {Decision.DENY: 3, Decision.DEFER: 2, Decision.ASK: 1, Decision.ALLOW: 0}


class HookOutcome(enum.StrEnum):
    """The three outcomes of one handler run (article Definition 4.2)."""

    SUCCESS = "success"
    BLOCKING_ERROR = "blocking_error"
    NON_BLOCKING_ERROR = "non_blocking_error"

    def __str__(self) -> str:
        return self.value


class FailureKind(enum.StrEnum):
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

    def __str__(self) -> str:
        return self.value


_HSO = {
    "type": "object",
    "required": ["hookEventName"],
    "properties": {
        "hookEventName": {"type": "string"},
        "decision": {"type": "object", "properties": {"behavior": {"enum": ["allow", "deny"]}}},
        "permissionDecision": {"enum": [d.value for d in Decision]},
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
    """What one run means: its outcome and the fields it contributes to the event.

    ``rule`` names the row of :data:`RULES` that decided.
    """

    outcome: HookOutcome
    failure: FailureKind | None = None
    output: dict[str, Any] | None = None
    decision: Decision | None = None
    reason: str | None = None
    context: tuple[str, ...] = field(default_factory=tuple)
    updated_input: dict[str, Any] | None = None
    stop: bool = False
    stop_reason: str | None = None
    problem: str | None = None  # why the run failed, in words
    blocks: bool = False  # this run stops the event's action
    rule: str = ""


@dataclass(frozen=True)
class Facts:
    """One execution read for classification: what happened, and the parsed output.

    ``output`` is the schema-valid JSON object (or ``None``); ``bad_output`` / ``why`` say
    why stdout that starts with ``{`` was refused; ``text`` is the stripped plain stdout.
    """

    kind: str
    callback: bool
    start_error: str | None
    timed_out: bool
    error: str | None
    exit_code: int | None
    output: dict[str, Any] | None
    bad_output: FailureKind | None
    why: str | None
    text: str
    stderr: str

    @property
    def nonzero(self) -> bool:
        """An exit code other than 0 (no exit code counts as 0)."""
        return self.exit_code not in (0, None)


def _parse(stdout: str, event: str) -> tuple[dict[str, Any] | None, FailureKind | None, str | None]:
    """JSON output of a hook: (object, None, None), (None, kind, why) or (None, None, None)."""
    text = stdout.lstrip()
    if not text.startswith("{"):
        return None, None, None
    try:
        value = jsonfile.loads(text)
    except json.JSONDecodeError as exc:
        return None, FailureKind.INVALID_JSON, f"stdout is not valid JSON: {exc.msg}"
    errors = sorted(_VALIDATOR.iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        where = json_path(errors[0].absolute_path)
        return None, FailureKind.SCHEMA, f"output fails the schema at {where}: {errors[0].message}"
    hso = value.get("hookSpecificOutput")
    if hso is not None and hso.get("hookEventName") != event:
        name = hso.get("hookEventName")
        return None, FailureKind.SCHEMA, f"hookEventName is {name!r}, not {event!r}"
    return value, None, None


def _wire(value: Mapping[str, Any]) -> dict[str, Any]:
    """SDK callbacks write ``continue_`` / ``async_``; the wire spells them without ``_``."""
    return {k[:-1] if k in ("continue_", "async_") else k: v for k, v in value.items()}


def read_facts(ex: Execution, spec: EventSpec, *, callback: bool = False) -> Facts:
    """The :class:`Facts` of execution ``ex`` on event ``spec`` (a callback's value as JSON)."""
    error, code, stdout = ex.error, ex.exit_code, ex.stdout
    if callback and not ex.start_error and not ex.timed_out:
        if error is None and not isinstance(ex.value, dict):
            error = f"callback returned {type(ex.value).__name__}, not a dict"
        stdout, code = (json.dumps(_wire(ex.value)), 0) if error is None else ("", None)
    output, bad, why = _parse(stdout, spec.name)
    return Facts(
        ex.kind,
        callback,
        ex.start_error,
        ex.timed_out,
        error,
        code,
        output,
        bad,
        why,
        stdout.strip() if output is None and bad is None else "",
        ex.stderr,
    )


def _cap(text: str) -> str:
    return text if len(text) <= STRING_CAP else text[:STRING_CAP] + f"… [{len(text)} chars]"


def _decision(output: Mapping[str, Any], spec: EventSpec) -> Decision | None:
    """The permission decision ``output`` carries on ``spec`` (read from its decision fields)."""
    hso = output.get("hookSpecificOutput") or {}
    if DecisionField.PERMISSION in spec.decisions and output.get("decision") == "block":
        return Decision.DENY
    if DecisionField.PERMISSION in spec.decisions and hso.get("permissionDecision"):
        return Decision(hso["permissionDecision"])
    behavior = hso.get("decision")
    if DecisionField.BEHAVIOR in spec.decisions and isinstance(behavior, Mapping):
        answer = behavior.get("behavior")
        return Decision(answer) if answer in ("allow", "deny") else None
    legacy = {"approve": Decision.ALLOW, "block": Decision.DENY}
    if DecisionField.LEGACY in spec.decisions and output.get("decision") in legacy:
        return legacy[output["decision"]]
    return None


def _updated_input(hso: Mapping[str, Any], spec: EventSpec) -> dict[str, Any] | None:
    """``updatedInput``: beside the decision (PreToolUse), or inside ``decision`` where the
    event's decision is a behaviour (PermissionRequest's ``decision.updatedInput``)."""
    behavior = hso.get("decision")
    if DecisionField.BEHAVIOR in spec.decisions and isinstance(behavior, Mapping):
        inner = behavior.get("updatedInput")
        if isinstance(inner, Mapping):
            return dict(inner)
    found = hso.get("updatedInput")
    return dict(found) if isinstance(found, Mapping) else None


def _reason(output: Mapping[str, Any], spec: EventSpec) -> str | None:
    hso = output.get("hookSpecificOutput") or {}
    behavior = hso.get("decision")
    if (
        DecisionField.BEHAVIOR in spec.decisions
        and isinstance(behavior, Mapping)
        and behavior.get("message")
    ):
        return str(behavior["message"])
    reason = hso.get("permissionDecisionReason") or output.get("reason")
    return str(reason) if reason else None


# --- the rows ---------------------------------------------------------------------------------

Condition = Callable[[Facts, EventSpec, bool], bool]
Effect = Callable[[Facts, EventSpec, bool], Verdict]


@dataclass(frozen=True)
class Rule:
    """One row of :data:`RULES`: ``when`` the facts hold, ``then`` gives the verdict.

    ``when`` and ``then`` take ``(facts, spec, honours_block)``; ``says`` is the row in words.
    """

    name: str
    says: str
    when: Condition
    then: Effect


def _failure(
    kind: FailureKind,
    problem: str,
    spec: EventSpec,
    honours: bool,
    rule: str,
    *,
    force_block: bool = False,
) -> Verdict:
    blocking = honours or force_block
    blocks = blocking and spec.can_block
    return Verdict(
        HookOutcome.BLOCKING_ERROR if blocking else HookOutcome.NON_BLOCKING_ERROR,
        kind,
        decision=Decision.DENY if blocks else None,
        reason=problem,
        problem=problem,
        blocks=blocks,
        rule=rule,
    )


def _fails(
    kind: FailureKind | Callable[[Facts], FailureKind],
    problem: Callable[[Facts], str],
    rule: str,
    *,
    force: Callable[[Facts, EventSpec], bool] = lambda f, s: False,
) -> Effect:
    def then(f: Facts, spec: EventSpec, honours: bool) -> Verdict:
        k = kind(f) if callable(kind) else kind
        return _failure(k, problem(f), spec, honours, rule, force_block=force(f, spec))

    return then


def _exit_two(f: Facts, spec: EventSpec, honours: bool) -> Verdict:
    reason = (
        (_reason(f.output, spec) if f.output else None)
        or f.stderr.strip()
        or ("blocked by hook (exit 2)")
    )
    return Verdict(
        HookOutcome.BLOCKING_ERROR,
        output=f.output,
        decision=Decision.DENY if spec.can_block else None,
        reason=reason,
        blocks=spec.can_block,
        rule="exit_two",
    )


def _plain(f: Facts, spec: EventSpec, honours: bool) -> Verdict:
    context = (_cap(f.text),) if f.text and spec.context_stdout else ()
    return Verdict(HookOutcome.SUCCESS, context=context, rule="plain_success")


def _json(f: Facts, spec: EventSpec, honours: bool) -> Verdict:
    output = f.output or {}
    hso = output.get("hookSpecificOutput") or {}
    blocked = (
        DecisionField.BLOCK in spec.decisions
        and output.get("decision") == "block"
        and spec.can_block
    )
    decision = _decision(output, spec)
    reason = _reason(output, spec) or ("blocked by hook output" if blocked else None)
    return Verdict(
        HookOutcome.SUCCESS,
        output=f.output,
        decision=decision,
        reason=reason,
        context=(_cap(hso["additionalContext"]),) if hso.get("additionalContext") else (),
        updated_input=_updated_input(hso, spec),
        stop=output.get("continue") is False,
        stop_reason=output.get("stopReason"),
        blocks=blocked or decision is Decision.DENY,
        rule="json_success",
    )


def _first_stderr(f: Facts) -> str:
    first = f.stderr.strip().splitlines()[:1]
    return f"exit code {f.exit_code}" + (f": {first[0]}" if first else "")


RULES: tuple[Rule, ...] = (
    Rule(
        "unsupported",
        "a prompt / agent handler could not run (no model offline)",
        lambda f, s, h: bool(f.start_error) and f.kind in ("prompt", "agent"),
        _fails(FailureKind.UNSUPPORTED, lambda f: f.start_error or "", "unsupported"),
    ),
    Rule(
        "not_started",
        "the handler could not start",
        lambda f, s, h: bool(f.start_error),
        _fails(FailureKind.NOT_STARTED, lambda f: f.start_error or "", "not_started"),
    ),
    Rule(
        "timeout",
        "timed out: a failure; it blocks where the event says a timeout blocks",
        lambda f, s, h: f.timed_out,
        _fails(
            FailureKind.TIMEOUT,
            lambda f: "timed out",
            "timeout",
            force=lambda f, s: s.timeout_blocks or (f.callback and s.callback_timeout_blocks),
        ),
    ),
    Rule(
        "callback_error",
        "an SDK callback raised or returned something other than a dict",
        lambda f, s, h: f.callback and f.error is not None,
        _fails(FailureKind.CALLBACK_ERROR, lambda f: f.error or "", "callback_error"),
    ),
    Rule(
        "exit_two",
        "exit 2 blocks, whatever the JSON says (even JSON that fails the schema)",
        lambda f, s, h: f.exit_code == 2,
        _exit_two,
    ),
    Rule(
        "http_error",
        "an HTTP status other than 2xx, or the connection failed",
        lambda f, s, h: f.kind == "http" and f.error is not None,
        _fails(FailureKind.HTTP_ERROR, lambda f: f.error or "", "http_error"),
    ),
    Rule(
        "tool_error",
        "the MCP tool returned isError or the server is not connected",
        lambda f, s, h: f.kind == "mcp_tool" and f.error is not None,
        _fails(FailureKind.TOOL_ERROR, lambda f: f.error or "", "tool_error"),
    ),
    Rule(
        "bad_output",
        "stdout starts with '{' but is not JSON, or fails the output schema",
        lambda f, s, h: f.bad_output is not None,
        _fails(
            lambda f: f.bad_output or FailureKind.SCHEMA,
            lambda f: f.why or "invalid output",
            "bad_output",
        ),
    ),
    Rule(
        "nonzero_fails",
        "any nonzero exit fails the action on this event (WorktreeCreate)",
        lambda f, s, h: f.nonzero and s.nonzero_fails,
        _fails(
            FailureKind.EXIT_CODE,
            lambda f: f"exit code {f.exit_code}",
            "nonzero_fails",
            force=lambda f, s: True,
        ),
    ),
    Rule(
        "exit_code",
        "another exit code without JSON: a failure (126/127: did not start)",
        lambda f, s, h: f.nonzero and f.output is None,
        _fails(
            lambda f: (
                FailureKind.NOT_STARTED if f.exit_code in (126, 127) else FailureKind.EXIT_CODE
            ),
            _first_stderr,
            "exit_code",
        ),
    ),
    Rule(
        "exit_code_block",
        "another exit code with valid JSON still fails under onFailure block",
        lambda f, s, h: f.nonzero and h,
        _fails(
            FailureKind.EXIT_CODE,
            lambda f: f"exit code {f.exit_code} (onFailure is block)",
            "exit_code_block",
        ),
    ),
    Rule(
        "http_plain",
        "a 2xx HTTP reply with a plain-text body",
        lambda f, s, h: f.kind == "http" and f.output is None and bool(f.text),
        _fails(FailureKind.HTTP_ERROR, lambda f: "2xx reply with a plain-text body", "http_plain"),
    ),
    Rule(
        "plain_success",
        "success without JSON; stdout is context where the event says so",
        lambda f, s, h: f.output is None,
        _plain,
    ),
    Rule(
        "json_success",
        "schema-valid JSON decides (also on exit codes other than 0 and 2)",
        lambda f, s, h: True,
        _json,
    ),
)


def classify(
    ex: Execution,
    spec: EventSpec,
    *,
    on_failure: OnFailure | str = OnFailure.CONTINUE,
    callback: bool = False,
) -> Verdict:
    """Return the :class:`Verdict` of one execution of a handler on event ``spec``.

    The first row of :data:`RULES` whose condition holds decides (the last row always
    holds). ``on_failure`` is the handler's resolved ``onFailure``; ``callback`` marks an SDK
    callback, whose return value is read as JSON output. Raises ``ValueError`` for an
    unknown ``on_failure``.
    """
    facts = read_facts(ex, spec, callback=callback)
    honours = spec.honours_block(OnFailure(on_failure))
    rule = next(r for r in RULES if r.when(facts, spec, honours))
    return rule.then(facts, spec, honours)


def combine_decisions(decisions: Iterable[str | None]) -> Decision | None:
    """Combine permission decisions, deny > defer > ask > allow; ``None`` if there are none."""
    present = [Decision(d) for d in decisions if d in DECISION_RANK]
    return max(present, key=DECISION_RANK.__getitem__) if present else None
