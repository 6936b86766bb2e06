"""Messages, parsing, the pending table and the id rules of both generations."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpmini.course.chapters import id_violations, outstanding_is_injective
from mcpmini.errors import LocalProtocolError, RemoteProtocolError
from mcpmini.mcp import (
    LEGACY,
    MODERN,
    ErrorCode,
    ErrorResponse,
    Notification,
    PendingTable,
    Request,
    Response,
    encode,
    error_reply,
    parse_line,
)


@pytest.mark.parametrize(
    "line, code, rid",
    [
        (b'{"jsonrpc": "2.0", "id": 1, ', ErrorCode.PARSE_ERROR, None),
        (b"\xff\xfe{}", ErrorCode.PARSE_ERROR, None),
        (b"[]", ErrorCode.INVALID_REQUEST, None),
        (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', ErrorCode.INVALID_REQUEST, None),
        (b"42", ErrorCode.INVALID_REQUEST, None),
        (b'"text"', ErrorCode.INVALID_REQUEST, None),
        (b'{"id":1,"method":"ping"}', ErrorCode.INVALID_REQUEST, 1),
        (b'{"jsonrpc":"1.0","id":1,"method":"ping"}', ErrorCode.INVALID_REQUEST, 1),
        (b'{"jsonrpc":"2.0","id":2}', ErrorCode.INVALID_REQUEST, 2),
        (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', ErrorCode.INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', ErrorCode.INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', ErrorCode.INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', ErrorCode.INVALID_REQUEST, None),
        (b'{"jsonrpc":"2.0","id":3,"method":7}', ErrorCode.INVALID_REQUEST, 3),
        (b'{"jsonrpc":"2.0","id":4,"method":"x","params":[1,2]}', ErrorCode.INVALID_PARAMS, 4),
    ],
)
def test_malformed_lines_raise_the_code_the_peer_should_hear(line, code, rid):
    with pytest.raises(RemoteProtocolError) as info:
        parse_line(line)
    assert info.value.code == code
    assert info.value.id == rid


def test_zero_and_string_ids_are_valid_request_ids():
    assert parse_line('{"jsonrpc":"2.0","id":0,"method":"ping"}') == Request(0, "ping")
    assert parse_line('{"jsonrpc":"2.0","id":"a","method":"ping"}') == Request("a", "ping")


def test_a_message_without_id_is_a_notification():
    message = parse_line('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"x":1}}')
    assert message == Notification("notifications/cancelled", {"x": 1})


def test_replies_parse_into_response_and_error_response():
    assert parse_line('{"jsonrpc":"2.0","id":5,"result":{}}') == Response(5, {})
    reply = parse_line('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}')
    assert reply == ErrorResponse(None, -32700, "x")


def test_encode_then_parse_gives_the_same_message():
    for message in (
        Request(1, "tools/list", {"a": "日本"}),
        Notification("n"),
        Response("x", {"k": [1]}),
        ErrorResponse(3, -32022, "m", {"supported": [MODERN]}),
    ):
        line = encode(message)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert parse_line(line) == message


def test_error_reply_keeps_protocol_codes_and_hides_other_exceptions():
    exc = RemoteProtocolError("bad", ErrorCode.INVALID_PARAMS, 9, {"k": 1})
    assert error_reply(exc) == ErrorResponse(9, -32602, "bad", {"k": 1})
    hidden = error_reply(RuntimeError("/secret/path exploded"), 4)
    assert hidden.code == ErrorCode.INTERNAL_ERROR and hidden.id == 4
    assert "/secret/path" not in hidden.message


def test_error_reply_decides_by_type_not_by_attributes():
    class LooksLikeOne(Exception):
        code = -32602
        message = "/secret/path in a message"
        id = 5

    reply = error_reply(LooksLikeOne(), 4)
    assert (reply.id, reply.code, reply.status_hint) == (4, ErrorCode.INTERNAL_ERROR, None)
    assert "/secret/path" not in reply.message


def test_a_protocol_error_carries_its_http_status_hint_into_the_reply_but_not_onto_the_wire():
    exc = RemoteProtocolError("gone", ErrorCode.METHOD_NOT_FOUND, 3, status_hint=404)
    reply = error_reply(exc)
    assert (reply.status_hint, error_reply(LocalProtocolError("x", -32600)).status_hint) == (
        404,
        400,
    )
    assert json.loads(encode(reply)) == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32601, "message": "gone"},
    }
    assert reply == ErrorResponse(3, ErrorCode.METHOD_NOT_FOUND, "gone")  # not compared


def test_pending_table_refuses_a_second_outstanding_request_with_the_same_id():
    table = PendingTable()
    table.add(Request(1, "a"))
    with pytest.raises(LocalProtocolError):
        table.add(Request(1, "b"))


def test_pending_table_allows_reusing_an_id_once_its_reply_arrived():
    table = PendingTable()
    table.add(Request(7, "a"))
    assert table.resolve(Response(7)).method == "a"
    table.add(Request(7, "b"))
    assert len(table) == 1


def test_pending_table_rejects_replies_to_unknown_ids():
    table = PendingTable()
    with pytest.raises(RemoteProtocolError):
        table.resolve(Response(1))


def test_null_id_error_answers_the_single_request_in_flight_only():
    table = PendingTable()
    table.add(Request(1, "a"))
    assert table.resolve(ErrorResponse(None, -32600, "x")).id == 1
    table.add(Request(2, "b"))
    table.add(Request(3, "c"))
    with pytest.raises(RemoteProtocolError):
        table.resolve(ErrorResponse(None, -32600, "x"))


@given(st.integers(min_value=1, max_value=60), st.randoms(use_true_random=False))
def test_replies_in_any_order_map_to_the_same_requests(count, rng):
    # Proposition 3.3: with distinct ids the reply→request map ignores arrival order.
    table = PendingTable()
    requests = [Request(table.allocate(), f"m{i}") for i in range(count)]
    for request in requests:
        table.add(request)
    replies = [Response(r.id, {"for": r.method}) for r in requests]
    rng.shuffle(replies)
    for reply in replies:
        assert table.resolve(reply).method == reply.result["for"]
    assert len(table) == 0


def test_exercise_9_2_history_breaks_only_the_handshake_generation_rule():
    history = [("send", 7), ("reply", 7), ("send", 7)]
    assert [v.index for v in id_violations(history, LEGACY)] == [2]
    assert id_violations(history, MODERN) == []
    assert outstanding_is_injective(history)


def test_two_outstanding_requests_with_one_id_break_both_rules_and_injectivity():
    history = [("send", 1), ("send", 1)]
    assert len(id_violations(history, LEGACY)) == 1
    assert len(id_violations(history, MODERN)) == 1
    assert not outstanding_is_injective(history)


def test_a_reply_to_an_id_never_sent_is_an_error_in_a_history():
    with pytest.raises(ValueError):
        id_violations([("reply", 3)], MODERN)


def test_allocated_ids_never_repeat_even_after_explicit_ids():
    table = PendingTable()
    table.add(Request(2, "explicit"))
    ids = [table.allocate() for _ in range(5)]
    assert len(set(ids)) == 5 and 2 not in ids


def test_parse_line_never_raises_anything_but_remote_protocol_error():
    rng = random.Random(1)
    alphabet = b'{}[]":,0123456789abcdefjsonrpcidmethod \\\xff\n'
    for _ in range(2000):
        blob = bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        try:
            parse_line(blob)
        except RemoteProtocolError:
            pass


def test_deeply_nested_json_is_a_parse_error_not_a_crash():
    with pytest.raises(RemoteProtocolError) as info:
        parse_line("[" * 100_000)
    assert info.value.code in (ErrorCode.PARSE_ERROR, ErrorCode.INVALID_REQUEST)
    assert json.loads(encode(error_reply(info.value)))["error"]["code"] == info.value.code


def test_both_judges_accept_two_replies_after_a_duplicate_send():
    history = [("send", 7), ("send", 7), ("reply", 7), ("reply", 7)]
    assert len(id_violations(history, MODERN)) == 1
    assert not outstanding_is_injective(history)
    with pytest.raises(ValueError):
        outstanding_is_injective([("reply", 1)])
