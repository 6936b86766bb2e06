"""The learner's language: one setting, and one pair type for every learner-facing text.

The course has two editions from one source — Japanese (the authoring language) and English —
and a learner meets one of them at a time. Every label, title, message, hint and grading word
the course prints is a :class:`Text` pair; ``str(text)`` (and so an f-string) gives it in the
language :func:`current` returns, so code cells stay identical in both editions.

How the language is chosen (first match wins):

1. an override set with :func:`use` (tests, a widget's language switch);
2. the environment variable ``MCPMINI_LANG`` (``ja`` or ``en``; anything else is a
   :class:`LanguageError` naming the two choices);
3. an edition marker: the file ``.mcpmini-edition`` in the working folder or one above it,
   holding the language's code. The English edition's top folder ``en/`` carries one, so a
   kernel started for any notebook under it (JupyterLab, nbval and nbclient start kernels in
   the notebook's folder) speaks English without the learner doing anything;
4. Japanese.

``Lang.BOTH`` exists for the exam's terminal mode (``mcpmini quiz take --lang both``), which
prints English then Japanese; it is never a setting of the course.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import McpminiError

__all__ = [
    "EDITION_MARKER",
    "LANG_ENV",
    "Lang",
    "LanguageError",
    "Text",
    "Words",
    "current",
    "edition_of",
    "parse_lang",
    "say",
    "use",
]

#: The environment variable that sets the learner's language.
LANG_ENV = "MCPMINI_LANG"
#: The file that marks an edition's top folder; its text is the edition's language code.
EDITION_MARKER = ".mcpmini-edition"


class Lang(StrEnum):
    """A language of the course: Japanese, English, or both (English first, as the exam)."""

    JA = "ja"
    EN = "en"
    BOTH = "both"


#: The languages a learner can choose (``both`` is only a mode of the terminal exam).
EDITIONS = (Lang.JA, Lang.EN)


class LanguageError(McpminiError):
    """A language setting names no edition of the course."""

    def __init__(self, value: str, source: str = LANG_ENV) -> None:
        self.value = value
        self.source = source
        choices = " or ".join(lang.value for lang in EDITIONS)
        super().__init__(f"{source}={value!r} is not a language of the course: use {choices}")


@dataclass(frozen=True)
class Text:
    """One learner-facing text in Japanese and English.

    ``str(text)`` is the text in the current language (:func:`current`), so a ``Text`` can
    stand wherever a string is printed or formatted.
    """

    ja: str
    en: str

    def lang(self, lang: Lang | str | None = None) -> str:
        """The text in ``lang`` (default: :func:`current`); ``both`` gives the English, a line
        break, then the Japanese."""
        chosen = current() if lang is None else Lang(lang)
        if chosen is Lang.BOTH:
            return self.en if self.en == self.ja else f"{self.en}\n{self.ja}"
        return self.ja if chosen is Lang.JA else self.en

    def inline(self, lang: Lang | str | None = None) -> str:
        """Like :meth:`lang`, but ``both`` joins the two on one line with `` / `` (titles)."""
        chosen = current() if lang is None else Lang(lang)
        if chosen is Lang.BOTH and self.en != self.ja:
            return f"{self.en} / {self.ja}"
        return self.lang(chosen)

    def format(self, *args: Any, **kwargs: Any) -> Text:
        """Both texts formatted with the same arguments (``str.format``)."""
        return Text(self.ja.format(*args, **kwargs), self.en.format(*args, **kwargs))

    def __add__(self, other: Text | str) -> Text:
        if isinstance(other, Text):
            return Text(self.ja + other.ja, self.en + other.en)
        return Text(self.ja + other, self.en + other)

    def __radd__(self, other: str) -> Text:
        return Text(other + self.ja, other + self.en)

    def __str__(self) -> str:
        return self.lang()


#: A learner-facing text: a :class:`Text` pair, or a string that reads the same in both
#: languages (a number, a name, code).
Words = Text | str


def say(words: Words, lang: Lang | str | None = None) -> str:
    """``words`` in ``lang`` (default: :func:`current`); a plain string is returned as it is."""
    return words.lang(lang) if isinstance(words, Text) else words


def parse_lang(value: str, source: str = LANG_ENV) -> Lang:
    """``value`` as an edition's language. Raises :class:`LanguageError` for anything else."""
    text = value.strip().lower()
    for lang in EDITIONS:
        if text == lang.value:
            return lang
    raise LanguageError(value, source)


_override: ContextVar[Lang | None] = ContextVar("mcpmini_lang", default=None)


@contextmanager
def use(lang: Lang | str) -> Iterator[Lang]:
    """Speak ``lang`` inside the ``with`` block (tests, a widget's language switch)."""
    chosen = Lang(lang)
    token = _override.set(chosen)
    try:
        yield chosen
    finally:
        _override.reset(token)


def current(environ: Mapping[str, str] | None = None, cwd: Path | str | None = None) -> Lang:
    """The learner's language: the :func:`use` override, ``MCPMINI_LANG``, the edition marker
    above ``cwd``, else Japanese. Raises :class:`LanguageError` for an unknown setting."""
    chosen = _override.get()
    if chosen is not None:
        return chosen
    env = os.environ if environ is None else environ
    value = env.get(LANG_ENV, "")
    if value.strip():
        return parse_lang(value)
    found = edition_of(Path.cwd() if cwd is None else Path(cwd))
    return found if found is not None else Lang.JA


def edition_of(folder: Path | str) -> Lang | None:
    """The language of the edition ``folder`` lies in (its marker file), or ``None``.

    Raises :class:`LanguageError` when a marker names no edition.
    """
    return _marker_lang(str(Path(folder).absolute()))


@lru_cache(maxsize=64)
def _marker_lang(folder: str) -> Lang | None:
    # Cached per folder: a notebook asks for the language for every label it prints, and the
    # edition a folder belongs to does not change while a kernel runs.
    here = Path(folder)
    for place in (here, *here.parents):
        marker = place / EDITION_MARKER
        try:
            text = marker.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
        return parse_lang(text, str(marker))
    return None
