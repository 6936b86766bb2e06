"""One agent loop exposed as an MCP tool of another ("agents calling agents").

:func:`agent_server` wraps :func:`mcpmini.agent.run` in an mcpmini
:class:`~mcpmini.mcp.Server` with one tool, ``ask(prompt)``: each call runs a whole inner
loop (its own model, tools and MCP servers) and returns the inner agent's final text. The
outer agent sees one tool call; the inner loop's model calls, tokens and tool calls are
the hidden cost of that hop, kept for the host in :func:`runs_of`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..mcp import Server
from .loop import AgentOptions, run
from .models import Model
from .transcript import RunResult

__all__ = ["agent_server", "runs_of"]

_RUNS: dict[int, list[RunResult]] = {}


def agent_server(
    name: str,
    make_model: Callable[[], Model],
    make_options: Callable[[], AgentOptions],
    description: str,
) -> Server:
    """A server whose ``ask(prompt)`` runs a fresh inner loop and returns its final text.

    ``make_model`` and ``make_options`` are called once per call, so no state leaks
    between calls. ``description`` becomes the tool's description (what the outer model
    reads to decide when to delegate). Returns the :class:`Server`.
    """
    server = Server(name, "0.1.0")
    runs: list[RunResult] = []
    _RUNS[id(server)] = runs

    def ask(prompt: str) -> str:
        result = run(prompt, make_model(), make_options())
        runs.append(result)
        return result.final_text or "(no answer)"

    server.add_tool(
        ask,
        name="ask",
        description=description,
        input_schema={
            "type": "object",
            "properties": {"prompt": {"type": "string", "description": "the task, in full"}},
            "required": ["prompt"],
        },
    )
    return server


def runs_of(server: Server) -> list[RunResult]:
    """The inner :class:`RunResult` of every ``ask`` call so far (a copy; empty for a server
    not made by :func:`agent_server`)."""
    return list(_RUNS.get(id(server), []))
