"""What a hook handler is and the options every handler carries.

Rules of this module:

* :class:`HandlerType` is the one list of handler types: the five a settings file may name
  (:data:`SETTINGS_TYPES`, which the settings schema and the event catalogue read) and
  ``callback``, a Python callable given in code (the Agent SDK's form).
* Every handler holds exactly one :class:`HandlerOptions`. A field left ``None`` means
  "inherit": a handler's ``timeout`` / ``on_failure`` of ``None`` takes its matcher group's,
  and :meth:`HandlerOptions.inherit` is the one place that fills them in. No default here may
  be a real value, or the group's setting could never be reached.
* Values are normalised when an options object is built (``"block"`` becomes
  :attr:`OnFailure.BLOCK`, a non-positive timeout is refused), never when a hook runs.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

__all__ = ["SETTINGS_TYPES", "HandlerOptions", "HandlerType", "OnFailure"]


class HandlerType(enum.StrEnum):
    """The ``type`` of a handler (``callback``: a Python callable, never in a settings file)."""

    COMMAND = "command"
    HTTP = "http"
    MCP_TOOL = "mcp_tool"
    PROMPT = "prompt"
    AGENT = "agent"
    CALLBACK = "callback"

    def __str__(self) -> str:
        return self.value


SETTINGS_TYPES = frozenset(HandlerType) - {HandlerType.CALLBACK}


class OnFailure(enum.StrEnum):
    """What a failed run means: ``continue`` (no decision) or ``block`` (like exit 2)."""

    CONTINUE = "continue"
    BLOCK = "block"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class HandlerOptions:
    """The settings keys every handler type shares.

    ``timeout`` (seconds) and ``on_failure`` are ``None`` when the handler sets none: they
    inherit the group's, then the run's or the event's default. ``if_`` is the ``if``
    permission rule; ``once`` runs the handler once per session (skills); ``async_`` runs it
    in the background, where it decides nothing. Raises ``ValueError`` for an unknown
    ``on_failure`` or a timeout that is not positive.
    """

    timeout: float | None = None
    on_failure: OnFailure | None = None
    if_: str | None = None
    once: bool = False
    async_: bool = False

    def __post_init__(self) -> None:
        if self.on_failure is not None:
            object.__setattr__(self, "on_failure", OnFailure(self.on_failure))
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError(f"a hook timeout must be a positive number, not {self.timeout!r}")

    def inherit(self, timeout: float | None, on_failure: OnFailure | None) -> HandlerOptions:
        """These options with each unset ``timeout`` / ``on_failure`` taken from the group's."""
        return replace(
            self,
            timeout=self.timeout if self.timeout is not None else timeout,
            on_failure=self.on_failure if self.on_failure is not None else on_failure,
        )
