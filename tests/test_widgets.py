"""Every widget, built as its notebook builds it, shows the article's numbers on first render.

A widget's controls must hold exactly the values it was given (an ``IntSlider`` snaps its
value to ``min + k·step``, which once turned d = 300 into 301), and its live report must
equal the plain function the notebook prints beside it.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("ipywidgets")

from mcpmini.course import LIVE_LABEL, Lang, live_html, report_text, use
from mcpmini.course.chapters import (
    RULE_SETS,
    context_cost_explorer,
    context_cost_lines,
    explain_matcher,
    hook_gate_lab,
    matcher_playground,
    reattach_explorer,
    reattach_lines,
    resolution_lines,
    resolution_switch,
    simulate_hook,
    version_picker,
)


def controls(box: Any) -> dict[str, Any]:
    """Every control under ``box`` with a description, by description."""
    found, stack = {}, [box]
    while stack:
        node = stack.pop()
        if getattr(node, "description", "") and hasattr(node, "value"):
            found[node.description] = node
        stack.extend(getattr(node, "children", ()))
    return found


@pytest.mark.parametrize("lang", [Lang.JA, Lang.EN])
def test_the_cost_explorer_starts_on_example_3_9_exactly(lang):
    with use(lang):
        box = context_cost_explorer(n=200, u=3, d=300, m=10)
        values = {k: w.value for k, w in controls(box).items()}
        assert values == {"N": 200, "u": 3, "d": 300, "m": 10}
        report = report_text(box)
        assert report == "\n".join(context_cost_lines(200, 3, 300, 10))
    for figure in ("60,000", "2,900", "57,100", "193.3", "u ≤ 193"):
        assert figure in report


@pytest.mark.parametrize(
    "n,u,d,m", [(200, 3, 300, 10), (50, 7, 123, 17), (500, 0, 1000, 100), (1, 1, 1, 0)]
)
def test_the_cost_explorer_keeps_any_valid_starting_point(n, u, d, m):
    values = {k: w.value for k, w in controls(context_cost_explorer(n, u, d, m)).items()}
    assert values == {"N": n, "u": u, "d": d, "m": m}


def test_the_version_picker_starts_on_the_notebook_sets_and_reports_them():
    picker = version_picker(
        client=("2024-11-05", "2026-07-28"), server=("2024-11-05", "2025-03-26")
    )
    assert picker.ticked() == (["2024-11-05", "2026-07-28"], ["2024-11-05", "2025-03-26"])
    assert report_text(picker.widget) == picker.report()
    picker.server_boxes[-1].value = True
    assert report_text(picker.widget) == picker.report() and "2026-07-28" in picker.ticked()[1]


@pytest.mark.parametrize(
    "lang,labels,total",
    [
        (Lang.EN, ("body", "a (per skill)", "A (total)"), "attached 25000 tokens"),
        (Lang.JA, ("本文", "a（1 つあたり）", "A（合計）"), "再添付 25000 トークン"),
    ],
)
def test_the_reattach_explorer_starts_on_seven_skills_of_6000_tokens(lang, labels, total):
    with use(lang):
        box = reattach_explorer(sizes=[6000] * 7)
        values = {k: w.value for k, w in controls(box).items()}
        assert values == {"k": 7, labels[0]: 6000, labels[1]: 5000, labels[2]: 25000}
        assert report_text(box) == "\n".join(reattach_lines([6000] * 7))
        assert total in report_text(box)


def test_the_resolution_switch_starts_on_the_whole_entry():
    sources = [
        ("user", {"db": {"url": "https://db.example.com", "headers": {"A": "1"}}}),
        ("local", {"db": {"url": "http://localhost:9000"}}),
    ]
    box = resolution_switch(sources, "db")
    assert report_text(box) == "\n".join(resolution_lines(sources, "db", "whole"))
    box.children[0].value = "merge"
    assert report_text(box) == "\n".join(resolution_lines(sources, "db", "merge"))


def test_the_matcher_playground_escapes_html_and_shows_the_named_group_verbatim():
    box = matcher_playground("(?<tool>Notebook)Edit", "NotebookEdit")
    assert "&lt;tool&gt;" in box.children[-1].value
    assert report_text(box) == explain_matcher("(?<tool>Notebook)Edit", "NotebookEdit").text()
    assert "(?<tool>Notebook)Edit" in report_text(box)


def test_the_hook_gate_lab_report_is_the_simulation_of_its_starting_controls():
    box = hook_gate_lab(exit_code=1, on_failure="continue", rule="allow Write", mode="default")
    expected = simulate_hook(1, "", "continue", RULE_SETS["allow Write"], "default").text()
    assert report_text(box) == expected


def test_the_live_report_is_labelled_so_it_is_not_mistaken_for_the_printed_one():
    assert live_html("a < b").startswith("<b>" + str(LIVE_LABEL))
    assert "a &lt; b" in live_html("a < b")


def test_committed_notebooks_save_the_state_of_every_widget_they_show():
    """A static viewer (nbviewer, a notebook opened before running) draws a widget from the
    state saved in the notebook's metadata; without it only ``VBox(children=…`` shows."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    shown = 0
    for path in sorted([*root.glob("notebooks/**/*.ipynb"), *root.glob("exercises/*.ipynb")]):
        nb = json.loads(path.read_text(encoding="utf-8"))
        state = (
            nb["metadata"]
            .get("widgets", {})
            .get("application/vnd.jupyter.widget-state+json", {})
            .get("state", {})
        )
        for cell in nb["cells"]:
            for output in cell.get("outputs", []):
                view = output.get("data", {}).get("application/vnd.jupyter.widget-view+json")
                if view:
                    shown += 1
                    assert view["model_id"] in state, f"{path.name}: widget state not saved"
    assert shown >= 6
