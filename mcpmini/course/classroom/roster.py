"""Learner names: the one rule for a name, and the roster file a class is set up from.

Rules of this module: a learner name is what :data:`LEARNER_NAME` accepts — a letter or
digit, then up to 31 lowercase letters, digits, ``.``, ``-`` (a POSIX account name, a
JupyterHub user, an nbgrader student id and a folder name at once; no ``_``, which LMS
download names use as their separator). A roster file is UTF-8 text, one name a line;
blank lines and ``#`` comments are ignored; a duplicate or invalid name is an error that
names its line. Every check is of the whole string (``fullmatch``): ``alice\n`` is not
``alice``, nor a name of its own.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["LEARNER_NAME", "RosterError", "is_learner_name", "parse_roster", "read_roster"]

#: Matched against the whole name (``fullmatch``): ``$`` alone would accept a trailing newline.
LEARNER_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{0,31}")


class RosterError(ValueError):
    """A roster that cannot be used; the message names the file and line."""


def is_learner_name(name: str) -> bool:
    """Whether ``name`` is a usable learner name (see the module rules)."""
    return (
        isinstance(name, str)
        and LEARNER_NAME.fullmatch(name) is not None
        and ".." not in name
        and not name.endswith(".")
    )


def parse_roster(text: str, source: str = "roster") -> list[str]:
    """The learner names of a roster, in file order.

    Raises :class:`RosterError` for an invalid or duplicate name (naming ``source`` and the
    line) and for a roster without any name.
    """
    names: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        if not is_learner_name(name):
            raise RosterError(
                f"{source}:{number}: invalid learner name {name!r} "
                "(lowercase letters, digits, '.' and '-', at most 32, starting with a letter "
                "or digit)"
            )
        if name in seen:
            raise RosterError(f"{source}:{number}: duplicate learner {name!r} (line {seen[name]})")
        seen[name] = number
        names.append(name)
    if not names:
        raise RosterError(f"{source}: no learner names")
    return names


def read_roster(path: Path) -> list[str]:
    """:func:`parse_roster` of the file ``path``; raises ``OSError`` when it cannot be read."""
    return parse_roster(path.read_text(encoding="utf-8"), str(path))
