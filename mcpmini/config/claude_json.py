"""``~/.claude.json``: the user and local MCP scopes (reference §5.3).

The user scope is the file's top-level ``mcpServers``; the local scope of a project is
``projects[<absolute project path>].mcpServers``. Both are checked and expanded by
:func:`~mcpmini.config.load_mcp_json`, so they report problems the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError, Problem
from .mcp_json import McpConfig, load_mcp_json, read_json

__all__ = ["load_claude_json"]


def load_claude_json(
    path: str | Path, *, project_dir: str | Path, environ: Mapping[str, str]
) -> tuple[McpConfig, McpConfig]:
    """The user and local MCP scopes stored in ``~/.claude.json``.

    The user scope is the top-level ``mcpServers``; the local scope is
    ``projects[<project_dir>].mcpServers``. Returns ``(user, local)`` as checked, expanded
    :class:`McpConfig` values. Raises :class:`ConfigError` for invalid JSON.
    """
    problems: list[Problem] = []
    data, _ = read_json(Path(path), problems)
    if problems:
        raise ConfigError(problems[0].message, problems[0].source, line=problems[0].line)
    if not isinstance(data, Mapping):
        raise ConfigError("expected a JSON object at the top level", str(path), line=1)
    projects: Mapping[str, Any] = (
        data["projects"] if isinstance(data.get("projects"), Mapping) else {}
    )
    project = projects.get(str(Path(project_dir).resolve()), projects.get(str(project_dir), {}))
    user = load_mcp_json(
        {"mcpServers": data.get("mcpServers", {})}, environ=environ, source="user", origin=str(path)
    )
    local = load_mcp_json(
        {"mcpServers": (project or {}).get("mcpServers", {})},
        environ=environ,
        source="local",
        origin=f"{path}#projects[{project_dir}]",
    )
    return user, local
