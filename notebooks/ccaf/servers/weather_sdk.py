"""The track's minimal weather server, written with the official MCP Python SDK (mcp 2.x).

In mcp 1.x the same class was ``FastMCP`` (``from mcp.server.fastmcp import FastMCP``);
2.x names it ``MCPServer``. The docstring of each tool becomes the description the model
reads. Failures come back as results with ``isError`` set and the track's convention
(``errorCategory``, ``isRetryable``, ``message``) inside the content.
Run: ``python weather_sdk.py`` (stdio).
"""

import json

from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent

server = MCPServer("weather-sdk", version="1.0.0")

CITIES = {"Tokyo": "sunny, 28 °C", "Osaka": "cloudy, 26 °C", "Sapporo": "rain, 19 °C"}
DOWN = {"Naha"}  # the upstream service for these cities times out (an injected fault)


def failure(category: str, message: str) -> CallToolResult:
    body = {"errorCategory": category, "isRetryable": category == "transient",
            "message": message}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(body))],
                          structured_content=body, is_error=True)


@server.tool()
def get_weather(city: str) -> CallToolResult:
    """Current weather (sky and temperature) for one Japanese city, e.g. Tokyo or Osaka.

    Use for questions about now or today. Not for past days: use get_weather_history.
    """
    if city in DOWN:
        return failure("transient", f"the weather service for {city} did not answer; retry later")
    if city not in CITIES:
        return failure("validation", f"unknown city {city!r}; known: {', '.join(CITIES)}")
    return CallToolResult(content=[TextContent(type="text", text=f"{city}: {CITIES[city]}")])


@server.tool()
def search_alerts(city: str) -> list[str]:
    """Active weather alerts for one city; an empty list means there are none."""
    return ["heavy rain warning"] if city == "Sapporo" else []


if __name__ == "__main__":
    server.run("stdio")
