"""The one front-matter parser: skills, commands, agents, hook sources and plugins.

A Markdown file may open with a YAML block between a ``---`` line and a closing ``---`` (or
``...``) line. :func:`parse_front_matter` splits it off and reads it the way Claude Code
reads it, not the way a strict YAML parser would:

* a byte-order mark before the opening ``---`` is ignored;
* a one-line value that strict YAML refuses because of an unquoted ``": "`` inside it
  (``description: Use when: X``) is read as plain text, with a **warning** that names the
  file, the line and the fix (quote the value);
* for the fields a caller declares as text (``text_fields``), a one-line value that YAML
  reads as something else (``argument-hint: [name]`` is a list, ``description: 42`` a
  number) is kept as the text written, with the same kind of warning.

What is refused (:class:`ConfigError`, naming the file and line): a block larger than
:data:`MAX_FRONT_MATTER_BYTES`, YAML anchors and aliases (an alias bomb of a few hundred
bytes expands to millions of nodes), a block that is never closed, YAML that stays invalid
after the one-line repair (:class:`FrontMatterSyntaxError`, which the agent loader turns into
a placeholder description as Claude Code does), a field written twice, and a block that is
not a mapping.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError, Problem, Severity

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_FRONT_MATTER_BYTES",
    "FrontMatter",
    "FrontMatterSyntaxError",
    "ValidatorFrontMatter",
    "parse_front_matter",
    "read_as_validator",
    "read_markdown",
]

MAX_FRONT_MATTER_BYTES = 64 * 1024  # the YAML block; real front matter is a few hundred bytes
MAX_FILE_BYTES = 4 * 1024 * 1024  # a whole skill, command or agent file

_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):[ \t]+(\S.*?)[ \t]*$")
# A value starting with one of these opens deliberate YAML structure (a flow collection, a
# block scalar, a quoted string): never repaired as text. ``*``, ``!``, ``@``, ``%`` and a
# backquote at the start are repaired (aliases are refused anyway).
_INDICATORS = tuple("[{|>\"'")


class FrontMatterSyntaxError(ConfigError):
    """The front matter is not YAML even after the one-line repair (``line`` says where).

    ``body`` is the file's text after the front matter, for loaders that go on without it.
    """

    body: str = ""


@dataclass(frozen=True)
class FrontMatter:
    """One file's front matter: ``fields``, the ``body`` after it, where each key is.

    ``lines`` maps each top-level key to its line in the file (1-based); ``problems`` holds
    the warnings (repaired values); ``present`` is False when the file has no front matter.
    """

    fields: Mapping[str, Any]
    body: str
    lines: Mapping[str, int] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    present: bool = True


def read_markdown(path: str | Path) -> str:
    """The text of a Markdown file, at most :data:`MAX_FILE_BYTES` bytes.

    Raises :class:`ConfigError` naming the file when it is larger, unreadable or not UTF-8.
    """
    p = Path(path)
    try:
        with p.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", str(p)) from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"file larger than {MAX_FILE_BYTES} bytes; not loaded", str(p))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text ({exc.reason})", str(p)) from None


def _split(text: str, source: str | None) -> tuple[list[str] | None, str]:
    """The front-matter lines (``None`` when there is none) and the body."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return None, text
    size = 0
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n").rstrip() in ("---", "..."):
            return [ln.rstrip("\r\n") for ln in lines[1:i]], "".join(lines[i + 1 :])
        size += len(lines[i].encode("utf-8"))
        if size > MAX_FRONT_MATTER_BYTES:
            break
    if size > MAX_FRONT_MATTER_BYTES:
        raise ConfigError(
            f"front matter larger than {MAX_FRONT_MATTER_BYTES} bytes; not loaded", source, line=1
        )
    raise ConfigError(
        "front matter opened with '---' is never closed (end it with a '---' line)", source, line=1
    )


def _refuse_anchors(text: str, source: str | None) -> None:
    """Raise on any YAML anchor or alias (checked on the event stream, before any object)."""
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise ConfigError(
                "YAML anchors and aliases (&name, *name) are not allowed in front "
                "matter; write the value out",
                source,
                line=event.start_mark.line + 2,
            )


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _warn_text(source: str | None, key: str, line: int, why: str) -> Problem:
    return Problem(
        Severity.WARNING,
        f"{why}; read as the plain text written. Quote the value "
        f'({key}: "...") so every YAML reader agrees',
        source,
        key,
        line,
    )


def _load(lines: list[str], source: str | None) -> tuple[Any, yaml.Node | None, list[Problem]]:
    """YAML-load the block, repairing one-line values that strict YAML refuses."""
    problems: list[Problem] = []
    repaired: set[int] = set()
    while True:
        text = "\n".join(lines)
        try:
            # Composing shares aliased nodes, so it is linear even for an alias bomb; an
            # undefined alias (``*bold* text``) fails here and is repaired like any one-liner.
            node = yaml.compose(text, Loader=yaml.SafeLoader)
            _refuse_anchors(text, source)
            return yaml.safe_load(text), node, problems
        except RecursionError:  # nesting deeper than the composer's recursion reaches
            raise FrontMatterSyntaxError(
                "malformed YAML front matter: nested too deeply", source, line=1
            ) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
            index = mark.line if mark is not None else None
            found = (
                _KEY_LINE.match(lines[index]) if index is not None and index < len(lines) else None
            )
            if found is None or index in repaired or found.group(2).startswith(_INDICATORS):
                problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
                raise FrontMatterSyntaxError(
                    f"malformed YAML front matter: {problem}",
                    source,
                    line=(index + 2) if index is not None else 1,
                ) from None
            assert index is not None
            key, value = found.group(1), found.group(2)
            lines = [*lines[:index], f"{key}: {_quote(value)}", *lines[index + 1 :]]
            repaired.add(index)
            problems.append(
                _warn_text(
                    source,
                    key,
                    index + 2,
                    f"the value of {key!r} is not valid YAML (an unquoted ': ' or similar)",
                )
            )


def parse_front_matter(
    text: str, source: str | None = None, *, text_fields: Collection[str] = ()
) -> FrontMatter:
    """Split ``text`` into its front matter and body, read as Claude Code reads it.

    ``source`` names the file in problems; ``text_fields`` are the keys whose one-line
    values are kept as written text when YAML reads them as another type. Returns a
    :class:`FrontMatter` (``present=False`` and empty fields when the file has none).
    Raises :class:`ConfigError` (with ``source`` and ``line``) for a block that is too
    large, never closed, uses anchors or aliases, repeats a key or is not a mapping, and
    :class:`FrontMatterSyntaxError` for YAML that stays invalid.
    """
    lines, body = _split(text, source)
    if lines is None:
        return FrontMatter({}, body, present=False)
    try:
        data, node, problems = _load(lines, source)
    except FrontMatterSyntaxError as exc:
        exc.body = body
        raise
    if data is None:
        return FrontMatter({}, body, problems=tuple(problems))
    if not isinstance(data, Mapping) or not isinstance(node, yaml.MappingNode):
        raise ConfigError(
            "front matter must be a mapping of fields (key: value lines)", source, line=2
        )
    fields = dict(data)
    where: dict[str, int] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key, line = key_node.value, key_node.start_mark.line + 2
        if key in where:
            raise ConfigError(
                f"field {key!r} is written twice (first on line {where[key]})", source, key, line
            )
        where[key] = line
        one_line = value_node.start_mark.line == value_node.end_mark.line
        if (
            key in text_fields
            and one_line
            and not isinstance(fields.get(key), str)
            and fields.get(key) is not None
        ):
            raw = lines[key_node.start_mark.line]
            written = raw.split(":", 1)[1].strip() if ":" in raw else str(fields[key])
            fields[key] = written
            problems.append(
                _warn_text(
                    source,
                    key,
                    line,
                    f"{key!r} is text, but YAML reads {written!r} as a {type(data[key]).__name__}",
                )
            )
    return FrontMatter(fields, body, where, tuple(problems))


# --- the front matter as ``claude plugin validate`` reads it (Claude Code 2.1.332) ------------
#
# Measured, not documented: the block must open on the first line (after a BOM) and close on a
# ``---`` line (``...`` does not close it, an unclosed block is "no front matter"). It is parsed
# as YAML 1.2 (``yes``/``no`` and dates stay text); when that fails, every top-level
# ``key: value`` line (a key of letters, ``_`` and ``-`` only) whose value holds one of
# ``{}[]*&#!|>%@``, a backquote or ``": "`` is double-quoted (even a value quoted already) and
# the block is parsed once more. Duplicate keys keep the last value, anchors are plain YAML.
# What still fails is a front-matter error.

_VALIDATOR_KEY_LINE = re.compile(r"^([A-Za-z_-]+):[ \t]+(.+?)[ \t]*$")
_SPECIAL = re.compile(r"[{}\[\]*&#!|>%@`]|: ")


class _Yaml12Loader(yaml.SafeLoader):  # type: ignore[misc]
    """SafeLoader with YAML 1.2 core scalars: only true/false are booleans, no timestamps."""


_Yaml12Loader.yaml_implicit_resolvers = {
    first: [
        (tag, rx)
        for tag, rx in resolvers
        if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


@dataclass(frozen=True)
class ValidatorFrontMatter:
    """A Markdown file's front matter as Claude Code's validator reads it.

    ``found`` is False when there is no block; ``error`` holds the parser's message when the
    block is not YAML even after the quoting repair; otherwise ``value`` is what it holds
    (``None`` for an empty block, possibly not a mapping).
    """

    found: bool
    value: Any = None
    error: str | None = None


def _quote_special(block: str) -> str:
    out = []
    for line in block.split("\n"):
        found = _VALIDATOR_KEY_LINE.match(line.rstrip("\r"))
        value = found.group(2) if found else ""
        if found and _SPECIAL.search(value):
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            line = f'{found.group(1)}: "{escaped}"'
        out.append(line)
    return "\n".join(out)


def read_as_validator(text: str) -> ValidatorFrontMatter:
    """Split and parse ``text``'s front matter the way ``claude plugin validate`` does.

    Returns a :class:`ValidatorFrontMatter`; never raises.
    """
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != "---":
        return ValidatorFrontMatter(False)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        return ValidatorFrontMatter(False)
    block = "\n".join(lines[1:end])
    for attempt in (block, _quote_special(block)):
        try:
            return ValidatorFrontMatter(True, yaml.load(attempt, Loader=_Yaml12Loader))
        except yaml.YAMLError as exc:
            error = str(getattr(exc, "problem", None) or exc).splitlines()[0]
        except RecursionError:
            error = "nested too deeply"
    return ValidatorFrontMatter(True, error=error)
