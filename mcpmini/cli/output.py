"""Helpers every command group shares: JSON output, JSON options, problem reports."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError

__all__ = ["json_object", "print_json", "problem_dict", "report"]


def print_json(value: Any) -> None:
    """Write ``value`` as indented JSON (non-ASCII kept) and a newline to stdout."""
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2, default=str)
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
            print(p, file=sys.stderr)
    failing = [p for p in problems if strict or p.severity.value == "error"]
    return 1 if failing else 0
