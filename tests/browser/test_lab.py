"""Every notebook of the Japanese edition (``notebooks/``, ``exercises/``) in JupyterLab in a
real browser (the machinery is :mod:`.runner`; the English edition is ``test_lab_en.py``),
and the CCA-F exam widget's timer."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from .conftest import SHOTS, Lab
from .runner import (
    CHANGE_MS,
    MARK_WIDGETS_JS,
    NotebookRun,
    _open,
    _run_all,
    _wait_done,
    notebooks,
    run_notebooks,
)

# The first test's setup runs every notebook (a module fixture): lift the per-test timeout.
pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def runs(lab: Lab, browser: Any) -> dict[str, NotebookRun]:
    return run_notebooks(lab, browser, "ja")


@pytest.mark.parametrize("path", notebooks("ja"))
def test_the_notebook_runs_in_the_browser_without_errors_and_its_widgets_respond(
    runs: dict[str, NotebookRun], path: str
) -> None:
    run = runs[path]
    assert run.problems == []
    for w in run.widgets:
        assert w.report_changed, f"widget {w.index}: no report change after {w.tried}"
        assert not w.has_plot or w.plot_changed, f"widget {w.index}: plot unchanged after {w.tried}"


def test_the_browser_test_covers_every_notebook_folder() -> None:
    if os.environ.get("BROWSER_NOTEBOOKS"):
        pytest.skip("BROWSER_NOTEBOOKS restricts the run")
    found = {Path(p).parts[0] for p in notebooks("ja")}
    assert found == {"notebooks", "exercises"}


# --- the CCA-F exam widget: a timer that runs by itself, answers locked on submit --------------

EXAM_CELLS = [
    "from mcpmini.course.ccaf import exam_mode\n"
    "exam_mode(2, seed=1, minutes=0.1, record=False, lang='en')",  # 6 s: submits by itself
    "exam_mode(2, seed=2, minutes=30, record=False, lang='en')",
]
EXAM_STATE_JS = """(root) => ({
  header: (root.querySelector('.widget-html-content') || {}).textContent || '',
  report: (root.querySelector('.widget-html-content pre') || {}).textContent || '',
  inputs: [...root.querySelectorAll('input[type=radio], input[type=checkbox]')]
      .map(e => e.disabled),
})"""


def test_the_exam_timer_runs_without_a_click_and_submitting_locks_the_answers(
    lab: Lab, browser: Any
) -> None:
    path = "exam_timer_check.ipynb"
    cells = [
        {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
        for s in EXAM_CELLS
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    (lab.root / path).write_text(json.dumps(notebook), encoding="utf-8")
    page = _open(browser, lab, path, 9)
    try:
        _run_all(page)
        _wait_done(page)
        assert page.evaluate(MARK_WIDGETS_JS) == 2
        timed, other = (page.locator(f"[data-course-widget='{i}']") for i in (0, 1))
        # no click anywhere: the first exam's clock reaches zero and it submits itself
        page.wait_for_function(
            f"(r) => ({EXAM_STATE_JS})(r).report.includes('scaled score')",
            arg=timed.element_handle(),
            timeout=CHANGE_MS,
        )
        state = timed.evaluate(EXAM_STATE_JS)
        assert "Time is up" in state["header"] and state["inputs"] and all(state["inputs"])
        # the second exam's time left changes with no click, then Submit locks its answers
        first = other.evaluate(EXAM_STATE_JS)["header"]
        page.wait_for_function(
            f"([r, old]) => ({EXAM_STATE_JS})(r).header !== old",
            arg=[other.element_handle(), first],
            timeout=CHANGE_MS,
        )
        assert not any(other.evaluate(EXAM_STATE_JS)["inputs"])
        other.locator("input[type=radio]").first.click()
        other.locator("button.jupyter-button", has_text="Submit").click()
        page.wait_for_function(
            f"(r) => {{ const s = ({EXAM_STATE_JS})(r); "
            "return s.report.includes('scaled score') && s.inputs.every(d => d); }",
            arg=other.element_handle(),
            timeout=CHANGE_MS,
        )
    finally:
        page.screenshot(path=str(SHOTS / "exam_timer_check.png"))
        page.close()
