"""Skills: SKILL.md files, where they are found, and what their listing costs.

A skill is a folder with a ``SKILL.md``: YAML front matter between ``---`` lines, then a
Markdown body (article Definition 5.1). :func:`parse_skill` is pure: text in, a frozen
:class:`Skill` out, or a :class:`~mcpmini.errors.ConfigError` naming the file and line.
:func:`load_skills` only finds and reads files (enterprise, personal, project, loose
paths, and skills already loaded from plugins), resolves equal names with
enterprise > personal > project (a skill beats a command of the same name) and collects
every problem as a value, so one broken skill never stops the others.

:func:`build_listing` models the always-present listing as Claude Code 2.1.332 shows it
(``description - when_to_use``, cut at 1,536 characters, held to a budget of 1 % of the context
window; the listing itself lives in :mod:`mcpmini.skills.listing`).
Invocation and re-attachment after compaction live in :mod:`mcpmini.skills.invocation`; their
names are re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..errors import ConfigError, Problem, Severity
from ..frontmatter import parse_front_matter, read_markdown
from .listing import listing_text

__all__ = [
    "KNOWN_FIELDS",
    "SKILL_PRECEDENCE",
    "Level",
    "Skill",
    "SkillSet",
    "load_skills",
    "parse_skill",
    "read_skill_dir",
    "read_skill_file",
    "scan_dir",
]

KNOWN_FIELDS = frozenset(
    {
        "name",
        "description",
        "when_to_use",
        "argument-hint",
        "arguments",
        "disable-model-invocation",
        "user-invocable",
        "allowed-tools",
        "disallowed-tools",
        "model",
        "effort",
        "context",
        "agent",
        "background",
        "hooks",
        "paths",
        "shell",
        "metadata",
        "license",
        "compatibility",
    }
)
_STR_FIELDS = (
    "name",
    "description",
    "when_to_use",
    "argument-hint",
    "model",
    "agent",
    "license",
    "compatibility",
)
_BOOL_FIELDS = ("disable-model-invocation", "user-invocable", "background")
_LIST_FIELDS = ("arguments", "allowed-tools", "disallowed-tools", "paths")
_CHOICES = {
    "context": {"fork"},
    "shell": {"bash", "powershell"},
    "effort": {"low", "medium", "high", "xhigh", "max"},
}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


class Level(StrEnum):
    """Where a skill was found; the first three override by name in this order."""

    ENTERPRISE = "enterprise"
    PERSONAL = "personal"
    PROJECT = "project"
    PLUGIN = "plugin"


# Highest precedence first; plugin skills are namespaced and never collide with these.
SKILL_PRECEDENCE: tuple[str, ...] = (
    Level.ENTERPRISE.value,
    Level.PERSONAL.value,
    Level.PROJECT.value,
)


@dataclass(frozen=True)
class Skill:
    """One parsed skill (or ``.claude/commands`` file, ``kind == "command"``)."""

    name: str
    description: str
    body: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None
    directory: str | None = None
    level: Level = Level.PROJECT
    plugin: str | None = None
    kind: str = "skill"
    warnings: tuple[Problem, ...] = ()
    variables: Mapping[str, str] = field(default_factory=dict)

    @property
    def when_to_use(self) -> str:
        return str(self.fields.get("when_to_use") or "")

    @property
    def model_invocable(self) -> bool:
        """False when ``disable-model-invocation`` keeps the skill out of the listing."""
        return not self.fields.get("disable-model-invocation", False)

    @property
    def arguments(self) -> tuple[str, ...]:
        """The named positional arguments (``arguments`` field)."""
        return tuple(self.fields.get("arguments") or ())

    @property
    def listing_text(self) -> str:
        """``description`` and ``when_to_use`` joined as the listing shows them (`` - ``),
        before the 1,536-character cut."""
        return listing_text(self.description, self.when_to_use)


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    return None


def _check_fields(
    raw: Mapping[str, Any], source: str | None, lines: Mapping[str, int]
) -> tuple[dict[str, Any], list[Problem]]:
    """Type-check the front matter; returns normalized fields and warnings."""
    fields: dict[str, Any] = {}
    warnings: list[Problem] = []
    for key, value in raw.items():
        line = lines.get(str(key))

        def bad(msg: str, _key: str = str(key), _line: int | None = line) -> ConfigError:
            return ConfigError(msg, source, _key, _line)

        if key not in KNOWN_FIELDS:
            warnings.append(
                Problem(
                    Severity.WARNING,
                    f"unknown front-matter field {key!r} is ignored",
                    source,
                    str(key),
                    line,
                )
            )
            continue
        if key in _STR_FIELDS and not isinstance(value, str):
            raise bad(f"{key!r} must be a string, got {type(value).__name__}")
        if key in _BOOL_FIELDS:
            value = _as_bool(value)
            if value is None:
                raise bad(f"{key!r} must be a boolean (true/false, yes/no, on/off, 1/0)")
        if key in _LIST_FIELDS:
            if isinstance(value, str):
                # split on spaces and commas, but not inside Tool(specifier) parentheses
                value = re.findall(r"[^\s,()]+(?:\([^)]*\))?", value)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise bad(f"{key!r} must be a string or a list of strings")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise bad(f"{key!r} must be one of {sorted(_CHOICES[key])}, got {value!r}")
        if key in ("hooks", "metadata") and not isinstance(value, Mapping):
            raise bad(f"{key!r} must be a mapping")
        fields[str(key)] = value
    return fields, warnings


def _first_line(body: str) -> str:
    """The description Claude Code lists for a skill without one: the body's first non-empty
    line, without heading marks (measured with 2.1.332)."""
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text
    return ""


def parse_skill(
    text: str,
    *,
    source: str | None = None,
    name: str | None = None,
    directory: str | None = None,
    level: Level = Level.PROJECT,
    plugin: str | None = None,
    kind: str = "skill",
) -> Skill:
    """Parse the text of one SKILL.md (or command file) into a :class:`Skill`.

    ``name`` is the command name from the folder (or file) name; for plugin skills the
    front-matter ``name`` replaces it and the result is namespaced ``plugin:name``.
    Commands ignore ``name`` and ``paths``. Unknown fields and a missing description
    become warnings on the skill. Raises :class:`ConfigError` (with ``source`` and
    ``line``) for malformed YAML, front matter that is not a mapping, or a known field
    of the wrong type.
    """
    front = parse_front_matter(text, source, text_fields=_STR_FIELDS)
    body, lines = front.body, front.lines
    fields, warnings = _check_fields(front.fields, source, lines)
    warnings = [*front.problems, *warnings]
    if kind == "command":
        for ignored in ("name", "paths"):
            if ignored in fields:
                warnings.append(
                    Problem(
                        Severity.WARNING,
                        f"commands ignore {ignored!r}",
                        source,
                        ignored,
                        lines.get(ignored),
                    )
                )
                fields.pop(ignored)
    display = fields.get("name")
    final = name or display or "unnamed"
    if plugin is not None:
        # Documented: the front-matter name replaces the folder name. Observed in Claude Code
        # 2.1.332 (`claude plugin validate` lists what a plugin provides): the folder (or
        # command file) names a plugin skill; only a root SKILL.md (``name=None``) takes its
        # front-matter name, else the plugin's.
        final = f"{plugin}:{name or display or plugin}"
    description = (fields.get("description") or "").strip()
    if not description:
        warnings.append(
            Problem(
                Severity.WARNING,
                "no description: the first line of the body "
                "is listed instead, which rarely says when to use the skill",
                source,
                "description",
                None,
            )
        )
        description = _first_line(body)
    return Skill(
        final, description, body, fields, source, directory, level, plugin, kind, tuple(warnings)
    )


@dataclass
class SkillSet:
    """The skills that won, the problems found, and which sources each name hid."""

    skills: dict[str, Skill] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    shadowed: dict[str, list[str]] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Skill:
        return self.skills[name]

    def __iter__(self) -> Any:
        return iter(self.skills.values())

    def __len__(self) -> int:
        return len(self.skills)

    @property
    def ok(self) -> bool:
        """True when no problem is an error."""
        return not any(p.severity is Severity.ERROR for p in self.problems)


def read_skill_file(path: Path, out: SkillSet, **kw: Any) -> Skill | None:
    """Parse one file into a skill; a problem goes to ``out.problems`` instead of raising.

    A ``hooks`` field is checked by :func:`mcpmini.hooks.load_settings` (one hook schema).
    """
    try:
        skill = parse_skill(read_markdown(path), source=str(path), **kw)
        if "hooks" in skill.fields:
            from ..hooks import load_settings

            try:
                load_settings(
                    [(f"skill:{skill.name}", {"hooks": dict(skill.fields["hooks"])})], strict=False
                )
            except ConfigError as exc:
                raise ConfigError(exc.message, str(path), exc.path) from None
    except ConfigError as exc:
        out.problems.append(Problem.from_error(exc))
        return None
    except (OSError, UnicodeDecodeError) as exc:
        out.problems.append(Problem(Severity.ERROR, f"cannot read: {exc}", str(path)))
        return None
    out.problems.extend(skill.warnings)
    return skill


def _escapes(path: Path, confine: Path | None, out: SkillSet) -> bool:
    """True (with an error problem) when ``path`` resolves outside ``confine``."""
    if confine is None:
        return False
    resolved = path.resolve()
    if resolved.is_relative_to(confine.resolve()):
        return False
    out.problems.append(
        Problem(
            Severity.ERROR,
            f"resolves to {resolved}, outside the plugin root {confine}; not loaded",
            str(path),
        )
    )
    return True


def scan_dir(
    root: Path,
    out: SkillSet,
    *,
    level: Level,
    plugin: str | None = None,
    commands: bool = True,
    confine: Path | None = None,
) -> list[Skill]:
    """Read ``root/skills/*/SKILL.md`` and ``root/commands/*.md`` (if ``commands``).

    With ``confine`` (a plugin root), a folder or file that resolves outside it (a symlink
    out of the plugin) is an error problem and is not read.
    """
    found: list[Skill] = []
    skills_dir = root / "skills"
    if skills_dir.is_dir() and not _escapes(skills_dir, confine, out):
        for d in sorted(p for p in skills_dir.iterdir() if p.is_dir()):
            if not _escapes(d, confine, out):
                found.extend(read_skill_dir(d, out, level=level, plugin=plugin))
    cmd_dir = root / "commands"
    if commands and cmd_dir.is_dir() and not _escapes(cmd_dir, confine, out):
        # plugin commands are found in subfolders too, named ``plugin:sub:name`` (observed in
        # Claude Code 2.1.332); other command folders stay flat
        for f in sorted(cmd_dir.rglob("*.md") if plugin else cmd_dir.glob("*.md")):
            if _escapes(f, confine, out):
                continue
            s = read_skill_file(
                f,
                out,
                name=":".join(f.relative_to(cmd_dir).with_suffix("").parts),
                directory=str(cmd_dir.resolve()),
                level=level,
                plugin=plugin,
                kind="command",
            )
            found.extend([s] if s else [])
    return found


def read_skill_dir(
    d: Path, out: SkillSet, *, level: Level, plugin: str | None = None
) -> list[Skill]:
    """Read the skill in folder ``d``; a folder without SKILL.md is an error problem."""
    md = d / "SKILL.md"
    if not md.is_file():
        hint = " (found skill.md: the name must be SKILL.md)" if (d / "skill.md").is_file() else ""
        out.problems.append(Problem(Severity.ERROR, f"missing SKILL.md{hint}", str(d)))
        return []
    s = read_skill_file(
        md, out, name=d.name, directory=str(d.resolve()), level=level, plugin=plugin
    )
    return [s] if s else []


def _scan_loose(path: Path, out: SkillSet) -> list[Skill]:
    if path.is_file():
        kind = "skill" if path.name == "SKILL.md" else "command"
        name = path.parent.name if kind == "skill" else path.stem
        s = read_skill_file(path, out, name=name, directory=str(path.parent.resolve()), kind=kind)
        return [s] if s else []
    if not path.is_dir():
        out.problems.append(Problem(Severity.ERROR, "no such file or directory", str(path)))
        return []
    if (path / "SKILL.md").is_file():
        return read_skill_dir(path, out, level=Level.PROJECT)
    if (path / "skills").is_dir() or (path / "commands").is_dir():
        return scan_dir(path, out, level=Level.PROJECT)
    if (path / ".claude").is_dir():
        return scan_dir(path / ".claude", out, level=Level.PROJECT)
    subdirs = sorted(p for p in path.iterdir() if p.is_dir())
    return [s for d in subdirs for s in read_skill_dir(d, out, level=Level.PROJECT)]


def load_skills(
    paths: Iterable[str | Path] = (),
    *,
    enterprise: str | Path | None = None,
    personal: str | Path | None = None,
    project: Iterable[str | Path] = (),
    plugins: Iterable[Any] = (),
) -> SkillSet:
    """Find, read and resolve skills; never raises for a bad file.

    ``enterprise``, ``personal`` and each of ``project`` are ``.claude`` folders (with
    ``skills/`` and ``commands/``). Each of ``paths`` may be a ``.claude`` folder, a
    project folder, a ``skills`` folder, one skill folder, a SKILL.md or a command file;
    they count as project level. ``plugins`` are loaded plugins (anything with
    ``.skills`` and ``.problems``, e.g. :class:`mcpmini.config.Plugin`); their skills are
    namespaced and never collide. Returns a :class:`SkillSet`; two skills with one name
    at the same level are an error problem naming both files (the first is kept).
    """
    out = SkillSet()
    found: list[Skill] = []
    for lvl, root in ((Level.ENTERPRISE, enterprise), (Level.PERSONAL, personal)):
        if root is not None:
            found.extend(scan_dir(Path(root), out, level=lvl))
    for root in project:
        found.extend(scan_dir(Path(root), out, level=Level.PROJECT))
    for p in paths:
        found.extend(_scan_loose(Path(p), out))
    for plugin in plugins:
        found.extend(plugin.skills)
        out.problems.extend(plugin.problems)
    order = [*SKILL_PRECEDENCE, Level.PLUGIN.value]
    # skills before commands, then by level; equal (kind, level) keeps discovery order
    ranked = sorted(
        enumerate(found),
        key=lambda it: (it[1].kind != "skill", order.index(it[1].level.value), it[0]),
    )
    for _, s in ranked:
        won = out.skills.get(s.name)
        if won is None:
            out.skills[s.name] = s
        elif (won.level, won.kind) == (s.level, s.kind):
            out.problems.append(
                Problem(
                    Severity.ERROR,
                    f"duplicate {s.kind} name {s.name!r}; {won.source} is used instead",
                    s.source,
                    "name",
                )
            )
        else:
            out.shadowed.setdefault(s.name, []).append(f"{s.level.value} {s.kind} {s.source}")
            if won.kind != s.kind:
                out.problems.append(
                    Problem(
                        Severity.WARNING,
                        f"command {s.name!r} is shadowed by the "
                        f"{won.level.value} skill of the same name; the skill wins",
                        s.source,
                        "name",
                    )
                )
    return out
