"""A server whose tools exercise the inspector: structured content against an output schema,
resource links, hostile text, huge images, and progress that waits for the client.

``python tests/peers/inspector_server.py`` serves it over stdio; tests import
:func:`inspector_server` to serve it over HTTP or in memory.
"""

from __future__ import annotations

import base64
import threading

from mcpmini.mcp import Server, current_call, serve_stdio

COUNT_SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "required": ["n"],
}
#: Set by a test's notification callback; ``wait_for_client`` returns once it is set.
SEEN = threading.Event()


def inspector_server() -> Server:
    """The inspector's test server (see the module docstring)."""
    server = Server("inspector-peer", "1.0.0")

    @server.tool(output_schema=COUNT_SCHEMA)
    def shaped() -> dict[str, object]:
        """Structured content that matches its output schema."""
        return {"n": 3}

    @server.tool(output_schema=COUNT_SCHEMA)
    def misshaped() -> dict[str, object]:
        """Structured content that breaks its output schema."""
        return {"n": "three"}

    @server.tool()
    def linked() -> list[dict[str, object]]:
        """A resource link."""
        return [
            {
                "type": "resource_link",
                "uri": "file:///srv/report.pdf",
                "name": "report.pdf",
                "mimeType": "application/pdf",
                "size": 2048,
            }
        ]

    @server.tool()
    def hostile() -> str:
        """Text that would retitle the terminal, clear it and reverse the rest of the line."""
        return "before\x1b]0;pwned\x07\x1b[2J\u202eevil\rforged"

    @server.tool()
    def big_image(mib: int = 50) -> list[dict[str, object]]:
        """An image of ``mib`` MiB."""
        data = base64.b64encode(b"\x89PNG" + b"\0" * (mib * 1024 * 1024)).decode()
        return [{"type": "image", "data": data, "mimeType": "image/png"}]

    @server.tool()
    def wait_for_client() -> str:
        """Sends progress, then waits (at most 10 s) until the client has seen it."""
        current_call().progress(1, 2, "half way")
        return "seen" if SEEN.wait(10) else "not seen"

    return server


if __name__ == "__main__":
    serve_stdio(inspector_server())
