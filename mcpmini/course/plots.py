"""Figures for the notebooks: plain data functions plus thin matplotlib drawers.

Each figure has a function that computes its data (pure, tested in ``tests/``) and a
``plot_*`` function that draws it on a given or new axes and returns the figure.
``matplotlib`` is imported inside the drawers only, at a small dpi so that executed
notebooks stay small.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..mcp import (
    KNOWN_VERSIONS,
    negotiate_handshake,
    negotiate_per_request,
    non_empty_subsets,
)
from ..permissions import GateStage


def _figure(ax: Any, size: tuple[float, float], dpi: int) -> tuple[Any, Any]:
    """``(figure, axes)``: the given axes and their figure, or a new figure of ``size``.

    Importing ``matplotlib_fontja`` registers its bundled IPAex Gothic font and makes it the
    default family, so the Japanese titles and labels render the same on every machine.
    """
    import matplotlib.pyplot as plt
    import matplotlib_fontja  # noqa: F401  (registers the Japanese font on import)

    if ax is None:
        return plt.subplots(figsize=size, dpi=dpi)
    return ax.figure, ax


__all__ = [
    "GATE_STATIONS",
    "GridCell",
    "NegotiationGrid",
    "context_cost_curve",
    "measured_layer_rows",
    "negotiation_grid",
    "plot_context_cost",
    "plot_gate_path",
    "plot_measured_layer",
    "plot_negotiation_grid",
    "plot_prop_4_5",
    "plot_reattach_curve",
    "plot_turns_curve",
    "reattach_curve",
    "turns_curve",
]


# --- notebook 03: every pair (C, S) of version sets (Proposition 3.4) ------------------


class GridCell(Enum):
    """Which of the two negotiation methods succeed for one pair ``(C, S)``."""

    BOTH = "both succeed"
    PER_REQUEST_ONLY = "handshake fails, per-request succeeds"
    HANDSHAKE_ONLY = "handshake succeeds, per-request fails"
    NEITHER = "both fail"

    @property
    def ja(self) -> str:
        """The Japanese legend text for this kind of cell."""
        return _GRID_JA[self]


@dataclass(frozen=True)
class NegotiationGrid:
    """Rows are client sets, columns server sets, in the order of ``subsets``."""

    universe: tuple[str, ...]
    subsets: tuple[tuple[str, ...], ...]
    cells: tuple[tuple[GridCell, ...], ...]

    def count(self, kind: GridCell) -> int:
        """How many pairs fall in ``kind``."""
        return sum(row.count(kind) for row in self.cells)

    def pairs(self, kind: GridCell) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
        """The ``(C, S)`` pairs that fall in ``kind``."""
        return [
            (self.subsets[i], self.subsets[j])
            for i, row in enumerate(self.cells)
            for j, cell in enumerate(row)
            if cell is kind
        ]

    def label(self, subset: Sequence[str]) -> str:
        """A short name for a subset: one letter per version (a = oldest)."""
        return "".join("abcdefghijklmnopqrstuvwxyz"[self.universe.index(v)] for v in subset)


def negotiation_grid(universe: Sequence[str] = KNOWN_VERSIONS) -> NegotiationGrid:
    """Run both negotiation models on every pair of non-empty subsets of ``universe``.

    Returns a :class:`NegotiationGrid` of ``(2^n − 1)²`` cells. Raises ``ValueError``
    for an empty universe or one with more than 8 versions (65,025 cells is plenty).
    """
    versions = tuple(sorted(set(universe)))
    if not versions or len(versions) > 8:
        raise ValueError(f"the universe must hold 1 to 8 versions, not {len(versions)}")
    subsets = tuple(non_empty_subsets(versions))
    rows = []
    for c in subsets:
        row = []
        for s in subsets:
            hs, pr = negotiate_handshake(c, s).ok, negotiate_per_request(c, s).ok
            row.append(
                GridCell.BOTH
                if hs and pr
                else GridCell.HANDSHAKE_ONLY
                if hs
                else GridCell.PER_REQUEST_ONLY
                if pr
                else GridCell.NEITHER
            )
        rows.append(tuple(row))
    return NegotiationGrid(versions, subsets, tuple(rows))


_GRID_JA = {
    GridCell.BOTH: "両方とも成立",
    GridCell.PER_REQUEST_ONLY: "握手は失敗、要求ごとは成立",
    GridCell.HANDSHAKE_ONLY: "握手は成立、要求ごとは失敗",
    GridCell.NEITHER: "両方とも失敗",
}

_COLOURS = {
    GridCell.BOTH: "#4c9f70",
    GridCell.PER_REQUEST_ONLY: "#f2a541",
    GridCell.HANDSHAKE_ONLY: "#7b2cbf",
    GridCell.NEITHER: "#d9d9d9",
}


def plot_negotiation_grid(grid: NegotiationGrid, ax: Any = None, dpi: int = 100) -> Any:
    """Draw ``grid`` as a coloured matrix (rows C, columns S); return the figure."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    kinds = list(GridCell)
    size = 3.5 + 0.2 * len(grid.subsets)
    fig, ax = _figure(ax, (size, size + 1.6), dpi)
    matrix = [[kinds.index(cell) for cell in row] for row in grid.cells]
    ax.imshow(
        matrix,
        cmap=ListedColormap([_COLOURS[k] for k in kinds]),
        vmin=0,
        vmax=len(kinds) - 1,
        interpolation="nearest",
    )
    labels = [grid.label(s) for s in grid.subsets]
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=9, family="monospace")
    ax.set_yticks(range(len(labels)), labels, fontsize=9, family="monospace")
    ax.set_xlabel("サーバの版の集合 S", fontsize=11)
    ax.set_ylabel("クライアントの版の集合 C", fontsize=11)
    names = ", ".join(f"{'abcdefghijklmnopqrstuvwxyz'[i]}={v}" for i, v in enumerate(grid.universe))
    ax.set_title(
        f"命題 3.4：{len(grid.subsets) ** 2} 組の (C, S) での 2 つの方式\n{names}", fontsize=11
    )
    ax.legend(
        handles=[Patch(color=_COLOURS[k], label=f"{k.ja}（{grid.count(k)}）") for k in kinds],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.1),
        ncol=2,
        fontsize=10,
    )
    fig.tight_layout()
    return fig


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
    from ..skills import reattach

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

    fig, ax = _figure(ax, (6, 3.6), dpi)
    ks = [r[0] for r in rows]
    ax.plot(ks, [r[2] for r in rows], "--", color="grey", label="上界 min(k·a, A)")
    ax.plot(ks, [r[1] for r in rows], "o-", label="reattach() の実測")
    ax.set_title("命題 5.2：圧縮のあとに再び添付されるスキルの量")
    ax.set_xlabel("呼び出した異なるスキルの数 k")
    ax.set_ylabel("再添付されるトークン数")
    ax.legend()
    fig.tight_layout()
    return fig


# --- notebook 06: tool definitions up front vs deferred (Proposition 3.8, Example 3.9) ----


def context_cost_curve(
    n: int, d: float, m: float, u_max: int | None = None
) -> list[tuple[int, float, float]]:
    """``(u, up-front, deferred)`` for u = 0…u_max (default N), from :mod:`mcpmini.agent.cost`."""
    from ..agent import uniform_costs

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

    from ..agent import break_even

    fig, ax = _figure(ax, (6.5, 3.8), dpi)
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
    from ..agent import measure_tool_layer

    return [(s.n, s.definitions, s.names) for s in map(measure_tool_layer, ns)]


def plot_measured_layer(
    rows: Sequence[tuple[int, int, int]], ax: Any = None, dpi: int = 100
) -> Any:
    """Measured definition and name sizes against N; return the figure."""

    fig, ax = _figure(ax, (6.5, 3.8), dpi)
    ns = [r[0] for r in rows]
    ax.plot(ns, [r[1] for r in rows], "o-", label="tools/list（定義すべて）")
    ax.plot(ns, [r[2] for r in rows], "s-", label="名前だけ")
    ax.set_title("実測：サーバのツール数とツール層の大きさ")
    ax.set_xlabel("サーバのツールの数 N")
    ax.set_ylabel("推定トークン数")
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


# --- notebook 11: model calls against max_turns (Proposition 7.1) -----------------------------


def turns_curve(limits: Sequence[int] = tuple(range(9))) -> list[tuple[int, int, str]]:
    """``(T, model calls, stop reason)`` for an always-call-a-tool model, one run per T.

    Each run is a real :func:`mcpmini.agent.run` against the in-process ``add`` server.
    """
    from ..agent import AgentOptions, AlwaysToolModel, run
    from ..mcp import add_server

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

    fig, ax = _figure(ax, (6, 3.6), dpi)
    ts = [r[0] for r in rows]
    ax.plot(ts, [t + 1 for t in ts], "--", color="grey", label="上界 T + 1")
    ax.plot(ts, [r[1] for r in rows], "o", label="実測したモデルの呼び出し回数")
    ax.set_title("命題 7.1：いつもツールを呼ぶモデルと max_turns")
    ax.set_xlabel("max_turns の値 T")
    ax.set_ylabel("モデルの呼び出し回数")
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


# --- notebook 07-08: the permission gate and Proposition 4.5 ------------------------------

# the gate's stations, left to right, in the order a call meets them
GATE_STATIONS = tuple(stage.value for stage in GateStage)
_VERDICT_COLOURS = {"deny": "#d9534f", "ask": "#f0ad4e", "allow": "#5cb85c"}


_STATION_JA = {
    "hooks": "フック",
    "deny_rules": "deny 規則",
    "ask_rules": "ask 規則",
    "hook_decision": "フックの決定",
    "mode": "権限モード",
    "allow_rules": "allow 規則",
    "fallback": "どれにも\n当たらない",
}
_VERDICT_JA = {
    "deny": "拒否 (deny)",
    "ask": "確認 (ask)",
    "allow": "許可 (allow)",
    "defer": "呼び出し側へ (defer)",
}


def plot_gate_path(result: Any, ax: Any = None, dpi: int = 100) -> Any:
    """Draw the gate's stations left to right; the visited ones filled, the deciding one in
    the colour of its verdict (red deny, orange ask, green allow). Returns the figure."""
    from matplotlib.patches import Rectangle

    fig, ax = _figure(ax, (10, 2.4), dpi)
    visited = {step.step: step.verdict for step in result.path}
    for i, station in enumerate(GATE_STATIONS):
        verdict = visited.get(station)
        seen = station in visited
        colour = _VERDICT_COLOURS.get(verdict or "", "#dddddd" if seen else "white")
        ax.add_patch(
            Rectangle(
                (i * 1.25, 0),
                1,
                1,
                facecolor=colour,
                edgecolor="black",
                linestyle="-" if seen else ":",
            )
        )
        ax.text(
            i * 1.25 + 0.5,
            0.5,
            _STATION_JA.get(station, station),
            ha="center",
            va="center",
            fontsize=11,
        )
        if i:
            ax.annotate(
                "",
                (i * 1.25, 0.5),
                (i * 1.25 - 0.25, 0.5),
                arrowprops={"arrowstyle": "->", "lw": 1.2},
            )
    ax.set_xlim(-0.1, len(GATE_STATIONS) * 1.25)
    ax.set_ylim(-0.1, 1.1)
    ax.axis("off")
    verdict = "defer" if getattr(result, "deferred", False) else str(result.final)
    final = _VERDICT_JA.get(verdict, verdict)
    ax.set_title(f"関門の通り道：最終の判定は {final}", fontsize=12)
    fig.tight_layout()
    return fig


def plot_prop_4_5(groups: dict[str, Sequence[Any]], ax: Any = None, dpi: int = 100) -> Any:
    """Bars per group of :class:`~mcpmini.course.hooklab.Trial`: executed calls, executed
    calls the hook had not seen first, and executed ``.env`` writes. Returns the figure."""

    fig, ax = _figure(ax, (6.5, 3.8), dpi)
    measures = [
        ("実行された呼び出し", "executed"),
        ("フックを先に通らなかったもの", "violations"),
        ("実行された .env への書き込み", "env_writes"),
    ]
    width = 0.8 / len(measures)
    for j, (label, attr) in enumerate(measures):
        values = [sum(getattr(t, attr) for t in trials) for trials in groups.values()]
        xs = [i + j * width for i in range(len(groups))]
        ax.bar(xs, values, width, label=label)
        for x, v in zip(xs, values, strict=True):
            ax.text(x, v, str(v), ha="center", va="bottom", fontsize=9)
    ax.set_xticks([i + width for i in range(len(groups))], list(groups), fontsize=10)
    ax.set_title("命題 4.5：フックと指示、実行された呼び出しの数")
    ax.set_ylabel("全試行での回数")
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig
