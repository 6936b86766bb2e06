"""The classification table: every row of ``RULES`` reached by one example, in order."""

from __future__ import annotations

import json

import pytest

from mcpmini.hooks import (
    EVENTS,
    RULES,
    Decision,
    Execution,
    FailureKind,
    HookOutcome,
    OnFailure,
    classify,
    combine_decisions,
)

PRE = EVENTS["PreToolUse"]
DENY = json.dumps(
    {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}
)

# row name -> (execution, event, onFailure, callback, outcome, failure, blocks)
EXAMPLES = {
    "unsupported": (
        Execution("prompt", start_error="needs a model"),
        PRE,
        "continue",
        False,
        HookOutcome.NON_BLOCKING_ERROR,
        FailureKind.UNSUPPORTED,
        False,
    ),
    "not_started": (
        Execution("command", start_error="not found"),
        PRE,
        "continue",
        False,
        HookOutcome.NON_BLOCKING_ERROR,
        FailureKind.NOT_STARTED,
        False,
    ),
    "timeout": (
        Execution("callback", timed_out=True),
        PRE,
        "continue",
        True,
        HookOutcome.BLOCKING_ERROR,
        FailureKind.TIMEOUT,
        True,
    ),
    "callback_error": (
        Execution("callback", value=None),
        PRE,
        "continue",
        True,
        HookOutcome.NON_BLOCKING_ERROR,
        FailureKind.CALLBACK_ERROR,
        False,
    ),
    "exit_two": (
        Execution("command", exit_code=2, stdout='{"continue": "x"}', stderr="no"),
        PRE,
        "continue",
        False,
        HookOutcome.BLOCKING_ERROR,
        None,
        True,
    ),
    "http_error": (
        Execution("http", error="HTTP 500"),
        PRE,
        "block",
        False,
        HookOutcome.BLOCKING_ERROR,
        FailureKind.HTTP_ERROR,
        True,
    ),
    "tool_error": (
        Execution("mcp_tool", error="isError"),
        PRE,
        "continue",
        False,
        HookOutcome.NON_BLOCKING_ERROR,
        FailureKind.TOOL_ERROR,
        False,
    ),
    "bad_output": (
        Execution("command", exit_code=0, stdout="{nope"),
        PRE,
        "continue",
        False,
        HookOutcome.NON_BLOCKING_ERROR,
        FailureKind.INVALID_JSON,
        False,
    ),
    "nonzero_fails": (
        Execution("command", exit_code=1),
        EVENTS["WorktreeCreate"],
        "continue",
        False,
        HookOutcome.BLOCKING_ERROR,
        FailureKind.EXIT_CODE,
        True,
    ),
    "exit_code": (
        Execution("command", exit_code=127, stderr="sh: x: not found\n"),
        PRE,
        "continue",
        False,
        HookOutcome.NON_BLOCKING_ERROR,
        FailureKind.NOT_STARTED,
        False,
    ),
    "exit_code_block": (
        Execution("command", exit_code=1, stdout=DENY),
        PRE,
        "block",
        False,
        HookOutcome.BLOCKING_ERROR,
        FailureKind.EXIT_CODE,
        True,
    ),
    "http_plain": (
        Execution("http", stdout="hello"),
        PRE,
        "continue",
        False,
        HookOutcome.NON_BLOCKING_ERROR,
        FailureKind.HTTP_ERROR,
        False,
    ),
    "plain_success": (
        Execution("command", exit_code=0, stdout="note\n"),
        EVENTS["UserPromptSubmit"],
        "continue",
        False,
        HookOutcome.SUCCESS,
        None,
        False,
    ),
    "json_success": (
        Execution("command", exit_code=1, stdout=DENY),
        PRE,
        "continue",
        False,
        HookOutcome.SUCCESS,
        None,
        True,
    ),
}


def test_every_row_of_the_table_has_an_example_and_row_names_are_unique() -> None:
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
    assert set(names) == set(EXAMPLES)


@pytest.mark.parametrize("row", [r.name for r in RULES])
def test_each_example_is_decided_by_its_own_row(row: str) -> None:
    ex, spec, on_failure, callback, outcome, failure, blocks = EXAMPLES[row]
    verdict = classify(ex, spec, on_failure=on_failure, callback=callback)
    assert verdict.rule == row
    assert (verdict.outcome, verdict.failure, verdict.blocks) == (outcome, failure, blocks)


@pytest.mark.parametrize("row", [r.name for r in RULES])
def test_no_earlier_row_holds_for_a_row_example(row: str) -> None:
    ex, spec, on_failure, callback, *_ = EXAMPLES[row]
    from mcpmini.hooks.outcomes import read_facts

    facts = read_facts(ex, spec, callback=callback)
    honours = spec.honours_block(OnFailure(on_failure))
    holding = [r.name for r in RULES if r.when(facts, spec, honours)]
    assert holding[0] == row


def test_the_last_row_always_holds_so_classify_is_total() -> None:
    from mcpmini.hooks.outcomes import read_facts

    facts = read_facts(Execution("command", exit_code=0), PRE)
    assert RULES[-1].when(facts, PRE, False)


def test_on_failure_block_is_ignored_where_the_event_says_so() -> None:
    failing = Execution("command", exit_code=1)
    assert classify(failing, EVENTS["Stop"], on_failure="block").outcome is (
        HookOutcome.NON_BLOCKING_ERROR
    )
    assert classify(failing, PRE, on_failure=OnFailure.BLOCK).blocks


def test_decisions_come_only_from_the_fields_the_event_reads() -> None:
    ok = Execution("command", exit_code=0, stdout=DENY)
    assert classify(ok, PRE).decision is Decision.DENY
    behavior = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow"},
            }
        }
    )
    run = Execution("command", exit_code=0, stdout=behavior)
    assert classify(run, EVENTS["PermissionRequest"]).decision is Decision.ALLOW
    legacy = Execution("command", exit_code=0, stdout='{"decision": "approve"}')
    assert classify(legacy, PRE).decision is Decision.ALLOW
    assert classify(legacy, EVENTS["Stop"]).decision is None
    block = Execution("command", exit_code=0, stdout='{"decision": "block", "reason": "r"}')
    assert classify(block, EVENTS["Stop"]).blocks
    assert not classify(block, EVENTS["SessionEnd"]).blocks


def test_a_timeout_blocks_on_pre_model_switch_but_not_on_pre_tool_use() -> None:
    late = Execution("command", timed_out=True)
    assert classify(late, EVENTS["PreModelSwitch"]).blocks
    assert not classify(late, PRE).blocks


def test_decisions_are_strings_on_the_wire_and_rank_deny_first() -> None:
    assert json.dumps([Decision.DENY, OnFailure.BLOCK]) == '["deny", "block"]'
    assert f"{Decision.ASK}" == "ask"
    assert combine_decisions(["allow", None, "ask", "defer"]) is Decision.DEFER
    assert combine_decisions([Decision.ALLOW, "deny"]) is Decision.DENY
    assert combine_decisions([None, "maybe"]) is None


def test_an_unknown_on_failure_value_is_refused() -> None:
    with pytest.raises(ValueError):
        classify(Execution("command", exit_code=0), PRE, on_failure="explode")
