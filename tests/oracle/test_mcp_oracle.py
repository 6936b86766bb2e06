"""The MCP tools the pinned Claude Code shows the model equal mcpmini's inventory, and what it does
with a large tool result equals :func:`mcpmini.agent.registry.result_fate`.

A real mcpmini stdio server (``mcp_sizes_server.py``) is configured for Claude Code (run offline
in bubblewrap by :mod:`mcpmini.oracle`) and inventoried by mcpmini
(:func:`mcpmini.config.take_inventory`) from the same spec. Compared: the tool names
(``mcp__server__tool``, characters outside ``[A-Za-z0-9_-]`` as ``_``), the descriptions as
sent (cut past 4,096 characters), which tools are left out (names past 128 characters), which
are deferred behind ToolSearch (the default, ``ENABLE_TOOL_SEARCH`` true / false / auto,
``alwaysLoad`` on the server or in the tool's ``_meta``), and, by bisection around the measured
thresholds, whether a result arrives whole, saved with a preview, or refused. The recorded facts
for the course (``mcpmini/course/data/claude_code/claude_code_<PIN>.json``) are checked against
the binary too.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mcpmini.agent.registry import ResultFate, result_fate
from mcpmini.config.inventory import deferred_names, take_inventory
from mcpmini.config.precedence import Resolved
from mcpmini.oracle import PIN, Call, Case, Session

from .mcp_sizes_server import blob
from .skills_mcp_support import claude_or_skip, run_many

SERVER = Path(__file__).with_name("mcp_sizes_server.py")
FACTS = Path(__file__).parents[2] / f"mcpmini/course/data/claude_code/claude_code_{PIN}.json"


@dataclass(frozen=True)
class McpScenario:
    """Servers (name → tool specs, ``alwaysLoad``), ``ENABLE_TOOL_SEARCH`` (``None``: unset)."""

    name: str
    servers: Mapping[str, Sequence[Mapping[str, Any]]]
    tool_search: str | None = "false"
    always_load: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


def _t(name: str, description: str = "d", **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": description, **extra}


SCENARIOS = (
    McpScenario(
        "names-and-descriptions-sent-up-front",
        {
            "sz": [
                _t("blob", "returns n characters"),
                _t("a.b", "a dotted name"),
                _t("n" * 61, "70 characters in all: over mcpmini's old 64"),
                _t("m" * 119, "128 in all: sent"),
                _t("k" * 120, "129 in all: left out"),
                _t("d2049", "a" * 2049),
                _t("d4096", "e" * 4096),
                _t("d4097", "f" * 4097),
                _t("ja", "日本語" * 1700),
            ]
        },
    ),
    McpScenario(
        "deferred-by-default-except-always-load",
        {
            "sz": [_t("a"), _t("b", meta={"anthropic/alwaysLoad": True}), _t("c" * 130)],
            "pin": [_t("p")],
        },
        tool_search=None,
        always_load=("pin",),
    ),
    McpScenario("tool-search-true-defers", {"sz": [_t("a"), _t("b")]}, tool_search="true"),
    McpScenario("tool-search-auto-small-loads-up-front", {"sz": [_t("a")]}, tool_search="auto"),
)

#: (arguments of the ``blob`` call, MAX_MCP_OUTPUT_TOKENS or None) around each threshold.
SIZES: tuple[tuple[dict[str, Any], str | None], ...] = (
    ({"n": 50_000, "flat": True}, None),
    ({"n": 50_001, "flat": True}, None),
    ({"n": 50_000, "flat": True, "char": "日"}, None),
    ({"n": 50_001, "flat": True, "char": "日"}, None),
    ({"n": 99_899, "flat": True}, None),
    ({"n": 99_900, "flat": True}, None),
    ({"n": 98_500}, None),
    ({"n": 99_000}, None),
    ({"n": 39_899, "flat": True}, "10000"),
    ({"n": 39_900, "flat": True}, "10000"),
)


def _entry(spec: Path, always: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": "stdio",
        "command": sys.executable,
        "args": ["-I", str(SERVER), str(spec)],
    }
    return entry | ({"alwaysLoad": True} if always else {})


def oracle_case(s: McpScenario) -> Case:
    servers = {
        name: _entry(Path(f"{{ws}}/{name}.json"), name in s.always_load) for name in s.servers
    }
    env = dict(s.env)
    if s.tool_search is not None and s.tool_search != "false":
        env["ENABLE_TOOL_SEARCH"] = s.tool_search
    return Case(
        s.name,
        files={f"{n}.json": json.dumps({"tools": list(t)}) for n, t in s.servers.items()},
        mcp_servers=servers,
        tool_search=s.tool_search != "false",
        env=env,
        prompt="hello",
    )


def size_case(max_tokens: str | None) -> Case:
    calls = tuple(Call("mcp__sz__blob", a) for a, m in SIZES if m == max_tokens)
    return Case(
        f"sizes-{max_tokens or 'default'}",
        calls=calls,
        mode="bypassPermissions",
        files={"sz.json": json.dumps({"tools": [_t("blob")]})},
        mcp_servers={"sz": _entry(Path("{ws}/sz.json"), False)},
        env={"MAX_MCP_OUTPUT_TOKENS": max_tokens} if max_tokens else {},
    )


@pytest.fixture(scope="module")
def sessions() -> dict[str, Session]:
    binary = claude_or_skip()
    cases = [oracle_case(s) for s in SCENARIOS] + [size_case(None), size_case("10000")]
    return {c.name: s for c, s in zip(cases, run_many(cases, binary, timeout=110))}


def _first(session: Session) -> Mapping[str, Any]:
    return next(b for b in session.requests if b.get("tools"))


def _mcp_tools(session: Session) -> dict[str, str]:
    return {
        str(t["name"]): str(t.get("description", ""))
        for t in _first(session)["tools"]
        if str(t["name"]).startswith("mcp__") and not str(t["name"]).startswith("mcp__oracle__")
    }


def _inventory(s: McpScenario, root: Path) -> Any:
    servers = {}
    for name, tools in s.servers.items():
        spec = root / f"{name}.json"
        spec.write_text(json.dumps({"tools": list(tools)}), encoding="utf-8")
        servers[name] = Resolved(name, _entry(spec, name in s.always_load), "project")
    return take_inventory(servers, timeout=20)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_mcp_tools_claude_code_sends_and_defers_equal_the_inventory(
    scenario: McpScenario, sessions: dict[str, Session], tmp_path: Path
) -> None:
    session = sessions[scenario.name]
    inv = _inventory(scenario, tmp_path)
    deferred = deferred_names(inv, scenario.tool_search)
    upfront = {t.name: t.sent_description for t in inv.tools if t.sent and t.name not in deferred}
    claude_deferred = sorted(d for d in session.shown.deferred if d.startswith("mcp__"))
    claude_upfront = _mcp_tools(session)
    assert claude_upfront == upfront
    assert claude_deferred == sorted(deferred) or (
        # auto: 2.1.332 sends the tools up front and still names them in the deferred list
        scenario.tool_search == "auto" and claude_deferred == sorted(upfront)
    )


def _results(session: Session) -> list[str]:
    last = [b for b in session.requests if b.get("tools")][-1]
    out = []
    for message in last.get("messages", []):
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                content = block.get("content")
                if isinstance(content, list):
                    content = "".join(str(b.get("text", "")) for b in content)
                out.append(str(content))
    return out


def _fate(shown: str) -> ResultFate:
    if shown.startswith("<persisted-output>") and "Preview (first 2KB)" in shown:
        return ResultFate.SAVED
    if shown.startswith("Error: result") and "exceeds maximum allowed tokens" in shown:
        return ResultFate.REFUSED
    return ResultFate.WHOLE


def _blob(arguments: Mapping[str, Any]) -> str:
    n, char = int(arguments["n"]), str(arguments.get("char") or "x")
    return char * n if arguments.get("flat") else blob(n)


@pytest.mark.parametrize("max_tokens", [None, "10000"], ids=["default", "max-10000"])
def test_a_large_result_is_whole_saved_or_refused_as_result_fate_says(
    max_tokens: str | None, sessions: dict[str, Session]
) -> None:
    session = sessions[f"sizes-{max_tokens or 'default'}"]
    calls = [a for a, m in SIZES if m == max_tokens]
    shown = _results(session)
    assert len(shown) == len(calls)
    limit = int(max_tokens) if max_tokens else 25_000
    claude = [(c["n"], _fate(text)) for c, text in zip(calls, shown)]
    ours = [(c["n"], result_fate(_blob(c), limit)) for c in calls]
    assert claude == ours
    whole = [text for c, text in zip(calls, shown) if _fate(text) is ResultFate.WHOLE]
    assert all(text == _blob(c) for c, text in zip(calls, shown) if text in whole)


def test_the_recorded_facts_are_what_the_binary_shows(sessions: dict[str, Session]) -> None:
    facts = json.loads(FACTS.read_text(encoding="utf-8"))
    assert facts["version"] == PIN
    first = _first(sessions["tool-search-true-defers"])
    builtin = [str(t["name"]) for t in first["tools"] if not str(t["name"]).startswith("mcp__")]
    # the harness passes --permission-prompt-tool, which adds AskUserQuestion and plan mode
    added = facts["with_permission_prompt_tool"]
    assert sorted(builtin) == sorted(facts["builtin_tools"] + added["tools_added"])
    assert not set(facts["not_in_tool_list"]) & set(builtin)
    deferred = {
        d
        for d in sessions["tool-search-true-defers"].shown.deferred
        if "__" not in d and d != "DeferredToolPlaceholder"
    }
    assert deferred == set(facts["deferred_builtin_tools"] + added["deferred_added"])
