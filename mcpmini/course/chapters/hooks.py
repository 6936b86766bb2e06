"""Notebooks 07 and 08: the matcher playground, the hook and gate lab, and their figures.

The widgets show the plain functions of :mod:`.hooklab` (:func:`~.hooklab.explain_matcher`,
:func:`~.hooklab.simulate_hook`); :func:`plot_gate_path` draws one call's way through the
permission gate and :func:`plot_prop_4_5` the trials of Proposition 4.5.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...permissions import GateStage, PermissionMode
from ..plots import figure
from ..report import live_html
from .hooklab import EXIT_CHOICES, RULE_SETS, explain_matcher, simulate_hook

__all__ = [
    "GATE_STATIONS",
    "hook_gate_lab",
    "matcher_playground",
    "plot_gate_path",
    "plot_prop_4_5",
]


# --- notebook 07: matcher playground and hook-settings lab (chapter 4) ------------------


def matcher_playground(matcher: str = "Edit|Write", name: str = "NotebookEdit") -> Any:
    """Two text boxes (matcher, tool name) showing :func:`hooklab.explain_matcher` live.

    Returns the ipywidgets box; print ``explain_matcher(matcher, name).text()`` too for
    headless runs.
    """
    import ipywidgets as widgets

    box_matcher = widgets.Text(value=matcher, description="matcher")
    box_name = widgets.Text(value=name, description="tool name")
    out = widgets.HTML()

    def refresh(_: Any = None) -> None:
        out.value = live_html(explain_matcher(box_matcher.value, box_name.value).text())

    for w in (box_matcher, box_name):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox([box_matcher, box_name, out])


def hook_gate_lab(
    exit_code: int | str = 2,
    stdout: str = "",
    on_failure: str = "continue",
    rule: str = "allow Write",
    mode: str = "default",
) -> Any:
    """Controls for one PreToolUse hook (exit code, stdout, onFailure) and the permission
    setup (one rule set, a mode); shows :func:`hooklab.simulate_hook` and draws the path
    through the gate. Returns the ipywidgets box; print ``simulate_hook(...).text()`` too.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    code = widgets.Dropdown(options=list(EXIT_CHOICES), value=exit_code, description="exit")
    text = widgets.Text(
        value=stdout, description="stdout", placeholder='{"hookSpecificOutput": {...}}'
    )
    failure = widgets.ToggleButtons(
        options=["continue", "block"], value=on_failure, description="onFailure"
    )
    rules = widgets.Dropdown(options=list(RULE_SETS), value=rule, description="rules")
    modes = widgets.Dropdown(
        options=[m.value for m in PermissionMode], value=mode, description="mode"
    )
    report = widgets.HTML()
    figure = widgets.Output()

    def refresh(_: Any = None) -> None:
        sim = simulate_hook(
            code.value, text.value, failure.value, RULE_SETS[rules.value], modes.value
        )
        report.value = live_html(sim.text())
        with figure:
            figure.clear_output(wait=True)
            fig = plot_gate_path(sim.gate)
            display(fig)
            plt.close(fig)

    for w in (code, text, failure, rules, modes):
        w.observe(refresh, names="value")
    refresh()
    return widgets.VBox(
        [widgets.HBox([widgets.VBox([code, text, failure, rules, modes]), report]), figure]
    )


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

    fig, ax = figure(ax, (10, 2.4), dpi)
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
    """Bars per group of :class:`~mcpmini.course.chapters.hooklab.Trial`: executed calls, executed
    calls the hook had not seen first, and executed ``.env`` writes. Returns the figure."""

    fig, ax = figure(ax, (6.5, 3.8), dpi)
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
