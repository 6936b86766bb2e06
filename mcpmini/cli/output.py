"""Helpers every command group shares: JSON output, JSON options, problem reports, clean text.

Rules of this module: every string that came from outside mcpmini (a server, a config file, a
plugin, a skill, a hook) goes through :func:`terminal_safe` before it is written to a terminal in
text mode; JSON output (:func:`print_json`) is exact JSON and needs nothing more, because
``json.dump`` escapes every C0 control and ``ensure_ascii=False`` keeps the rest — the C1 and bidi
controls below are escaped there too so that a JSON dump read on a terminal stays clean.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError

__all__ = ["json_object", "print_json", "problem_dict", "report", "terminal_safe"]

# Bidirectional formatting characters (Trojan Source, CVE-2021-42574): embeddings and overrides
# U+202A-U+202E, isolates U+2066-U+2069, and the three marks LRM, RLM, ALM.
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]
# C0 (ESC, CR, BEL, BS, ...), DEL and C1 (CSI 0x9B, OSC 0x9D, ...): a terminal acts on each.
_CONTROLS = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]


def _escape(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_TABLE: dict[int, str] = {code: _escape(code) for code in (*_CONTROLS, *_BIDI)}
_LAYOUT_TABLE: dict[int, str] = {
    code: text for code, text in _TABLE.items() if code not in (0x09, 0x0A)
}
_JSON_TABLE: dict[int, str] = {
    code: f"\\u{code:04x}" for code in (0x7F, *range(0x80, 0xA0), *_BIDI)
}


def terminal_safe(text: object, *, layout: bool = True) -> str:
    """Return ``str(text)`` with every character a terminal would act on shown escaped.

    Escaped: C0 controls (ESC starts every CSI/OSC sequence, CR overwrites a line, BS, BEL, ...),
    DEL, C1 controls (U+0080-U+009F, incl. the one-byte CSI and OSC), and the bidi embeddings,
    overrides, isolates and marks. Each becomes ``\\xNN`` (below U+0100) or ``\\uNNNN``. With
    ``layout`` (the default) newline and TAB stay as they are, for multi-line text such as a
    tool's output; pass ``layout=False`` for one-line fields (names, reasons), where a newline
    could forge a line of its own. Never raises.
    """
    return str(text).translate(_LAYOUT_TABLE if layout else _TABLE)


def print_json(value: Any) -> None:
    """Write ``value`` as indented JSON (non-ASCII kept) and a newline to stdout.

    The output parses back to ``value``; DEL, C1 and bidi controls inside strings are written as
    ``\\uNNNN`` escapes (still the same JSON value) so the dump is clean on a terminal too.
    """
    text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write(text.translate(_JSON_TABLE))
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
            print(terminal_safe(p), file=sys.stderr)
    failing = [p for p in problems if strict or p.severity.value == "error"]
    return 1 if failing else 0
