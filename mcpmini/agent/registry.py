"""A host's registry of MCP servers: namespaced tool names, identity injection, truncation.

A product that wires several MCP servers into one model keeps a :class:`Registry`: it
connects each server once, caches its ``tools/list``, and exposes every tool under a
name that carries the server (``server__tool`` in a home-made host, ``mcp__server__tool``
in Claude Code, see :func:`exposed_name`). The registry keeps a table from exposed name
to ``(server, tool)``, so it never has to *split* a name; :func:`split_name` shows what
goes wrong when a host does (a ``__`` inside a server or tool name).
:func:`name_problems` lists collisions, ambiguous splits, names over
:data:`MAX_TOOL_NAME` characters and characters a model API refuses.

At call time the host merges the signed-in user's identity into the model's arguments
(:func:`inject`); which side wins a key both set is the difference between a safe host and
a confused deputy (:class:`Merge`). A result longer than a token budget is cut by
:func:`truncate_result`, the full text kept on disk with a pointer left for the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..errors import ConfigError, McpminiError
from ..mcp import Client, OutcomeKind, Server, StdioTransport, ToolOutcome, memory_pair
from .cost import cut_to_tokens, estimate_tokens

__all__ = [
    "MAX_TOOL_NAME",
    "MCP_MAX_TOKENS",
    "PREVIEW_BYTES",
    "RESULT_CHARS_PER_TOKEN",
    "RESULT_OVERHEAD_CHARS",
    "SAVE_OVER_CHARS",
    "ExposedTool",
    "Merge",
    "NameProblem",
    "NameProblemKind",
    "NameStyle",
    "Registry",
    "ResultFate",
    "Truncated",
    "exposed_name",
    "hide_fields",
    "inject",
    "name_problems",
    "result_fate",
    "split_name",
    "truncate_result",
]

#: The longest tool name the model APIs accept (``^[a-zA-Z0-9_-]{1,64}$``).
MAX_TOOL_NAME = 64
_VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_OUTSIDE = re.compile(r"[^A-Za-z0-9_-]")


class NameStyle(StrEnum):
    """How a host turns ``(server, tool)`` into the name the model sees."""

    PLAIN = "plain"  # the bare tool name, no namespace (what collides)
    DOUBLE_UNDERSCORE = "double_underscore"  # server__tool, as many home-made hosts do
    CLAUDE_CODE = "claude_code"  # mcp__server__tool, [^A-Za-z0-9_-] replaced by _


def exposed_name(
    server: str,
    tool: str,
    style: NameStyle = NameStyle.DOUBLE_UNDERSCORE,
    plugin: str | None = None,
) -> str:
    """The name a model sees for ``tool`` of ``server`` under ``style``.

    For :attr:`NameStyle.CLAUDE_CODE`, a server bundled by ``plugin`` becomes
    ``mcp__plugin_<plugin>_<server>__<tool>``, and characters outside
    ``[A-Za-z0-9_-]`` are replaced by ``_``. Nothing is shortened: a name over
    :data:`MAX_TOOL_NAME` is reported by :func:`name_problems`, not hidden.
    """
    if style is NameStyle.PLAIN:
        return tool
    if style is NameStyle.DOUBLE_UNDERSCORE:
        return f"{server}__{tool}"
    prefix = f"plugin_{plugin}_{server}" if plugin else server
    return _OUTSIDE.sub("_", f"mcp__{prefix}__{tool}")


def split_name(name: str, style: NameStyle = NameStyle.DOUBLE_UNDERSCORE) -> tuple[str, str]:
    """Split an exposed name at the first ``__`` (after ``mcp__`` for Claude Code's style),
    as a host without a lookup table does. Returns ``(server, tool)``; wrong whenever the
    server name itself contains ``__``. Raises ``ValueError`` when there is no ``__``."""
    rest = name[5:] if style is NameStyle.CLAUDE_CODE and name.startswith("mcp__") else name
    server, sep, tool = rest.partition("__")
    if not sep:
        raise ValueError(f"{name!r} has no '__' separator")
    return server, tool


class NameProblemKind(StrEnum):
    """What can be wrong with an exposed tool name."""

    COLLISION = "collision"  # two (server, tool) pairs give the same name
    AMBIGUOUS_SPLIT = "ambiguous_split"  # splitting at the first __ gives another pair
    TOO_LONG = "too_long"  # more than MAX_TOOL_NAME characters
    INVALID_CHARACTERS = "invalid_characters"  # outside [A-Za-z0-9_-]


@dataclass(frozen=True)
class NameProblem:
    """One problem with one exposed ``name``; ``owners`` are the ``(server, tool)`` pairs."""

    kind: NameProblemKind
    name: str
    owners: tuple[tuple[str, str], ...]

    def __str__(self) -> str:
        who = ", ".join(f"{s}/{t}" for s, t in self.owners)
        return f"{self.kind.value}: {self.name} ({who})"


def name_problems(
    pairs: Iterable[tuple[str, str]],
    style: NameStyle = NameStyle.DOUBLE_UNDERSCORE,
    plugins: Mapping[str, str] | None = None,
) -> list[NameProblem]:
    """Every problem of the names ``style`` gives to the ``(server, tool)`` pairs.

    ``plugins`` maps a server to the plugin bundling it (Claude Code's style only).
    Returns the problems in the order the names first appear: one COLLISION per shared
    name, then per name AMBIGUOUS_SPLIT, TOO_LONG and INVALID_CHARACTERS as they apply.
    """
    plugins = plugins or {}
    owners: dict[str, list[tuple[str, str]]] = {}
    for server, tool in pairs:
        name = exposed_name(server, tool, style, plugins.get(server))
        owners.setdefault(name, []).append((server, tool))
    out: list[NameProblem] = []
    for name, who in owners.items():
        pair = tuple(who)
        if len(who) > 1:
            out.append(NameProblem(NameProblemKind.COLLISION, name, pair))
        if style is not NameStyle.PLAIN:
            server, tool = who[0]
            plugin = plugins.get(server)
            prefix = f"plugin_{plugin}_{server}" if plugin else server
            expected = (prefix, tool)
            if style is NameStyle.CLAUDE_CODE:
                expected = (_OUTSIDE.sub("_", prefix), _OUTSIDE.sub("_", tool))
            if split_name(name, style) != expected:
                out.append(NameProblem(NameProblemKind.AMBIGUOUS_SPLIT, name, pair))
        if len(name) > MAX_TOOL_NAME:
            out.append(NameProblem(NameProblemKind.TOO_LONG, name, pair))
        elif not _VALID.match(name):
            out.append(NameProblem(NameProblemKind.INVALID_CHARACTERS, name, pair))
    return out


# --- identity -----------------------------------------------------------------------------


class Merge(StrEnum):
    """Who wins when the model's arguments and the host's identity set the same key."""

    MODEL_WINS = "model_wins"  # {**identity, **arguments}: a prompt can name another user
    HOST_WINS = "host_wins"  # {**arguments, **identity}: the signed-in user always wins
    REJECT = "reject"  # a model-supplied identity key that differs refuses the call


def inject(
    arguments: Mapping[str, Any], identity: Mapping[str, Any], merge: Merge = Merge.HOST_WINS
) -> dict[str, Any]:
    """The arguments the server receives: the model's ``arguments`` merged with ``identity``.

    Raises :class:`PermissionError` under :attr:`Merge.REJECT` when the model set an
    identity key to another value than the host's.
    """
    if merge is Merge.MODEL_WINS:
        return {**identity, **arguments}
    if merge is Merge.REJECT:
        forged = sorted(k for k in identity if k in arguments and arguments[k] != identity[k])
        if forged:
            raise PermissionError(f"the model set identity field(s) {', '.join(forged)}")
    return {**arguments, **identity}


def hide_fields(schema: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """``schema`` without the properties ``keys`` (and without them in ``required``), so the
    model is never asked for what the host fills in. Returns a new schema."""
    drop = set(keys)
    out = dict(schema)
    props = out.get("properties")
    if isinstance(props, Mapping):
        out["properties"] = {k: v for k, v in props.items() if k not in drop}
    if isinstance(out.get("required"), list):
        out["required"] = [k for k in out["required"] if k not in drop]
    return out


# --- big results ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Truncated:
    """A tool result after :func:`truncate_result`.

    ``text`` is what the model gets; ``full_tokens`` and ``kept_tokens`` are estimates;
    ``path`` is where the full text was written (``None`` when nothing was cut).
    """

    text: str
    full_tokens: int
    kept_tokens: int
    path: Path | None

    @property
    def cut(self) -> bool:
        """True when the result was longer than the budget."""
        return self.path is not None


#: What Claude Code 2.1.332 does with one text result of an MCP tool (measured by bisection,
#: ``tests/oracle/test_mcp_oracle.py``). The docs: a warning above 10,000 tokens, a maximum of
#: 25,000 (``MAX_MCP_OUTPUT_TOKENS``). Observed: more than 50,000 characters (any script:
#: Japanese counts per character) are saved under the session's ``tool-results/`` and the model
#: gets a ``<persisted-output>`` notice with the path and a 2 KB preview; when the text
#: JSON-escaped plus 101 characters passes 4 characters a token of ``MAX_MCP_OUTPUT_TOKENS``
#: (one line of 99,900 characters with the default 25,000; 99,899 is still saved) the model
#: gets an error naming the saved file instead, whatever the 50,000 rule says.
SAVE_OVER_CHARS = 50_000
MCP_MAX_TOKENS = 25_000
RESULT_OVERHEAD_CHARS = 101
RESULT_CHARS_PER_TOKEN = 4
PREVIEW_BYTES = 2048


class ResultFate(StrEnum):
    """What the model gets for a tool result in Claude Code 2.1.332."""

    WHOLE = "whole"  # the text itself
    SAVED = "saved"  # a <persisted-output> notice: the saved path and a 2 KB preview
    REFUSED = "refused"  # an error text naming the saved file: over MAX_MCP_OUTPUT_TOKENS


def result_fate(text: str, max_tokens: int = MCP_MAX_TOKENS) -> ResultFate:
    """What Claude Code 2.1.332 shows the model for an MCP tool's one text result ``text``
    (``max_tokens`` is ``MAX_MCP_OUTPUT_TOKENS``). Never raises."""
    escaped = len(json.dumps(text, ensure_ascii=False)) - 2
    if escaped + RESULT_OVERHEAD_CHARS > max_tokens * RESULT_CHARS_PER_TOKEN:
        return ResultFate.REFUSED
    return ResultFate.SAVED if len(text) > SAVE_OVER_CHARS else ResultFate.WHOLE


def truncate_result(text: str, max_tokens: int, store: str | Path, key: str) -> Truncated:
    """Keep at most ``max_tokens`` (estimated) of ``text`` for the model.

    A longer text is written whole to ``store/<key>.txt`` and the kept prefix ends with a
    pointer line naming that file and the total size, so the model (or a follow-up tool)
    can read on. The pointer counts towards the budget. Raises ``ValueError`` for a
    budget too small to hold the pointer, or a ``key`` that is not a plain file name.

    This is the course's own host (a kept prefix of ``max_tokens``). Claude Code 2.1.332 does
    not keep a prefix sized to a budget: see :func:`result_fate` — whole up to 50,000
    characters, then a saved file with a fixed 2 KB preview, and an error past
    ``MAX_MCP_OUTPUT_TOKENS`` (25,000 by default).
    """
    full = estimate_tokens(text)
    if full <= max_tokens:
        return Truncated(text, full, full, None)
    if not key or "/" in key or key.startswith("."):
        raise ValueError(f"key must be a plain file name, not {key!r}")
    path = Path(store) / f"{key}.txt"
    note = (
        f"\n[truncated: about {full} tokens in total; the full result is saved as "
        f"{path}. Ask for a later part instead of repeating the call.]"
    )
    room = max_tokens - estimate_tokens(note)
    if room <= 0:
        raise ValueError(f"max_tokens={max_tokens} cannot even hold the pointer")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    kept = cut_to_tokens(text, room) + note
    return Truncated(kept, full, estimate_tokens(kept), path)


# --- the registry -------------------------------------------------------------------------


@dataclass(frozen=True)
class ExposedTool:
    """One tool as the model sees it, and where it really lives."""

    name: str
    server: str
    tool: str
    description: str
    input_schema: Mapping[str, Any]

    def definition(self) -> dict[str, Any]:
        """The definition in the Messages API's shape (name, description, input_schema)."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(self.input_schema),
        }


@dataclass
class Registry:
    """Servers by name, their cached tool lists, and the exposed-name table.

    ``identity_keys`` are the argument names the host fills from the signed-in user:
    they are hidden from the model's schemas and merged by ``merge`` at call time.
    Close it (or use ``with``) to end every server process it started.
    """

    style: NameStyle = NameStyle.DOUBLE_UNDERSCORE
    identity_keys: Sequence[str] = ("userId",)
    merge: Merge = Merge.HOST_WINS
    timeout: float = 10.0
    clients: dict[str, Client] = field(default_factory=dict)
    cache: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _table: dict[str, tuple[str, str]] = field(default_factory=dict)

    def add(self, name: str, target: Server | Client | Sequence[str]) -> list[str]:
        """Connect ``target`` (an in-process :class:`Server`, a :class:`Client`, or the
        argv of a stdio server) as ``name``, list and cache its tools.

        Returns the exposed names added. Raises :class:`ConfigError` for a name already
        registered, and what connecting raises (:class:`McpminiError`, ``TimeoutError``);
        a server that fails is closed and not registered.
        """
        if name in self.clients:
            raise ConfigError(f"server {name!r} is already registered", path=name)
        if isinstance(target, Server):
            client = Client(memory_pair(target), timeout=self.timeout)
        elif isinstance(target, Client):
            client = target
        else:
            client = Client(StdioTransport(list(target)), timeout=self.timeout)
        try:  # one deadline for connecting and listing (the discovery wait: client's rule)
            deadline = client.deadline(self.timeout)
            if client.connection is None:
                client.connect(deadline)
            tools = client.list_tools(deadline=deadline)
        except BaseException:
            client.close()
            raise
        self.clients[name] = client
        self.cache[name] = tools
        added = []
        for t in tools:
            exposed = exposed_name(name, t["name"], self.style)
            self._table.setdefault(exposed, (name, t["name"]))
            added.append(exposed)
        return added

    def tools(self) -> list[ExposedTool]:
        """Every cached tool under its exposed name (identity fields hidden)."""
        out = []
        for server, tools in self.cache.items():
            for t in tools:
                schema = hide_fields(t.get("inputSchema") or {"type": "object"}, self.identity_keys)
                out.append(
                    ExposedTool(
                        exposed_name(server, t["name"], self.style),
                        server,
                        t["name"],
                        t.get("description") or "",
                        schema,
                    )
                )
        return out

    def definitions(self, visible: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The tool layer for the model: every tool, or only the names in ``visible``."""
        keep = None if visible is None else set(visible)
        return [t.definition() for t in self.tools() if keep is None or t.name in keep]

    def problems(self) -> list[NameProblem]:
        """:func:`name_problems` of every registered tool under this registry's style."""
        return name_problems((s, t["name"]) for s, tools in self.cache.items() for t in tools)

    def route(self, exposed: str) -> tuple[str, str]:
        """``(server, tool)`` of an exposed name, by table lookup. Raises ``KeyError``."""
        if exposed not in self._table:
            raise KeyError(f"unknown tool {exposed!r}")
        return self._table[exposed]

    def call(
        self, exposed: str, arguments: Mapping[str, Any], identity: Mapping[str, Any] | None = None
    ) -> ToolOutcome:
        """Call the tool behind ``exposed`` with ``arguments`` merged with ``identity``.

        Never raises for the server or the model: an unknown name or a refused identity
        is a TOOL_ERROR outcome written by the host.
        """
        try:
            server, tool = self.route(exposed)
            args = inject(arguments, identity or {}, self.merge)
        except (KeyError, PermissionError) as exc:
            text = exc.args[0] if exc.args else str(exc)
            return ToolOutcome(
                OutcomeKind.TOOL_ERROR,
                exposed,
                ({"type": "text", "text": f"host refused: {text}"},),
            )
        try:
            return self.clients[server].call_tool(tool, args, timeout=self.timeout)
        except McpminiError as exc:
            return ToolOutcome(OutcomeKind.NO_ANSWER, exposed, reason=str(exc))

    def __iter__(self) -> Iterator[str]:
        return iter(self.clients)

    def close(self) -> None:
        """Close every client (stdio servers: their whole process group ends)."""
        for client in self.clients.values():
            client.close()
        self.clients.clear()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
