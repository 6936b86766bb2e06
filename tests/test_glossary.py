"""The glossary holds one Japanese and one English term per concept, and each edition uses
only its terms.

``mcpmini/course/data/glossary.yaml`` lists, per section (``course:``, ``exam:``), entries
``{ja, en, note, note_en, avoid, avoid_en}``. Every ``avoid`` variant is searched for in every
notebook under ``notebooks/``, ``exercises/`` and ``solutions/`` (markdown and code, not
outputs) and in the text the course's modules show (the source of every module under
``mcpmini/course/``); every ``avoid_en`` variant in every English catalogue of ``i18n/en/``
(the English of each markdown cell, code spans left out). Each hit is a failure naming the
file, the cell and the term to use instead.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polib
import pytest

from mcpmini.course import (
    GlossaryError,
    Lang,
    Text,
    UnknownTerm,
    glossary_entries,
    load_glossary,
    term,
    use,
)

ROOT = Path(__file__).resolve().parents[1]
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


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


def english_texts() -> list[tuple[str, str]]:
    """``(where, text)`` for the English of every catalogue entry, without its code spans."""
    found = []
    for path in sorted((ROOT / "i18n" / "en").glob("**/*.po")):
        for entry in polib.pofile(str(path)):
            if entry.msgstr and not entry.obsolete:
                where = f"{path.relative_to(ROOT)} cell {entry.msgctxt}"
                found.append((where, _CODE_SPAN.sub(" ", entry.msgstr)))
    return found


def test_every_entry_has_both_terms_both_notes_and_both_lists_of_variants():
    assert entries(), "the glossary is empty"
    for e in entries():
        for name in ("ja", "en", "note", "note_en"):
            assert isinstance(e.get(name), str) and e[name], (name, e)
        for name in ("avoid", "avoid_en"):
            assert isinstance(e.get(name), list) and all(
                isinstance(v, str) and v for v in e[name]
            ), (name, e)


def test_the_english_side_holds_no_japanese():
    for e in glossary_entries():
        assert not _JAPANESE.search(e.en + e.note.en + "".join(e.avoid_en)), e


def test_each_concept_has_one_term_in_each_language_and_no_term_is_a_variant():
    for lang in ("ja", "en"):
        terms = [(e["section"], e[lang]) for e in entries()]
        assert len(terms) == len(set(terms)), lang
    variants = {v for e in entries() for v in e["avoid"]}  # type: ignore[attr-defined]
    assert not variants & {e["ja"] for e in entries()}
    variants_en = {v for e in entries() for v in e["avoid_en"]}  # type: ignore[attr-defined]
    assert not variants_en & {e["en"] for e in entries()}


@pytest.mark.parametrize("entry", entries(), ids=lambda e: f"{e['section']}:{e['ja']}")
def test_no_notebook_or_widget_uses_a_variant_the_glossary_rules_out(entry):
    hits = [
        f"{where}: {variant!r} (use {entry['ja']!r})"
        for variant in entry["avoid"]
        for where, text in texts()
        if variant in text
    ]
    assert hits == []


def test_no_english_catalogue_uses_an_english_variant_the_glossary_rules_out():
    found = english_texts()
    hits = [
        f"{where}: {variant!r} (use {e.en!r})"
        for e in glossary_entries()
        for variant in e.avoid_en
        for where, text in found
        if re.search(rf"\b{re.escape(variant)}\b", text, re.I)
    ]
    assert hits == []


def test_a_term_is_a_pair_that_speaks_the_learners_language():
    gate = term("関門")
    assert gate == Text("関門", "permission gate")
    assert term("permission gate") == gate
    with use(Lang.JA):
        assert f"{term('予算')}: 2,000" == "予算: 2,000"
    with use(Lang.EN):
        assert f"{term('予算')}: 2,000" == "budget: 2,000"
        assert str(term("登録簿")) == "registry"


def test_the_section_picks_between_sections():
    assert term("説明文", section="exam").en == "tool description"
    with pytest.raises(UnknownTerm):
        term("説明文", section="course")


def test_an_unknown_term_is_one_key_error_naming_the_closest_terms():
    with pytest.raises(KeyError) as caught:
        term("登録")
    assert isinstance(caught.value, UnknownTerm)
    assert "登録簿" in caught.value.closest
    assert str(caught.value).startswith("'登録' is not a term of the glossary; closest:")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("- just a list\n", "top level"),
        ("course: {ja: x}\n", "section 'course'"),
        ("course:\n- not a mapping\n", "course[0]"),
        (
            "course:\n- {ja: 語, en: word, note: 説明, avoid: [], avoid_en: []}\n",
            "course[0] (語): 'note_en'",
        ),
        (
            "course:\n- {ja: 語, en: word, note: 説明, note_en: '', avoid: [], avoid_en: []}\n",
            "course[0] (語): 'note_en'",
        ),
        (
            "exam:\n- {ja: 語, en: word, note: 説明, note_en: says, avoid: [''], avoid_en: []}\n",
            "exam[0] (語): 'avoid'",
        ),
    ],
)
def test_a_malformed_glossary_is_one_error_naming_the_entry_and_field(tmp_path, text, where):
    path = tmp_path / "glossary.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GlossaryError) as caught:
        glossary_entries(path)
    assert where in str(caught.value) and "\n" not in str(caught.value)


def test_an_edited_glossary_is_read_again(tmp_path):
    path = tmp_path / "glossary.yaml"
    line = "course:\n- {{ja: 語, en: {en}, note: 説明, note_en: says, avoid: [], avoid_en: []}}\n"
    path.write_text(line.format(en="word"), encoding="utf-8")
    assert term("語", path=path).en == "word"
    path.write_text(line.format(en="term"), encoding="utf-8")
    import os

    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert term("語", path=path).en == "term"
