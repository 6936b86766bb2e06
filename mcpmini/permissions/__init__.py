"""§4 of the article: permission rules, modes and their evaluation.

Rule strings and Bash command analysis (:mod:`.rules`), and the evaluation of a tool call
against rules and a mode (:mod:`.evaluate`).
"""

from __future__ import annotations

from .rules import (
    EDIT_TOOLS,
    is_read_only_command,
    parse_rule,
    READ_TOOLS,
    Rule,
    rule_matches,
    split_command,
    strip_wrappers,
)
from .evaluate import (
    gate,
    GateResult,
    GateStep,
    is_protected_path,
    PermissionMode,
    PermissionRules,
    RuleVerdict,
)

__all__ = [
    "EDIT_TOOLS",
    "gate",
    "GateResult",
    "GateStep",
    "is_protected_path",
    "is_read_only_command",
    "parse_rule",
    "PermissionMode",
    "PermissionRules",
    "READ_TOOLS",
    "Rule",
    "rule_matches",
    "RuleVerdict",
    "split_command",
    "strip_wrappers",
]
