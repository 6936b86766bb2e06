"""``WWW-Authenticate`` challenges (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1), sans-I/O.

:func:`parse_challenges` reads a header value into :class:`Challenge` values: the scheme
(``Bearer``, ``DPoP`` …) and its auth-params, quoted strings unescaped. A malformed part ends
the parse there; what was read before it is kept (a challenge is advice, never trusted input).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Challenge", "parse_challenges"]

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_SCHEME = re.compile(rf"\s*({_TOKEN})(?=\s|,|$)")
_PARAM = re.compile(rf"\s*({_TOKEN})\s*=\s*(?:\"((?:[^\"\\]|\\.)*)\"|({_TOKEN}))\s*")
_TOKEN68 = re.compile(r"\s*[A-Za-z0-9\-._~+/]+=*\s*(?=,|$)")


@dataclass(frozen=True)
class Challenge:
    """One challenge: ``scheme`` (as sent) and ``params`` (names in lower case)."""

    scheme: str
    params: Mapping[str, str] = field(default_factory=dict)

    def get(self, name: str) -> str | None:
        return self.params.get(name.lower())

    @property
    def scopes(self) -> tuple[str, ...] | None:
        """The ``scope`` parameter split on spaces, or ``None`` when it is absent."""
        scope = self.get("scope")
        return None if scope is None else tuple(scope.split())


def parse_challenges(header: str | None) -> list[Challenge]:
    """Every challenge of a ``WWW-Authenticate`` value, in order (``[]`` for none)."""
    out: list[Challenge] = []
    text = header or ""
    pos = 0
    while pos < len(text):
        while pos < len(text) and text[pos] in " \t,":
            pos += 1
        m = _SCHEME.match(text, pos)
        if m is None:
            break
        scheme, pos = m.group(1), m.end()
        params: dict[str, str] = {}
        t68 = _TOKEN68.match(text, pos)
        if t68 is not None and "=" not in text[pos : t68.end()].rstrip("="):
            pos = t68.end()
        while True:
            p = _PARAM.match(text, pos)
            if p is None:
                break
            value = p.group(2) if p.group(2) is not None else p.group(3)
            params[p.group(1).lower()] = re.sub(r"\\(.)", r"\1", value)
            pos = p.end()
            if pos < len(text) and text[pos] == ",":
                nxt = _PARAM.match(text, pos + 1)
                if nxt is None:
                    pos += 1
                    break  # a comma before the next challenge's scheme
                pos += 1
        out.append(Challenge(scheme, params))
    return out
