"""The runnable side of the CCA-F track: routing, tool counts, retries, built-in tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpmini.agent import builtin_tools
from mcpmini.course.ccaf import (
    REQUESTS,
    TOOL_TASKS,
    TOOLSETS,
    ErrorCategory,
    error_result,
    expected_tool,
    grade_tool_choices,
    make_sample_repo,
    policy_for,
    routing_accuracy,
    selection_accuracy,
    simulate_retries,
)


def test_there_are_at_least_30_requests_covering_every_tool_of_every_set() -> None:
    assert len(REQUESTS) >= 30
    for name, tools in TOOLSETS.items():
        assert {expected_tool(i, name) for _, i in REQUESTS} == {t["name"] for t in tools}


def test_rewritten_descriptions_route_better_than_vague_ones() -> None:
    vague, rewritten = routing_accuracy("vague"), routing_accuracy("rewritten")
    assert vague.total == rewritten.total == len(REQUESTS)
    assert rewritten.accuracy - vague.accuracy >= 0.3
    assert vague.ties > rewritten.ties
    assert sum(h for h, _ in rewritten.per_tool.values()) == rewritten.hits


def test_the_split_set_gives_each_former_analyze_document_job_its_own_tool() -> None:
    split = routing_accuracy("split")
    assert {"extract_data_points", "summarize_document", "verify_citation"} <= set(split.per_tool)
    assert split.accuracy > routing_accuracy("vague").accuracy


def test_selection_accuracy_falls_as_an_agent_holds_more_tools() -> None:
    rows = selection_accuracy((5, 18), seeds=5)
    assert [r["tools"] for r in rows] == [5, 18]
    assert rows[0]["accuracy"] > rows[1]["accuracy"]
    assert rows[0]["stolen"] == 0 and rows[1]["stolen"] > 0
    with pytest.raises(ValueError):
        selection_accuracy((19,))


def test_an_error_result_carries_the_category_inside_the_content() -> None:
    result = error_result(ErrorCategory.TRANSIENT, "timed out", attempts=1)
    assert result["isError"] is True
    body = json.loads(result["content"][0]["text"])
    assert (
        body
        == {
            "errorCategory": "transient",
            "isRetryable": True,
            "message": "timed out",
            "attempts": 1,
        }
        == result["structuredContent"]
    )
    assert (
        json.loads(error_result(ErrorCategory.BUSINESS, "x")["content"][0]["text"])["isRetryable"]
        is False
    )


def test_only_transient_errors_are_retried() -> None:
    assert [c.value for c in ErrorCategory if policy_for(c).retry] == ["transient"]


def test_the_structured_policy_spends_fewer_calls_than_blind_retries_and_loses_nothing() -> None:
    structured = simulate_retries(300, seed=1)
    naive = simulate_retries(300, seed=1, policy="naive")
    assert structured.calls < naive.calls and structured.wait_s < naive.wait_s
    outcomes = {o for _, o in structured.outcomes}
    assert "gave up: generic failure" not in outcomes
    assert {
        "fixed by the model",
        "explained to the user",
        "escalated to a human",
        "recovered by retry",
    } <= outcomes
    # the same faults are drawn whatever the policy, so the totals agree
    assert sum(structured.outcomes.values()) == sum(naive.outcomes.values()) == 300
    assert (
        structured.outcomes[("empty", "answered: no results")]
        == naive.outcomes[("empty", "answered: no results")]
    )
    with pytest.raises(ValueError):
        simulate_retries(policy="sometimes")


def test_grep_finds_contents_glob_finds_names_in_the_sample_repo(tmp_path: Path) -> None:
    tools = {t.name: t for t in builtin_tools(make_sample_repo(tmp_path))}
    assert (
        tools["Grep"]
        .run({"pattern": "Payment declined"})
        .content.startswith("src/shop/payment.py:")
    )
    assert tools["Glob"].run({"pattern": "tests/test_*.py"}).content.splitlines() == [
        "tests/test_login.py",
        "tests/test_payment.py",
        "tests/test_refund.py",
    ]
    edit = tools["Edit"].run(
        {"file_path": "config/app.yaml", "old_string": "timeout: 30", "new_string": "timeout: 60"}
    )
    assert edit.is_error


def test_tool_choices_are_graded_case_and_space_insensitively() -> None:
    rows = grade_tool_choices({"0": "grep", "1": "Grep", str(TOOL_TASKS[6][0]): "Read + Write"})
    assert [r["ok"] for r in rows[:2]] == [True, False]
    assert rows[6]["ok"] and rows[2]["chosen"] is None and not rows[2]["ok"]


def test_tool_tasks_are_said_in_the_learners_language() -> None:
    from mcpmini.course.ccaf import tool_choice_lines
    from mcpmini.course.language import use

    with use("en"):
        lines = tool_choice_lines({"0": "Grep"})
    assert lines[0].startswith("○ 0 Find which file") and lines[-1] == "1/8 right"
    with use("ja"):
        lines = tool_choice_lines({})
    assert "未回答" in lines[0] and lines[-1] == "0/8 正解"
