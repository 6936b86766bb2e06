"""Exercise C.1's weather server: the two tools, the graded requests, and the key.

The learner writes the docstrings of ``get_weather`` (the weather now) and
``get_weather_history`` (past days) and the ``.mcp.json`` entry that registers the server.
:func:`weather_server` turns an answer's docstrings into a real :class:`~mcpmini.mcp.Server`'s
tool descriptions (``docstring_parts``, as the decorator does, cut as Claude Code sends them);
:func:`listed_tools` lists them over an in-memory :class:`~mcpmini.mcp.Client`; :func:`ask`
sends one request through the agent loop. :data:`C1_REQUESTS` are the graded requests (the
article's two first, then near-misses), :data:`C1_POOL` the unseen ones of "more practice".
Reading an answer never runs learner code: a value that is not a docstring is an
:class:`Unreadable` whose ``text`` says what to write instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...agent import AgentOptions, RouterModel, run
from ...config.inventory import sent_description
from ...mcp import Client, Server, docstring_parts, memory_pair
from ..language import Text

__all__ = [
    "C1_KEY",
    "C1_POOL",
    "C1_REQUESTS",
    "CURRENT",
    "HISTORY",
    "KEY_VARIABLE",
    "OTHER",
    "PARAMETERS",
    "PURPOSE",
    "SERVER",
    "TOOLS",
    "Unreadable",
    "ask",
    "blank",
    "description",
    "listed_tools",
    "weather_server",
]

CURRENT, HISTORY = "get_weather", "get_weather_history"
TOOLS = (CURRENT, HISTORY)
#: The inputs each tool takes (its function signature); a description names each one.
PARAMETERS: dict[str, tuple[str, ...]] = {CURRENT: ("city",), HISTORY: ("city", "date")}
SERVER, KEY_VARIABLE = "weather", "WEATHER_API_KEY"
OTHER = {CURRENT: HISTORY, HISTORY: CURRENT}
#: What a request for each tool asks for.
PURPOSE: dict[str, Text] = {
    CURRENT: Text("いまの天気", "the weather now"),
    HISTORY: Text("過去の天気", "past weather"),
}

#: The graded requests: the article's two checks first, then near-misses (a request that
#: shares a word with the wrong tool, or uses the other tool's kind of time word).
C1_REQUESTS: tuple[tuple[str, str], ...] = (
    ("what is the weather in Tokyo now", CURRENT),
    ("what was the weather in Tokyo yesterday", HISTORY),
    ("is it snowing in Sapporo right now", CURRENT),
    ("current temperature in Naha", CURRENT),
    ("how windy is it in Kobe at the moment", CURRENT),
    ("what is the weather like in Osaka today", CURRENT),
    ("what was the temperature in Nagoya yesterday", HISTORY),
    ("how much snow fell in Sapporo last week", HISTORY),
    ("was it windy in Fukuoka two days ago", HISTORY),
    ("show the weather of the past 7 days in Sendai", HISTORY),
)

#: Requests for "more practice": never graded in the main exercise.
C1_POOL: tuple[tuple[str, str], ...] = (
    ("weather in Kyoto now", CURRENT),
    ("is it sunny in Hiroshima right now", CURRENT),
    ("current weather in Yokohama", CURRENT),
    ("what is the temperature in Kobe today", CURRENT),
    ("how cold is it in Sapporo at the moment", CURRENT),
    ("is it raining in Osaka now", CURRENT),
    ("wind in Naha right now", CURRENT),
    ("today's weather in Fukuoka", CURRENT),
    ("weather in Kyoto yesterday", HISTORY),
    ("was it sunny in Hiroshima last week", HISTORY),
    ("the temperature in Yokohama three days ago", HISTORY),
    ("how much rain fell in Osaka yesterday", HISTORY),
    ("weather of the past days in Kobe", HISTORY),
    ("was it cold in Sendai last week", HISTORY),
    ("snow in Sapporo on a past date", HISTORY),
    ("wind in Naha two days ago", HISTORY),
)

_CURRENT_DOC = """\
Current weather for one city right now: condition (sunny, rain, snow), temperature and wind.
Input: city, the city name in English or Japanese (Tokyo, 大阪).
Use for now, today, current or at the moment.
Not for past days (yesterday, last week, days ago, a past date): use get_weather_history.
"""
_HISTORY_DOC = """\
Weather of past days for one city: condition (sunny, rain, snow), temperature and wind.
Input: city (Tokyo, 大阪) and date, a past day as YYYY-MM-DD.
Use for yesterday, last week, days ago or a past date.
Not for the current weather (now, today, at the moment): use get_weather.
"""
#: A full-mark answer (the solution notebook writes the same by hand).
C1_KEY: dict[str, Any] = {
    CURRENT: _CURRENT_DOC,
    HISTORY: _HISTORY_DOC,
    "mcp_json": {
        "mcpServers": {
            SERVER: {
                "command": "python",
                "args": ["servers/weather.py"],
                "env": {KEY_VARIABLE: "${" + KEY_VARIABLE + "}"},
            }
        }
    },
}


class Unreadable(ValueError):
    """A value that is not a description; ``text`` says what to write instead."""

    def __init__(self, text: Text) -> None:
        self.text = text
        super().__init__(text.en)


def blank(value: Any) -> bool:
    """Whether ``value`` is not attempted: ``None``, ``...`` or an empty string."""
    return value is None or value is Ellipsis or (isinstance(value, str) and not value.strip())


def description(answer: Any, tool: str) -> str | None:
    """The description ``answer`` gives ``tool``: ``None`` when blank. Raises
    :class:`Unreadable` for a value that is not a string."""
    value = answer.get(tool) if isinstance(answer, Mapping) else None
    if blank(value):
        return None
    if isinstance(value, str):
        return value
    if callable(value) or (isinstance(value, Mapping) and "__unreadable__" in value):
        raise Unreadable(
            Text(
                f"関数そのものではなく、その docstring（{tool}.__doc__）を入れてください。",
                f"Put in the function's docstring ({tool}.__doc__), not the function itself.",
            )
        )
    kind = type(value).__name__
    raise Unreadable(
        Text(
            f"{tool} の説明文は文字列で書いてください（いまは {kind}）。",
            f"Write the description of {tool} as a string (it is a {kind} now).",
        )
    )


def _weather_now(city: str) -> str:
    return f"{city}: sunny, 28 C"


def _weather_past(city: str, date: str) -> str:
    return f"{city} on {date}: rain, 24 C"


def weather_server(answer: Mapping[str, Any]) -> Server:
    """A weather server whose two tools carry ``answer``'s docstrings as their descriptions
    (cut as Claude Code sends them). Raises :class:`Unreadable` when a value is not a
    string."""
    server = Server(SERVER)
    for tool, fn in ((CURRENT, _weather_now), (HISTORY, _weather_past)):
        text = description(answer, tool) or ""
        server.add_tool(fn, tool, sent_description(docstring_parts(text)[0]))
    return server


def ask(answer: Mapping[str, Any], request: str) -> tuple[str | None, str]:
    """Send ``request`` through the agent loop to the server built on ``answer``: the offline
    :class:`~mcpmini.agent.RouterModel` picks a tool from the listed descriptions, the loop
    calls it over MCP. Returns ``(tool called or None, the final text)``."""
    names = {f"mcp__{SERVER}__{t}": t for t in TOOLS}
    model = RouterModel(
        {f"mcp__{SERVER}__{CURRENT}": {"city": "Tokyo"}},
        default_input={"city": "Tokyo", "date": "2026-08-01"},
    )
    options = AgentOptions(
        mcp_servers={SERVER: weather_server(answer)}, allowed_tools=[f"mcp__{SERVER}"]
    )
    result = run(request, model, options)
    called = [
        b["name"]
        for m in result.messages
        if m["role"] == "assistant"
        for b in m["content"]
        if b.get("type") == "tool_use"
    ]
    return (names.get(called[0], called[0]) if called else None), result.final_text


def listed_tools(answer: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tool definitions a client lists from a server built on ``answer``'s docstrings.

    Each docstring becomes its tool's description as the ``@server.tool()`` decorator makes
    it (``docstring_parts``), the list is read with ``tools/list`` over an in-memory client,
    and each description is cut as Claude Code sends it. A blank docstring gives an empty
    description. Raises :class:`Unreadable` when a value is not a string.
    """
    with Client(memory_pair(weather_server(answer)), timeout=5) as client:
        client.connect()
        listed = {t["name"]: t for t in client.list_tools()}
    # the article lists get_weather first; a tie goes to the tool listed first
    return [listed[CURRENT], listed[HISTORY]]
