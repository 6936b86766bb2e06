"""The skill listing: what every turn pays for skills that were never invoked.

Each model-invocable skill appears as its name plus ``description`` and ``when_to_use``,
cut at 1,536 characters; the whole listing is held to a character budget (by default 1 %
of the context window, counted as characters at four per token, so 8,000 characters for
a 200k window). When it overflows, the descriptions of the least-used skills are dropped
first and the names always stay. Skills with ``disable-model-invocation`` are left out.
This is the first part of Proposition 5.2: the listing's size never depends on the
bodies. Works on anything with ``name``, ``listing_text`` and ``model_invocable``
(:class:`mcpmini.skills.Skill`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import Problem, Severity

__all__ = [
    "MAX_DESC_CHARS",
    "OVERRIDES",
    "Listing",
    "ListingEntry",
    "build_listing",
    "lint_skills",
]

MAX_DESC_CHARS = 1536
OVERRIDES = ("on", "name-only", "user-invocable-only", "off")


@dataclass(frozen=True)
class ListingEntry:
    """One line of the listing: the name, the text kept, and what was cut."""

    name: str
    text: str
    original_chars: int
    truncated: bool
    dropped: bool

    @property
    def line(self) -> str:
        return f"- {self.name}" if self.dropped or not self.text else f"- {self.name}: {self.text}"


@dataclass(frozen=True)
class Listing:
    """The listing the model sees every turn, with its size against the budget."""

    entries: tuple[ListingEntry, ...]
    budget_chars: int
    excluded: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return "\n".join(e.line for e in self.entries)

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def over_budget(self) -> bool:
        """True when even the names alone do not fit."""
        return self.chars > self.budget_chars


def build_listing(
    skills: Iterable[Any],
    *,
    usage: Mapping[str, int] | None = None,
    context_window_tokens: int = 200_000,
    fraction: float = 0.01,
    chars_per_token: int = 4,
    budget_chars: int | None = None,
    max_desc_chars: int = MAX_DESC_CHARS,
    overrides: Mapping[str, str] | None = None,
) -> Listing:
    """The skill listing after the per-skill cut and the whole-listing budget.

    The budget is ``budget_chars`` when given (``SLASH_COMMAND_TOOL_CHAR_BUDGET``),
    otherwise ``fraction`` of the context window, counted in characters at
    ``chars_per_token`` (200k tokens → 8,000 characters). Skills with
    ``disable-model-invocation`` are left out (listed in ``excluded``). While over budget,
    descriptions are dropped from the least-used skill first (``usage`` counts; ties by
    name); names are always kept. ``overrides`` is the ``skillOverrides`` setting per
    skill name: ``on`` (default), ``name-only`` (listed without a description),
    ``user-invocable-only`` and ``off`` (not listed). Returns a :class:`Listing`. Raises
    ``ValueError`` for another override value.
    """
    usage = usage or {}
    overrides = overrides or {}
    bad = {v for v in overrides.values()} - set(OVERRIDES)
    if bad:
        raise ValueError(f"skillOverrides values must be one of {OVERRIDES}, got {sorted(bad)}")
    budget = (
        budget_chars
        if budget_chars is not None
        else int(context_window_tokens * fraction * chars_per_token)
    )
    entries: list[ListingEntry] = []
    excluded: list[str] = []
    for s in skills:
        mode = overrides.get(s.name, "on")
        if not s.model_invocable or mode in ("off", "user-invocable-only"):
            excluded.append(s.name)
            continue
        full = s.listing_text
        entries.append(
            ListingEntry(
                s.name,
                full[:max_desc_chars],
                len(full),
                len(full) > max_desc_chars,
                mode == "name-only",
            )
        )
    victims = sorted(
        range(len(entries)), key=lambda i: (usage.get(entries[i].name, 0), entries[i].name)
    )
    listing = Listing(tuple(entries), budget, tuple(excluded))
    for i in victims:
        if listing.chars <= budget:
            break
        e = entries[i]
        entries[i] = ListingEntry(e.name, e.text, e.original_chars, e.truncated, True)
        listing = Listing(tuple(entries), budget, tuple(excluded))
    return listing


def lint_skills(skillset: Any, **listing_options: Any) -> list[Problem]:
    """Every problem of ``skillset`` plus listing findings (cut descriptions, budget).

    ``skillset`` is a :class:`mcpmini.skills.SkillSet` (iterable, indexable by name,
    with ``problems``).

    ``listing_options`` go to :func:`build_listing`. Returns problems, errors first.
    """
    found = list(skillset.problems)
    listing = build_listing(skillset, **listing_options)
    for e in listing.entries:
        s = skillset[e.name]
        if e.truncated:
            found.append(
                Problem(
                    Severity.WARNING,
                    f"description + when_to_use is "
                    f"{e.original_chars} characters; the listing keeps the first "
                    f"{len(e.text)}",
                    s.source,
                    "description",
                )
            )
        if e.dropped:
            found.append(
                Problem(
                    Severity.WARNING,
                    "description dropped from the listing to "
                    f"fit the {listing.budget_chars}-character budget",
                    s.source,
                    "description",
                )
            )
    if listing.over_budget:
        found.append(
            Problem(
                Severity.WARNING,
                f"even the names ({listing.chars} characters) "
                f"exceed the {listing.budget_chars}-character listing budget",
            )
        )
    return sorted(found, key=lambda p: p.severity is not Severity.ERROR)
