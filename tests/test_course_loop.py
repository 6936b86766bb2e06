"""The loop's map (notebooks 00, 01): every step and mechanism named in both languages, each
event of a real run placed on the mechanism it comes from."""

from __future__ import annotations

import pytest

from mcpmini.agent import AgentOptions, ScriptedModel, Step, run
from mcpmini.course import Lang, use
from mcpmini.course.chapters import (
    MECHANISMS,
    STEPS,
    mechanism_counts,
    mechanism_of,
    step_names,
    timeline,
)
from mcpmini.mcp import add_server


def _run():
    model = ScriptedModel(
        [
            [{"type": "tool_use", "id": "u1", "name": "mcp__calc__add", "input": {"a": 1, "b": 2}}],
            "3",
        ]
    )
    return run(
        "add",
        model,
        AgentOptions(mcp_servers={"calc": add_server()}, allowed_tools=["mcp__calc__add"]),
    )


def test_every_step_of_the_runtime_has_a_name_in_both_languages():
    assert set(STEPS) == set(Step)
    for step, text in STEPS.items():
        assert text.en == step.value and text.ja and text.ja != text.en


def test_events_are_placed_on_the_hook_the_gate_the_tool_s_mechanism_or_the_loop():
    result = _run()
    keys = [mechanism_of(e, {"mcp__calc__add": "mcp"}) for e in result.events]
    steps = [e.step for e in result.events]
    assert keys[steps.index(Step.PERMISSION)] == "gate"
    assert keys[steps.index(Step.TOOL_RUN)] == "mcp"
    assert keys[steps.index(Step.MODEL_CALL)] == "loop"
    assert mechanism_of(result.events[steps.index(Step.TOOL_RUN)], {}) == "builtin"
    with pytest.raises(KeyError, match="not a mechanism"):
        mechanism_of(result.events[steps.index(Step.TOOL_RUN)], {"mcp__calc__add": "magic"})


@pytest.mark.parametrize("lang", [Lang.JA, Lang.EN])
def test_the_timeline_and_its_counts_speak_one_language(lang):
    result = _run()
    with use(lang):
        table = timeline(result, {"mcp__calc__add": "mcp"})
        counts = mechanism_counts(result, {"mcp__calc__add": "mcp"})
        line = step_names(result.events)
    assert len(table) == len(result.events) + 1  # the caller's own line first
    assert int(counts.sum()) == len(table)
    assert counts[MECHANISMS["gate"].lang(lang)] == 1
    text = table.to_string() + line
    japanese = any("\u3040" <= ch <= "\u9fff" for ch in text)
    assert japanese == (lang is Lang.JA)
