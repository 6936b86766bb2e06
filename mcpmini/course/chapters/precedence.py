"""Notebook 10: a server defined in several scopes, whole entry against field merge.

:func:`resolution_lines` shows the definition that wins under each reading (Proposition
6.2, Example 6.3) and :func:`resolution_switch` toggles between them.
"""

from __future__ import annotations

import json
from typing import Any

from ..report import live_html

__all__ = [
    "resolution_lines",
    "resolution_switch",
]


# --- notebook 10: whole entry vs field merge (Proposition 6.2, Example 6.3) ----------------


def resolution_lines(sources: Any, name: str, mode: str = "whole") -> list[str]:
    """The definition of server ``name`` under ``mode`` "whole" or "merge", field by field.

    ``sources`` is anything :func:`mcpmini.config.resolve_mcp_servers` accepts. Each
    line is ``field = value   ← source``. Raises ``KeyError`` when no source defines
    ``name`` and ``ValueError`` for another mode.
    """
    from ...config import merge_fields, resolve_mcp_servers

    if mode == "whole":
        won = resolve_mcp_servers(sources)[name]
        fields = [(k, v, won.source) for k, v in won.value.items()]
    elif mode == "merge":
        merged = merge_fields(sources)[name]
        fields = [(k, f.value, f.source) for k, f in merged.fields.items()]
    else:
        raise ValueError(f"mode must be 'whole' or 'merge', got {mode!r}")
    return [f"{k:<8} = {json.dumps(v, ensure_ascii=False):<45} ← {src}" for k, v, src in fields]


def resolution_switch(sources: Any, name: str) -> Any:
    """Toggle buttons switching :func:`resolution_lines` between whole entry and merge."""
    import ipywidgets as widgets

    toggle = widgets.ToggleButtons(options=[("whole entry", "whole"), ("field merge", "merge")])
    out = widgets.HTML()

    def refresh(_: Any = None) -> None:
        out.value = live_html("\n".join(resolution_lines(sources, name, toggle.value)))

    toggle.observe(refresh, names="value")
    refresh()
    return widgets.VBox([toggle, out])
