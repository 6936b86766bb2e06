"""Notebooks 07, 07b and 08: the matcher playground, the hook and gate lab, and their figures.

The widgets show the plain functions of :mod:`.hooklab` (:func:`~.hooklab.explain_matcher`,
:func:`~.hooklab.simulate_hook`); :func:`plot_gate_path` draws one call's way through the
permission gate (all eight stations of :class:`~mcpmini.permissions.GateStage`, named by
:data:`~.hooklab.STATIONS`) and :func:`plot_prop_4_5` the trials of Proposition 4.5. Every
label, title and control description is a :class:`~mcpmini.course.language.Text` of
:data:`LABELS` or of :mod:`.hooklab`'s tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...permissions import GateStage, PermissionMode
from ..language import Text
from ..plots import figure
from ..report import live_html
from .hooklab import (
    EXIT_CHOICES,
    PROP_4_5_GROUPS,
    RULE_SETS,
    STATIONS,
    VERDICTS,
    WORDS,
    explain_matcher,
    simulate_hook,
    station_states,
)

__all__ = [
    "GATE_STATIONS",
    "LABELS",
    "hook_gate_lab",
    "matcher_playground",
    "plot_gate_path",
    "plot_prop_4_5",
]


#: The widgets' control descriptions and the figures' titles and labels.
LABELS: dict[str, Text] = {
    "matcher": Text("マッチャ", "matcher"),
    "tool_name": Text("ツール名", "tool name"),
    "exit": Text("終了コード", "exit code"),
    "stdout": Text("標準出力", "stdout"),
    "rules": Text("権限規則", "rules"),
    "mode": Text("モード", "mode"),
    "gate_title": Text(
        "関門の通り道：最終の判定は {verdict}", "The way through the gate: {verdict}"
    ),
    "prop_4_5_title": Text(
        "命題 4.5：フックと指示、実行された呼び出しの数",
        "Proposition 4.5: hooks, instructions and executed calls",
    ),
    "prop_4_5_y": Text("全試行での回数", "count over all trials"),
}


# --- notebook 07: matcher playground and hook-settings lab (chapter 4) ------------------


def matcher_playground(matcher: str = "Edit|Write", name: str = "NotebookEdit") -> Any:
    """Two text boxes (matcher, tool name) showing :func:`hooklab.explain_matcher` live.

    Returns the ipywidgets box; print ``explain_matcher(matcher, name).text()`` too for
    headless runs.
    """
    import ipywidgets as widgets

    box_matcher = widgets.Text(value=matcher, description=str(LABELS["matcher"]))
    box_name = widgets.Text(value=name, description=str(LABELS["tool_name"]))
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

    code = widgets.Dropdown(
        options=list(EXIT_CHOICES), value=exit_code, description=str(LABELS["exit"])
    )
    text = widgets.Text(
        value=stdout,
        description=str(LABELS["stdout"]),
        placeholder='{"hookSpecificOutput": {...}}',
    )
    failure = widgets.ToggleButtons(
        options=["continue", "block"], value=on_failure, description="onFailure"
    )
    rules = widgets.Dropdown(options=list(RULE_SETS), value=rule, description=str(LABELS["rules"]))
    modes = widgets.Dropdown(
        options=[m.value for m in PermissionMode], value=mode, description=str(LABELS["mode"])
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


# --- notebooks 07b-08: the permission gate and Proposition 4.5 ----------------------------

# the gate's stations, left to right, in the order a call meets them
GATE_STATIONS = tuple(stage.value for stage in GateStage)
_VERDICT_COLOURS = {"deny": "#d9534f", "ask": "#f0ad4e", "allow": "#5cb85c", "defer": "#f0ad4e"}


def plot_gate_path(result: Any, ax: Any = None, dpi: int = 100) -> Any:
    """Draw the gate's eight stations left to right: the ones the call passed filled grey,
    the deciding one in the colour of its verdict (red deny, orange ask or defer, green
    allow), the ones it never reached dotted. Returns the figure."""
    from matplotlib.patches import Rectangle

    fig, ax = figure(ax, (12, 2.4), dpi)
    states = station_states(result)
    for i, (stage, state) in enumerate(states):
        reached = state != "unreached"
        colour = _VERDICT_COLOURS.get(state, "#dddddd" if reached else "white")
        ax.add_patch(
            Rectangle(
                (i * 1.25, 0),
                1,
                1,
                facecolor=colour,
                edgecolor="black",
                linestyle="-" if reached else ":",
            )
        )
        ax.text(
            i * 1.25 + 0.5,
            0.5,
            _wrap(str(STATIONS[stage])),
            ha="center",
            va="center",
            fontsize=10,
        )
        if i:
            ax.annotate(
                "",
                (i * 1.25, 0.5),
                (i * 1.25 - 0.25, 0.5),
                arrowprops={"arrowstyle": "->", "lw": 1.2},
            )
    ax.set_xlim(-0.1, len(states) * 1.25)
    ax.set_ylim(-0.1, 1.1)
    ax.axis("off")
    verdict = "defer" if getattr(result, "deferred", False) else str(result.final)
    ax.set_title(str(LABELS["gate_title"].format(verdict=VERDICTS[verdict])), fontsize=12)
    fig.tight_layout()
    return fig


def _wrap(label: str) -> str:
    """A station's label on at most two lines inside its box (at the middle space, or in the
    middle of a label without spaces: "どれにも" / "当たらない")."""
    if len(label) <= 8:
        return label
    if " " in label:
        words = label.split(" ")
        cut = max(1, len(words) // 2)
        return " ".join(words[:cut]) + "\n" + " ".join(words[cut:])
    half = len(label) // 2
    return label[:half] + "\n" + label[half:]


def plot_prop_4_5(groups: dict[str, Sequence[Any]], ax: Any = None, dpi: int = 100) -> Any:
    """Bars per group of :class:`~mcpmini.course.chapters.hooklab.Trial` (keys of
    :data:`~.hooklab.PROP_4_5_GROUPS`, shown in words): executed calls, executed calls the
    hook had not seen first, and executed ``.env`` writes. Returns the figure."""

    fig, ax = figure(ax, (6.5, 3.8), dpi)
    measures = [
        (WORDS["col_executed"], "executed"),
        (WORDS["col_violations"], "violations"),
        (WORDS["col_env_writes"], "env_writes"),
    ]
    width = 0.8 / len(measures)
    for j, (label, attr) in enumerate(measures):
        values = [sum(getattr(t, attr) for t in trials) for trials in groups.values()]
        xs = [i + j * width for i in range(len(groups))]
        ax.bar(xs, values, width, label=str(label))
        for x, v in zip(xs, values, strict=True):
            ax.text(x, v, str(v), ha="center", va="bottom", fontsize=9)
    names = [str(PROP_4_5_GROUPS.get(key, key)) for key in groups]
    ax.set_xticks([i + width for i in range(len(groups))], names, fontsize=10)
    ax.set_title(str(LABELS["prop_4_5_title"]))
    ax.set_ylabel(str(LABELS["prop_4_5_y"]))
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig
