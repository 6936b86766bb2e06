"""Matcher semantics (reference §1.5) and the JavaScript-to-Python regex translation."""

from __future__ import annotations

import pytest

from mcpmini.errors import ConfigError
from mcpmini.hooks import MatcherRule, classify_matcher, js_regex, match


@pytest.mark.parametrize("matcher", [None, "", "*"])
def test_star_empty_and_missing_matchers_match_every_name(matcher):
    result = match(matcher, "AnyTool")
    assert result.matched and result.rule is MatcherRule.ALL


@pytest.mark.parametrize(
    ("matcher", "name", "rule", "matched"),
    [
        ("Bash", "Bash", MatcherRule.EXACT, True),
        ("Bash", "bash", MatcherRule.EXACT, False),  # case-sensitive
        ("Bash", "BashOutput", MatcherRule.EXACT, False),  # exact, not a prefix
        ("Edit|Write", "Write", MatcherRule.LIST, True),
        ("Edit, Write", "Write", MatcherRule.LIST, True),  # commas and spaces around items
        ("Edit | MultiEdit", "MultiEdit", MatcherRule.LIST, True),
        ("Edit|Write", "NotebookEdit", MatcherRule.LIST, False),
        ("my-tool", "my-tool", MatcherRule.EXACT, True),
        ("Edit.*", "NotebookEdit", MatcherRule.REGEX, True),  # unanchored
        ("^Edit.*", "NotebookEdit", MatcherRule.REGEX, False),
        ("^Edit$", "Edit", MatcherRule.REGEX, True),
        ("mcp__memory__.*", "mcp__memory__save", MatcherRule.REGEX, True),
        ("mcp__memory", "mcp__memory__save", MatcherRule.EXACT, False),  # needs .*
        ("^my-plugin:reviewer$", "my-plugin:reviewer", MatcherRule.REGEX, True),
        ("Write\\b", "Write", MatcherRule.REGEX, True),
    ],
)
def test_each_matcher_is_read_by_the_documented_rule(matcher, name, rule, matched):
    result = match(matcher, name)
    assert (result.rule, result.matched) == (rule, matched)


def test_the_narrow_set_sends_hyphens_and_commas_to_the_regex_path():
    assert classify_matcher(".env|a_b") is MatcherRule.REGEX
    assert classify_matcher("a-b", narrow=True) is MatcherRule.REGEX
    assert classify_matcher("a-b") is MatcherRule.EXACT
    assert classify_matcher("rate_limit|overloaded", narrow=True) is MatcherRule.LIST


def test_dollar_ends_the_string_as_in_javascript_not_before_a_newline():
    assert js_regex("Edit$").search("Edit\n") is None
    assert js_regex("Edit$").search("Edit") is not None


def test_digit_classes_are_ascii_only_as_in_javascript():
    assert js_regex(r"^\d+$").search("١٢٣") is None  # Arabic-Indic digits
    assert js_regex(r"^\d+$").search("123") is not None


def test_javascript_named_groups_and_backreferences_are_translated():
    pattern = js_regex(r"^(?<srv>\w+)__\k<srv>$")
    assert pattern.search("ab__ab") and not pattern.search("ab__cd")


def test_javascript_empty_and_negated_empty_classes_are_translated():
    assert js_regex("a[^]b").search("a\nb")
    assert js_regex("a[]b").search("ab") is None


@pytest.mark.parametrize(
    "pattern", ["(?i)bash", "(?P<x>a)", "(?>ab)", "a*+", r"\ABash", r"Bash\Z", "(unclosed"]
)
def test_python_only_or_invalid_patterns_are_refused(pattern):
    with pytest.raises(ConfigError):
        js_regex(pattern)


def test_a_refused_regex_never_matches_and_reports_why():
    result = match("(?i)bash", "bash")
    assert not result.matched and result.error


def test_overlong_regex_matchers_are_refused():
    with pytest.raises(ConfigError):
        js_regex("a|" * 600 + "b")


def test_escaped_metacharacters_stay_literal():
    assert js_regex(r"\(\?P").search("(?P") is not None


def test_explain_names_the_rule_and_the_verdict():
    assert "exact names" in match("Edit|Write", "Write").explain()
    assert "regex" in match("Edit.*", "NotebookEdit").explain()
