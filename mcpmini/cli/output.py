"""Helpers every command group shares: JSON output, JSON options, problem reports, clean text.

Rules of this module: every string that came from outside mcpmini (a server, a config file, a
plugin, a skill, a hook) goes through :func:`terminal_safe` (:mod:`mcpmini.terminal`, re-exported
here) before it is written to a terminal in text mode; JSON output (:func:`print_json`) is exact
JSON and needs nothing more, because ``json.dump`` escapes every C0 control and
``ensure_ascii=False`` keeps the rest — the C1 and bidi controls are escaped there too
(``terminal.JSON_TABLE``) so that a JSON dump read on a terminal stays clean.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError
from ..terminal import JSON_TABLE, terminal_safe

__all__ = ["echo", "json_object", "print_json", "problem_dict", "report", "terminal_safe"]


def echo(text: object = "", *, err: bool = False, layout: bool = False) -> None:
    """Print one line of text mode output through :func:`terminal_safe` (stderr with ``err``).

    ``layout=False`` (the default) keeps a line one line: a newline inside a field is escaped.
    """
    print(terminal_safe(text, layout=layout), file=sys.stderr if err else sys.stdout)


def print_json(value: Any) -> None:
    """Write ``value`` as indented JSON (non-ASCII kept) and a newline to stdout.

    The output parses back to ``value``; DEL, C1 and bidi controls inside strings are written as
    ``\\uNNNN`` escapes (still the same JSON value) so the dump is clean on a terminal too.
    """
    text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write(text.translate(JSON_TABLE))
    sys.stdout.write("\n")


def json_object(text: str, option: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{option} is not valid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(value, dict):
        raise UsageError(f"{option} must be a JSON object")
    return value


def problem_dict(p: Any) -> dict[str, Any]:
    return {
        "severity": p.severity.value,
        "message": p.message,
        "source": p.source,
        "path": p.path,
        "line": p.line,
    }


def report(problems: Sequence[Any], as_json: bool, strict: bool = False) -> int:
    """Print problems (stderr unless JSON was asked for); 1 when one fails the check."""
    if not as_json:
        for p in problems:
            echo(p, err=True)
    failing = [p for p in problems if strict or p.severity.value == "error"]
    return 1 if failing else 0
