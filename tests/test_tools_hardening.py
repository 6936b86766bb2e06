"""Built-in tools under attack (issue 14): Grep in linear time, and writes that refuse a path
swapped for a symlink between the check and the use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcpmini.agent import SwappedPathError, Tool, Workspace, builtin_tools
from mcpmini.permissions import PermissionRules


def tools_for(ws: Workspace | Path, **kw: float) -> dict[str, Tool]:
    return {t.name: t for t in builtin_tools(ws, **kw)}  # type: ignore[arg-type]


@pytest.mark.timeout(60)
def test_a_catastrophic_pattern_returns_promptly_under_re2(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("a" * 100_000 + "b\n")
    result = tools_for(tmp_path)["Grep"].run({"pattern": "^(a+)+$"})
    assert (result.is_error, result.content) == (False, "no matches")


def test_re2_syntax_finds_the_same_lines_as_before(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\nclass C: pass\n")
    result = tools_for(tmp_path)["Grep"].run({"pattern": r"^(def|class)\s+\w+"})
    assert result.content.splitlines() == ["a.py:1:def f():", "a.py:3:class C: pass"]


def test_back_references_fall_back_to_python_re(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abab\nabcd\n")
    result = tools_for(tmp_path)["Grep"].run({"pattern": r"(ab)\1"})
    assert (result.is_error, result.content) == (False, "a.txt:1:abab")


@pytest.mark.timeout(60)
def test_a_catastrophic_pattern_that_needs_python_re_is_stopped_by_the_time_limit(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("a" * 60 + "\n")
    result = tools_for(tmp_path, grep_timeout=1.0)["Grep"].run({"pattern": r"^(a+)+(?=b)"})
    assert result.is_error and "(?=b)" in result.content


def test_an_invalid_pattern_for_both_engines_is_an_error(tmp_path: Path) -> None:
    result = tools_for(tmp_path)["Grep"].run({"pattern": "(unclosed"})
    assert result.is_error


class SwappingWorkspace(Workspace):
    """Swaps ``sub`` for a symlink to ``outside`` right after the path check (the race)."""

    def __init__(self, root: Path, outside: Path) -> None:
        super().__init__(root)
        self.outside = outside

    def resolve(self, path: str) -> Path:
        checked = super().resolve(path)
        sub = self.root / "sub"
        if sub.is_dir() and not sub.is_symlink():
            for child in sub.iterdir():
                child.unlink()
            sub.rmdir()
            sub.symlink_to(self.outside)
        return checked


@pytest.mark.parametrize("tool", ["Write", "Edit", "Read"])
def test_a_folder_swapped_for_a_symlink_after_the_check_is_refused(
    tmp_path: Path, tool: str
) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "sub" / "f.txt").write_text("old")
    (outside / "f.txt").write_text("secret")
    tools = tools_for(SwappingWorkspace(root, outside))
    inputs = {
        "Write": {"file_path": "sub/f.txt", "content": "pwned"},
        "Edit": {"file_path": "sub/f.txt", "old_string": "secret", "new_string": "pwned"},
        "Read": {"file_path": "sub/f.txt"},
    }
    result = tools[tool].run(inputs[tool])
    assert result.is_error
    assert "secret" not in result.content
    assert (outside / "f.txt").read_text() == "secret"


def test_a_file_swapped_for_a_symlink_after_the_check_is_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside.txt"
    root.mkdir()
    outside.write_text("secret")
    ws = Workspace(root)
    target = ws.resolve("f.txt")
    target.symlink_to(outside)  # planted between resolve() and the open
    with pytest.raises(SwappedPathError) as info:
        ws.write_text(target, "pwned")
    assert info.value.path == "f.txt"
    assert outside.read_text() == "secret"
    assert os.path.islink(target)


def test_writes_still_create_missing_folders(tmp_path: Path) -> None:
    result = tools_for(tmp_path)["Write"].run({"file_path": "a/b/c.txt", "content": "x"})
    assert not result.is_error and (tmp_path / "a" / "b" / "c.txt").read_text() == "x"


def test_grep_and_glob_over_a_parent_folder_leave_out_files_a_read_deny_covers(
    tmp_path: Path,
) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "k.pem").write_text("KEY=1\n")
    (tmp_path / "app.py").write_text("KEY=2\n")
    (tmp_path / "alias.txt").symlink_to(tmp_path / "secrets" / "k.pem")
    rules = PermissionRules(deny=["Read(./secrets/**)"])
    tools = {t.name: t for t in builtin_tools(tmp_path, rules=rules, home="/h")}
    assert tools["Grep"].run({"pattern": "KEY"}).content == "app.py:1:KEY=2"
    assert tools["Glob"].run({"pattern": "**/*"}).content.splitlines() == ["app.py"]
    open_tools = tools_for(tmp_path)
    assert "secrets/k.pem:1:KEY=1" in open_tools["Grep"].run({"pattern": "KEY"}).content
