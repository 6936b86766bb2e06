"""CSV cells a spreadsheet will not run.

Rules of this module: every text cell the classroom writes to a CSV goes through
:func:`cell`, and every one it reads back through :func:`uncell`. OWASP's CSV injection
list is :data:`FORMULA_LEADS` (``=``, ``+``, ``-``, ``@``, TAB, CR): such a cell gets a
leading ``'``, which spreadsheets show as text. A cell that already starts with ``'`` gets
one more, so that :func:`uncell` gives back exactly what was written.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FORMULA_LEADS", "cell", "cells", "uncell"]

FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
_QUOTED = (*FORMULA_LEADS, "'")


def cell(text: str) -> str:
    """``text`` safe to open in a spreadsheet: quoted when it starts as a formula would."""
    return "'" + text if text[:1] in _QUOTED else text


def uncell(text: str) -> str:
    """The text :func:`cell` was given (a cell it did not quote is returned unchanged)."""
    return text[1:] if text[:1] == "'" and text[1:2] in _QUOTED and text[1:2] != "" else text


def cells(values: list[Any]) -> list[Any]:
    """Each ``str`` of ``values`` through :func:`cell`; numbers and the rest unchanged."""
    return [cell(v) if isinstance(v, str) else v for v in values]
