"""Notebook 00's table of chapters reads each notebook's section from its metadata, never from
its prose, and titles each chapter in the learner's language."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import polib

from mcpmini.course import Lang, use
from mcpmini.course.chapters import NO_SECTION, chapter_rows, chapter_table, section_of
from mcpmini.course.chapters.start import NO_TITLE, WARMUP, course_root
from mcpmini.course.language import EDITION_MARKER

ROOT = Path(__file__).resolve().parents[1]


def _course(tmp_path: Path) -> Path:
    folder = tmp_path / "notebooks"
    folder.mkdir()
    with_section = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# 01 拡張点\n\n**対応する記事の節:** §9.9（散文）")]
    )
    with_section.cells[0].id = "head01"
    with_section.metadata["mcpmini"] = {"section": "§1–2"}
    # prose names a section, the metadata does not: the table must not read the prose
    without = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# 02 MCP\n\n**対応する記事の節:** §3.1")]
    )
    without.cells[0].id = "head02"
    nbformat.write(with_section, folder / "01_extension_points.ipynb")
    nbformat.write(without, folder / "02_mcp_messages.ipynb")
    nbformat.write(nbformat.v4.new_notebook(), folder / "notes.ipynb")  # not a chapter
    return tmp_path


def test_the_section_comes_from_the_metadata_and_a_missing_one_is_listed_as_such(tmp_path):
    root = _course(tmp_path)
    with use(Lang.JA):
        rows = chapter_rows(root)
    assert [r["file"] for r in rows] == ["01_extension_points.ipynb", "02_mcp_messages.ipynb"]
    assert rows[0]["section"] == "§1–2"  # not the §9.9 the prose names
    assert rows[1]["section"] == NO_SECTION.ja
    assert rows[0]["title"] == "01 拡張点"


def test_the_english_titles_come_from_the_catalogue_and_nothing_japanese_leaks(tmp_path):
    root = _course(tmp_path)
    po = polib.POFile()
    po.append(polib.POEntry(msgctxt="head01", msgid="x", msgstr="# 01 Extension points\n\nbody"))
    (root / "i18n" / "en" / "notebooks").mkdir(parents=True)
    po.save(str(root / "i18n" / "en" / "notebooks" / "01_extension_points.po"))
    with use(Lang.EN):
        rows = chapter_rows(root)
        table = chapter_table(root)
    assert [r["title"] for r in rows] == ["01 Extension points", NO_TITLE.en]
    assert rows[1]["section"] == NO_SECTION.en
    assert list(table.columns) == ["file", "article section", "title"]
    assert not any(ord(ch) > 0x3000 for row in rows for value in row.values() for ch in value)


def test_a_section_that_is_not_text_counts_as_missing():
    assert section_of({"metadata": {"mcpmini": {"section": 3.5}}}) is None
    assert section_of({"metadata": {"mcpmini": "§3.5"}}) is None
    assert section_of({"metadata": {}}) is None
    assert section_of({"metadata": {"mcpmini": {"section": "§3.5"}}}) == "§3.5"


def test_the_english_edition_folder_finds_the_course_above_it(tmp_path):
    root = _course(tmp_path)
    edition = root / "en" / "notebooks"
    edition.mkdir(parents=True)
    (root / "en" / EDITION_MARKER).write_text("en\n")
    assert course_root(edition) == root
    assert course_root(root / "notebooks") == root


def test_every_chapter_notebook_this_helper_owns_names_its_section():
    owned = ["00_start_here", "01_extension_points", "02_mcp_messages",
             "02b_hosts_and_transports", "03_mcp_versions", "04_mcp_tools_errors",
             "05_mcp_server_client", "06_mcp_in_claude_code"]  # fmt: skip
    for name in owned:
        nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
        assert (section_of(nb) or "").startswith("§"), name


def test_the_warm_up_texts_exist_in_both_languages():
    for text in WARMUP.values():
        assert text.ja and text.en and not any(ord(ch) > 0x3000 for ch in text.en)


def test_the_catalogue_folder_is_the_editions():
    from mcpmini.course import edition
    from mcpmini.course.chapters.start import CATALOGUES

    assert CATALOGUES == edition.CATALOGUE_DIR
