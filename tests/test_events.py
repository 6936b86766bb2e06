"""The event catalogue: 33 rows, each owning the behaviour the rest of the hooks package reads."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mcpmini.hooks
from mcpmini.errors import ConfigError
from mcpmini.hooks import (
    ARTICLE_EVENTS,
    CONTEXT_STDOUT_EVENTS,
    EVENTS,
    IF_EVENTS,
    PERMISSION_EVENTS,
    DecisionField,
    ExitTwo,
    event_spec,
)

HOOKS_DIR = Path(mcpmini.hooks.__file__).parent


def test_the_catalogue_has_the_33_events_of_the_reference() -> None:
    assert len(EVENTS) == 33
    assert all(name == spec.name for name, spec in EVENTS.items())
    assert ARTICLE_EVENTS == (
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "SubagentStart",
        "SubagentStop",
        "Stop",
        "PreCompact",
    )


@pytest.mark.parametrize(
    ("event", "handler", "seconds"),
    [
        ("PreToolUse", "command", 600.0),
        ("PreToolUse", "http", 600.0),
        ("UserPromptSubmit", "command", 30.0),
        ("MessageDisplay", "mcp_tool", 10.0),
        ("PreModelSwitch", "command", 30.0),
        ("PreToolUse", "prompt", 30.0),
        ("Stop", "agent", 60.0),
        ("UserPromptSubmit", "agent", 60.0),
    ],
)
def test_default_timeouts_depend_on_the_event_and_the_handler_type(
    event: str, handler: str, seconds: float
) -> None:
    assert EVENTS[event].default_timeout(handler) == seconds


def test_on_failure_is_ignored_exactly_on_the_four_documented_events() -> None:
    ignored = {n for n, s in EVENTS.items() if s.on_failure_ignored}
    assert ignored == {"Stop", "SubagentStop", "TaskCompleted", "TeammateIdle"}
    assert not EVENTS["Stop"].honours_block("block")
    assert EVENTS["PreToolUse"].honours_block("block")
    assert not EVENTS["PreToolUse"].honours_block("continue")
    # PostToolUse cannot block, but a failure under "block" becomes exit 2's feedback to
    # Claude (observed in Claude Code 2.1.332); where exit 2 is only shown or ignored it is not
    assert EVENTS["PostToolUse"].honours_block("block") and not EVENTS["PostToolUse"].can_block
    assert not EVENTS["SessionStart"].honours_block("block")


def test_decision_fields_and_derived_sets_come_from_the_rows() -> None:
    assert {"PreToolUse", "PreModelSwitch"} == PERMISSION_EVENTS
    assert EVENTS["PermissionRequest"].decisions == {DecisionField.BEHAVIOR}
    assert DecisionField.BLOCK in EVENTS["Stop"].decisions
    assert DecisionField.BLOCK not in EVENTS["Notification"].decisions
    assert {
        "UserPromptSubmit",
        "UserPromptExpansion",
        "SessionStart",
        "PostModelSwitch",
    } == CONTEXT_STDOUT_EVENTS
    assert {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "PermissionDenied",
    } == IF_EVENTS


def test_exit_two_blocks_only_where_the_reference_says_it_blocks() -> None:
    assert EVENTS["PreToolUse"].can_block and EVENTS["Stop"].can_block
    assert EVENTS["PostToolUse"].exit2 is ExitTwo.FEEDBACK
    assert not EVENTS["PermissionRequest"].can_block
    assert EVENTS["WorktreeCreate"].nonzero_fails and EVENTS["PreModelSwitch"].timeout_blocks


def test_events_without_matchers_have_no_matcher_field() -> None:
    assert {n for n, s in EVENTS.items() if s.matcher_field is None} >= {
        "UserPromptSubmit",
        "Stop",
        "PostToolBatch",
        "CwdChanged",
    }
    assert EVENTS["FileChanged"].narrow and EVENTS["FileChanged"].match_basename


def test_an_unknown_event_is_an_error_with_a_case_hint() -> None:
    with pytest.raises(ConfigError) as info:
        event_spec("pretooluse")
    assert "PreToolUse" in info.value.message


def test_no_module_but_the_catalogue_names_an_event_to_decide_behaviour() -> None:
    named = []
    for module in ("outcomes.py", "runner.py", "gate.py"):
        path = HOOKS_DIR / module
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in EVENTS:
                named.append(f"{module}:{node.lineno} {node.value}")
    assert named == []


def test_load_warns_where_the_catalogue_says_a_key_is_ignored() -> None:
    from mcpmini.hooks import load_settings

    group = {
        "hooks": [
            {"type": "command", "command": "x", "onFailure": "block"},
            {"type": "command", "command": "y", "if": "Bash(rm *)"},
        ]
    }
    stop = load_settings([("project", {"hooks": {"Stop": [group]}})])
    assert [w.split(" at ", 1)[1].split(":", 1)[0] for w in stop.warnings] == [
        "hooks.Stop[0].hooks[0].onFailure",
        "hooks.Stop[0].hooks[1].if",
    ]
    pre = load_settings([("project", {"hooks": {"PreToolUse": [group]}})])
    assert pre.warnings == []
