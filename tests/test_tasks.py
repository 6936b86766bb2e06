"""The tasks extension (SEP-2663): the state machine, the task table, the server's methods and
the client that follows a task to its end (``mcpmini call --task``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from mcpmini.mcp import (
    META_PREFIX,
    MODERN,
    Client,
    ConformanceServer,
    ErrorCode,
    ErrorResponse,
    Notification,
    OutcomeKind,
    Request,
    Response,
    Server,
    TaskStatus,
    TaskSupport,
    TaskTable,
    UnknownTask,
    memory_pair,
)
from mcpmini.mcp.outcome import classify_task
from mcpmini.mcp.tasks import (
    TASKS_EXTENSION,
    TERMINAL,
    TRANSITIONS,
    TaskCancelled,
    TaskEvent,
    TaskStateError,
    next_status,
)

WITH_TASKS = {"extensions": {TASKS_EXTENSION: {}}, "elicitation": {}}


class Clock:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class Deferred:
    """A ``run_task`` that keeps each task's work until the test runs it."""

    def __init__(self) -> None:
        self.works: list[Callable[[], None]] = []

    def __call__(self, work: Callable[[], None]) -> None:
        self.works.append(work)

    def run_all(self) -> None:
        while self.works:
            self.works.pop(0)()


def _meta(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {
        META_PREFIX + "protocolVersion": MODERN,
        META_PREFIX + "clientCapabilities": capabilities,
    }


def _ask(server: Server, method: str, params: dict[str, Any], caps: Any = None) -> Any:
    """One stateless request (a fresh connection, as over HTTP); the result or the error."""
    caps = WITH_TASKS if caps is None else caps
    reply = server.connection().handle(Request(1, method, {**params, "_meta": _meta(caps)}))
    assert isinstance(reply, (Response, ErrorResponse))
    return reply if isinstance(reply, ErrorResponse) else dict(reply.result)


# --- the state machine ---------------------------------------------------------------------


def test_a_terminal_task_ignores_every_event():
    for status in TERMINAL:
        assert all(next_status(status, event) is None for event in TaskEvent)


def test_input_required_is_left_only_by_answering_ending_or_cancelling():
    leaving = {e for (s, e), t in TRANSITIONS.items() if s is TaskStatus.INPUT_REQUIRED and t != s}
    assert leaving == {TaskEvent.ANSWERED, TaskEvent.COMPLETE, TaskEvent.FAIL, TaskEvent.CANCEL}
    assert next_status(TaskStatus.WORKING, TaskEvent.ASK) is TaskStatus.INPUT_REQUIRED


def test_an_event_without_a_row_is_a_bug_not_a_silent_change():
    with pytest.raises(TaskStateError):
        next_status(TaskStatus.WORKING, TaskEvent.ANSWERED)


# --- the table -----------------------------------------------------------------------------


def test_a_new_task_has_the_wire_fields_of_sep_2663_and_nothing_else():
    table = TaskTable(ttl_ms=60_000, poll_ms=500, clock=Clock())
    task = table.create()
    assert task["status"] == "working"
    assert set(task) == {
        "taskId",
        "status",
        "createdAt",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
    }
    assert (task["ttlMs"], task["pollIntervalMs"]) == (60_000, 500)
    assert task["createdAt"] == "2027-01-15T08:00:00.000Z"
    assert len(task["taskId"]) >= 20  # unguessable: the id is the only handle
    assert table.get(task["taskId"]) == task


def test_an_unknown_task_id_is_refused_whatever_its_type():
    table = TaskTable()
    for bad in ("nonexistent", 7, None):
        with pytest.raises(UnknownTask) as caught:
            table.get(bad)
        assert caught.value.reason == "not found"


def test_a_task_lives_for_its_ttl_and_is_gone_after_it():
    clock = Clock()
    table = TaskTable(ttl_ms=10_000, clock=clock)
    task_id = table.create()["taskId"]
    stop = table.stopped(task_id)
    clock.now += 9.999
    assert table.get(task_id)["taskId"] == task_id  # never earlier than its TTL
    clock.now += 0.001
    with pytest.raises(UnknownTask) as caught:
        table.get(task_id)
    assert caught.value.reason == "expired"
    assert stop.is_set()  # its work is told to stop
    for act in (lambda: table.cancel(task_id), lambda: table.update(task_id, {})):
        with pytest.raises(UnknownTask):
            act()


def test_cancelling_a_finished_task_changes_nothing():
    table = TaskTable(clock=Clock())
    task_id = table.create()["taskId"]
    table.complete(task_id, {"content": [], "isError": False})
    table.cancel(task_id)
    assert table.get(task_id)["status"] == "completed"
    assert table.get(task_id)["result"] == {"content": [], "isError": False}


def test_a_result_arriving_after_a_cancel_is_dropped():
    table = TaskTable(clock=Clock())
    task_id = table.create()["taskId"]
    table.cancel(task_id)
    table.complete(task_id, {"content": [{"type": "text", "text": "late"}]})
    table.fail(task_id, {"code": -32603, "message": "late"})
    assert set(table.get(task_id)) - {"statusMessage"} == {
        "taskId",
        "status",
        "createdAt",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
    }
    assert table.get(task_id)["status"] == "cancelled"


def test_partial_answers_keep_the_task_waiting_for_the_rest():
    table = TaskTable(clock=Clock())
    task_id = table.create()["taskId"]
    first = table.ask(task_id, {"method": "elicitation/create", "params": {}})
    second = table.ask(task_id, {"method": "elicitation/create", "params": {}})
    assert first != second
    table.update(task_id, {first: {"action": "accept"}, "never-issued": {"action": "decline"}})
    task = table.get(task_id)
    assert (task["status"], list(task["inputRequests"])) == ("input_required", [second])
    assert table.wait_answer(task_id, first) == {"action": "accept"}
    table.update(task_id, {first: {"action": "decline"}})  # answered already: ignored
    table.update(task_id, {second: {"action": "cancel"}})
    assert "inputRequests" not in table.get(task_id)
    assert table.get(task_id)["status"] == "working"
    assert table.wait_answer(task_id, second) == {"action": "cancel"}


def test_keys_are_never_reused_within_a_task():
    table = TaskTable(clock=Clock())
    task_id = table.create()["taskId"]
    keys = []
    for _ in range(3):
        keys.append(table.ask(task_id, {"method": "elicitation/create", "params": {}}))
        table.update(task_id, {keys[-1]: {}})
    assert len(set(keys)) == 3


def test_a_cancel_wakes_the_work_waiting_for_an_answer():
    table = TaskTable(clock=Clock())
    task_id = table.create()["taskId"]
    key = table.ask(task_id, {"method": "elicitation/create", "params": {}})
    table.cancel(task_id)
    with pytest.raises(TaskCancelled):
        table.wait_answer(task_id, key, timeout=5)
    with pytest.raises(TaskCancelled):
        table.ask(task_id, {"method": "elicitation/create", "params": {}})


def test_the_table_holds_a_bounded_number_of_tasks():
    clock = Clock()
    table = TaskTable(ttl_ms=1000, max_tasks=2, clock=clock)
    table.create()
    table.create()
    with pytest.raises(OverflowError):
        table.create()
    clock.now += 1  # both expired: room again
    table.create()
    assert len(table) == 1


def test_a_flood_of_anonymous_tasks_cannot_lock_an_authenticated_caller_out():
    # Issue 29: 256 anonymous tasks in 9 s locked every client out for the TTL. Anonymous
    # callers share max_tasks; an authenticated caller's tasks count against that caller.
    table = TaskTable(max_tasks=3, max_tasks_per_caller=2, clock=Clock())
    for _ in range(3):
        table.create()
    with pytest.raises(OverflowError, match="anonymous"):
        table.create()
    table.create(owner="alice")
    table.create(owner="alice")
    with pytest.raises(OverflowError, match="per caller"):
        table.create(owner="alice")  # her own pool is full …
    assert table.create(owner="bob")["status"] == "working"  # … and nobody else's is touched


def test_an_authenticated_callers_task_is_not_found_by_anyone_else():
    table = TaskTable(clock=Clock())
    mine = table.create(owner="alice")["taskId"]
    assert table.get(mine, "alice")["taskId"] == mine
    for other in ("bob", None):
        with pytest.raises(UnknownTask):
            table.get(mine, other)
        with pytest.raises(UnknownTask):
            table.cancel(mine, other)
    anonymous = table.create()["taskId"]
    assert table.get(anonymous, "bob")["taskId"] == anonymous  # an unguessable handle, as before


def test_over_http_the_identified_caller_owns_its_tasks():
    from mcpmini.mcp.http import HttpEndpoint, HttpRequest

    server = _task_server()
    server.tasks = TaskTable(max_tasks=2, clock=Clock())
    endpoint = HttpEndpoint(server, identify=lambda request: request.headers.get("x-user"))

    def call(method: str, params: dict[str, Any], user: str | None = None) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        body["params"] = {**params, "_meta": _meta(WITH_TASKS)}
        headers = {
            "host": "127.0.0.1",
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": MODERN,
            "mcp-method": method,
        }
        target = params.get("name") or params.get("taskId")
        if target is not None:
            headers["mcp-name"] = target
        if user is not None:
            headers["x-user"] = user
        decision = endpoint.receive(HttpRequest.build("POST", headers, json.dumps(body).encode()))
        reply = decision.connection.handle(decision.message)
        return reply if isinstance(reply, ErrorResponse) else reply.result

    double = {"name": "double", "arguments": {"x": 2}}
    for _ in range(2):
        assert call("tools/call", double)["resultType"] == "task"
    assert call("tools/call", double).code == ErrorCode.INTERNAL_ERROR  # anonymous: full
    hers = call("tools/call", double, "alice")["taskId"]  # alice: her own pool
    assert call("tasks/get", {"taskId": hers}, "alice")["taskId"] == hers
    assert call("tasks/get", {"taskId": hers}, "mallory").code == ErrorCode.INVALID_PARAMS


# --- the server ----------------------------------------------------------------------------


def _task_server(run_task: Callable[[Callable[[], None]], None] | None = None) -> Server:
    server = Server("tasky", tasks=TaskTable(poll_ms=10), run_task=run_task or Deferred())

    @server.tool(task=TaskSupport.OPTIONAL)
    def double(x: int) -> int:
        return 2 * x

    @server.tool(task=TaskSupport.REQUIRED)
    def report() -> str:
        return "done"

    return server


def test_the_server_advertises_the_extension_only_when_a_tool_can_run_as_a_task():
    assert "extensions" not in _ask(Server("plain"), "server/discover", {})["capabilities"]
    caps = _ask(_task_server(), "server/discover", {})["capabilities"]
    assert caps["extensions"] == {TASKS_EXTENSION: {}}


def test_a_task_tool_returns_a_handle_then_its_result_on_tasks_get():
    run = Deferred()
    server = _task_server(run)
    created = _ask(server, "tools/call", {"name": "double", "arguments": {"x": 21}})
    assert created["resultType"] == "task" and created["status"] == "working"
    assert "content" not in created and "requestState" not in created
    got = _ask(server, "tasks/get", {"taskId": created["taskId"]})
    assert (got["resultType"], got["status"]) == ("complete", "working")
    run.run_all()
    done = _ask(server, "tasks/get", {"taskId": created["taskId"]})
    assert done["status"] == "completed"
    assert done["result"]["structuredContent"] == {"result": 42}


def test_without_the_extension_an_optional_tool_runs_at_once_and_a_required_one_is_refused():
    server = _task_server()
    now = _ask(server, "tools/call", {"name": "double", "arguments": {"x": 2}}, caps={})
    assert now["resultType"] == "complete" and now["structuredContent"] == {"result": 4}
    refused = _ask(server, "tools/call", {"name": "report", "arguments": {}}, caps={})
    assert refused.code == ErrorCode.MISSING_CLIENT_CAPABILITY
    assert TASKS_EXTENSION in refused.data["requiredCapabilities"]["extensions"]


def test_the_tasks_methods_need_the_extension_and_a_known_task():
    server = _task_server()
    for method in ("tasks/get", "tasks/cancel"):
        gated = _ask(server, method, {"taskId": "x"}, caps={})
        assert gated.code == ErrorCode.MISSING_CLIENT_CAPABILITY
        assert _ask(server, method, {"taskId": "nonexistent"}).code == ErrorCode.INVALID_PARAMS
    update = _ask(server, "tasks/update", {"taskId": "nonexistent", "inputResponses": {}})
    assert update.code == ErrorCode.INVALID_PARAMS
    created = _ask(server, "tools/call", {"name": "double", "arguments": {"x": 1}})
    no_responses = _ask(server, "tasks/update", {"taskId": created["taskId"]})
    assert no_responses.code == ErrorCode.INVALID_PARAMS


def test_a_task_that_cannot_be_started_fails_visibly():
    def no_threads(work: Callable[[], None]) -> None:
        raise RuntimeError("can't start new thread")

    server = _task_server(no_threads)
    created = _ask(server, "tools/call", {"name": "double", "arguments": {"x": 1}})
    task = _ask(server, "tasks/get", {"taskId": created["taskId"]})
    assert task["status"] == "failed" and task["error"]["code"] == ErrorCode.INTERNAL_ERROR


def test_the_removed_v1_methods_are_not_found():
    server = _task_server()
    for method in ("tasks/result", "tasks/list"):
        assert _ask(server, method, {"taskId": "x"}).code == ErrorCode.METHOD_NOT_FOUND


def test_the_handshake_generation_has_no_tasks_methods():
    server = _task_server()
    conn = server.connection()
    conn.handle(
        Request(
            0,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
    )
    reply = conn.handle(Request(1, "tasks/get", {"taskId": "x"}))
    assert isinstance(reply, ErrorResponse) and reply.code == ErrorCode.METHOD_NOT_FOUND
    call = conn.handle(Request(2, "tools/call", {"name": "double", "arguments": {"x": 3}}))
    assert isinstance(call, Response) and call.result["structuredContent"] == {"result": 6}


def test_a_protocol_error_fails_the_task_and_a_tool_error_completes_it():
    run = Deferred()
    server = ConformanceServer()
    server.run_task = run
    failed = _ask(server, "tools/call", {"name": "protocol_error_job", "arguments": {}})
    run.run_all()
    task = _ask(server, "tasks/get", {"taskId": failed["taskId"]})
    assert task["status"] == "failed" and task["error"]["code"] == ErrorCode.INTERNAL_ERROR
    assert "result" not in task
    assert classify_task("x", task).kind is OutcomeKind.PROTOCOL_ERROR


# --- the client ----------------------------------------------------------------------------


def _client(server: Server, **kwargs: Any) -> Client:
    client = Client(memory_pair(server), mode="modern", capabilities=WITH_TASKS, **kwargs)
    client.connect()
    return client


def test_the_client_follows_a_task_and_answers_its_input_requests():
    server = ConformanceServer()
    server.tasks = TaskTable(poll_ms=1)
    seen: list[str] = []

    def confirm(params: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"confirm": True}}

    client = _client(
        server,
        handlers={"elicitation/create": confirm},
        on_notification=lambda n: seen.append(n.params["status"]),
    )
    outcome = client.call_tool("confirm_delete", {"filename": "notes.txt"}, timeout=10)
    assert (outcome.kind, outcome.text) == (OutcomeKind.OK, "Deleted notes.txt")
    assert seen[0] == "working" and "input_required" in seen and seen[-1] == "completed"


def test_a_task_that_never_ends_is_cancelled_at_the_timeout():
    server = ConformanceServer()
    server.tasks = TaskTable(poll_ms=1)
    client = _client(server)
    outcome = client.call_tool("slow_compute", {"seconds": 600}, timeout=0.2)
    assert outcome.kind is OutcomeKind.NO_ANSWER and outcome.reason.startswith("timeout")
    task_id = outcome.reason.split()[2]  # "timeout (task ID cancelled)"
    assert server.tasks.get(task_id)["status"] == "cancelled"


def test_an_input_request_the_client_cannot_answer_cancels_the_task():
    server = ConformanceServer()
    server.tasks = TaskTable(poll_ms=1)
    ids: list[str] = []
    client = _client(server, on_notification=lambda n: ids.append(n.params["taskId"]))
    outcome = client.call_tool("confirm_delete", {"filename": "x"}, timeout=10)
    assert (outcome.kind, outcome.code) == (OutcomeKind.PROTOCOL_ERROR, ErrorCode.METHOD_NOT_FOUND)
    assert server.tasks.get(ids[0])["status"] == "cancelled"


def test_ctrl_c_while_following_cancels_the_task_before_it_propagates():
    server = ConformanceServer()
    server.tasks = TaskTable(poll_ms=1)
    ids: list[str] = []

    def interrupt(notification: Notification) -> None:
        ids.append(notification.params["taskId"])
        raise KeyboardInterrupt

    client = _client(server, on_notification=interrupt)
    with pytest.raises(KeyboardInterrupt):
        client.call_tool("slow_compute", {"seconds": 600}, timeout=10)
    assert server.tasks.get(ids[0])["status"] == "cancelled"


def test_an_expired_task_is_a_protocol_error_for_the_client():
    clock = Clock()
    server = _task_server()
    server.tasks = TaskTable(ttl_ms=1000, poll_ms=1, clock=clock)
    client = _client(server)
    request_id = client.send_tool_call("double", {"x": 1})
    created = client.wait_for(request_id, timeout=5)
    assert isinstance(created, Response)
    clock.now += 2
    outcome = client._task_outcome("double", created.result, client.deadline(5))
    assert (outcome.kind, outcome.code) == (OutcomeKind.PROTOCOL_ERROR, ErrorCode.INVALID_PARAMS)


def _mcpmini_call(*options: str) -> subprocess.CompletedProcess[str]:
    """``mcpmini call tools/call OPTIONS -- mcpmini serve conformance`` (stdio)."""
    command = [sys.executable, "-m", "mcpmini"]
    return subprocess.run(
        [*command, "call", "tools/call", *options, "--", *command, "serve", "conformance"],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_mcpmini_call_task_answers_the_task_s_input_request_with_elicit():
    answer = '{"action": "accept", "content": {"confirm": true}}'
    proc = _mcpmini_call(
        "--tool", "confirm_delete", "--args", '{"filename": "a.txt"}', "--task", "--elicit", answer
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.endswith(": input_required asks elicitation/create") for line in lines)
    assert lines[-1].strip() == "Deleted a.txt"


def test_mcpmini_call_task_ends_a_never_ending_task_at_the_timeout_in_one_line():
    from mcpmini.mcp import serve_http

    # the server is up before the call starts (over stdio its start, seconds on a loaded
    # machine, would count against the --timeout); 15 s: room for the client's own start on a
    # machine loaded many times over (issue 29 saw 4 s pass before initialize was answered),
    # still far below the task's 600 s
    server = ConformanceServer()
    arguments = ["--tool", "slow_compute", "--args", '{"seconds": 600}', "--task"]
    arguments += ["--timeout", "15"]
    with serve_http(server) as url:
        proc = subprocess.run(
            [sys.executable, "-m", "mcpmini", "call", "tools/call", *arguments, "--url", url],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 1, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("no_answer: timeout (task ") and last.endswith(" cancelled)")
    assert "Traceback" not in proc.stderr


# --- status notifications (subscriptions/listen with taskIds) --------------------------------


def test_listening_for_task_ids_needs_the_extension():
    server = _task_server()
    refused = _ask(server, "subscriptions/listen", {"notifications": {"taskIds": ["t"]}}, caps={})
    assert refused.code == ErrorCode.MISSING_CLIENT_CAPABILITY
    agreed = _ask(server, "subscriptions/listen", {"notifications": {"taskIds": ["t"]}})
    assert agreed["notifications"] == {"taskIds": ["t"]}
    bad = _ask(server, "subscriptions/listen", {"notifications": {"taskIds": "t"}})
    assert bad.code == ErrorCode.INVALID_PARAMS


def _stateless(method: str, params: dict[str, Any], **name: str) -> Any:
    """The body and headers of one stateless POST declaring the tasks extension."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {**params, "_meta": _meta(WITH_TASKS)},
    }
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        **{f"mcp-{k}": v for k, v in name.items()},
    }
    return body, headers


def test_a_listen_stream_carries_the_status_of_the_tasks_it_names():
    import httpx
    import orjson

    from mcpmini.mcp import asgi_app, serve_http

    run = Deferred()
    server = _task_server(run)
    app = asgi_app(server)
    with serve_http(app) as url, httpx.Client(timeout=10) as http:
        body, headers = _stateless(
            "tools/call", {"name": "double", "arguments": {"x": 4}}, name="double"
        )
        reply = http.post(url, json=body, headers=headers)
        task_id = reply.json()["result"]["taskId"]
        body, headers = _stateless(
            "subscriptions/listen", {"notifications": {"taskIds": [task_id]}}
        )
        with http.stream("POST", url, json=body, headers=headers) as stream:
            data = (
                orjson.loads(line[5:]) for line in stream.iter_lines() if line.startswith("data:")
            )
            ack = next(data)
            run.run_all()  # the task completes: its state goes to the stream
            note = next(data)
    assert ack["params"]["notifications"] == {"taskIds": [task_id]}
    assert note["method"] == "notifications/tasks"
    assert (note["params"]["taskId"], note["params"]["status"]) == (task_id, "completed")
    assert note["params"]["result"]["structuredContent"] == {"result": 8}


def _first_task_id(proc: subprocess.Popen[bytes], seconds: float) -> str | None:
    """The task id of the first ``task ID: …`` line ``proc`` prints (bounded wait)."""
    import os
    import selectors
    import time

    assert proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + seconds
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while selector.select(max(deadline - time.monotonic(), 0)):
            chunk = os.read(proc.stdout.fileno(), 4096)
            seen += chunk
            for line in seen.decode(errors="replace").splitlines():
                if line.startswith("task ") and line.endswith(": working"):
                    return line.split()[1].rstrip(":")
            if not chunk:
                return None
    return None


def test_ctrl_c_on_mcpmini_call_task_cancels_the_task_on_the_server():
    import signal

    from mcpmini.mcp import serve_http

    server = ConformanceServer()
    server.tasks = TaskTable(poll_ms=50)
    arguments = ["--tool", "slow_compute", "--args", '{"seconds": 600}', "--task"]
    with serve_http(server) as url:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcpmini", "call", "tools/call", *arguments, "--url", url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            task_id = _first_task_id(proc, 20)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 130 and b"Traceback" not in err
        assert task_id is not None and server.tasks.get(task_id)["status"] == "cancelled"
