"""Built-in tools and the Python sandbox: confinement, Edit's uniqueness rule, runaway programs."""

from __future__ import annotations

import os
import time
from pathlib import Path

import psutil
import pytest

from mcpmini.agent import (
    Limits,
    SandboxOutcome,
    Tool,
    ToolError,
    ToolResult,
    Workspace,
    WorkspaceError,
    builtin_tools,
    run_python,
)

FAST = Limits(wall_seconds=3.0, cpu_seconds=1, memory_mb=200, output_bytes=10_000)


@pytest.fixture
def tools(tmp_path: Path) -> dict[str, Tool]:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\ny = 2\nx = 1\n")
    (tmp_path / "notes.md").write_text("hello\nworld\n")
    return {t.name: t for t in builtin_tools(tmp_path, limits=FAST)}


def test_the_six_builtin_tools_have_object_schemas(tools: dict[str, Tool]) -> None:
    assert sorted(tools) == ["Edit", "Glob", "Grep", "Python", "Read", "Write"]
    for t in tools.values():
        d = t.definition()
        assert d["name"] == t.name and d["input_schema"]["type"] == "object"


def test_read_numbers_lines_and_honours_offset_and_limit(tools: dict[str, Tool]) -> None:
    out = tools["Read"].run({"file_path": "src/app.py", "offset": 2, "limit": 1})
    assert not out.is_error
    assert out.content.split("\t") == ["     2", "y = 2"]


def test_write_then_read_round_trips_inside_the_workspace(
    tools: dict[str, Tool], tmp_path: Path
) -> None:
    assert not tools["Write"].run({"file_path": "new/dir/a.txt", "content": "abc"}).is_error
    assert (tmp_path / "new" / "dir" / "a.txt").read_text() == "abc"


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "src/../../x"])
def test_every_path_outside_the_workspace_is_an_error_result(
    tools: dict[str, Tool], path: str
) -> None:
    for name, extra in (
        ("Read", {}),
        ("Write", {"content": "x"}),
        ("Edit", {"old_string": "a", "new_string": "b"}),
        ("Grep", {"pattern": "x"}),
    ):
        key = "path" if name == "Grep" else "file_path"
        out = tools[name].run({key: path, **extra})
        assert out.is_error, (name, path)
    assert not Path("/work/outside.txt").exists()


def test_a_symlink_leading_out_of_the_workspace_is_refused(
    tools: dict[str, Tool], tmp_path: Path
) -> None:
    (tmp_path / "link").symlink_to("/etc")
    assert tools["Read"].run({"file_path": "link/hostname"}).is_error
    assert tools["Glob"].run({"pattern": "link/*"}).content == "no files"


def test_workspace_resolve_raises_workspace_error_with_the_path(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    with pytest.raises(WorkspaceError) as info:
        ws.resolve("../x")
    assert info.value.path == "../x"
    assert ws.resolve("a/../b") == tmp_path.resolve() / "b"


def test_edit_fails_when_the_text_is_not_unique_and_changes_nothing(
    tools: dict[str, Tool], tmp_path: Path
) -> None:
    before = (tmp_path / "src" / "app.py").read_text()
    out = tools["Edit"].run(
        {"file_path": "src/app.py", "old_string": "x = 1", "new_string": "x = 9"}
    )
    assert out.is_error
    assert (tmp_path / "src" / "app.py").read_text() == before


def test_edit_replaces_a_unique_text_or_all_with_replace_all(
    tools: dict[str, Tool], tmp_path: Path
) -> None:
    assert (
        not tools["Edit"]
        .run({"file_path": "src/app.py", "old_string": "y = 2", "new_string": "y = 3"})
        .is_error
    )
    assert (
        not tools["Edit"]
        .run(
            {
                "file_path": "src/app.py",
                "old_string": "x = 1",
                "new_string": "x = 0",
                "replace_all": True,
            }
        )
        .is_error
    )
    assert (tmp_path / "src" / "app.py").read_text() == "x = 0\ny = 3\nx = 0\n"


def test_edit_of_missing_text_is_an_error(tools: dict[str, Tool]) -> None:
    assert (
        tools["Edit"]
        .run({"file_path": "notes.md", "old_string": "zzz", "new_string": "a"})
        .is_error
    )


def test_grep_finds_lines_by_content_with_a_glob_filter(tools: dict[str, Tool]) -> None:
    out = tools["Grep"].run({"pattern": r"^x =", "glob": "*.py"})
    assert out.content.splitlines() == ["src/app.py:1:x = 1", "src/app.py:3:x = 1"]
    assert tools["Grep"].run({"pattern": "hello", "glob": "*.py"}).content == "no matches"


def test_grep_with_an_invalid_regex_is_an_error(tools: dict[str, Tool]) -> None:
    assert tools["Grep"].run({"pattern": "(unclosed"}).is_error


def test_glob_finds_files_by_name_and_refuses_parent_patterns(tools: dict[str, Tool]) -> None:
    assert tools["Glob"].run({"pattern": "**/*.py"}).content == "src/app.py"
    assert tools["Glob"].run({"pattern": "../*"}).is_error


def test_invalid_input_is_reported_with_its_json_path(tools: dict[str, Tool]) -> None:
    out = tools["Read"].run({"file_path": "notes.md", "offset": "two"})
    assert out.is_error and "offset" in out.content
    assert tools["Read"].run({}).is_error
    assert tools["Read"].run(["not", "an", "object"]).is_error


def test_a_tool_that_raises_becomes_an_error_result() -> None:
    def boom(_: dict) -> str:
        raise RuntimeError("kaputt")

    def refuse(_: dict) -> str:
        raise ToolError("not today")

    schema = {"type": "object"}
    assert Tool("B", "", schema, boom).run({}) == ToolResult("RuntimeError: kaputt", True)
    assert Tool("R", "", schema, refuse).run({}) == ToolResult("not today", True)


def test_a_missing_workspace_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolError):
        builtin_tools(tmp_path / "nope")


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_the_python_tool_runs_code_in_the_workspace(tools: dict[str, Tool], tmp_path: Path) -> None:
    out = tools["Python"].run({"code": "import os; print(sorted(os.listdir('.')))"})
    assert not out.is_error
    assert "'notes.md', 'src'" in out.content


@pytest.mark.parametrize(
    ("code", "outcome"),
    [
        ("while True: pass", SandboxOutcome.CPU_LIMIT),
        ("import time; time.sleep(60)", SandboxOutcome.TIMEOUT),
        ("while True: print('x' * 1000)", SandboxOutcome.OUTPUT_LIMIT),
        ("b = bytearray(2 * 10**9)", SandboxOutcome.MEMORY),
        ("raise SystemExit(3)", SandboxOutcome.ERROR),
    ],
)
def test_runaway_programs_are_stopped_and_leave_nothing_running(
    tmp_path: Path, code: str, outcome: SandboxOutcome
) -> None:
    limits = Limits(
        wall_seconds=0.8 if "sleep" in code else 10.0,
        cpu_seconds=1,
        memory_mb=200,
        output_bytes=5_000,
    )
    result = run_python(code, tmp_path, limits)
    assert result.outcome is outcome
    assert not result.ok
    assert len(result.stdout.encode()) <= limits.output_bytes
    assert _gone(result.pid)


def test_children_of_the_sandboxed_program_are_killed_too(tmp_path: Path) -> None:
    # Inside the sandbox's PID namespace the child's own pid means nothing here, so the
    # child is found by its command line (a sleep length no other test uses).
    code = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60.417)'])\n"
        "print(p.pid, flush=True)\ntime.sleep(60)\n"
    )
    result = run_python(code, tmp_path, Limits(wall_seconds=1.0))
    assert result.outcome is SandboxOutcome.TIMEOUT
    assert result.stdout.split()[0].isdigit()  # the child did start

    def left() -> list[int]:
        return [
            p.pid
            for p in psutil.process_iter(["cmdline", "status"])
            if p.info["status"] != psutil.STATUS_ZOMBIE
            and any("60.417" in part for part in p.info["cmdline"] or [])
        ]

    deadline = time.monotonic() + 2.0  # SIGKILL is delivered asynchronously: bounded wait
    while left() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert left() == []


def test_the_sandbox_passes_no_secrets_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cr3t")
    result = run_python("import os; print(os.environ.get('SECRET_TOKEN'))", tmp_path, FAST)
    assert result.stdout.strip() == "None"


def test_the_sandbox_has_no_network_where_isolation_is_available(tmp_path: Path) -> None:
    code = (
        "import socket\ntry:\n    socket.create_connection(('192.0.2.1', 80), timeout=0.5)\n"
        "except OSError as e:\n    print(type(e).__name__)\n"
    )
    result = run_python(code, tmp_path, FAST)
    if not result.network_isolated:
        pytest.skip("unprivileged network namespaces are not available here")
    assert result.ok and result.stdout.strip() in {"OSError", "TimeoutError"}
    assert os.getpid() != result.pid


def test_invalid_input_names_each_problem_at_its_json_path_with_one_cached_validator():
    schema = {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"old_string": {"type": "string"}},
                    "required": ["old_string"],
                },
            }
        },
    }
    tool = Tool("MultiEdit", "edits", schema, lambda inp: "ok")
    result = tool.run({"edits": [{"old_string": "a"}, {"old_string": 3}]})
    assert result.is_error
    assert result.content == "Invalid input: edits[1].old_string: 3 is not of type 'string'"
    assert tool.run({"edits": []}).content == "ok"
    assert tool._validator is tool._validator  # built once per tool, as mcp.schema does
