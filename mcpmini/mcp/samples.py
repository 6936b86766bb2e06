"""Example servers used by the course and the ``mcpmini serve NAME`` command.

* ``add``: the article's one-tool server (the sum of two numbers).
* ``conformance``: the fixtures of the official conformance suite (:mod:`.conformance`).
* ``weather``: current weather and history for a few cities, with deliberately clear,
  non-overlapping descriptions (the CCA-F track contrasts them with vague ones). The
  data is generated deterministically, so it works offline and the course output is
  stable, and coherently: each city's readings lie around its mean temperature, and
  precipitation is snow exactly at or below ``SNOW_AT_C``.
* ``orders``: order lookup for two users (the practice track's identity example). Every
  call names the acting user in ``userId``; the server refuses an order that belongs to
  someone else, so whoever fills in ``userId`` decides what can be read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from .conformance import conformance_server
from .server import Server

__all__ = [
    "CITIES",
    "ORDERS",
    "SAMPLES",
    "add_server",
    "orders_server",
    "weather_server",
]

CITIES = ("Tokyo", "Osaka", "Sapporo", "Fukuoka", "Naha")
#: Each city's yearly mean temperature (°C, rounded): a reading varies around it.
_MEAN_C = {"Tokyo": 16.0, "Osaka": 17.0, "Sapporo": 9.0, "Fukuoka": 17.5, "Naha": 23.5}
#: How far a day's reading may lie from the city's mean, either way (°C).
_SPREAD_C = 9.0
_CONDITIONS = ("sunny", "cloudy", "rain", "windy")
#: Precipitation at or below this temperature falls as snow (and only there).
SNOW_AT_C = 1.0


def add_server() -> Server:
    """A server with the single tool ``add(a, b)``."""
    server = Server("add-server", "0.1.0")

    @server.tool(inline=True)  # pure arithmetic: an HTTP server may run it on its event loop
    def add(a: float, b: float) -> float:
        """Return the sum of two numbers.

        Args:
            a: the first number
            b: the second number
        """
        return a + b

    return server


def _reading(city: str, day: int) -> dict[str, object]:
    # Deterministic but coherent: the temperature lies around the city's mean, and rain on a
    # day at or below SNOW_AT_C is snow (no snow at 23 °C, no rain at -4 °C).
    digest = hashlib.sha256(f"{city}:{day}".encode()).digest()
    temperature = round(_MEAN_C[city] + (digest[0] / 255 * 2 - 1) * _SPREAD_C, 1)
    condition = _CONDITIONS[digest[1] % len(_CONDITIONS)]
    if condition == "rain" and temperature <= SNOW_AT_C:
        condition = "snow"
    return {"city": city, "day": day, "temperature_c": temperature, "condition": condition}


def weather_server() -> Server:
    """A server with ``get_current_weather`` and ``get_weather_history``."""
    server = Server(
        "weather-server",
        "0.1.0",
        instructions="Weather for Japanese cities. Use get_current_weather for now, "
        "get_weather_history for past days.",
    )

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


#: The order book of :func:`orders_server`: two users, three orders each.
ORDERS: tuple[dict[str, object], ...] = (
    {"id": "A-1001", "userId": "alice", "items": ["keyboard"], "total": 12800, "status": "shipped"},
    {"id": "A-1002", "userId": "alice", "items": ["mouse", "pad"], "total": 4300, "status": "paid"},
    {
        "id": "A-1003",
        "userId": "alice",
        "items": ["monitor"],
        "total": 39800,
        "status": "delivered",
    },
    {"id": "B-2001", "userId": "bob", "items": ["passport cover"], "total": 2500, "status": "paid"},
    {"id": "B-2002", "userId": "bob", "items": ["suitcase"], "total": 21000, "status": "shipped"},
    {"id": "B-2003", "userId": "bob", "items": ["adapter"], "total": 1800, "status": "cancelled"},
)


def orders_server() -> Server:
    """A server with ``query_order(orderId, userId)`` and ``list_recent_orders(userId, limit)``.

    Both tools check ownership with the ``userId`` they are given: the server trusts
    that field, so the host must fill it from the signed-in user, never from the model.
    """
    server = Server(
        "orders-server",
        "0.1.0",
        instructions="Order lookup. userId is set by the host from the signed-in user.",
    )
    book = {str(o["id"]): o for o in ORDERS}

    @server.tool()
    def query_order(orderId: str, userId: str) -> dict[str, object]:
        """Details of one order of the signed-in user. Use only when the user asks about a
        specific order id; not for browsing. Returns JSON with id, items, total (yen), status.

        Args:
            orderId: the order id, e.g. A-1001
            userId: the signed-in user (filled in by the host)
        """
        order = book.get(orderId)
        if order is None:
            raise ValueError(f"no order {orderId!r}")
        if order["userId"] != userId:
            raise PermissionError(f"order {orderId} belongs to another user")
        return dict(order)

    @server.tool()
    def list_recent_orders(userId: str, limit: int = 10) -> list[dict[str, object]]:
        """The signed-in user's most recent orders, newest first. Use when the user asks what
        they ordered; returns a JSON list of orders (id, items, total, status).

        Args:
            userId: the signed-in user (filled in by the host)
            limit: how many orders at most, 1 to 10
        """
        if not 1 <= limit <= 10:
            raise ValueError("limit must be between 1 and 10")
        mine = [dict(o) for o in ORDERS if o["userId"] == userId]
        return mine[::-1][:limit]

    return server


#: name → factory, for ``mcpmini serve NAME``.
SAMPLES: dict[str, Callable[[], Server]] = {
    "add": add_server,
    "weather": weather_server,
    "conformance": conformance_server,
    "orders": orders_server,
}
