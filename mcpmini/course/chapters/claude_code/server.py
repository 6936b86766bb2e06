"""The chapter's stdio MCP server (``python -m mcpmini.course.chapters.claude_code --serve``):
``add``, ``argv`` (its arguments and ``COURSE_*`` environment) and ``text(n)``."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

__all__ = ["serve"]


def _text(n: int) -> str:
    """``n`` characters: lines of 99 ``x`` and a line break."""
    return (("x" * 99 + "\n") * (n // 100 + 1))[:n]


def serve(extra: Sequence[str] = ()) -> None:
    """Serve the chapter's stdio MCP server: ``add(a, b)``, ``text(n)`` (``n`` chars) and
    ``argv()`` (``extra``, its arguments, and its ``COURSE_*`` environment)."""
    extra = list(extra)
    from ....mcp import Server
    from ....mcp.transport import serve_stdio

    server = Server("course", "1.0.0")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers and return the sum."""
        return a + b

    @server.tool()
    def argv() -> str:
        """Return this server's arguments and COURSE_* environment variables as JSON."""
        env = {k: v for k, v in sorted(os.environ.items()) if k.startswith("COURSE_")}
        return json.dumps({"args": extra, "env": env})

    @server.tool()
    def text(n: int) -> str:
        """Return n characters of text (lines of 99 x), to see what becomes of a large result."""
        return _text(n)

    serve_stdio(server)
