"""Hook sources, read one at a time, and the one error-path format every loader reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mcpmini.config import load_marketplace, load_mcp_json, load_plugin
from mcpmini.errors import ConfigError, Severity, json_path
from mcpmini.hooks import SOURCE_KINDS, read_source
from mcpmini.skills import load_skills

BAD_TIMEOUT = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "x"},
                    {"type": "command", "command": "y", "timeout": "9"},
                ],
            }
        ]
    }
}
WANTED = "hooks.PreToolUse[0].hooks[1].timeout"
# keys joined by dots, list indexes in brackets; never a.0.b or a/0/b
FORMAT = re.compile(r"^[A-Za-z_$][\w$-]*(\[\d+\]|\.[A-Za-z_$][\w:$-]*)*$")


def test_json_path_writes_keys_with_dots_and_indexes_in_brackets() -> None:
    assert json_path(["hooks", "PreToolUse", 0, "hooks", 1, "timeout"]) == WANTED
    assert json_path([]) == "(top level)"
    assert json_path([0, "a"]) == "[0].a"


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (".claude/settings.json", "project"),
        ("settings.json", "flag"),  # a file given on the command line, as --settings
        ("team.json", "flag"),
        ("settings.local.json", "local"),
        ("managed-settings.json", "managed"),
        ("hooks.json", "plugin"),
    ],
)
def test_the_kind_of_a_source_follows_its_file_name(tmp_path: Path, name: str, kind: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"hooks": {}}))
    raw = read_source(path, home=tmp_path / "home")
    assert (raw.kind, raw.name) == (kind, str(path))
    assert raw.kind in SOURCE_KINDS


def test_the_user_settings_file_is_recognised_under_home(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{}")
    assert read_source(path, home=tmp_path).kind == "user"


def test_a_label_pair_and_a_bad_label(tmp_path: Path) -> None:
    assert read_source(("skill:x", {"hooks": {}})).kind == "skill"
    with pytest.raises(ConfigError):
        read_source(("global", {}))


def test_invalid_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{\n  "hooks": {\n    oops\n}')
    with pytest.raises(ConfigError) as info:
        read_source(path)
    assert (info.value.source, info.value.line) == (str(path), 3)


def test_a_wrong_type_is_reported_at_one_path_by_every_hook_loader(tmp_path: Path) -> None:
    # settings file
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(BAD_TIMEOUT))
    with pytest.raises(ConfigError) as info:
        read_source(settings)
    assert info.value.path == WANTED
    # skill front matter, through the skill loader
    skill = tmp_path / "skills" / "s" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\ndescription: d\nhooks: " + json.dumps(BAD_TIMEOUT["hooks"]) + "\n---\n")
    (problem,) = load_skills([tmp_path / "skills"]).problems
    assert problem.path == WANTED
    # plugin hooks/hooks.json, through the plugin loader
    root = tmp_path / "p"
    (root / "hooks").mkdir(parents=True)
    (root / "hooks" / "hooks.json").write_text(json.dumps(BAD_TIMEOUT))
    (p,) = [p for p in load_plugin(root).problems if p.severity is Severity.ERROR]
    assert p.path == WANTED


def test_mcp_manifest_and_marketplace_paths_use_the_same_format(tmp_path: Path) -> None:
    cfg = load_mcp_json({"mcpServers": {"s": {"command": "c", "args": ["${NOPE}"]}}}, environ={})
    paths = [p.path for p in cfg.problems]
    assert paths == ["mcpServers.s.args[0]"]
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "p", "keywords": ["a", 3]})
    )
    (root / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps({"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "x", "source": 5}]})
    )
    found = [p.path for p in load_plugin(root).problems]
    found += [p.path for p in load_marketplace(root).problems]
    assert "keywords[1]" in found and "plugins[0].source" in found
    assert all(FORMAT.match(p) for p in found + paths if p), found
