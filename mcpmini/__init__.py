"""mcpmini: a small MCP, hook and skill runtime for learning how coding agents are extended.

The protocol core (:mod:`mcpmini.jsonrpc`, :mod:`mcpmini.versions`, :mod:`mcpmini.server`)
does no I/O; :mod:`mcpmini.transport` moves its lines over stdio or memory. Importing this
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

from .errors import (
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
    "Server": "server",
    "Client": "client",
    "ToolOutcome": "client",
    "StdioTransport": "transport",
    "serve_stdio": "transport",
    "memory_pair": "transport",
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
