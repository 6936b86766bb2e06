"""The sans-I/O server: both generations, tools, resources, prompts and bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import dataclass

import pytest

from mcpmini.mcp import (
    LEGACY,
    METHODS,
    MODERN,
    ConformanceServer,
    ErrorCode,
    Generation,
    Request,
    Response,
    Server,
    ServerConnection,
    add_server,
    schema_from_function,
    serve_stdio,
    weather_server,
)

P = "io.modelcontextprotocol/"
META = {P + "protocolVersion": MODERN, P + "clientCapabilities": {}}


def line(obj) -> bytes:
    return (json.dumps(obj) + "\n").encode()


def req(rid, method, params=None, meta=True):
    params = dict(params or {})
    if meta:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


# The table of malformed or unusual lines on a modern connection, with the reply expected
# for each: (error code or "ok" / "isError", reply id), or None for no reply.
DISCOVER = line(req("d", "server/discover"))
TABLE = [
    ("invalid JSON", b'{"jsonrpc":"2.0","id":1,', (ErrorCode.PARSE_ERROR, None)),
    ("non-UTF-8 bytes", b'\xff\xfe\x00{"a":1}', (ErrorCode.PARSE_ERROR, None)),
    ("batch", line([req(2, "tools/list")]), (ErrorCode.INVALID_REQUEST, None)),
    ("empty batch", b"[]", (ErrorCode.INVALID_REQUEST, None)),
    (
        "id null",
        line({"jsonrpc": "2.0", "id": None, "method": "tools/list"}),
        (ErrorCode.INVALID_REQUEST, None),
    ),
    (
        "id boolean",
        line({"jsonrpc": "2.0", "id": True, "method": "tools/list"}),
        (ErrorCode.INVALID_REQUEST, None),
    ),
    (
        "id float",
        line({"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}),
        (ErrorCode.INVALID_REQUEST, None),
    ),
    (
        "id object",
        line({"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"}),
        (ErrorCode.INVALID_REQUEST, None),
    ),
    ("missing jsonrpc", line({"id": 3, "method": "tools/list"}), (ErrorCode.INVALID_REQUEST, 3)),
    ("missing method", line({"jsonrpc": "2.0", "id": 4}), (ErrorCode.INVALID_REQUEST, 4)),
    (
        "params as array",
        line({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": [1]}),
        (ErrorCode.INVALID_PARAMS, 5),
    ),
    ("missing envelope", line(req(6, "tools/list", meta=False)), (ErrorCode.INVALID_PARAMS, 6)),
    (
        "unknown version",
        line(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/list",
                "params": {
                    "_meta": {P + "protocolVersion": "2099-01-01", P + "clientCapabilities": {}}
                },
            }
        ),
        (ErrorCode.UNSUPPORTED_PROTOCOL_VERSION, 7),
    ),
    ("unknown method", line(req(8, "tools/frobnicate")), (ErrorCode.METHOD_NOT_FOUND, 8)),
    ("ping is gone in 2026-07-28", line(req(9, "ping")), (ErrorCode.METHOD_NOT_FOUND, 9)),
    (
        "unknown tool",
        line(req(10, "tools/call", {"name": "mul", "arguments": {}})),
        (ErrorCode.INVALID_PARAMS, 10),
    ),
    (
        "bad arguments",
        line(req(11, "tools/call", {"name": "add", "arguments": {"a": 1, "b": "x"}})),
        ("isError", 11),
    ),
    ("id 0", line(req(0, "tools/list")), ("ok", 0)),
    ("string id", line(req("abc", "tools/list")), ("ok", "abc")),
    (
        "1 MB argument",
        line(req(12, "tools/call", {"name": "add", "arguments": {"a": "x" * 1_000_000, "b": 1}})),
        ("isError", 12),
    ),
    (
        "notification",
        line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}}),
        None,
    ),
    (
        "good request afterwards",
        line(req(13, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})),
        ("ok", 13),
    ),
]


def check_reply(raw: bytes | None, expected) -> None:
    if expected is None:
        assert raw is None
        return
    reply = json.loads(raw)
    kind, rid = expected
    assert reply["id"] == rid
    if kind == "ok":
        assert "result" in reply and reply["result"].get("isError") in (None, False)
    elif kind == "isError":
        assert reply["result"]["isError"] is True
    else:
        assert reply["error"]["code"] == kind


@pytest.mark.parametrize("name, raw, expected", TABLE, ids=[t[0] for t in TABLE])
def test_each_malformed_line_gets_the_expected_reply_in_memory(name, raw, expected):
    server = add_server().connection()  # one peer: the discover makes it modern
    assert server.handle_line(DISCOVER) is not None
    check_reply(server.handle_line(raw), expected)
    # …and the server still answers the next good request.
    assert json.loads(server.handle_line(line(req(99, "tools/list"))))["result"]["tools"]


def test_unknown_version_error_lists_supported_and_requested():
    server = add_server()
    reply = json.loads(server.handle_line(TABLE[12][1]))
    assert reply["error"]["data"] == {"supported": [MODERN], "requested": "2099-01-01"}


def test_the_whole_table_over_a_real_stdio_process_then_clean_exit_on_eof():
    expected = [e for _, _, e in TABLE if e is not None]
    stdin = DISCOVER + b"".join(raw if raw.endswith(b"\n") else raw + b"\n" for _, raw, _ in TABLE)
    proc = subprocess.run(
        [sys.executable, "-m", "mcpmini", "serve", "add"],
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0
    replies = proc.stdout.splitlines()
    assert len(replies) == 1 + len(expected)
    for raw, exp in zip(replies[1:], expected):
        check_reply(raw, exp)


def test_serve_stdio_in_process_batches_replies_and_keeps_stdout_clean():
    server = Server("printer", versions=(MODERN,))

    @server.tool()
    def noisy() -> str:
        """Prints to stdout, which must not reach the protocol stream."""
        print("stray output")
        return "done"

    out = io.BytesIO()
    saved = sys.stdout
    sys.stdout = io.StringIO()  # serve_stdio redirects prints to stderr; capture that too
    try:
        serve_stdio(server, io.BytesIO(line(req(1, "tools/call", {"name": "noisy"})) + b"\n"), out)
    finally:
        sys.stdout = saved
    replies = out.getvalue().splitlines()
    assert len(replies) == 1 and json.loads(replies[0])["result"]["content"][0]["text"] == "done"


def test_an_unterminated_last_line_is_still_answered():
    out = io.BytesIO()
    serve_stdio(add_server(), io.BytesIO(line(req(1, "tools/list")).rstrip(b"\n")), out)
    assert json.loads(out.getvalue())["id"] == 1


def test_modern_results_carry_result_type_ttl_cache_scope_and_server_info():
    server = add_server()
    listing = server.handle(Request(1, "tools/list", {"_meta": META}))
    assert isinstance(listing, Response)
    assert listing.result["resultType"] == "complete"
    assert listing.result["cacheScope"] in ("public", "private") and listing.result["ttlMs"] >= 0
    assert listing.result["_meta"][P + "serverInfo"] == {"name": "add-server", "version": "0.1.0"}
    call = server.handle(
        Request(2, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": META})
    )
    assert call.result["content"] == [{"type": "text", "text": "5"}] and "ttlMs" not in call.result


def test_discover_reports_supported_versions_and_capabilities():
    result = add_server().handle(Request(1, "server/discover", {"_meta": META})).result
    assert result["supportedVersions"] == [MODERN]
    assert "tools" in result["capabilities"]


def test_legacy_handshake_then_requests_without_envelope():
    server = add_server().connection()
    init = server.handle(
        Request(
            1,
            "initialize",
            {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
    )
    assert init.result["protocolVersion"] == LEGACY
    assert init.result["serverInfo"]["name"] == "add-server"
    assert (
        server.handle_line(line({"jsonrpc": "2.0", "method": "notifications/initialized"})) is None
    )
    listing = server.handle(Request(2, "tools/list"))
    assert "resultType" not in listing.result and listing.result["tools"][0]["name"] == "add"
    ping = server.handle(Request(3, "ping"))
    assert ping.result == {}


def test_handshake_answers_its_own_version_when_the_offer_is_unknown():
    server = add_server()
    init = server.handle(
        Request(
            1,
            "initialize",
            {
                "protocolVersion": "2024-01-01",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
    )
    assert init.result["protocolVersion"] == LEGACY


def test_the_first_request_fixes_the_generation_of_the_connection():
    modern = add_server().connection()
    modern.handle(Request(1, "tools/list", {"_meta": META}))
    reply = modern.handle(
        Request(
            2,
            "initialize",
            {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
    )
    assert reply.code == ErrorCode.UNSUPPORTED_PROTOCOL_VERSION
    legacy = add_server().connection()
    legacy.handle(
        Request(
            1,
            "initialize",
            {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
    )
    assert (
        legacy.handle(Request(2, "tools/list", {"_meta": META})).code == ErrorCode.INVALID_REQUEST
    )
    assert (modern.generation, legacy.generation) == (Generation.MODERN, Generation.LEGACY)


def test_the_server_holds_no_connection_and_its_handle_answers_on_a_fresh_one():
    # Bug (issue 27): Server.default_connection was state on the app, shared by every caller
    # of server.handle(): a handshake there fixed the generation of every later message.
    server = add_server()
    assert not hasattr(server, "default_connection")
    init = server.handle(Request(1, "initialize", INIT_PARAMS))
    assert init.result["protocolVersion"] == LEGACY
    modern = server.handle(Request(2, "tools/list", {"_meta": META}))
    assert modern.result["tools"][0]["name"] == "add"  # not refused as a handshake connection


@pytest.mark.parametrize("arguments", [[1, 2], "a=1", 3])
def test_arguments_that_are_not_an_object_are_a_tool_error_even_where_the_schema_allows_them(
    arguments,
):
    server = Server("open")
    server.add_tool(lambda **kw: "ran", name="anything", input_schema={})
    result = server.call_tool("anything", arguments)
    assert result["isError"] is True and "ran" not in json.dumps(result)
    assert server.call_tool("anything", {"x": 1}) == {
        "content": [{"type": "text", "text": "ran"}],
        "isError": False,
    }


def test_a_request_before_any_handshake_or_envelope_is_refused():
    reply = add_server().handle(Request(1, "tools/list"))
    assert reply.code == ErrorCode.INVALID_REQUEST


def test_initialize_without_required_fields_is_invalid_params():
    reply = add_server().handle(Request(1, "initialize", {"protocolVersion": LEGACY}))
    assert reply.code == ErrorCode.INVALID_PARAMS


def test_envelope_fields_are_checked():
    bad_caps = {P + "protocolVersion": MODERN, P + "clientCapabilities": None}
    bad_info = dict(META, **{P + "clientInfo": {"name": "x"}})
    for meta in (bad_caps, bad_info, {P + "protocolVersion": 5, P + "clientCapabilities": {}}):
        assert (
            add_server().handle(Request(1, "tools/list", {"_meta": meta})).code
            == ErrorCode.INVALID_PARAMS
        )


def test_tools_are_listed_in_name_order_whatever_the_registration_order():
    server = Server("s")
    for name in ("zeta", "alpha", "mid"):
        server.add_tool(lambda: "x", name=name, input_schema={"type": "object"})
    assert [t["name"] for t in server.tool_definitions()] == ["alpha", "mid", "zeta"]


def test_a_raising_tool_is_a_tool_error_not_a_crash():
    server = Server("s")

    @server.tool()
    def boom() -> str:
        """Always fails."""
        raise RuntimeError("disk on fire")

    result = server.call_tool("boom", {})
    assert result["isError"] is True and "disk on fire" in result["content"][0]["text"]


def test_schema_from_type_hints_and_docstring():
    def f(city: str, days: int = 3, units: list[str] | None = None, flag: bool = False) -> str:
        """Do something.

        Args:
            city: the city
            days: how many days
        """
        return ""

    schema = schema_from_function(f)
    assert schema["required"] == ["city"]
    assert schema["properties"]["city"] == {"type": "string", "description": "the city"}
    assert (
        schema["properties"]["days"]["type"] == "integer"
        and schema["properties"]["days"]["default"] == 3
    )
    assert schema["properties"]["units"]["anyOf"][0]["type"] == "array"
    assert schema["additionalProperties"] is False


def test_duplicate_tools_and_invalid_schemas_are_refused():
    server = add_server()
    with pytest.raises(ValueError):
        server.add_tool(lambda a, b: a + b, name="add")
    with pytest.raises(Exception):
        server.add_tool(lambda: 1, name="bad", input_schema={"type": 12})


def test_resources_and_prompts_round_trip():
    server = Server("s", versions=(MODERN,))

    @server.resource("memo://readme")
    def readme() -> str:
        """The readme."""
        return "hello"

    @server.prompt()
    def review(path: str) -> str:
        """Ask for a review."""
        return f"Please review {path}"

    listing = server.handle(Request(1, "resources/list", {"_meta": META})).result
    assert listing["resources"][0]["uri"] == "memo://readme"
    read = server.handle(
        Request(2, "resources/read", {"uri": "memo://readme", "_meta": META})
    ).result
    assert read["contents"][0]["text"] == "hello"
    missing = server.handle(Request(3, "resources/read", {"uri": "memo://nope", "_meta": META}))
    assert missing.code == ErrorCode.INVALID_PARAMS
    got = server.handle(
        Request(4, "prompts/get", {"name": "review", "arguments": {"path": "a.py"}, "_meta": META})
    ).result
    assert got["messages"][0]["content"]["text"] == "Please review a.py"
    no_args = server.handle(Request(5, "prompts/get", {"name": "review", "_meta": META}))
    assert no_args.code == ErrorCode.INVALID_PARAMS


@pytest.mark.parametrize(
    "arguments",
    [[1, 2], "path=a.py", 5, {"path": "a.py", "nope": "x"}, {"nope": "x"}, {"path": 3}],
    ids=["list", "string", "number", "unknown name", "only unknown", "not a string"],
)
def test_prompt_arguments_that_are_not_an_object_of_the_declared_strings_are_invalid_params(
    arguments,
):
    # Bug (issue 27): these reached the template, whose TypeError became -32603.
    server = Server("s", versions=(MODERN,))

    @server.prompt()
    def review(path: str) -> str:
        """Ask for a review."""
        return f"Please review {path}"

    reply = server.handle(
        Request(1, "prompts/get", {"name": "review", "arguments": arguments, "_meta": META})
    )
    assert reply.code == ErrorCode.INVALID_PARAMS, reply


def test_weather_server_answers_known_cities_and_rejects_unknown_ones():
    server = weather_server()
    ok = server.call_tool("get_current_weather", {"city": "Tokyo"})
    assert ok["isError"] is False and ok["structuredContent"]["city"] == "Tokyo"
    assert server.call_tool("get_current_weather", {"city": "Paris"})["isError"] is True
    history = server.call_tool("get_weather_history", {"city": "Naha", "days": 2})
    assert len(history["structuredContent"]["result"]) == 2
    assert server.call_tool("get_weather_history", {"city": "Naha", "days": 99})["isError"] is True


def test_a_non_finite_result_is_a_tool_error_not_a_silent_null():
    from mcpmini.mcp import Client, add_server, memory_pair

    client = Client(memory_pair(add_server()))
    client.connect()
    outcome = client.call_tool("add", {"a": 1e308, "b": 1e308})
    assert outcome.kind.value == "tool_error"
    assert "result" in outcome.content[0]["text"]
    assert client.call_tool("add", {"a": 1, "b": 2}).structured == {"result": 3}


def test_an_empty_list_is_sent_as_json_with_structured_content_like_the_sdk():
    from mcpmini.mcp import Client, Server, memory_pair

    server = Server("lists")

    @server.tool()
    def nothing() -> list[int]:
        """Return an empty list."""
        return []

    @server.tool()
    def nested() -> dict[str, list[float]]:
        """Return a NaN deep inside."""
        return {"xs": [1.0, float("nan")]}

    client = Client(memory_pair(server))
    client.connect()
    empty = client.call_tool("nothing", {})
    assert empty.kind.value == "ok" and empty.structured == {"result": []}
    assert empty.content == ({"type": "text", "text": "[]"},)
    bad = client.call_tool("nested", {})
    assert bad.kind.value == "tool_error" and "result.xs[1]" in bad.content[0]["text"]


INIT_PARAMS = {
    "protocolVersion": LEGACY,
    "capabilities": {"sampling": {}},
    "clientInfo": {"name": "t", "version": "1"},
}


def test_a_subscription_or_log_level_on_one_connection_stays_on_that_connection():
    # Bug: Server.connection() was a shallow copy, so every connection and the server itself
    # shared one subscriptions set.
    server = ConformanceServer()
    first, second = server.connection(), server.connection()
    for conn in (first, second):
        conn.handle(Request(1, "initialize", INIT_PARAMS))
    first.handle(Request(2, "resources/subscribe", {"uri": "test://watched-resource"}))
    first.handle(Request(3, "logging/setLevel", {"level": "error"}))
    assert (first.subscriptions, first.log_level) == ({"test://watched-resource"}, "error")
    assert (second.subscriptions, second.log_level) == (set(), "info")
    assert server.connection().subscriptions == set()
    first.handle(Request(4, "resources/unsubscribe", {"uri": "test://watched-resource"}))
    assert first.subscriptions == set()


def test_a_connection_keeps_the_agreed_version_and_the_declared_capabilities():
    conn = add_server().connection()
    conn.handle(Request(1, "initialize", {**INIT_PARAMS, "protocolVersion": "2024-01-01"}))
    assert (conn.generation, conn.version) == (Generation.LEGACY, LEGACY)
    assert conn.client_capabilities == {"sampling": {}}
    assert conn.client_capabilities_of({}) == {"sampling": {}}
    modern = add_server().connection(Generation.MODERN)
    modern.handle(Request(1, "tools/list", {"_meta": META}))
    assert modern.version == MODERN
    meta = {**META, P + "clientCapabilities": {"roots": {}}}
    assert modern.client_capabilities_of({"_meta": meta}) == {"roots": {}}


def test_a_server_subclass_extends_the_connection_state_through_its_connection_class():
    @dataclass(eq=False)
    class Counting(ServerConnection):
        calls: int = 0

    class CountingServer(Server):
        connection_class = Counting

        def on_tools_list(self, conn, req, params):
            assert isinstance(conn, Counting)
            conn.calls += 1
            return super().on_tools_list(conn, req, params)

    server = CountingServer("c")
    one, two = server.connection(Generation.MODERN), server.connection(Generation.MODERN)
    one.handle(Request(1, "tools/list", {"_meta": META}))
    one.handle(Request(2, "tools/list", {"_meta": META}))
    assert (one.calls, two.calls) == (2, 0)


def test_a_method_the_server_has_no_handler_for_is_method_not_found_with_a_404_hint():
    server = add_server()
    reply = server.connection(Generation.MODERN).handle(
        Request(1, "resources/templates/list", {"_meta": META})
    )
    assert (reply.code, reply.status_hint) == (ErrorCode.METHOD_NOT_FOUND, 404)
    legacy = server.connection()
    legacy.handle(Request(1, "initialize", INIT_PARAMS))
    for method in ("server/discover", "sampling/createMessage", "notifications/initialized"):
        assert legacy.handle(Request(2, method)).code == ErrorCode.METHOD_NOT_FOUND
    assert legacy.handle(Request(3, "ping")) == Response(3, {})


def test_every_cached_result_carries_ttl_and_cache_scope_on_the_modern_wire():
    server = weather_server()
    conn = server.connection(Generation.MODERN)
    for method, params in [("tools/list", {}), ("server/discover", {}), ("tools/call", {})]:
        reply = conn.handle(Request(1, method, {**params, "_meta": META}))
        result = getattr(reply, "result", {})
        assert ("ttlMs" in result) is METHODS[method].cached, method
