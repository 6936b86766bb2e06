"""Every notebook of the Japanese edition (``notebooks/``, ``exercises/``) in JupyterLab in a
real browser (the machinery is :mod:`.runner`; the English edition is ``test_lab_en.py``, the
CCA-F exam screen ``test_exam.py``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .conftest import Lab
from .runner import NotebookRun, notebooks, run_notebooks

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
