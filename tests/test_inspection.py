"""``mcp.inspection``: what a ``tools/call`` showed, block by block, and live notifications."""

from __future__ import annotations

import base64

import pytest

from mcpmini.mcp import (
    Client,
    HttpTransport,
    Notification,
    OutcomeKind,
    StructuredVerdict,
    ToolOutcome,
    Traced,
    check_structured,
    inspect_call,
    memory_pair,
    notification_line,
    progress_bar,
    progress_of,
    record_call,
    serve_http,
    view_block,
)
from mcpmini.mcp.inspection import extension_for
from tests.peers.inspector_server import COUNT_SCHEMA, SEEN, inspector_server

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 92).decode()


def test_an_image_block_shows_its_mime_type_and_decoded_size():
    view = view_block(2, {"type": "image", "data": PNG, "mimeType": "image/png"})
    assert (view.index, view.kind, view.mime_type, view.size) == (2, "image", "image/png", 100)
    assert view.binary and view.data is not None and view.data.startswith(b"\x89PNG")
    assert view.problem is None and "100 bytes" in view.header()


def test_an_audio_block_with_bad_base64_is_shown_with_its_problem_not_raised():
    view = view_block(0, {"type": "audio", "data": "not base64!", "mimeType": "audio/wav"})
    assert view.kind == "audio" and view.data is None and view.size is None
    assert view.problem == "data is not valid base64"


def test_a_resource_link_shows_uri_name_mime_type_and_declared_size():
    block = {
        "type": "resource_link",
        "uri": "file:///r.pdf",
        "name": "r.pdf",
        "mimeType": "application/pdf",
        "size": 4096,
    }
    view = view_block(0, block)
    assert (view.uri, view.name, view.mime_type, view.size) == (
        "file:///r.pdf",
        "r.pdf",
        "application/pdf",
        4096,
    )
    assert not view.binary and "4.0 KiB" in view.header()


def test_an_embedded_text_resource_is_previewed_and_marked_when_cut():
    text = "\n".join(f"line {i}" for i in range(20))
    view = view_block(0, {"type": "resource", "resource": {"uri": "x://a", "text": text}})
    assert view.size == len(text) and view.truncated
    assert view.preview == tuple(f"line {i}" for i in range(5))
    assert view.lines()[-1].strip() == "…"


def test_an_embedded_blob_resource_carries_its_bytes_for_saving():
    blob = base64.b64encode(b"abc").decode()
    view = view_block(1, {"type": "resource", "resource": {"uri": "x://b", "blob": blob}})
    assert view.data == b"abc" and view.size == 3 and view.binary


@pytest.mark.parametrize(
    "block, problem",
    [
        ({"type": "text"}, "no text"),
        ({"type": "resource"}, "no resource object"),
        ({"type": "resource", "resource": {"uri": "x://c"}}, "neither text nor blob"),
        ({"type": "hologram", "depth": 3}, "unknown content type"),
        ({"type": "resource_link", "name": "n"}, "no uri"),
    ],
)
def test_malformed_or_unknown_blocks_are_shown_with_a_problem(block, problem):
    assert view_block(0, block).problem == problem


@pytest.mark.parametrize(
    "block",
    [
        {"type": "text", "text": "a\nb\r\nc\rd"},
        {"type": "resource_link", "uri": "x://a\nforged line", "name": "n\nm"},
        {"type": "resource", "resource": {"uri": "x://a", "mimeType": "t\n/x", "text": "p\nq"}},
    ],
)
def test_no_line_holds_a_line_break_so_a_server_string_cannot_forge_a_line(block):
    lines = view_block(0, block).lines()
    assert all("\n" not in line for line in lines)


def test_a_lone_carriage_return_stays_inside_its_line_for_the_caller_to_escape():
    lines = view_block(0, {"type": "text", "text": "ok\rforged"}).lines()
    assert lines[1:] == ["    ok\rforged"]


@pytest.mark.parametrize(
    "structured, schema, is_error, verdict",
    [
        ({"n": 3}, COUNT_SCHEMA, False, StructuredVerdict.VALID),
        ({"n": "x"}, COUNT_SCHEMA, False, StructuredVerdict.INVALID),
        (None, COUNT_SCHEMA, False, StructuredVerdict.MISSING),
        ({"n": 3}, None, False, StructuredVerdict.UNCHECKED),
        ({"n": 3}, {"type": "no such type"}, False, StructuredVerdict.BAD_SCHEMA),
        ({"n": "x"}, COUNT_SCHEMA, True, StructuredVerdict.SKIPPED),
        (None, None, False, StructuredVerdict.ABSENT),
    ],
)
def test_structured_content_gets_one_verdict_against_the_output_schema(
    structured, schema, is_error, verdict
):
    check = check_structured(structured, schema, is_error)
    assert check.verdict is verdict
    assert bool(check.problems) is (
        verdict in (StructuredVerdict.INVALID, StructuredVerdict.BAD_SCHEMA)
    )


def test_an_invalid_result_names_the_path_of_each_problem():
    check = check_structured({"n": "x"}, COUNT_SCHEMA)
    assert [p.split(":")[0] for p in check.problems] == ["n"]


def test_progress_is_read_from_its_notification_and_drawn_as_a_bar():
    note = Notification(
        "notifications/progress",
        {"progressToken": "t", "progress": 25, "total": 100, "message": "a\nb"},
    )
    progress = progress_of(note)
    assert progress is not None and progress.fraction == 0.25 and progress.token == "t"
    bar = progress_bar(progress, width=8)
    assert bar.startswith("██░░░░░░ 25/100 (25%)") and "\n" not in bar
    assert progress_bar(progress_of(Notification("notifications/progress", {"progress": 3}))) == (
        "progress 3"
    )


def test_notifications_other_than_progress_are_one_line_each():
    log = Notification(
        "notifications/message", {"level": "warning", "logger": "db", "data": {"k": 1}}
    )
    assert notification_line(log) == 'log warning [db]: {"k": 1}'
    changed = Notification("notifications/tools/list_changed")
    assert notification_line(changed) == "notification notifications/tools/list_changed"
    assert progress_of(log) is None
    assert progress_of(Notification("notifications/progress", {"progress": "half"})) is None


def test_extensions_are_known_for_the_mime_types_servers_send():
    assert [extension_for(m) for m in ("image/png", "audio/wav", "image/jpeg", None, "x/y")] == [
        ".png",
        ".wav",
        ".jpg",
        ".bin",
        ".bin",
    ]


def test_a_record_of_a_tool_error_is_marked_and_its_structured_content_not_checked():
    outcome = ToolOutcome(
        OutcomeKind.TOOL_ERROR, "t", ({"type": "text", "text": "boom"},), {"n": "x"}
    )
    record = record_call("t", {}, outcome, COUNT_SCHEMA)
    assert record.is_error and record.headline().startswith("tool_error (isError: true)")
    assert record.structured.verdict is StructuredVerdict.SKIPPED


def test_inspect_call_records_the_wire_lines_of_this_call_only():
    client = Client(Traced(memory_pair(inspector_server())), mode="modern")
    client.connect()
    record = inspect_call(client, "shaped", {}, COUNT_SCHEMA)
    assert record.structured.verdict is StructuredVerdict.VALID
    assert [line[:4] for line in record.wire] == ["C→S ", "S→C "]
    assert '"progressToken"' in record.wire[0] and '"tools/call"' in record.wire[0]


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_notifications_reach_the_callback_while_the_call_is_still_running(mode):
    # The tool sends progress, then waits until the client's callback has seen it: if
    # notifications were handed over only with the result, it would answer "not seen".
    SEEN.clear()
    seen = []

    def arrived(note):
        seen.append(note)
        SEEN.set()

    with serve_http(inspector_server()) as url:
        with Client(HttpTransport(url), mode=mode) as client:
            client.connect()
            record = inspect_call(client, "wait_for_client", on_notification=arrived)
    assert record.outcome.text == "seen"
    assert [n.method for n in seen] == ["notifications/progress"]
    assert record.notifications == tuple(seen)
    assert client.on_notification is None  # the caller's callback is restored


def test_an_input_required_retry_keeps_the_callers_progress_token():
    from mcpmini.mcp import conformance_server

    answers = {
        "elicitation/create": lambda params: {"action": "accept", "content": {"name": "Ada"}}
    }
    client = Client(
        Traced(memory_pair(conformance_server())),
        mode="modern",
        capabilities={"elicitation": {}},
        handlers=answers,
    )
    client.connect()
    record = inspect_call(client, "test_input_required_result_elicitation")
    assert record.outcome.text == "Hello, Ada!"
    sent = [m for d, m in client.transport.trace.messages() if d == "send"][-2:]
    tokens = [m["params"]["_meta"].get("progressToken") for m in sent]
    assert tokens[0] is not None and tokens == [tokens[0], tokens[0]]
    assert "inputResponses" in sent[1]["params"]
