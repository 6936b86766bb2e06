"""What the model would see from a real configuration: every MCP tool, its name and cost.

:func:`take_inventory` takes resolved server entries (see
:func:`mcpmini.config.resolve_mcp_servers`), starts every stdio server at once (one thread
each), connects, lists its tools and closes it again, each within ``timeout`` seconds.
Each tool is reported under the name Claude Code gives it (``mcp__server__tool``, or
``mcp__plugin_<plugin>_<server>__<tool>`` for a plugin's server) with its definition size
in tokens, its description length (and whether Claude Code's 4,096-character cap cuts it),
its name problems, whether Claude Code sends it at all and whether it is deferred behind
ToolSearch (:func:`deferred_names`; measured with Claude Code 2.1.332, see
``tests/oracle/test_mcp_oracle.py``). Servers of type ``http`` are reached with
:class:`~mcpmini.mcp.HttpTransport` (their ``headers`` sent along); ``sse`` and other types
are reported as unsupported. A server that cannot start, hangs or answers garbage is
reported with a :class:`ServerStatus` and a reason (for one that exited: its exit code and
last stderr line, read from the :class:`~mcpmini.errors.TransportError`); the others are
still listed. Every process a server started is gone when the function returns (its process
group is killed).

The totals compare loading every definition up front with tool search's deferred loading
(Proposition 3.8): names only up front, plus the definitions of the tools used.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from .. import jsonfile
from ..agent import (
    NameStyle,
    break_even,
    estimate_tokens,
    exposed_name,
    json_tokens,
    name_problems,
)
from ..errors import (
    ConfigError,
    McpminiError,
    Problem,
    RemoteProtocolError,
    TransportError,
    TransportErrorKind,
)
from ..mcp import Client, HttpTransport, StdioTransport, Transport
from .claude_json import load_claude_json
from .mcp_json import load_mcp_json
from .plugins import load_plugin
from .precedence import Resolved

__all__ = [
    "DESCRIPTION_CAP",
    "DESCRIPTION_CUT_MARK",
    "MAX_SENT_NAME",
    "Inventory",
    "ServerReport",
    "ServerStatus",
    "ToolReport",
    "ToolSearch",
    "deferred_names",
    "load_held_sources",
    "load_sources",
    "sent_description",
    "take_inventory",
    "tool_search_mode",
]

#: The docs say Claude Code cuts tool descriptions at "2KB". Observed in Claude Code 2.1.332: a
#: description of more than 4,096 *characters* (Japanese included) is sent as its first 4,096
#: and ``… [truncated]``; 2,049 to 4,096 characters go whole.
DESCRIPTION_CAP = 4096
DESCRIPTION_CUT_MARK = "\u2026 [truncated]"
#: Claude Code 2.1.332 leaves a tool whose full name is longer than this out of the tool list
#: (silently); names of 65 to 128 characters are sent. Other characters than ``[A-Za-z0-9_-]``
#: in a tool name become ``_`` (``a.b`` → ``mcp__server__a_b``).
MAX_SENT_NAME = 128
#: ``ENABLE_TOOL_SEARCH=auto``: defer once the definitions reach this share of the window.
AUTO_SHARE = 0.10
_PLUGIN_KEY = re.compile(r"^plugin:([^:]+):(.+)$")


class ToolSearch(StrEnum):
    """How ``ENABLE_TOOL_SEARCH`` loads MCP tools (observed in 2.1.332)."""

    DEFER = "defer"  # unset or true: every MCP tool deferred, a loopback ANTHROPIC_BASE_URL too
    UPFRONT = "upfront"  # false: every definition in the first request
    AUTO = "auto"  # auto / auto:N: up front while the definitions stay under N % of the window


def tool_search_mode(value: str | None) -> tuple[ToolSearch, float]:
    """The mode and the ``auto`` share (0.10 unless ``auto:N``) of an ``ENABLE_TOOL_SEARCH``
    value. Raises ``ValueError`` for ``auto:N`` whose ``N`` is not a number."""
    text = (value or "").strip().lower()
    if text in ("false", "0", "no", "off"):
        return ToolSearch.UPFRONT, AUTO_SHARE
    if text == "auto":
        return ToolSearch.AUTO, AUTO_SHARE
    if text.startswith("auto:"):
        return ToolSearch.AUTO, float(text[5:]) / 100
    return ToolSearch.DEFER, AUTO_SHARE


def sent_description(description: str) -> str:
    """The description as Claude Code sends it: cut to :data:`DESCRIPTION_CAP` characters."""
    if len(description) <= DESCRIPTION_CAP:
        return description
    return description[:DESCRIPTION_CAP] + DESCRIPTION_CUT_MARK


class ServerStatus(StrEnum):
    """How connecting to one server ended."""

    OK = "ok"
    FAILED = "failed"  # could not start, exited, or refused the handshake
    TIMEOUT = "timeout"  # no valid answer within the timeout
    GARBAGE = "garbage"  # wrote lines that are not JSON-RPC, and nothing valid
    UNSUPPORTED = "unsupported"  # an entry this tool cannot connect to (e.g. SSE)
    # never started (project trust, :mod:`mcpmini.config.trust`): the entry's command as written
    PENDING = "pending"  # a project server nobody approved yet
    REJECTED = "rejected"  # named in disabledMcpjsonServers
    DISABLED = "disabled"  # switched off for this project


@dataclass(frozen=True)
class ToolReport:
    """One tool as the model would see it."""

    name: str
    server: str
    tool: str
    definition_tokens: int
    name_tokens: int
    description_chars: int
    description_bytes: int
    description_cut: bool
    problems: tuple[str, ...] = ()
    sent: bool = True  # False: the name is too long, Claude Code leaves the tool out
    always_load: bool = False  # server ``alwaysLoad`` or the tool's ``anthropic/alwaysLoad``
    sent_description: str = ""  # the description as Claude Code sends it (cut past the cap)


@dataclass(frozen=True)
class ServerReport:
    """One configured server: where it came from, how connecting went, and its tools."""

    name: str
    source: str
    status: ServerStatus
    reason: str = ""
    tools: tuple[ToolReport, ...] = ()
    instructions_chars: int = 0
    command: str = ""  # a server not started: its command or URL as written

    @property
    def definition_tokens(self) -> int:
        """The sum of this server's tool definitions (tokens)."""
        return sum(t.definition_tokens for t in self.tools)


@dataclass(frozen=True)
class Inventory:
    """Every server and tool, and the context cost of the whole tool layer.

    ``upfront_tokens`` puts every definition in the context; ``deferred_tokens`` only the
    names (tool search). ``break_even`` is Proposition 3.8's u*: deferring costs less as
    long as fewer than u* tools get used (``None`` without tools).
    """

    servers: tuple[ServerReport, ...]
    problems: tuple[str, ...]

    @property
    def tools(self) -> list[ToolReport]:
        """Every tool of every server that answered."""
        return [t for s in self.servers for t in s.tools]

    @property
    def upfront_tokens(self) -> int:
        """Every definition Claude Code sends (tools it leaves out do not count)."""
        return sum(t.definition_tokens for t in self.tools if t.sent)

    @property
    def deferred_tokens(self) -> int:
        """Only the names of the tools Claude Code sends."""
        return sum(t.name_tokens for t in self.tools if t.sent)

    @property
    def break_even(self) -> float | None:
        tools = self.tools
        if not tools or not self.upfront_tokens:
            return None
        d = self.upfront_tokens / len(tools)
        return break_even(len(tools), d, min(d, self.deferred_tokens / len(tools)))

    def deferred(
        self, enable_tool_search: str | None = None, context_window_tokens: int = 1_000_000
    ) -> list[ToolReport]:
        """The tools Claude Code defers behind ToolSearch (see :func:`deferred_names`)."""
        mode, share = tool_search_mode(enable_tool_search)
        sent = [t for t in self.tools if t.sent]
        if mode is ToolSearch.UPFRONT:
            return []
        if mode is ToolSearch.AUTO:
            total = sum(t.definition_tokens for t in sent)
            if total < share * context_window_tokens:
                return []
        return [t for t in sent if not t.always_load]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (enums as their values)."""
        return {
            "servers": [
                {
                    "name": s.name,
                    "source": s.source,
                    "status": s.status.value,
                    "reason": s.reason,
                    "definition_tokens": s.definition_tokens,
                    "instructions_chars": s.instructions_chars,
                    **({"command": s.command} if s.command else {}),
                    "tools": [asdict(t) | {"problems": list(t.problems)} for t in s.tools],
                }
                for s in self.servers
            ],
            "problems": list(self.problems),
            "upfront_tokens": self.upfront_tokens,
            "deferred_tokens": self.deferred_tokens,
            "break_even": self.break_even,
        }


def _is_claude_json(path: str | Path) -> bool:
    """Whether ``path`` holds a ``~/.claude.json`` rather than an ``.mcp.json``-shaped file:
    a top-level object whose ``projects`` is an object. Unreadable or invalid JSON is
    ``False``, so :func:`~mcpmini.config.load_mcp_json` reports it with its usual problem."""
    try:
        data = jsonfile.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, Mapping) and isinstance(data.get("projects"), Mapping)


def load_sources(
    scopes: Mapping[str, str | Path | None],
    plugins: tuple[str | Path, ...] = (),
    environ: Mapping[str, str] | None = None,
    project_dir: str | os.PathLike[str] | None = None,
) -> tuple[list[Any], list[Problem]]:
    """Load the MCP sources ``config resolve`` reads: ``scopes`` maps ``local``, ``project``,
    ``user`` to a file (an ``.mcp.json``-shaped file, or a ``~/.claude.json`` for local and
    user, whose top level is the user scope and whose ``projects[project_dir]`` entry is the
    local one), plus plugin folders. Returns ``(sources, problems)`` for
    :func:`~mcpmini.config.resolve_mcp_servers`; a file that cannot be read is a problem,
    never an exception. Everything is expanded from ``environ``; :func:`load_held_sources`
    holds a project's servers back until they are approved."""
    sources, problems, _ = _load(scopes, plugins, environ, project_dir, hold=False)
    return sources, problems


def load_held_sources(
    scopes: Mapping[str, str | Path | None],
    plugins: tuple[str | Path, ...] = (),
    environ: Mapping[str, str] | None = None,
    project_dir: str | os.PathLike[str] | None = None,
) -> tuple[list[Any], list[Problem], frozenset[str]]:
    """:func:`load_sources` with the project's servers *held*: the project scope and every
    plugin folder inside ``project_dir`` are loaded with no variable of ``environ`` expanded
    (``${VAR}`` as written, the warnings about unset ones still reported; a plugin's own
    ``${CLAUDE_PLUGIN_ROOT}`` is expanded), to be expanded by
    :func:`mcpmini.config.trust.release` once approved. Returns ``(sources, problems, the
    names of the project's plugins)``."""
    return _load(scopes, plugins, environ, project_dir, hold=True)


def _inside(folder: str | Path, project: str) -> bool:
    try:
        return Path(folder).resolve().is_relative_to(Path(project).resolve())
    except OSError:
        return False


def _load(
    scopes: Mapping[str, str | Path | None],
    plugins: tuple[str | Path, ...],
    environ: Mapping[str, str] | None,
    project_dir: str | os.PathLike[str] | None,
    *,
    hold: bool,
) -> tuple[list[Any], list[Problem], frozenset[str]]:
    env = dict(os.environ if environ is None else environ)
    where = os.fspath(project_dir) if project_dir is not None else os.getcwd()
    sources: list[Any] = []
    problems: list[Problem] = []
    for scope in ("local", "project", "user"):
        path = scopes.get(scope)
        if not path:
            continue
        try:
            if scope != "project" and _is_claude_json(path):
                # a ~/.claude.json: user = top level, local = this project's entry
                user, local = load_claude_json(path, project_dir=where, environ=env)
                cfg = user if scope == "user" else local
            elif scope == "project" and hold:
                cfg = load_mcp_json(path, environ=env, source=scope, hold=())
            else:
                cfg = load_mcp_json(path, environ=env, source=scope)
        except ConfigError as exc:
            problems.append(Problem.from_error(exc))
            continue
        sources.append(cfg)
        problems.extend(cfg.problems)
    held: set[str] = set()
    for folder in plugins:
        mine = hold and _inside(folder, where)
        plugin = load_plugin(folder, environ=env, hold=mine)
        if mine:
            held.add(plugin.name)
        problems.extend(
            p
            for p in plugin.problems
            if (p.path or "").startswith("mcpServers") or p.severity.value == "error"
        )
        sources.append(plugin.mcp_source)
    return sources, problems, frozenset(held)


def _split_key(name: str) -> tuple[str, str | None]:
    match = _PLUGIN_KEY.match(name)
    return (match.group(2), match.group(1)) if match else (name, None)


def _argv_env(
    entry: Mapping[str, Any], environ: Mapping[str, str]
) -> tuple[list[str], dict[str, str]]:
    args = entry.get("args") or []
    if not isinstance(args, list):
        raise ValueError("args must be a list")
    env = dict(environ)
    extra = entry.get("env") or {}
    if not isinstance(extra, Mapping):
        raise ValueError("env must be an object")
    env.update({str(k): str(v) for k, v in extra.items()})
    return [str(entry["command"]), *map(str, args)], env


def _transport(
    entry: Any, timeout: float, environ: Mapping[str, str], cwd: str | None
) -> Transport | tuple[ServerStatus, str]:
    """The transport for one entry, or why there is none: ``(status, reason)``."""
    if not isinstance(entry, Mapping):
        return ServerStatus.FAILED, "the entry is not an object"
    if "command" not in entry:
        kind = str(entry.get("type") or ("http" if "url" in entry else "unknown"))
        if kind != "http" or not isinstance(entry.get("url"), str):
            return (
                ServerStatus.UNSUPPORTED,
                f"{kind} servers are not connected by this version (stdio and http only)",
            )
        headers = entry.get("headers") or {}
        if not isinstance(headers, Mapping):
            return ServerStatus.FAILED, "headers must be an object"
        from ..mcp.auth import oauth_for  # here: authlib loads only for an http server

        fixed = {str(k): str(v) for k, v in headers.items()}
        own = any(k.lower() == "authorization" for k in fixed)  # else the stored OAuth login
        return HttpTransport(
            entry["url"],
            headers=fixed,
            timeout=timeout,
            open_stream=False,
            auth=None if own else oauth_for(entry["url"], environ),
        )
    try:
        argv, env = _argv_env(entry, environ)
        return StdioTransport(argv, env=env, cwd=cwd, close_grace=0.5)
    except (ValueError, TransportError) as exc:
        return ServerStatus.FAILED, str(exc)


def _ended(exc: TransportError) -> str:
    """Why a server went away, from the error alone: its exit code and last stderr line."""
    if exc.kind is not TransportErrorKind.CLOSED or exc.returncode is None:
        return str(exc)
    last = exc.stderr_tail.splitlines()[-1:] or [""]
    return f"exited (code {exc.returncode}) before answering" + (
        f": {last[0][:120]}" if last[0] else ""
    )


def _probe(
    name: str,
    entry: Any,
    timeout: float,
    environ: Mapping[str, str],
    cwd: str | None,
    started: list[Any],
    lock: threading.Lock,
) -> tuple[ServerStatus, str, list[dict[str, Any]], str]:
    """Connect to one server; returns (status, reason, tools, instructions)."""
    transport = _transport(entry, timeout, environ, cwd)
    if isinstance(transport, tuple):
        return transport[0], transport[1], [], ""
    with lock:
        started.append(transport)
    client = Client(transport, timeout=timeout)
    deadline = client.deadline(timeout)  # one per server: connect and list (the client's rules)
    try:
        connection = client.connect(deadline)
        tools = client.list_tools(deadline=deadline)
        return ServerStatus.OK, "", tools, connection.instructions or ""
    except TimeoutError:
        if client.stray:
            first = client.stray[0][:60].decode("utf-8", "replace")
            return (
                ServerStatus.GARBAGE,
                f"{len(client.stray)} line(s) that are not JSON-RPC, e.g. {first!r}",
                [],
                "",
            )
        return ServerStatus.TIMEOUT, f"no answer within {timeout:g} s", [], ""
    except TransportError as exc:
        return ServerStatus.FAILED, _ended(exc), [], ""
    except RemoteProtocolError as exc:
        return ServerStatus.FAILED, f"error {exc.code}: {exc.message}", [], ""
    except McpminiError as exc:
        return ServerStatus.FAILED, str(exc), [], ""
    finally:
        transport.close()


def deferred_names(
    inventory: Inventory,
    enable_tool_search: str | None = None,
    context_window_tokens: int = 1_000_000,
) -> list[str]:
    """The names Claude Code lists as deferred tools (``ENABLE_TOOL_SEARCH`` as given;
    unset defers all but the ``alwaysLoad`` ones)."""
    return [t.name for t in inventory.deferred(enable_tool_search, context_window_tokens)]


def _tool_report(
    server: str,
    plugin: str | None,
    tool: Mapping[str, Any],
    problems: list[str],
    server_always: bool = False,
) -> ToolReport:
    name = exposed_name(server, str(tool.get("name", "")), NameStyle.CLAUDE_CODE, plugin)
    description = str(tool.get("description") or "")
    sent = sent_description(description)
    definition = {
        "name": name,
        "description": sent,
        "input_schema": tool.get("inputSchema") or {"type": "object"},
    }
    meta = tool.get("_meta")
    always = server_always or (
        isinstance(meta, Mapping) and meta.get("anthropic/alwaysLoad") is True
    )
    # 2.1.332 sends names up to MAX_SENT_NAME; only a longer one is a real problem (left out)
    kept = [p for p in problems if p != "too_long"]
    if len(name) > MAX_SENT_NAME:
        kept.append("too_long")
    return ToolReport(
        name,
        server,
        str(tool.get("name", "")),
        json_tokens(definition),
        estimate_tokens(name),
        len(description),
        len(description.encode("utf-8")),
        len(description) > DESCRIPTION_CAP,
        tuple(kept),
        len(name) <= MAX_SENT_NAME,
        always,
        sent,
    )


def take_inventory(
    servers: Mapping[str, Resolved],
    timeout: float = 10.0,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    problems: tuple[str, ...] = (),
) -> Inventory:
    """Start, list and close every server of ``servers`` (``{key: Resolved}``) in parallel.

    ``environ`` is the base environment of the servers (default ``os.environ``) and each
    entry's ``env`` is added to it. ``problems`` (configuration findings) are carried into
    the :class:`Inventory`. Never raises for what a server does; every process started
    here has been ended when this returns.
    """
    base = dict(os.environ if environ is None else environ)
    started: list[Any] = []
    lock = threading.Lock()
    names = list(servers)
    work_dir = None if cwd is None else os.fspath(cwd)
    try:
        with ThreadPoolExecutor(max_workers=max(1, min(8, len(names)))) as pool:
            futures = [
                pool.submit(_probe, n, servers[n].value, timeout, base, work_dir, started, lock)
                for n in names
            ]
            outcomes = [f.result() for f in futures]
    finally:
        for transport in started:  # close() is idempotent; this covers an interrupted run
            transport.close()
    pairs = []
    plugins: dict[str, str] = {}
    for key, (_, _, tools, _) in zip(names, outcomes):
        server, plugin = _split_key(key)
        if plugin:
            plugins[server] = plugin
        pairs += [(server, str(t.get("name", ""))) for t in tools]
    by_name: dict[str, list[str]] = {}
    for p in name_problems(pairs, NameStyle.CLAUDE_CODE, plugins):
        by_name.setdefault(p.name, []).append(p.kind.value)
    reports = []
    for key, (status, reason, tools, instructions) in zip(names, outcomes):
        server, plugin = _split_key(key)
        rows = []
        entry = servers[key].value
        always = isinstance(entry, Mapping) and entry.get("alwaysLoad") is True
        for t in tools:
            name = exposed_name(server, str(t.get("name", "")), NameStyle.CLAUDE_CODE, plugin)
            rows.append(_tool_report(server, plugin, t, by_name.get(name, []), always))
        reports.append(
            ServerReport(key, servers[key].source, status, reason, tuple(rows), len(instructions))
        )
    return Inventory(tuple(reports), problems)
