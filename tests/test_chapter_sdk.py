"""Chapters 08, 11 and 12: the loop's events and options, the bound per input, and the summary
table built from experiments (course/chapters/sdk.py, summary.py), in both languages."""

from __future__ import annotations

import pytest

from mcpmini.agent import AgentOptions, AlwaysToolModel, ConstantModel, RouterModel, run
from mcpmini.course.chapters import (
    events_table,
    experiment,
    findings,
    findings_lines,
    input_rows,
    input_table,
    limit_table,
    observation_table,
    options_table,
    sdk,
    summary_display,
    summary_rows,
    summary_table,
    undescribed_options,
)
from mcpmini.course.chapters.sdk import limit_rows
from mcpmini.course.edition import japanese_chars
from mcpmini.course.language import Lang, use
from mcpmini.mcp import add_server


def _add_options(max_turns: int | None) -> AgentOptions:
    return AgentOptions(
        mcp_servers={"calc": add_server()}, allowed_tools=["mcp__calc__add"], max_turns=max_turns
    )


def test_the_events_table_names_each_step_and_keeps_the_runtimes_record():
    r = run(
        "Please add two numbers",
        RouterModel(arguments={"mcp__calc__add": {"a": 2, "b": 3}}),
        _add_options(5),
    )
    with use(Lang.JA):
        japanese = events_table(r, {"toolu_": "<id>"})
    with use(Lang.EN):
        english = events_table(r)
    assert list(japanese.columns) == ["ターン", "段", "ツール", "ランタイムの記録"]
    assert english["step"].tolist()[:2] == ["model call", "permission gate"]
    assert japanese["段"].tolist()[:2] == ["モデルの呼び出し", "関門"]
    assert english["the runtime's record"].tolist() == [e.detail for e in r.events]


def test_every_option_has_its_place_in_the_model_and_a_new_one_is_caught(monkeypatch):
    assert undescribed_options() == []
    with use(Lang.EN):
        table = options_table()
    assert set(table["option"]) == set(sdk.OPTION_ROLES)
    assert not any(japanese_chars(str(v)) for v in table.values.ravel())
    roles = dict(sdk.OPTION_ROLES)
    del roles["cwd"]
    monkeypatch.setattr(sdk, "OPTION_ROLES", roles)
    with pytest.raises(LookupError, match="cwd"):
        options_table()


def test_the_bound_holds_per_input_and_the_total_grows_with_the_inputs():
    rows = input_rows(
        ["1 + 1", "2 + 2", "3 + 3"],
        lambda: AlwaysToolModel("mcp__calc__add", {"a": 1, "b": 1}),
        _add_options(2),
    )
    assert [r["model_calls"] for r in rows] == [3, 3, 3]
    assert {r["bound"] for r in rows} == {3} and {r["stop"] for r in rows} == {"max_turns"}
    with use(Lang.JA):
        assert input_table(rows).columns[0] == "入力"
    unbounded = input_rows(["x"], lambda: ConstantModel("no tool"), _add_options(None))
    assert unbounded[0]["bound"] == "-" and unbounded[0]["model_calls"] == 1


def test_the_limit_rows_meet_t_plus_one_and_keep_the_pairing():
    rows = limit_rows((0, 2))
    assert [(r["limit"], r["model_calls"], r["turns"]) for r in rows] == [(0, 1, 0), (2, 3, 2)]
    assert all(r["stop"] == "max_turns" for r in rows)
    with use(Lang.EN):
        assert limit_table((1,))["pairing holds"].tolist() == ["✓"]


def test_the_experiment_sees_what_depends_on_the_model():
    models = {
        "router": RouterModel(arguments={"mcp__calc__add": {"a": 2, "b": 3}}),
        "constant": ConstantModel("I will not use any tool."),
        "always-tool": AlwaysToolModel("Skill", {"name": "review"}),
    }
    observed = {name: experiment(model) for name, model in models.items()}
    assert observed["constant"]["model_calls"] == 1 and observed["constant"]["executed"] == 0
    assert observed["always-tool"]["skill_body"] and not observed["router"]["skill_body"]
    found = findings(observed)
    assert found["mcp_depends"] and found["hooks_fixed"] and found["skill_depends"]
    assert found["loop_same"] and found["model_calls"] == [2, 1, 3]
    with use(Lang.EN):
        assert findings_lines(found)[0] == "the MCP tools called vary with the model: True"
        assert list(observation_table(observed).index) == list(models)


def test_the_summary_words_follow_the_findings_and_the_checks():
    found = {
        "mcp_depends": False,
        "hooks_fixed": True,
        "skill_depends": True,
        "loop_same": True,
        "model_calls": [1],
    }
    checks = {p: True for p in ("3.3", "3.4", "3.7", "3.8", "4.3", "4.5", "5.2", "6.2", "7.1")}
    checks["6.2"] = False
    with use(Lang.EN):
        rows = {
            str(r["mechanism"]): {k: str(v) for k, v in r.items()}
            for r in summary_rows(found, checks)
        }
    assert rows["MCP"]["depends"] == "does not depend"
    assert rows["skills"]["depends"].startswith("depends: ")
    assert rows["plugins"]["props"] == "6.2 ✗"
    assert rows["plugins"]["depends"] == "per component (skills depend, hooks do not)"
    with use(Lang.JA):
        shown = summary_display(summary_table(found, checks))
    assert set(shown) == {"text/html", "text/plain"} and "仕組み" in shown["text/plain"]
