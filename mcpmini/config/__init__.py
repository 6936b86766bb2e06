"""§6 of the article: configuration from several sources.

`.mcp.json` and `~/.claude.json` (:mod:`.mcp_json`), precedence with provenance
(:mod:`.precedence`), plugins (:mod:`.plugins`) and marketplaces (:mod:`.marketplace`).
"""

from __future__ import annotations

from .precedence import (
    COMBINATION,
    Combination,
    concat_claude_md,
    endpoint,
    FieldValue,
    MCP_PRECEDENCE,
    Mechanism,
    merge_fields,
    MergedEntry,
    PRECEDENCE,
    resolve,
    resolve_mcp_servers,
    Resolved,
)
from .mcp_json import (
    expand_vars,
    line_of_key,
    load_claude_json,
    load_mcp_json,
    looks_like_secret,
    McpConfig,
    path_inside,
    read_json,
    schema_problems,
)
from .marketplace import (
    load_marketplace,
    Marketplace,
    MARKETPLACE_SCHEMA,
    RESERVED_NAMES,
    SOURCE_FORMS,
)
from .plugins import (
    load_plugin,
    MANIFEST_SCHEMA,
    Plugin,
    validate_plugin,
)

__all__ = [
    "COMBINATION",
    "Combination",
    "concat_claude_md",
    "endpoint",
    "expand_vars",
    "FieldValue",
    "line_of_key",
    "load_claude_json",
    "load_marketplace",
    "load_mcp_json",
    "load_plugin",
    "looks_like_secret",
    "MANIFEST_SCHEMA",
    "Marketplace",
    "MARKETPLACE_SCHEMA",
    "MCP_PRECEDENCE",
    "McpConfig",
    "Mechanism",
    "merge_fields",
    "MergedEntry",
    "path_inside",
    "Plugin",
    "PRECEDENCE",
    "read_json",
    "RESERVED_NAMES",
    "resolve",
    "resolve_mcp_servers",
    "Resolved",
    "schema_problems",
    "SOURCE_FORMS",
    "validate_plugin",
]
