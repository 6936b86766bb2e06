"""The notebook's inspector (``course.chapters.inspector``): the form from a schema, one call
to a rendered record, the session's history, and the widget driven headless."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcpmini.course import Lang, use
from mcpmini.course.chapters import (
    FieldKind,
    InspectorSession,
    form_arguments,
    form_spec,
    inspector,
    record_text,
)
from mcpmini.course.chapters.inspector import COMMAND
from mcpmini.course.report import report_text
from mcpmini.mcp import StructuredVerdict

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "a city\nsecond line"},
        "days": {"type": "integer", "default": 3},
        "scale": {"type": "number"},
        "metric": {"type": "boolean"},
        "unit": {"enum": ["c", "f"], "default": "c"},
        "filter": {"type": "object"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "note": {"type": ["string", "null"]},
        "anything": {},
    },
    "required": ["city"],
}
PEER = [sys.executable, str(Path(__file__).parent / "peers" / "inspector_server.py")]


def test_the_form_has_one_control_per_property_of_the_kind_its_schema_asks_for():
    fields = form_spec(SCHEMA)
    assert [(f.name, f.kind) for f in fields] == [
        ("city", FieldKind.TEXT),
        ("days", FieldKind.INTEGER),
        ("scale", FieldKind.NUMBER),
        ("metric", FieldKind.BOOLEAN),
        ("unit", FieldKind.CHOICE),
        ("filter", FieldKind.JSON),
        ("tags", FieldKind.JSON),
        ("note", FieldKind.TEXT),
        ("anything", FieldKind.JSON),
    ]
    city, days, *_ = fields
    unit = fields[4]
    assert city.required and not days.required and days.default == 3
    assert unit.choices == ("c", "f") and unit.default == "c"
    with use(Lang.EN):
        assert city.line() == "city: text | required | a city"
        assert unit.line() == 'unit: choice | optional | default "c" | one of "c", "f"'
    with use(Lang.JA):
        assert city.line() == "city: text | 必須 | a city"
        assert unit.line() == 'unit: choice | 省略可 | 既定 "c" | "c", "f" のどれか'


def test_a_schema_without_properties_gives_an_empty_form():
    assert form_spec({"type": "object"}) == () and form_spec({"properties": []}) == ()


def test_form_values_become_arguments_json_parsed_and_empty_optionals_left_out():
    fields = form_spec(SCHEMA)
    values = {
        "city": "Tokyo",
        "days": 5.0,
        "scale": "",
        "metric": False,
        "unit": "f",
        "filter": '{"a": [1, 2]}',
        "tags": "",
        "note": None,
    }
    assert form_arguments(fields, values) == {
        "city": "Tokyo",
        "days": 5,
        "metric": False,
        "unit": "f",
        "filter": {"a": [1, 2]},
    }


def test_json_text_that_does_not_parse_is_refused_with_the_field_name():
    with pytest.raises(ValueError):
        form_arguments(form_spec(SCHEMA), {"city": "x", "filter": "{oops"})


def test_a_sample_served_in_process_streams_progress_into_the_record():
    seen = []
    with InspectorSession.open("conformance", mode="modern") as session:
        record = session.call("test_tool_with_progress", {}, on_notification=seen.append)
        session.call("test_error_handling")
        history = session.history_lines()
    assert [n.params["progress"] for n in seen] == [0, 50, 100]
    assert record.notifications == tuple(seen) and record.outcome.kind.value == "ok"
    text = record_text(record)
    assert "progress 50/100 (50%)" in text and "--- JSON-RPC ---" in text
    assert any(
        line.startswith("S→C ") and "notifications/progress" in line for line in text.splitlines()
    )
    assert [line.split(" → ")[1].split(" ")[0] for line in history] == ["ok:", "tool_error"]


def test_a_command_over_stdio_checks_structured_content_against_the_listed_schema():
    with InspectorSession.open(PEER) as session:
        assert [f.name for f in session.form("big_image")] == ["mib"]
        good = session.call("shaped")
        bad = session.call("misshaped")
        process = session.client.transport.inner.process
    assert good.structured.verdict is StructuredVerdict.VALID
    assert bad.structured.verdict is StructuredVerdict.INVALID
    assert process.poll() is not None  # closing the session ended the server


def test_server_text_in_a_record_is_shown_escaped():
    with InspectorSession.open(PEER) as session:
        text = record_text(session.call("hostile"), wire=False)
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b]0;pwned" in text


def test_an_unknown_sample_name_is_refused():
    with pytest.raises(ValueError):
        InspectorSession.open("nope")


def test_the_widget_connects_builds_the_form_and_records_a_call_beside_its_wire():
    state = inspector("weather", tool="get_weather_history")
    try:
        assert [f.name for f in state.fields] == ["city", "days"]
        state.inputs["city"].value = "Tokyo"
        state.inputs["days"].value = 2
        state.controls["call"].click()
        assert state.session is not None and len(state.session.history) == 1
        record = state.session.history[0]
        assert record.arguments == {"city": "Tokyo", "days": 2}
        assert "1. get_weather_history" in report_text(state.widget)
        result, raw = state.controls["history"].children[0].children
        assert "ok: 1 content block" in result.value and "C→S " in raw.value
    finally:
        state.close()


@pytest.mark.parametrize(
    "lang,label,refusal",
    [(Lang.EN, "command…", "cannot connect"), (Lang.JA, "コマンド…", "接続できません")],
)
def test_the_widget_shows_live_progress_and_reports_a_bad_command_without_raising(
    lang, label, refusal
):
    with use(lang):
        state = inspector("conformance", tool="test_tool_with_progress")
    try:
        assert (label, COMMAND) in state.controls["server"].options
        with use(lang):
            state.controls["call"].click()
            assert state.controls["progress"].value == 1.0
            state.controls["server"].value = COMMAND
            state.controls["command"].value = "/nonexistent/server"
            state.controls["connect"].click()
        assert state.session is None and refusal in state.controls["live"].value
    finally:
        state.close()
