"""The tables the chapters show: rows of data under column labels in the learner's language.

A chapter's function computes rows as plain dicts keyed by identifiers (``exit_code``,
``final``…), which tests read; :func:`frame` turns them into the pandas ``DataFrame`` a
notebook displays, keeping the columns named in ``columns`` in that order and labelling each
with its :class:`~mcpmini.course.language.Text` in the current language. A cell value that is
itself a ``Text`` is shown in the current language too, so a code cell that displays a table
holds no word of either language.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..language import Text, Words, say

__all__ = ["frame", "label_of"]


def label_of(words: Words) -> str:
    """``words`` as a column label in the current language."""
    return say(words)


def frame(rows: Iterable[Mapping[str, Any]], columns: Mapping[str, Words]) -> Any:
    """A ``DataFrame`` of ``rows`` with the keys of ``columns`` (in that order) as columns,
    each labelled by its value in the current language; ``Text`` cells are shown in it too.

    Raises ``KeyError`` naming a column that a row lacks.
    """
    import pandas as pd

    data = []
    for row in rows:
        data.append({say(label): _cell(row[key]) for key, label in columns.items()})
    return pd.DataFrame(data, columns=[say(label) for label in columns.values()])


def _cell(value: Any) -> Any:
    return str(value) if isinstance(value, Text) else value
