"""The plain functions behind chapters 07-08, their widgets, plots and proposition checks."""

from __future__ import annotations

import pytest

from mcpmini.course.chapters import (
    MISSING,
    check_prop_4_3,
    explain_matcher,
    prop_4_3_rows,
    prop_4_5_trial,
    simulate_hook,
)
from mcpmini.hooks import MatcherRule


def test_explain_matcher_reports_rule_and_verdict():
    unanchored = explain_matcher("Edit.*", "NotebookEdit")
    assert unanchored.matched and unanchored.rule is MatcherRule.REGEX
    listed = explain_matcher("Edit|Write", "NotebookEdit")
    assert not listed.matched and listed.rule is MatcherRule.LIST
    assert "no match" in listed.text()
    assert explain_matcher("(?i)edit", "Edit").lines[-1] == "result: no match"


@pytest.mark.parametrize(
    ("exit_code", "on_failure", "outcome", "final"),
    [
        (0, "continue", "success", "allow"),
        (2, "continue", "blocking_error", "deny"),
        (1, "continue", "non_blocking_error", "allow"),
        (1, "block", "blocking_error", "deny"),
        (MISSING, "continue", "non_blocking_error", "allow"),
        (MISSING, "block", "blocking_error", "deny"),
    ],
)
def test_simulate_hook_runs_a_real_hook_then_the_gate(exit_code, on_failure, outcome, final):
    sim = simulate_hook(exit_code, "", on_failure, {"allow": ["Write"]}, "default")
    assert sim.outcome == outcome and sim.gate.final == final


def test_simulated_stdout_json_decides_on_exit_zero():
    stdout = '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}'
    sim = simulate_hook(0, stdout, rules={"allow": ["Write"]})
    assert sim.hooks.decision == "ask" and sim.gate.final == "ask"
    assert "final: ask" in sim.text()


def test_a_hook_allow_from_another_hook_does_not_beat_a_deny_rule():
    sim = simulate_hook(0, "", rules={"deny": ["Write"]}, other_decision="allow")
    assert sim.gate.final == "deny" and sim.gate.decided_by == "deny_rules"


def test_proposition_4_3_holds_on_the_whole_universe():
    rows = prop_4_3_rows()
    assert len(rows) == 4 * 2 * 4 * 4 * 5
    assert check_prop_4_3(rows) == {"4.3.1": True, "4.3.2": True, "4.3.3": True}


def test_the_proposition_checker_catches_a_counterexample():
    rows = prop_4_3_rows()
    broken = [dict(r) for r in rows]
    for r in broken:
        if r["outcome"] == "blocking_error" and r["rules"] == "allow Write":
            r["final"], r["stopped_at_hooks"] = "allow", False  # a gate that let it through
    assert check_prop_4_3(broken)["4.3.1"] is False
    leaky = [
        dict(r, final="deny") if r["exit_code"] == 1 and r["on_failure"] == "continue" else r
        for r in rows
    ]
    assert check_prop_4_3(leaky)["4.3.2"] is False


def test_proposition_4_5_the_hook_sees_every_executed_call_first():
    trials = [prop_4_5_trial(seed) for seed in range(30)]
    assert sum(t.executed for t in trials) > 0
    assert all(t.violations == 0 and t.env_writes == 0 for t in trials)


def test_without_the_guard_the_instruction_alone_does_not_stop_env_writes():
    trials = [prop_4_5_trial(seed, guard=False) for seed in range(30)]
    assert sum(t.env_writes for t in trials) > 0  # the model ignores the system prompt
    assert all(t.violations == 0 for t in trials)  # the hook still ran first


def test_widgets_and_plots_build_headless():
    pytest.importorskip("ipywidgets")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mcpmini.course.chapters import (
        GATE_STATIONS,
        hook_gate_lab,
        matcher_playground,
        plot_gate_path,
        plot_prop_4_5,
    )

    assert matcher_playground().children
    assert hook_gate_lab(exit_code=MISSING, on_failure="block").children
    sim = simulate_hook(2, "")
    fig = plot_gate_path(sim.gate)
    assert len(fig.axes[0].patches) == len(GATE_STATIONS)
    fig2 = plot_prop_4_5({"hook": [prop_4_5_trial(1)]})
    assert fig2.axes[0].containers
    plt.close("all")
