"""Issue 14, Config: loaders that hold against hostile plugins, skills and MCP files.

Each case says what an attacker tries, and asserts the outcome as codes and values: the
outside file is never loaded or run, and the load ends in a problem, not a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpmini.config import load_mcp_json, load_plugin
from mcpmini.errors import ConfigError, Severity
from mcpmini.hooks import load_settings, run_hooks

HOOK = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch {mark}"}]}]}}


def plugin(tmp_path: Path, manifest: dict[str, object] | None = None) -> Path:
    root = tmp_path / "evil"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "evil", **(manifest or {})})
    )
    return root


def outside_hook(tmp_path: Path) -> tuple[Path, Path]:
    """A hooks file outside the plugin whose command leaves a mark when it runs."""
    mark = tmp_path / "ran"
    path = tmp_path / "outside" / "x.json"
    path.parent.mkdir()
    text = json.dumps(HOOK).replace("{mark}", str(mark))
    path.write_text(text)
    return path, mark


def errors(problems: object) -> list[object]:
    return [p for p in problems if p.severity is Severity.ERROR]  # type: ignore[attr-defined]


@pytest.mark.parametrize("folder", ["skills", "commands", "agents", "hooks"])
def test_a_default_folder_symlinked_out_of_the_plugin_root_is_refused(
    tmp_path: Path, folder: str
) -> None:
    root = plugin(tmp_path)
    target = tmp_path / "elsewhere"
    (target / "x").mkdir(parents=True)
    (target / "x" / "SKILL.md").write_text("---\ndescription: stolen\n---\n")
    (target / "x.md").write_text("---\ndescription: stolen\n---\n")
    hook_file, _ = outside_hook(tmp_path)
    (target / "hooks.json").write_text(hook_file.read_text())
    (root / folder).symlink_to(target, target_is_directory=True)
    loaded = load_plugin(root)
    assert loaded.skills == [] and loaded.agents == {} and loaded.hooks == []
    assert [p.source for p in errors(loaded.problems)] in (
        [str(root / folder)],
        [str(root / folder / "hooks.json")],
    )


def test_a_skill_folder_symlinked_out_of_the_plugin_is_refused(tmp_path: Path) -> None:
    root = plugin(tmp_path)
    (root / "skills").mkdir()
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "SKILL.md").write_text("---\ndescription: secret\n---\n")
    (root / "skills" / "secret").symlink_to(tmp_path / "secret", target_is_directory=True)
    loaded = load_plugin(root)
    assert loaded.skills == [] and len(errors(loaded.problems)) == 1


@pytest.mark.parametrize(
    "rel", ["../outside/x.json", "./../outside/x.json", "./hooks/../../outside/x.json"]
)
def test_a_manifest_hooks_path_out_of_the_root_is_refused_and_never_runs(
    tmp_path: Path, rel: str
) -> None:
    hook_file, mark = outside_hook(tmp_path)
    root = plugin(tmp_path, {"hooks": rel})
    assert hook_file.exists()
    loaded = load_plugin(root)
    assert loaded.hooks == [] and [p.path for p in errors(loaded.problems)] == ["hooks"]
    with pytest.raises(ConfigError) as info:
        load_settings([root / ".claude-plugin" / "plugin.json"])
    assert info.value.path == "hooks"
    assert not mark.exists()


def test_a_symlinked_hooks_file_inside_hooks_is_refused(tmp_path: Path) -> None:
    hook_file, mark = outside_hook(tmp_path)
    root = plugin(tmp_path)
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").symlink_to(hook_file)
    loaded = load_plugin(root)
    assert loaded.hooks == [] and len(errors(loaded.problems)) == 1
    run_hooks(loaded.hook_settings(), "PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert not mark.exists()


@pytest.mark.parametrize("rel", ["./.claude-plugin/plugin.json", ["./.claude-plugin/plugin.json"]])
def test_a_hooks_entry_naming_its_own_manifest_is_an_error_not_a_recursion(
    tmp_path: Path, rel: object
) -> None:
    root = plugin(tmp_path, {"hooks": rel})
    manifest = root / ".claude-plugin" / "plugin.json"
    with pytest.raises(ConfigError) as info:
        load_settings([manifest])
    assert info.value.source == str(manifest)
    loaded = load_plugin(root)
    assert [p.path for p in errors(loaded.problems)] == ["hooks"]


def test_two_manifests_naming_each_other_end_in_an_error(tmp_path: Path) -> None:
    root = plugin(tmp_path, {"hooks": "./other/plugin.json"})
    (root / "other").mkdir()
    (root / "other" / "plugin.json").write_text(
        json.dumps({"name": "o", "hooks": "../.claude-plugin/plugin.json"})
    )
    with pytest.raises(ConfigError):
        load_settings([root / ".claude-plugin" / "plugin.json"])


def test_a_hooks_path_inside_the_root_still_loads(tmp_path: Path) -> None:
    root = plugin(tmp_path, {"hooks": "./extra/hooks.json"})
    (root / "extra").mkdir()
    (root / "extra" / "hooks.json").write_text(json.dumps(HOOK).replace("{mark}", "x"))
    assert len(load_settings([root / ".claude-plugin" / "plugin.json"]).groups("PreToolUse")) == 1
    assert len(load_plugin(root).hooks) == 1


@pytest.mark.parametrize(
    ("value", "env", "expanded"),
    [
        ("${A:-${B}}", {}, "${B}"),
        ("${A:-${B:-x}}/bin", {"B": "b"}, "${B:-x}/bin"),
    ],
)
def test_a_nested_default_is_warned_not_passed_through_silently(
    value: str, env: dict[str, str], expanded: str
) -> None:
    cfg = load_mcp_json({"mcpServers": {"s": {"command": value}}}, environ=env)
    assert cfg.servers["s"]["command"].startswith(expanded.split("}")[0])
    warned = [p for p in cfg.problems if p.severity is Severity.WARNING]
    assert [p.path for p in warned if "A:-" in p.message] == ["mcpServers.s.command"]


def test_a_plain_default_is_not_warned() -> None:
    cfg = load_mcp_json({"mcpServers": {"s": {"command": "${A:-run}"}}}, environ={})
    assert cfg.servers["s"]["command"] == "run" and cfg.problems == ()
