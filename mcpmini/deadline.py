"""One deadline per call: :class:`Deadline`, made once where a call starts and passed down.

A call (``mcpmini call``, :meth:`mcpmini.mcp.Client.call_tool`, one tool call of the agent
loop) makes one deadline at its start; every wait inside it — connecting, discovery, the
handshake, each request, the input-required rounds, OAuth discovery, closing — asks the same
deadline how long it may still wait. A component may bound its own wait more tightly
(:meth:`Deadline.within`), never further: so no default of a lower layer can outlast the
caller's deadline.

Rules of this module:

* Time comes from the ``clock`` passed in (a monotonic clock, ``time.monotonic`` by default),
  as h11 takes its clock; a test passes a clock it advances itself. The deadline never sleeps.
* A deadline is a value (frozen): :meth:`Deadline.within` returns a new, earlier one.
* Passing the deadline raises :class:`~mcpmini.errors.TimedOut` (a ``TimeoutError`` and a
  ``TransportError`` of kind ``timed out``), whose message names what was being waited for
  and the bound the caller set (``label``, e.g. ``--timeout 1``).

This is a base module: it imports nothing from ``mcpmini`` but :mod:`mcpmini.errors`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import TimedOut

__all__ = ["Clock", "Deadline"]

#: A monotonic clock in seconds.
Clock = Callable[[], float]


@dataclass(frozen=True)
class Deadline:
    """The instant ``at`` (on ``clock``) by which a call must be over.

    ``label`` says in error messages what set it (``"--timeout 1 s"``, ``"timeout 30 s"``).
    Make one with :meth:`after` (or :meth:`never`); ask it with :meth:`left`.
    """

    at: float
    clock: Clock = field(default=time.monotonic, compare=False)
    label: str = field(default="", compare=False)

    @classmethod
    def after(
        cls, seconds: float | None, clock: Clock = time.monotonic, label: str | None = None
    ) -> Deadline:
        """The deadline ``seconds`` from now (``None``: never). Raises ``ValueError`` for a
        negative or NaN number of seconds."""
        if seconds is None:
            return cls.never(clock)
        if math.isnan(seconds) or seconds < 0:
            raise ValueError(f"a deadline needs a number of seconds >= 0, not {seconds}")
        text = label if label is not None else f"{seconds:g} s"
        return cls(clock() + seconds, clock, text)

    @classmethod
    def never(cls, clock: Clock = time.monotonic) -> Deadline:
        """A deadline that never passes (a wait bounded only by its own limits)."""
        return cls(math.inf, clock, "no deadline")

    def left(self) -> float:
        """Seconds left (0 once passed; ``math.inf`` for :meth:`never`)."""
        return max(0.0, self.at - self.clock())

    @property
    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return self.clock() >= self.at

    @property
    def finite(self) -> bool:
        """Whether the deadline ever passes."""
        return math.isfinite(self.at)

    def within(self, seconds: float | None) -> Deadline:
        """The earlier of this deadline and ``seconds`` from now (``None``: this one).

        A component's own bound (a discover wait, a close grace) goes through here, so it can
        shorten the caller's deadline but never extend it.
        """
        if seconds is None:
            return self
        mine = self.clock() + max(0.0, seconds)
        return self if self.at <= mine else Deadline(mine, self.clock, self.label)

    def timeout(self) -> float | None:
        """Seconds left for an API that takes a timeout (``None``: wait for ever)."""
        return self.left() if self.finite else None

    def monotonic(self) -> float | None:
        """The deadline as a ``time.monotonic()`` instant (``None``: never), for the process
        layer, whose waits read the real clock."""
        if not self.finite:
            return None
        return time.monotonic() + self.left()

    def check(self, waiting_for: str) -> None:
        """Raise :class:`~mcpmini.errors.TimedOut` when the deadline has passed."""
        if self.expired:
            raise self.error(waiting_for)

    def error(self, waiting_for: str) -> TimedOut:
        """The :class:`~mcpmini.errors.TimedOut` for ``waiting_for`` at this deadline."""
        bound = f" within {self.label}" if self.label else ""
        return TimedOut(f"timed out: {waiting_for}{bound}")
