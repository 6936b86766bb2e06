"""The official SDK's `add` server as a Streamable HTTP ASGI app (interop tests, bench/)."""

from mcp.server.mcpserver import Context, MCPServer


def build(stateless: bool = False, json_response: bool = True, progress: bool = False):
    """A fresh ASGI app serving `add` at /mcp (JSON responses unless told otherwise); with
    ``progress``, also `add_with_progress`, which reports progress before its result."""
    server = MCPServer("sdk-add-server", version="1.0.0")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Return the sum of two numbers."""
        return a + b

    if progress:
        server.add_tool(add_with_progress)
    return server.streamable_http_app(stateless_http=stateless, json_response=json_response)


async def add_with_progress(a: float, b: float, ctx: Context) -> float:
    """Return the sum of two numbers after one progress notification."""
    await ctx.report_progress(1, 1)
    return a + b


def app():
    """Factory for `uvicorn --factory tests.peers.sdk_http_app:app`."""
    return build()


def app_sse():
    """The same server answering every POST with an event stream (progress travels on it)."""
    return build(json_response=False, progress=True)
