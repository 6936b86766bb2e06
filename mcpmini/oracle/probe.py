"""Tiny stdio MCP servers that Claude Code starts inside the oracle's sandbox.

- ``python -m mcpmini.oracle.probe prompt LOG``: the permission-prompt tool
  (``--permission-prompt-tool mcp__oracle__prompt``). Claude Code calls it exactly when it would
  ask the user; each call is appended to ``LOG`` as one JSON line (``tool_name``, ``input``,
  ``tool_use_id``) and refused, so an ask is marked unambiguously and nothing asked ever runs.
- ``python -m mcpmini.oracle.probe tools``: harmless tools for MCP permission cases
  (``lookup``, ``store``, ``remove``): each returns ``ok <name>`` and touches nothing.

Rules of this module: it imports the standard library only. Claude Code waits for its MCP
servers before the first model request, and every oracle session starts the prompt server, so
its start-up is paid once per session: importing :mod:`mcpmini.mcp` (the HTTP stack included)
cost about a second on a loaded two-core machine, this loop a few milliseconds. It speaks the
subset of MCP that Claude Code uses here: ``initialize``, ``ping``, ``tools/list`` and
``tools/call``, newline-delimited JSON-RPC on stdin / stdout.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = [
    "PROBE_TOOLS",
    "PROMPT_REFUSAL",
    "PROMPT_SERVER",
    "PROMPT_TOOL",
    "answer",
    "main",
    "probe_tools",
    "prompt_tools",
]

PROMPT_SERVER = "oracle"
PROMPT_TOOL = f"mcp__{PROMPT_SERVER}__prompt"
PROMPT_REFUSAL = "oracle: the permission prompt was refused"
PROBE_TOOLS = ("lookup", "store", "remove")
PROTOCOL = "2025-06-18"

Tool = Callable[[Mapping[str, Any]], str]
_ANY_OBJECT: dict[str, Any] = {"type": "object", "additionalProperties": True}


def prompt_tools(log: Path) -> dict[str, Tool]:
    """The permission-prompt tool: records every call in ``log`` and refuses it."""

    def prompt(arguments: Mapping[str, Any]) -> str:
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(dict(arguments), sort_keys=True) + "\n")
        return json.dumps({"behavior": "deny", "message": PROMPT_REFUSAL})

    return {"prompt": prompt}


def probe_tools() -> dict[str, Tool]:
    """The probe tools: each answers ``ok <name>`` and does nothing else."""

    def tool(name: str) -> Tool:
        return lambda _arguments: f"ok {name}"

    return {name: tool(name) for name in PROBE_TOOLS}


def answer(message: Mapping[str, Any], tools: Mapping[str, Tool]) -> dict[str, Any] | None:
    """The JSON-RPC reply to one message (``None`` for a notification)."""
    if "id" not in message:
        return None
    method, params = message.get("method"), message.get("params") or {}
    result: dict[str, Any]
    if method == "initialize":
        version = params.get("protocolVersion") or PROTOCOL
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "mcpmini-oracle-probe", "version": "1.0.0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {
            "tools": [
                {"name": n, "description": f"The oracle tool {n}.", "inputSchema": _ANY_OBJECT}
                for n in tools
            ]
        }
    elif method == "tools/call" and params.get("name") in tools:
        text = tools[params["name"]](params.get("arguments") or {})
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    else:
        error = {"code": -32601, "message": f"unknown method or tool: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def serve(tools: Mapping[str, Tool], rfile: IO[str], wfile: IO[str]) -> None:
    """Answer newline-delimited JSON-RPC from ``rfile`` on ``wfile`` until EOF."""
    for line in rfile:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            reply = answer(message, tools)
            if reply is not None:
                wfile.write(json.dumps(reply) + "\n")
                wfile.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the tools named by ``argv`` over stdio; exit code 2 for bad arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["prompt"] and len(args) == 2:
        serve(prompt_tools(Path(args[1])), sys.stdin, sys.stdout)
    elif args == ["tools"]:
        serve(probe_tools(), sys.stdin, sys.stdout)
    else:
        print("usage: python -m mcpmini.oracle.probe prompt LOG | tools", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
