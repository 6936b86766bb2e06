"""The transcript: reply repair, the pairing check's edge cases, cutting by tokens, exports."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mcpmini.agent.loop
from mcpmini.agent import (
    AgentOptions,
    ScriptedModel,
    Tool,
    cut_to_tokens,
    estimate_tokens,
    pairing_violations,
    repair_reply,
    run,
)
from mcpmini.hooks import HookMatcher


def _fresh() -> Any:
    n = iter(range(1, 100))
    return lambda: f"new{next(n)}"


def test_repair_keeps_good_blocks_and_gives_fresh_ids_to_missing_or_reused_ones() -> None:
    used = {"old"}
    r = repair_reply(
        [
            {"type": "text", "text": "hi"},
            {"type": "tool_use", "id": "old", "name": "A", "input": {}},
            {"type": "tool_use", "name": "B", "input": {}},
            {"type": "tool_use", "id": "c", "name": "C", "input": {"x": 1}},
        ],
        used,
        _fresh(),
    )
    assert [b.get("id") for b in r.blocks] == [None, "new1", "new2", "c"]
    assert r.bad == {} and used == {"old", "new1", "new2", "c"}
    assert len(r.notes) == 2


def test_repair_marks_calls_that_cannot_run_but_keeps_them_answerable() -> None:
    r = repair_reply(
        [
            {"type": "tool_use", "id": "a", "name": "", "input": {}},
            {"type": "tool_use", "id": "b", "name": "X", "input": "text"},
            {"type": "thinking"},
            7,
        ],
        set(),
        _fresh(),
    )
    assert [b["id"] for b in r.blocks] == ["a", "b"] and set(r.bad) == {"a", "b"}
    assert r.blocks[1]["input"] == {}


@pytest.mark.parametrize("reply", [None, 42, {"type": "text"}, 3.5])
def test_a_reply_that_is_not_a_list_becomes_one_empty_text_block(reply: Any) -> None:
    r = repair_reply(reply, set(), _fresh())
    assert r.blocks == [{"type": "text", "text": ""}] and r.notes


@given(
    st.lists(
        st.one_of(
            st.none(),
            st.integers(),
            st.text(max_size=5),
            st.fixed_dictionaries(
                {
                    "type": st.sampled_from(["text", "tool_use", "x"]),
                    "id": st.one_of(st.none(), st.sampled_from("abc")),
                    "name": st.one_of(st.none(), st.text(max_size=3)),
                    "input": st.one_of(
                        st.none(), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)
                    ),
                }
            ),
        ),
        max_size=8,
    )
)
def test_any_repaired_reply_has_unique_string_ids(reply: list) -> None:
    r = repair_reply(reply, set(), _fresh())
    ids = [b["id"] for b in r.blocks if b["type"] == "tool_use"]
    assert len(ids) == len(set(ids)) and all(isinstance(i, str) and i for i in ids)
    assert all(isinstance(b["input"], dict) for b in r.blocks if b["type"] == "tool_use")


def test_a_user_message_right_after_a_text_only_answer_needs_no_results() -> None:
    t = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
        {"role": "user", "content": [{"type": "text", "text": "more"}]},
    ]
    assert pairing_violations(t) == []


def test_two_assistant_messages_in_a_row_leave_the_first_calls_unanswered() -> None:
    use = {"type": "tool_use", "id": "a", "name": "X", "input": {}}
    t = [{"role": "assistant", "content": [use]}, {"role": "assistant", "content": []}]
    assert [v.name for v, _ in pairing_violations(t)] == ["MISSING_RESULT"]


@given(st.text(max_size=200), st.integers(0, 60))
def test_cut_to_tokens_is_the_longest_prefix_within_the_limit(text: str, limit: int) -> None:
    kept = cut_to_tokens(text, limit)
    assert text.startswith(kept) and estimate_tokens(kept) <= max(limit, 0)
    if kept != text:
        assert estimate_tokens(text[: len(kept) + 1]) > limit


def test_post_tool_use_failure_fires_for_a_failed_run_and_reaches_the_model() -> None:
    seen: list[str] = []

    def on_failure(data: dict, tool_use_id: str | None, context: Any) -> dict:
        seen.append(data["error"])
        return {
            "hookSpecificOutput": {
                "hookEventName": "PostToolUseFailure",
                "additionalContext": "try smaller input",
            }
        }

    def boom(_: dict) -> str:
        raise RuntimeError("too big")

    model = ScriptedModel([[{"type": "tool_use", "id": "t1", "name": "Boom", "input": {}}], "ok"])
    run(
        "x",
        model,
        AgentOptions(
            tools=[Tool("Boom", "", {"type": "object"}, boom)],
            allowed_tools=["Boom"],
            hooks={
                "PostToolUseFailure": [HookMatcher("Boom", [on_failure])],
                "PostToolUse": [HookMatcher("*", [lambda d, t, c: seen.append("ok") or {}])],
            },
        ),
    )
    assert seen == ["RuntimeError: too big"]
    assert any(
        "try smaller input" in b.get("text", "") for b in model.calls[1].messages[-1]["content"]
    )


@pytest.mark.parametrize(
    "module",
    [
        "mcpmini.agent.loop",
        "mcpmini.agent.transcript",
        "mcpmini.agent.models",
        "mcpmini.agent.tools",
        "mcpmini.agent.sandbox",
        "mcpmini.agent.cost",
    ],
)
def test_every_exported_name_exists(module: str) -> None:
    mod = importlib.import_module(module)
    assert mod.__all__ and all(hasattr(mod, name) for name in mod.__all__)


def test_the_loop_re_exports_the_transcript_names_it_documents() -> None:
    assert {"pairing_violations", "PairingViolation", "RunResult", "Step", "StopReason"} <= set(
        mcpmini.agent.__all__
    )
