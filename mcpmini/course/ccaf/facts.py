"""Facts the runtime computes, for the bank's items whose key is not written by hand.

Rules of this module: one function per fact, each running the runtime the track teaches (the
loop with ``tool_choice``, MCP scope resolution, ``${VAR}`` expansion, the retry policy of
:mod:`.retries`, the Edit tool …) and returning the set of option ``value`` strings that are
true. An item names its fact under ``compute``; :func:`~.bank.load_bank` keys the options whose
``value`` is in that set, so a key can never drift from the code.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["KEY_FACTS"]


def _fact_tool_choice(mode: str) -> frozenset[str]:
    """Run the loop with ``tool_choice=mode`` on small talk and on a matching request.

    Returns ``{"may_answer_text"}`` when some run ended in text, ``{"always_named_tool"}``
    when every run called ``mode`` itself, otherwise ``{"always_some_tool"}``.
    """
    from ...agent import AgentOptions, RouterModel, Tool, run

    def tool(name: str, description: str) -> Tool:
        def fn(_input: dict[str, Any]) -> str:
            return f"{name} ran"

        return Tool(name, description, {"type": "object"}, fn)

    tools = [
        tool("classify_ticket", "Classify a support email into billing, shipping or other."),
        tool("extract_metadata", "Extract sender, date and subject from a document."),
    ]
    calls: list[list[str]] = []
    for prompt in ("hello, nice weather today", "please classify this billing email"):
        result = run(
            prompt,
            RouterModel(),
            AgentOptions(
                tools=tools,
                tool_choice=mode,
                max_turns=1,
                allowed_tools=["classify_ticket", "extract_metadata"],
            ),
        )
        calls.append(
            [
                b["name"]
                for m in result.messages
                if m["role"] == "assistant"
                for b in m["content"]
                if b["type"] == "tool_use"
            ]
        )
    if any(not c for c in calls):
        return frozenset(["may_answer_text"])
    if all(c == [mode] for c in calls):
        return frozenset(["always_named_tool"])
    return frozenset(["always_some_tool"])


def _fact_mcp_scope_winner() -> frozenset[str]:
    """The scope whose definition wins when project and user define the same server."""
    from ...config import load_mcp_json, resolve_mcp_servers

    entry = {"mcpServers": {"tracker": {"command": "tracker-mcp"}}}
    other = {"mcpServers": {"tracker": {"command": "tracker-mcp", "args": ["--beta"]}}}
    won = resolve_mcp_servers(
        [
            load_mcp_json(other, environ={}, source="user"),
            load_mcp_json(entry, environ={}, source="project"),
        ]
    )
    return frozenset([won["tracker"].source])


def _fact_mcp_scope_local() -> frozenset[str]:
    """The winning scope when local, project and user all define one server name."""
    from ...config import load_mcp_json, resolve_mcp_servers

    sources = [
        load_mcp_json({"mcpServers": {"db": {"command": f"db-{s}"}}}, environ={}, source=s)
        for s in ("user", "project", "local")
    ]
    return frozenset([resolve_mcp_servers(sources)["db"].source])


def _fact_var_default() -> frozenset[str]:
    """What ``${API_BASE:-https://api.example.test}`` becomes when API_BASE is unset."""
    from ...config import expand_vars

    value, missing = expand_vars("${API_BASE:-https://api.example.test}", {})
    return frozenset(
        ["default" if value == "https://api.example.test" and not missing else "literal"]
    )


def _fact_var_unset() -> frozenset[str]:
    """What an unset ``${API_KEY}`` without a default becomes: ``literal`` (kept as written,
    reported as missing — what Claude Code 2.1.332 does, checked through the oracle in CCA-F
    2.4), ``empty`` or ``error``."""
    from ...config import expand_vars

    value, missing = expand_vars("${API_KEY}", {})
    if value == "${API_KEY}" and missing == ["API_KEY"]:
        return frozenset(["literal"])
    return frozenset(["empty" if value == "" else "error"])


def _fact_retried_kinds() -> frozenset[str]:
    """The error categories the track's retry policy retries (see :mod:`.ccaf`)."""
    from .retries import ErrorCategory, policy_for

    return frozenset(c.value for c in ErrorCategory if policy_for(c).retry)


def _fact_edit_duplicate_anchor() -> frozenset[str]:
    """Run Edit on a file where the anchor occurs twice: does it fail again, and which next
    steps change only the api section (a longer, unique old_string; Read then Write)?"""
    from ...agent import builtin_tools

    original = "api:\n  timeout: 30\ndb:\n  timeout: 30\n"
    wanted = "api:\n  timeout: 60\ndb:\n  timeout: 30\n"
    facts = set()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "app.yaml")
        path.write_text(original)
        tools = {t.name: t for t in builtin_tools(tmp)}
        edit = {"file_path": "app.yaml", "old_string": "timeout: 30", "new_string": "timeout: 60"}
        first, again = tools["Edit"].run(edit), tools["Edit"].run(edit)
        retry_fails = first.is_error and again.is_error
        text = tools["Read"].run({"file_path": "app.yaml"})
        fixed = path.read_text().replace("api:\n  timeout: 30", "api:\n  timeout: 60")
        written = tools["Write"].run({"file_path": "app.yaml", "content": fixed})
        if not text.is_error and not written.is_error and path.read_text() == wanted:
            facts.add("read_write")
        path.write_text(original)
        longer = tools["Edit"].run(
            {
                "file_path": "app.yaml",
                "old_string": "api:\n  timeout: 30",
                "new_string": "api:\n  timeout: 60",
            }
        )
        if not longer.is_error and path.read_text() == wanted:
            facts.add("longer_anchor")
    if not retry_fails:
        facts.add("retry_edit")
    return frozenset(facts)


def _fact_max_turns_calls() -> frozenset[str]:
    """How many model calls a loop makes with ``max_turns=3`` and a model that never stops."""
    from ...agent import AgentOptions, AlwaysToolModel, Tool, run

    echo = Tool("echo", "Echo the input.", {"type": "object"}, lambda _i: "ok")
    result = run("go", AlwaysToolModel("echo"), AgentOptions(tools=[echo], max_turns=3))
    return frozenset([str(result.model_calls)])


def _fact_hooks_combination() -> frozenset[str]:
    """How hooks from several settings files combine (override, merge or additive)."""
    from ...config import COMBINATION, Mechanism

    return frozenset([COMBINATION[Mechanism.HOOKS].value])


def _fact_claude_md_combination() -> frozenset[str]:
    """How CLAUDE.md files of several levels combine."""
    from ...config import COMBINATION, Mechanism

    return frozenset([COMBINATION[Mechanism.CLAUDE_MD].value])


KEY_FACTS: dict[str, Callable[[], frozenset[str]]] = {
    "tool_choice_auto": lambda: _fact_tool_choice("auto"),
    "tool_choice_any": lambda: _fact_tool_choice("any"),
    "tool_choice_named": lambda: _fact_tool_choice("extract_metadata"),
    "mcp_scope_winner": _fact_mcp_scope_winner,
    "mcp_scope_local": _fact_mcp_scope_local,
    "var_default": _fact_var_default,
    "var_unset": _fact_var_unset,
    "retried_kinds": _fact_retried_kinds,
    "edit_duplicate_anchor": _fact_edit_duplicate_anchor,
    "max_turns_calls": _fact_max_turns_calls,
    "hooks_combination": _fact_hooks_combination,
    "claude_md_combination": _fact_claude_md_combination,
}
