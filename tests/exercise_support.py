"""Shared helper of the exercise tests: the answer a notebook's tagged answer cell defines."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import nbformat


def answer_of(path: Path, ids: Collection[str]) -> object:
    """Run the one cell tagged ``answer`` of ``path`` and return its ``answer``; the notebook's
    ``metadata.mcpmini.exercise`` must be one of ``ids``."""
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "answer" in c.metadata.get("tags", [])]
    assert len(cells) == 1, path
    namespace: dict[str, object] = {}
    exec(cells[0].source, namespace)
    assert nb.metadata["mcpmini"]["exercise"] in ids
    return namespace["answer"]
