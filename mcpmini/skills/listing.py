"""The skill listing: what every turn pays for skills that were never invoked.

Rules of this module (each measured against Claude Code 2.1.332, see
``tests/oracle/test_skills_oracle.py``):

- The model is shown :data:`HEADER`, a blank line, then one line per listed skill:
  ``- name: text``. ``text`` is ``description``, plus `` - `` and ``when_to_use`` when there
  is one; each part has its line breaks and tabs turned into spaces (blank lines vanish) and
  is stripped. A ``text`` longer than 1,536 characters keeps its first 1,535 and ends in
  ``…``. A skill whose front-matter ``name`` differs from its folder is listed as
  ``folder (name)``.
- Order: personal skills, project skills (each sorted by name the way Claude Code's
  ``localeCompare`` sorts), then every command of both (sorted together), then plugin
  commands and plugin skills (plugin by plugin, in load order), then the bundled skills, then
  the built-in prompt commands. Skills with ``disable-model-invocation`` are left out.
- The budget is ``floor(window × characters-per-token × 1 %)`` characters (at least 1), or
  ``SLASH_COMMAND_TOOL_CHAR_BUDGET`` when set. Characters are counted as terminal columns
  (a wide East Asian character counts 2). 2.1.332's default model (``claude-opus-5-5``) has a
  1M-token window and counts 3 characters a token (models of :data:`FOUR_CHAR_MODELS`
  count 4), so its budget is 30,000 characters.
- Over budget, bundled skills and ``name-only`` entries stay as they are; every other entry starts
  as its bare name, and descriptions are given back greedily from the most-used skill down
  (exact ties in listing order), each one that still fits in what is left of the budget.
  Names are always kept. Usage is scored at the session's start (:func:`usage_scores`): a
  skill at the decay floor outranks an equal score still decaying.
- This is the first part of Proposition 5.2: the listing's size never depends on the bodies.

Works on anything with ``name`` and ``description`` (:class:`mcpmini.skills.Skill`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import Problem, Severity

__all__ = [
    "CUT_MARK",
    "DEFAULT_CONTEXT_WINDOW",
    "DEFAULT_MODEL",
    "FOUR_CHAR_MODELS",
    "HEADER",
    "MAX_DESC_CHARS",
    "OVERRIDES",
    "Listing",
    "ListingEntry",
    "build_listing",
    "display_width",
    "lint_skills",
    "listed_name",
    "listing_budget",
    "listing_text",
    "model_chars_per_token",
    "name_order_key",
    "usage_score",
    "usage_scores",
]

HEADER = "The following skills are available for use with the Skill tool:"
MAX_DESC_CHARS = 1536
CUT_MARK = "\u2026"
OVERRIDES = ("on", "name-only", "user-invocable-only", "off")
#: Claude Code 2.1.332's default main-loop model and its context window (tokens).
DEFAULT_MODEL = "claude-opus-5-5"
DEFAULT_CONTEXT_WINDOW = 1_000_000
#: Models whose listing budget counts 4 characters a token; every other model counts 3.
FOUR_CHAR_MODELS = frozenset(
    {
        "claude-3-opus",
        "claude-3-sonnet",
        "claude-3-haiku",
        "claude-3-5-sonnet",
        "claude-3-5-haiku",
        "claude-3-7-sonnet",
        "claude-opus-4-0",
        "claude-opus-4-1",
        "claude-opus-4-5",
        "claude-opus-4-6",
        "claude-sonnet-4-0",
        "claude-sonnet-4-5",
        "claude-sonnet-4-6",
        "claude-haiku-4-5",
    }
)
_ALIAS_MAX = 256
_ALIAS_EXTRA = frozenset("_:.-")
# CLDR root collation of ASCII punctuation and symbols (all sort before digits and letters).
_PUNCT = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def model_chars_per_token(model: str = DEFAULT_MODEL) -> int:
    """Characters a token the listing budget counts for ``model``: 4 or 3.

    A dated or suffixed id (``claude-sonnet-4-5-20250929``, ``…[1m]``) counts as its family.
    """
    base = re.sub(r"\[.*\]$", "", model.strip().lower()).replace(".", "-").replace("_", "-")
    return 4 if any(base == m or base.startswith(m + "-") for m in FOUR_CHAR_MODELS) else 3


def listing_budget(
    context_window_tokens: int = DEFAULT_CONTEXT_WINDOW,
    *,
    chars_per_token: int = 3,
    fraction: float = 0.01,
    budget_chars: int | None = None,
) -> int:
    """The listing budget in characters: ``budget_chars`` when given (a positive
    ``SLASH_COMMAND_TOOL_CHAR_BUDGET``), otherwise ``floor(window × chars_per_token ×
    fraction)``, at least 1."""
    if budget_chars is not None and budget_chars > 0:
        return budget_chars
    return max(1, math.floor(context_window_tokens * chars_per_token * fraction))


def usage_score(count: int, days_since_use: float) -> float:
    """How much a skill counts as used (``skillUsage`` in ``~/.claude.json``): its count,
    halved every 7 days since the last use, never below a tenth of the count."""
    decay: float = 0.5 ** (days_since_use / 7)
    return count * max(decay, 0.1)


DAY_MS = 86_400_000


def usage_scores(skill_usage: Mapping[str, Any], now_ms: float) -> dict[str, float]:
    """Each skill's :func:`usage_score` from ``skillUsage`` of ``~/.claude.json``
    (``{name: {"usageCount": n, "lastUsedAt": ms}}``) at the instant ``now_ms``.

    The instant matters for the order among equals: a skill used moments ago keeps decaying
    while one at the floor (a tenth of its count) stays put, so ``(30 uses, 200 days ago)``
    (3.0) ranks above ``(3 uses, just now)`` (3.0 minus the seconds since) — measured with
    2.1.332, which scores at the session's start. An entry that is not an object with a
    number count is ignored."""
    out: dict[str, float] = {}
    for name, entry in skill_usage.items():
        if not isinstance(entry, Mapping):
            continue
        count, last = entry.get("usageCount"), entry.get("lastUsedAt", now_ms)
        if not isinstance(count, int | float) or not isinstance(last, int | float):
            continue
        out[str(name)] = usage_score(int(count), max(0.0, now_ms - last) / DAY_MS)
    return out


def display_width(text: str) -> int:
    """The terminal columns of ``text``: wide and full-width characters count 2, combining
    marks and zero-width characters 0, everything else 1."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _flat(text: str) -> str:
    lines = [ln for ln in text.replace("\r\n", "\n").split("\n") if ln.strip()]
    return " ".join(lines).replace("\t", " ").strip()


def listing_text(description: str, when_to_use: str = "") -> str:
    """``description`` and ``when_to_use`` as one listing text, before the cut."""
    desc, when = _flat(description), _flat(when_to_use)
    return f"{desc} - {when}" if when else desc


def _collation_weight(ch: str) -> tuple[int, int]:
    if ch.isspace():
        return (0, 0)
    if ch in _PUNCT:
        return (1, _PUNCT.index(ch))
    if ch.isdigit():
        return (2, int(ch) if ch.isascii() else ord(ch))
    return (3, ord(ch.casefold()[0]))


def name_order_key(name: str) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """A sort key that orders names as Claude Code does (``localeCompare``, root collation):
    punctuation, then digits, then letters ignoring case; on a tie, lower case first."""
    primary = tuple(_collation_weight(c) for c in name)
    tertiary = tuple(0 if c.islower() or not c.isalpha() else 1 for c in name)
    return primary, tertiary


@dataclass(frozen=True)
class ListingEntry:
    """One line of the listing: the name, the text kept, and what was cut.

    ``alias`` is the front-matter name shown in parentheses; ``fixed`` entries (bundled
    skills, ``name-only`` overrides) never change when the listing is over budget.
    """

    name: str
    text: str
    original_chars: int
    truncated: bool
    dropped: bool
    alias: str = ""
    fixed: bool = False

    @property
    def label(self) -> str:
        """The name as listed: ``name`` or ``name (alias)``."""
        return f"{self.name} ({self.alias})" if self.alias else self.name

    @property
    def full_line(self) -> str:
        """The line with its description (whether or not it was dropped)."""
        return f"- {self.label}: {self.text}"

    @property
    def line(self) -> str:
        """The line as listed: a ``name-only`` entry shows its bare name, a dropped
        description leaves ``- label``."""
        if not self.dropped:
            return self.full_line
        return f"- {self.name}" if self.fixed else f"- {self.label}"


@dataclass(frozen=True)
class Listing:
    """The listing the model sees every turn, with its size against the budget."""

    entries: tuple[ListingEntry, ...]
    budget_chars: int
    excluded: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The lines, one per entry."""
        return "\n".join(e.line for e in self.entries)

    @property
    def message(self) -> str:
        """The whole message as Claude Code shows it (empty when nothing is listed)."""
        return f"{HEADER}\n\n{self.text}" if self.entries else ""

    @property
    def chars(self) -> int:
        """The size Claude Code holds to the budget: the lines' columns plus line breaks."""
        return sum(display_width(e.line) for e in self.entries) + max(0, len(self.entries) - 1)

    @property
    def over_budget(self) -> bool:
        """True when even the names alone do not fit."""
        return self.chars > self.budget_chars


def _level(s: Any) -> str:
    level = getattr(s, "level", "project")
    return str(getattr(level, "value", level))


def _order_key(s: Any, plugin_rank: Mapping[str, int]) -> tuple[Any, ...]:
    kind = getattr(s, "kind", "skill")
    plugin = getattr(s, "plugin", None)
    name = listed_name(s)
    if plugin is not None:
        group = 4 if kind == "command" else 5
        return (group, plugin_rank[plugin], name_order_key(name))
    if kind == "command":
        return (3, 0, name_order_key(name))
    group = {"enterprise": 0, "personal": 1, "project": 2}.get(_level(s), 2)
    return (group, 0, name_order_key(name))


def listed_name(s: Any) -> str:
    """The name Claude Code lists for skill ``s``: for a plugin skill ``plugin:folder``, not
    its front-matter name (that one is shown in parentheses)."""
    plugin, directory = getattr(s, "plugin", None), getattr(s, "directory", None)
    if plugin is not None and getattr(s, "kind", "skill") == "skill" and directory:
        return f"{plugin}:{Path(directory).name}"
    return str(s.name)


def _alias(s: Any, name: str) -> str:
    fields = getattr(s, "fields", None) or {}
    display = fields.get("name") if getattr(s, "kind", "skill") == "skill" else None
    if not isinstance(display, str) or not display:
        return ""
    plugin = getattr(s, "plugin", None)
    alias = f"{plugin}:{display}" if plugin is not None else display
    valid = len(alias) <= _ALIAS_MAX and all(
        c in _ALIAS_EXTRA or unicodedata.category(c)[0] in "LMN" for c in alias
    )
    if alias == name or name.endswith(f":{alias}") or not valid:
        return ""
    return alias


def _text_of(s: Any) -> str:
    fields = getattr(s, "fields", None) or {}
    when = getattr(s, "when_to_use", None)
    if when is None:
        when = fields.get("when_to_use") or ""
    return listing_text(str(s.description or ""), str(when or ""))


def _entry(s: Any, name: str, alias: str, mode: str, max_desc: int) -> ListingEntry:
    full = _text_of(s)
    cut = len(full) > max_desc
    text = full[: max_desc - 1] + CUT_MARK if cut else full
    named_only = mode == "name-only"
    return ListingEntry(name, text, len(full), cut, named_only, alias, named_only)


def _with_aliases(ordered: Sequence[Any]) -> list[tuple[Any, str, str]]:
    """Each skill with its listed name and the alias shown, if any (an alias shows only
    when it leads back to this skill: no other skill has it as its name, nor earlier)."""
    names = [listed_name(s) for s in ordered]
    rows = []
    claimed: set[str] = set()
    for s, name in zip(ordered, names):
        alias = _alias(s, name)
        if alias and (alias in names or alias in claimed):
            alias = ""
        claimed.add(alias)
        rows.append((s, name, alias))
    return rows


def _fit(entries: list[ListingEntry], budget: int, usage: Mapping[str, float]) -> None:
    """Drop descriptions in place as Claude Code does when the full listing is over budget."""
    full = sum(display_width(e.line) for e in entries) + max(0, len(entries) - 1)
    if full <= budget:
        return
    movable = [i for i, e in enumerate(entries) if not e.fixed]
    for i in movable:
        entries[i] = _dropped(entries[i], True)
    left = budget - (sum(display_width(e.line) for e in entries) + max(0, len(entries) - 1))
    movable.sort(key=lambda i: -usage.get(entries[i].name, 0))  # stable: ties keep the order
    for i in movable:
        e = entries[i]
        extra = display_width(e.full_line) - display_width(e.line)
        if extra <= left:
            entries[i] = _dropped(e, False)
            left -= extra


def _dropped(e: ListingEntry, dropped: bool) -> ListingEntry:
    return ListingEntry(e.name, e.text, e.original_chars, e.truncated, dropped, e.alias, e.fixed)


def build_listing(
    skills: Iterable[Any],
    *,
    usage: Mapping[str, float] | None = None,
    context_window_tokens: int = DEFAULT_CONTEXT_WINDOW,
    fraction: float = 0.01,
    chars_per_token: int | None = None,
    model: str = DEFAULT_MODEL,
    budget_chars: int | None = None,
    max_desc_chars: int = MAX_DESC_CHARS,
    overrides: Mapping[str, str] | None = None,
    fixed: Sequence[tuple[str, str]] = (),
    builtin: Sequence[tuple[str, str]] = (),
) -> Listing:
    """The skill listing as Claude Code 2.1.332 builds it (see the module rules).

    The budget is :func:`listing_budget` of ``context_window_tokens`` at
    ``chars_per_token`` (default: :func:`model_chars_per_token` of ``model``), or ``budget_chars``
    (``SLASH_COMMAND_TOOL_CHAR_BUDGET``). ``usage`` maps a listed name to its
    :func:`usage_score` (``skillUsage``); ``overrides`` is the ``skillOverrides`` setting:
    ``on`` (default), ``name-only`` (listed without a description),
    ``user-invocable-only`` and ``off`` (not listed). ``fixed`` are ``(name, text)`` entries
    listed after the skills and never shortened (the bundled skills); ``builtin`` are
    ``(name, text)`` entries listed last whose text can be dropped like a skill's (the
    built-in prompt commands ``init`` and ``security-review``). Skills with
    ``disable-model-invocation`` or left out by an override are named in ``excluded``.
    Returns a :class:`Listing`. Raises ``ValueError`` for another override value.
    """
    usage = usage or {}
    overrides = overrides or {}
    bad = set(overrides.values()) - set(OVERRIDES)
    if bad:
        raise ValueError(f"skillOverrides values must be one of {OVERRIDES}, got {sorted(bad)}")
    cpt = chars_per_token if chars_per_token is not None else model_chars_per_token(model)
    budget = listing_budget(
        context_window_tokens, chars_per_token=cpt, fraction=fraction, budget_chars=budget_chars
    )
    shown: list[Any] = []
    excluded: list[str] = []
    for s in skills:
        mode = overrides.get(listed_name(s), overrides.get(s.name, "on"))
        if not getattr(s, "model_invocable", True) or mode in ("off", "user-invocable-only"):
            excluded.append(listed_name(s))
        else:
            shown.append(s)
    plugin_rank: dict[str, int] = {}
    for s in shown:
        plugin = getattr(s, "plugin", None)
        if plugin is not None:
            plugin_rank.setdefault(plugin, len(plugin_rank))
    shown.sort(key=lambda s: _order_key(s, plugin_rank))
    entries = [
        _entry(s, name, alias, overrides.get(name, overrides.get(s.name, "on")), max_desc_chars)
        for s, name, alias in _with_aliases(shown)
    ]
    for name, text in fixed:
        entries.append(ListingEntry(name, text, len(text), False, False, "", True))
    for name, text in builtin:
        entries.append(ListingEntry(name, text, len(text), False, False))
    _fit(entries, budget, usage)
    return Listing(tuple(entries), budget, tuple(excluded))


def lint_skills(skillset: Any, **listing_options: Any) -> list[Problem]:
    """Every problem of ``skillset`` plus listing findings (cut descriptions, budget).

    ``skillset`` is a :class:`mcpmini.skills.SkillSet` (iterable, with ``problems``).
    ``listing_options`` go to :func:`build_listing`. Returns problems, errors first.
    """
    found = list(skillset.problems)
    listing = build_listing(skillset, **listing_options)
    sources = {listed_name(s): getattr(s, "source", None) for s in skillset}
    for e in listing.entries:
        if e.fixed and not e.dropped:
            continue
        source = sources.get(e.name)
        if e.truncated:
            found.append(
                Problem(
                    Severity.WARNING,
                    f"description + when_to_use is {e.original_chars} characters; the "
                    f"listing keeps the first {MAX_DESC_CHARS - 1} and a {CUT_MARK}",
                    source,
                    "description",
                )
            )
        if e.dropped and not e.fixed:
            found.append(
                Problem(
                    Severity.WARNING,
                    "description dropped from the listing to "
                    f"fit the {listing.budget_chars}-character budget",
                    source,
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
