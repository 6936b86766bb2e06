"""A stdio MCP server for the MCP differential test: the tools named in a JSON spec file.

``python -I mcp_sizes_server.py SPEC``: ``SPEC`` holds ``{"tools": [{"name", "description",
"meta"?}, …]}`` (``meta`` becomes the tool's ``_meta``). Every tool answers its ``n``
argument's worth of text: lines of 99 ``x`` and a line break, cut to exactly ``n``
characters; with ``flat`` true, ``n`` times ``char`` (default ``x``) on one line (``n``
missing: ``ok``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcpmini.mcp import Server
from mcpmini.mcp.server import Tool
from mcpmini.mcp.transport import serve_stdio

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "additionalProperties": True,
}


def blob(n: int) -> str:
    """``n`` characters: lines of 99 ``x`` and a line break."""
    return (("x" * 99 + "\n") * (n // 100 + 1))[:n]


class MetaTool(Tool):
    """A tool whose ``tools/list`` entry carries a ``_meta`` object."""

    meta: dict[str, Any]

    def definition(self) -> dict[str, Any]:
        return {**super().definition(), "_meta": self.meta}


def sizes_server(spec: dict[str, Any]) -> Server:
    server = Server("sizes", "1.0.0")
    for tool in spec["tools"]:

        def answer(**arguments: Any) -> str:
            n = arguments.get("n")
            if not isinstance(n, int):
                return "ok"
            char = str(arguments.get("char") or "x")[:1]
            return char * n if arguments.get("flat") else blob(n)

        added = server.add_tool(answer, tool["name"], tool.get("description", ""), SCHEMA)
        if "meta" in tool:
            meta = MetaTool(added.name, added.description, added.input_schema, added.fn)
            meta.meta = dict(tool["meta"])
            server.tools[added.name] = meta
    return server


if __name__ == "__main__":  # pragma: no cover
    serve_stdio(sizes_server(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))))
