"""Marketplaces: `.claude-plugin/marketplace.json`, the catalogue of plugins and sources.

:func:`load_marketplace` checks the file with ``jsonschema`` against reference §4.3:
a kebab-case, non-reserved ``name``, an ``owner`` with a ``name``, and ``plugins`` whose
entries each have a ``name`` and a ``source`` (a ``./`` path inside the marketplace, or
an object of one of the source forms with its required fields). Duplicate plugin names
and relative sources that escape the marketplace root are errors too. Nothing raises:
every finding is a :class:`~mcpmini.config.mcp_json.Problem` naming the file and JSON path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import Problem, Severity
from .mcp_json import line_of_key, path_inside, read_json, schema_problems

__all__ = [
    "MARKETPLACE_SCHEMA",
    "RESERVED_NAMES",
    "SOURCE_FORMS",
    "Marketplace",
    "load_marketplace",
]

_KEBAB = r"^[a-z0-9]+(-[a-z0-9]+)*$"
RESERVED_NAMES = frozenset({"claude-plugins-official"})
SOURCE_FORMS: dict[str, list[str]] = {
    "github": ["repo"],
    "url": ["url"],
    "git-subdir": ["url", "path"],
    "npm": ["package"],
    "archive": ["url"],
    "command": ["command"],
}
MARKETPLACE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "owner", "plugins"],
    "properties": {
        "name": {"type": "string", "pattern": _KEBAB},
        "owner": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "email": {"type": "string"},
                "url": {"type": "string"},
            },
        },
        "description": {"type": "string"},
        "version": {"type": "string"},
        "plugins": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "source"],
                "properties": {
                    "name": {"type": "string", "pattern": _KEBAB},
                    "strict": {"type": "boolean"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "category": {"type": "string"},
                    "source": {
                        "anyOf": [
                            {"type": "string", "pattern": r"^\./"},
                            *(
                                {
                                    "type": "object",
                                    "required": ["source", *req],
                                    "properties": {"source": {"const": form}},
                                }
                                for form, req in SOURCE_FORMS.items()
                            ),
                        ]
                    },
                },
            },
        },
    },
}


def _explain(err: Any) -> str | None:
    if err.validator == "anyOf" and list(err.absolute_path)[-1:] == ["source"]:
        return (
            f"{err.instance!r} is not a source: use './path' inside the marketplace or an "
            f"object whose 'source' is one of {sorted(SOURCE_FORMS)} with its required "
            "fields"
        )
    return None


@dataclass
class Marketplace:
    """A checked ``marketplace.json``: its name, owner, plugin entries and problems."""

    name: str
    owner: dict[str, Any]
    plugins: list[dict[str, Any]]
    problems: list[Problem]
    root: str

    @property
    def ok(self) -> bool:
        return not any(p.severity is Severity.ERROR for p in self.problems)


def load_marketplace(path: str | Path) -> Marketplace:
    """Read and check ``.claude-plugin/marketplace.json`` (or the folder holding it).

    Returns a :class:`Marketplace`; schema violations, duplicate plugin names and
    relative sources that escape the marketplace root are error problems.
    """
    path = Path(path)
    if path.is_dir():
        path = path / ".claude-plugin" / "marketplace.json"
    root = path.parent.parent if path.parent.name == ".claude-plugin" else path.parent
    problems: list[Problem] = []
    data, text = read_json(path, problems)
    if not isinstance(data, dict):
        if data is not None:
            problems.append(Problem(Severity.ERROR, "expected a JSON object", str(path), line=1))
        return Marketplace(path.stem, {}, [], problems, str(root))
    problems += schema_problems(data, MARKETPLACE_SCHEMA, str(path), text, _explain)
    if data.get("name") in RESERVED_NAMES:
        problems.append(
            Problem(
                Severity.WARNING,
                f"{data['name']!r} is a name reserved for "
                "Anthropic's own marketplaces; users cannot add it under this "
                "name. Choose another",
                str(path),
                "name",
                line_of_key(text, "name"),
            )
        )
    entries = (
        [e for e in data.get("plugins", []) if isinstance(e, dict)]
        if isinstance(data.get("plugins"), list)
        else []
    )
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        name, src = entry.get("name"), entry.get("source")
        if name in seen:
            problems.append(
                Problem(
                    Severity.ERROR,
                    f"duplicate plugin name {name!r}",
                    str(path),
                    f"plugins[{i}].name",
                )
            )
        seen.add(str(name))
        if isinstance(src, str) and src.startswith("./"):
            path_inside(root, src, str(path), f"plugins[{i}].source", None, problems)
    owner: dict[str, Any] = data["owner"] if isinstance(data.get("owner"), dict) else {}
    return Marketplace(str(data.get("name", "")), owner, entries, problems, str(root))
