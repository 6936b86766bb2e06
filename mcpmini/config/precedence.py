"""Precedence: which source wins when several define the same name (article §6).

Claude Code combines definitions from several places differently per mechanism: MCP
servers, skills and subagents are *overridden* by name (one source wins, Proposition
6.2), hooks are *merged*, CLAUDE.md files are *concatenated*. :data:`PRECEDENCE` holds
the order per mechanism; :func:`resolve` applies "the highest source takes the whole
entry" and keeps the source of every value; :func:`merge_fields` is the field-by-field
merge of Example 6.3, kept only to compare against.

A *source* here is a ``(source_name, {name: definition})`` pair, or any object with
``.source``, ``.servers`` and ``.origin`` (such as :class:`mcpmini.config.McpConfig`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..errors import ConfigError
from ..skills import SKILL_PRECEDENCE

__all__ = [
    "COMBINATION",
    "MCP_PRECEDENCE",
    "PRECEDENCE",
    "Combination",
    "FieldValue",
    "Mechanism",
    "MergedEntry",
    "Resolved",
    "concat_claude_md",
    "endpoint",
    "merge_fields",
    "resolve",
    "resolve_mcp_servers",
]


class Mechanism(StrEnum):
    """The extension mechanisms whose definitions can come from several sources."""

    MCP_SERVERS = "mcp_servers"
    SKILLS = "skills"
    SUBAGENTS = "subagents"
    HOOKS = "hooks"
    CLAUDE_MD = "claude_md"


class Combination(StrEnum):
    """How definitions from several sources combine (article §2, §6)."""

    OVERRIDE = "override"  # one definition per name wins, taken whole
    MERGE = "merge"  # every registered definition stays active
    ADDITIVE = "additive"  # all contents enter the context, concatenated


# Highest precedence first. Hooks and CLAUDE.md have an order of *presentation* only.
PRECEDENCE: dict[Mechanism, tuple[str, ...]] = {
    Mechanism.MCP_SERVERS: ("local", "project", "user", "plugin", "connector"),
    Mechanism.SKILLS: SKILL_PRECEDENCE,
    Mechanism.SUBAGENTS: ("managed", "cli", "project", "user", "plugin"),
    Mechanism.HOOKS: ("managed", "local", "project", "user", "plugin", "skill"),
    Mechanism.CLAUDE_MD: ("managed", "user", "project", "local"),
}
COMBINATION: dict[Mechanism, Combination] = {
    Mechanism.MCP_SERVERS: Combination.OVERRIDE,
    Mechanism.SKILLS: Combination.OVERRIDE,
    Mechanism.SUBAGENTS: Combination.OVERRIDE,
    Mechanism.HOOKS: Combination.MERGE,
    Mechanism.CLAUDE_MD: Combination.ADDITIVE,
}
MCP_PRECEDENCE = PRECEDENCE[Mechanism.MCP_SERVERS]

Definitions = Mapping[str, Any]


@dataclass(frozen=True)
class Resolved:
    """The winning definition of one name: its ``value``, its ``source`` and what it hid."""

    name: str
    value: Any
    source: str
    origin: str | None = None
    shadowed: tuple[str, ...] = ()


@dataclass(frozen=True)
class FieldValue:
    """One field of a field-merged entry and the source that supplied it."""

    value: Any
    source: str


@dataclass(frozen=True)
class MergedEntry:
    """A field-by-field merge (Example 6.3, for comparison only)."""

    name: str
    fields: dict[str, FieldValue]

    @property
    def value(self) -> dict[str, Any]:
        """The merged definition without provenance."""
        return {k: f.value for k, f in self.fields.items()}

    @property
    def sources(self) -> set[str]:
        """Every source that contributed at least one field."""
        return {f.source for f in self.fields.values()}


def _as_pairs(sources: Iterable[Any] | Mapping[str, Definitions]) -> list[tuple[Any, ...]]:
    if isinstance(sources, Mapping):
        return [(name, defs, None) for name, defs in sources.items()]
    pairs: list[tuple[Any, ...]] = []
    items: Iterable[Any] = sources
    for item in items:
        if isinstance(item, tuple):
            name, defs = item
            pairs.append((name, defs, None))
        elif hasattr(item, "servers"):
            pairs.append((item.source, item.servers, getattr(item, "origin", None)))
        else:
            raise TypeError(f"a source is a (name, definitions) pair or has .servers, got {item!r}")
    return pairs


def _rank(source: str, order: Sequence[str]) -> int:
    base = source.split(":", 1)[0]  # "plugin:name" ranks as "plugin"
    if base not in order:
        raise ConfigError(f"unknown source {source!r}; expected one of {', '.join(order)}")
    return order.index(base)


def resolve(
    sources: Iterable[Any] | Mapping[str, Definitions], order: Sequence[str]
) -> dict[str, Resolved]:
    """Apply Proposition 6.2: per name, take the whole definition of the highest source.

    ``sources`` is a sequence of ``(source_name, {name: definition})`` pairs (or
    :class:`McpConfig` values, or one mapping of them); ``order`` lists source names from
    highest to lowest precedence (``"plugin:x"`` ranks as ``"plugin"``; equal ranks keep
    the order given). Returns ``{name: Resolved}`` in first-seen order. Raises
    :class:`ConfigError` for a source name not in ``order``.
    """
    ranked = sorted(enumerate(_as_pairs(sources)), key=lambda it: (_rank(it[1][0], order), it[0]))
    out: dict[str, Resolved] = {}
    for _, (src, defs, origin) in ranked:
        for name, value in defs.items():
            if name in out:
                won = out[name]
                out[name] = Resolved(name, won.value, won.source, won.origin, (*won.shadowed, src))
            else:
                out[name] = Resolved(name, value, src, origin)
    return out


def endpoint(entry: Any) -> tuple[str, ...] | None:
    """What an MCP entry connects to: ``("url", url)`` or ``("command", cmd, *args)``."""
    if not isinstance(entry, Mapping):
        return None
    if "url" in entry:
        return ("url", str(entry["url"]))
    if "command" in entry:
        args = entry.get("args")
        return ("command", str(entry["command"]), *map(str, args if isinstance(args, list) else []))
    return None


def resolve_mcp_servers(
    sources: Iterable[Any] | Mapping[str, Definitions],
    *,
    match_endpoints: bool = True,
) -> dict[str, Resolved]:
    """Resolve MCP servers: local > project > user > plugin > connector, whole entries.

    Duplicates are matched by name (Proposition 6.2). Claude Code registers plugin
    servers as ``plugin:<plugin>:<server>`` (see :attr:`mcpmini.config.Plugin.mcp_source`),
    so they never share a name with a scope's server; instead, with ``match_endpoints``,
    a plugin or connector entry whose endpoint (url, or command and args) repeats a
    higher-precedence entry's endpoint is dropped and listed in that entry's ``shadowed``.
    Returns ``{server_name: Resolved}`` in first-seen order.
    """
    won = resolve(sources, MCP_PRECEDENCE)
    if not match_endpoints:
        return won
    kept: dict[str, Resolved] = {}
    seen: dict[tuple[str, ...], str] = {}
    for name, r in sorted(won.items(), key=lambda it: _rank(it[1].source, MCP_PRECEDENCE)):
        ep = endpoint(r.value)
        if r.source.split(":", 1)[0] in ("plugin", "connector") and ep in seen:
            first = kept[seen[ep]]
            kept[seen[ep]] = Resolved(
                first.name,
                first.value,
                first.source,
                first.origin,
                (*first.shadowed, f"{r.source} ({name})"),
            )
            continue
        kept[name] = r
        if ep is not None:
            seen.setdefault(ep, name)
    return {name: kept[name] for name in won if name in kept}


def merge_fields(
    sources: Iterable[Any] | Mapping[str, Definitions],
    order: Sequence[str] = MCP_PRECEDENCE,
) -> dict[str, MergedEntry]:
    """The hypothetical field-by-field merge of Example 6.3, for comparison.

    Each top-level field of an entry comes from the highest source that sets it, so the
    result may combine fields no single source wrote. Returns ``{name: MergedEntry}``.
    """
    ranked = sorted(enumerate(_as_pairs(sources)), key=lambda it: (_rank(it[1][0], order), it[0]))
    out: dict[str, dict[str, FieldValue]] = {}
    for _, (src, defs, _origin) in ranked:
        for name, entry in defs.items():
            merged = out.setdefault(name, {})
            for key, value in dict(entry).items():
                merged.setdefault(key, FieldValue(value, src))
    return {name: MergedEntry(name, fields) for name, fields in out.items()}


def concat_claude_md(files: Iterable[tuple[str, str]]) -> str:
    """Concatenate CLAUDE.md contents (additive: every level enters the context).

    ``files`` are ``(source, text)`` pairs in load order; each part is introduced by a
    comment naming its source, so the result still says where every line came from.
    """
    return "\n\n".join(f"<!-- from {src} -->\n{text.strip()}" for src, text in files)
