"""The hook runner: outcomes (Definition 4.2), onFailure, decision combination, bad hooks.

Hooks here are tiny ``sh`` scripts written to a temporary folder (fast to start); Python
callbacks cover the SDK-style path. Every test that starts processes checks that none is
left behind.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from pathlib import Path

import psutil
import pytest

from mcpmini.errors import ConfigError
from mcpmini.hooks import (
    OUTPUT_CAP,
    CommandHandler,
    FailureKind,
    HandlerOptions,
    HookMatcher,
    HookOutcome,
    MatcherRule,
    ModelHandler,
    OnFailure,
    combine_decisions,
    run_hooks,
)

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
WRITE_ENV = {"tool_name": "Write", "tool_input": {"file_path": "/repo/.env"}}
WRITE_APP = {"tool_name": "Write", "tool_input": {"file_path": "/repo/app.py"}}
BLOCK = HandlerOptions(on_failure=OnFailure.BLOCK)


def script(tmp_path: Path, name: str, body: str, executable: bool = True) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    if executable:
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def pre(handler, matcher="Write", **kw) -> dict:
    return {"PreToolUse": [HookMatcher(matcher, [handler], **kw)]}


def run(hooks, payload=WRITE_APP, event="PreToolUse", **kw):
    return run_hooks(hooks, event, payload, environ=ENV, tool_use_id="toolu_1", **kw)


def gone(pid: int, within: float = 20.0) -> bool:
    """True once ``pid`` no longer runs (exited, or a zombie nobody reaped yet).

    SIGKILL is delivered asynchronously, so this waits, bounded, for the state change.
    """
    deadline = time.monotonic() + within
    while True:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


@pytest.mark.parametrize(
    ("code", "outcome", "blocked"),
    [
        (0, HookOutcome.SUCCESS, False),
        (2, HookOutcome.BLOCKING_ERROR, True),
        (1, HookOutcome.NON_BLOCKING_ERROR, False),
        (3, HookOutcome.NON_BLOCKING_ERROR, False),
    ],
)
def test_exit_codes_give_the_three_outcomes(tmp_path, code, outcome, blocked):
    result = run(pre(CommandHandler(script(tmp_path, "h.sh", f"exit {code}"))))
    assert result.runs[0].outcome is outcome and result.blocked is blocked
    assert result.runs[0].exit_code == code


def test_the_guard_blocks_env_writes_and_passes_others(tmp_path):
    guard = script(
        tmp_path,
        "guard.sh",
        'grep -q \'"file_path": "[^"]*\\.env"\' && { echo "no .env" >&2; exit 2; }\nexit 0',
    )
    hooks = pre(CommandHandler(guard), matcher="Edit|Write")
    blocked = run(hooks, WRITE_ENV)
    assert blocked.blocked and blocked.decision == "deny" and blocked.reason == "no .env"
    assert not run(hooks, WRITE_APP).blocked


def test_the_hook_reads_the_common_fields_and_sees_the_project_dir(tmp_path):
    out = tmp_path / "seen.json"
    hook = script(tmp_path, "h.sh", f'cat > {out}; echo "$CLAUDE_PROJECT_DIR" > {out}.dir')
    run(pre(CommandHandler(hook)), project_dir=tmp_path)
    seen = json.loads(out.read_text())
    assert seen["hook_event_name"] == "PreToolUse" and seen["tool_use_id"] == "toolu_1"
    assert seen["tool_input"] == WRITE_APP["tool_input"] and "session_id" in seen
    assert Path(f"{out}.dir").read_text().strip() == str(tmp_path)


def test_exec_form_substitutes_the_project_dir_without_a_shell(tmp_path):
    hook = script(tmp_path, "h.sh", 'echo "$1" >&2; exit 2')
    result = run(pre(CommandHandler(hook, args=("${CLAUDE_PROJECT_DIR}/x",))), project_dir=tmp_path)
    assert result.reason == f"{tmp_path}/x"


def test_otel_variables_are_removed_from_the_hook_environment(tmp_path):
    hook = script(tmp_path, "h.sh", 'test -z "$OTEL_EXPORTER_OTLP_ENDPOINT" || exit 2')
    result = run_hooks(
        pre(CommandHandler(hook)),
        "PreToolUse",
        WRITE_APP,
        environ={**ENV, "OTEL_EXPORTER_OTLP_ENDPOINT": "x"},
    )
    assert result.runs[0].outcome is HookOutcome.SUCCESS


def test_exit_two_blocks_even_when_its_json_says_allow(tmp_path):
    body = (
        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "allow"}}\'; exit 2'
    )
    result = run(pre(CommandHandler(script(tmp_path, "h.sh", body))))
    assert result.blocked and result.decision == "deny"


def test_schema_valid_json_on_another_exit_code_decides_alone(tmp_path):
    body = (
        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "ask"}}\'; exit 1'
    )
    hook = script(tmp_path, "h.sh", body)
    result = run(pre(CommandHandler(hook)))
    assert result.runs[0].outcome is HookOutcome.SUCCESS and result.decision == "ask"
    # ... but with onFailure "block" the exit code counts as a failure (article Def. 4.2).
    strict = run(pre(CommandHandler(hook, options=BLOCK)))
    assert strict.blocked and strict.runs[0].failure is FailureKind.EXIT_CODE


@pytest.mark.parametrize(
    ("stdout", "failure"),
    [
        ("{not json", FailureKind.INVALID_JSON),
        ('{"continue": "yes"}', FailureKind.SCHEMA),
        ('{"hookSpecificOutput": {"hookEventName": "Stop"}}', FailureKind.SCHEMA),
        (
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ok"}}',
            FailureKind.SCHEMA,
        ),
    ],
)
def test_bad_json_on_exit_zero_is_a_non_blocking_error(tmp_path, stdout, failure):
    hook = script(tmp_path, "h.sh", f"echo '{stdout}'")
    result = run(pre(CommandHandler(hook)))
    assert result.runs[0].outcome is HookOutcome.NON_BLOCKING_ERROR
    assert result.runs[0].failure is failure and not result.blocked


def test_plain_text_stdout_is_context_only_on_prompt_and_session_events(tmp_path):
    hook = CommandHandler(script(tmp_path, "h.sh", "echo remember the style guide"))
    prompt = run(
        {"UserPromptSubmit": [HookMatcher(None, [hook])]},
        {"prompt": "hi"},
        event="UserPromptSubmit",
    )
    assert prompt.additional_context == ("remember the style guide",)
    assert run(pre(hook)).additional_context == ()


def test_json_fields_are_collected(tmp_path):
    body = (
        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"updatedInput": {"file_path": "/repo/b.py"}, "additionalContext": "note"}}\''
    )
    result = run(pre(CommandHandler(script(tmp_path, "h.sh", body))))
    assert result.updated_input == {"file_path": "/repo/b.py"}
    assert result.additional_context == ("note",)


def test_continue_false_asks_to_stop_claude(tmp_path):
    body = 'echo \'{"continue": false, "stopReason": "budget"}\''
    result = run(pre(CommandHandler(script(tmp_path, "h.sh", body))))
    assert result.stop and result.stop_reason == "budget"


# --- onFailure and exercise 9.3 --------------------------------------------------------------


def test_a_missing_script_fails_open_by_default(tmp_path):
    result = run(pre(CommandHandler(str(tmp_path / "missing.py"))), WRITE_ENV)
    assert result.runs[0].outcome is HookOutcome.NON_BLOCKING_ERROR
    assert result.runs[0].failure is FailureKind.NOT_STARTED
    assert not result.blocked and result.decision is None


def test_a_missing_script_fails_closed_with_on_failure_block(tmp_path):
    result = run(pre(CommandHandler(str(tmp_path / "missing.py"), options=BLOCK)), WRITE_ENV)
    assert result.runs[0].outcome is HookOutcome.BLOCKING_ERROR
    assert result.blocked and result.decision == "deny"


def test_a_missing_program_in_exec_form_fails_to_start(tmp_path):
    result = run(pre(CommandHandler(str(tmp_path / "nope"), args=())))
    assert result.runs[0].failure is FailureKind.NOT_STARTED and result.runs[0].exit_code is None


def test_a_script_that_is_not_executable_cannot_start(tmp_path):
    hook = script(tmp_path, "h.sh", "exit 2", executable=False)
    open_ = run(pre(CommandHandler(hook)))
    closed = run(pre(CommandHandler(hook, options=BLOCK)))
    assert open_.runs[0].exit_code == 126 and open_.runs[0].failure is FailureKind.NOT_STARTED
    assert not open_.blocked and closed.blocked


@pytest.mark.parametrize("event", ["Stop", "SubagentStop", "TaskCompleted", "TeammateIdle"])
def test_on_failure_is_ignored_on_the_events_that_ignore_it(tmp_path, event):
    hook = CommandHandler(str(tmp_path / "missing"), options=BLOCK)
    result = run({event: [HookMatcher(None, [hook])]}, {}, event=event)
    assert result.runs[0].outcome is HookOutcome.NON_BLOCKING_ERROR and not result.blocked


def test_post_tool_use_cannot_block_even_on_exit_two(tmp_path):
    hook = CommandHandler(script(tmp_path, "fmt.sh", "echo formatter broke >&2; exit 2"))
    result = run(
        {"PostToolUse": [HookMatcher("Write", [hook])]},
        {**WRITE_APP, "tool_response": {}},
        event="PostToolUse",
    )
    assert result.runs[0].outcome is HookOutcome.BLOCKING_ERROR and not result.blocked


# --- bad hooks: huge output, hangs, children, bytes ----------------------------------------------


def test_ten_megabytes_of_output_are_capped_and_do_not_stall(tmp_path):
    hook = script(tmp_path, "big.sh", "head -c 10000000 /dev/zero | tr '\\0' x; exit 0")
    result = run(pre(CommandHandler(hook)))
    first = result.runs[0]
    assert first.outcome is HookOutcome.SUCCESS and first.truncated
    assert len(first.stdout) == OUTPUT_CAP


def test_a_hanging_hook_times_out_and_its_whole_group_dies(tmp_path):
    pids = tmp_path / "pids"
    hook = script(tmp_path, "hang.sh", f"sleep 60 & echo $! > {pids}; echo $$ >> {pids}; wait")
    # On a loaded machine the shell may not even have written its pids when a short timeout
    # ends it: the run is repeated with a longer timeout until the hook has started, so the
    # group that must die is known (a quiet machine needs the first, short run only).
    for timeout in (0.5, 2.0, 8.0, 30.0):
        pids.unlink(missing_ok=True)
        result = run(pre(CommandHandler(hook, options=HandlerOptions(timeout=timeout))))
        assert result.runs[0].failure is FailureKind.TIMEOUT and not result.blocked
        if pids.exists() and len(pids.read_text().split()) == 2:
            break
    assert all(gone(int(p)) for p in pids.read_text().split())


def test_a_timeout_blocks_with_on_failure_block(tmp_path):
    hook = script(tmp_path, "hang.sh", "sleep 60")
    result = run(
        pre(CommandHandler(hook, options=HandlerOptions(timeout=0.3, on_failure=OnFailure.BLOCK)))
    )
    assert result.blocked and result.runs[0].failure is FailureKind.TIMEOUT


def test_a_group_with_on_failure_block_blocks_when_its_command_times_out(tmp_path):
    # A handler that sets no onFailure inherits its group's (issue 17: it used to default to
    # "continue", which hid the group's "block").
    hook = script(tmp_path, "hang.sh", "sleep 60")
    result = run(pre(CommandHandler(hook), on_failure="block", timeout=0.3))
    assert result.blocked and result.runs[0].failure is FailureKind.TIMEOUT
    assert result.decision == "deny"


def test_a_handler_on_failure_overrides_its_group(tmp_path):
    hook = script(tmp_path, "hang.sh", "sleep 60")
    handler = CommandHandler(hook, options=HandlerOptions(on_failure=OnFailure.CONTINUE))
    result = run(pre(handler, on_failure="block", timeout=0.3))
    assert not result.blocked and result.runs[0].failure is FailureKind.TIMEOUT


def test_children_that_outlive_the_hook_are_ended_with_it(tmp_path):
    pid_file = tmp_path / "child"
    # the child outlives the test's own bound (pytest-timeout): a run that waited for the
    # child holding stdout would fail the test rather than pass slowly
    hook = script(tmp_path, "spawn.sh", f"sleep 1000 & echo $! > {pid_file}; exit 0")
    result = run(pre(CommandHandler(hook)))
    assert result.runs[0].outcome is HookOutcome.SUCCESS
    assert gone(int(pid_file.read_text()))


def test_children_that_close_their_pipes_are_ended_too(tmp_path):
    pid_file = tmp_path / "child"
    hook = script(
        tmp_path, "spawn.sh", f"sleep 60 >/dev/null 2>&1 </dev/null & echo $! > {pid_file}; exit 2"
    )
    assert run(pre(CommandHandler(hook))).blocked
    assert gone(int(pid_file.read_text()))


def test_non_utf8_output_is_decoded_with_replacement(tmp_path):
    hook = script(tmp_path, "bytes.sh", "printf '\\377\\376oops' >&2; exit 2")
    result = run(pre(CommandHandler(hook)))
    assert result.blocked and "\ufffd" in (result.reason or "")


# --- several handlers: parallel, combined, deduplicated -----------------------------------------


def decision_cb(decision):
    def cb(input_data, tool_use_id, context):
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": decision,
            }
        }

    return cb


@pytest.mark.parametrize(
    ("decisions", "combined"),
    [
        (["allow", "ask"], "ask"),
        (["allow", "deny", "ask"], "deny"),
        (["allow", "allow"], "allow"),
        (["ask", "defer"], "defer"),
        ([], None),
    ],
)
def test_decisions_combine_deny_defer_ask_allow(decisions, combined):
    assert combine_decisions(decisions) == combined
    hooks = {"PreToolUse": [HookMatcher("*", [decision_cb(d) for d in decisions])]}
    assert run(hooks).decision == combined


def test_async_callbacks_and_sdk_renamed_keys_work():
    async def cb(input_data, tool_use_id, context):
        await asyncio.sleep(0)
        assert tool_use_id == "toolu_1" and context == {"signal": None}
        return {"continue_": False}

    assert run({"PreToolUse": [HookMatcher(None, [cb])]}).stop


@pytest.mark.parametrize("value", [None, "yes", 3])
def test_a_callback_without_a_dict_is_a_failure(value):
    result = run({"PreToolUse": [HookMatcher(None, [lambda *a: value])]})
    assert result.runs[0].failure is FailureKind.CALLBACK_ERROR
    blocked = run({"PreToolUse": [HookMatcher(None, [lambda *a: value], on_failure="block")]})
    assert blocked.blocked


def test_a_raising_callback_is_a_failure_not_a_crash():
    def cb(*args):
        raise RuntimeError("bug")

    assert (
        run({"PreToolUse": [HookMatcher(None, [cb])]}).runs[0].failure is FailureKind.CALLBACK_ERROR
    )


def test_a_callback_that_times_out_blocks_on_pre_tool_use_but_not_on_stop():
    async def slow(*args):
        await asyncio.sleep(5)
        return {}

    result = run({"PreToolUse": [HookMatcher(None, [slow], timeout=0.2)]})
    assert result.blocked and result.runs[0].failure is FailureKind.TIMEOUT
    stop = run({"Stop": [HookMatcher(None, [slow], timeout=0.2)]}, {}, event="Stop")
    assert not stop.blocked


def test_matching_handlers_run_in_parallel(tmp_path):
    # a condition, not a clock: each handler marks its start, then waits until all six have
    # started; run one after another, the first would wait until its timeout instead
    def waiting(i: int) -> CommandHandler:
        body = (
            f"touch {tmp_path}/started.{i}; "
            f'while [ "$(ls {tmp_path} | grep -c started)" -lt 6 ]; do sleep 0.05; done'
        )
        return CommandHandler(
            script(tmp_path, f"s{i}.sh", body), options=HandlerOptions(timeout=60)
        )

    hooks = pre(waiting(0))
    hooks["PreToolUse"] += [HookMatcher("Write", [waiting(i)]) for i in range(1, 6)]
    result = run(hooks)
    assert len(result.ran) == 6
    assert all(r.failure is None and r.exit_code == 0 for r in result.runs)


def test_settings_file_duplicates_run_once_but_plugin_copies_run_again(tmp_path):
    log = tmp_path / "log"
    hook = CommandHandler(script(tmp_path, "h.sh", f"echo x >> {log}"))
    hooks = {
        "PreToolUse": [
            HookMatcher("Write", [hook], source="user", kind="user"),
            HookMatcher("Write|Edit", [hook], source="project", kind="project"),
            HookMatcher("Write", [hook], source="plugin:fmt", kind="plugin"),
        ]
    }
    result = run(hooks)
    assert len(result.ran) == 2 and len(log.read_text().split()) == 2
    assert "duplicate" in (result.runs[1].skipped or "")


def test_unmatched_handlers_are_reported_with_the_rule_that_decided(tmp_path):
    result = run({"PreToolUse": [HookMatcher("^Edit$", [lambda *a: {}])]})
    assert result.runs[0].matched is False and result.runs[0].rule is MatcherRule.REGEX
    assert result.runs[0].outcome is None and result.ran == ()


def test_an_untranslatable_matcher_blocks_pre_tool_use():
    result = run({"PreToolUse": [HookMatcher("(?i)write", [lambda *a: {}])]})
    assert result.blocked


def test_if_rules_filter_handlers_and_never_run_on_other_events():
    hook = CommandHandler("exit 2", options=HandlerOptions(if_="Bash(git *)"))
    bash = {"PreToolUse": [HookMatcher("Bash", [hook])]}
    assert run(bash, {"tool_name": "Bash", "tool_input": {"command": "git push"}}).blocked
    assert not run(bash, {"tool_name": "Bash", "tool_input": {"command": "ls"}}).blocked
    stop = run({"Stop": [HookMatcher(None, [hook])]}, {}, event="Stop")
    assert stop.ran == () and "never runs" in (stop.runs[0].skipped or "")


def test_matchers_on_events_without_matchers_are_ignored():
    result = run({"Stop": [HookMatcher("NoSuchThing", [lambda *a: {}])]}, {}, event="Stop")
    assert len(result.ran) == 1


def test_prompt_handlers_are_reported_as_unsupported_offline():
    result = run({"PreToolUse": [HookMatcher(None, [ModelHandler("prompt", "is it safe?")])]})
    assert result.runs[0].failure is FailureKind.UNSUPPORTED and not result.blocked


def test_unknown_events_are_config_errors():
    with pytest.raises(ConfigError):
        run_hooks({}, "PreToolUSe", {})


def test_raw_settings_groups_are_accepted_and_validated(tmp_path):
    entry = {"type": "command", "command": "exit 2"}
    raw = {"PreToolUse": [{"matcher": "Write", "hooks": [entry]}]}
    assert run(raw).blocked
    with pytest.raises(ConfigError):
        run({"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command"}]}]})


def test_permission_request_hooks_answer_with_a_behavior():
    def cb(*args):
        return {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "no"},
            }
        }

    result = run(
        {"PermissionRequest": [HookMatcher("Write", [cb])]}, WRITE_APP, event="PermissionRequest"
    )
    assert result.decision == "deny" and result.reason == "no"


def test_once_handlers_from_a_skill_run_once_per_settings_object(tmp_path):
    from mcpmini.hooks import load_settings

    log = tmp_path / "log"
    entry = {"type": "command", "command": f"echo x >> {log}", "once": True}
    skill = load_settings([("skill:review", {"hooks": {"PreToolUse": [{"hooks": [entry]}]}})])
    first, second = run(skill), run(skill)
    assert len(first.ran) == 1 and second.ran == () and "once" in second.runs[0].skipped
    assert len(log.read_text().split()) == 1
    settings = load_settings([("project", {"hooks": {"PreToolUse": [{"hooks": [entry]}]}})])
    assert len(run(settings).ran) == len(run(settings).ran) == 1  # once counts only in skills


def test_a_tool_input_that_cannot_be_serialized_blocks_pre_tool_use_only():
    payload = {"tool_name": "Write", "tool_input": {"data": object()}}
    hook = [lambda *a: {}]
    assert run({"PreToolUse": [HookMatcher(None, hook)]}, payload).blocked
    post = run({"PostToolUse": [HookMatcher(None, hook)]}, payload, event="PostToolUse")
    assert not post.blocked and post.runs[0].outcome is HookOutcome.NON_BLOCKING_ERROR


def test_system_messages_are_collected():
    result = run({"PreToolUse": [HookMatcher(None, [lambda *a: {"systemMessage": "careful"}])]})
    assert result.system_messages == ("careful",)


def test_post_tool_use_feedback_reaches_the_reason_without_blocking(tmp_path):
    body = 'echo \'{"decision": "block", "reason": "lint failed"}\''
    post = {"PostToolUse": [HookMatcher("Write", [CommandHandler(script(tmp_path, "l.sh", body))])]}
    result = run(post, {**WRITE_APP, "tool_response": {}}, event="PostToolUse")
    assert not result.blocked and result.reason == "lint failed"


def test_a_failing_post_tool_use_hook_under_on_failure_block_is_feedback_not_a_block(tmp_path):
    # observed in Claude Code 2.1.332: exit 1 under onFailure "block" reaches Claude as a
    # "blocking error" with the hook's stderr; the tool already ran, so nothing is stopped
    body = "echo 'formatter crashed' >&2; exit 1"
    path = script(tmp_path, "f.sh", body)
    payload = {**WRITE_APP, "tool_response": {}}
    results = {}
    for on_failure in (OnFailure.CONTINUE, OnFailure.BLOCK):
        handler = CommandHandler(path, options=HandlerOptions(on_failure=on_failure))
        results[on_failure] = run(
            {"PostToolUse": [HookMatcher("Write", [handler])]}, payload, event="PostToolUse"
        )
    quiet, loud = results[OnFailure.CONTINUE], results[OnFailure.BLOCK]
    assert quiet.ran[0].outcome is HookOutcome.NON_BLOCKING_ERROR and quiet.reason is None
    assert loud.ran[0].outcome is HookOutcome.BLOCKING_ERROR and not loud.blocked
    assert loud.reason is not None and "formatter crashed" in loud.reason
