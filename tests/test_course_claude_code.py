"""The chapters' bridge to the real Claude Code: recorded results carry their version, cover
every example and equal a live run of the pinned binary (skipped with the reason when it
cannot run here, a failure under ``CI=true``)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

import mcpmini.course.chapters.claude_code as bridge
from mcpmini.course.chapters.attacks import PERMISSION_CASES
from mcpmini.oracle import PIN


def _stable(name: str, value: Any) -> Any:
    """The part of an example's result that does not depend on temporary paths."""
    if name == "mcp_tools":
        return {k: {"tools": v["tools"], "deferred": v["deferred"]} for k, v in value.items()}
    if name == "large_result":
        return [
            {**r, "shown_chars": r["shown_chars"] if r["fate"] == "whole" else None} for r in value
        ]
    return value


def test_the_recorded_file_names_the_pinned_version_and_its_recorder() -> None:
    data = json.loads(bridge.RECORDED.read_text(encoding="utf-8"))
    assert data["version"] == PIN
    assert data["recorded_by"] == bridge.RECORD_COMMAND
    assert set(data["examples"]) == set(bridge.EXAMPLES)


def test_a_recorded_answer_says_so_in_one_line() -> None:
    answer = bridge.through_claude_code("skill_listing", live=False)
    assert not answer.live
    assert answer.version == PIN
    from mcpmini.course import Lang, use

    with use(Lang.EN):
        assert "recorded" in answer.line and "\n" not in answer.line


def test_an_unknown_example_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        bridge.through_claude_code("no-such-example", live=False)


def test_the_attack_table_gets_one_claude_code_verdict_per_row() -> None:
    rows = bridge.attack_rows(answer=bridge.recorded("permissions"))
    assert len(rows) == len(PERMISSION_CASES)
    column = f"Claude Code {PIN}"
    words = {"allow", "ask", "deny", "no such tool", "unreached", *bridge.NOT_RUN.values()}
    assert {r[column] for r in rows} <= words


def test_the_large_result_rows_put_result_fate_beside_claude_code() -> None:
    rows = bridge.large_result_rows(bridge.recorded("large_result"))
    assert [r["result chars"] for r in rows] == list(bridge.LARGE_SIZES)
    assert all(r["mcpmini result_fate"] == r[f"Claude Code {PIN}"] for r in rows)


def test_mcpmini_defers_the_chapter_tools_as_claude_code_does() -> None:
    rows = bridge.mcp_tool_rows(bridge.recorded("mcp_tools"))
    assert rows and all(r["mcpmini"] == r[f"Claude Code {PIN}"] for r in rows)


def test_the_recorded_answer_is_used_when_told_to() -> None:
    env = {**os.environ, "MCPMINI_COURSE_RECORDED": "1"}
    binary, reason = bridge.live_reason(env)
    assert binary is None and "MCPMINI_COURSE_RECORDED" in reason


@pytest.mark.parametrize("name", sorted(bridge.EXAMPLES))
def test_the_recorded_result_equals_a_live_run(name: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MCPMINI_COURSE_RECORDED"}
    binary, reason = bridge.live_reason(env)
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {reason}")
        pytest.skip(reason)
    live = bridge.EXAMPLES[name](binary)
    assert _stable(name, live) == _stable(name, bridge.recorded(name).value)


def test_mcpmini_and_claude_code_agree_on_the_chapter_plugins() -> None:
    rows = bridge.plugin_rows(bridge.recorded("plugin_validate"))
    assert [r["plugin"] for r in rows] == list(bridge.plugin_variants())
    for row in rows:
        assert row["mcpmini ok"] == row[f"Claude Code {PIN} ok"]
        heads = {p.split(":", 1)[0] for p in row["mcpmini problems"]}
        assert heads == {p.split(":", 1)[0] for p in row[f"Claude Code {PIN} problems"]}


def test_an_unset_variable_reaches_the_server_as_written() -> None:
    received = bridge.recorded("unset_var").value["received"]
    assert received["args"] == ["${COURSE_UNSET}"]
    assert received["env"] == {"COURSE_VALUE": "${COURSE_UNSET}", "COURSE_DEFAULTED": "d"}


def test_the_answer_says_where_its_figures_come_from_in_the_learners_language() -> None:
    from mcpmini.course import Lang, use

    live = bridge.Answer("x", None, "9.9.9", live=True)
    kept = bridge.Answer("x", None, "9.9.9", live=False, reason="no bubblewrap")
    with use(Lang.EN):
        assert live.line == "Claude Code 9.9.9: run live (offline, in bubblewrap)"
        assert kept.line.startswith("Claude Code 9.9.9: recorded result (no bubblewrap;")
    with use(Lang.JA):
        assert "いま実行した結果" in live.line and "記録した結果" in kept.line


def test_the_course_own_reasons_for_a_recorded_answer_follow_the_language() -> None:
    from mcpmini.course import Lang, use
    from mcpmini.course.edition import japanese_chars

    with use(Lang.JA):
        japanese = bridge.through_claude_code("skill_listing", live=False)
    with use(Lang.EN):
        english = bridge.through_claude_code("skill_listing", live=False)
    assert japanese_chars(japanese.reason) and english.reason == "asked for"
    with use(Lang.JA):
        assert japanese.reason in japanese.line
