"""Which scopes to ask for (MCP "Scope Selection Strategy", SEP-2207, SEP-2350), sans-I/O.

1. the ``scope`` of the challenge that asked for authorization, else
2. the PRM's ``scopes_supported``, else
3. no ``scope`` parameter at all;

plus ``offline_access`` when the authorization server lists it and the client can use a
refresh token, never otherwise. A step-up asks for the union of what was asked before and
what the ``insufficient_scope`` challenge names, in that order.
"""

from __future__ import annotations

from collections.abc import Iterable

from .metadata import ResourceMetadata, ServerMetadata

__all__ = ["select_scopes", "union"]


def union(*groups: Iterable[str] | None) -> tuple[str, ...]:
    """The scopes of every group in first-seen order, each once."""
    return tuple(dict.fromkeys(s for group in groups if group for s in group))


def select_scopes(
    challenged: tuple[str, ...] | None,
    prm: ResourceMetadata | None,
    asm: ServerMetadata | None,
    wants_refresh: bool = True,
) -> tuple[str, ...]:
    """The scopes to request (``()`` means: omit the parameter)."""
    if challenged is not None:
        chosen = challenged
    elif prm is not None and prm.scopes_supported is not None:
        chosen = prm.scopes_supported
    else:
        chosen = ()
    offered = asm.scopes_supported if asm is not None else None
    if chosen and wants_refresh and offered and "offline_access" in offered:
        chosen = union(chosen, ["offline_access"])
    return tuple(chosen)
