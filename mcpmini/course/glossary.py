"""The course's glossary: one Japanese and one English term per concept (``data/glossary.yaml``).

Each section (``course``, ``exam``) lists entries ``{ja, en, note, note_en, avoid, avoid_en}``:
the term in each edition, what it means in each language, and the variants
``tests/test_glossary.py`` rules out — Japanese ones in every notebook and course module,
English ones in every English catalogue.

How to use it: :func:`term` gives a concept as a :class:`~mcpmini.course.language.Text` pair,
so a label built from it prints the glossary's word in the learner's language
(``f"{term('予算')}: 2,000"``), and a test reads the English term as ``term("関門").en``.
:func:`glossary_entries` gives every entry as a :class:`GlossaryEntry`; :func:`load_glossary`
the raw sections (the CCA-F overview prints its table from them). A file that is not the shape
above is one :class:`GlossaryError` naming the section, the entry and the field.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import McpminiError
from .language import Text

__all__ = [
    "GLOSSARY",
    "GlossaryEntry",
    "GlossaryError",
    "UnknownTerm",
    "glossary_entries",
    "load_glossary",
    "term",
]

#: The glossary file shipped with the package.
GLOSSARY = Path(__file__).with_name("data") / "glossary.yaml"

#: The fields every entry has: the two terms and notes are non-empty text, the two variant
#: lists are lists of non-empty text.
_TEXT_FIELDS = ("ja", "en", "note", "note_en")
_LIST_FIELDS = ("avoid", "avoid_en")


class GlossaryError(McpminiError):
    """The glossary file is not a mapping of sections to lists of complete entries."""

    def __init__(self, path: Path, where: str, problem: str) -> None:
        self.path = path
        self.where = where
        self.problem = problem
        super().__init__(f"{path}: {where}: {problem}")


class UnknownTerm(McpminiError, KeyError):
    """A term that is in no entry of the glossary (the message names the closest ones)."""

    def __init__(self, word: str, closest: list[str]) -> None:
        self.word = word
        self.closest = closest
        hint = f"; closest: {', '.join(closest)}" if closest else ""
        super().__init__(f"{word!r} is not a term of the glossary{hint}")

    def __str__(self) -> str:  # KeyError would print the repr of its argument
        return str(self.args[0])


@dataclass(frozen=True)
class GlossaryEntry:
    """One concept: its ``section``, the two terms, the note in both languages, and the
    variants each edition must not use."""

    section: str
    ja: str
    en: str
    note: Text
    avoid: tuple[str, ...] = ()
    avoid_en: tuple[str, ...] = ()

    @property
    def term(self) -> Text:
        """The two terms as one pair (``str()`` gives the learner's language)."""
        return Text(self.ja, self.en)


def load_glossary(path: Path = GLOSSARY) -> dict[str, list[dict[str, Any]]]:
    """The glossary's sections, each a list of entries as written. Raises ``OSError`` when
    the file cannot be read and ``yaml.YAMLError`` when it is not YAML."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {str(section): list(items or []) for section, items in data.items()}


def glossary_entries(path: Path = GLOSSARY) -> tuple[GlossaryEntry, ...]:
    """Every entry of the glossary at ``path``, section by section, in file order.

    Raises :class:`GlossaryError` for a section that is not a list or an entry that lacks a
    field (or holds the wrong kind of value), ``OSError`` / ``yaml.YAMLError`` as
    :func:`load_glossary`.
    """
    return _entries(path.resolve(), path.stat().st_mtime_ns)


@lru_cache(maxsize=8)
def _entries(path: Path, _mtime: int) -> tuple[GlossaryEntry, ...]:
    # Cached per file version: labels look terms up while a notebook prints, and the file
    # changes only when someone edits it (the modification time is part of the key).
    import yaml

    # libyaml when it is there: labels read the glossary when a track is imported
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}
    if not isinstance(data, dict):
        raise GlossaryError(path, "top level", "must map section names to lists of entries")
    found = []
    for section, items in data.items():
        if not isinstance(items, list):
            raise GlossaryError(path, f"section {section!r}", "must be a list of entries")
        for i, item in enumerate(items):
            found.append(_entry(path, str(section), i, item))
    return tuple(found)


def _entry(path: Path, section: str, index: int, item: object) -> GlossaryEntry:
    where = f"{section}[{index}]"
    if not isinstance(item, dict):
        raise GlossaryError(path, where, "an entry must be a mapping")
    if isinstance(item.get("ja"), str):
        where = f"{where} ({item['ja']})"
    for name in _TEXT_FIELDS:
        value = item.get(name)
        if not isinstance(value, str) or not value.strip():
            raise GlossaryError(path, where, f"{name!r} must be a non-empty string")
    for name in _LIST_FIELDS:
        value = item.get(name)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise GlossaryError(path, where, f"{name!r} must be a list of non-empty strings")
    return GlossaryEntry(
        section,
        item["ja"],
        item["en"],
        Text(item["note"], item["note_en"]),
        tuple(item["avoid"]),
        tuple(item["avoid_en"]),
    )


def term(word: str, section: str | None = None, path: Path = GLOSSARY) -> Text:
    """The concept ``word`` names — its Japanese or its English term — as a ``Text`` pair.

    ``section`` picks one section when the same term is in two. Raises :class:`UnknownTerm`
    (a ``KeyError``) naming the closest terms when no entry has it, and
    :class:`GlossaryError` when the file is malformed.
    """
    entries = [e for e in glossary_entries(path) if section is None or e.section == section]
    for entry in entries:
        if word in (entry.ja, entry.en):
            return entry.term
    known = [e.ja for e in entries] + [e.en for e in entries]
    raise UnknownTerm(word, difflib.get_close_matches(word, known, n=3, cutoff=0.5))
