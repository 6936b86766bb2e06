"""The two editions of the repository itself: the English notebooks are what a build from the
Japanese notebooks and their catalogues gives (same code cells, same ids, the English
markdown), hold no Japanese, and the Japanese edition's code and outputs speak Japanese.

The machinery is tested on a small repository of its own in ``test_edition.py``; here every
check runs over the real notebooks (``mcpmini.course.edition``).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from mcpmini.course import edition

ROOT = Path(__file__).resolve().parents[1]
SOURCES = edition.sources(ROOT)
BUILT = [nb for nb in SOURCES if edition.edition_path(ROOT, nb).exists()]


def _ids(nb: nbformat.NotebookNode, kind: str) -> list[str]:
    return [c.id for c in nb.cells if c.cell_type == kind]


def test_every_japanese_notebook_has_its_english_edition():
    missing = [str(nb) for nb in SOURCES if nb not in BUILT]
    assert missing == []


def test_the_english_edition_has_no_notebook_without_a_japanese_source():
    english = sorted(
        p.relative_to(ROOT / edition.EDITION_DIR)
        for p in (ROOT / edition.EDITION_DIR).rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    )
    assert [str(p) for p in english if p not in SOURCES] == []


@pytest.mark.parametrize("notebook", BUILT, ids=str)
def test_the_code_cells_are_identical_in_id_order_and_source(notebook):
    ja = nbformat.read(ROOT / notebook, as_version=4)
    en = nbformat.read(edition.edition_path(ROOT, notebook), as_version=4)
    code = [(c.id, c.source) for c in ja.cells if c.cell_type == "code"]
    assert [(c.id, c.source) for c in en.cells if c.cell_type == "code"] == code
    assert _ids(en, "markdown") == _ids(ja, "markdown")
    assert [c.cell_type for c in en.cells] == [c.cell_type for c in ja.cells]


@pytest.mark.parametrize("notebook", SOURCES, ids=str)
def test_the_catalogue_is_complete_and_the_english_notebook_current_and_free_of_japanese(
    notebook,
):
    assert [str(p) for p in edition.problems(ROOT, [notebook])] == []


@pytest.mark.parametrize("notebook", SOURCES, ids=str)
def test_no_code_cell_of_the_japanese_edition_holds_japanese(notebook):
    ja = nbformat.read(ROOT / notebook, as_version=4)
    found = [c.id for c in ja.cells if c.cell_type == "code" and edition.japanese_chars(c.source)]
    assert found == []


@pytest.mark.parametrize("notebook", SOURCES, ids=str)
def test_the_japanese_edition_prints_no_english_label_outside_the_justified_cells(notebook):
    assert [str(p) for p in edition.purity_problems(ROOT, [notebook])] == []


def test_every_justified_english_output_names_a_real_cell_and_a_reason():
    for name, cells in edition.english_allowed(ROOT).items():
        assert Path(name) in SOURCES, name
        nb = nbformat.read(ROOT / name, as_version=4)
        ids = {c.id for c in nb.cells}
        for cell_id, why in cells.items():
            assert cell_id in ids, (name, cell_id)
            assert len(why.split()) >= 4, (name, cell_id, why)
