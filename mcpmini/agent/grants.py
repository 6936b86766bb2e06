"""Three permission layers of a product host, as a filter on the tool list.

* **plan**: the subscription decides which tools exist for a user at all (a Free plan
  gets a few, Enterprise every tool); the host removes the others from the tool layer.
* **session**: some tools also need the user's explicit grant in this session (like an
  OAuth consent); without it they are not shown either.
* **user**: what a visible tool may touch is decided by the server from the identity the
  host injects (see :func:`mcpmini.agent.registry.inject`): it refuses another user's
  data at call time, so that layer shows up as a tool error, not as a missing tool.

:func:`check_layers` says for one tool whether it is visible and, if not, which layer
hid it; :func:`visible_tools` applies it to a list. :func:`either_filter` is the looser
rule "in the plan *or* granted" that a hand-written filter easily ends up with: there,
a session grant can unlock a tool the plan does not include.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = [
    "AccessPolicy",
    "Layer",
    "LayerVerdict",
    "check_layers",
    "either_filter",
    "visible_tools",
]


class Layer(StrEnum):
    """The three layers, in the order a call meets them."""

    PLAN = "plan"
    SESSION = "session"
    USER = "user"


@dataclass(frozen=True)
class AccessPolicy:
    """Which tools each plan includes (``None``: every tool) and which need a session grant."""

    plans: Mapping[str, frozenset[str] | None]
    needs_grant: frozenset[str] = field(default_factory=frozenset)

    def plan_tools(self, plan: str) -> frozenset[str] | None:
        """The tools of ``plan`` (``None`` = all). Raises ``KeyError`` for an unknown plan."""
        if plan not in self.plans:
            raise KeyError(f"unknown plan {plan!r}; known plans: {', '.join(self.plans)}")
        return self.plans[plan]


@dataclass(frozen=True)
class LayerVerdict:
    """Whether ``tool`` is in the tool layer; ``layer`` is the one that hid it (or ``None``)."""

    tool: str
    visible: bool
    layer: Layer | None
    reason: str


def check_layers(
    tool: str, policy: AccessPolicy, plan: str, grants: Iterable[str] = ()
) -> LayerVerdict:
    """Plan first, then session: the verdict for one ``tool``. Raises ``KeyError`` for an
    unknown plan."""
    included = policy.plan_tools(plan)
    if included is not None and tool not in included:
        return LayerVerdict(tool, False, Layer.PLAN, f"not in the {plan} plan")
    if tool in policy.needs_grant and tool not in set(grants):
        return LayerVerdict(tool, False, Layer.SESSION, "needs a grant in this session")
    return LayerVerdict(tool, True, None, "visible")


def visible_tools(
    tools: Iterable[str], policy: AccessPolicy, plan: str, grants: Iterable[str] = ()
) -> list[str]:
    """The tools of ``tools`` that pass both list layers, in their order."""
    granted = set(grants)
    return [t for t in tools if check_layers(t, policy, plan, granted).visible]


def either_filter(
    tools: Iterable[str], policy: AccessPolicy, plan: str, grants: Iterable[str] = ()
) -> list[str]:
    """The loose rule: a tool is shown when the plan includes it **or** it was granted.

    Tools needing a grant are still hidden until granted when the plan includes them;
    but a grant alone is enough, so a Free user's grant reveals a Pro tool.
    """
    included = policy.plan_tools(plan)
    granted = set(grants)
    out = []
    for t in tools:
        in_plan = included is None or t in included
        if t in granted or (in_plan and t not in policy.needs_grant):
            out.append(t)
    return out
