"""The one JSON reader of every loader: ``json.loads`` with a nesting limit.

Rules of this module: every file mcpmini loads as JSON (settings, ``.mcp.json``,
``~/.claude.json``, plugin manifests, marketplace files, the progress file, quiz answers, hook
output) is parsed by :func:`loads`. Nesting deeper than :data:`MAX_DEPTH` arrays and objects is
refused with a :class:`NestingError` — a ``json.JSONDecodeError``, so each loader reports it
through the branch it already has for invalid JSON (one line naming the file and the line),
never as a ``RecursionError`` traceback from the parser or from the recursive code (schema
checks, ``${VAR}`` expansion, ``json.dumps``) that would read the value later. A base module:
it imports nothing from mcpmini.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_DEPTH", "NestingError", "loads"]

MAX_DEPTH = 200  # real configuration files nest a dozen levels; Python recursion ends near 1000

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


class NestingError(json.JSONDecodeError):
    """JSON nested deeper than :data:`MAX_DEPTH`; ``pos`` / ``lineno`` point at the level that
    goes too deep."""


def _too_deep(text: str) -> int | None:
    """The index of the first bracket that opens level ``MAX_DEPTH + 1``, or ``None``."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # cheap: most files stop here
        return None
    depth = 0
    for token in _TOKEN.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return token.start()
        elif char in "]}":
            depth -= 1
    return None


def loads(text: str | bytes) -> Any:
    """Parse ``text`` like ``json.loads`` and return the value.

    Raises ``json.JSONDecodeError`` for invalid JSON and its subclass :class:`NestingError`
    for nesting deeper than :data:`MAX_DEPTH` (checked before parsing, so the parser's own
    recursion never runs out).
    """
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")
    where = _too_deep(text)
    if where is not None:
        raise NestingError(f"nested deeper than {MAX_DEPTH} levels", text, where)
    try:
        return json.loads(text)
    except RecursionError:  # pragma: no cover - the scan above refuses such text first
        raise NestingError(f"nested deeper than {MAX_DEPTH} levels", text, 0) from None
