"""Plugins and marketplaces, and the workbench commands over skills, config and plugins."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from trust_support import approving_home

from mcpmini.cli import main
from mcpmini.config import load_marketplace, load_plugin, resolve_mcp_servers, validate_plugin
from mcpmini.config import manifest as manifest_module
from mcpmini.config import marketplace as marketplace_module
from mcpmini.config import plugins as plugins_module
from mcpmini.config import validation as validation_module
from mcpmini.config.validation import MAX_COMPONENT_BYTES, Target, reserved_name, validate
from mcpmini.errors import Severity
from mcpmini.hooks import HookMatcher, run_hooks
from mcpmini.skills import invoke, load_skills

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "plugin" / "team-tools"
FIXTURES = Path(__file__).parent / "fixtures"


def errors(problems: list) -> list:
    return [p for p in problems if p.severity is Severity.ERROR]


def test_all_exported_names_exist() -> None:
    for module in (plugins_module, marketplace_module, manifest_module, validation_module):
        for name in module.__all__:
            assert hasattr(module, name), name


def test_the_example_plugin_loads_every_component_without_problems() -> None:
    p = load_plugin(EXAMPLE, environ={})
    assert p.problems == []
    assert p.name == "team-tools"
    assert sorted(s.name for s in p.skills) == [
        "team-tools:hello",
        "team-tools:review-pr",
        "team-tools:write-notes",
    ]
    assert list(p.agents) == ["team-tools:reviewer"]
    assert p.server_id("calc") == "plugin:team-tools:calc"
    assert p.mcp_source.source == "plugin:team-tools"


def test_plugin_root_is_substituted_in_hooks_mcp_entries_and_skill_bodies() -> None:
    p = load_plugin(EXAMPLE, environ={"PYTHON": "/usr/bin/python3"})
    root = str(EXAMPLE)
    ((_origin, data),) = p.hooks
    command = data["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert root in command and "${" not in command
    calc = p.mcp_source.servers["plugin:team-tools:calc"]
    assert calc["env"]["TEAM_TOOLS_ROOT"] == root and calc["command"] == "/usr/bin/python3"
    notes = next(s for s in p.skills if s.name == "team-tools:write-notes")
    assert f"{root}/README.md" in invoke(notes, "t.txt").text


def test_the_plugin_hook_runs_through_the_hooks_module_and_blocks() -> None:
    settings = load_plugin(EXAMPLE, environ={}).hook_settings()
    bad = run_hooks(
        settings, "PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}
    )
    fine = run_hooks(settings, "PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert (bad.blocked, fine.blocked) == (True, False)


def test_a_manifest_is_optional_and_the_folder_names_the_plugin(tmp_path: Path) -> None:
    root = tmp_path / "solo"
    (root / "skills" / "a").mkdir(parents=True)
    (root / "skills" / "a" / "SKILL.md").write_text("---\ndescription: a\n---\nA")
    (root / "SKILL.md").write_text("---\nname: main\ndescription: root skill\n---\nR")
    p = load_plugin(root, environ={})
    assert p.name == "solo" and p.problems == []
    assert sorted(s.name for s in p.skills) == ["solo:a", "solo:main"]


def test_paths_that_escape_the_root_are_errors_and_the_rest_still_loads() -> None:
    p = load_plugin(FIXTURES / "plugins" / "escaping", environ={})
    bad = {e.path: e for e in errors(p.problems)}
    assert set(bad) == {"skills", "agents", "commands"}
    assert all(e.source.endswith("plugin.json") and e.line is not None for e in bad.values())
    assert [s.name for s in p.skills] == ["escaping:ok"]
    assert p.agents == {}


def test_wrong_types_invalid_json_and_duplicates_are_named_and_the_rest_loads() -> None:
    p = load_plugin(FIXTURES / "plugins" / "broken", environ={})
    by_path = {(Path(e.source).name, e.path): e for e in p.problems}
    assert by_path[("plugin.json", "version")].line == 3
    assert by_path[("plugin.json", "keywords")].line == 4
    assert by_path[("plugin.json", "colour")].severity is Severity.WARNING
    assert by_path[("hooks.json", None)].line == 4
    # two skills whose front matter names them alike are two skills: folders name them
    assert sorted(s.name for s in p.skills) == ["broken:one", "broken:two"]
    assert p.name == "broken" and "version" not in p.manifest and p.hooks == []


def test_a_hook_file_with_a_wrong_type_is_rejected_by_the_hook_schema(tmp_path: Path) -> None:
    root = tmp_path / "h"
    (root / "hooks").mkdir(parents=True)
    (root / "hooks" / "hooks.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash",
                            "hooks": [{"type": "command", "command": "x", "timeout": "soon"}],
                        }
                    ]
                }
            },
            indent=1,
        )
    )
    p = load_plugin(root, environ={})
    (problem,) = p.problems
    assert problem.source.endswith("hooks.json") and "timeout" in problem.path
    assert p.hooks == []


def test_inline_hooks_and_mcp_servers_in_the_manifest_are_loaded(tmp_path: Path) -> None:
    root = tmp_path / "inline"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps(
            {
                "name": "inline",
                "hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]},
                "mcpServers": {"s": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/s"}},
            }
        )
    )
    p = load_plugin(root, environ={})
    assert p.problems == []
    assert p.mcp_source.servers["plugin:inline:s"]["command"] == f"{root.resolve()}/bin/s"
    assert "PostToolUse" in p.hooks[0][1]["hooks"]


def test_a_missing_plugin_folder_is_one_problem(tmp_path: Path) -> None:
    p = load_plugin(tmp_path / "nope", environ={})
    assert len(errors(p.problems)) == 1 and p.skills == []


def test_plugin_skills_join_the_skill_set_namespaced() -> None:
    p = load_plugin(EXAMPLE, environ={})
    found = load_skills([ROOT / "examples" / "skills"], plugins=[p])
    assert "team-tools:review-pr" in found.skills and "changelog-entry" in found.skills
    assert found.ok


def test_plugin_servers_are_registered_apart_and_matched_by_endpoint() -> None:
    p = load_plugin(EXAMPLE, environ={})
    same = {"command": "python3", "args": ["-m", "mcpmini", "serve", "add"]}
    won = resolve_mcp_servers([p.mcp_source, ("user", {"calc": same})])
    assert list(won) == ["calc"]
    assert won["calc"].source == "user"
    assert won["calc"].shadowed == ("plugin:team-tools (plugin:team-tools:calc)",)
    other = resolve_mcp_servers([p.mcp_source, ("user", {"calc": {"command": "mine"}})])
    assert set(other) == {"calc", "plugin:team-tools:calc"}
    by_name = resolve_mcp_servers([p.mcp_source, ("user", {"calc": same})], match_endpoints=False)
    assert set(by_name) == {"calc", "plugin:team-tools:calc"}


def test_a_marketplace_reports_every_problem() -> None:
    m = load_marketplace(FIXTURES / "plugins" / "market")
    paths = {e.path for e in errors(m.problems)}
    assert paths == {
        None,
        "plugins[0].source",
        "plugins[1].source",
        "plugins[1].name",
        "plugins[2].source",
    }
    assert len(m.plugins) == 4 and not m.ok


def test_a_reserved_marketplace_name_is_a_warning_not_an_error() -> None:
    m = load_marketplace(FIXTURES / "plugins" / "market")
    (reserved,) = [p for p in m.problems if p.path == "name"]
    assert reserved.severity is Severity.WARNING and reserved.line == 2


def test_a_valid_marketplace_has_no_problems(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "plugins" / "team-tools")
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps(
            {
                "name": "course-tools",
                "owner": {"name": "Course"},
                "plugins": [
                    {"name": "team-tools", "source": "./plugins/team-tools"},
                    {"name": "remote", "source": {"source": "github", "repo": "o/r"}},
                ],
            }
        )
    )
    m = load_marketplace(tmp_path)
    assert m.problems == [] and m.name == "course-tools"


def test_adding_a_hook_never_shrinks_the_set_of_blocked_calls() -> None:
    calls = [
        {"tool_name": t, "tool_input": {"command": c}}
        for t in ("Bash", "Write")
        for c in ("ls", "rm -rf x", "cat .env")
    ]

    def blocker(word: str):
        def hook(input_data: dict, tool_use_id: str | None, context: dict) -> dict:
            if word in input_data["tool_input"]["command"]:
                return {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                    }
                }
            return {}

        return hook

    def blocked(groups: list) -> set[int]:
        return {
            i
            for i, c in enumerate(calls)
            if run_hooks({"PreToolUse": groups}, "PreToolUse", c).blocked
        }

    groups: list = []
    previous: set[int] = set()
    for matcher, word in (("Bash", "rm"), ("*", ".env"), ("Write", "ls")):
        groups = [*groups, HookMatcher(matcher, [blocker(word)])]
        now = blocked(groups)
        assert previous <= now
        previous = now
    assert previous == {1, 2, 5, 3}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_plugin_validate_passes_the_example_and_fails_the_broken_one(capsys) -> None:
    code, out, _ = run_cli(capsys, "plugin", "validate", str(EXAMPLE))
    assert code == 0 and "team-tools:review-pr" in out
    code, out, _err = run_cli(
        capsys, "plugin", "validate", str(FIXTURES / "plugins" / "broken"), "--json"
    )
    data = json.loads(out)
    assert code == 1 and {p["path"] for p in data["problems"]} >= {"version", "keywords"}


def test_cli_skills_list_and_lint(capsys) -> None:
    code, out, _ = run_cli(capsys, "skills", "list", str(ROOT / "examples" / "skills"), "--json")
    rows = {r["name"]: r for r in json.loads(out)["skills"]}
    assert code == 0 and rows["release-check"]["in_listing"] is False
    assert rows["changelog-entry"]["shadowed"]
    code, _, err = run_cli(capsys, "skills", "lint", str(FIXTURES / "skills"))
    assert code == 1 and "bad-yaml" in err and "no-skill-md" in err
    code, _, _ = run_cli(capsys, "skills", "lint", str(ROOT / "examples" / "skills"))
    assert code == 0
    code, _, _ = run_cli(
        capsys,
        "skills",
        "lint",
        str(ROOT / "examples" / "skills"),
        "--budget-chars",
        "50",
        "--strict",
    )
    assert code == 1


def test_cli_config_resolve_says_which_file_wins(capsys, tmp_path, monkeypatch) -> None:
    approving_home(tmp_path, monkeypatch)  # the project's db takes part once approved
    cfg = FIXTURES / "config"
    code, out, _ = run_cli(
        capsys,
        "config",
        "resolve",
        "--local",
        str(cfg / "local.json"),
        "--project",
        str(cfg / "project.json"),
        "--user",
        str(cfg / "user.json"),
        "--plugin",
        str(EXAMPLE),
        "--json",
    )
    servers = json.loads(out)["servers"]
    assert servers["db"]["source"] == "local" and servers["db"]["file"].endswith("local.json")
    assert servers["db"]["shadowed"] == ["project"]
    assert servers["plugin:team-tools:calc"]["source"] == "plugin:team-tools"
    assert code == 0


def test_cli_config_resolve_reports_a_broken_file_and_still_resolves_the_rest(capsys) -> None:
    cfg = FIXTURES / "config"
    code, out, err = run_cli(
        capsys,
        "config",
        "resolve",
        "--local",
        str(cfg / "invalid.json"),
        "--user",
        str(cfg / "user.json"),
    )
    assert code == 1 and "invalid.json:3" in err
    assert "notes: from user" in out


def test_validate_plugin_reads_a_marketplace_folder_as_claude_code_does(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "marketplace.json").write_text('{"name": "x"}')
    (root / ".claude-plugin" / "plugin.json").write_text("{not json")
    found = validate_plugin(root)
    # the marketplace wins and its plugin.json is not read: owner and plugins are missing
    assert {(p.severity, p.path) for p in found} == {
        (Severity.ERROR, "owner"),
        (Severity.ERROR, "plugins"),
    }
    assert all(p.source.endswith("marketplace.json") for p in found)


def test_the_notebook_10_switch_shows_every_field_with_its_source() -> None:
    from mcpmini.course.chapters import resolution_lines, resolution_switch

    sources = [
        (
            "project",
            {
                "db": {
                    "url": "https://db.example.com/mcp",
                    "headers": {"Authorization": "Bearer ${T}"},
                }
            },
        ),
        ("local", {"db": {"url": "http://localhost:9000/mcp"}}),
    ]
    whole = resolution_lines(sources, "db", "whole")
    merged = resolution_lines(sources, "db", "merge")
    assert len(whole) == 1 and whole[0].startswith("url") and whole[0].endswith("← local")
    assert [ln.split()[0] for ln in merged] == ["url", "headers"]
    assert merged[0].endswith("← local") and merged[1].endswith("← project")
    with pytest.raises(ValueError):
        resolution_lines(sources, "db", "both")
    assert "localhost" in resolution_switch(sources, "db").children[-1].value


def test_cli_config_resolve_reads_the_local_scope_out_of_a_claude_json(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude_json = tmp_path / ".claude.json"
    claude_json.write_text(
        json.dumps(
            {
                "mcpServers": {"db": {"command": "user-db"}},
                "projects": {
                    str(tmp_path.resolve()): {"mcpServers": {"db": {"command": "local-db"}}}
                },
            }
        )
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(
        capsys,
        "config",
        "resolve",
        "--local",
        str(claude_json),
        "--user",
        str(claude_json),
        "--json",
    )
    db = json.loads(out)["servers"]["db"]
    assert code == 0 and db["definition"] == {"command": "local-db"}
    assert (db["source"], db["shadowed"]) == ("local", ["user"])


def test_plugin_hooks_merge_with_settings_hooks_and_both_block() -> None:
    project = (
        "project",
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Write", "hooks": [{"type": "command", "command": "exit 2"}]}
                ]
            }
        },
    )
    merged = load_plugin(EXAMPLE, environ={}).hook_settings(project)
    assert {g.source for g in merged.groups("PreToolUse")} == {"project", "plugin:team-tools"}
    plugin_group = next(g for g in merged.groups("PreToolUse") if g.source != "project")
    assert plugin_group.plugin_root == str(EXAMPLE)
    write = run_hooks(merged, "PreToolUse", {"tool_name": "Write", "tool_input": {}})
    bash = run_hooks(
        merged, "PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}
    )
    assert write.blocked and bash.blocked


def test_the_example_plugin_mcp_server_starts_and_answers_a_tool_call() -> None:
    import sys

    from mcpmini.mcp import Client, OutcomeKind, StdioTransport

    p = load_plugin(EXAMPLE, environ={"PYTHON": sys.executable})
    entry = p.mcp_source.servers["plugin:team-tools:calc"]
    with Client(StdioTransport([entry["command"], *entry["args"]])) as client:
        client.connect()
        assert [t["name"] for t in client.list_tools()] == ["add"]
        outcome = client.call_tool("add", {"a": 2, "b": 3}, timeout=20)
    assert outcome.kind is OutcomeKind.OK and outcome.structured == {"result": 5}


def _plugin_with(tmp_path: Path, manifest: dict, files: dict[str, str]) -> Path:
    root = tmp_path / "demo"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_skills_path_naming_a_file_is_an_error_and_not_a_crash(tmp_path: Path) -> None:
    root = _plugin_with(
        tmp_path,
        {"name": "demo", "skills": "./skills/a/SKILL.md"},
        {"skills/a/SKILL.md": "---\ndescription: a\n---\n"},
    )
    p = load_plugin(root, environ={})
    assert [e.path for e in errors(p.problems)] == ["skills"]
    assert [s.name for s in p.skills] == ["demo:a"]


def test_plugin_skills_are_named_by_their_folder_as_claude_code_lists_them(tmp_path: Path) -> None:
    root = _plugin_with(
        tmp_path,
        {"name": "demo"},
        {
            "skills/folder/SKILL.md": "---\nname: other\ndescription: a\n---\n",
            "skills/b/SKILL.md": "---\nname: other\ndescription: b\n---\n",
            "SKILL.md": "---\ndescription: root\n---\n",
        },
    )
    p = load_plugin(root, environ={})
    assert sorted(s.name for s in p.skills) == ["demo:b", "demo:demo", "demo:folder"]
    assert errors(p.problems) == []


def test_plugin_commands_and_agents_in_subfolders_carry_the_folder_in_their_name(
    tmp_path: Path,
) -> None:
    root = _plugin_with(
        tmp_path,
        {"name": "demo"},
        {
            "commands/git/commit.md": "---\ndescription: c\n---\n",
            "agents/sub/a.md": "---\nname: named\ndescription: x\n---\n",
            "agents/sub/b.md": "---\ndescription: x\n---\n",
        },
    )
    p = load_plugin(root, environ={})
    assert [s.name for s in p.skills] == ["demo:git:commit"]
    assert sorted(p.agents) == ["demo:sub:b", "demo:sub:named"]


# --- validate: the verdict of claude plugin validate (tests/oracle checks it on the binary) -
OFFICIAL = FIXTURES / "plugins-official"


def _verdict(path: Path) -> set[tuple[str, str, str]]:
    report = validate(path)
    return {(p.severity.value, Path(p.source).name, p.path or "") for p in report.problems}


@pytest.mark.parametrize(
    ("name", "reserved"),
    [
        ("claude-helper", True),
        ("Anthropic-Tools", True),
        ("cc-plugin-x", True),
        ("claude-mods", True),
        ("my-claude-official", True),
        ("official-anthropic", True),
        ("claudette", False),
        ("myclaude", False),
        ("feature-dev", False),
    ],
)
def test_reserved_plugin_names(name: str, reserved: bool) -> None:
    assert reserved_name(name) is reserved


def test_the_official_plugins_named_claude_fail_alone_and_pass_in_their_marketplace() -> None:
    alone = validate(OFFICIAL / "plugins" / "claude-security")
    assert not alone.success and [p.path for p in alone.problems] == ["name"]
    market = validate(OFFICIAL)
    assert market.target is Target.MARKETPLACE and market.success
    assert not any("→ name" in (p.path or "") for p in market.problems)


def test_a_folder_without_plugin_json_fails_unless_it_holds_skills(tmp_path: Path) -> None:
    lsp = validate(OFFICIAL / "plugins" / "pyright-lsp")
    assert not lsp.success and [p.path for p in lsp.problems] == ["directory"]
    (tmp_path / "skills" / "a").mkdir(parents=True)
    (tmp_path / "skills" / "a" / "SKILL.md").write_text("---\ndescription: a\n---\n")
    folder = validate(tmp_path)
    assert folder.target is Target.COMPONENTS and folder.success and folder.provides == {}


def test_a_skill_md_over_the_cap_is_skipped_with_a_warning_on_its_folder(tmp_path: Path) -> None:
    root = _plugin_with(
        tmp_path,
        {"name": "demo", "version": "1", "description": "d", "author": {"name": "a"}},
        {"skills/big/SKILL.md": "---\ndescription: [broken\n---\n" + "a" * MAX_COMPONENT_BYTES},
    )
    report = validate(root)
    assert report.success and _verdict(root) == {("warning", "skills", "directory")}
    assert "skills" not in report.provides


def test_a_bom_is_accepted_in_plugin_json_and_refused_in_hooks_and_mcp_files(
    tmp_path: Path,
) -> None:
    root = _plugin_with(
        tmp_path,
        {"name": "demo", "version": "1", "description": "d", "author": {"name": "a"}},
        {"hooks/hooks.json": '\ufeff{"hooks": {}}', ".mcp.json": '\ufeff{"mcpServers": {}}'},
    )
    manifest = root / ".claude-plugin" / "plugin.json"
    manifest.write_text("\ufeff" + manifest.read_text())
    assert _verdict(root) == {("error", "hooks.json", "json"), ("error", ".mcp.json", "json")}


def test_plugin_skills_are_provided_under_their_folder_name(tmp_path: Path) -> None:
    root = _plugin_with(
        tmp_path,
        {"name": "demo", "version": "1", "description": "d", "author": {"name": "a"}},
        {
            "skills/folder/SKILL.md": "---\nname: other\ndescription: a\n---\n",
            "commands/folder.md": "---\ndescription: a\n---\n",
            "agents/sub/x.md": "---\nname: named\ndescription: a\n---\n",
        },
    )
    report = validate(root)
    assert dict(report.provides) == {
        "skills": ("demo:folder",),
        "commands": ("demo:folder",),
        "agents": ("demo:sub:named",),
    }


def test_bad_hooks_fail_the_plugin_only_under_the_guard_events(tmp_path: Path) -> None:
    bad = {"hooks": [{"type": "shell", "command": "x"}]}
    root = _plugin_with(
        tmp_path,
        {"name": "demo", "version": "1", "description": "d", "author": {"name": "a"}},
        {"hooks/hooks.json": json.dumps({"hooks": {"Stop": [bad], "PreToolUse": [bad]}})},
    )
    severities = {p.path: p.severity.value for p in validate(root).problems}
    assert severities == {"hooks.Stop.0.hooks.0": "warning", "hooks.PreToolUse.0.hooks.0": "error"}


def test_plugin_validate_prints_what_the_plugin_provides_and_exits_1_on_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["plugin", "validate", str(OFFICIAL / "plugins" / "feature-dev")])
    out, err = capsys.readouterr()
    assert code == 0 and "agents: feature-dev:code-architect" in out
    assert "0 errors, 1 warnings" in out and "version" in err
    assert main(["plugin", "validate", "--strict", str(OFFICIAL / "plugins" / "feature-dev")]) == 1
    capsys.readouterr()
    code = main(["plugin", "validate", "--json", str(OFFICIAL / "plugins" / "clangd-lsp")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["success"] is False and doc["target"] == "plugin"
    assert [(p["severity"], p["path"]) for p in doc["problems"]] == [("error", "directory")]
