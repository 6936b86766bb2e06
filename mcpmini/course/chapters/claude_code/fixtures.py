"""What each chapter's Claude Code example is made of: result sizes, skill files, the
``.mcp.json`` with an unset variable, the example plugin and its broken variant, the calls
not sent, and the chapter's own stdio MCP server entry. Data only; nothing here runs."""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = [
    "BROKEN_MANIFEST",
    "HEAVY",
    "LARGE_SIZES",
    "NOT_RUN",
    "PLUGIN_FILES",
    "SKILL_FILES",
    "UNSET_MCP_JSON",
    "plugin_variants",
    "server_entry",
]

#: Result sizes (characters) chapter 06 sends through one MCP tool: small, just under and
#: over the 50,000-character save line, and over the 100,000-character refusal line.
LARGE_SIZES = (1_000, 49_000, 51_000, 120_000)

#: Chapter 09's example skills (``tidy-imports`` is the chapter's own; ``release-notes``
#: has a description past the 1,536-character cap).
SKILL_FILES: dict[str, str] = {
    "tidy-imports": (
        "---\n"
        "description: Sort and group the import lines of one Python file.\n"
        "when_to_use: When the user asks to clean up, sort or group imports.\n"
        "argument-hint: <file> [style]\n"
        "arguments: [file, style]\n"
        "allowed-tools: Read Edit\n"
        "---\n\nTidy the imports of $file using the $style style.\n"
    ),
    "release-notes": (
        "---\n"
        "description: " + "Collect the merged changes and write release notes. " * 40 + "\n"
        "---\n\nWrite the notes.\n"
    ),
}


def server_entry() -> dict[str, Any]:
    """The chapter's stdio MCP server (this module's ``--serve``), as Claude Code starts it."""
    return {
        "type": "stdio",
        "command": sys.executable,
        "args": ["-I", "-m", "mcpmini.course.chapters.claude_code", "--serve"],
    }


#: Calls of chapter 07's table not sent to Claude Code, and why (shown in its column).
#: Keyed by the call and its allow rules.
NOT_RUN: dict[tuple[str, tuple[str, ...]], str] = {
    ("watch ls", ("Bash(watch ls)",)): "not run: allowed, it never ends"
}


#: Examples that take many sessions: live only with ``MCPMINI_COURSE_LIVE=all`` (the
#: notebooks run in ``make test``); their recording is checked live by the tests.
HEAVY = frozenset({"permissions"})


#: The ``.mcp.json`` of CCA-F 2.4's check: an unset variable without a default in an
#: argument and in ``env`` (``{python}`` is this interpreter).
UNSET_MCP_JSON = {
    "mcpServers": {
        "env": {
            "command": "{python}",
            "args": [
                "-I",
                "-m",
                "mcpmini.course.chapters.claude_code",
                "--serve",
                "${COURSE_UNSET}",
            ],
            "env": {"COURSE_VALUE": "${COURSE_UNSET}", "COURSE_DEFAULTED": "${COURSE_UNSET:-d}"},
        }
    }
}


#: Chapter 10's example plugin ``db-helper`` (file → text), as the notebook builds it.
PLUGIN_FILES: dict[str, str] = {
    ".claude-plugin/plugin.json": json.dumps(
        {
            "name": "db-helper",
            "version": "1.0.0",
            "description": "Query helpers and a guard for the team database.",
            "author": {"name": "Data Team"},
        },
        indent=2,
    ),
    "skills/explain-query/SKILL.md": (
        "---\ndescription: Explain what a SQL query does, step by step.\n---\n"
        "Explain the query in $ARGUMENTS. Schema notes: ${CLAUDE_PLUGIN_ROOT}/schema.md\n"
    ),
    "agents/sql-reviewer.md": (
        "---\nname: sql-reviewer\ndescription: Reviews SQL for missing indexes.\n---\n"
        "You review SQL. Never run it.\n"
    ),
    "hooks/hooks.json": json.dumps(
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [
                            {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/guard.py"}
                        ],
                    }
                ]
            }
        },
        indent=2,
    ),
    "guard.py": (
        "import json, sys\n"
        "cmd = json.load(sys.stdin).get('tool_input', {}).get('command', '')\n"
        "sys.exit(2 if 'DROP TABLE' in cmd.upper() else 0)\n"
    ),
    ".mcp.json": json.dumps(
        {
            "mcpServers": {
                "db": {
                    "command": "db-mcp",
                    "args": ["--root", "${CLAUDE_PLUGIN_ROOT}"],
                    "env": {"DB_URL": "${DB_URL:-sqlite:///dev.db}"},
                }
            }
        },
        indent=2,
    ),
}

#: The broken manifest chapter 10 validates (a number for ``version``, a path leaving the
#: plugin, an unknown field).
BROKEN_MANIFEST = json.dumps(
    {"name": "db-helper", "version": 1, "skills": "./../elsewhere", "colour": "blue"}, indent=2
)


def plugin_variants() -> dict[str, dict[str, str]]:
    """Chapter 10's plugin and its broken variant: label → files."""
    broken = {**PLUGIN_FILES, ".claude-plugin/plugin.json": BROKEN_MANIFEST}
    return {"db-helper": dict(PLUGIN_FILES), "broken manifest": broken}
