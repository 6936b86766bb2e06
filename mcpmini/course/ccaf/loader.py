"""Loading the CCA-F bank from its folder.

Rules of this module: the bank is data in ``mcpmini/course/ccaf/data/``. Three metadata files —
``tasks.yaml`` (the five domains with their weights and the thirty task statements),
``scenarios.yaml`` (the six exam scenarios) and ``item_schema.yaml`` (the JSON Schema of one item
file) — and one item file per task statement, ``items/<task>.yaml``. Nothing else is read.

One validator, built once from ``item_schema.yaml``, checks every item file; a file or an item
that does not load is a :class:`~mcpmini.errors.Problem` naming the file, the item and the path
inside it (:func:`~mcpmini.errors.json_path`), never an exception, and the other items still
load. Where a fact can be computed, an item has no written key: it names a fact of
:data:`~.facts.KEY_FACTS` under ``compute`` and each option carries the ``value`` it claims; the
options whose value the runtime returns are the key. The bank's ``version`` is a digest of
the files it was read from, so an answers file can say which bank it was written against.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ...errors import ConfigError, Problem, Severity, json_path
from ..language import Text
from .bank import BANK_DIR, Bank, Domain, Kind, Option, QuizItem, Scenario, TaskStatement
from .facts import KEY_FACTS
from .integrity import bank_problems

__all__ = ["META_FILES", "load_bank"]

#: The files of the bank that are not item files.
META_FILES = ("tasks.yaml", "scenarios.yaml", "item_schema.yaml")


@cache
def _computed(fact: str) -> frozenset[str]:
    return KEY_FACTS[fact]()


@cache
def _validator(schema_path: Path) -> jsonschema.Draft202012Validator:
    """The one validator of item files, built once per schema file."""
    schema = yaml.safe_load(schema_path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


#: libyaml's safe loader where PyYAML was built with it (ten times faster on the bank).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_yaml(path: Path, problems: list[Problem]) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problems.append(
            Problem(
                Severity.ERROR,
                f"invalid YAML: {getattr(exc, 'problem', exc)}",
                str(path),
                line=mark.line + 1 if mark else None,
            )
        )
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(Severity.ERROR, f"cannot read: {exc}", str(path)))
    return None


def _tidy(text: str) -> str:
    """Strip, and drop the space YAML folding leaves after Japanese punctuation."""
    return re.sub(r"(?<=[。、」）])\s+", "", text.strip())


def _text(raw: Mapping[str, str]) -> Text:
    return Text(_tidy(raw["ja"]), _tidy(raw["en"]))


def _item(raw: Mapping[str, Any], task: str, origin: str, where: str) -> QuizItem:
    """One schema-valid item; its key computed when it names a fact (the caller checked the
    fact exists)."""
    options = tuple(
        Option(
            o["id"],
            _text(o["text"]),
            _text(o["rebuttal"]) if "rebuttal" in o else None,
            o.get("value"),
        )
        for o in raw["options"]
    )
    compute = raw.get("compute")
    if compute is not None:
        truth = _computed(compute)
        correct = frozenset(o.id for o in options if o.value in truth)
    else:
        correct = frozenset(raw["answer"])
    return QuizItem(
        raw["id"],
        task,
        raw["scenario"],
        Kind(raw["kind"]),
        _text(raw["situation"]),
        _text(raw["stem"]),
        options,
        correct,
        int(raw["pick"]),
        _text(raw["explanation"]),
        compute,
        origin,
        raw.get("source", ""),
        where,
    )


def _item_name(data: Any, index: int) -> str:
    """``items[3] (d22-…)`` for a problem message: the index and the id when there is one."""
    raw = data.get("items") if isinstance(data, Mapping) else None
    if isinstance(raw, list) and index < len(raw) and isinstance(raw[index], Mapping):
        return str(raw[index].get("id", ""))
    return ""


def _load_file(path: Path, schema: Path, problems: list[Problem]) -> list[QuizItem]:
    """The items of one item file; every error a :class:`Problem` naming file and item."""
    before = len(problems)
    data = _read_yaml(path, problems)
    if data is None:
        if len(problems) == before:
            problems.append(Problem(Severity.ERROR, "the file is empty", str(path)))
        return []
    errors = sorted(_validator(schema).iter_errors(data), key=lambda e: list(map(str, e.path)))
    bad_items: set[int] = set()
    whole_file = False
    for e in errors:
        parts = list(e.absolute_path)
        if len(parts) >= 2 and parts[0] == "items" and isinstance(parts[1], int):
            bad_items.add(parts[1])
            name = _item_name(data, parts[1])
            message = f"item {name or parts[1]} skipped: {e.message}"
        else:
            whole_file = True
            message = f"file skipped: {e.message}"
        problems.append(Problem(Severity.ERROR, message, str(path), json_path(parts)))
    if whole_file:
        return []
    task = str(data["task"])
    if task != path.stem:
        problems.append(
            Problem(
                Severity.ERROR,
                f"task {task!r} is not the file's name ({path.stem!r})",
                str(path),
                "task",
            )
        )
    items = []
    for n, raw in enumerate(data["items"]):
        if n in bad_items:
            continue
        where = json_path(["items", n])
        compute = raw.get("compute")
        if compute is not None and compute not in KEY_FACTS:
            problems.append(
                Problem(
                    Severity.ERROR,
                    f"item {raw['id']} skipped: unknown fact {compute!r}",
                    str(path),
                    json_path(["items", n, "compute"]),
                )
            )
            continue
        items.append(_item(raw, task, str(path), where))
    return items


def _meta(root: Path) -> tuple[tuple[Domain, ...], tuple[TaskStatement, ...], tuple[Scenario, ...]]:
    """Domains, task statements and scenarios; raises :class:`ConfigError` when unreadable."""
    problems: list[Problem] = []
    tasks_doc = _read_yaml(root / "tasks.yaml", problems)
    scen_doc = _read_yaml(root / "scenarios.yaml", problems)
    if problems or not isinstance(tasks_doc, Mapping) or not isinstance(scen_doc, Mapping):
        where = problems[0].source if problems else str(root / "tasks.yaml")
        raise ConfigError(problems[0].message if problems else "expected a mapping", where)
    try:
        domains = tuple(
            Domain(int(d["id"]), d["title"], d["title_ja"], int(d["weight"]))
            for d in tasks_doc["domains"]
        )
        tasks = tuple(
            TaskStatement(
                str(t["id"]),
                int(str(t["id"]).split(".")[0]),
                t["title"],
                t["title_ja"],
                tuple(t.get("chapters", ())),
            )
            for t in tasks_doc["tasks"]
        )
        scenarios = tuple(
            Scenario(str(s["id"]), _text(s["title"]), _text(s["text"]))
            for s in scen_doc["scenarios"]
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"metadata entry is incomplete: {exc}", str(root)) from None
    return domains, tasks, scenarios


def load_bank(folder: str | Path | None = None) -> Bank:
    """Load the bank from ``folder`` (default :data:`BANK_DIR`).

    Reads ``tasks.yaml``, ``scenarios.yaml``, ``item_schema.yaml`` and every
    ``items/*.yaml``; computed keys are computed here. Returns a :class:`Bank` whose
    ``problems`` hold every file or item that could not be read (those items are left out)
    followed by :func:`bank_problems`. Raises :class:`ConfigError` when a metadata file is
    missing or unreadable, since nothing can be checked without it.
    """
    root = Path(folder) if folder is not None else BANK_DIR
    domains, tasks, scenarios = _meta(root)
    schema = root / "item_schema.yaml"
    try:
        _validator(schema)
    except (OSError, yaml.YAMLError, jsonschema.SchemaError) as exc:
        raise ConfigError(f"cannot use the item schema: {exc}", str(schema)) from None
    problems: list[Problem] = []
    items: list[QuizItem] = []
    paths = sorted((root / "items").glob("*.yaml"))
    for path in paths:
        items.extend(_load_file(path, schema, problems))
    version = _version(root, paths)
    bank = Bank(domains, tasks, tuple(items), (), scenarios, version)
    found = (*problems, *bank_problems(bank))
    return Bank(domains, tasks, tuple(items), found, scenarios, version)


def _version(root: Path, paths: list[Path]) -> str:
    """Twelve hex digits of the SHA-256 over the bank's files, names and bytes, in order."""
    digest = hashlib.sha256()
    for path in [*(root / name for name in META_FILES), *paths]:
        digest.update(path.name.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"unreadable")
        digest.update(b"\0")
    return digest.hexdigest()[:12]
