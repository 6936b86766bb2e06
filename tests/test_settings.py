"""Configuration sources: precedence (Prop. 6.2), field merge (Ex. 6.3), `.mcp.json` loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpmini.config import (
    COMBINATION,
    MCP_PRECEDENCE,
    PRECEDENCE,
    Combination,
    Mechanism,
    concat_claude_md,
    expand_vars,
    load_mcp_json,
    looks_like_secret,
    merge_fields,
    precedence,
    resolve,
    resolve_mcp_servers,
)
from mcpmini.config import mcp_json as settings
from mcpmini.errors import ConfigError, Severity

CONFIG = Path(__file__).parent / "fixtures" / "config"
ENV = {"DB_TOKEN": "t0k", "TOOL_BIN": "/opt/bin"}


def test_all_exported_names_exist() -> None:
    for module in (settings, precedence):
        for name in module.__all__:
            assert hasattr(module, name), name


def test_each_mechanism_has_the_article_order_and_combination() -> None:
    assert MCP_PRECEDENCE == ("local", "project", "user", "plugin", "connector")
    assert PRECEDENCE[Mechanism.SKILLS] == ("enterprise", "personal", "project")
    assert PRECEDENCE[Mechanism.SUBAGENTS] == ("managed", "cli", "project", "user", "plugin")
    assert COMBINATION[Mechanism.HOOKS] is Combination.MERGE
    assert COMBINATION[Mechanism.CLAUDE_MD] is Combination.ADDITIVE
    assert COMBINATION[Mechanism.MCP_SERVERS] is Combination.OVERRIDE


def example_6_3() -> list:
    return [
        load_mcp_json(CONFIG / f"{s}.json", environ=ENV, source=s)
        for s in ("user", "project", "local")
    ]


def test_example_6_3_whole_entry_takes_only_the_local_definition() -> None:
    won = resolve_mcp_servers(example_6_3())
    db = won["db"]
    assert db.source == "local"
    assert db.value == {"type": "http", "url": "http://localhost:9000/mcp"}
    assert db.shadowed == ("project",)
    assert db.origin.endswith("local.json")
    assert won["search"].source == "project" and won["search"].shadowed == ("user",)
    assert won["notes"].source == "user"


def test_example_6_3_field_merge_sends_the_project_header_to_the_local_url() -> None:
    merged = merge_fields(example_6_3())["db"]
    assert merged.value["url"] == "http://localhost:9000/mcp"
    assert merged.value["headers"] == {"Authorization": "Bearer t0k"}
    assert merged.fields["url"].source == "local"
    assert merged.fields["headers"].source == "project"
    assert merged.sources == {"local", "project"}


def test_plugin_sources_rank_as_plugin_and_unknown_sources_are_refused() -> None:
    won = resolve_mcp_servers(
        [
            ("plugin:a", {"s": {"command": "a"}}),
            ("connector", {"s": {"command": "c"}}),
            ("plugin:b", {"s": {"command": "b"}}),
        ]
    )
    assert (won["s"].source, won["s"].shadowed) == ("plugin:a", ("plugin:b", "connector"))
    with pytest.raises(ConfigError):
        resolve_mcp_servers({"global": {"s": {}}})


definitions = st.dictionaries(
    st.sampled_from(MCP_PRECEDENCE),
    st.dictionaries(
        st.sampled_from(["db", "search", "notes"]),
        st.dictionaries(
            st.sampled_from(["url", "headers", "command"]), st.integers(0, 3), min_size=1
        ),
        max_size=3,
    ),
)


@given(definitions)
def test_proposition_6_2_the_winner_is_one_source_definition_unchanged(assign: dict) -> None:
    won = resolve_mcp_servers(assign, match_endpoints=False)
    names = {n for defs in assign.values() for n in defs}
    assert set(won) == names
    for name, r in won.items():
        definers = [s for s in MCP_PRECEDENCE if name in assign.get(s, {})]
        assert r.source == definers[0]  # the highest-precedence definer
        assert r.value == assign[r.source][name]  # equal to that one source's entry
        assert set(r.shadowed) == set(definers[1:])
    # the field merge takes each field from the highest source that sets it
    for name, m in merge_fields(assign).items():
        for key, fv in m.fields.items():
            setters = [s for s in MCP_PRECEDENCE if key in assign.get(s, {}).get(name, {})]
            assert (fv.source, fv.value) == (setters[0], assign[setters[0]][name][key])


def test_connectors_repeating_an_endpoint_are_dropped_but_scopes_never_are() -> None:
    won = resolve_mcp_servers(
        [
            ("connector", {"claude_ai_db": {"url": "https://db/mcp"}}),
            ("project", {"db": {"type": "http", "url": "https://db/mcp"}}),
            ("user", {"db2": {"type": "http", "url": "https://db/mcp"}}),
        ]
    )
    assert set(won) == {"db", "db2"}
    assert won["db"].shadowed == ("connector (claude_ai_db)",)


def test_generic_resolve_follows_any_given_order() -> None:
    won = resolve({"project": {"x": 1}, "enterprise": {"x": 2}}, PRECEDENCE[Mechanism.SKILLS])
    assert (won["x"].value, won["x"].source) == (2, "enterprise")


def test_expand_vars_uses_the_environment_then_the_default_and_reports_the_rest() -> None:
    assert expand_vars("${A}/${B:-b}/${C}", {"A": "a"}) == ("a/b/${C}", ["C"])
    assert expand_vars("${B:-}", {}) == ("", [])
    assert expand_vars("$A ${A", {"A": "x"}) == ("$A ${A", [])


def test_loading_a_mixed_file_keeps_good_entries_and_explains_each_bad_one() -> None:
    cfg = load_mcp_json(CONFIG / "mixed.json", environ={}, source="project")
    assert set(cfg.servers) == {"fine", "leaky", "ws-ok"}
    assert set(cfg.skipped) == {"no-type", "bad-args"}
    assert cfg.servers["fine"] == {"command": "${TOOL_BIN}/fine", "env": {"HOME_DIR": "/tmp"}}
    by_path = {p.path: p for p in cfg.problems}
    unset = by_path["mcpServers.fine.command"]
    assert unset.severity is Severity.WARNING and "TOOL_BIN" in unset.message
    assert by_path["mcpServers.leaky.headers.Authorization"].severity is Severity.WARNING
    assert by_path["mcpServers.no-type.url"].severity is Severity.ERROR
    assert by_path["mcpServers.bad-args.args"].severity is Severity.ERROR
    text = (CONFIG / "mixed.json").read_text().splitlines()
    for p in cfg.problems:
        assert p.source.endswith("mixed.json")
        server = p.path.split(".")[1]
        assert f'"{server}"' in text[p.line - 1]


def test_invalid_json_raises_with_the_file_and_line() -> None:
    with pytest.raises(ConfigError) as info:
        load_mcp_json(CONFIG / "invalid.json", environ={})
    assert info.value.source.endswith("invalid.json") and info.value.line == 3


@pytest.mark.parametrize("data", [[1, 2], {"mcpServers": []}, {"mcpServers": "x"}])
def test_a_file_that_is_not_the_right_shape_raises(data: object, tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps(data, indent=1))
    with pytest.raises(ConfigError) as info:
        load_mcp_json(path, environ={})
    assert info.value.source == str(path) and info.value.line is not None


@pytest.mark.parametrize(
    ("entry", "bad_field"),
    [
        ({"type": "grpc", "url": "x"}, "type"),
        ({"type": "http"}, "url"),
        ({"type": "sse", "url": "u", "headers": {"a": 1}}, "headers"),
        ({"command": "x", "env": {"A": 1}}, "env"),
        ({"command": ""}, "command"),
        ({"command": "x", "timeout": -1}, "timeout"),
        ({"command": "x", "alwaysLoad": "yes"}, "alwaysLoad"),
        ("not an object", None),
    ],
)
def test_wrong_field_types_skip_only_that_server(entry: object, bad_field: str | None) -> None:
    cfg = load_mcp_json({"mcpServers": {"bad": entry, "good": {"command": "ok"}}}, environ={})
    assert list(cfg.servers) == ["good"]
    (problem,) = cfg.problems
    assert problem.severity is Severity.ERROR
    assert problem.path == ("mcpServers.bad" + (f".{bad_field}" if bad_field else ""))


@pytest.mark.parametrize("kind", ["http", "streamable-http", "sse", "ws"])
def test_every_remote_transport_expands_url_and_headers(kind: str) -> None:
    cfg = load_mcp_json(
        {
            "mcpServers": {
                "r": {"type": kind, "url": "https://${H}/mcp", "headers": {"X-Key": "${K:-none}"}}
            }
        },
        environ={"H": "h.example"},
    )
    assert cfg.servers["r"]["url"] == "https://h.example/mcp"
    assert cfg.servers["r"]["headers"] == {"X-Key": "none"}
    assert cfg.problems == ()


def test_stdio_expands_command_args_and_env_but_not_other_fields() -> None:
    cfg = load_mcp_json(
        {
            "mcpServers": {
                "s": {
                    "command": "${B}/run",
                    "args": ["${A}", "-v"],
                    "env": {"P": "${A}"},
                    "note": "${A}",
                }
            }
        },
        environ={"A": "x", "B": "/bin"},
    )
    assert cfg.servers["s"] == {
        "command": "/bin/run",
        "args": ["x", "-v"],
        "env": {"P": "x"},
        "note": "${A}",
    }


@pytest.mark.parametrize(
    ("value", "key", "secret"),
    [
        ("sk-ant-api03-abcdefghijklmnop", None, True),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123", None, True),
        ("Bearer abcdef0123456789", "Authorization", True),
        ("Bearer ${TOKEN}", "Authorization", False),
        ("0123456789abcdef0123", "API_KEY", True),
        ("0123456789abcdef0123", "PATH_HINT", False),
        ("https://example.com/mcp", None, False),
        ("short", "TOKEN", False),
    ],
)
def test_literal_secrets_are_recognised_and_variables_are_not(
    value: str, key: str | None, secret: bool
) -> None:
    assert looks_like_secret(value, key) is secret


def test_claude_md_files_are_concatenated_with_their_sources() -> None:
    text = concat_claude_md([("user", "Use tabs."), ("project", "Run make test.\n")])
    assert text.index("Use tabs.") < text.index("Run make test.")
    assert "from user" in text and "from project" in text


def test_problems_print_as_one_line_with_file_line_and_path() -> None:
    cfg = load_mcp_json(CONFIG / "mixed.json", environ={})
    line = str(cfg.problems[0])
    assert "\n" not in line and "mixed.json:" in line and " at mcpServers." in line


def test_claude_json_holds_the_user_scope_and_each_project_local_scope(tmp_path: Path) -> None:
    from mcpmini.config import load_claude_json

    project = tmp_path / "proj"
    project.mkdir()
    path = tmp_path / ".claude.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {"u": {"command": "user-server"}},
                "projects": {
                    str(project.resolve()): {
                        "mcpServers": {"l": {"type": "http", "url": "${U:-http://x}"}}
                    },
                    "/elsewhere": {"mcpServers": {"other": {"command": "o"}}},
                },
            }
        )
    )
    user, local = load_claude_json(path, project_dir=project, environ={})
    assert (user.source, list(user.servers)) == ("user", ["u"])
    assert (local.source, local.servers) == ("local", {"l": {"type": "http", "url": "http://x"}})
    _, none = load_claude_json(path, project_dir=tmp_path, environ={})
    assert none.servers == {}
    path.write_text("{oops")
    with pytest.raises(ConfigError) as info:
        load_claude_json(path, project_dir=project, environ={})
    assert info.value.line == 1


def test_subagents_resolve_managed_cli_project_user_plugin() -> None:
    order = PRECEDENCE[Mechanism.SUBAGENTS]
    won = resolve(
        [
            ("plugin:team", {"reviewer": "p"}),
            ("user", {"reviewer": "u"}),
            ("project", {"reviewer": "proj", "tester": "t"}),
            ("cli", {"tester": "c"}),
        ],
        order,
    )
    assert (won["reviewer"].source, won["tester"].source) == ("project", "cli")
    assert won["reviewer"].shadowed == ("user", "plugin:team")
