"""A record of every line that crosses a transport, for sequence diagrams and tests.

Wrap any transport with :class:`Traced`; each line sent or received is appended to a
:class:`Trace` with its direction and a monotonic timestamp. ``Trace.lines()`` gives the
raw wire text the notebooks print ("show the wire first"), ``Trace.messages()`` the
decoded JSON objects.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from .transport import Transport

__all__ = [
    "Trace",
    "TraceEvent",
    "Traced",
]


@dataclass(frozen=True)
class TraceEvent:
    """One line: ``direction`` is ``"send"`` (client → server) or ``"recv"``."""

    direction: Literal["send", "recv"]
    line: bytes
    at: float

    def json(self) -> Any:
        """The line decoded as JSON, or ``None`` when it is not valid JSON."""
        try:
            return json.loads(self.line)
        except ValueError:
            return None


@dataclass
class Trace:
    """An append-only list of :class:`TraceEvent`."""

    events: list[TraceEvent] = field(default_factory=list)

    def record(self, direction: Literal["send", "recv"], line: bytes) -> None:
        """Append one event stamped with ``time.monotonic()``."""
        self.events.append(TraceEvent(direction, line.rstrip(b"\n"), time.monotonic()))

    def lines(self, arrows: bool = True) -> list[str]:
        """The wire text, one string per line, prefixed ``C→S`` / ``S→C`` when ``arrows``."""
        out = []
        for event in self.events:
            text = event.line.decode("utf-8", "replace")
            prefix = ("C→S " if event.direction == "send" else "S→C ") if arrows else ""
            out.append(prefix + text)
        return out

    def messages(self) -> list[tuple[str, Any]]:
        """``(direction, decoded JSON or None)`` for every event."""
        return [(e.direction, e.json()) for e in self.events]

    def clear(self) -> None:
        """Forget every event."""
        self.events.clear()

    def __len__(self) -> int:
        return len(self.events)


class Traced:
    """A transport wrapper that records every line into ``trace``."""

    def __init__(self, inner: Transport, trace: Trace | None = None) -> None:
        self.inner = inner
        self.trace = trace if trace is not None else Trace()

    def send(self, line: bytes) -> None:
        """Record, then send ``line``."""
        self.trace.record("send", line)
        self.inner.send(line)

    def receive(self, timeout: float | None = None) -> bytes | None:
        """Receive a line from the inner transport and record it."""
        line = self.inner.receive(timeout)
        if line is not None:
            self.trace.record("recv", line)
        return line

    def close(self) -> int | None:
        """Close the inner transport; return what it returns (a process's exit code)."""
        return self.inner.close()

    def __getattr__(self, name: str) -> Any:  # stderr, pid… of the wrapped transport
        return getattr(self.inner, name)
