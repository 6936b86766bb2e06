"""Notebook 00: the table of the chapters, and the texts of the warm-up exercise.

:func:`chapter_table` lists the course's chapter notebooks (the Japanese sources under
``notebooks/``, the same set in both editions), each with the article section it mirrors and
its title in the learner's language (the first line of its first cell; in English, of that
cell's catalogue entry). The section is read from the notebook's metadata —
``metadata.mcpmini.section`` (:data:`SECTION_KEY`), e.g. ``"§3.5"`` — never from the prose;
a notebook without it is listed as :data:`NO_SECTION` so the gap shows. The built English
notebooks carry the same metadata (the build copies the notebook's metadata).

:data:`WARMUP` holds the texts of exercise 0.1, which notebook 00 builds in a code cell to show
how an :class:`~mcpmini.course.grading.Exercise` is put together.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..language import EDITION_MARKER, Lang, Text, current

__all__ = [
    "CHAPTER_COLUMNS",
    "NO_SECTION",
    "NO_TITLE",
    "SECTION_KEY",
    "WARMUP",
    "chapter_rows",
    "chapter_table",
    "course_root",
    "section_of",
]

#: Where a notebook names the article section it mirrors: ``metadata["mcpmini"]["section"]``.
SECTION_KEY = ("mcpmini", "section")
#: What the table shows for a notebook whose metadata has no section yet.
NO_SECTION = Text("（節のメタデータなし）", "(no section metadata)")
#: What the English table shows for a chapter whose first cell is not translated yet.
NO_TITLE = Text("（題の翻訳なし）", "(title not translated yet)")
#: The columns of :func:`chapter_table`.
CHAPTER_COLUMNS: dict[str, Text] = {
    "file": Text("ファイル", "file"),
    "section": Text("記事の節", "article section"),
    "title": Text("題", "title"),
}
#: Where the English catalogues are (``mcpmini.course.edition.CATALOGUE_DIR``; a track may
#: not import the edition module, which sits above the tracks — a test keeps the two equal).
CATALOGUES = Path("i18n") / "en"
# A chapter notebook: two digits, an optional letter (02b), an underscore.
_CHAPTER = re.compile(r"^\d\d[a-z]?_.+\.ipynb$")

#: The texts of exercise 0.1 (notebook 00), by the part they belong to.
WARMUP: dict[str, Text] = {
    "title": Text("ループの模型（練習）", "The loop model (warm-up)"),
    "statement": Text(
        "max_turns と対応の不変条件についての 2 問",
        "Two questions on max_turns and the pairing invariant",
    ),
    "model_calls": Text(
        "いつもツールを呼ぶモデルを max_turns=2 で動かしたときのモデルの呼び出し回数",
        "How many times the model is called when a model that always calls a tool runs "
        "with max_turns=2",
    ),
    "model_calls_2": Text(
        "最後に「上限なので実行しない」と判断する 1 回も数えます。",
        "Count the last call too: the one after which the loop stops because the limit is reached.",
    ),
    "broken_ok": Text(
        "上の broken の会話は対応の不変条件を満たすか",
        "Does the conversation broken above satisfy the pairing invariant?",
    ),
    "broken_why": Text(
        "tool_use b に対応する tool_result がありません。",
        "There is no tool_result for tool_use b.",
    ),
    "hint": Text("命題 7.1 の上界は T + 1 です。", "The bound of Proposition 7.1 is T + 1."),
}


def course_root(start: Path | str | None = None) -> Path:
    """The repository the course runs from: the nearest folder at or above ``start`` (default:
    the working folder) holding ``notebooks/`` that is not an edition's own folder (``en/``
    carries the edition marker). Raises ``FileNotFoundError`` when there is none."""
    here = (Path.cwd() if start is None else Path(start)).absolute()
    for place in (here, *here.parents):
        if (place / "notebooks").is_dir() and not (place / EDITION_MARKER).exists():
            return place
    raise FileNotFoundError(f"no course repository (a notebooks folder) at or above {here}")


def section_of(notebook: Any) -> str | None:
    """The article section a notebook (its JSON as a dict) names in its metadata, or
    ``None`` when it names none (or names it as something other than text)."""
    value: Any = notebook.get("metadata", {})
    for key in SECTION_KEY:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) and value.strip() else None


def _first_line(text: str) -> str:
    lines = text.splitlines() or [""]
    return lines[0].lstrip("#").strip()


def _title(root: Path, relative: Path, notebook: dict[str, Any]) -> str:
    """The notebook's title in the learner's language: its first line, or in English the
    first line of the first cell's catalogue entry (so the list does not depend on which
    English notebooks are built yet)."""
    cells = notebook.get("cells") or [{}]
    source = cells[0].get("source", "")
    first = "".join(source) if isinstance(source, list) else str(source)
    if current() is Lang.JA:
        return _first_line(first)
    path = root / CATALOGUES / relative.with_suffix(".po")
    if path.exists():
        import polib

        for entry in polib.pofile(str(path)):
            if entry.msgctxt == cells[0].get("id") and entry.msgstr and not entry.fuzzy:
                return _first_line(entry.msgstr)
    return str(NO_TITLE)


def chapter_rows(root: Path | str | None = None) -> list[dict[str, str]]:
    """One row per chapter notebook of the course at ``root`` (default: :func:`course_root`),
    in file order: ``file``, ``section`` (:data:`NO_SECTION` when the metadata has none) and
    ``title``, in the learner's language."""
    base = course_root() if root is None else Path(root)
    folder = base / "notebooks"
    rows = []
    for path in sorted(p for p in folder.iterdir() if _CHAPTER.match(p.name)):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        section = section_of(notebook)
        rows.append(
            {
                "file": path.name,
                "section": section if section is not None else str(NO_SECTION),
                "title": _title(base, path.relative_to(base), notebook),
            }
        )
    return rows


def chapter_table(root: Path | str | None = None) -> Any:
    """:func:`chapter_rows` as a ``pandas.DataFrame``, columns named by
    :data:`CHAPTER_COLUMNS` in the learner's language."""
    import pandas as pd

    frame = pd.DataFrame(chapter_rows(root), columns=list(CHAPTER_COLUMNS))
    return frame.rename(columns={k: str(v) for k, v in CHAPTER_COLUMNS.items()})
