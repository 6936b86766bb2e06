"""Helpers for the practice track (``notebooks/practice/``): the tables its notebooks print,
the permission-layer lines and grant toggle, a labelled latency simulation, timing, and the
context-growth figure.

A notebook's code cell computes with the runtime and hands what it got to a function here,
which returns a table (a ``pandas.DataFrame``) whose column names and words come from
:data:`~.words.WORDS` in the learner's language; :func:`show` prints it aligned. So the code
cells are the same in both editions and every word a learner reads comes from one table.
Each widget is backed by a plain function of this module (tested in ``tests/``), which a
notebook also prints so a headless run shows the same thing.

:class:`SimulatedLatency` is **not** a network: it wraps a real transport and sleeps a fixed
round-trip time per exchange, to show what a remote server's latency does to a turn; it is
labelled as a simulation wherever it is used.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...agent import AccessPolicy, check_layers, truncate_result
from ...agent.registry import MCP_MAX_TOKENS
from ..language import Text
from ..plots import figure
from .exercises import P4_HOST_BUDGET, P4_PAGE_LINES, P4_RESULT_LINES, loop_context
from .words import WORDS, line, yes_no

__all__ = [
    "PLACEMENTS",
    "SEED_LOCAL_MS",
    "SEED_REMOTE_MS",
    "STRATEGIES",
    "SimulatedLatency",
    "Strategy",
    "context_series",
    "context_table",
    "fate_table",
    "gate_table",
    "grant_toggler",
    "inventory_summary",
    "inventory_table",
    "layer_lines",
    "layer_rows",
    "nesting_table",
    "overhead_table",
    "plot_context_growth",
    "probe_table",
    "results_table",
    "show",
    "table_lines",
    "time_calls",
    "timing_table",
    "turn_table",
]

#: The reference article's average tool-call latencies (its table of production figures):
#: local and remote, in milliseconds. What they include is not said (see practice/05).
SEED_LOCAL_MS = 120
SEED_REMOTE_MS = 800

#: Where practice/05 places the weather server: key → label (``{rtt_ms}`` is the simulated
#: round trip of the far-away server).
PLACEMENTS: dict[str, Text] = {
    "memory": WORDS["in_process"],
    "stdio": WORDS["stdio_child"],
    "http": WORDS["http_loopback"],
    "remote": WORDS["simulated_remote"],
    "plain": WORDS["plain_function"],
}


#: A cell that reads as a number (``64,070``, ``0.94``, ``-3``) is aligned to the right.
_NUMBER = re.compile(r"^-?[\d,]+(?:\.\d+)?$")


def _width(text: str) -> int:
    from unicodedata import east_asian_width

    return sum(2 if east_asian_width(ch) in "WF" else 1 for ch in text)


def table_lines(table: Any) -> list[str]:
    """``table`` (a ``DataFrame``) as aligned text lines, header first: a column of numbers
    (written as digits, commas and a point) to the right, any other to the left, widths
    counted as a terminal shows them (a Japanese character takes two columns)."""
    header = [str(c) for c in table.columns]
    body = [[str(v) for v in row] for row in table.itertuples(index=False)]
    numeric = [all(_NUMBER.match(r[i]) for r in body) for i in range(len(header))]
    widths = [max(_width(r[i]) for r in [header, *body]) for i in range(len(header))]

    def cell(text: str, i: int) -> str:
        gap = " " * (widths[i] - _width(text))
        return gap + text if numeric[i] else text + gap

    return ["  ".join(cell(t, i) for i, t in enumerate(r)).rstrip() for r in [header, *body]]


def show(table: Any) -> None:
    """Print ``table`` (a ``DataFrame``) as :func:`table_lines` does."""
    print("\n".join(table_lines(table)))


def _frame(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> Any:
    import pandas as pd

    return pd.DataFrame(list(rows), columns=list(columns))


# --- 01: the inventory --------------------------------------------------------------------


def inventory_table(inventory: Any) -> Any:
    """Per tool of a :class:`~mcpmini.config.Inventory`: its exposed name, the tokens of its
    definition, and whether Claude Code cuts its description."""
    cols = [
        str(WORDS["exposed_name"]),
        str(WORDS["definition_tokens"]),
        str(WORDS["description_cut"]),
    ]
    rows = [
        dict(zip(cols, (t.name, t.definition_tokens, yes_no(t.description_cut)), strict=True))
        for t in inventory.tools
    ]
    return _frame(rows, cols)


def inventory_summary(inventory: Any) -> str:
    """The context cost of an inventory's whole tool layer in one line: every definition up
    front, the names only (deferred loading), and Proposition 3.8's break-even u*."""
    u = inventory.break_even
    return line(
        "inventory_summary",
        upfront=inventory.upfront_tokens,
        deferred=inventory.deferred_tokens,
        u="-" if u is None else f"{u:.1f}",
        n=len(inventory.tools),
    )


# --- 02: the permission layers ------------------------------------------------------------


def layer_rows(
    tools: Iterable[str], policy: AccessPolicy, plan: str, grants: Iterable[str] = ()
) -> list[tuple[str, str, str, bool]]:
    """Per tool: ``(tool, plan layer, session layer, visible)``, each layer ``"pass"``,
    ``"hides"`` or ``"-"`` (not reached). Raises ``KeyError`` for an unknown plan."""
    granted = set(grants)
    rows = []
    for tool in tools:
        v = check_layers(tool, policy, plan, granted)
        plan_cell = "hides" if v.layer is not None and v.layer.value == "plan" else "pass"
        session_cell = (
            "-"
            if plan_cell == "hides"
            else "hides"
            if v.layer is not None and v.layer.value == "session"
            else "pass"
        )
        rows.append((tool, plan_cell, session_cell, v.visible))
    return rows


def _cell(value: str) -> str:
    return value if value == "-" else str(WORDS[value])


def layer_lines(
    tools: Iterable[str], policy: AccessPolicy, plan: str, grants: Iterable[str] = ()
) -> list[str]:
    """:func:`layer_rows` as aligned text lines in the learner's language, with a header."""
    cols = [str(WORDS[k]) for k in ("tool", "plan_layer", "session_layer", "visible")]
    rows = [
        dict(zip(cols, (t, _cell(p), _cell(s), yes_no(v)), strict=True))
        for t, p, s, v in layer_rows(tools, policy, plan, grants)
    ]
    return table_lines(_frame(rows, cols))


def grant_toggler(
    tools: Sequence[str], policy: AccessPolicy, plan: str = "free", grants: Iterable[str] = ()
) -> Any:
    """A plan selector and one checkbox per tool that needs a grant, showing
    :func:`layer_lines` live. Returns the ipywidgets box."""
    import ipywidgets as widgets

    from ..report import live_html

    choose = widgets.Dropdown(
        options=list(policy.plans), value=plan, description=str(WORDS["plan"])
    )
    boxes = {
        t: widgets.Checkbox(value=t in set(grants), description=t, indent=False)
        for t in tools
        if t in policy.needs_grant
    }
    text = widgets.HTML()

    def refresh(_: Any = None) -> None:
        chosen = [t for t, b in boxes.items() if b.value]
        text.value = live_html("\n".join(layer_lines(tools, policy, choose.value, chosen)))

    for w in (choose, *boxes.values()):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox([choose, *boxes.values(), text])


#: What the product's host did with a call (the first layer that stopped it, or ``runs``).
_PRODUCT = {
    "plan": "hidden_by_plan",
    "session": "hidden_by_session",
    "user": "refused_by_user",
    "runs": "runs",
}


def gate_table(rows: Iterable[tuple[str, str, Mapping[str, str]]]) -> Any:
    """One row per call: its exposed name, what the product's host did (``plan`` /
    ``session``: that layer hid it; ``user``: the server refused it; ``runs``), and Claude
    Code's final decision per permission mode (``{mode: decision}``).
    Raises ``KeyError`` for another product verdict."""
    rows = list(rows)
    modes = list(dict.fromkeys(m for _, _, by_mode in rows for m in by_mode))
    cols = [str(WORDS["call"]), str(WORDS["product_host"]), *(f"Claude Code ({m})" for m in modes)]
    out = [
        dict(
            zip(
                cols,
                (name, str(WORDS[_PRODUCT[product]]), *(by_mode.get(m, "-") for m in modes)),
                strict=True,
            )
        )
        for name, product, by_mode in rows
    ]
    return _frame(out, cols)


# --- 03: the sandbox ----------------------------------------------------------------------


def probe_table(rows: Iterable[tuple[str, str, str]]) -> Any:
    """One row per probe of the sandbox: ``(key, outcome kind, last line)``; a key with a
    ``probe_<key>`` row in :data:`~.words.WORDS` shows that label, any other key itself."""
    cols = [str(WORDS[k]) for k in ("probe", "outcome", "last_line")]
    out = [
        dict(zip(cols, (str(WORDS.get(f"probe_{key}", key)), kind, last), strict=True))
        for key, kind, last in rows
    ]
    return _frame(out, cols)


def results_table(results: Iterable[Any]) -> Any:
    """One row per :class:`~mcpmini.agent.SandboxResult`: how it ended and its exit code."""
    cols = [str(WORDS["outcome"]), str(WORDS["exit_code"])]
    out = [
        dict(zip(cols, (r.outcome.value, "-" if r.exit_code is None else r.exit_code), strict=True))
        for r in results
    ]
    return _frame(out, cols)


# --- 04: big results ----------------------------------------------------------------------


def fate_table(
    rows: Iterable[Mapping[str, Any]], version: str, budget: int, store: str | Path
) -> Any:
    """Per result size, as :func:`~mcpmini.course.chapters.large_result_rows` gives the rows
    (their values in order: the result's characters, mcpmini's ``result_fate``, what Claude
    Code ``version`` did, the characters it showed the model): those four, and the tokens the
    course host keeps of a result that long with ``budget`` (its full text written to
    ``store``). Rows are read by position, so their column names may be in any language."""
    cols = [
        str(WORDS["result_chars"]),
        str(WORDS["fate_mcpmini"]),
        WORDS["fate_claude_code"].lang().format(version=version),
        str(WORDS["shown_chars"]),
        WORDS["host_keeps"].lang().format(budget=budget),
    ]
    out = []
    for row in rows:
        chars, mine, theirs, shown = list(row.values())[:4]
        # the same text the recording measured: lines of 99 "x" and a line break
        text = (("x" * 99 + "\n") * (int(chars) // 100 + 1))[: int(chars)]
        kept = truncate_result(text, budget, store, f"size-{chars}").kept_tokens
        out.append(dict(zip(cols, (chars, mine, theirs, shown, kept), strict=True)))
    return _frame(out, cols)


@dataclass(frozen=True)
class Strategy:
    """One way to keep a loop's context in bounds: its label, the per-result budget
    (``None``: not cut) and the lines one result holds."""

    key: str
    label: Text
    budget: int | None
    lines: int


def _strategies() -> tuple[Strategy, ...]:
    return (
        Strategy("none", WORDS["no_truncation"], None, P4_RESULT_LINES),
        Strategy(
            "claude_code",
            WORDS["claude_code_limit"].format(cap=MCP_MAX_TOKENS),
            MCP_MAX_TOKENS,
            P4_RESULT_LINES,
        ),
        Strategy(
            "host",
            WORDS["host_budget"].format(budget=P4_HOST_BUDGET),
            P4_HOST_BUDGET,
            P4_RESULT_LINES,
        ),
        Strategy("paged", WORDS["paged"].format(lines=P4_PAGE_LINES), None, P4_PAGE_LINES),
    )


#: The four ways practice/04 compares: no truncation, Claude Code's documented cap, the
#: course host's budget with the full text on disk, and the server's pagination.
STRATEGIES: tuple[Strategy, ...] = _strategies()


def context_series(strategies: Sequence[Strategy] = STRATEGIES) -> dict[str, tuple[int, ...]]:
    """Each strategy's label (in the learner's language) → the tokens of every request of the
    loop :func:`~.exercises.loop_context` runs with it."""
    return {str(s.label): loop_context(s.budget, lines=s.lines) for s in strategies}


def context_table(series: Mapping[str, Sequence[int]], limit: int) -> Any:
    """Per strategy: the tokens of the last request, and whether every request fits ``limit``."""
    cols = [str(WORDS[k]) for k in ("strategy", "last_request", "fits")]
    out = [
        dict(zip(cols, (label, f"{sizes[-1]:,}", yes_no(max(sizes) <= limit)), strict=True))
        for label, sizes in series.items()
    ]
    return _frame(out, cols)


def plot_context_growth(
    series: Mapping[str, Sequence[int]], limit: int | None = None, ax: Any = None, dpi: int = 72
) -> Any:
    """Tokens of each request of a loop, one line per strategy, with the context limit.

    ``series`` maps a label to the request sizes (:func:`context_series`). Returns the figure.
    """
    fig, ax = figure(ax, (5.8, 3.2), dpi)
    for label, sizes in series.items():
        ax.plot(range(1, len(sizes) + 1), list(sizes), marker="o", label=label)
    if limit is not None:
        ax.axhline(limit, color="grey", linestyle="--", label=line("context_limit", limit=limit))
    ax.set_xlabel(str(WORDS["request_number"]))
    ax.set_ylabel(str(WORDS["request_tokens"]))
    ax.set_title(str(WORDS["context_title"]))
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


# --- 05: transports -----------------------------------------------------------------------


class SimulatedLatency:
    """A transport wrapper that adds ``rtt`` seconds to every request/reply exchange.

    Half the round trip is spent when lines are sent, half when a reply is read, as a
    network would; pipelined requests sent together pay the sending half once. It is a
    simulation of a remote server, labelled as such wherever it is used.
    """

    def __init__(self, inner: Any, rtt: float) -> None:
        self.inner = inner
        self.rtt = rtt
        self._sending = False

    def send(self, line: bytes) -> None:
        if not self._sending:
            time.sleep(self.rtt / 2)
            self._sending = True
        self.inner.send(line)

    def receive(self, timeout: float | None = None) -> bytes | None:
        if self._sending:
            time.sleep(self.rtt / 2)
            self._sending = False
        got: bytes | None = self.inner.receive(timeout)
        return got

    def close(self) -> Any:
        return self.inner.close()


def time_calls(client: Any, tool: str, arguments: Mapping[str, Any], n: int = 10) -> list[float]:
    """Call ``tool`` ``n`` times one after the other; return each call's time in milliseconds."""
    out = []
    for _ in range(n):
        start = time.perf_counter()
        client.call_tool(tool, dict(arguments))
        out.append((time.perf_counter() - start) * 1000)
    return out


def _placement(key: str, rtt: float) -> str:
    label = PLACEMENTS.get(key)
    return key if label is None else label.lang().format(rtt_ms=rtt * 1000)


def timing_table(times: Mapping[str, Sequence[float]], rtt: float = 0.0) -> Any:
    """Per placement (a :data:`PLACEMENTS` key, or any label): the median, fastest and
    slowest of its call times in milliseconds; ``rtt`` (seconds) names the simulated one."""
    cols = [str(WORDS[k]) for k in ("placement", "median_ms", "fastest_ms", "slowest_ms")]
    out = [
        dict(
            zip(
                cols,
                (
                    _placement(key, rtt),
                    f"{statistics.median(ms):.2f}",
                    f"{min(ms):.2f}",
                    f"{max(ms):.2f}",
                ),
                strict=True,
            )
        )
        for key, ms in times.items()
    ]
    return _frame(out, cols)


def turn_table(
    calls: Sequence[int] = (1, 3, 5), local_ms: int = SEED_LOCAL_MS, remote_ms: int = SEED_REMOTE_MS
) -> Any:
    """A turn's time if each call took the article's average: ``k`` calls one after the other
    locally and remotely, and remotely when all ``k`` go out together (one round trip)."""
    cols = [
        str(WORDS[k]) for k in ("calls_per_turn", "local_ms", "remote_ms", "remote_pipelined_ms")
    ]
    out = [dict(zip(cols, (k, local_ms * k, remote_ms * k, remote_ms), strict=True)) for k in calls]
    return _frame(out, cols)


def nesting_table(outer: Any, inner: Any) -> Any:
    """The outer and the inner agent's runs (:class:`~mcpmini.agent.RunResult`): model calls
    and the tokens of each request."""
    cols = [str(WORDS[k]) for k in ("agent", "model_calls", "request_tokens_each")]
    out = [
        dict(
            zip(
                cols,
                (str(WORDS[name]), run.model_calls, [r.total_tokens for r in run.requests]),
                strict=True,
            )
        )
        for name, run in (("outer", outer), ("inner", inner))
    ]
    return _frame(out, cols)


def overhead_table(per_call: Mapping[str, float], rtt: float = 0.0) -> Any:
    """One row per placement (a :data:`PLACEMENTS` key): the time of one call in ms."""
    cols = [str(WORDS["placement"]), str(WORDS["per_call_ms"])]
    out = [
        dict(zip(cols, (_placement(key, rtt), f"{ms:.4f}"), strict=True))
        for key, ms in per_call.items()
    ]
    return _frame(out, cols)
