"""An `add` server written with the official MCP SDK (for interop tests and notebook 05)."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("sdk-add-server", version="1.0.0")


@server.tool()
def add(a: float, b: float) -> float:
    """Return the sum of two numbers."""
    return a + b


if __name__ == "__main__":
    server.run("stdio")
