"""The glossary holds one Japanese term per concept, and the course uses only those terms.

``mcpmini/course/data/glossary.yaml`` lists, per section (``course:``, ``exam:``), entries
``{ja, en, note, avoid}``. Every ``avoid`` variant is searched for in every notebook under
``notebooks/``, ``exercises/`` and ``solutions/`` (markdown and code, not outputs) and in the
text the course's modules show (the source of every module under ``mcpmini/course/``); each hit
is a failure
naming the file, the cell and the term to use instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpmini.course import load_glossary

ROOT = Path(__file__).resolve().parents[1]


def entries() -> list[dict[str, object]]:
    data = load_glossary()
    return [dict(e, section=section) for section, items in data.items() for e in items]


def texts() -> list[tuple[str, str]]:
    """``(where, text)`` for every notebook cell and for every course module."""
    found = []
    for folder in ("notebooks", "exercises", "solutions"):
        for path in sorted((ROOT / folder).glob("**/*.ipynb")):
            if ".ipynb_checkpoints" in path.parts:
                continue
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            for i, cell in enumerate(cells):
                source = cell["source"]
                text = "".join(source) if isinstance(source, list) else source
                found.append((f"{path.relative_to(ROOT)} cell {i}", text))
    for module in sorted((ROOT / "mcpmini" / "course").glob("**/*.py")):
        found.append((str(module.relative_to(ROOT)), module.read_text(encoding="utf-8")))
    return found


def test_every_entry_has_a_term_an_english_term_a_note_and_a_list_of_variants():
    assert entries(), "the glossary is empty"
    for e in entries():
        assert isinstance(e.get("ja"), str) and e["ja"], e
        assert isinstance(e.get("en"), str) and e["en"], e
        assert isinstance(e.get("note"), str) and e["note"], e
        assert isinstance(e.get("avoid"), list) and all(
            isinstance(v, str) and v for v in e["avoid"]
        ), e


def test_each_concept_has_one_term_and_no_term_is_another_ones_variant():
    terms = [(e["section"], e["ja"]) for e in entries()]
    assert len(terms) == len(set(terms))
    variants = {v for e in entries() for v in e["avoid"]}  # type: ignore[attr-defined]
    assert not variants & {e["ja"] for e in entries()}


@pytest.mark.parametrize("entry", entries(), ids=lambda e: f"{e['section']}:{e['ja']}")
def test_no_notebook_or_widget_uses_a_variant_the_glossary_rules_out(entry):
    hits = [
        f"{where}: {variant!r} (use {entry['ja']!r})"
        for variant in entry["avoid"]
        for where, text in texts()
        if variant in text
    ]
    assert hits == []
