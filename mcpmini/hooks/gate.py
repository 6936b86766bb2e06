"""One tool call from its PreToolUse hooks to the final permission decision, in ONE function.

:func:`decide` runs the hooks of the event (``PreToolUse`` by default) with
:func:`~mcpmini.hooks.run_hooks`, then walks the call through
:func:`mcpmini.permissions.gate` (hook verdict → deny rules → ask rules → the hook's own
decision → mode → allow rules) and returns one frozen :class:`Decided`. The CLI
(``mcpmini hooks run``), the agent loop and the course's hook lab all call it, so "run the
hooks, then the gate" is assembled in exactly one place.

When the gate asks, the PermissionRequest hooks run (they fire where a permission prompt is
about to appear): documented, their ``decision.behavior`` answers the prompt; observed in
Claude Code 2.1.332 in a headless ``-p`` run, an ``allow`` runs the call with its
``decision.updatedInput`` (the deny rules are checked again on that input) and a ``deny``
refuses it. With a ``--permission-prompt-tool`` (``prompt_tool=True``) they still run but
their decision is ignored: the prompt tool is asked (observed in 2.1.332). Their answer is
one more step of the gate's path at the ``fallback`` station, where the prompt would appear.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..mcp import Client
from ..permissions import (
    Behavior,
    GateResult,
    GateStage,
    GateStep,
    PermissionMode,
    PermissionRules,
    PreToolUseResult,
    gate,
)
from .events import GATE_EVENT, PROMPT_EVENT, event_spec
from .runner import EventResult, Hooks, HookSettings, run_hooks

__all__ = ["Decided", "decide", "has_hooks"]


@dataclass(frozen=True)
class Decided:
    """The hooks' combined result (``None`` when no hooks were given), the gate's result
    (``None`` when the gate was not asked, ``gated=False``) and, when the gate asked and
    PermissionRequest hooks ran, their result (``permission_request``)."""

    hooks: EventResult | None
    gate: GateResult | None
    permission_request: EventResult | None = None

    @property
    def final(self) -> Behavior | None:
        """``allow`` / ``deny`` / ``ask`` from the gate, or ``None`` without a gate."""
        return self.gate.final if self.gate else None

    @property
    def tool_input(self) -> Mapping[str, Any] | None:
        """The input the call runs with (a hook's ``updatedInput`` when there is one)."""
        if self.gate is not None and self.gate.tool_input is not None:
            return self.gate.tool_input
        return self.hooks.updated_input if self.hooks else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary: the hooks' result and, when gated, the path through the gate."""
        out: dict[str, Any] = {}
        if self.hooks is not None:
            h = self.hooks
            out.update(
                event=h.event,
                handlers=[r.to_dict() for r in h.runs],
                decision=h.decision.value if h.decision else None,
                blocked=h.blocked,
                reason=h.reason,
                additional_context=list(h.additional_context),
                system_messages=list(h.system_messages),
                stop=h.stop,
                updated_input=h.updated_input,
            )
        if self.gate is not None:
            out["final"] = self.gate.final.value
            out["gate_path"] = [
                {
                    "step": s.step.value,
                    "verdict": s.verdict.value if s.verdict else None,
                    "detail": s.detail,
                }
                for s in self.gate.path
            ]
        return out


def has_hooks(hooks: Hooks | None, event: str) -> bool:
    """True when ``hooks`` registers at least one group for ``event``."""
    if hooks is None:
        return False
    if isinstance(hooks, HookSettings):
        return bool(hooks.groups(event))
    return bool(list(hooks.get(event, ())))


def decide(
    hooks: Hooks | None,
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    event: str = GATE_EVENT,
    payload: Mapping[str, Any] | None = None,
    rules: PermissionRules | None = None,
    mode: PermissionMode | str = PermissionMode.DEFAULT,
    cwd: str = "",
    home: str | None = None,
    gated: bool = True,
    tool_use_id: str | None = None,
    project_dir: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float | None = None,
    mcp_clients: Mapping[str, Client] | None = None,
    additional_dirs: tuple[str, ...] | list[str] = (),
    prompt_tool: bool = False,
) -> Decided:
    """Run the hooks of ``event`` for one call of ``tool_name``, then the permission gate.

    ``payload`` adds event fields to ``tool_name`` / ``tool_input`` (both left out of the
    hook input when ``tool_name`` is empty, for events that are not about a tool); ``rules``,
    ``mode``, ``cwd`` and ``home`` go to the gate, which runs when ``gated`` (the hooks'
    verdict feeds it only on the gate event, PreToolUse). ``tool_use_id``, ``project_dir``,
    ``environ``, ``timeout`` and ``mcp_clients`` go to :func:`~mcpmini.hooks.run_hooks`;
    ``additional_dirs`` (``--add-dir``, ``permissions.additionalDirectories``) to the gate.
    ``prompt_tool``: the session answers prompts through a ``--permission-prompt-tool``, so
    PermissionRequest hooks run but do not decide (module doc). With
    ``hooks`` of ``None`` no hook runs and ``Decided.hooks`` is ``None`` (see
    :func:`has_hooks`).
    Returns a :class:`Decided`. Raises ``ConfigError`` for an unknown event or mode.
    """
    spec = event_spec(event)
    result = None
    if hooks is not None:
        call = {"tool_name": tool_name, "tool_input": dict(tool_input)} if tool_name else {}
        data = {**call, **(payload or {})}
        result = run_hooks(
            hooks,
            spec.name,
            data,
            tool_use_id=tool_use_id,
            project_dir=project_dir,
            environ=environ,
            timeout=timeout,
            mcp_clients=mcp_clients,
        )
    if not gated:
        return Decided(result, None)
    extra = {"home": home} if home is not None else {}
    # Typed on purpose: mypy proves that EventResult fits the gate's PreToolUseResult.
    pre: PreToolUseResult | None = result if spec.name == GATE_EVENT else None
    verdict = gate(
        tool_name,
        tool_input,
        hooks=pre,
        rules=rules,
        mode=mode,
        cwd=cwd,
        additional_dirs=tuple(additional_dirs),
        **extra,
    )
    if (
        verdict.final is not Behavior.ASK
        or verdict.deferred
        or spec.name != GATE_EVENT
        or not has_hooks(hooks, PROMPT_EVENT)
    ):
        return Decided(result, verdict)
    assert hooks is not None
    asked_input = dict(verdict.tool_input or tool_input)
    answer = run_hooks(
        hooks,
        PROMPT_EVENT,
        {"tool_name": tool_name, "tool_input": asked_input, "permission_suggestions": []},
        tool_use_id=tool_use_id,
        project_dir=project_dir,
        environ=environ,
        timeout=timeout,
        mcp_clients=mcp_clients,
    )
    answered = _answered(tool_name, verdict, answer, rules, prompt_tool, cwd, home)
    return Decided(result, answered, answer)


def _answered(
    tool_name: str,
    verdict: GateResult,
    answer: EventResult,
    rules: PermissionRules | None,
    prompt_tool: bool,
    cwd: str,
    home: str | None,
) -> GateResult:
    """The gate's ``ask`` as the PermissionRequest hooks answered it (module doc)."""
    decision = answer.decision.value if answer.decision else None
    if not answer.ran:
        return verdict
    if prompt_tool or decision not in ("allow", "deny"):
        why = "ignored: the prompt tool answers" if prompt_tool and decision else "no answer"
        step = GateStep(GateStage.FALLBACK, None, f"PermissionRequest hooks: {why}")
        return replace(verdict, path=(*verdict.path, step))
    tool_input = answer.updated_input or verdict.tool_input or {}
    if decision == "allow" and rules is not None and answer.updated_input is not None:
        # observed in 2.1.332: the rewritten input meets the deny rules again
        denied = rules.first(Behavior.DENY, tool_name, tool_input, cwd=cwd, home=home)
        if denied is not None:
            detail = f"PermissionRequest hook rewrote the input; deny rule {denied.text} matches"
            return _finish(verdict, Behavior.DENY, detail, tool_input, denied)
    final = Behavior.ALLOW if decision == "allow" else Behavior.DENY
    detail = f"a PermissionRequest hook answered {decision}" + (
        f": {answer.reason}" if answer.reason else ""
    )
    return _finish(verdict, final, detail, tool_input)


def _finish(
    verdict: GateResult,
    final: Behavior,
    detail: str,
    tool_input: Mapping[str, Any],
    rule: Any = None,
) -> GateResult:
    step = GateStep(GateStage.FALLBACK, final, detail)
    return replace(
        verdict,
        final=final,
        path=(*verdict.path, step),
        reason=detail,
        rule=rule or verdict.rule,
        tool_input=tool_input,
    )
