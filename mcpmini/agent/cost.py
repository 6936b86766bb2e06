"""Context-cost formulas and measurements (Propositions 3.8 and 5.2), and token estimates.

The course never calls a real tokenizer (it runs offline), so :func:`estimate_tokens`
is a documented heuristic: about four characters per token for ASCII text and one
token per character for everything else (Japanese text tokenizes far more densely).

Proposition 3.8 compares two ways of putting N tool definitions in the context:
all up front (sum of the definition sizes) and deferred (every name, plus the
definitions of the tools actually used). :func:`upfront_cost`, :func:`deferred_cost`
and :func:`break_even` are the formulas; :func:`measure_tool_layer` measures the same
thing on a real :class:`mcpmini.mcp.Server` through a real ``tools/list``.
:func:`cache_hits` simulates prompt-cache breakpoints over a sequence of requests
(part 4: appending keeps earlier breakpoints, changing an early layer loses every
later one). :func:`reattach_bound` and :func:`listing_bound` are Proposition 5.2.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "REATTACH_PER_SKILL",
    "REATTACH_TOTAL",
    "Costs",
    "ToolLayerSize",
    "break_even",
    "cache_hits",
    "cut_to_tokens",
    "defer_tools",
    "deferred_cost",
    "estimate_tokens",
    "json_tokens",
    "listing_bound",
    "max_deferred_uses",
    "measure_tool_layer",
    "reattach_bound",
    "uniform_costs",
    "upfront_cost",
]

#: Proposition 5.2's published limits (tokens): per re-attached skill and in total.
REATTACH_PER_SKILL = 5_000
REATTACH_TOTAL = 25_000


def estimate_tokens(text: str) -> int:
    """Estimate the number of tokens in ``text``.

    ASCII characters count 1/4 token each (rounded up over the whole text), every
    other character counts one token. Returns 0 for the empty string.
    """
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    other = len(text) - ascii_chars
    return -(-ascii_chars // 4) + other


def cut_to_tokens(text: str, limit: int) -> str:
    """The longest prefix of ``text`` whose :func:`estimate_tokens` is at most ``limit``.

    Returns ``text`` itself when it fits. The estimate only grows as a prefix grows, so a
    binary search over the length finds the cut.
    """
    if estimate_tokens(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if estimate_tokens(text[:mid]) <= limit else (lo, mid - 1)
    return text[:lo]


def json_tokens(value: Any) -> int:
    """:func:`estimate_tokens` of ``value`` serialised compactly as JSON (UTF-8 kept)."""
    return estimate_tokens(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def upfront_cost(definition_sizes: Sequence[int]) -> int:
    """Prop. 3.8 (1): every definition in the context, ``sum d_i``."""
    return sum(definition_sizes)


def deferred_cost(
    name_sizes: Sequence[int], definition_sizes: Sequence[int], used: Iterable[int]
) -> int:
    """Prop. 3.8 (2): every name plus the definitions of the used tools (indices).

    Raises ``ValueError`` when the two size lists differ in length or an index is
    out of range.
    """
    if len(name_sizes) != len(definition_sizes):
        raise ValueError("name_sizes and definition_sizes must have the same length")
    used_set = set(used)
    if any(not 0 <= i < len(definition_sizes) for i in used_set):
        raise ValueError("a used tool index is out of range")
    return sum(name_sizes) + sum(definition_sizes[i] for i in used_set)


@dataclass(frozen=True)
class Costs:
    """Prop. 3.8 with uniform sizes: both costs, their difference and the break-even point."""

    n: int
    u: int
    d: float
    m: float
    upfront: float
    deferred: float
    difference: float
    break_even: float


def break_even(n: int, d: float, m: float) -> float:
    """u* = N (d - m) / d: deferred loading is smaller exactly when u < u*.

    Raises ``ValueError`` unless ``0 <= m <= d`` and ``d > 0``.
    """
    if not (d > 0 and 0 <= m <= d):
        raise ValueError("need d > 0 and 0 <= m <= d")
    return n * (d - m) / d


def max_deferred_uses(n: int, d: float, m: float) -> int:
    """The largest whole number of used tools for which deferring is still smaller."""
    return math.ceil(break_even(n, d, m)) - 1


def uniform_costs(n: int, u: int, d: float, m: float) -> Costs:
    """Prop. 3.8 (3) for N tools of definition size d and name size m, u of them used.

    Raises ``ValueError`` for u outside 0..N or sizes violating ``0 <= m <= d``.
    """
    if not 0 <= u <= n:
        raise ValueError("u must lie between 0 and N")
    up = upfront_cost([d] * n)  # type: ignore[list-item]
    de = deferred_cost([m] * n, [d] * n, range(u))  # type: ignore[list-item]
    return Costs(n, u, d, m, up, de, up - de, break_even(n, d, m))


@dataclass(frozen=True)
class ToolLayerSize:
    """Measured sizes (estimated tokens) of N real tool definitions."""

    n: int
    definitions: int  # the ``tools`` array of a real tools/list result
    names: int  # the names alone, as a deferred listing sends them

    @property
    def per_definition(self) -> float:
        """Average definition size d (0 when N = 0)."""
        return self.definitions / self.n if self.n else 0.0

    @property
    def per_name(self) -> float:
        """Average name size m (0 when N = 0)."""
        return self.names / self.n if self.n else 0.0


_TOPICS = (
    "invoice",
    "ticket",
    "calendar",
    "weather",
    "repository",
    "customer",
    "shipment",
    "payment",
    "report",
    "sensor",
)


def measure_tool_layer(n: int) -> ToolLayerSize:
    """Register ``n`` generated tools on a real Server and measure one ``tools/list``.

    The tools differ in name, description and schema (ten topics, four verbs). The
    reply is a real JSON-RPC line from :meth:`Server.handle_line` on a 2026-07-28
    request; ``definitions`` is the token estimate of its ``tools`` array, ``names``
    that of the names alone. Raises ``ValueError`` for negative ``n``.
    """
    from ..mcp import (  # local: the cost formulas need no server
        MODERN,
        Method,
        Server,
    )
    from ..mcp.envelope import envelope

    if n < 0:
        raise ValueError("n must be >= 0")
    server = Server("generated")
    verbs = ("get", "list", "create", "delete")
    for i in range(n):
        topic, verb = _TOPICS[i % len(_TOPICS)], verbs[(i // len(_TOPICS)) % len(verbs)]

        def fn(id: str, limit: int = 10) -> str:
            return id

        server.add_tool(
            fn,
            name=f"{verb}_{topic}_{i}",
            description=f"{verb.capitalize()} {topic} records by id. Returns JSON with the "
            f"{topic} fields; use limit to bound how many come back.",
        )
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": Method.TOOLS_LIST.value,
        "params": envelope(None, MODERN, {}),
    }
    line = server.handle_line(json.dumps(request))
    reply = json.loads(line or b"{}")
    tools = reply["result"]["tools"]
    return ToolLayerSize(
        n, json_tokens(tools) if n else 0, json_tokens([t["name"] for t in tools]) if n else 0
    )


def defer_tools(setting: str | None, definition_tokens: int, context_window: int = 200_000) -> bool:
    """Whether ``ENABLE_TOOL_SEARCH`` = ``setting`` defers MCP tool definitions.

    Unset (``None`` or ``""``) and ``"true"`` defer, ``"false"`` loads everything up
    front, ``"auto"`` / ``"auto:N"`` defer once the definitions reach N % (default 10)
    of ``context_window`` tokens. Raises ``ValueError`` for any other value.
    """
    value = (setting or "true").strip().lower()
    if value in ("true", "false"):
        return value == "true"
    if value == "auto" or value.startswith("auto:"):
        percent = value.partition(":")[2] or "10"
        if not percent.isdigit() or not 0 <= int(percent) <= 100:
            raise ValueError(f"ENABLE_TOOL_SEARCH={setting!r}: N in auto:N must be 0..100")
        return definition_tokens * 100 >= int(percent) * context_window
    raise ValueError(f"ENABLE_TOOL_SEARCH={setting!r}: expected true, false, auto or auto:N")


def cache_hits(requests: Sequence[Sequence[str]]) -> list[list[bool]]:
    """Simulate prompt-cache breakpoints over successive requests.

    Each request is a list of segments in prompt order (tools, system, then each
    message); a breakpoint sits at the end of every segment. A breakpoint *hits*
    when exactly the same prefix ended at a breakpoint of an earlier request.
    Returns, per request, one bool per breakpoint.
    """
    seen: set[str] = set()
    out: list[list[bool]] = []
    for segments in requests:
        digest = hashlib.sha256()
        keys: list[str] = []
        for seg in segments:
            digest.update(hashlib.sha256(seg.encode("utf-8")).digest())
            keys.append(digest.hexdigest())
        out.append([k in seen for k in keys])
        seen.update(keys)
    return out


def listing_bound(n: int, ell: int) -> int:
    """Prop. 5.2 (1): an upper bound n * ell on the skill listing, whatever the bodies."""
    return n * ell


def reattach_bound(k: int, a: int = REATTACH_PER_SKILL, total: int = REATTACH_TOTAL) -> int:
    """Prop. 5.2 (2): at most min(k * a, A) tokens are re-attached after compaction."""
    return min(k * a, total)
