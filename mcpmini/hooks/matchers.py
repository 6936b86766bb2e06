"""Hook matchers: which rule reads a matcher string, and whether it matches a name.

A matcher is read by exactly one of three rules (reference §1.5). ``"*"``, ``""`` or no
matcher match everything. A string made only of letters, digits, ``_ - space , |`` is an
exact name or a list of exact names split on ``|`` or ``,`` (spaces around items ignored).
Anything else is an *unanchored* JavaScript regular expression (``RegExp.test``), so
``Edit.*`` also hits ``NotebookEdit``. FileChanged and StopFailure use a narrower exact set
(letters, digits, ``_``, ``|``). Matching is always case-sensitive.

Python's ``re`` is not JavaScript's. :func:`js_regex` translates the pattern so both read it
the same way and refuses (``ConfigError``) what it cannot translate faithfully:

* ``$`` ends the string in JS; Python's ``$`` also matches before a final newline, so an
  unescaped ``$`` becomes ``\\Z``.
* ``\\d``/``\\w``/``\\b`` are ASCII in JS and Unicode in Python: we compile with ``re.ASCII``.
  (Side effect: ``\\s`` is ASCII-only too; JS ``\\s`` also accepts Unicode spaces. Tool names
  never contain those.)
* ``(?<name>…)`` and ``\\k<name>`` become ``(?P<name>…)`` and ``(?P=name)``.
* ``[^]`` (any character in JS) becomes ``[\\s\\S]``; ``[]`` (matches nothing) becomes ``(?!)``.
* Python-only syntax a JS engine would reject or read differently is refused: ``(?P…)``,
  inline flags ``(?i)``, atomic groups ``(?>…)``, possessive quantifiers ``*+``, ``\\A``,
  ``\\Z``, ``\\z``, ``\\Q``, conditionals ``(?(1)…)``.
* Patterns longer than :data:`MAX_REGEX_LENGTH` are refused; names matched are short, which
  keeps backtracking cheap.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import lru_cache

from ..errors import ConfigError

__all__ = [
    "MAX_REGEX_LENGTH",
    "MatchResult",
    "MatcherRule",
    "classify_matcher",
    "js_regex",
    "match",
]

MAX_REGEX_LENGTH = 1000

_EXACT = re.compile(r"[A-Za-z0-9_\- ,|]*")
_EXACT_NARROW = re.compile(r"[A-Za-z0-9_|]*")


class MatcherRule(enum.Enum):
    """Which of the three rules of reference §1.5 read a matcher."""

    ALL = "all"  # "*", "" or omitted
    EXACT = "exact"  # one exact name
    LIST = "list"  # exact names split on | or ,
    REGEX = "regex"  # unanchored JavaScript regex


@dataclass(frozen=True)
class MatchResult:
    """The answer for one (matcher, name) pair.

    ``matched`` says whether the handler fires; ``rule`` which rule read the matcher;
    ``names`` the exact names for EXACT/LIST; ``pattern`` the Python pattern for REGEX;
    ``error`` a message when the matcher could not be evaluated (then ``matched`` is False).
    """

    matcher: str | None
    name: str
    matched: bool
    rule: MatcherRule
    names: tuple[str, ...] = ()
    pattern: str | None = None
    error: str | None = None

    def explain(self) -> str:
        """One English line saying why the matcher did or did not match."""
        verdict = "matches" if self.matched else "does not match"
        if self.error:
            return f"matcher {self.matcher!r} could not be evaluated: {self.error}"
        if self.rule is MatcherRule.ALL:
            return f"matcher {self.matcher!r} matches every name ({self.name!r} included)"
        if self.rule in (MatcherRule.EXACT, MatcherRule.LIST):
            return f"exact names {list(self.names)} {verdict} {self.name!r} (case-sensitive)"
        return f"unanchored regex /{self.matcher}/ {verdict} {self.name!r}"


def classify_matcher(matcher: str | None, *, narrow: bool = False) -> MatcherRule:
    """Return the rule that reads ``matcher``; ``narrow`` is the FileChanged/StopFailure set."""
    if matcher is None or matcher == "" or matcher == "*":
        return MatcherRule.ALL
    charset = _EXACT_NARROW if narrow else _EXACT
    if charset.fullmatch(matcher):
        return MatcherRule.LIST if re.search(r"[|,]", matcher) else MatcherRule.EXACT
    return MatcherRule.REGEX


def _split_names(matcher: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in re.split(r"[|,]", matcher) if item.strip())


_REFUSED = [
    (re.compile(r"\(\?P"), "Python named-group syntax (?P...) is not JavaScript"),
    (re.compile(r"\(\?[aiLmsux-]+[):]"), "inline flags such as (?i) are not JavaScript"),
    (re.compile(r"\(\?>"), "atomic groups (?>...) are not JavaScript"),
    (re.compile(r"\(\?\("), "conditional groups are not JavaScript"),
    (re.compile(r"[*+?}]\+"), "possessive quantifiers are not JavaScript"),
]


@lru_cache(maxsize=512)
def js_regex(pattern: str) -> re.Pattern[str]:
    """Compile a JavaScript regex (no flags) as an equivalent Python pattern.

    Returns the compiled pattern; use ``.search`` for JS ``RegExp.test`` semantics.
    Raises ``ConfigError`` for patterns that are invalid or cannot be translated faithfully.
    """
    _refuse_untranslatable(pattern)
    try:
        return re.compile(_translate(pattern), re.ASCII)
    except re.error as exc:
        raise ConfigError(f"invalid regex matcher {pattern!r}: {exc}") from None


def _refuse_untranslatable(pattern: str) -> None:
    """Raise ``ConfigError`` for a pattern too long, or using syntax only Python reads."""
    if len(pattern) > MAX_REGEX_LENGTH:
        raise ConfigError(f"regex matcher longer than {MAX_REGEX_LENGTH} characters")
    blanked = re.sub(r"\\.", "__", pattern)  # escaped text (e.g. "\(\?P") is not syntax
    for probe, why in _REFUSED:
        if probe.search(blanked):
            raise ConfigError(f"{why}: {pattern!r}")


def _translate(pattern: str) -> str:
    """The Python spelling of JavaScript ``pattern``, one token at a time."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        if pattern[i] == "\\":
            text, i = _escape(pattern, i, in_class)
        elif in_class:
            text, i, in_class = _in_class(pattern, i)
        else:
            text, i, in_class = _outside_class(pattern, i)
        out.append(text)
    return "".join(out)


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """The escape starting at ``pattern[i]`` (a backslash): its translation and the next index."""
    if i + 1 >= len(pattern):
        raise ConfigError(f"regex ends with a lone backslash: {pattern!r}")
    nxt = pattern[i + 1]
    if nxt in "AZzQ" and not in_class:
        raise ConfigError(f"\\{nxt} means something else in JavaScript: {pattern!r}")
    if nxt == "k" and pattern.startswith("<", i + 2):
        end = pattern.find(">", i + 3)
        if end < 0:
            raise ConfigError(f"unterminated \\k<name>: {pattern!r}")
        return f"(?P={pattern[i + 3 : end]})", end + 1
    return pattern[i : i + 2], i + 2


def _in_class(pattern: str, i: int) -> tuple[str, int, bool]:
    """One character inside ``[...]``: its translation, the next index, still in the class."""
    ch = pattern[i]
    if ch == "]":
        return ch, i + 1, False
    if ch == "[":
        return "\\[", i + 1, True  # literal in JS classes; a FutureWarning set op in Python
    return ch, i + 1, True


def _outside_class(pattern: str, i: int) -> tuple[str, int, bool]:
    """One token outside a class: its translation, the next index, whether a class opened."""
    ch = pattern[i]
    if pattern.startswith("[^]", i):
        return r"[\s\S]", i + 3, False
    if pattern.startswith("[]", i):
        return "(?!)", i + 2, False
    if ch == "[":
        return ch, i + 1, True
    if pattern.startswith("(?<", i) and i + 3 < len(pattern) and pattern[i + 3] not in "=!":
        return "(?P<", i + 3, False
    if ch == "$":
        return r"\Z", i + 1, False
    return ch, i + 1, False


def match(matcher: str | None, name: str, *, narrow: bool = False) -> MatchResult:
    """Decide whether ``matcher`` fires for ``name`` (a tool name or the event's match value).

    Never raises: an untranslatable regex gives ``matched=False`` with ``error`` set, so
    the caller decides what a matching failure means for its event.
    """
    rule = classify_matcher(matcher, narrow=narrow)
    if rule is MatcherRule.ALL:
        return MatchResult(matcher, name, True, rule)
    assert matcher is not None
    if rule in (MatcherRule.EXACT, MatcherRule.LIST):
        names = _split_names(matcher)
        return MatchResult(matcher, name, name in names, rule, names=names)
    try:
        compiled = js_regex(matcher)
    except ConfigError as exc:
        return MatchResult(matcher, name, False, rule, error=exc.message)
    return MatchResult(
        matcher, name, compiled.search(name) is not None, rule, pattern=compiled.pattern
    )
