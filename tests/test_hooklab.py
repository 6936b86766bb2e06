"""The plain functions behind chapters 07-08, their widgets, plots and proposition checks."""

from __future__ import annotations

import pytest

from mcpmini.course.chapters import (
    MISSING,
    check_prop_4_3,
    check_prop_4_5,
    event_table,
    explain_matcher,
    guard_table,
    note_4_4_table,
    post_failure_table,
    prop_4_3_rows,
    prop_4_3_table,
    prop_4_5_constant,
    prop_4_5_table,
    prop_4_5_trial,
    simulate_hook,
    simulation_table,
)
from mcpmini.course.chapters.hooklab import (
    EFFECTS,
    STATIONS,
    gate_lines,
    note_4_4_rows,
    post_failure_rows,
    station_states,
)
from mcpmini.course.chapters.tables import frame
from mcpmini.course.edition import japanese_chars
from mcpmini.course.language import Lang, Text, use
from mcpmini.hooks import EVENTS, HookMatcher, MatcherRule
from mcpmini.permissions import GateStage, PermissionRules, gate


def test_explain_matcher_reports_rule_and_verdict():
    unanchored = explain_matcher("Edit.*", "NotebookEdit")
    assert unanchored.matched and unanchored.rule is MatcherRule.REGEX
    listed = explain_matcher("Edit|Write", "NotebookEdit")
    assert not listed.matched and listed.rule is MatcherRule.LIST
    with use(Lang.EN):
        assert "no match" in listed.text()
        assert explain_matcher("(?i)edit", "Edit").text().splitlines()[-1] == "result: no match"
    with use(Lang.JA):
        assert listed.text().splitlines()[-1] == "結果: マッチしない"
        assert (
            explain_matcher("Edit.*", "NotebookEdit").text().splitlines()[-1] == "結果: マッチする"
        )


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
    with use(Lang.EN):
        assert "final: ask" in sim.text()
    with use(Lang.JA):
        assert "最終の判定: 確認 (ask)" in sim.text()


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


# --- the words the chapters print, in each language ------------------------------------------


def test_every_station_of_the_gate_has_a_name_in_both_languages():
    assert list(STATIONS) == list(GateStage)
    assert all(japanese_chars(s.ja) and not japanese_chars(s.en) for s in STATIONS.values())


def test_the_simulation_report_speaks_the_current_language_only():
    sim = simulate_hook(1, "", "continue", {"allow": ["Write"]}, "default")
    with use(Lang.EN):
        english = sim.text()
    with use(Lang.JA):
        japanese = sim.text()
    assert not japanese_chars(english)
    assert "7. allow rules  [allow]  allow rule Write matches" in english
    assert "7. allow 規則  [許可 (allow)]  allow 規則 Write が当てはまる" in japanese
    for word in ("pass", "final", "hooks combined", "no deny rule"):
        assert word not in japanese


def test_the_report_lists_every_station_up_to_the_deciding_one_the_removal_check_included():
    sim = simulate_hook(0, "", rules={"allow": ["Write"]})
    states = station_states(sim.gate)
    assert [s for s, _ in states] == list(GateStage)
    # the runtime records no step for a passed removal check or hook decision; they count as
    # passed because the call reached the allow rules after them
    assert dict(states)[GateStage.SAFETY_CHECK] == "pass"
    assert dict(states)[GateStage.ALLOW_RULES] == "allow"
    assert dict(states)[GateStage.FALLBACK] == "unreached"
    with use(Lang.EN):
        assert len(gate_lines(sim.gate)) == 7


def test_a_dangerous_removal_is_decided_at_the_removal_check_in_every_mode():
    result = gate("Bash", {"command": "rm -rf /"}, mode="bypassPermissions", cwd="/repo")
    assert result.final == "ask" and result.decided_by == GateStage.SAFETY_CHECK
    with use(Lang.EN):
        (last,) = gate_lines(result)[-1:]
    assert "removal check" in last and "dangerous removal" in last


def test_a_protected_path_is_named_as_such_when_allow_rules_do_not_apply():
    result = gate(
        "Write",
        {"file_path": "/repo/.git/config"},
        rules=PermissionRules(allow=("Write",)),
        cwd="/repo",
    )
    with use(Lang.EN):
        lines = gate_lines(result)
    assert any("protected path" in line for line in lines)


def test_the_tables_label_their_columns_in_each_language():
    cases = [(0, "", "continue"), (1, "", "block")]
    with use(Lang.EN):
        english = simulation_table(cases, {"allow": ["Write"]}, stdout=False)
    with use(Lang.JA):
        japanese = simulation_table(cases, {"allow": ["Write"]}, stdout=False)
    assert list(english.columns) == ["exit code", "onFailure", "outcome", "hook decision", "final"]
    assert list(japanese.columns) == [
        "終了コード",
        "onFailure",
        "帰結",
        "フックの決定",
        "最終の判定",
    ]
    assert english.values.tolist() == japanese.values.tolist()
    assert japanese.values.tolist() == [
        [0, "continue", "success", "-", "allow"],
        [1, "block", "blocking_error", "deny", "deny"],
    ]


def test_a_hook_json_keeps_its_decision_in_view_when_shortened():
    stdout = '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}'
    with use(Lang.EN):
        table = simulation_table([(0, stdout, "continue")])
    assert table["stdout"][0] == '{… "permissionDecision": "ask"}'


def test_the_event_table_puts_the_article_events_first_and_describes_every_effect():
    assert set(EFFECTS) == set(EVENTS)
    assert all(japanese_chars(e.ja) for e in EFFECTS.values())
    assert [EFFECTS[n].en for n in EVENTS] == [s.effect for s in EVENTS.values()]
    with use(Lang.EN):
        table = event_table()
    article = sum(s.article for s in EVENTS.values())
    assert table["event"].str.startswith("★").tolist() == [True] * article + [False] * (
        len(EVENTS) - article
    )
    with use(Lang.JA):
        assert event_table().columns[0] == "イベント"


def test_frame_names_a_missing_column():
    with pytest.raises(KeyError):
        frame([{"a": 1}], {"b": Text("ビー", "b")})


# --- a PostToolUse formatter that fails ------------------------------------------------------


def test_a_failing_formatter_tells_claude_only_under_block_and_stops_nothing():
    rows = {r["on_failure"]: r for r in post_failure_rows()}
    assert rows["continue"]["outcome"] == "non_blocking_error"
    assert rows["continue"]["to_claude"] == "-"
    assert rows["block"]["outcome"] == "blocking_error"
    assert "format_after_write" in rows["block"]["to_claude"]
    with use(Lang.EN):
        assert {str(r["blocked"]) for r in rows.values()} == {"no"}
        assert list(post_failure_table().columns)[-1] == "what Claude is told"


# --- Note 4.4 -------------------------------------------------------------------------------


def test_note_4_4_disable_all_hooks_and_timeouts_break_the_guarantee_as_documented():
    rows = note_4_4_rows(timeout=0.3)
    finals = [r["final"] for r in rows]
    ran = [r["ran"] for r in rows]
    assert finals == ["deny", "allow", "deny", "allow", "deny", "allow", "deny"]
    assert ran == [1, 0, 1, 0, 1, 1, 1]
    assert [r["outcome"] for r in rows[4:]] == [
        "blocking_error",
        "non_blocking_error",
        "blocking_error",
    ]
    with use(Lang.EN):
        assert str(rows[1]["decided_at"]) == "allow rules"
        columns = list(note_4_4_table(timeout=0.3).columns)
    assert columns == ["case", "hooks run", "outcome", "final", "decided at"]


def test_the_guard_table_compares_the_gate_without_and_with_the_hooks():
    def deny_all(input_data, tool_use_id, context):
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}

    guard = {"PreToolUse": [HookMatcher("Bash", [deny_all])]}
    with use(Lang.EN):
        table = guard_table(
            ["ls", "eval 'rm -rf /'"],
            guard,
            PermissionRules(),
            "bypassPermissions",
            home="/home/alice",
        )
    assert table.values.tolist() == [["ls", "allow", "deny"], ["eval 'rm -rf /'", "allow", "deny"]]


def test_the_proposition_4_3_table_counts_defer_apart():
    rows = prop_4_3_rows()
    with use(Lang.EN):
        table = prop_4_3_table(rows)
    assert table.columns.name == "final" and "defer" in table.columns
    assert int(table.values.sum()) == len(rows)


# --- Proposition 4.5, part 2 and the check of both parts -------------------------------------


def test_a_constant_model_ignores_the_instruction_it_was_shown_and_a_guard_stops_it():
    alone = prop_4_5_constant()
    guarded = prop_4_5_constant(guard=True)
    assert (
        alone.env_writes == 1
        and alone.shown
        and all("Never write to .env" in shown for shown in alone.shown)
    )
    assert guarded.env_writes == 0 and guarded.violations == 0
    trials = [prop_4_5_trial(seed, guard=False) for seed in range(10)]
    result = check_prop_4_5(trials, alone, guarded=[prop_4_5_trial(1), guarded])
    assert result == {"4.5.1": True, "4.5.2": True}


def test_the_proposition_4_5_check_catches_its_counterexamples():
    trials = [prop_4_5_trial(seed) for seed in range(5)]
    obeying = prop_4_5_constant(guard=True)  # wrote nothing: not a counterexample to obedience
    assert check_prop_4_5(trials, obeying)["4.5.2"] is False
    unseen = prop_4_5_constant()
    unseen.events.insert(0, ("run", "Write", "/repo/x"))  # a run the hook never saw
    assert check_prop_4_5([unseen], prop_4_5_constant())["4.5.1"] is False
    leaky = prop_4_5_constant(guard=False)
    assert check_prop_4_5(trials, leaky, guarded=[leaky])["4.5.1"] is False


def test_the_proposition_4_5_table_labels_its_groups():
    groups = {"guard": [prop_4_5_trial(1)], "record": [prop_4_5_trial(1, guard=False)]}
    with use(Lang.JA):
        table = prop_4_5_table(groups)
    assert table.iloc[:, 0].tolist() == ["フックが .env を止める", "フックは記録だけ"]
    assert table.iloc[0, 3] == 0


def test_part_1_alone_is_checked_when_no_constant_model_is_given():
    trials = [prop_4_5_trial(seed) for seed in range(5)]
    assert check_prop_4_5(trials, guarded=trials) == {"4.5.1": True}
