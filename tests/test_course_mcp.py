"""Tests of the plain functions behind notebook 03's widget and grid (Proposition 3.4)."""

from __future__ import annotations

import pytest

from mcpmini.course import Lang, use
from mcpmini.course.chapters import (
    GridCell,
    compare_versions,
    is_interval,
    negotiation_grid,
    negotiation_lines,
    plot_negotiation_grid,
    set_pairs,
    version_picker,
)
from mcpmini.course.chapters.versions import dated_rows, dated_table
from mcpmini.mcp import KNOWN_VERSIONS

A, B, C, D = "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"


def test_compare_versions_reports_the_part_2_counterexample():
    comparison = compare_versions([A, C], [A, B])
    assert comparison.common == (A,)
    assert comparison.handshake.agreed is None
    assert comparison.per_request.agreed == A
    assert comparison.per_request.requests == 2


def test_negotiation_lines_show_the_offer_the_answer_and_the_disconnect():
    with use(Lang.EN):
        lines = negotiation_lines(compare_versions([A, C], [A, B]).handshake)
    assert lines[0].startswith("C→S #1 initialize") and C in lines[0]
    assert lines[1].startswith("S→C #1 result") and B in lines[1]
    assert lines[2] == f"C ✕ disconnect: {B} is not supported by the client"
    with use(Lang.JA):
        assert negotiation_lines(compare_versions([A, C], [A, B]).handshake)[2].startswith(
            "C ✕ 切断: " + B
        )


def test_negotiation_lines_show_the_minus_32022_retry():
    lines = negotiation_lines(compare_versions([A, C], [A, B]).per_request)
    assert [line[:3] for line in lines] == ["C→S", "S→C", "C→S", "S→C"]
    assert "-32022" in lines[1]
    assert A in lines[2]


def test_compare_versions_refuses_an_empty_set():
    with pytest.raises(ValueError):
        compare_versions([], [A])
    with pytest.raises(ValueError):
        compare_versions([A], [])


def test_version_picker_report_follows_the_ticked_boxes():
    picker = version_picker(KNOWN_VERSIONS, client=[A, C], server=[A, B])
    assert picker.ticked() == ([A, C], [A, B])
    assert picker.report() == compare_versions([A, C], [A, B]).text()
    for box in picker.server_boxes:
        box.value = box.description == C
    assert picker.ticked() == ([A, C], [C])
    assert picker.report() == compare_versions([A, C], [C]).text()
    assert C + " で合意" in picker.widget.children[1].value
    with use(Lang.EN):
        assert "agreed on " + C in picker.report()


def test_version_picker_with_an_empty_side_says_so_instead_of_raising():
    picker = version_picker(KNOWN_VERSIONS, client=[A], server=[B])
    for box in picker.client_boxes:
        box.value = False
    assert picker.ticked()[0] == []
    with use(Lang.EN):
        assert "must not be empty" in picker.report()


def test_version_picker_refuses_initial_versions_outside_the_universe():
    with pytest.raises(ValueError):
        version_picker([A, B, C, D], client=["2099-01-01"], server=[A])


def test_grid_covers_every_pair_once():
    universe = [A, B, C, D]
    grid = negotiation_grid(universe)
    assert len(grid.subsets) == 2**4 - 1
    pairs = {pair for kind in GridCell for pair in grid.pairs(kind)}
    assert pairs == set(set_pairs(universe))
    assert sum(grid.count(kind) for kind in GridCell) == 15 * 15


def test_grid_cells_follow_proposition_3_4():
    grid = negotiation_grid(KNOWN_VERSIONS)
    assert grid.count(GridCell.HANDSHAKE_ONLY) == 0
    for kind in GridCell:
        for c, s in grid.pairs(kind):
            common = set(c) & set(s)
            handshake_ok = max(c) in s or max(s) in c  # part 1 with the newest offers
            assert (kind in (GridCell.BOTH, GridCell.PER_REQUEST_ONLY)) == bool(common)
            assert (kind is GridCell.BOTH) == handshake_ok
            if common and is_interval(c, KNOWN_VERSIONS) and is_interval(s, KNOWN_VERSIONS):
                assert kind is GridCell.BOTH  # part 3


def test_grid_places_the_counterexample_in_the_orange_cells():
    grid = negotiation_grid([A, B, C])
    assert ((A, C), (A, B)) in grid.pairs(GridCell.PER_REQUEST_ONLY)
    assert grid.label((A, C)) == "ac"


def test_grid_refuses_an_empty_or_oversized_universe():
    with pytest.raises(ValueError):
        negotiation_grid([])
    with pytest.raises(ValueError):
        negotiation_grid([f"2020-01-{d:02d}" for d in range(1, 10)])


def test_plot_negotiation_grid_draws_one_image_with_a_legend_entry_per_kind():
    import matplotlib

    matplotlib.use("Agg")
    fig = plot_negotiation_grid(negotiation_grid([A, B, C]))
    ax = fig.axes[0]
    assert len(ax.images) == 1
    assert ax.images[0].get_array().shape == (7, 7)
    assert len(ax.get_legend().get_texts()) == len(GridCell)
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_negotiation_lines_end_with_a_disconnect_when_the_sets_are_disjoint():
    comparison = compare_versions([A, B], [C, D])
    assert comparison.common == ()
    assert not comparison.handshake.ok and not comparison.per_request.ok
    assert comparison.per_request.requests == 1
    for run in (comparison.handshake, comparison.per_request):
        with use(Lang.EN):
            assert negotiation_lines(run)[-1].startswith("C ✕ disconnect")
        with use(Lang.JA):
            assert negotiation_lines(run)[-1].startswith("C ✕ 切断")


def test_dated_versions_straddling_the_generations_part_the_model_from_the_real_peers():
    """Note 3.5: with dated versions the model's answers are not what real peers do."""
    rows = {r["way"]: r for r in dated_rows((A, "2026-07-28"), (A, B))}
    assert not rows["model_handshake"]["ok"]
    assert rows["model_per_request"]["version"] == A  # per request on a 2024 version: impossible
    assert not rows["real_modern"]["ok"]  # the handshake-only server refuses the envelope
    assert rows["real_auto"] == {
        "way": "real_auto", "ok": True, "generation": "legacy", "version": A, "requests": 2
    }  # fmt: skip


@pytest.mark.parametrize("lang", [Lang.JA, Lang.EN])
def test_the_reports_and_the_figure_speak_one_language(lang):
    import matplotlib.pyplot as plt

    with use(lang):
        text = compare_versions([A, C], [A, B]).text()
        table = dated_table((A, "2026-07-28"), (A, B)).to_string()
        fig = plot_negotiation_grid(negotiation_grid([A, B]))
        legend = " ".join(t.get_text() for t in fig.axes[0].get_legend().get_texts())
        words = fig.axes[0].get_title() + fig.axes[0].get_xlabel() + legend
    plt.close(fig)
    for shown in (text, table, words):
        assert any("\u3040" <= ch <= "\u9fff" for ch in shown) == (lang is Lang.JA), shown
