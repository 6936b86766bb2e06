"""mcpmini: a small MCP, hook and skill runtime for learning how coding agents are extended.

One package per chapter of the article: :mod:`mcpmini.mcp` (§3), :mod:`mcpmini.permissions`
and :mod:`mcpmini.hooks` (§4), :mod:`mcpmini.skills` (§5), :mod:`mcpmini.config` (§6) and
:mod:`mcpmini.agent` (§7); ``ARCHITECTURE.md`` is the map. Importing this
package stays cheap: the heavier modules are loaded when one of their names is first used.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

# jsonschema imports rfc3987_syntax whenever it is installed (Jupyter brings it) only to
# check the "iri" string format, and that import builds a parser grammar for two to six
# seconds. No schema in mcpmini uses that format, so unless something already loaded it,
# this process goes without it: every server, hook, kernel and test starts seconds sooner.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

from .errors import (  # noqa: E402  (after the rfc3987_syntax guard above)
    ConfigError,
    LocalProtocolError,
    McpminiError,
    ProtocolError,
    RemoteProtocolError,
    TransportError,
)

__version__ = "0.1.0"

# name -> module that defines it; resolved on first attribute access (PEP 562).
_LAZY = {
    "Server": "mcp",
    "Client": "mcp",
    "ToolOutcome": "mcp",
    "StdioTransport": "mcp",
    "serve_stdio": "mcp",
    "memory_pair": "mcp",
}

__all__ = [
    "__version__",
    "McpminiError",
    "ProtocolError",
    "LocalProtocolError",
    "RemoteProtocolError",
    "ConfigError",
    "TransportError",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module 'mcpmini' has no attribute {name!r}")
