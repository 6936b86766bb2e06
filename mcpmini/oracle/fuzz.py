"""The differential fuzzer: seeded sessions, run through Claude Code and mcpmini side by side.

Rules of this module:

- :func:`generate` is a pure function of its seed: settings per scope (user, project, local,
  ``--settings``, managed) × keys (rules, ``defaultMode``, ``disableBypassPermissionsMode``,
  ``additionalDirectories``) × rule forms (case, spaces, wildcards, ``:*``, empty, malformed,
  non-string) × modes (:data:`mcpmini.permissions.MODES`, the one list) × hooks' outputs
  (PreToolUse and PermissionRequest, by a marker word in the input) × tool calls (commands
  and paths inside / outside / protected / in an added folder, MCP probe tools). The same
  seed always gives the same sessions, so a finding can be replayed.
- Each session runs through :func:`~.suite.run_session` (the pinned binary in the oracle's
  sandbox, then mcpmini on the same tree). Every call is one of :data:`Tally` ``agree``,
  ``disagree`` or ``unrunnable``: a call the binary could not judge — the session crashed or
  hung, the call was never reached, or the offline refusal of auto mode's safety check —
  is reported as such and never counted as an agreement or a disagreement.
- A disagreement is minimized (:func:`minimize`): settings, rules, hooks, files and the other
  calls are dropped one at a time while the binary and mcpmini still disagree on it, and the
  smallest session left is printed as YAML ready to paste into ``data/permissions/``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ..permissions import MODES, PermissionMode
from .case import Case, Scope
from .run import OracleFailure
from .suite import Outcome, SuiteCase, run_session
from .verdict import Cause, Verdict

__all__ = [
    "SAMPLE_CALLS",
    "SAMPLE_SEED",
    "Finding",
    "Report",
    "Tally",
    "generate",
    "main",
    "minimize",
    "run_fuzz",
    "to_yaml",
]

#: The fixed-seed sample ``make test`` runs (``tests/oracle/test_fuzz.py``).
SAMPLE_SEED = 32
SAMPLE_CALLS = 96
CALLS_PER_SESSION = 12

_FILES = {
    "a.txt": "a\n",
    "src/b.txt": "b\n",
    "../out/o.txt": "o\n",
    "../extra/e.txt": "e\n",
    "~/h.txt": "h\n",
}
_HOOK = """input=$(cat)
pre() { printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse",'\\
'"permissionDecision":"%s"}}' "$1"; }
req() { printf '{"hookSpecificOutput":{"hookEventName":"PermissionRequest",'\\
'"decision":{"behavior":"%s"}}}' "$1"; }
case "$input" in
  *PermissionRequest*) case "$input" in *pok*) req allow ;; *pno*) req deny ;; esac ;;
  *hallow*) pre allow ;;
  *hdeny*) pre deny ;;
  *hask*) pre ask ;;
esac
exit 0
"""
#: Rule forms, by tool; ``{n}`` is never used in a rule, so rules stay comparable.
_RULES = {
    "Bash": [
        "Bash",
        "Bash(*)",
        "Bash(touch *)",
        "Bash(touch:*)",
        "Bash(touch *:*)",
        "Bash( mkdir * )",
        "Bash(mkdir *)",
        "Bash(rm *)",
        "Bash(ls)",
        "Bash(ls *)",
        "Bash(cat *)",
        "Bash(echo *)",
        "Bash(git *)",
        "Bash(curl *)",
        "Bash(mkdir one)",
        "Bash(TOUCH *)",
        "Bash(cp *)",
        "Bash()",
        "Bash(touch *",
    ],
    "Read": [
        "Read",
        "Read(a.txt)",
        "Read(A.TXT)",
        "Read(src/**)",
        "Read(SRC/**)",
        "Read(/src/**)",
        "Read(//{root}/out/**)",
        "Read(//{root}/OUT/o.txt)",
        "Read(~/h.txt)",
        "Read(**)",
        "Read(a.txt))",
    ],
    "Edit": [
        "Edit",
        "Edit(*)",
        "Edit(**)",
        "Edit(src/**)",
        "Edit(SRC/**)",
        "Edit(.claude/**)",
        "Edit(//{root}/out/**)",
        "Edit(//{root}/extra/**)",
        "Write",
    ],
    "mcp": ["mcp__probe", "mcp__probe__store", "mcp__probe__*", "mcp__probe__lookup"],
}
_COMMANDS = [
    "ls",
    "ls src",
    "cat a.txt",
    "cat SRC/B.TXT",
    "cat {root}/out/o.txt",
    "cat ../out/o.txt",
    "head -1 src/b.txt",
    "cat ~/h.txt",
    "cat {root}/extra/e.txt",
    "touch t{n}.txt",
    "touch  s{n}.txt",
    "mkdir d{n}",
    "mkdir one",
    "mkdir  one",
    "rm -f r{n}.txt",
    "echo x > w{n}.txt",
    "echo x > .claude/x{n}",
    "touch .git/g{n}",
    "touch {root}/extra/t{n}",
    "touch {root}/out/t{n}",
    "cp a.txt c{n}.txt",
    "git status",
    "curl -s http://x.invalid",
    "sed -n 1p a.txt",
    "ls && touch u{n}.txt",
]
_READ_PATHS = [
    "{ws}/a.txt",
    "{ws}/src/b.txt",
    "{ws}/SRC/B.txt",
    "{root}/out/o.txt",
    "{root}/extra/e.txt",
    "{home}/h.txt",
    "/etc/hostname",
    "{ws}/.claude/none",
]
_WRITE_PATHS = [
    "{ws}/w{n}.txt",
    "{ws}/src/w{n}.txt",
    "{ws}/SRC/w{n}.txt",
    "{ws}/.claude/w{n}.txt",
    "{ws}/.git/w{n}",
    "{ws}/.mcp.json",
    "{root}/out/w{n}.txt",
    "{root}/extra/w{n}.txt",
]
_MARKERS = ["", "", "", "hallow", "hdeny", "hask", "pok", "pno"]


def _rules(rng: random.Random, count: int) -> list[Any]:
    out: list[Any] = []
    for _ in range(count):
        tool = rng.choice(list(_RULES))
        out.append(rng.choice(_RULES[tool]))
    if rng.random() < 0.05:
        out.append(3)  # not a string: skipped by Claude Code
    return out


def _settings(rng: random.Random) -> dict[Scope, dict[str, Any]]:
    scopes = [Scope.USER, Scope.PROJECT, Scope.LOCAL, Scope.FLAG, Scope.MANAGED]
    out: dict[Scope, dict[str, Any]] = {}
    modes = [m.value for m in MODES if m is not PermissionMode.PLAN]
    for scope in rng.sample(scopes, rng.randint(1, 3)):
        perms: dict[str, Any] = {}
        for key in ("allow", "ask", "deny"):
            if rng.random() < 0.6:
                perms[key] = _rules(rng, rng.randint(1, 3))
        if rng.random() < 0.15:
            perms["defaultMode"] = rng.choice([*modes, "weird"])
        if rng.random() < 0.1:
            perms["disableBypassPermissionsMode"] = "disable"
        if rng.random() < 0.15:
            perms["additionalDirectories"] = [rng.choice(["{root}/extra", "../extra", "../no"])]
        out[scope] = {"permissions": perms}
    return out


def _call(rng: random.Random, n: int) -> dict[str, Any]:
    """One call; the marker word (for the hook script) sits in an input field the hook sees,
    and the label carries the call's number, so labels are unique in a session."""
    marker = rng.choice(_MARKERS)
    kind = rng.choices(["bash", "read", "write", "edit", "mcp"], [6, 3, 3, 1, 1])[0]
    if kind == "bash":
        command = rng.choice(_COMMANDS).replace("{n}", str(n))
        call: dict[str, Any] = {"bash": command + (f" # {marker}" if marker else "")}
    elif kind == "read":
        call = {"read": rng.choice(_READ_PATHS)}
    elif kind == "mcp":
        tool = rng.choice(["mcp__probe__store", "mcp__probe__lookup"])
        call = {"mcp": tool, "input": {"note": marker or "fuzz"}}
    elif kind == "edit":
        call = {"edit": "{ws}/a.txt", "input": {"old_string": "a", "new_string": marker or "z"}}
    else:
        path = rng.choice(_WRITE_PATHS).replace("{n}", str(n))
        call = {"write": path, "input": {"content": f"{marker or 'fuzz'}\n"}}
    shown = next(v for k, v in call.items() if k != "input")
    return {**call, "label": f"#{n} {kind} {shown}"}


def generate(seed: int, calls: int, per_session: int = CALLS_PER_SESSION) -> list[Case]:
    """Sessions holding ``calls`` tool calls in all, a pure function of ``seed``."""
    rng = random.Random(seed)
    cases: list[Case] = []
    made = 0
    while made < calls:
        count = min(per_session, calls - made)
        settings = _settings(rng)
        hooks = rng.random() < 0.35
        if hooks:
            group = {"matcher": "Bash|Write|Edit|Read|mcp__probe__.*"}
            handler = [{"type": "command", "command": "sh {ws}/hook.sh"}]
            events = {"PreToolUse": [{**group, "hooks": handler}]}
            if rng.random() < 0.5:
                events["PermissionRequest"] = [{**group, "hooks": handler}]
            target = rng.choice([Scope.PROJECT, Scope.LOCAL, Scope.USER])
            settings.setdefault(target, {})["hooks"] = events
        data: dict[str, Any] = {
            "name": f"fuzz-{seed}-{len(cases)}",
            "settings": {str(s): v for s, v in settings.items()},
            "mode": rng.choice([None, None, *(m.value for m in MODES)]),
            "trusted": rng.random() < 0.8,
            "files": {**_FILES, **({"hook.sh": _HOOK} if hooks else {})},
            "mcp_servers": {"probe": {"probe": True}},
            "prompt_tool": rng.random() < 0.7,
            "args": ["--add-dir", "{root}/extra"] if rng.random() < 0.15 else [],
            "calls": [_call(rng, made + i) for i in range(count)],
        }
        if rng.random() < 0.1:
            data["allowed_tools"] = _rules(rng, 1)
        cases.append(Case.from_dict(data, source=f"fuzz seed {seed}"))
        made += count
    return cases


@dataclass
class Tally:
    """Calls that agree, disagree, or that the binary could not judge (never counted)."""

    agree: int = 0
    disagree: int = 0
    unrunnable: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def judged(self) -> int:
        """Calls counted: agreements and disagreements."""
        return self.agree + self.disagree

    def skip(self, reason: str, count: int = 1) -> None:
        self.unrunnable += count
        self.reasons[reason] = self.reasons.get(reason, 0) + count


@dataclass(frozen=True)
class Finding:
    """One disagreement: the session, the call's index, both verdicts, and (once
    minimized) the smallest case that still disagrees."""

    case: Case
    index: int
    claude: str
    mcpmini: str
    detail: str
    smallest: Case | None = None


@dataclass
class Report:
    """What a fuzz run saw: the tally, each finding, and how long it took."""

    seed: int
    tally: Tally = field(default_factory=Tally)
    findings: list[Finding] = field(default_factory=list)
    elapsed: float = 0.0


def _unrunnable(outcome: Outcome, index: int) -> str | None:
    """Why the binary could not judge call ``index`` (``None``: it did)."""
    seen = outcome.pairs[index].observed
    if seen.verdict is Verdict.UNREACHED:
        return "never reached"
    if seen.cause is Cause.CLASSIFIER:
        return "auto mode's safety check is unavailable offline"
    if seen.is_error and "has not been read yet" in seen.text:
        return "the tool refused its input before any permission check"
    return None


Runner = Callable[[Case], Outcome]


def _runner(binary: Path) -> Runner:
    return lambda case: run_session(SuiteCase("fuzz", case), binary)


def _still_disagrees(run: Runner, case: Case, label: str) -> bool:
    """Whether the call labelled ``label`` in ``case`` still disagrees (and was judged)."""
    try:
        outcome = run(case)
    except OracleFailure:
        return False
    for i, p in enumerate(outcome.pairs):
        if p.observed.call.label == label:
            return _unrunnable(outcome, i) is None and not p.agree
    return False


def _smaller(case: Case, keep: int) -> Iterable[Case]:
    """Candidate cases one piece smaller, the call at ``keep`` always kept."""
    if len(case.calls) > 1:
        yield replace(case, calls=(case.calls[keep],))
    for scope in list(case.settings):
        yield replace(case, settings={s: v for s, v in case.settings.items() if s != scope})
    for scope, block in case.settings.items():
        for key in list(block):
            rest = {k: v for k, v in block.items() if k != key}
            yield replace(case, settings={**case.settings, scope: rest})
        perms = block.get("permissions")
        if isinstance(perms, Mapping):
            for key, value in perms.items():
                trimmed = {k: v for k, v in perms.items() if k != key}
                yield replace(
                    case, settings={**case.settings, scope: {**block, "permissions": trimmed}}
                )
                if isinstance(value, list) and len(value) > 1:
                    for i in range(len(value)):
                        fewer = {**perms, key: value[:i] + value[i + 1 :]}
                        yield replace(
                            case,
                            settings={**case.settings, scope: {**block, "permissions": fewer}},
                        )
    if case.mode is not None:
        yield replace(case, mode=None)
    if case.args:
        yield replace(case, args=())
    if case.allowed_tools:
        yield replace(case, allowed_tools=())
    if not case.trusted:
        yield replace(case, trusted=True)
    if not case.prompt_tool:
        yield replace(case, prompt_tool=True)


def minimize(run: Runner, case: Case, index: int, budget: int = 25) -> Case:
    """The smallest case (greedy, at most ``budget`` runs of the binary) in which the call at
    ``index`` still disagrees; each step drops one piece and keeps the drop if it still does."""
    label = case.calls[index].label
    current, keep, runs = case, index, 0
    progress = True
    while progress and runs < budget:
        progress = False
        for candidate in _smaller(current, keep):
            if runs >= budget:
                break
            runs += 1
            if _still_disagrees(run, candidate, label):
                keep = next(i for i, c in enumerate(candidate.calls) if c.label == label)
                current, progress = candidate, True
                break
    return current


def to_yaml(case: Case, reason: str = "") -> str:
    """``case`` as one entry of a ``data/permissions/*.yaml`` file."""
    data = case.to_dict()
    defaults = Case(name="").to_dict()
    out = {k: v for k, v in data.items() if k == "name" or v != defaults[k]}
    out["calls"] = [
        {k: v for k, v in c.items() if v and not (k == "label" and v == _auto_label(c))}
        for c in data["calls"]
    ]
    if reason:
        out["calls"][-1]["known"] = reason
    text: str = yaml.safe_dump([out], sort_keys=False, allow_unicode=True, width=100)
    return text


def _auto_label(call: Mapping[str, Any]) -> str:
    first = next(iter(call["input"].values()), "") if call["input"] else ""
    return f"{call['tool']} {first}".strip() if isinstance(first, str) else str(call["tool"])


def run_fuzz(
    cases: Sequence[Case],
    run: Runner,
    *,
    seed: int,
    workers: int = 2,
    minimize_budget: int = 25,
    max_minimized: int = 10,
) -> Report:
    """Run every generated session, tally each call, minimize the first findings."""
    report = Report(seed)
    started = time.monotonic()

    def one(case: Case) -> Outcome | OracleFailure:
        try:
            return run(case)
        except OracleFailure as exc:
            return exc

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        outcomes = list(pool.map(one, cases))
    for case, got in zip(cases, outcomes, strict=True):
        if isinstance(got, OracleFailure):
            report.tally.skip(f"the binary gave no verdict ({got.kind.value})", len(case.calls))
            continue
        for i, p in enumerate(got.pairs):
            why = _unrunnable(got, i)
            if why is not None:
                report.tally.skip(why)
            elif p.agree:
                report.tally.agree += 1
            else:
                report.tally.disagree += 1
                detail = p.judged.error or p.judged.detail
                report.findings.append(
                    Finding(case, i, p.observed.verdict.value, p.judged.verdict, detail)
                )
    seen: set[tuple[str, str, str]] = set()
    for n, finding in enumerate(report.findings):
        key = (finding.case.calls[finding.index].label, finding.claude, finding.mcpmini)
        if n >= max_minimized * 4 or key in seen or len(seen) >= max_minimized:
            continue
        seen.add(key)
        small = minimize(run, finding.case, finding.index, minimize_budget)
        report.findings[n] = replace(finding, smallest=small)
    report.elapsed = time.monotonic() - started
    return report


def _print(report: Report, out: Any) -> None:
    t = report.tally
    share = f"{100 * t.agree / t.judged:.1f} %" if t.judged else "n/a"
    print(
        f"fuzz seed {report.seed}: {t.judged} calls judged, {t.agree} agree, "
        f"{t.disagree} disagree ({share} agreement); {t.unrunnable} the binary could not "
        f"judge; {report.elapsed:.0f} s",
        file=out,
    )
    for reason, count in sorted(t.reasons.items()):
        print(f"  not counted: {count} ({reason})", file=out)
    for f in report.findings:
        call = f.case.calls[f.index]
        print(
            f"DISAGREE {f.case.name} call {f.index} {call.label!r}: Claude Code {f.claude}, "
            f"mcpmini {f.mcpmini} ({f.detail[:120]})",
            file=out,
        )
        if f.smallest is not None:
            small = replace(f.smallest, name=f"{f.case.name}-{f.index}")
            print("# minimized, ready for mcpmini/oracle/data/permissions/:", file=out)
            print(to_yaml(small, f"found by the fuzzer: Claude Code {f.claude}"), file=out)


def main(argv: Sequence[str] | None = None) -> int:
    """``make fuzz-oracle N=… SEED=…``: exit 0 when every judged call agrees, 1 when one
    disagrees, 2 when the binary cannot be found or installed."""
    from .binary import ClaudeCodeMissing, install_claude

    parser = argparse.ArgumentParser(prog="python -m mcpmini.oracle.fuzz")
    parser.add_argument("-n", "--calls", type=int, default=SAMPLE_CALLS)
    parser.add_argument("--seed", type=int, default=SAMPLE_SEED)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--minimize", type=int, default=10, help="findings to minimize")
    parser.add_argument("--binary", help="the Claude Code executable (default: the pin)")
    args = parser.parse_args(argv)
    if args.calls < 1:
        print("fuzz: N must be a positive number of calls", file=sys.stderr)
        return 2
    try:
        binary = Path(args.binary) if args.binary else install_claude()
    except ClaudeCodeMissing as exc:
        print(f"fuzz: {exc}", file=sys.stderr)
        return 2
    cases = generate(args.seed, args.calls)
    report = run_fuzz(
        cases, _runner(binary), seed=args.seed, workers=args.workers, max_minimized=args.minimize
    )
    _print(report, sys.stdout)
    return 1 if report.tally.disagree else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
