"""Clean text for terminals and renderers: the one escaping of control characters.

Rules of this module: every string that came from outside mcpmini (a server, a config file, a
plugin, a skill, a hook) is passed through :func:`terminal_safe` before a terminal or a widget
shows it as text; :data:`JSON_TABLE` is what an exact JSON dump escapes on top of ``json.dumps``
(DEL, C1, bidi) so it reads clean on a terminal too. This is the only table of those characters
(the CLI's ``echo`` and the notebook inspector both read it). A base module: it imports nothing
from mcpmini.
"""

from __future__ import annotations

__all__ = ["JSON_TABLE", "terminal_safe"]

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
#: The characters an exact JSON dump writes as ``\\uNNNN`` beyond what ``json.dumps`` escapes.
JSON_TABLE: dict[int, str] = {code: f"\\u{code:04x}" for code in (0x7F, *range(0x80, 0xA0), *_BIDI)}


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
