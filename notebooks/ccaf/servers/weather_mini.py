"""The same weather server written with mcpmini (the course's runtime), for side-by-side runs.

Run: ``python weather_mini.py`` (stdio). mcpmini turns an exception raised by a tool into
an ``isError`` result whose text is the exception's message.
"""

from mcpmini.mcp import Server, serve_stdio

server = Server("weather-mini", "1.0.0")

CITIES = {"Tokyo": "sunny, 28 °C", "Osaka": "cloudy, 26 °C", "Sapporo": "rain, 19 °C"}


@server.tool()
def get_weather(city: str) -> str:
    """Current weather (sky and temperature) for one Japanese city, e.g. Tokyo or Osaka.

    Use for questions about now or today. Not for past days: use get_weather_history.
    """
    if city not in CITIES:
        raise ValueError(f"unknown city {city!r}; known: {', '.join(CITIES)}")
    return f"{city}: {CITIES[city]}"


@server.tool()
def search_alerts(city: str) -> list[str]:
    """Active weather alerts for one city; an empty list means there are none."""
    return ["heavy rain warning"] if city == "Sapporo" else []


if __name__ == "__main__":
    serve_stdio(server)
