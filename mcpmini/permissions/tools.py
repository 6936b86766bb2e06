"""The built-in tools as the permission layer sees them: one :class:`ToolSpec` row per tool.

Rules of this module:

- :data:`TOOLS` is the one catalogue; every tool set the gate, the rules, the paths and the
  modes read (:data:`EDIT_TOOLS`, :data:`READ_TOOLS`, :data:`SEARCH_TOOLS`,
  :data:`NEVER_CONSULTED`, :data:`PRIMARY_FIELD`) is derived from it, so adding a tool is one
  row here. (Before: the edit and read sets lived in ``modes``, the search set in ``paths``,
  the path-rule and primary-field tables in ``rules``.)
- ``kind`` says which path rules a tool answers to: ``edit`` tools to ``Edit(path)`` (and to a
  ``Read`` deny), ``read`` tools to ``Read(path)``; ``search`` marks a read tool that reads a
  folder as a whole (a rule for something under the folder covers it); ``own_rules`` is
  ``False`` for a tool whose own ``Tool(path)`` rules are accepted but never consulted
  (``Write(x)``: its path rules are ``Edit``'s); ``primary`` is the input field a
  ``Tool(specifier)`` rule matches (``Agent(type)``, ``Skill(name)``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "EDIT_TOOLS",
    "NEVER_CONSULTED",
    "PRIMARY_FIELD",
    "READ_TOOLS",
    "SEARCH_TOOLS",
    "TOOLS",
    "ToolKind",
    "ToolSpec",
]


class ToolKind(enum.StrEnum):
    """Which path rules a built-in tool answers to."""

    EDIT = "edit"  # Edit(path); a Read deny covers it too
    READ = "read"  # Read(path)
    OTHER = "other"  # no path rules


@dataclass(frozen=True)
class ToolSpec:
    """One built-in tool (module doc)."""

    name: str
    kind: ToolKind = ToolKind.OTHER
    search: bool = False
    own_rules: bool = True
    primary: str | None = None


TOOLS: Mapping[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec("Edit", ToolKind.EDIT),
        ToolSpec("Write", ToolKind.EDIT, own_rules=False),
        ToolSpec("MultiEdit", ToolKind.EDIT),
        ToolSpec("NotebookEdit", ToolKind.EDIT, own_rules=False),
        ToolSpec("Read", ToolKind.READ),
        ToolSpec("NotebookRead", ToolKind.READ),
        ToolSpec("Grep", ToolKind.READ, search=True),
        ToolSpec("Glob", ToolKind.READ, search=True, own_rules=False),
        ToolSpec("LS", ToolKind.READ, search=True),
        ToolSpec("Bash"),
        ToolSpec("WebFetch"),
        ToolSpec("WebSearch", primary="query"),
        ToolSpec("Agent", primary="subagent_type"),
        ToolSpec("Task", primary="subagent_type"),
        ToolSpec("Skill", primary="skill"),
    )
}

EDIT_TOOLS = frozenset(n for n, s in TOOLS.items() if s.kind is ToolKind.EDIT)
READ_TOOLS = frozenset(n for n, s in TOOLS.items() if s.kind is ToolKind.READ)
SEARCH_TOOLS = frozenset(n for n, s in TOOLS.items() if s.search)
NEVER_CONSULTED = frozenset(n for n, s in TOOLS.items() if not s.own_rules)
PRIMARY_FIELD: Mapping[str, str] = {n: s.primary for n, s in TOOLS.items() if s.primary}
