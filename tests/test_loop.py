"""The agent loop: termination (Prop. 7.1), pairing, hooks and permissions, bad input."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from mcpmini.agent import (
    AgentOptions,
    AlwaysToolModel,
    Limits,
    ModelRequest,
    PairingViolation,
    RouterModel,
    ScriptedModel,
    Step,
    StopReason,
    Tool,
    builtin_tools,
    mcp_tool_name,
    pairing_violations,
    run,
)
from mcpmini.errors import ConfigError
from mcpmini.hooks import HookMatcher
from mcpmini.mcp import Client, Server, StdioTransport, add_server, weather_server

ADD = mcp_tool_name("calc", "add")


def _use(name: str, tool_input: Any = None, tid: str = "t1") -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": tid,
        "name": name,
        "input": {} if tool_input is None else tool_input,
    }


def _results(run_result) -> list[dict[str, Any]]:
    return [
        b
        for m in run_result.messages
        if m["role"] == "user"
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def _counter_tool(calls: list[dict]) -> Tool:
    def fn(inp: dict) -> str:
        calls.append(inp)
        return f"echo {inp.get('text', '')}"

    return Tool(
        "Echo",
        "Echo the text back",
        {"type": "object", "properties": {"text": {"type": "string"}}},
        fn,
    )


def test_the_router_calls_an_mcp_tool_and_the_loop_ends_when_no_tool_is_asked() -> None:
    model = RouterModel(arguments={ADD: {"a": 2, "b": 3}})
    r = run(
        "add two numbers",
        model,
        AgentOptions(mcp_servers={"calc": add_server()}, allowed_tools=[ADD]),
    )
    assert r.stop_reason is StopReason.END_TURN
    assert (r.model_calls, r.turns, r.final_text) == (2, 1, "5")
    assert _results(r)[0]["is_error"] is False
    assert pairing_violations(r.messages) == []


@pytest.mark.parametrize("limit", [0, 1, 2, 5])
def test_max_turns_bounds_model_calls_by_t_plus_one(limit: int) -> None:
    model = AlwaysToolModel(ADD, {"a": 1, "b": 1})
    r = run(
        "go",
        model,
        AgentOptions(mcp_servers={"calc": add_server()}, allowed_tools=[ADD], max_turns=limit),
    )
    assert r.stop_reason is StopReason.MAX_TURNS
    assert r.model_calls == model.calls == limit + 1 and r.turns == limit
    assert pairing_violations(r.messages) == []
    assert _results(r)[-1]["is_error"] is True  # the call past the limit is answered, not run


def test_without_max_turns_an_always_tool_model_does_not_stop_by_itself() -> None:
    class Enough(Exception):
        pass

    inner = AlwaysToolModel(ADD, {"a": 1, "b": 1})

    def model(request: ModelRequest) -> list[dict]:
        if inner.calls == 60:
            raise Enough
        return inner(request)

    with pytest.raises(Enough):
        run("go", model, AgentOptions(mcp_servers={"calc": add_server()}, allowed_tools=[ADD]))
    assert inner.calls == 60


def test_malformed_tool_calls_each_get_an_error_result_and_the_loop_goes_on() -> None:
    bad_reply = [
        {"type": "tool_use", "name": "Echo", "input": {}},  # no id
        {"type": "tool_use", "id": "a", "name": 42, "input": {}},  # name not a string
        {"type": "tool_use", "id": "b", "name": "Echo", "input": [1]},  # input not an object
        {"type": "tool_use", "id": "b", "name": "Echo", "input": {}},  # duplicate id
        {"type": "image", "source": "?"},  # unknown block
        "not even a dict",
    ]
    calls: list[dict] = []
    model = ScriptedModel([bad_reply, "done"])
    r = run("x", model, AgentOptions(tools=[_counter_tool(calls)], allowed_tools=["Echo"]))
    results = _results(r)
    assert len(results) == 4 and len({x["tool_use_id"] for x in results}) == 4
    assert [x["is_error"] for x in results] == [False, True, True, False]
    assert len(calls) == 2  # only the two well-formed calls ran (ids repaired)
    assert r.stop_reason is StopReason.END_TURN and r.final_text == "done"
    assert pairing_violations(r.messages) == []
    assert sum(e.step is Step.MALFORMED for e in r.events) >= 5


def test_a_reply_that_is_not_a_list_ends_the_turn_without_crashing() -> None:
    r = run("x", lambda request: None, AgentOptions())  # type: ignore[arg-type,return-value]
    assert r.stop_reason is StopReason.END_TURN and r.model_calls == 1


def test_an_unknown_tool_gets_an_error_result() -> None:
    r = run(
        "x", ScriptedModel([[_use("Nope")], "ok"]), AgentOptions(mcp_servers={"calc": add_server()})
    )
    res = _results(r)[0]
    assert res["is_error"] and ADD in res["content"]
    assert r.stop_reason is StopReason.END_TURN


def test_a_tool_that_raises_gives_an_error_result_in_process_and_over_mcp() -> None:
    def boom(_: dict) -> str:
        raise RuntimeError("boom")

    server = Server("bad")

    @server.tool()
    def explode() -> str:
        """Always fails."""
        raise ValueError("nope")

    model = ScriptedModel([[_use("Boom", tid="t1"), _use("mcp__bad__explode", tid="t2")], "ok"])
    r = run(
        "x",
        model,
        AgentOptions(
            tools=[Tool("Boom", "", {"type": "object"}, boom)],
            mcp_servers={"bad": server},
            permission_mode="bypassPermissions",
        ),
    )
    assert [x["is_error"] for x in _results(r)] == [True, True]
    assert r.final_text == "ok"


HANG_SERVER = textwrap.dedent("""
    import sys, time
    sys.modules["rfc3987_syntax"] = None  # skip jsonschema's slow optional import (3 s)
    from mcpmini.mcp import Server
    from mcpmini.mcp import serve_stdio
    server = Server("slow")

    @server.tool()
    def hang() -> str:
        \"\"\"Never answers in time.\"\"\"
        time.sleep(120)
        return "late"

    serve_stdio(server)
""")


def test_an_mcp_tool_that_hangs_times_out_into_an_error_and_nothing_is_left_running(
    tmp_path: Path,
) -> None:
    script = tmp_path / "slow.py"
    script.write_text(HANG_SERVER)
    client = Client(
        StdioTransport([sys.executable, str(script)], close_grace=0.2), mode="modern", timeout=20
    )
    pid = client.transport.process.pid
    try:
        model = ScriptedModel([[_use("mcp__slow__hang")], "carried on"])
        r = run(
            "x",
            model,
            AgentOptions(
                mcp_servers={"slow": client}, tool_timeout=0.3, permission_mode="bypassPermissions"
            ),
        )
        assert _results(r)[0]["is_error"] is True
        assert r.final_text == "carried on"
    finally:
        client.close()
    deadline = time.monotonic() + 5
    while (
        psutil.pid_exists(pid)
        and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        and time.monotonic() < deadline
    ):
        time.sleep(0.02)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_builtin_tools_refuse_paths_outside_the_workspace_inside_the_loop(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    model = ScriptedModel(
        [
            [
                _use("Read", {"file_path": "../secret.txt"}, "r1"),
                _use("Write", {"file_path": "/tmp/evil.txt", "content": "x"}, "w1"),
            ],
            "ok",
        ]
    )
    r = run("x", model, AgentOptions(tools=builtin_tools(ws), permission_mode="bypassPermissions"))
    assert [x["is_error"] for x in _results(r)] == [True, True]
    assert not Path("/tmp/evil.txt").exists()


@pytest.mark.parametrize(
    "code",
    [
        "while True: pass",
        "while True: print('y' * 999)",
        "x = bytearray(3 * 10**9)",
        "import time; time.sleep(99)",
    ],
)
def test_a_runaway_sandboxed_program_ends_in_an_error_result(tmp_path: Path, code: str) -> None:
    tools = builtin_tools(
        tmp_path, limits=Limits(wall_seconds=0.6, cpu_seconds=1, memory_mb=200, output_bytes=2_000)
    )
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    r = run(
        "x",
        ScriptedModel([[_use("Python", {"code": code})], "next"]),
        AgentOptions(tools=tools, permission_mode="bypassPermissions"),
    )
    assert _results(r)[0]["is_error"] is True and r.final_text == "next"
    left = {
        p.pid
        for p in psutil.Process().children(recursive=True)
        if p.status() != psutil.STATUS_ZOMBIE
    } - before
    assert left == set()


def test_an_ask_with_no_one_present_is_denied_unless_on_ask_approves() -> None:
    calls: list[dict] = []
    opts = {"tools": [_counter_tool(calls)]}
    r = run("x", ScriptedModel([[_use("Echo", {"text": "hi"})], "ok"]), AgentOptions(**opts))
    assert _results(r)[0]["is_error"] and calls == []
    asked: list[str] = []
    r = run(
        "x",
        ScriptedModel([[_use("Echo", {"text": "hi"})], "ok"]),
        AgentOptions(**opts, on_ask=lambda name, inp: asked.append(name) or True),
    )
    assert not _results(r)[0]["is_error"] and asked == ["Echo"] and len(calls) == 1


def test_disallowed_tools_leave_the_layer_and_patterns_deny() -> None:
    model = ScriptedModel([[_use(ADD, {"a": 1, "b": 2})], "ok"])
    r = run(
        "x",
        model,
        AgentOptions(
            mcp_servers={"calc": add_server(), "weather": weather_server()},
            disallowed_tools=["mcp__weather__get_weather_history", "mcp__calc"],
            permission_mode="bypassPermissions",
        ),
    )
    names = [t["name"] for t in model.calls[0].tools]
    assert "mcp__weather__get_weather_history" not in names and ADD in names
    assert _results(r)[0]["is_error"] is True  # the server-wide deny rule still stops it


def test_a_pre_tool_use_hook_deny_stops_the_call_even_in_bypass_mode() -> None:
    calls: list[dict] = []
    seen: list[dict] = []

    def guard(data: dict, tool_use_id: str | None, context: Any) -> dict:
        seen.append(data)
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "not allowed here",
            }
        }

    r = run(
        "x",
        ScriptedModel([[_use("Echo", {"text": "a"})], "ok"]),
        AgentOptions(
            tools=[_counter_tool(calls)],
            permission_mode="bypassPermissions",
            hooks={"PreToolUse": [HookMatcher("Echo", [guard])]},
        ),
    )
    assert calls == [] and _results(r)[0]["is_error"]
    assert seen[0]["tool_name"] == "Echo" and seen[0]["tool_input"] == {"text": "a"}


def test_a_pre_tool_use_hook_can_rewrite_the_input() -> None:
    calls: list[dict] = []

    def rewrite(data: dict, tool_use_id: str | None, context: Any) -> dict:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": {"text": "safe"},
            }
        }

    run(
        "x",
        ScriptedModel([[_use("Echo", {"text": "raw"})], "ok"]),
        AgentOptions(
            tools=[_counter_tool(calls)], hooks={"PreToolUse": [HookMatcher("*", [rewrite])]}
        ),
    )
    assert calls == [{"text": "safe"}]


def test_user_prompt_submit_can_block_before_any_model_call() -> None:
    def block(data: dict, tool_use_id: str | None, context: Any) -> dict:
        return {"decision": "block", "reason": "no secrets in prompts"}

    model = ScriptedModel(["never"])
    r = run(
        "my password is hunter2",
        model,
        AgentOptions(hooks={"UserPromptSubmit": [HookMatcher(None, [block])]}),
    )
    assert r.stop_reason is StopReason.PROMPT_BLOCKED and r.model_calls == 0 and model.calls == []


def test_post_tool_use_context_reaches_the_next_request() -> None:
    def note(data: dict, tool_use_id: str | None, context: Any) -> dict:
        return {
            "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "formatted"}
        }

    model = ScriptedModel([[_use("Echo", {"text": "a"})], "ok"])
    run(
        "x",
        model,
        AgentOptions(
            tools=[_counter_tool([])],
            allowed_tools=["Echo"],
            hooks={"PostToolUse": [HookMatcher("Echo", [note])]},
        ),
    )
    texts = [b.get("text", "") for b in model.calls[1].messages[-1]["content"]]
    assert any("formatted" in t for t in texts)


def test_a_blocking_stop_hook_keeps_the_loop_going_within_max_turns() -> None:
    fired: list[bool] = []

    def once(data: dict, tool_use_id: str | None, context: Any) -> dict:
        fired.append(data.get("stop_hook_active"))
        return {"decision": "block", "reason": "run the tests first"} if len(fired) == 1 else {}

    model = ScriptedModel(["first answer", "second answer"])
    r = run("x", model, AgentOptions(hooks={"Stop": [HookMatcher(None, [once])]}))
    assert r.model_calls == 2 and r.final_text == "second answer" and fired == [False, True]
    always = ScriptedModel(["a"] * 10)
    r = run(
        "x",
        always,
        AgentOptions(
            max_turns=2,
            hooks={
                "Stop": [
                    HookMatcher(None, [lambda d, t, c: {"decision": "block", "reason": "again"}])
                ]
            },
        ),
    )
    assert r.model_calls == 3  # still at most T + 1


def test_a_large_result_is_cut_and_the_full_text_kept(tmp_path: Path) -> None:
    big = Tool("Big", "Lots of text", {"type": "object"}, lambda inp: "x" * 4_000)
    r = run(
        "x",
        ScriptedModel([[_use("Big", tid="big1")], "ok"]),
        AgentOptions(
            tools=[big], allowed_tools=["Big"], max_result_tokens=100, results_dir=tmp_path
        ),
    )
    content = _results(r)[0]["content"]
    assert content.startswith("x" * 400) and not content.startswith("x" * 401)
    assert r.full_results["big1"] == "x" * 4_000
    assert (tmp_path / "big1.txt").read_text() == "x" * 4_000


def test_tool_search_sends_names_first_and_appends_a_definition_on_first_use() -> None:
    opts = {
        "mcp_servers": {"calc": add_server(), "weather": weather_server()},
        "allowed_tools": [ADD],
    }
    script = [[_use(ADD, {"a": 1, "b": 2}, "s1")], [_use(ADD, {"a": 3, "b": 4}, "s2")], "done"]
    model = ScriptedModel(script)
    deferred = run("x", model, AgentOptions(**opts, tool_search=True))
    upfront = run("x", ScriptedModel(script), AgentOptions(**opts))
    assert all(set(t) == {"name"} for t in model.calls[0].tools) and len(model.calls[0].tools) == 3
    assert model.calls[1].tools == model.calls[0].tools  # the tool layer never changes
    first = deferred.requests[0]
    assert first.tools_tokens < upfront.requests[0].tools_tokens / 4
    loads = [e for e in deferred.events if e.step is Step.DEFINITION_LOADED]
    assert [e.tool for e in loads] == [ADD]  # appended once, on first use
    assert all(all(h[:-2]) for h in deferred.cache_report()[1:])  # earlier breakpoints keep hitting
    assert [x["is_error"] for x in _results(deferred)] == [False, False]


def test_bad_options_raise_config_errors() -> None:
    echo = _counter_tool([])
    with pytest.raises(ConfigError):
        run("x", ScriptedModel([]), AgentOptions(tools=[echo, echo]))
    with pytest.raises(ConfigError):
        run("x", ScriptedModel([]), AgentOptions(tool_choice="Missing"))
    with pytest.raises(ConfigError):
        run("x", ScriptedModel([]), AgentOptions(mcp_servers={"x": "not a server"}))
    with pytest.raises(ConfigError):
        run("x", ScriptedModel([]), AgentOptions(allowed_tools=["Bash("]))
    with pytest.raises(ConfigError):
        run("x", ScriptedModel([]), AgentOptions(permission_mode="sometimes"))


def test_tool_choice_reaches_the_model() -> None:
    model = RouterModel()
    run(
        "sing",
        model,
        AgentOptions(
            mcp_servers={"calc": add_server()}, tool_choice=ADD, permission_mode="bypassPermissions"
        ),
    )
    assert (
        model.routes and model.routes[0].tool is None
    )  # the router alone would not have called it


def test_in_process_server_clients_are_closed_after_the_run(monkeypatch) -> None:
    from mcpmini.mcp import Client, ClientState

    made: list[Client] = []
    original = Client.connect

    def connect(self: Client, deadline: Any = None) -> Any:
        made.append(self)
        return original(self, deadline)

    monkeypatch.setattr(Client, "connect", connect)
    r = run("x", ScriptedModel(["hi"]), AgentOptions(mcp_servers={"calc": add_server()}))
    assert r.model_calls == 1 and len(made) == 1
    assert made[0].connection.generation == "modern" and made[0].state is ClientState.CLOSED


def test_pairing_violations_detects_each_kind_of_break() -> None:
    a = {"role": "assistant", "content": [_use("X", tid="1"), _use("Y", tid="2")]}
    ok = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "1", "content": ""},
            {"type": "tool_result", "tool_use_id": "2", "content": ""},
        ],
    }
    assert pairing_violations([a, ok]) == []
    missing = {"role": "user", "content": ok["content"][:1]}
    assert pairing_violations([a, missing]) == [(PairingViolation.MISSING_RESULT, "2")]
    dup = {"role": "user", "content": ok["content"] + ok["content"][:1]}
    assert pairing_violations([a, dup]) == [(PairingViolation.DUPLICATE_RESULT, "1")]
    orphan = {
        "role": "user",
        "content": ok["content"] + [{"type": "tool_result", "tool_use_id": "9"}],
    }
    assert pairing_violations([a, orphan]) == [(PairingViolation.ORPHAN_RESULT, "9")]
    twice = {"role": "assistant", "content": [_use("X", tid="1")]}
    assert (PairingViolation.DUPLICATE_ID, "1") in pairing_violations(
        [a, ok, twice], complete=False
    )
    assert pairing_violations([a]) != [] and pairing_violations([a], complete=False) == []


def test_the_turns_curve_of_chapter_11_meets_the_bound_exactly() -> None:
    from mcpmini.course.chapters import turns_curve

    assert turns_curve(range(4)) == [(t, t + 1, "max_turns") for t in range(4)]


def test_the_run_command_prints_the_transcript_and_the_stop_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json as _json

    from mcpmini.cli import main

    assert main(["run", "add two numbers", "--server", "add", "--args", '{"a": 2, "b": 5}']) == 0
    out = capsys.readouterr().out
    assert '"content": "7"' in out and "stop: end_turn" in out
    assert (
        main(
            [
                "run",
                "x",
                "--server",
                "add",
                "--model",
                "always",
                "--tool",
                "mcp__add__add",
                "--args",
                '{"a": 1, "b": 1}',
                "--max-turns",
                "2",
                "--json",
            ]
        )
        == 0
    )
    doc = _json.loads(capsys.readouterr().out)
    assert (doc["stop_reason"], doc["model_calls"], doc["turns"]) == ("max_turns", 3, 2)


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "x", "--args", "[1]"],
        ["run", "x", "--args", "{bad"],
        ["run", "x", "--model", "always"],
        ["run", "x", "--workspace", "/no/such/dir"],
        ["run", "x", "--permission-mode", "sometimes"],
    ],
)
def test_the_run_command_rejects_bad_input_with_exit_code_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from mcpmini.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcpmini run:") and err.count("\n") == 1


def test_post_tool_use_feedback_from_a_blocking_hook_reaches_the_model():
    # PostToolUse cannot undo the call, but its reason is feedback the model must see.
    def lint(input_data, tool_use_id, context):
        return {"decision": "block", "reason": "line 3 is too long"}

    seen: list = []
    model = ScriptedModel([[_use("mcp__calc__add", {"a": 1, "b": 2}, tid="t1")], "done"])

    def spying(request):
        seen.append(request.messages)
        return model(request)

    run(
        "go",
        spying,
        AgentOptions(
            mcp_servers={"calc": add_server()},
            allowed_tools=["mcp__calc"],
            hooks={"PostToolUse": [HookMatcher("mcp__calc__add", [lint])]},
        ),
    )
    assert "line 3 is too long" in repr(seen[-1])
