"""The CCA-F question bank: its values, loading, and integrity.

Rules of this module: the bank is data in ``mcpmini/course/ccaf/data/``. Three metadata files —
``tasks.yaml`` (the five domains with their weights and the thirty task statements),
``scenarios.yaml`` (the six exam scenarios) and ``item_schema.yaml`` (the JSON Schema of one item
file) — and one item file per task statement, ``items/<task>.yaml``. Nothing else is read. Every
learner-facing text is a :class:`Text` in both languages; :meth:`Text.lang` picks one.

One validator, built once from ``item_schema.yaml``, checks every item file; a file or an item
that does not load is a :class:`~mcpmini.errors.Problem` naming the file, the item and the path
inside it (:func:`~mcpmini.errors.json_path`), never an exception, and the other items still
load. Where a fact can be computed, an item has no written key: it names a fact of
:data:`~.facts.KEY_FACTS` under ``compute`` and each option carries the ``value`` it claims; the
options whose value the runtime returns are the key.

:func:`bank_problems` is the integrity check of a loaded bank (per item: key, ``pick``, option
counts and lengths, rebuttals, duplicates; for the bank: the share of single-answer items whose
key is the longest option); :func:`figures` counts what the issue's targets are about.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ...errors import ConfigError, Problem, Severity, json_path
from ..language import Lang, Text
from .facts import KEY_FACTS

__all__ = [
    "BANK_DIR",
    "KEY_FACTS",
    "LONGEST_KEY_LIMIT",
    "SHORT_OPTION",
    "Bank",
    "BankFigures",
    "Domain",
    "Kind",
    "Lang",
    "Option",
    "QuizItem",
    "Scenario",
    "TaskStatement",
    "Text",
    "bank_problems",
    "figures",
    "key_is_longest",
    "load_bank",
]

BANK_DIR = Path(__file__).with_name("data")
#: The files of the bank that are not item files.
META_FILES = ("tasks.yaml", "scenarios.yaml", "item_schema.yaml")
#: An option is "much shorter than its siblings" below this share of the longest one.
SHORT_OPTION = 0.5
#: The largest share of single-answer items whose key may be the longest option (per language).
LONGEST_KEY_LIMIT = 0.30
_NUMBER_WORDS = {2: "two", 3: "three"}


class Kind(StrEnum):
    """What an item asks: a decision in a situation, or the recall of a fact."""

    DECISION = "decision"
    RECALL = "recall"


@dataclass(frozen=True)
class Domain:
    """One exam domain: its number, English title, Japanese title and weight (percent)."""

    id: int
    title: str
    title_ja: str
    weight: int

    @property
    def text(self) -> Text:
        """The title as a :class:`Text`."""
        return Text(self.title_ja, self.title)


@dataclass(frozen=True)
class TaskStatement:
    """One task statement (``"2.3"``) of a domain, with the course chapters that teach it."""

    id: str
    domain: int
    title: str
    title_ja: str
    chapters: tuple[str, ...] = ()

    @property
    def text(self) -> Text:
        """The title as a :class:`Text`."""
        return Text(self.title_ja, self.title)


@dataclass(frozen=True)
class Scenario:
    """One of the exam's six scenarios: its id, title, and the text shown before its items."""

    id: str
    title: Text
    text: Text


@dataclass(frozen=True)
class Option:
    """One answer option. ``rebuttal`` says why it is wrong (``None`` on a correct option);
    ``value`` is the claim a computed key compares with the runtime's answer."""

    id: str
    text: Text
    rebuttal: Text | None = None
    value: str | None = None


@dataclass(frozen=True)
class QuizItem:
    """One item. ``correct`` is the key (computed when ``compute`` names a fact)."""

    id: str
    task: str
    scenario: str
    kind: Kind
    situation: Text
    stem: Text
    options: tuple[Option, ...]
    correct: frozenset[str]
    pick: int
    explanation: Text
    compute: str | None = None
    origin: str = ""
    source: str = ""
    #: where the item sits in its file, as :func:`~mcpmini.errors.json_path` writes it
    at: str = ""

    @property
    def domain(self) -> int:
        """The domain number, read from the task statement id (``"2.3"`` → 2)."""
        return int(self.task.split(".", 1)[0])

    def option(self, option_id: str) -> Option | None:
        """The option with ``option_id``, or ``None``."""
        return next((o for o in self.options if o.id == option_id), None)

    def public(self, lang: Lang | str = Lang.BOTH) -> dict[str, Any]:
        """The item as a learner sees it, in ``lang``: no id, no key, no rebuttal."""
        return {
            "task": self.task,
            "scenario": self.scenario,
            "situation": self.situation.lang(lang),
            "stem": self.stem.lang(lang),
            "pick": self.pick,
            "options": [{"id": o.id, "text": o.text.lang(lang)} for o in self.options],
        }

    def key(self, lang: Lang | str = Lang.BOTH) -> dict[str, Any]:
        """The instructor's view: the correct set, the explanation and every rebuttal."""
        return {
            "id": self.id,
            "task": self.task,
            "correct": sorted(self.correct),
            "computed": self.compute,
            "explanation": self.explanation.lang(lang),
            "rebuttals": {
                o.id: o.rebuttal.lang(lang)
                for o in self.options
                if o.id not in self.correct and o.rebuttal
            },
        }


@dataclass(frozen=True)
class Bank:
    """Every domain, task statement, scenario and item, plus the problems found loading it."""

    domains: tuple[Domain, ...]
    tasks: tuple[TaskStatement, ...]
    items: tuple[QuizItem, ...]
    problems: tuple[Problem, ...] = ()
    scenarios: tuple[Scenario, ...] = ()

    def item(self, item_id: str) -> QuizItem:
        """The item with ``item_id``; raises :class:`KeyError` when there is none."""
        for it in self.items:
            if it.id == item_id:
                return it
        raise KeyError(item_id)

    def task(self, task_id: str) -> TaskStatement | None:
        """The task statement ``task_id``, or ``None``."""
        return next((t for t in self.tasks if t.id == task_id), None)

    def scenario(self, scenario_id: str) -> Scenario | None:
        """The scenario ``scenario_id``, or ``None``."""
        return next((s for s in self.scenarios if s.id == scenario_id), None)

    def domain(self, domain_id: int) -> Domain | None:
        """The domain ``domain_id``, or ``None``."""
        return next((d for d in self.domains if d.id == domain_id), None)

    def by_task(self, task_id: str) -> list[QuizItem]:
        """The items of one task statement, in bank order."""
        return [it for it in self.items if it.task == task_id]


# --- loading ---------------------------------------------------------------------------


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
    for path in sorted((root / "items").glob("*.yaml")):
        items.extend(_load_file(path, schema, problems))
    bank = Bank(domains, tasks, tuple(items), (), scenarios)
    return Bank(domains, tasks, tuple(items), (*problems, *bank_problems(bank)), scenarios)


# --- integrity -------------------------------------------------------------------------


def _says_how_many(stem: Text, pick: int) -> bool:
    """Whether a multiple-response stem says how many to choose, in both languages."""
    en = stem.en.lower()
    word = _NUMBER_WORDS.get(pick, str(pick))
    return f"{pick} つ" in stem.ja and (f"choose {word}" in en or f"choose {pick}" in en)


def _option_problems(it: QuizItem) -> list[str]:
    """The options of one item: ids, count, lengths, rebuttals."""
    out = []
    ids = [o.id for o in it.options]
    if len(set(ids)) != len(ids):
        out.append("option ids repeat")
    want = 4 if it.pick == 1 else it.pick + 3
    if len(it.options) != want:
        out.append(f"a pick-{it.pick} item has {want} options, this one {len(it.options)}")
    for lang in (Lang.JA, Lang.EN):
        lengths = {o.id: len(o.text.lang(lang)) for o in it.options}
        top = max(lengths.values(), default=0)
        short = sorted(o for o, n in lengths.items() if n < SHORT_OPTION * top)
        if short:
            out.append(f"option {', '.join(short)} is under half the longest ({lang})")
    for o in it.options:
        if o.id not in it.correct and o.rebuttal is None:
            out.append(f"wrong option {o.id} has no rebuttal")
        if o.id in it.correct and o.rebuttal is not None:
            out.append(f"correct option {o.id} has a rebuttal")
    return out


def _item_problems(it: QuizItem) -> list[str]:
    """What is wrong inside one item: its key, ``pick``, options and rebuttals."""
    out = []
    if not it.correct or not it.correct <= {o.id for o in it.options}:
        out.append(
            f"key {sorted(it.correct)} does not name existing options"
            + (" (computed: the runtime's answer matches no option)" if it.compute else "")
        )
    if it.pick != len(it.correct):
        out.append(f"pick is {it.pick} but the key has {len(it.correct)} options")
    if it.pick > 1 and not _says_how_many(it.stem, it.pick):
        out.append(f"the stem does not say to choose {it.pick} (「{it.pick} つ選べ」, 'Choose …')")
    return out + _option_problems(it)


def key_is_longest(it: QuizItem, lang: Lang) -> bool:
    """Whether a key of ``it`` is longer than every wrong option (strictly: a tie for the
    longest gives a test-wise guesser nothing)."""
    lengths = {o.id: len(o.text.lang(lang)) for o in it.options}
    others = [n for o, n in lengths.items() if o not in it.correct]
    return any(lengths.get(k, -1) > max(others, default=-1) for k in it.correct)


def _key_is_shortest(it: QuizItem, lang: Lang) -> bool:
    lengths = {o.id: len(o.text.lang(lang)) for o in it.options}
    others = [n for o, n in lengths.items() if o not in it.correct]
    return any(lengths.get(k, 1 << 30) < min(others, default=0) for k in it.correct)


def _situation_stem(it: QuizItem) -> str:
    return " ".join(f"{it.situation.en} {it.stem.en} | {it.situation.ja} {it.stem.ja}".split())


def bank_problems(bank: Bank) -> list[Problem]:
    """Every integrity problem of ``bank``, as error :class:`Problem` values.

    Per item: unique ids; no two items share situation and stem; the key names existing
    options; ``pick`` equals the size of the key and a multiple-response stem says how many
    to choose (both languages); four options for a single answer (``pick`` + 3 otherwise);
    no option under :data:`SHORT_OPTION` of its longest sibling (per language); every wrong
    option has a rebuttal and no correct one has; the task statement is declared. For the
    bank: domain weights add up to 100, and in each language the key is the longest option
    in at most :data:`LONGEST_KEY_LIMIT` of the single-answer items.
    """
    out: list[Problem] = []

    def bad(item: QuizItem | None, message: str) -> None:
        where = (item.origin or None, item.at or None) if item else (None, None)
        text = f"item {item.id}: {message}" if item else message
        out.append(Problem(Severity.ERROR, text, *where))

    seen: dict[str, str] = {}
    texts: dict[str, str] = {}
    declared = {t.id for t in bank.tasks}
    for it in bank.items:
        if it.id in seen:
            bad(it, f"duplicate id (also in {seen[it.id]})")
        seen.setdefault(it.id, it.origin)
        both = _situation_stem(it)
        if both in texts:
            bad(it, f"same situation and stem as {texts[both]}")
        texts.setdefault(both, it.id)
        for message in _item_problems(it):
            bad(it, message)
        if it.task not in declared:
            bad(it, f"task statement {it.task} is not declared in tasks.yaml")
    if sum(d.weight for d in bank.domains) != 100:
        bad(None, "domain weights do not add up to 100")
    shares = figures(bank).longest_key
    for lang, share in shares.items():
        if share > LONGEST_KEY_LIMIT:
            bad(
                None,
                f"the key is the longest option in {share:.0%} of single-answer items ({lang}); "
                f"at most {LONGEST_KEY_LIMIT:.0%}",
            )
    return out


# --- figures ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BankFigures:
    """The counts the bank's targets are stated in (issue 18)."""

    items: int
    per_task: dict[str, int] = field(default_factory=dict)
    per_domain: dict[int, int] = field(default_factory=dict)
    per_scenario: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, int] = field(default_factory=dict)
    picks: dict[int, int] = field(default_factory=dict)
    #: per language, the share of single-answer items whose key is the longest option
    longest_key: dict[str, float] = field(default_factory=dict)
    #: per language, the share whose key is the shortest option (the other way to game it)
    shortest_key: dict[str, float] = field(default_factory=dict)

    @property
    def decision_share(self) -> float:
        """The share of items that ask for a decision (0 for an empty bank)."""
        return self.kinds.get(Kind.DECISION.value, 0) / self.items if self.items else 0.0

    def lines(self) -> list[str]:
        """A plain-text summary: totals, per domain, scenario and task statement."""
        out = [
            f"{self.items} items; decision {self.decision_share:.0%}; "
            + ", ".join(f"pick {p}: {n}" for p, n in sorted(self.picks.items())),
            "key is the longest option: "
            + ", ".join(f"{lang} {share:.0%}" for lang, share in self.longest_key.items())
            + "; the shortest: "
            + ", ".join(f"{lang} {share:.0%}" for lang, share in self.shortest_key.items()),
            "per domain:   " + ", ".join(f"D{d} {n}" for d, n in sorted(self.per_domain.items())),
            "per scenario: " + ", ".join(f"{s} {n}" for s, n in self.per_scenario.items()),
            "per task:     " + ", ".join(f"{t} {n}" for t, n in self.per_task.items()),
        ]
        return out


def figures(bank: Bank, items: Iterable[QuizItem] | None = None) -> BankFigures:
    """Count ``items`` (default: the whole bank) per task statement (every declared one,
    zeros included), domain, scenario, kind and ``pick``, and the longest-key share."""
    pool = list(bank.items if items is None else items)
    per_task = Counter(it.task for it in pool)
    singles = [it for it in pool if it.pick == 1 and len(it.correct) == 1]

    def share(test: Any, lang: Lang) -> float:
        return sum(test(it, lang) for it in singles) / len(singles) if singles else 0.0

    longest = {lang.value: share(key_is_longest, lang) for lang in (Lang.JA, Lang.EN)}
    shortest = {lang.value: share(_key_is_shortest, lang) for lang in (Lang.JA, Lang.EN)}
    scenario_ids = [s.id for s in bank.scenarios] or sorted({it.scenario for it in pool})
    per_scenario = Counter(it.scenario for it in pool)
    return BankFigures(
        len(pool),
        {t.id: per_task[t.id] for t in bank.tasks},
        {d.id: sum(it.domain == d.id for it in pool) for d in bank.domains},
        {s: per_scenario[s] for s in scenario_ids},
        dict(Counter(it.kind.value for it in pool)),
        dict(Counter(it.pick for it in pool)),
        longest,
        shortest,
    )
