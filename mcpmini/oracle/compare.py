"""mcpmini's own verdict on a laid-out case, beside Claude Code's.

Rules of this module:

- mcpmini decides as ``mcpmini hooks run`` does: :func:`mcpmini.hooks.load_settings` over the
  case's settings files (each labelled with its scope, the workspace's trust passed in) for
  the hooks, the pooled permission rules, the starting mode and the additional directories,
  then :func:`mcpmini.hooks.decide` per call with those rules (the command line's
  ``--allowedTools`` / ``--disallowedTools`` pooled in as allow / deny rules, as
  ``mcpmini hooks run --allow / --deny`` does), the mode the session starts in
  (``HookSettings.starting_mode`` of the case's ``--permission-mode``), ``--add-dir``
  folders, whether the session has a prompt tool, the workspace as ``cwd`` and the home.
  Nothing here models Claude Code: a disagreement is a finding, never patched over in this module.
- A case with hooks (or plugins) is judged inside the same bubblewrap sandbox as Claude Code
  (``python -m mcpmini.oracle.compare PLAN``): its hook commands never run on the host, and
  they see the same user, paths and environment (:func:`~.run.claude_env`) as under Claude
  Code. A case without hooks starts no program and is judged in this process.
- Claude Code's ``ask`` in ``dontAsk`` mode cannot happen (it denies instead), so verdicts
  compare as they are: ``allow`` / ``ask`` / ``deny``.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import McpminiError
from ..hooks import decide, load_settings
from ..permissions import PermissionRules
from ..process import Ending, run
from .case import Call, Case, Scope
from .fakeapi import tool_use_id
from .run import Failure, OracleFailure, Session, Tree, claude_env, sandbox_argv
from .verdict import Observed, Verdict

__all__ = ["SCOPE_LABELS", "Judged", "Pair", "agreement", "judge", "main", "pair"]

#: The ``load_settings`` label of each scope's settings file.
SCOPE_LABELS: dict[Scope, str] = {
    Scope.USER: "user",
    Scope.PROJECT: "project",
    Scope.LOCAL: "local",
    Scope.FLAG: "flag",
    Scope.MANAGED: "managed",
}


def _added_dirs(args: Sequence[str]) -> list[str]:
    """The folders the command line adds with ``--add-dir DIR`` (or ``--add-dir=DIR``)."""
    found = []
    for i, arg in enumerate(args):
        if arg == "--add-dir" and i + 1 < len(args):
            found.append(args[i + 1])
        elif arg.startswith("--add-dir="):
            found.append(arg.split("=", 1)[1])
    return found


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


def _has_hooks(case: Case) -> bool:
    return bool(case.plugin_dirs) or any(
        s.get("hooks") for s in case.settings.values() if isinstance(s, Mapping)
    )


def judge(tree: Tree, *, sandboxed: bool | None = None) -> tuple[Judged, ...]:
    """mcpmini's verdict on every call of the laid-out case (see the module doc).

    ``sandboxed`` (default: when the case has hooks or plugins) runs mcpmini inside the same
    bubblewrap sandbox as Claude Code, so the case's hook commands run confined, with the same
    user, paths and environment as Claude Code's; otherwise mcpmini runs in this process, where
    it starts no program. Raises :class:`~.run.OracleFailure` when the sandbox cannot run.
    """
    if sandboxed is None:
        sandboxed = _has_hooks(tree.case)
    if sandboxed:
        return _judge_sandboxed(tree)
    return _judge_here(tree)


def _judge_sandboxed(tree: Tree) -> tuple[Judged, ...]:
    plan = {
        "case": tree.case.to_dict(),
        "root": str(tree.root),
        "settings_files": {str(s): str(p) for s, p in tree.settings_files.items()},
        "out": str(tree.root / "judged.json"),
    }
    plan_path = tree.root / "judge-plan.json"
    plan_path.write_text(json.dumps(plan), encoding="utf-8")
    argv = [sys.executable, "-I", "-m", "mcpmini.oracle.compare", str(plan_path)]
    exe = shutil.which("bwrap")
    if exe is None:
        raise OracleFailure(Failure.SANDBOX, "bubblewrap (bwrap) is not installed")
    done = run(
        sandbox_argv(argv, tree.root, tree.ws, Path(sys.executable), bwrap=exe),
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"},
        timeout=30 + 30 * len(tree.case.calls),
    )
    out = tree.root / "judged.json"
    if done.ending is not Ending.EXITED or done.exit_code != 0 or not out.exists():
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        raise OracleFailure(
            Failure.SANDBOX,
            f"mcpmini's own verdicts did not run in the sandbox ({done.ending.value}, "
            f"exit {done.exit_code}): {lines[0][:200] if lines else 'no output'}",
        )
    rows = json.loads(out.read_text(encoding="utf-8"))
    return tuple(
        Judged(c, r["verdict"], r["detail"], r["error"], r["decided"])
        for c, r in zip(tree.case.calls, rows, strict=True)
    )


def _judge_here(tree: Tree) -> tuple[Judged, ...]:
    case = tree.case
    sources = [(SCOPE_LABELS[s], str(p)) for s, p in tree.settings_files.items()]
    environ = claude_env(str(tree.home), case.env, case.tool_search)
    try:
        settings = load_settings(sources, home=str(tree.home), strict=False, trusted=case.trusted)
        mode = settings.starting_mode(case.mode).mode
    except McpminiError as exc:
        return tuple(Judged(c, "error", error=str(exc)) for c in case.calls)
    flags = PermissionRules.from_flags(case.allowed_tools, case.disallowed_tools)
    rules = flags.merged(settings.permissions)
    dirs = (*settings.additional_dirs, *_added_dirs(case.args))
    out = []
    for index, call in enumerate(case.calls):
        try:
            decided = decide(
                settings,
                call.tool,
                call.input,
                rules=rules,
                mode=mode,
                cwd=str(tree.ws),
                home=str(tree.home),
                tool_use_id=tool_use_id(index),
                project_dir=str(tree.ws),
                environ=environ,
                timeout=30,
                additional_dirs=dirs,
                prompt_tool=case.prompt_tool,
            )
        except McpminiError as exc:
            out.append(Judged(call, "error", error=str(exc)))
            continue
        final = decided.final
        gate = decided.gate
        detail = f"{gate.decided_by.value}: {gate.reason}" if gate is not None else ""
        out.append(Judged(call, final.value if final else "none", detail, None, decided.to_dict()))
    return tuple(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Inside the sandbox: read a judge plan, write mcpmini's verdicts as JSON rows."""
    args = list(sys.argv[1:] if argv is None else argv)
    plan = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    files = {Scope(k): Path(v) for k, v in plan["settings_files"].items()}
    tree = Tree(Path(plan["root"]), Case.from_dict(plan["case"]), files)
    rows = [
        {"verdict": j.verdict, "detail": j.detail, "error": j.error, "decided": j.decided}
        for j in _judge_here(tree)
    ]
    Path(plan["out"]).write_text(json.dumps(rows, default=str), encoding="utf-8")
    return 0


def pair(session: Session, judged: Sequence[Judged]) -> tuple[Pair, ...]:
    """Claude Code's and mcpmini's verdicts side by side, call by call."""
    return tuple(Pair(o, j) for o, j in zip(session.calls, judged, strict=True))


def agreement(pairs: Sequence[Pair]) -> dict[str, int]:
    """Counts of agreeing and disagreeing pairs (unreached calls count as disagreeing)."""
    agree = sum(1 for p in pairs if p.agree and p.observed.verdict is not Verdict.UNREACHED)
    return {"agree": agree, "disagree": len(pairs) - agree}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
