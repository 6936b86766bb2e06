"""Notebook 03: both negotiation models on the client's and the server's version sets.

:func:`compare_versions` runs the two models of :mod:`.negotiation` on one pair ``(C, S)``
and :func:`version_picker` is the widget around it; :func:`negotiation_grid` runs them on
every pair over a small universe and :func:`plot_negotiation_grid` draws the grid
(Proposition 3.4). ``ipywidgets`` and ``matplotlib`` are imported inside the builders only.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ...mcp import KNOWN_VERSIONS
from ..plots import figure
from ..report import live_html
from .negotiation import Negotiation, negotiate_handshake, negotiate_per_request, non_empty_subsets

__all__ = [
    "GridCell",
    "NegotiationGrid",
    "VersionComparison",
    "VersionPicker",
    "compare_versions",
    "negotiation_grid",
    "negotiation_lines",
    "plot_negotiation_grid",
    "version_picker",
]


# --- notebook 03: the client's and the server's version sets (Proposition 3.4) ---------


@dataclass(frozen=True)
class VersionComparison:
    """Both negotiation models run on the same pair of version sets.

    ``common`` is ``C ∩ S`` (sorted); ``handshake`` and ``per_request`` are the
    :class:`~mcpmini.mcp.Negotiation` results of the two generations' rules.
    """

    client: tuple[str, ...]
    server: tuple[str, ...]
    common: tuple[str, ...]
    handshake: Negotiation
    per_request: Negotiation

    def text(self) -> str:
        """A plain-text report: the sets, each method's outcome and its message sequence."""
        out = [
            f"C = {{{', '.join(self.client)}}}",
            f"S = {{{', '.join(self.server)}}}",
            f"C ∩ S = {{{', '.join(self.common)}}}",
        ]
        for title, run in (
            ("handshake (2025-11-25)", self.handshake),
            ("per-request (2026-07-28)", self.per_request),
        ):
            verdict = f"agreed on {run.agreed}" if run.ok else "FAILED"
            out.append("")
            out.append(f"{title}: {verdict}, {run.requests} request(s)")
            out.extend("  " + line for line in negotiation_lines(run))
        return "\n".join(out)


def compare_versions(client: Collection[str], server: Collection[str]) -> VersionComparison:
    """Run :func:`negotiate_handshake` and :func:`negotiate_per_request` on ``(C, S)``.

    Both sides use their defaults (each offers its newest version). Returns a
    :class:`VersionComparison`. Raises ``ValueError`` when either set is empty.
    """
    handshake = negotiate_handshake(client, server)
    per_request = negotiate_per_request(client, server)
    common = tuple(sorted(set(client) & set(server)))
    return VersionComparison(handshake.client, handshake.server, common, handshake, per_request)


def _summary(message: dict[str, Any]) -> str:
    """The fields of one model message that matter for the negotiation, in wire order."""
    if "method" in message:
        params = message.get("params") or {}
        if "protocolVersion" in params:
            detail = f" protocolVersion={params['protocolVersion']}"
        else:
            meta = params.get("_meta") or {}
            versions = [v for k, v in meta.items() if k.endswith("protocolVersion")]
            detail = f" _meta.protocolVersion={versions[0]}" if versions else ""
        rid = f"#{message['id']} " if "id" in message else ""
        return f"{rid}{message['method']}{detail}"
    if "error" in message:
        error = message["error"]
        return f"#{message['id']} error {error['code']} data={json.dumps(error.get('data'))}"
    result = message.get("result", {})
    if "protocolVersion" in result:
        return f"#{message['id']} result protocolVersion={result['protocolVersion']}"
    return f"#{message['id']} result ({result.get('resultType', 'ok')})"


def negotiation_lines(run: Negotiation) -> list[str]:
    """One line per message of ``run``: ``C→S …`` / ``S→C …``, or ``C ✕ disconnect: …``."""
    lines = []
    for sender, message in run.messages:
        if "disconnect" in message:
            lines.append(f"C ✕ disconnect: {message['disconnect']}")
            continue
        arrow = "C→S" if sender == "client" else "S→C"
        lines.append(f"{arrow} {_summary(message)}")
    return lines


@dataclass
class VersionPicker:
    """The version-set widget of notebook 03 and the plain function behind it.

    ``widget`` is the ipywidgets box to display; ``client_boxes`` / ``server_boxes`` are
    its checkboxes (one per version of the universe); :meth:`report` is the text the
    box shows for the currently ticked sets.
    """

    widget: Any
    client_boxes: list[Any]
    server_boxes: list[Any]

    def ticked(self) -> tuple[list[str], list[str]]:
        """The versions currently ticked for C and for S."""
        return (
            [b.description for b in self.client_boxes if b.value],
            [b.description for b in self.server_boxes if b.value],
        )

    def report(self) -> str:
        """:meth:`VersionComparison.text` for the ticked sets, or a hint when one is empty."""
        c, s = self.ticked()
        if not c or not s:
            return "Tick at least one version on each side (C and S must not be empty)."
        return compare_versions(c, s).text()


def version_picker(
    universe: Sequence[str] = KNOWN_VERSIONS,
    client: Collection[str] = ("2024-11-05", "2026-07-28"),
    server: Collection[str] = ("2024-11-05", "2025-03-26"),
) -> VersionPicker:
    """Checkboxes for C and S over ``universe`` with a live report of both methods.

    Returns a :class:`VersionPicker`; display its ``widget`` and print its ``report()``
    (a headless run shows only the printed text). While a set is empty the report says
    so instead of negotiating. Raises ``ValueError`` when an initial version is not in
    ``universe``.
    """
    import ipywidgets as widgets

    versions = sorted(set(universe))
    unknown = (set(client) | set(server)) - set(versions)
    if unknown:
        raise ValueError(f"versions {sorted(unknown)} are not in the universe {versions}")

    def boxes(picked: Collection[str]) -> list[Any]:
        return [
            widgets.Checkbox(
                value=v in picked, description=v, indent=False, layout=widgets.Layout(width="auto")
            )
            for v in versions
        ]

    c_boxes, s_boxes = boxes(client), boxes(server)
    output = widgets.HTML()
    box = widgets.VBox(
        [
            widgets.HBox(
                [
                    widgets.VBox([widgets.Label("client C"), *c_boxes]),
                    widgets.VBox([widgets.Label("server S"), *s_boxes]),
                ]
            ),
            output,
        ]
    )
    picker = VersionPicker(box, c_boxes, s_boxes)

    def refresh(_: Any = None) -> None:
        output.value = live_html(picker.report())

    for checkbox in c_boxes + s_boxes:
        checkbox.observe(refresh, names="value")
    refresh()
    return picker


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
    fig, ax = figure(ax, (size, size + 1.6), dpi)
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
