"""Precedence with provenance: whole entries win by source (Prop. 6.2), merges only to compare."""

from __future__ import annotations

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
    endpoint,
    load_mcp_json,
    merge_fields,
    resolve,
    resolve_mcp_servers,
)
from mcpmini.errors import ConfigError

DB_USER = {"command": "db", "args": ["--user"], "env": {"TOKEN": "u"}}
DB_PROJECT = {"command": "db", "args": ["--project"]}


def test_every_mechanism_has_an_order_and_a_way_of_combining():
    assert set(PRECEDENCE) == set(COMBINATION) == set(Mechanism)
    assert MCP_PRECEDENCE == ("local", "project", "user", "plugin", "connector")
    assert COMBINATION[Mechanism.HOOKS] is Combination.MERGE
    assert COMBINATION[Mechanism.CLAUDE_MD] is Combination.ADDITIVE
    assert COMBINATION[Mechanism.MCP_SERVERS] is Combination.OVERRIDE


def test_the_highest_source_takes_the_whole_entry_and_records_what_it_hid():
    won = resolve([("user", {"db": DB_USER}), ("project", {"db": DB_PROJECT})], MCP_PRECEDENCE)
    assert won["db"].value == DB_PROJECT  # no "env" borrowed from the user's entry
    assert (won["db"].source, won["db"].shadowed) == ("project", ("user",))


def test_the_order_of_the_sources_given_does_not_change_the_winner():
    pairs = [
        ("user", {"db": DB_USER}),
        ("local", {"db": {"command": "l"}}),
        ("project", {"db": DB_PROJECT}),
    ]
    for rotated in (pairs, pairs[1:] + pairs[:1], pairs[::-1]):
        won = resolve(rotated, MCP_PRECEDENCE)["db"]
        assert (won.source, won.shadowed) == ("local", ("project", "user"))


def test_equal_ranks_keep_the_order_given_and_plugin_names_rank_as_plugin():
    won = resolve(
        [("plugin:b", {"x": 2}), ("plugin:a", {"x": 1}), ("user", {"y": 0})], MCP_PRECEDENCE
    )
    assert (won["x"].value, won["x"].source, won["x"].shadowed) == (2, "plugin:b", ("plugin:a",))
    assert list(won) == ["y", "x"]


def test_a_mapping_of_sources_is_accepted_like_pairs():
    as_map = resolve({"user": {"db": DB_USER}, "project": {"db": DB_PROJECT}}, MCP_PRECEDENCE)
    as_pairs = resolve([("user", {"db": DB_USER}), ("project", {"db": DB_PROJECT})], MCP_PRECEDENCE)
    assert as_map == as_pairs


def test_an_unknown_source_is_a_config_error_and_a_bad_source_a_type_error():
    with pytest.raises(ConfigError):
        resolve([("enterprise", {"db": {}})], MCP_PRECEDENCE)
    with pytest.raises(TypeError):
        resolve([42], MCP_PRECEDENCE)


def test_loaded_configs_carry_their_file_into_the_result(tmp_path):
    path = tmp_path / ".mcp.json"
    path.write_text('{"mcpServers": {"db": {"command": "db"}}}')
    config = load_mcp_json(path, environ={}, source="project")
    won = resolve_mcp_servers([config])
    assert (won["db"].source, won["db"].origin) == ("project", config.origin)
    assert won["db"].origin is not None and won["db"].origin.endswith(".mcp.json")


def test_a_plugin_server_with_the_same_endpoint_as_a_scope_server_is_dropped():
    sources = [
        ("plugin:tools", {"plugin:tools:db": dict(DB_PROJECT)}),
        ("project", {"db": DB_PROJECT}),
        ("connector", {"web": {"url": "https://x"}}),
        ("user", {"w": {"url": "https://x"}}),
    ]
    won = resolve_mcp_servers(sources)
    assert list(won) == ["db", "w"]
    assert won["db"].shadowed == ("plugin:tools (plugin:tools:db)",)
    assert won["w"].shadowed == ("connector (web)",)
    assert set(resolve_mcp_servers(sources, match_endpoints=False)) == {
        "plugin:tools:db",
        "db",
        "web",
        "w",
    }


def test_scope_servers_with_the_same_endpoint_are_both_kept():
    won = resolve_mcp_servers([("project", {"a": DB_PROJECT}), ("user", {"b": DB_PROJECT})])
    assert list(won) == ["a", "b"] and won["a"].shadowed == ()


@pytest.mark.parametrize(
    "entry, expected",
    [
        ({"url": "https://h/mcp"}, ("url", "https://h/mcp")),
        ({"command": "npx", "args": ["-y", 3]}, ("command", "npx", "-y", "3")),
        ({"command": "npx", "args": "oops"}, ("command", "npx")),
        ({"type": "stdio"}, None),
        ("not an entry", None),
    ],
)
def test_endpoint_reads_url_or_command_and_args(entry, expected):
    assert endpoint(entry) == expected


def test_the_field_merge_of_example_6_3_mixes_sources_the_real_rule_never_mixes():
    sources = [("user", {"db": DB_USER}), ("project", {"db": DB_PROJECT})]
    merged = merge_fields(sources)["db"]
    assert merged.value == {"command": "db", "args": ["--project"], "env": {"TOKEN": "u"}}
    assert merged.sources == {"project", "user"}
    assert merged.fields["env"].source == "user"
    assert resolve(sources, MCP_PRECEDENCE)["db"].value != merged.value


def test_claude_md_files_are_concatenated_in_order_with_their_source():
    text = concat_claude_md([("user", "Be brief.\n"), ("project", "  Use uv.")])
    assert text == "<!-- from user -->\nBe brief.\n\n<!-- from project -->\nUse uv."
    assert concat_claude_md([]) == ""


@given(
    st.lists(
        st.tuples(st.sampled_from(MCP_PRECEDENCE), st.sampled_from("abc"), st.integers()),
        max_size=12,
    )
)
def test_the_winner_is_always_a_definition_from_the_best_source_that_has_the_name(entries):
    sources = [(src, {name: value}) for src, name, value in entries]
    won = resolve(sources, MCP_PRECEDENCE)
    assert set(won) == {name for _, name, _ in entries}
    for name, r in won.items():
        candidates = [
            (MCP_PRECEDENCE.index(s), i) for i, (s, n, _) in enumerate(entries) if n == name
        ]
        best = min(candidates)
        assert (r.source, r.value) == (entries[best[1]][0], entries[best[1]][2])
        assert len(r.shadowed) == len(candidates) - 1
