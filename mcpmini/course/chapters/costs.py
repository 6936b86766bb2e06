"""The context-cost chapters: tool definitions (notebook 06), re-attached skills (09), turns (11).

Each proposition gets a plain function computing its numbers with the runtime, a drawer,
and, where the notebook has one, a widget: Proposition 3.8 (:func:`context_cost_lines`,
:func:`plot_context_cost`, :func:`context_cost_explorer`, measured with
:func:`measured_layer_rows`), Proposition 5.2 (:func:`reattach_lines`,
:func:`reattach_curve`, :func:`reattach_explorer`) and Proposition 7.1
(:func:`turns_curve`). ``ipywidgets`` and ``matplotlib`` are imported inside the builders.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..plots import figure
from ..report import live_html

__all__ = [
    "context_cost_curve",
    "context_cost_explorer",
    "context_cost_lines",
    "measured_layer_rows",
    "plot_context_cost",
    "plot_measured_layer",
    "plot_reattach_curve",
    "plot_turns_curve",
    "reattach_curve",
    "reattach_explorer",
    "reattach_lines",
    "turns_curve",
]


# --- notebook 06: up front vs deferred tool definitions (Proposition 3.8) ------------------


def context_cost_lines(n: int, u: int, d: float, m: float) -> list[str]:
    """Proposition 3.8 for N, u, d, m: both costs, the difference and the break-even point.

    Every number comes from :func:`mcpmini.agent.uniform_costs`. Raises ``ValueError``
    for u outside 0..N or sizes violating ``0 <= m <= d``, ``d > 0``.
    """
    from ...agent import max_deferred_uses, uniform_costs

    c = uniform_costs(n, u, d, m)
    return [
        f"up front  N·d         = {c.upfront:,.0f}",
        f"deferred  N·m + u·d   = {c.deferred:,.0f}",
        f"difference            = {c.difference:,.0f}   (= (N−u)(d−m) − u·m)",
        (
            f"break-even u* = N(d−m)/d = {c.break_even:.1f}: deferring wins for "
            f"u ≤ {max_deferred_uses(n, d, m)}"
        ),
        "cheaper here: "
        + (
            "deferred"
            if c.deferred < c.upfront
            else "up front"
            if c.upfront < c.deferred
            else "neither (equal)"
        ),
    ]


def context_cost_explorer(n: int = 200, u: int = 3, d: int = 300, m: int = 10) -> Any:
    """Sliders for N, u, d, m redrawing both cost curves and :func:`context_cost_lines`.

    Returns the ipywidgets box; the caller should also print :func:`context_cost_lines`
    for headless runs.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    sn = widgets.IntSlider(value=n, min=1, max=500, description="N")
    su = widgets.IntSlider(value=u, min=0, max=n, description="u")
    # step 1: an IntSlider snaps its value to min + k·step, so min=1, step=10 turned 300 into 301
    sd = widgets.IntSlider(value=d, min=1, max=1000, step=1, description="d")
    sm = widgets.IntSlider(value=m, min=0, max=100, description="m")
    text = widgets.HTML()
    figure = widgets.Output()

    def refresh(_: Any = None) -> None:
        su.max = sn.value
        sm.max = min(100, sd.value)
        text.value = live_html(
            "\n".join(context_cost_lines(sn.value, su.value, sd.value, sm.value))
        )
        with figure:
            figure.clear_output(wait=True)
            fig = plot_context_cost(sn.value, sd.value, sm.value, su.value)
            display(fig)
            plt.close(fig)  # shown once, inside the Output widget

    for w in (sn, su, sd, sm):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox([widgets.HBox([widgets.VBox([sn, su, sd, sm]), text]), figure])


# --- notebook 06: tool definitions up front vs deferred (Proposition 3.8, Example 3.9) ----


def context_cost_curve(
    n: int, d: float, m: float, u_max: int | None = None
) -> list[tuple[int, float, float]]:
    """``(u, up-front, deferred)`` for u = 0…u_max (default N), from :mod:`mcpmini.agent.cost`."""
    from ...agent import uniform_costs

    top = n if u_max is None else min(u_max, n)
    rows = []
    for u in range(top + 1):
        c = uniform_costs(n, u, d, m)
        rows.append((u, c.upfront, c.deferred))
    return rows


def plot_context_cost(
    n: int, d: float, m: float, u: int | None = None, ax: Any = None, dpi: int = 100
) -> Any:
    """Both costs against u with the break-even line u* = N(d − m)/d; return the figure."""

    from ...agent import break_even

    fig, ax = figure(ax, (6.5, 3.8), dpi)
    rows = context_cost_curve(n, d, m)
    us = [r[0] for r in rows]
    ax.plot(us, [r[1] for r in rows], label="前もって全部  N·d")
    ax.plot(us, [r[2] for r in rows], label="遅延読み込み  N·m + u·d")
    star = break_even(n, d, m)
    ax.axvline(star, color="grey", linestyle="--", label=f"損益分岐点 u* = {star:.1f}")
    if u is not None:
        ax.plot([u], [n * m + u * d], "o", color="C1", label=f"いまの u = {u}")
    ax.set_title(f"命題 3.8：ツール定義の置き方と文脈のコスト（N={n}, d={d:g}, m={m:g}）")
    ax.set_xlabel("会話で使うツールの数 u")
    ax.set_ylabel("文脈に置かれるトークン数")
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


def measured_layer_rows(ns: Sequence[int] = (10, 25, 50, 100, 200)) -> list[tuple[int, int, int]]:
    """``(N, tools/list definitions, names only)`` measured on real generated servers."""
    from ...agent import measure_tool_layer

    return [(s.n, s.definitions, s.names) for s in map(measure_tool_layer, ns)]


def plot_measured_layer(
    rows: Sequence[tuple[int, int, int]], ax: Any = None, dpi: int = 100
) -> Any:
    """Measured definition and name sizes against N; return the figure."""

    fig, ax = figure(ax, (6.5, 3.8), dpi)
    ns = [r[0] for r in rows]
    ax.plot(ns, [r[1] for r in rows], "o-", label="tools/list（定義すべて）")
    ax.plot(ns, [r[2] for r in rows], "s-", label="名前だけ")
    ax.set_title("実測：サーバのツール数とツール層の大きさ")
    ax.set_xlabel("サーバのツールの数 N")
    ax.set_ylabel("推定トークン数")
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


# --- notebook 09: re-attachment after compaction (Proposition 5.2) -----------------------


def reattach_lines(
    sizes: Sequence[int], per_skill_tokens: int = 5000, total_tokens: int = 25000
) -> list[str]:
    """What comes back after compaction when skills of ``sizes`` tokens were invoked.

    ``sizes`` are body sizes in invocation order (oldest first), one distinct skill each
    (named ``skill1``…). Returns one line per skill, newest first, plus a total line that
    sets the attached total beside the bound ``min(k·a, A)``. Raises ``ValueError`` for a
    negative size or cap.
    """
    from ...skills import reattach

    r = reattach(
        [(f"skill{i + 1}", n) for i, n in enumerate(sizes)],
        per_skill_tokens=per_skill_tokens,
        total_tokens=total_tokens,
    )
    lines = [
        f"{x.name:<8} {x.status.value:<7} {x.tokens:>6} / {x.original_tokens:>6} tokens"
        for x in r.items
    ]
    bound = min(len(sizes) * per_skill_tokens, total_tokens)
    lines.append(
        f"attached {r.total_tokens} tokens; bound min(k·a, A) = "
        f"min({len(sizes)}·{per_skill_tokens}, {total_tokens}) = {bound}; "
        f"dropped {len(r.dropped)}"
    )
    return lines


def reattach_explorer(
    sizes: Sequence[int] = (6000,) * 7, per_skill_tokens: int = 5000, total_tokens: int = 25000
) -> Any:
    """Sliders for k, the body size and both caps, with :func:`reattach_lines` live.

    Returns the ipywidgets box; the caller should also print :func:`reattach_lines`
    for headless runs.
    """
    import ipywidgets as widgets

    k = widgets.IntSlider(value=len(sizes), min=0, max=12, description="k")
    body = widgets.IntSlider(
        value=max(sizes, default=6000), min=0, max=12000, step=500, description="body"
    )
    a = widgets.IntSlider(
        value=per_skill_tokens, min=0, max=10000, step=500, description="a (per skill)"
    )
    big_a = widgets.IntSlider(
        value=total_tokens, min=0, max=50000, step=1000, description="A (total)"
    )
    out = widgets.HTML()

    def refresh(_: Any = None) -> None:
        out.value = live_html(
            "\n".join(reattach_lines([body.value] * k.value, a.value, big_a.value))
        )

    for w in (k, body, a, big_a):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox([k, body, a, big_a, out])


# --- notebook 09: re-attached total against k (Proposition 5.2 (2)) ------------------------


def reattach_curve(
    body_tokens: int = 6000,
    per_skill_tokens: int = 5000,
    total_tokens: int = 25000,
    k_max: int = 10,
) -> list[tuple[int, int, int]]:
    """``(k, attached, min(k·a, A))`` for k = 0…k_max skills of ``body_tokens`` each.

    ``attached`` comes from :func:`mcpmini.skills.reattach`, the bound from the formula.
    """
    from ...skills import reattach

    rows = []
    for k in range(k_max + 1):
        r = reattach(
            [(f"s{i}", body_tokens) for i in range(k)],
            per_skill_tokens=per_skill_tokens,
            total_tokens=total_tokens,
        )
        rows.append((k, r.total_tokens, min(k * per_skill_tokens, total_tokens)))
    return rows


def plot_reattach_curve(
    rows: Sequence[tuple[int, int, int]], ax: Any = None, dpi: int = 100
) -> Any:
    """Draw the attached total and the bound min(k·a, A) against k; return the figure."""

    fig, ax = figure(ax, (6, 3.6), dpi)
    ks = [r[0] for r in rows]
    ax.plot(ks, [r[2] for r in rows], "--", color="grey", label="上界 min(k·a, A)")
    ax.plot(ks, [r[1] for r in rows], "o-", label="reattach() の実測")
    ax.set_title("命題 5.2：圧縮のあとに再び添付されるスキルの量")
    ax.set_xlabel("呼び出した異なるスキルの数 k")
    ax.set_ylabel("再添付されるトークン数")
    ax.legend()
    fig.tight_layout()
    return fig


# --- notebook 11: model calls against max_turns (Proposition 7.1) -----------------------------


def turns_curve(limits: Sequence[int] = tuple(range(9))) -> list[tuple[int, int, str]]:
    """``(T, model calls, stop reason)`` for an always-call-a-tool model, one run per T.

    Each run is a real :func:`mcpmini.agent.run` against the in-process ``add`` server.
    """
    from ...agent import AgentOptions, AlwaysToolModel, run
    from ...mcp import add_server

    rows = []
    for t in limits:
        r = run(
            "keep adding",
            AlwaysToolModel("mcp__calc__add", {"a": 1, "b": 1}),
            AgentOptions(
                mcp_servers={"calc": add_server()}, allowed_tools=["mcp__calc__add"], max_turns=t
            ),
        )
        rows.append((t, r.model_calls, r.stop_reason.value))
    return rows


def plot_turns_curve(rows: Sequence[tuple[int, int, str]], ax: Any = None, dpi: int = 100) -> Any:
    """Measured model calls against T with the bound T + 1; return the figure."""

    fig, ax = figure(ax, (6, 3.6), dpi)
    ts = [r[0] for r in rows]
    ax.plot(ts, [t + 1 for t in ts], "--", color="grey", label="上界 T + 1")
    ax.plot(ts, [r[1] for r in rows], "o", label="実測したモデルの呼び出し回数")
    ax.set_title("命題 7.1：いつもツールを呼ぶモデルと max_turns")
    ax.set_xlabel("max_turns の値 T")
    ax.set_ylabel("モデルの呼び出し回数")
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig
