"""§4 of the article: permission rules, modes and their evaluation.

Rule strings and Bash command analysis (:mod:`.rules`), and the evaluation of a tool call
against rules and a mode (:mod:`.evaluate`).
"""

from __future__ import annotations

from .evaluate import (
    GateResult,
    GateStep,
    PermissionMode,
    PermissionRules,
    RuleVerdict,
    gate,
    is_protected_path,
)
from .rules import (
    EDIT_TOOLS,
    READ_TOOLS,
    Rule,
    is_read_only_command,
    parse_rule,
    rule_matches,
    split_command,
    strip_wrappers,
)

__all__ = [
    "EDIT_TOOLS",
    "READ_TOOLS",
    "GateResult",
    "GateStep",
    "PermissionMode",
    "PermissionRules",
    "Rule",
    "RuleVerdict",
    "gate",
    "is_protected_path",
    "is_read_only_command",
    "parse_rule",
    "rule_matches",
    "split_command",
    "strip_wrappers",
]
