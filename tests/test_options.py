"""Handler types and options: one enum, one options object, ``None`` inheriting the group's."""

from __future__ import annotations

import pytest

from mcpmini.hooks import (
    EVENTS,
    SETTINGS_SCHEMA,
    SETTINGS_TYPES,
    CallbackHandler,
    CommandHandler,
    HandlerOptions,
    HandlerType,
    HookMatcher,
    ModelHandler,
    OnFailure,
    as_handler,
    handler_type,
    load_settings,
)


def test_on_failure_is_normalised_when_the_options_are_built() -> None:
    assert HandlerOptions(on_failure="block").on_failure is OnFailure.BLOCK  # type: ignore[arg-type]
    assert HandlerOptions().on_failure is None


@pytest.mark.parametrize("bad", [{"on_failure": "explode"}, {"timeout": 0}, {"timeout": -1}])
def test_options_refuse_unknown_values(bad) -> None:
    with pytest.raises(ValueError):
        HandlerOptions(**bad)


def test_unset_options_inherit_the_groups_and_set_ones_win() -> None:
    unset = HandlerOptions().inherit(3.0, OnFailure.BLOCK)
    assert (unset.timeout, unset.on_failure) == (3.0, OnFailure.BLOCK)
    own = HandlerOptions(timeout=1.0, on_failure=OnFailure.CONTINUE).inherit(3.0, OnFailure.BLOCK)
    assert (own.timeout, own.on_failure) == (1.0, OnFailure.CONTINUE)


def test_no_handler_defaults_to_a_real_on_failure() -> None:
    handlers = [
        CommandHandler("x"),
        ModelHandler(HandlerType.PROMPT, "p"),
        CallbackHandler(lambda *a: {}),
    ]
    assert all(h.options.on_failure is None and h.options.timeout is None for h in handlers)


def test_a_settings_handler_without_on_failure_leaves_it_to_the_group() -> None:
    data = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x"}]}]}}
    handler = load_settings([("project", data)]).groups("PreToolUse")[0].hooks[0]
    assert handler.options.on_failure is None


def test_a_callable_is_wrapped_once_where_the_group_is_built() -> None:
    def cb(data, tool_use_id, context):
        return {}

    group = HookMatcher("*", [cb, CommandHandler("x")], on_failure="block")
    assert group.hooks == [CallbackHandler(cb), CommandHandler("x")]
    assert group.on_failure is OnFailure.BLOCK
    assert as_handler(group.hooks[0]) is group.hooks[0]
    assert handler_type(cb) is HandlerType.CALLBACK


def test_a_group_refuses_what_is_not_a_handler() -> None:
    with pytest.raises(TypeError):
        HookMatcher("*", ["echo not a handler"])
    with pytest.raises(ValueError):
        HookMatcher("*", [], on_failure="sometimes")


def test_the_settings_schema_and_the_catalogue_name_the_same_handler_types() -> None:
    schema_enum = SETTINGS_SCHEMA["properties"]["hooks"]["additionalProperties"]["items"][
        "properties"
    ]["hooks"]["items"]["properties"]["type"]["enum"]
    assert set(schema_enum) == SETTINGS_TYPES == set(HandlerType) - {HandlerType.CALLBACK}
    assert all(spec.handler_types <= SETTINGS_TYPES for spec in EVENTS.values())


def test_a_model_handler_is_a_prompt_or_an_agent() -> None:
    assert ModelHandler("agent", "p").type is HandlerType.AGENT  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ModelHandler(HandlerType.COMMAND, "p")
