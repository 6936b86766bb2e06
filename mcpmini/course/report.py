"""The report every widget shows, and how a headless run reads it back.

A widget of the course is only a thin shell: the logic it shows lives in a plain function
of its track's module (tested in ``tests/``), and the widget renders that function's text
with :func:`live_html`. A notebook prints the same text under :func:`static_report` so a
headless run (CI, nbval) still shows something meaningful; :func:`report_text` reads the
live report back out of a widget box for tests.
"""

from __future__ import annotations

from typing import Any

from .language import Text, Words, say

__all__ = [
    "LIVE_LABEL",
    "STATIC_LABEL",
    "live_html",
    "report_text",
    "static_report",
]


LIVE_LABEL = Text(
    "ウィジェットの報告（操作に合わせて更新）", "The widget's report (follows the controls)"
)
STATIC_LABEL = Text(
    "最初の状態の報告（静的な文字。ウィジェットを動かしても変わりません）",
    "The report at the start (static text: it does not follow the widget)",
)


def live_html(text: Words) -> str:
    """``text`` as the HTML a widget shows: escaped, preformatted, under :data:`LIVE_LABEL`.

    Escaping matters: matcher strings such as ``(?<tool>Notebook)Edit`` hold ``<``/``>``.
    """
    from html import escape

    return f"<b>{escape(str(LIVE_LABEL))}</b><pre>{escape(say(text))}</pre>"


def static_report(text: Words) -> str:
    """``text`` under :data:`STATIC_LABEL`, for the ``print`` beside a widget (headless runs)."""
    return f"{STATIC_LABEL}\n{say(text)}"


def report_text(widget: Any) -> str:
    """The live report a widget box currently shows, as plain text (for tests and checks).

    Walks ``widget``'s children for the HTML report made by :func:`live_html`. Raises
    ``LookupError`` when there is none.
    """
    from html import unescape

    stack = [widget]
    while stack:
        node = stack.pop(0)
        value = getattr(node, "value", None)
        if isinstance(value, str) and value.startswith("<b>") and "<pre>" in value:
            return unescape(value.split("<pre>", 1)[1].rsplit("</pre>", 1)[0])
        stack.extend(getattr(node, "children", ()))
    raise LookupError("the widget shows no report")
