"""The differential fuzzer without the binary: the generator is a pure function of its seed,
every generated session is a valid case, the tally never counts what the binary could not
judge, and the minimizer keeps only what the disagreement needs."""

from __future__ import annotations

from dataclasses import replace

import yaml

from mcpmini.oracle.case import Case, Scope
from mcpmini.oracle.compare import Judged, Pair
from mcpmini.oracle.fuzz import SAMPLE_CALLS, SAMPLE_SEED, generate, minimize, run_fuzz, to_yaml
from mcpmini.oracle.run import Failure, OracleFailure
from mcpmini.oracle.suite import Outcome, SuiteCase
from mcpmini.oracle.verdict import Cause, Observed, Verdict
from mcpmini.permissions import MODES


def test_the_same_seed_gives_the_same_sessions_and_another_seed_others():
    a, b = generate(7, 40), generate(7, 40)
    assert [c.to_dict() for c in a] == [c.to_dict() for c in b]
    assert [c.to_dict() for c in generate(8, 40)] != [c.to_dict() for c in a]
    assert sum(len(c.calls) for c in a) == 40


def test_generated_sessions_are_cases_with_unique_labels_and_known_modes():
    cases = generate(SAMPLE_SEED, SAMPLE_CALLS)
    assert sum(len(c.calls) for c in cases) == SAMPLE_CALLS
    for case in cases:
        assert Case.from_dict(case.to_dict()).to_dict() == case.to_dict()
        labels = [c.label for c in case.calls]
        assert len(set(labels)) == len(labels)
        assert case.mode is None or case.mode in {m.value for m in MODES}
    kinds = {c.tool for case in generate(1, 600) for c in case.calls}
    assert {"Bash", "Read", "Write", "Edit", "mcp__probe__store"} <= kinds


def _fake(rule: str):
    """A stand-in for the binary: Claude Code denies a call while the case holds ``rule``;
    mcpmini always allows; a case with mode plan gives no verdict at all."""

    def run(case: Case) -> Outcome:
        if case.mode == "plan":
            raise OracleFailure(Failure.CRASHED, "no result")
        held = rule in str(case.to_dict()["settings"])
        pairs = []
        for i, call in enumerate(case.calls):
            denied = held and call.tool == "Bash"
            verdict = Verdict.UNREACHED if call.tool == "Read" else Verdict.ALLOW
            cause = Cause.NONE
            if denied:
                verdict, cause = Verdict.DENY, Cause.RULE
            seen = Observed(i, call, verdict, cause, "", denied)
            pairs.append(Pair(seen, Judged(call, "allow")))
        return Outcome(SuiteCase("fuzz", case), None, tuple(pairs))  # type: ignore[arg-type]

    return run


def test_the_tally_leaves_out_what_the_binary_could_not_judge_and_minimizes_findings():
    base = Case.from_dict(
        {
            "name": "c",
            "settings": {"user": {"permissions": {"deny": ["Bash(x)", "Bash(y)"]}}},
            "calls": [{"bash": "ls"}, {"read": "/a"}, {"write": "/w"}],
            "trusted": False,
        }
    )
    crashed = replace(base, name="p", mode="plan")
    report = run_fuzz([base, crashed], _fake("Bash(y)"), seed=0, workers=1)
    t = report.tally
    assert (t.agree, t.disagree, t.unrunnable) == (1, 1, 4)
    assert set(t.reasons) == {"never reached", "the binary gave no verdict (crashed)"}
    [finding] = report.findings
    small = finding.smallest
    assert small is not None and [c.tool for c in small.calls] == ["Bash"]
    assert small.settings == {Scope.USER: {"permissions": {"deny": ["Bash(y)"]}}}
    assert small.trusted is True
    pasted = yaml.safe_load(to_yaml(small, "found"))
    again = Case.from_dict(pasted[0])
    assert again.calls[0].known == "found" and again.settings == small.settings


def test_minimize_stops_at_its_budget():
    case = generate(3, 12)[0]
    runs = []

    def run(c: Case) -> Outcome:
        runs.append(c)
        return _fake("never")(c)

    assert minimize(run, case, 0, budget=5) == case and len(runs) == 5
