"""The ``mcpmini`` command line: one module per command group (see :mod:`.app`)."""

from __future__ import annotations

from .app import main

__all__ = ["main"]
