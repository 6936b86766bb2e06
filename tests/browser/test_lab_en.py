"""Every notebook of the English edition (``en/notebooks/``, ``en/exercises/``) in JupyterLab in a
real browser, as ``test_lab.py`` runs the Japanese one. A module of its own so that, under
``--dist loadscope``, the two editions run on different workers."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Lab
from .runner import NotebookRun, notebooks, run_notebooks

# The first test's setup runs every notebook (a module fixture): lift the per-test timeout.
pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def runs(lab: Lab, browser: Any) -> dict[str, NotebookRun]:
    return run_notebooks(lab, browser, "en")


@pytest.mark.parametrize("path", notebooks("en"))
def test_the_english_notebook_runs_in_the_browser_without_errors_and_its_widgets_respond(
    runs: dict[str, NotebookRun], path: str
) -> None:
    run = runs[path]
    assert run.problems == []
    for w in run.widgets:
        assert w.report_changed, f"widget {w.index}: no report change after {w.tried}"
        assert not w.has_plot or w.plot_changed, f"widget {w.index}: plot unchanged after {w.tried}"
