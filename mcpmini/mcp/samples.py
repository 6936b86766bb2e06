"""Example servers used by the course and the ``mcpmini serve NAME`` command.

* ``add``: the article's one-tool server (the sum of two numbers).
* ``conformance``: the fixtures of the official conformance suite (:mod:`.conformance`).
* ``weather``: current weather and history for a few cities, with deliberately clear,
  non-overlapping descriptions (the CCA-F track contrasts them with vague ones). The
  data is generated deterministically, so it works offline and the course output is
  stable.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from .conformance import conformance_server
from .server import Server

__all__ = [
    "CITIES",
    "SAMPLES",
    "add_server",
    "weather_server",
]

CITIES = ("Tokyo", "Osaka", "Sapporo", "Fukuoka", "Naha")
_CONDITIONS = ("sunny", "cloudy", "rain", "snow", "windy")


def add_server() -> Server:
    """A server with the single tool ``add(a, b)``."""
    server = Server("add-server", "0.1.0")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Return the sum of two numbers.

        Args:
            a: the first number
            b: the second number
        """
        return a + b

    return server


def _reading(city: str, day: int) -> dict[str, object]:
    digest = hashlib.sha256(f"{city}:{day}".encode()).digest()
    return {"city": city, "day": day, "temperature_c": round(-5 + digest[0] / 255 * 35, 1),
            "condition": _CONDITIONS[digest[1] % len(_CONDITIONS)]}


def weather_server() -> Server:
    """A server with ``get_current_weather`` and ``get_weather_history``."""
    server = Server("weather-server", "0.1.0",
                    instructions="Weather for Japanese cities. Use get_current_weather for now, "
                                 "get_weather_history for past days.")

    def check_city(city: str) -> None:
        if city not in CITIES:
            raise ValueError(f"unknown city {city!r}; known cities: {', '.join(CITIES)}")

    @server.tool()
    def get_current_weather(city: str) -> dict[str, object]:
        """Current temperature (°C) and sky condition for one city. Use for 'now' or 'today'.

        Args:
            city: one of Tokyo, Osaka, Sapporo, Fukuoka, Naha
        """
        check_city(city)
        return _reading(city, 0)

    @server.tool()
    def get_weather_history(city: str, days: int = 3) -> list[dict[str, object]]:
        """Daily readings for the past `days` days (1–30) for one city. Use for past weather.

        Args:
            city: one of Tokyo, Osaka, Sapporo, Fukuoka, Naha
            days: how many past days, 1 to 30
        """
        check_city(city)
        if not 1 <= days <= 30:
            raise ValueError("days must be between 1 and 30")
        return [_reading(city, -d) for d in range(1, days + 1)]

    return server


#: name → factory, for ``mcpmini serve NAME``.
SAMPLES: dict[str, Callable[[], Server]] = {"add": add_server, "weather": weather_server,
                                            "conformance": conformance_server}
