"""The one front-matter parser: what Claude Code tolerates, what it refuses, and where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpmini.config import load_plugin
from mcpmini.errors import ConfigError, Severity
from mcpmini.frontmatter import (
    MAX_FILE_BYTES,
    MAX_FRONT_MATTER_BYTES,
    FrontMatterSyntaxError,
    parse_front_matter,
    read_as_validator,
    read_markdown,
)
from mcpmini.hooks import load_settings
from mcpmini.skills import load_skills, parse_skill

HOOKS = (
    "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n"
    "          command: ./guard.sh\n"
)


def test_fields_body_and_the_file_line_of_each_key() -> None:
    front = parse_front_matter("---\nname: a\ndescription: b\n---\nBody\n", "s.md")
    assert dict(front.fields) == {"name": "a", "description": "b"}
    assert front.body == "Body\n"
    assert dict(front.lines) == {"name": 2, "description": 3}
    assert front.problems == () and front.present


def test_no_front_matter_gives_empty_fields_and_the_whole_text_as_body() -> None:
    front = parse_front_matter("# Title\n\ntext\n")
    assert (dict(front.fields), front.body, front.present) == ({}, "# Title\n\ntext\n", False)


@pytest.mark.parametrize(
    "text",
    [
        "\ufeff---\ndescription: d\n---\nbody\n",  # byte-order mark
        "---\ndescription: d\n...\nbody\n",  # YAML document end marker
        "---\r\ndescription: d\r\n---\r\nbody\r\n",  # CRLF line ends
    ],
)
def test_bom_dots_and_crlf_are_read_by_every_loader_alike(tmp_path: Path, text: str) -> None:
    assert parse_front_matter(text).fields["description"] == "d"
    skill = tmp_path / "s" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text(
        text.replace(
            "description: d",
            "description: d\n" + HOOKS.replace("\n", "\r\n" if "\r\n" in text else "\n"),
        ),
        encoding="utf-8",
        newline="",
    )
    assert len(load_settings([skill]).groups("PreToolUse")) == 1
    assert load_skills([skill]).skills["s"].description == "d"


def test_an_unquoted_colon_in_a_one_line_value_is_read_as_text_with_a_warning() -> None:
    front = parse_front_matter(
        "---\nname: x\ndescription: Use when: the user asks\n---\n", "a/SKILL.md"
    )
    assert front.fields["description"] == "Use when: the user asks"
    (warning,) = front.problems
    assert (warning.severity, warning.source, warning.path, warning.line) == (
        Severity.WARNING,
        "a/SKILL.md",
        "description",
        3,
    )
    assert "Quote" in warning.message


def test_a_value_starting_like_an_alias_is_text_not_an_alias() -> None:
    front = parse_front_matter("---\ndescription: *really* useful\n---\n", "x.md")
    assert front.fields["description"] == "*really* useful"
    assert [p.line for p in front.problems] == [2]


def test_a_text_field_that_yaml_reads_as_a_list_keeps_the_text_written() -> None:
    skill = parse_skill("---\ndescription: d\nargument-hint: [name]\n---\nbody", source="c.md")
    assert skill.fields["argument-hint"] == "[name]"
    assert [(w.path, w.line) for w in skill.warnings] == [("argument-hint", 3)]


def test_a_value_opened_as_deliberate_yaml_syntax_is_not_repaired() -> None:
    with pytest.raises(FrontMatterSyntaxError) as info:
        parse_front_matter("---\ndescription: ok\nbad: [unclosed\nnext: 1\n---\n", "b.md")
    assert info.value.source == "b.md" and info.value.line in (3, 4, 5)
    assert info.value.body == ""


def test_anchors_and_aliases_are_refused_before_anything_is_built(tmp_path: Path) -> None:
    bomb = (
        "---\na: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
            f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
            for i in range(9)
        )
        + "---\n"
    )
    with pytest.raises(ConfigError) as info:
        parse_front_matter(bomb, "bomb.md")
    assert (info.value.source, info.value.line) == ("bomb.md", 2)
    with pytest.raises(ConfigError):
        parse_front_matter("---\nx: &keep 1\n---\n")


def test_the_546_byte_alias_bomb_under_a_hook_input_is_refused_by_hooks_run(tmp_path: Path) -> None:
    levels = "".join(
        f"          l{i}: &l{i} [*l{i - 1},*l{i - 1},*l{i - 1},*l{i - 1},"
        f"*l{i - 1},*l{i - 1},*l{i - 1},*l{i - 1},*l{i - 1}]\n"
        for i in range(1, 9)
    )
    text = (
        "---\nname: bomb\nhooks:\n  PreToolUse:\n    - hooks:\n        - type: mcp_tool\n"
        "          server: s\n          tool: t\n          input:\n"
        "            l0: &l0 [lol]\n"
        + levels.replace("          l", "            l")
        + "---\nbody\n"
    )
    skill = tmp_path / "bomb" / "SKILL.md"
    skill.parent.mkdir()
    skill.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings([skill])
    assert info.value.source == str(skill)
    found = load_skills([skill])
    assert found.skills == {} and found.problems[0].severity is Severity.ERROR


def test_front_matter_and_files_have_a_size_cap(tmp_path: Path) -> None:
    big = "---\n" + "".join(f"k{i}: {'v' * 60}\n" for i in range(MAX_FRONT_MATTER_BYTES // 60))
    with pytest.raises(ConfigError) as info:
        parse_front_matter(big + "---\n", "big.md")
    assert info.value.line == 1
    huge = tmp_path / "huge.md"
    huge.write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    with pytest.raises(ConfigError) as info:
        read_markdown(huge)
    assert info.value.source == str(huge)


def test_an_unparseable_plugin_agent_is_registered_with_the_placeholder(tmp_path: Path) -> None:
    root = tmp_path / "team"
    (root / "agents").mkdir(parents=True)
    (root / "agents" / "broken.md").write_text("---\ndescription: [never closed\n---\nPrompt.\n")
    (root / "agents" / "colon.md").write_text("---\ndescription: Reviews: code\n---\nP\n")
    plugin = load_plugin(root)
    assert plugin.agents["team:broken"]["description"] == "Agent from team plugin"
    assert plugin.agents["team:broken"]["prompt"] == "Prompt.\n"
    assert plugin.agents["team:colon"]["description"] == "Reviews: code"
    assert plugin.ok
    lines = {
        (Path(p.source or "").name, p.line)
        for p in plugin.problems
        if p.severity is Severity.WARNING
    }
    assert lines == {("broken.md", 2), ("colon.md", 2)}


def test_a_command_and_a_skill_with_one_name_is_a_warning_and_the_skill_wins(
    tmp_path: Path,
) -> None:
    claude = tmp_path / ".claude"
    (claude / "skills" / "deploy").mkdir(parents=True)
    (claude / "skills" / "deploy" / "SKILL.md").write_text("---\ndescription: skill\n---\n")
    (claude / "commands").mkdir()
    (claude / "commands" / "deploy.md").write_text("---\ndescription: command\n---\n")
    found = load_skills(project=[claude])
    assert found["deploy"].kind == "skill" and found.ok
    (warning,) = found.problems
    assert warning.severity is Severity.WARNING
    assert warning.source == str(claude / "commands" / "deploy.md")


def test_a_repeated_key_and_a_non_mapping_are_errors_with_lines() -> None:
    with pytest.raises(ConfigError) as info:
        parse_front_matter("---\na: 1\nb: 2\na: 3\n---\n", "r.md")
    assert (info.value.path, info.value.line) == ("a", 4)
    with pytest.raises(ConfigError) as info:
        parse_front_matter("---\n- a\n---\n", "l.md")
    assert info.value.line == 2


def test_the_json_hook_file_and_the_skill_front_matter_give_one_hook_set(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "SKILL.md").write_text("---\n" + HOOKS + "---\n")
    (tmp_path / "hooks.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
                    ]
                }
            }
        )
    )
    from_md = load_settings([tmp_path / "s" / "SKILL.md"]).groups("PreToolUse")
    from_json = load_settings([tmp_path / "hooks.json"]).groups("PreToolUse")
    assert [g.hooks for g in from_md] == [g.hooks for g in from_json]


# --- the validator's reading (claude plugin validate, Claude Code 2.1.332) ------------------


@pytest.mark.parametrize(
    ("block", "value"),
    [
        ("description: Use when: x", {"description": "Use when: x"}),  # repaired by quoting
        ("description: [oops", {"description": "[oops"}),
        ("description: *alias", {"description": "*alias"}),
        ("name: [a]", {"name": ["a"]}),  # valid YAML is never repaired
        ("name: yes\nwhen: 2024-01-01", {"name": "yes", "when": "2024-01-01"}),  # YAML 1.2
        ("name: a\nname: b", {"name": "b"}),  # the last of a repeated key wins
        ("description x", "description x"),
        ("", None),
    ],
)
def test_the_validator_reads_yaml_12_and_quotes_special_one_line_values(
    block: str, value: object
) -> None:
    front = read_as_validator(f"---\n{block}\n---\nbody\n")
    assert (front.found, front.value, front.error) == (True, value, None)


@pytest.mark.parametrize(
    "block",
    ['description: "open', "description: - dash", "description: ok\n- item", "a: 1\n\tb: 2"],
)
def test_what_quoting_cannot_repair_is_a_front_matter_error(block: str) -> None:
    front = read_as_validator(f"---\n{block}\n---\n")
    assert front.found and front.error is not None


def test_the_validator_sees_no_block_when_it_is_unclosed_or_closed_with_dots() -> None:
    assert not read_as_validator("---\ndescription: x\n").found
    assert not read_as_validator("---\ndescription: x\n...\n").found
    assert read_as_validator("\ufeff---\r\ndescription: x\r\n---\r\n").value == {"description": "x"}
