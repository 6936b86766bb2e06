"""Notebook 03: both negotiation models on the client's and the server's version sets.

:func:`compare_versions` runs the two models of :mod:`.negotiation` on one pair ``(C, S)``
and :func:`version_picker` is the widget around it; :func:`negotiation_grid` runs them on
every pair over a small universe and :func:`plot_negotiation_grid` draws the grid
(Proposition 3.4). :func:`dated_rows` / :func:`dated_table` set the model beside the real
:class:`~mcpmini.mcp.Client` and :class:`~mcpmini.mcp.Server` on dated versions (Note 3.5).
``ipywidgets`` and ``matplotlib`` are imported inside the builders only. Every word a learner
reads is a row of :data:`WORDS` (or :data:`GRID_TEXT`) in the learner's language.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ...errors import McpminiError
from ...mcp import KNOWN_VERSIONS, Client, Server, Traced, memory_pair
from ..language import Text
from ..plots import figure
from ..report import live_html
from .negotiation import Negotiation, negotiate_handshake, negotiate_per_request, non_empty_subsets

__all__ = [
    "GRID_TEXT",
    "WORDS",
    "GridCell",
    "NegotiationGrid",
    "VersionComparison",
    "VersionPicker",
    "compare_versions",
    "dated_rows",
    "dated_table",
    "negotiation_grid",
    "negotiation_lines",
    "plot_negotiation_grid",
    "version_picker",
]


#: Every word of notebook 03's reports, widget, checks and figure (``{name}`` formatted in).
WORDS: dict[str, Text] = {
    "handshake_title": Text("握手（2025-11-25）", "handshake (2025-11-25)"),
    "per_request_title": Text("要求ごと（2026-07-28）", "per-request (2026-07-28)"),
    "agreed": Text("{version} で合意", "agreed on {version}"),
    "failed": Text("失敗", "FAILED"),
    "outcome": Text("{title}: {verdict}、要求 {n} 回", "{title}: {verdict}, {n} request(s)"),
    "unsupported": Text(
        "C ✕ 切断: {version} はクライアントが対応しない版",
        "C ✕ disconnect: {version} is not supported by the client",
    ),
    "no_common": Text("C ✕ 切断: 共通の版が無い", "C ✕ disconnect: no version in common"),
    "empty_side": Text(
        "両側で 1 つ以上の版に印を付けてください（C も S も空にはできません）。",
        "Tick at least one version on each side (C and S must not be empty).",
    ),
    "client": Text("クライアント C", "client C"),
    "server": Text("サーバ S", "server S"),
    "result_keys": Text(
        "{mode:<7} tools/list の結果のキー: {keys}", "{mode:<7} tools/list result keys: {keys}"
    ),
    "params_keys": Text(
        "{mode:<7} tools/call の params のキー: {keys}", "{mode:<7} tools/call params keys: {keys}"
    ),
    "part_1": Text(
        "{pairs} 組、(c*, s*) の選び方 {choices} 通り: すべてで 1 が成り立つ",
        "{pairs} pairs, {choices} choices of (c*, s*): part 1 holds for all",
    ),
    "part_2_count": Text(
        "C ∩ S ≠ ∅ なのに最新の版を出す握手が失敗する組: {n}",
        "pairs with C ∩ S ≠ ∅ where the newest-offer handshake fails: {n}",
    ),
    "part_2_smallest": Text("いちばん小さいもの: {pair}", "a smallest one: {pair}"),
    "part_2_article": Text(
        "記事の C={{a,c}}, S={{a,b}} はその中にあるか: {found}",
        "the article's C={{a,c}}, S={{a,b}} is among them: {found}",
    ),
    "part_3": Text(
        "共通の版がある区間の組 {n} 組: すべて握手で成立",
        "{n} interval pairs with a common version: all succeed by handshake",
    ),
    "part_4": Text(
        "要求ごとの方式の実行 {n} 回: すべてで 4 が成り立つ",
        "{n} per-request runs: part 4 holds for all",
    ),
    "grid_count": Text("{n:4d}  {kind}", "{n:4d}  {kind}"),
    "grid_x": Text("サーバの版の集合 S", "the server's set of versions S"),
    "grid_y": Text("クライアントの版の集合 C", "the client's set of versions C"),
    "grid_title": Text(
        "命題 3.4：{n} 組の (C, S) での 2 つの方式\n{names}",
        "Proposition 3.4: both methods on {n} pairs (C, S)\n{names}",
    ),
    "grid_legend": Text("{kind}（{n}）", "{kind} ({n})"),
    # Note 3.5: dated versions, the model beside the real client and server
    "way": Text("方式", "way"),
    "ok": Text("成立", "agreed"),
    "generation": Text("世代", "generation"),
    "version": Text("版", "version"),
    "requests": Text("要求の回数", "requests"),
    "model_handshake": Text("模型: 握手", "model: handshake"),
    "model_per_request": Text("模型: 要求ごと", "model: per-request"),
    "real_modern": Text('本物: Client(mode="modern")', 'real: Client(mode="modern")'),
    "real_auto": Text('本物: Client(mode="auto")', 'real: Client(mode="auto")'),
    "handshake_generation": Text("握手", "handshake"),
    "per_request_generation": Text("要求ごと", "per-request"),
}


def _w(row: str, /, **fields: Any) -> str:
    return WORDS[row].lang().format(**fields)


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
            (_w("handshake_title"), self.handshake),
            (_w("per_request_title"), self.per_request),
        ):
            verdict = _w("agreed", version=run.agreed) if run.ok else _w("failed")
            out.append("")
            out.append(_w("outcome", title=title, verdict=verdict, n=run.requests))
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
    """One line per message of ``run``: ``C→S …`` / ``S→C …``, or the client's disconnect
    (``C ✕ …``, in the learner's language)."""
    lines = []
    for sender, message in run.messages:
        if "disconnect" in message:
            reason = message.get("reason", "no_common")
            lines.append(_w(reason, version=message.get("version")))
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
            return _w("empty_side")
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
                    widgets.VBox([widgets.Label(_w("client")), *c_boxes]),
                    widgets.VBox([widgets.Label(_w("server")), *s_boxes]),
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
    def text(self) -> Text:
        """The legend text for this kind of cell, in both languages."""
        return GRID_TEXT[self]


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


#: What each kind of grid cell is called (the English is the member's value).
GRID_TEXT: dict[GridCell, Text] = {
    GridCell.BOTH: Text("両方とも成立", GridCell.BOTH.value),
    GridCell.PER_REQUEST_ONLY: Text("握手は失敗、要求ごとは成立", GridCell.PER_REQUEST_ONLY.value),
    GridCell.HANDSHAKE_ONLY: Text("握手は成立、要求ごとは失敗", GridCell.HANDSHAKE_ONLY.value),
    GridCell.NEITHER: Text("両方とも失敗", GridCell.NEITHER.value),
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
    ax.set_xlabel(_w("grid_x"), fontsize=11)
    ax.set_ylabel(_w("grid_y"), fontsize=11)
    names = ", ".join(f"{'abcdefghijklmnopqrstuvwxyz'[i]}={v}" for i, v in enumerate(grid.universe))
    ax.set_title(_w("grid_title", n=len(grid.subsets) ** 2, names=names), fontsize=11)
    ax.legend(
        handles=[
            Patch(color=_COLOURS[k], label=_w("grid_legend", kind=k.text, n=grid.count(k)))
            for k in kinds
        ],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.1),
        ncol=2,
        fontsize=10,
    )
    fig.tight_layout()
    return fig


# --- notebook 03: the model beside the real client and server on dated versions (Note 3.5) ---


def _real(client: Collection[str], server: Collection[str], mode: str) -> dict[str, Any]:
    """Connect a real :class:`~mcpmini.mcp.Client` offering ``client`` to a real
    :class:`~mcpmini.mcp.Server` speaking ``server`` (in memory); what came of it."""
    transport = Traced(memory_pair(Server("dated", versions=tuple(sorted(server)))))
    try:
        connection = Client(transport, mode=mode, versions=tuple(sorted(client))).connect()
        agreed, generation = connection.version, connection.generation
    except McpminiError:
        agreed, generation = None, None
    requests = sum(
        1 for direction, m in transport.trace.messages() if direction == "send" and "id" in m
    )
    return {
        "ok": agreed is not None,
        "generation": generation,
        "version": agreed,
        "requests": requests,
    }


def dated_rows(client: Collection[str], server: Collection[str]) -> list[dict[str, Any]]:
    """Note 3.5 running: both models of :mod:`.negotiation` on dated version sets, beside a real
    client in ``modern`` and in ``auto`` mode against a real server of those versions.

    One row each, keyed ``way`` (a :data:`WORDS` key), ``ok``, ``generation`` (``"legacy"`` /
    ``"modern"`` for the real ones, the model's own for the model), ``version`` and ``requests``
    (the requests the client sent). Where the sets straddle the generations' boundary the
    model's answers are not what happens. Raises ``ValueError`` for an empty set.
    """
    handshake, per_request = (
        negotiate_handshake(client, server),
        negotiate_per_request(client, server),
    )
    rows = [
        {"way": "model_handshake", "ok": handshake.ok, "generation": "legacy",
         "version": handshake.agreed, "requests": handshake.requests},
        {"way": "model_per_request", "ok": per_request.ok, "generation": "modern",
         "version": per_request.agreed, "requests": per_request.requests},
    ]  # fmt: skip
    for way, mode in (("real_modern", "modern"), ("real_auto", "auto")):
        rows.append({"way": way, **_real(client, server, mode)})
    return rows


def dated_table(client: Collection[str], server: Collection[str]) -> Any:
    """:func:`dated_rows` as a ``pandas.DataFrame`` in the learner's language."""
    import pandas as pd

    names = {"legacy": _w("handshake_generation"), "modern": _w("per_request_generation")}
    return pd.DataFrame(
        [
            {
                _w("way"): _w(row["way"]),
                _w("ok"): row["ok"],
                _w("generation"): names.get(row["generation"] or "", "—"),
                _w("version"): row["version"] or "—",
                _w("requests"): row["requests"],
            }
            for row in dated_rows(client, server)
        ]
    )
