"""§6 of the article: configuration from several sources.

`.mcp.json` (:mod:`.mcp_json`), `~/.claude.json` (:mod:`.claude_json`), precedence with provenance
(:mod:`.precedence`), plugins (:mod:`.plugins`), marketplaces (:mod:`.marketplace`), and the
tool inventory of a resolved configuration (:mod:`.inventory`, ``mcpmini tools``), and project
trust (:mod:`.trust`: a project's servers wait for an approval, as in Claude Code).
"""

from __future__ import annotations

from .claude_json import load_claude_json
from .inventory import (
    DESCRIPTION_CAP,
    Inventory,
    ServerReport,
    ServerStatus,
    ToolReport,
    load_held_sources,
    load_sources,
    take_inventory,
)
from .marketplace import (
    MARKETPLACE_SCHEMA,
    RESERVED_NAMES,
    SOURCE_FORMS,
    Marketplace,
    load_marketplace,
)
from .mcp_json import (
    McpConfig,
    expand_entry,
    expand_vars,
    line_of_key,
    load_mcp_json,
    looks_like_secret,
    path_inside,
    read_json,
    schema_problems,
)
from .plugins import (
    MANIFEST_SCHEMA,
    Plugin,
    load_plugin,
    validate_plugin,
)
from .precedence import (
    COMBINATION,
    MCP_PRECEDENCE,
    PRECEDENCE,
    Combination,
    FieldValue,
    Mechanism,
    MergedEntry,
    Resolved,
    concat_claude_md,
    endpoint,
    merge_fields,
    resolve,
    resolve_mcp_servers,
)
from .trust import (
    Approvals,
    ProjectRecord,
    SettingsScope,
    TrustRecordError,
    TrustState,
    TrustVerdict,
    read_record,
    record_approval,
    release,
    resolve_trusted,
    verdicts,
)

__all__ = [
    "COMBINATION",
    "DESCRIPTION_CAP",
    "MANIFEST_SCHEMA",
    "MARKETPLACE_SCHEMA",
    "MCP_PRECEDENCE",
    "PRECEDENCE",
    "RESERVED_NAMES",
    "SOURCE_FORMS",
    "Approvals",
    "Combination",
    "FieldValue",
    "Inventory",
    "Marketplace",
    "McpConfig",
    "Mechanism",
    "MergedEntry",
    "Plugin",
    "ProjectRecord",
    "Resolved",
    "ServerReport",
    "ServerStatus",
    "SettingsScope",
    "ToolReport",
    "TrustRecordError",
    "TrustState",
    "TrustVerdict",
    "concat_claude_md",
    "endpoint",
    "expand_entry",
    "expand_vars",
    "line_of_key",
    "load_claude_json",
    "load_held_sources",
    "load_marketplace",
    "load_mcp_json",
    "load_plugin",
    "load_sources",
    "looks_like_secret",
    "merge_fields",
    "path_inside",
    "read_json",
    "read_record",
    "record_approval",
    "release",
    "resolve",
    "resolve_mcp_servers",
    "resolve_trusted",
    "schema_problems",
    "take_inventory",
    "validate_plugin",
    "verdicts",
]
