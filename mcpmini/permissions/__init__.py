"""§4 of the article: permission rules, modes and their evaluation.

:mod:`.tools` is the one catalogue of the built-in tools (which path rules each answers
to); :mod:`.bash` reads a Bash command the way Claude Code's matcher does (tree-sitter grammar,
wrappers stripped, substitutions seen, what cannot be verified fails closed); :mod:`.paths`
anchors ``Read``/``Edit`` path rules (real home, symlinks resolved); :mod:`.rules` parses and
matches rule strings; :mod:`.modes` holds one :class:`ModeSpec` row per mode
(:data:`MODES`: what each runs without asking); :mod:`.evaluate` holds
:class:`PermissionRules` and :func:`gate`. The table of attack and bypass cases chapter 07
shows lives in ``mcpmini.course.chapters.attacks``.
"""

from __future__ import annotations

from .bash import (
    EXEC_WRAPPERS,
    READ_ONLY_COMMANDS,
    READ_ONLY_GIT,
    BypassKind,
    BypassWarning,
    CommandAnalysis,
    Subcommand,
    analyze,
    bypass_forms,
    is_read_only_command,
    split_command,
    strip_wrappers,
)
from .evaluate import (
    GateResult,
    GateStage,
    GateStep,
    HookDecision,
    PermissionRules,
    PreToolUseResult,
    RuleVerdict,
    gate,
)
from .modes import (
    ACCEPT_EDITS_COMMANDS,
    DEFAULT_MODE_VALUES,
    MODES,
    Behavior,
    ModeSpec,
    PermissionMode,
    StartingMode,
    starting_mode,
)
from .paths import is_protected_path
from .rules import Rule, parse_rule, rule_matches
from .tools import EDIT_TOOLS, READ_TOOLS, TOOLS, ToolKind, ToolSpec

__all__ = [
    "ACCEPT_EDITS_COMMANDS",
    "DEFAULT_MODE_VALUES",
    "EDIT_TOOLS",
    "EXEC_WRAPPERS",
    "MODES",
    "READ_ONLY_COMMANDS",
    "READ_ONLY_GIT",
    "READ_TOOLS",
    "TOOLS",
    "Behavior",
    "BypassKind",
    "BypassWarning",
    "CommandAnalysis",
    "GateResult",
    "GateStage",
    "GateStep",
    "HookDecision",
    "ModeSpec",
    "PermissionMode",
    "PermissionRules",
    "PreToolUseResult",
    "Rule",
    "RuleVerdict",
    "StartingMode",
    "Subcommand",
    "ToolKind",
    "ToolSpec",
    "analyze",
    "bypass_forms",
    "gate",
    "is_protected_path",
    "is_read_only_command",
    "parse_rule",
    "rule_matches",
    "split_command",
    "starting_mode",
    "strip_wrappers",
]
