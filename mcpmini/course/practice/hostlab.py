"""Helpers for the practice track (``notebooks/practice/``): layer tables, a grant toggle,
a labelled latency simulation, timing, and the context-growth figure.

Each widget is backed by a plain function of this module (tested in ``tests/``), which a
notebook also prints so a headless run shows the same thing. :class:`SimulatedLatency` is
**not** a network: it wraps a real transport and sleeps a fixed round-trip time per
exchange, to show what a remote server's latency does to a turn when the HTTP transport is
not available.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...agent import AccessPolicy, check_layers
from ..plots import figure

__all__ = [
    "SimulatedLatency",
    "grant_toggler",
    "layer_lines",
    "layer_rows",
    "plot_context_growth",
    "time_calls",
]


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


def layer_lines(
    tools: Iterable[str], policy: AccessPolicy, plan: str, grants: Iterable[str] = ()
) -> list[str]:
    """:func:`layer_rows` as aligned text lines, with a header."""
    rows = layer_rows(tools, policy, plan, grants)
    width = max([len(r[0]) for r in rows] + [4])
    out = [f"{'tool':<{width}}  plan   session  visible"]
    out += [f"{t:<{width}}  {p:<6} {s:<8} {'yes' if v else 'no'}" for t, p, s, v in rows]
    return out


def grant_toggler(
    tools: Sequence[str], policy: AccessPolicy, plan: str = "free", grants: Iterable[str] = ()
) -> Any:
    """A plan selector and one checkbox per tool that needs a grant, showing
    :func:`layer_lines` live. Returns the ipywidgets box."""
    import ipywidgets as widgets

    choose = widgets.Dropdown(options=list(policy.plans), value=plan, description="plan")
    boxes = {
        t: widgets.Checkbox(value=t in set(grants), description=t, indent=False)
        for t in tools
        if t in policy.needs_grant
    }
    text = widgets.HTML()

    def refresh(_: Any = None) -> None:
        chosen = [t for t, b in boxes.items() if b.value]
        text.value = (
            "<pre>" + "\n".join(layer_lines(tools, policy, choose.value, chosen)) + "</pre>"
        )

    for w in (choose, *boxes.values()):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox([choose, *boxes.values(), text])


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
        line: bytes | None = self.inner.receive(timeout)
        return line

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


def plot_context_growth(
    series: Mapping[str, Sequence[int]], limit: int | None = None, ax: Any = None, dpi: int = 72
) -> Any:
    """Tokens of each request of a loop, one line per strategy, with the context limit.

    ``series`` maps a label to the request sizes (from
    :func:`mcpmini.course.practice.loop_context`). Returns the figure.
    """
    fig, ax = figure(ax, (5.8, 3.2), dpi)
    for label, sizes in series.items():
        ax.plot(range(1, len(sizes) + 1), list(sizes), marker="o", label=label)
    if limit is not None:
        ax.axhline(limit, color="grey", linestyle="--", label=f"コンテキストの上限 {limit:,}")
    ax.set_xlabel("要求（何番目か）")
    ax.set_ylabel("要求のトークン数")
    ax.set_title("ループの中で要求が大きくなる様子")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
