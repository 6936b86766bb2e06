"""mcpmini's own verdict on a laid-out case, beside Claude Code's.

Rules of this module:

- mcpmini decides exactly as ``mcpmini hooks run`` does: :func:`mcpmini.hooks.load_settings`
  over the case's settings files (each labelled with its scope), then
  :func:`mcpmini.hooks.decide` per call with the pooled rules, the case's mode (or the
  settings' ``defaultMode``), the workspace as ``cwd`` and the temporary home. Nothing here
  models Claude Code: a disagreement is a finding, never patched over in this module.
- mcpmini's hooks run on the host with the case's environment (:func:`~.run.claude_env`) and
  the workspace as project folder; case hooks are the case table's own harmless commands.
- Claude Code's ``ask`` in ``dontAsk`` mode cannot happen (it denies instead), so verdicts
  compare as they are: ``allow`` / ``ask`` / ``deny``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import McpminiError
from ..hooks import decide, load_settings
from .case import Call, Scope
from .fakeapi import tool_use_id
from .run import Session, Tree, claude_env
from .verdict import Observed, Verdict

__all__ = ["SCOPE_LABELS", "Judged", "Pair", "agreement", "judge", "pair"]

#: The ``load_settings`` label of each scope's settings file. ``--settings`` has no label of
#: its own in mcpmini (Claude Code ranks it between local and managed): read as ``local``.
SCOPE_LABELS: dict[Scope, str] = {
    Scope.USER: "user",
    Scope.PROJECT: "project",
    Scope.LOCAL: "local",
    Scope.FLAG: "local",
    Scope.MANAGED: "managed",
}


@dataclass(frozen=True)
class Judged:
    """mcpmini's verdict on one call (``error`` when it raised), with the gate's path."""

    call: Call
    verdict: str
    detail: str = ""
    error: str | None = None
    decided: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Pair:
    """Claude Code's observation and mcpmini's verdict for the same call."""

    observed: Observed
    judged: Judged

    @property
    def agree(self) -> bool:
        """True when both gave the same ``allow`` / ``ask`` / ``deny``."""
        return self.observed.verdict.value == self.judged.verdict

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready row: Claude Code's observation plus mcpmini's verdict."""
        row = self.observed.to_dict()
        row["mcpmini"] = self.judged.verdict
        row["mcpmini_detail"] = self.judged.detail
        row["agree"] = self.agree
        if self.judged.error:
            row["mcpmini_error"] = self.judged.error
        return row


def judge(tree: Tree) -> tuple[Judged, ...]:
    """mcpmini's verdict on every call of the laid-out case (see the module doc)."""
    case = tree.case
    sources = [(SCOPE_LABELS[s], str(p)) for s, p in tree.settings_files.items()]
    environ = claude_env(str(tree.home), case.env, case.tool_search)
    try:
        settings = load_settings(sources, home=str(tree.home))
    except McpminiError as exc:
        return tuple(Judged(c, "error", error=str(exc)) for c in case.calls)
    mode = case.mode or settings.default_mode or "default"
    out = []
    for index, call in enumerate(case.calls):
        try:
            decided = decide(
                settings,
                call.tool,
                call.input,
                rules=settings.permissions,
                mode=mode,
                cwd=str(tree.ws),
                home=str(tree.home),
                tool_use_id=tool_use_id(index),
                project_dir=str(tree.ws),
                environ=environ,
                timeout=30,
            )
        except McpminiError as exc:
            out.append(Judged(call, "error", error=str(exc)))
            continue
        final = decided.final
        gate = decided.gate
        detail = f"{gate.decided_by.value}: {gate.reason}" if gate is not None else ""
        out.append(Judged(call, final.value if final else "none", detail, None, decided.to_dict()))
    return tuple(out)


def pair(session: Session, judged: Sequence[Judged]) -> tuple[Pair, ...]:
    """Claude Code's and mcpmini's verdicts side by side, call by call."""
    return tuple(Pair(o, j) for o, j in zip(session.calls, judged, strict=True))


def agreement(pairs: Sequence[Pair]) -> dict[str, int]:
    """Counts of agreeing and disagreeing pairs (unreached calls count as disagreeing)."""
    agree = sum(1 for p in pairs if p.agree and p.observed.verdict is not Verdict.UNREACHED)
    return {"agree": agree, "disagree": len(pairs) - agree}
