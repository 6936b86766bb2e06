"""Tiny stdio MCP servers that Claude Code starts inside the oracle's sandbox.

- ``python -m mcpmini.oracle.probe prompt LOG``: the permission-prompt tool
  (``--permission-prompt-tool mcp__oracle__prompt``). Claude Code calls it exactly when it would
  ask the user; each call is appended to ``LOG`` as one JSON line (``tool_name``, ``input``,
  ``tool_use_id``) and refused, so an ask is marked unambiguously and nothing asked ever runs.
- ``python -m mcpmini.oracle.probe tools``: harmless tools for MCP permission cases
  (``lookup``, ``store``, ``remove``): each returns ``ok <name>`` and touches nothing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..mcp import Server
from ..mcp.transport import serve_stdio

__all__ = ["PROBE_TOOLS", "PROMPT_REFUSAL", "PROMPT_SERVER", "PROMPT_TOOL", "main"]

PROMPT_SERVER = "oracle"
PROMPT_TOOL = f"mcp__{PROMPT_SERVER}__prompt"
PROMPT_REFUSAL = "oracle: the permission prompt was refused"
PROBE_TOOLS = ("lookup", "store", "remove")

_ANY_OBJECT: dict[str, Any] = {"type": "object", "additionalProperties": True}


def prompt_server(log: Path) -> Server:
    """The permission-prompt server: records every call in ``log`` and refuses it."""
    server = Server("oracle-prompt", "1.0.0")

    def prompt(**arguments: Any) -> str:
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(arguments, sort_keys=True) + "\n")
        return json.dumps({"behavior": "deny", "message": PROMPT_REFUSAL})

    server.add_tool(prompt, "prompt", "Ask the user for permission.", _ANY_OBJECT)
    return server


def probe_server() -> Server:
    """The probe server: tools that answer ``ok <name>`` and do nothing else."""
    server = Server("oracle-probe", "1.0.0")
    for name in PROBE_TOOLS:

        def tool(_name: str = name, **arguments: Any) -> str:
            return f"ok {_name}"

        server.add_tool(tool, name, f"The probe tool {name}.", _ANY_OBJECT)
    return server


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the server named by ``argv`` over stdio; exit code 2 for bad arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["prompt"] and len(args) == 2:
        serve_stdio(prompt_server(Path(args[1])))
    elif args == ["tools"]:
        serve_stdio(probe_server())
    else:
        print("usage: python -m mcpmini.oracle.probe prompt LOG | tools", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
