"""Issue 22, excessive nesting: every loader turns JSON (or YAML) nested 100,000 levels deep
into one line naming the file, through the one reader :func:`mcpmini.jsonfile.loads` — never a
``RecursionError`` traceback. Nothing outside the temporary tree changes, nothing is left
running."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from attack_support import descendants, snapshot

from mcpmini import jsonfile
from mcpmini.cli import main

LEVELS = 100_000
DEEP = "[" * LEVELS + "]" * LEVELS


def deep_object(key: str) -> str:
    """A JSON object whose ``key`` holds :data:`DEEP`."""
    return "{" + json.dumps(key) + ": " + DEEP + "}"


def _plugin(root: Path, manifest: str, marketplace: str | None = None) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(manifest)
    if marketplace is not None:
        (root / ".claude-plugin" / "marketplace.json").write_text(marketplace)
    return root


def _case(tmp_path: Path, name: str) -> tuple[list[str], Path]:
    """The command line of one loader's case, and the file that nests too deep."""
    f = tmp_path / "deep.json"
    if name == "settings":
        f.write_text(deep_object("hooks"))
        return ["hooks", "run", "--settings", str(f), "--event", "Stop"], f
    if name == "mcp_json":
        f.write_text(deep_object("mcpServers"))
        return ["config", "resolve", "--project", str(f)], f
    if name == "claude_json":
        f.write_text('{"projects": {}, "tipsHistory": ' + DEEP + "}")
        return ["config", "resolve", "--user", str(f)], f
    if name == "tools":
        f.write_text(deep_object("mcpServers"))
        return ["tools", "--project", str(f)], f
    if name == "plugin_manifest":
        root = _plugin(tmp_path / "p", deep_object("name"))
        return ["plugin", "validate", str(root)], root / ".claude-plugin" / "plugin.json"
    if name == "marketplace":
        root = _plugin(tmp_path / "p", '{"name": "p"}', deep_object("plugins"))
        return ["plugin", "validate", str(root)], root / ".claude-plugin" / "marketplace.json"
    if name == "plugin_hooks":
        root = _plugin(tmp_path / "p", '{"name": "p"}')
        (root / "hooks").mkdir()
        (root / "hooks" / "hooks.json").write_text(deep_object("hooks"))
        return ["plugin", "validate", str(root)], root / "hooks" / "hooks.json"
    if name == "progress":
        f.write_text(deep_object("exercises"))
        return ["progress"], f
    if name == "quiz_answers":
        f.write_text(deep_object("answers"))
        return ["quiz", "grade", str(f)], f
    if name == "skill_front_matter":
        skill = tmp_path / "skills" / "deep"
        skill.mkdir(parents=True)
        levels = 30_000  # the front matter is capped at 64 KiB
        f = skill / "SKILL.md"
        f.write_text(f"---\ndescription: x\nmetadata: {'[' * levels}{']' * levels}\n---\n")
        return ["skills", "lint", str(tmp_path / "skills")], f
    raise AssertionError(name)


CASES = [
    "settings",
    "mcp_json",
    "claude_json",
    "tools",
    "plugin_manifest",
    "marketplace",
    "plugin_hooks",
    "progress",
    "quiz_answers",
    "skill_front_matter",
]


@pytest.mark.parametrize("name", CASES)
def test_deep_nesting_is_one_line_naming_the_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MCPMINI_PROGRESS", str(tmp_path / "deep.json"))
    monkeypatch.chdir(tmp_path)
    argv, deep_file = _case(tmp_path, name)
    outside = snapshot(Path(__file__).parent / "fixtures")
    before = descendants()
    code = main(argv)  # a RecursionError would propagate: main keeps a bug's traceback
    out, err = capsys.readouterr()
    assert code in (1, 2)  # tools: 2, an unreadable source is an error (it exited 0 before)
    named = [line for line in (out + err).splitlines() if str(deep_file) in line]
    reports = [line for line in named if f" {jsonfile.MAX_DEPTH} " in line]  # the limit named
    assert len(reports) == 1 or (name == "skill_front_matter" and len(named) == 1), out + err
    assert "Traceback" not in out + err and len(out + err) < 2000
    assert descendants() <= before
    assert snapshot(Path(__file__).parent / "fixtures") == outside


def test_hook_output_nested_too_deep_is_an_invalid_json_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "deep.py"
    script.write_text(f"print('{{\"x\": ' + '[' * {LEVELS} + ']' * {LEVELS} + '}}')")
    settings = tmp_path / "settings.json"
    hook = {"type": "command", "command": f"{sys.executable} {script}"}
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}))
    before = descendants()
    code = main(["hooks", "run", "--settings", str(settings), "--event", "Stop", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [r["failure"] for r in out["handlers"]] == ["invalid_json"]
    assert descendants() <= before


def test_the_reader_refuses_one_level_past_the_limit_and_reads_the_limit() -> None:
    at_limit = "[" * jsonfile.MAX_DEPTH + "]" * jsonfile.MAX_DEPTH
    assert jsonfile.loads(at_limit) is not None
    with pytest.raises(jsonfile.NestingError) as caught:
        jsonfile.loads("\n[" + at_limit + "]")
    assert (caught.value.lineno, caught.value.colno) == (2, jsonfile.MAX_DEPTH + 1)
    assert isinstance(caught.value, json.JSONDecodeError)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"a": "[" * 1000 + '\\"{' * 500})
    assert jsonfile.loads(text) == json.loads(text)
