"""Hook sources and merging (reference §1.1), plus the http and mcp_tool handlers."""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

import pytest

from mcpmini.errors import ConfigError
from mcpmini.hooks import (
    CommandHandler,
    FailureKind,
    HandlerOptions,
    HookMatcher,
    HookOutcome,
    HttpHandler,
    McpToolHandler,
    OnFailure,
    load_settings,
    run_hooks,
)

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def settings(event="PreToolUse", matcher="Write", **handler):
    entry = {"type": "command", "command": "exit 0", **handler}
    return {"hooks": {event: [{"matcher": matcher, "hooks": [entry]}]}}


def test_hooks_from_every_source_add_up(tmp_path):
    plugin = tmp_path / "fmt" / "hooks" / "hooks.json"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(json.dumps({"description": "formatter", **settings(command="echo p")}))
    skill = tmp_path / "skills" / "review" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(
        "---\nname: review\nhooks:\n  PreToolUse:\n    - matcher: Write\n"
        "      hooks:\n        - type: command\n"
        "          command: echo s\n---\nBody\n"
    )
    merged = load_settings(
        [
            ("user", settings(command="echo u")),
            ("project", settings(command="echo p1")),
            plugin,
            skill,
        ]
    )
    kinds = [g.kind for g in merged.groups("PreToolUse")]
    assert kinds == ["user", "project", "plugin", "skill"]
    assert merged.groups("PreToolUse")[2].plugin_root == str(tmp_path / "fmt")


def test_the_kind_of_a_file_is_inferred_from_its_name(tmp_path):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    files = {
        home / ".claude" / "settings.json": "user",
        tmp_path / ".claude" / "settings.json": "project",
        tmp_path / ".claude" / "settings.local.json": "local",
        tmp_path / "managed-settings.json": "managed",
    }
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings()))
    merged = load_settings(list(files), home=home)
    assert [g.kind for g in merged.groups("PreToolUse")] == list(files.values())


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Write",
                            "hooks": [{"type": "command", "command": "x", "timeout": "10"}],
                        }
                    ]
                }
            },
            "hooks.PreToolUse[0].hooks[0].timeout",
        ),
        ({"hooks": {"PreToolUse": [{"matcher": 3, "hooks": []}]}}, "hooks.PreToolUse[0].matcher"),
        ({"hooks": {"PreToolUse": {"matcher": "Write"}}}, "hooks.PreToolUse"),
        ({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}, "hooks.Stop[0].hooks[0]"),
        (
            {"hooks": {"Stop": [{"hooks": [{"type": "shell", "command": "x"}]}]}},
            "hooks.Stop[0].hooks[0].type",
        ),
        (
            {
                "hooks": {
                    "Stop": [{"hooks": [{"type": "command", "command": "x", "onFailure": "stop"}]}]
                }
            },
            "hooks.Stop[0].hooks[0].onFailure",
        ),
        ({"permissions": {"allow": "Bash"}}, "permissions.allow"),
        ({"disableAllHooks": "yes"}, "disableAllHooks"),
    ],
)
def test_wrong_types_ignore_the_whole_file_with_a_warning_naming_the_json_path(
    tmp_path, data, path
):
    # observed in Claude Code 2.1.332: a settings file with a value of the wrong type is
    # ignored whole (its rules and hooks), the other files still apply
    file = tmp_path / "settings.json"
    file.write_text(json.dumps({**data, "permissions": data.get("permissions", {"deny": ["X"]})}))
    good = tmp_path / "settings.local.json"
    good.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}))
    settings = load_settings([file, good])
    [warning] = settings.warnings
    assert warning.startswith(f"{file} at {path}: ") and "the whole file is ignored" in warning
    assert not settings.hooks and [r.text for r in settings.permissions.allow] == ["Bash(ls)"]
    assert not settings.permissions.deny
    with pytest.raises(ConfigError) as info:
        load_settings([("project", data)])  # a dict in code is a programming error
    assert info.value.path == path


@pytest.mark.parametrize(
    ("permissions", "path"),
    [
        ({"defaultMode": "weird"}, "permissions.defaultMode"),
        ({"disableBypassPermissionsMode": "yes"}, "permissions.disableBypassPermissionsMode"),
        ({"additionalDirectories": "x"}, "permissions.additionalDirectories"),
    ],
)
def test_permission_keys_of_the_wrong_value_ignore_the_file(tmp_path, permissions, path):
    file = tmp_path / "settings.json"
    file.write_text(json.dumps({"permissions": {**permissions, "allow": ["Bash(ls)"]}}))
    settings = load_settings([file])
    assert not settings.permissions.allow and settings.default_mode is None
    assert settings.warnings[0].startswith(f"{file} at {path}: ")


def test_invalid_json_names_the_line(tmp_path):
    file = tmp_path / "settings.json"
    file.write_text('{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n')
    with pytest.raises(ConfigError) as info:
        load_settings([file])
    assert info.value.line == 3


def test_a_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_settings([tmp_path / "nope.json"])
    assert info.value.source == str(tmp_path / "nope.json")


def test_an_unknown_event_is_an_error_or_a_warning():
    data = {"hooks": {"PreToolUSe": [{"hooks": [{"type": "command", "command": "x"}]}]}}
    with pytest.raises(ConfigError) as info:
        load_settings([("project", data)])
    assert info.value.path == "hooks.PreToolUSe"
    assert load_settings([("project", data)], strict=False).warnings


def test_broken_front_matter_names_the_line(tmp_path):
    skill = tmp_path / "SKILL.md"
    skill.write_text("---\nname: x\nhooks: [unclosed\n---\nBody\n")
    with pytest.raises(ConfigError) as info:
        load_settings([skill])
    assert info.value.line is not None


def test_unknown_labels_are_refused():
    with pytest.raises(ConfigError):
        load_settings([("global", settings())])


def test_disable_all_hooks_follows_precedence_and_spares_managed_hooks():
    user_off = load_settings(
        [("user", {"disableAllHooks": True}), ("managed", settings()), ("project", settings())]
    )
    assert [g.kind for g in user_off.groups("PreToolUse")] == ["managed"]
    overridden = load_settings(
        [("user", {"disableAllHooks": True}), ("project", {"disableAllHooks": False, **settings()})]
    )
    assert len(overridden.groups("PreToolUse")) == 1
    managed_off = load_settings([("managed", {"disableAllHooks": True, **settings()})])
    assert managed_off.groups("PreToolUse") == [] and managed_off.disabled


def test_allow_managed_hooks_only_keeps_managed_hooks():
    merged = load_settings(
        [
            ("managed", {"allowManagedHooksOnly": True, **settings()}),
            ("project", settings()),
            ("plugin:x", settings()),
        ]
    )
    assert [g.kind for g in merged.groups("PreToolUse")] == ["managed"]


def test_a_subagent_stop_hook_becomes_subagent_stop():
    merged = load_settings([("subagent:rev", settings(event="Stop", matcher=None))])
    assert merged.groups("SubagentStop") and not merged.groups("Stop")


def test_permission_blocks_are_pooled_and_the_highest_default_mode_wins():
    merged = load_settings(
        [
            ("user", {"permissions": {"allow": ["Bash(ls *)"], "defaultMode": "plan"}}),
            ("project", {"permissions": {"deny": ["Bash(rm *)"], "defaultMode": "acceptEdits"}}),
        ]
    )
    assert [r.text for r in merged.permissions.allow] == ["Bash(ls *)"]
    assert [r.text for r in merged.permissions.deny] == ["Bash(rm *)"]
    assert merged.default_mode == "acceptEdits"


def test_handler_fields_are_read_from_settings():
    data = settings(command="x", args=["a"], timeout=5, onFailure="block", **{"if": "Bash(git *)"})
    handler = load_settings([("project", data)]).groups("PreToolUse")[0].hooks[0]
    options = HandlerOptions(timeout=5, on_failure=OnFailure.BLOCK, if_="Bash(git *)")
    assert handler == CommandHandler("x", ("a",), options=options)


def test_warnings_for_matchers_on_events_without_matchers_and_wrong_handler_types():
    data = {
        "hooks": {
            "Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}],
            "SessionStart": [{"hooks": [{"type": "http", "url": "http://x"}]}],
        }
    }
    assert len(load_settings([("project", data)]).warnings) == 2


def test_identical_handlers_in_two_settings_files_run_once(tmp_path):
    log = tmp_path / "log"
    same = settings(command=f"echo x >> {log}")
    merged = load_settings([("user", same), ("local", same), ("plugin:p", same)])
    result = run_hooks(merged, "PreToolUse", {"tool_name": "Write", "tool_input": {}}, environ=ENV)
    assert len(result.ran) == 2 and len(log.read_text().split()) == 2


# --- http and mcp_tool handlers ------------------------------------------------------------------


class _Hook(BaseHTTPRequestHandler):
    replies: ClassVar[dict[str, tuple[int, bytes]]] = {}

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        status, reply = self.replies[self.path]
        if self.path == "/echo-auth":
            reply = json.dumps({"reason": self.headers.get("Authorization", "")}).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
        assert body["hook_event_name"]

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def http_url():
    server = HTTPServer(("127.0.0.1", 0), _Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "no",
    }
}


@pytest.mark.parametrize(
    ("path", "status", "body", "outcome", "decision"),
    [
        ("/deny", 200, json.dumps(DENY).encode(), HookOutcome.SUCCESS, "deny"),
        ("/empty", 200, b"", HookOutcome.SUCCESS, None),
        ("/text", 200, b"hello", HookOutcome.NON_BLOCKING_ERROR, None),
        ("/error", 500, b"", HookOutcome.NON_BLOCKING_ERROR, None),
    ],
)
def test_http_hooks_follow_the_status_and_body_rules(
    http_url, path, status, body, outcome, decision
):
    _Hook.replies[path] = (status, body)
    result = run_hooks(
        {"PreToolUse": [HookMatcher(None, [HttpHandler(http_url + path)])]},
        "PreToolUse",
        {"tool_name": "Write", "tool_input": {}},
        environ=ENV,
    )
    assert result.runs[0].outcome is outcome and result.decision == decision


def test_http_headers_expand_only_allowed_variables(http_url):
    _Hook.replies["/echo-auth"] = (200, b"")
    handler = HttpHandler(
        http_url + "/echo-auth", (("Authorization", "Bearer $TOKEN $SECRET"),), ("TOKEN",)
    )
    result = run_hooks(
        {"Stop": [HookMatcher(None, [handler])]},
        "Stop",
        {},
        environ={**ENV, "TOKEN": "t1", "SECRET": "s1"},
    )
    assert result.runs[0].outcome is HookOutcome.SUCCESS


def test_http_connection_failures_fail_open_or_closed():
    dead = HttpHandler("http://127.0.0.1:9/", options=HandlerOptions(timeout=2))
    hooks = {"PreToolUse": [HookMatcher(None, [dead])]}
    assert not run_hooks(hooks, "PreToolUse", {"tool_name": "W"}, environ=ENV).blocked
    closed = {
        "PreToolUse": [
            HookMatcher(
                None,
                [
                    HttpHandler(
                        "http://127.0.0.1:9/",
                        options=HandlerOptions(timeout=2, on_failure=OnFailure.BLOCK),
                    )
                ],
            )
        ]
    }
    assert run_hooks(closed, "PreToolUse", {"tool_name": "W"}, environ=ENV).blocked


def test_mcp_tool_hooks_call_a_connected_server():
    from mcpmini.mcp import Client, Server, memory_pair

    server = Server("guard")

    @server.tool()
    def check(path: str) -> str:
        """Return a hook decision for a path.

        Args:
            path: the file path
        """
        decision = "deny" if path.endswith(".env") else "allow"
        return json.dumps(
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision}}
        )

    client = Client(memory_pair(server))
    client.connect()
    handler = McpToolHandler("guard", "check", {"path": "${tool_input.file_path}"})
    hooks = {"PreToolUse": [HookMatcher("Write", [handler])]}

    def decide(path: str, clients):
        return run_hooks(
            hooks,
            "PreToolUse",
            {"tool_name": "Write", "tool_input": {"file_path": path}},
            environ=ENV,
            mcp_clients=clients,
        )

    assert decide("/r/.env", {"guard": client}).decision == "deny"
    assert decide("/r/a.py", {"guard": client}).decision == "allow"
    missing = decide("/r/.env", {})
    assert missing.runs[0].failure is FailureKind.NOT_STARTED and not missing.blocked


def test_plugin_json_may_inline_hooks_or_name_a_hooks_file(tmp_path):
    root = tmp_path / "lint-plugin"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / "extra").mkdir()
    (root / "extra" / "hooks.json").write_text(json.dumps(settings(command="echo file")))
    manifest = root / ".claude-plugin" / "plugin.json"
    manifest.write_text(json.dumps({"name": "lint", "hooks": "./extra/hooks.json"}))
    named = load_settings([manifest]).groups("PreToolUse")
    assert named[0].hooks[0].command == "echo file" and named[0].plugin_root == str(root)
    manifest.write_text(json.dumps({"name": "lint", **settings(command="echo inline")}))
    inline = load_settings([manifest]).groups("PreToolUse")
    assert inline[0].hooks[0].command == "echo inline" and inline[0].kind == "plugin"


def test_the_plugin_root_reaches_the_hook_environment(tmp_path):
    root = tmp_path / "p"
    (root / "hooks").mkdir(parents=True)
    hooks_file = root / "hooks" / "hooks.json"
    hooks_file.write_text(
        json.dumps(settings(command=f'test "$CLAUDE_PLUGIN_ROOT" = "{root}" || exit 2'))
    )
    result = run_hooks(
        load_settings([hooks_file]),
        "PreToolUse",
        {"tool_name": "Write", "tool_input": {}},
        environ=ENV,
    )
    assert result.runs[0].outcome is HookOutcome.SUCCESS


def test_managed_settings_are_read_key_by_key_a_bad_value_ignored_alone(tmp_path):
    # observed in Claude Code 2.1.332 (tests/oracle: settings_keys, managed-*): where a user or
    # project file is ignored whole, a managed file keeps the rest of its keys
    managed = tmp_path / "managed-settings.json"
    data = {
        "defaultMode": "weird",
        "ask": "Bash(touch *)",
        "deny": ["Bash(mkdir one)"],
        "disableBypassPermissionsMode": "yes",
    }
    managed.write_text(json.dumps({"permissions": data}))
    settings = load_settings([managed])
    assert [r.text for r in settings.permissions.deny] == ["Bash(mkdir one)"]
    assert settings.default_mode is None and settings.disable_bypass is True
    notes = sorted(w.split(": ", 2)[1] for w in settings.warnings)
    assert notes == [
        "permissions.ask",
        "permissions.defaultMode",
        "permissions.disableBypassPermissionsMode",
    ]
    assert all(w.startswith(f"{managed}: ") for w in settings.warnings)
    assert "read as on" in next(w for w in settings.warnings if "disableBypass" in w)
    # the same values in the project's settings ignore that file whole
    project = tmp_path / ".claude" / "settings.json"
    project.parent.mkdir()
    project.write_text(json.dumps({"permissions": data}))
    whole = load_settings([project])
    assert not whole.permissions.deny and whole.disable_bypass is False
    [warning] = whole.warnings
    assert "the whole file is ignored" in warning


def test_managed_disable_bypass_false_leaves_bypass_on(tmp_path):
    managed = tmp_path / "managed-settings.json"
    managed.write_text(json.dumps({"permissions": {"disableBypassPermissionsMode": False}}))
    settings = load_settings([managed])
    assert settings.disable_bypass is False
    assert settings.warnings[0].endswith("read as off, as Claude Code reads managed settings")
