"""The CCA-F question bank: loading, integrity checks, drawing an exam.

The bank is data: ``mcpmini/course/ccaf/data/tasks.yaml`` lists the exam's five domains
(with their weights) and the task statements the course covers; every other ``*.yaml`` in
that folder holds items. An item is a short production scenario, a stem, options with a
rebuttal for every wrong one, the correct set and ``pick`` (how many options to choose).

Where a fact can be computed, an item has no written key: it names a fact of
:data:`KEY_FACTS` under ``compute`` and each option carries the ``value`` it claims; the
loader runs the runtime (the loop with ``tool_choice``, MCP scope resolution, the retry
policy of :mod:`mcpmini.course.ccaf.retries`, the Edit tool…) and the options whose value the
runtime returns are the key, so it can never drift from the code the track teaches.

:func:`draw` picks ``count`` items stratified by domain weight (largest remainder, then
round-robin over task statements) with a seed; :mod:`.scoring` grades the answers and
:mod:`.session` holds an exam being taken.
"""

from __future__ import annotations

import random
import re
import tempfile
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ...errors import ConfigError, Problem, Severity, json_path

__all__ = [
    "BANK_DIR",
    "KEY_FACTS",
    "Bank",
    "Domain",
    "Option",
    "QuizItem",
    "TaskStatement",
    "bank_problems",
    "draw",
    "load_bank",
]

BANK_DIR = Path(__file__).with_name("data")


# --- the bank as values ----------------------------------------------------------------


@dataclass(frozen=True)
class Domain:
    """One exam domain: its number, English title, Japanese title and weight (percent)."""

    id: int
    title: str
    title_ja: str
    weight: int


@dataclass(frozen=True)
class TaskStatement:
    """One task statement (``"2.3"``) of a domain, with the course chapters that teach it."""

    id: str
    domain: int
    title: str
    title_ja: str
    chapters: tuple[str, ...] = ()


@dataclass(frozen=True)
class Option:
    """One answer option. ``rebuttal`` says why it is wrong (``None`` on a correct option);
    ``value`` is the claim a computed key compares with the runtime's answer."""

    id: str
    text: str
    rebuttal: str | None = None
    value: str | None = None


@dataclass(frozen=True)
class QuizItem:
    """One scenario item. ``correct`` is the key (computed when ``compute`` names a fact)."""

    id: str
    task: str
    scenario: str
    stem: str
    options: tuple[Option, ...]
    correct: frozenset[str]
    pick: int
    explanation: str
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

    def public(self) -> dict[str, Any]:
        """The item as a learner sees it: no key, no rebuttals, no explanation."""
        return {
            "id": self.id,
            "task": self.task,
            "scenario": self.scenario,
            "stem": self.stem,
            "pick": self.pick,
            "options": [{"id": o.id, "text": o.text} for o in self.options],
        }

    def key(self) -> dict[str, Any]:
        """The instructor's view: the correct set, the explanation and every rebuttal."""
        return {
            "id": self.id,
            "task": self.task,
            "correct": sorted(self.correct),
            "computed": self.compute,
            "explanation": self.explanation,
            "rebuttals": {o.id: o.rebuttal for o in self.options if o.id not in self.correct},
        }


@dataclass(frozen=True)
class Bank:
    """Every domain, task statement and item, plus the problems found while loading."""

    domains: tuple[Domain, ...]
    tasks: tuple[TaskStatement, ...]
    items: tuple[QuizItem, ...]
    problems: tuple[Problem, ...] = ()

    def item(self, item_id: str) -> QuizItem:
        """The item with ``item_id``; raises :class:`KeyError` when there is none."""
        for it in self.items:
            if it.id == item_id:
                return it
        raise KeyError(item_id)

    def task(self, task_id: str) -> TaskStatement | None:
        """The task statement ``task_id``, or ``None``."""
        return next((t for t in self.tasks if t.id == task_id), None)

    def by_task(self, task_id: str) -> list[QuizItem]:
        """The items of one task statement, in bank order."""
        return [it for it in self.items if it.task == task_id]


# --- computed keys ---------------------------------------------------------------------


def _fact_tool_choice(mode: str) -> frozenset[str]:
    """Run the loop with ``tool_choice=mode`` on small talk and on a matching request.

    Returns ``{"may_answer_text"}`` when some run ended in text, ``{"always_named_tool"}``
    when every run called ``mode`` itself, otherwise ``{"always_some_tool"}``.
    """
    from ...agent import AgentOptions, RouterModel, Tool, run

    def tool(name: str, description: str) -> Tool:
        def fn(_input: dict[str, Any]) -> str:
            return f"{name} ran"

        return Tool(name, description, {"type": "object"}, fn)

    tools = [
        tool("classify_ticket", "Classify a support email into billing, shipping or other."),
        tool("extract_metadata", "Extract sender, date and subject from a document."),
    ]
    calls: list[list[str]] = []
    for prompt in ("hello, nice weather today", "please classify this billing email"):
        result = run(
            prompt,
            RouterModel(),
            AgentOptions(
                tools=tools,
                tool_choice=mode,
                max_turns=1,
                allowed_tools=["classify_ticket", "extract_metadata"],
            ),
        )
        calls.append(
            [
                b["name"]
                for m in result.messages
                if m["role"] == "assistant"
                for b in m["content"]
                if b["type"] == "tool_use"
            ]
        )
    if any(not c for c in calls):
        return frozenset(["may_answer_text"])
    if all(c == [mode] for c in calls):
        return frozenset(["always_named_tool"])
    return frozenset(["always_some_tool"])


def _fact_mcp_scope_winner() -> frozenset[str]:
    """The scope whose definition wins when project and user define the same server."""
    from ...config import load_mcp_json, resolve_mcp_servers

    entry = {"mcpServers": {"tracker": {"command": "tracker-mcp"}}}
    other = {"mcpServers": {"tracker": {"command": "tracker-mcp", "args": ["--beta"]}}}
    won = resolve_mcp_servers(
        [
            load_mcp_json(other, environ={}, source="user"),
            load_mcp_json(entry, environ={}, source="project"),
        ]
    )
    return frozenset([won["tracker"].source])


def _fact_mcp_scope_local() -> frozenset[str]:
    """The winning scope when local, project and user all define one server name."""
    from ...config import load_mcp_json, resolve_mcp_servers

    sources = [
        load_mcp_json({"mcpServers": {"db": {"command": f"db-{s}"}}}, environ={}, source=s)
        for s in ("user", "project", "local")
    ]
    return frozenset([resolve_mcp_servers(sources)["db"].source])


def _fact_var_default() -> frozenset[str]:
    """What ``${API_BASE:-https://api.example.test}`` becomes when API_BASE is unset."""
    from ...config import expand_vars

    value, missing = expand_vars("${API_BASE:-https://api.example.test}", {})
    return frozenset(
        ["default" if value == "https://api.example.test" and not missing else "literal"]
    )


def _fact_retried_kinds() -> frozenset[str]:
    """The error categories the track's retry policy retries (see :mod:`.ccaf`)."""
    from .retries import ErrorCategory, policy_for

    return frozenset(c.value for c in ErrorCategory if policy_for(c).retry)


def _fact_edit_duplicate_anchor() -> frozenset[str]:
    """Run Edit on a file where the anchor occurs twice: does it fail, and what works?"""
    from ...agent import builtin_tools

    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "app.yaml").write_text("api:\n  timeout: 30\ndb:\n  timeout: 30\n")
        tools = {t.name: t for t in builtin_tools(tmp)}
        first = tools["Edit"].run(
            {"file_path": "app.yaml", "old_string": "timeout: 30", "new_string": "timeout: 60"}
        )
        again = tools["Edit"].run(
            {"file_path": "app.yaml", "old_string": "timeout: 30", "new_string": "timeout: 60"}
        )
        text = tools["Read"].run({"file_path": "app.yaml"})
        fixed = (
            Path(tmp, "app.yaml").read_text().replace("api:\n  timeout: 30", "api:\n  timeout: 60")
        )
        written = tools["Write"].run({"file_path": "app.yaml", "content": fixed})
        ok = Path(tmp, "app.yaml").read_text() == "api:\n  timeout: 60\ndb:\n  timeout: 30\n"
    facts = set()
    if first.is_error and again.is_error:
        facts.add("retry_fails")
    if not text.is_error and not written.is_error and ok:
        facts.add("read_write")
    return frozenset(["read_write"] if facts == {"retry_fails", "read_write"} else facts)


def _fact_max_turns_calls() -> frozenset[str]:
    """How many model calls a loop makes with ``max_turns=3`` and a model that never stops."""
    from ...agent import AgentOptions, AlwaysToolModel, Tool, run

    echo = Tool("echo", "Echo the input.", {"type": "object"}, lambda _i: "ok")
    result = run("go", AlwaysToolModel("echo"), AgentOptions(tools=[echo], max_turns=3))
    return frozenset([str(result.model_calls)])


def _fact_hooks_combination() -> frozenset[str]:
    """How hooks from several settings files combine (override, merge or additive)."""
    from ...config import COMBINATION, Mechanism

    return frozenset([COMBINATION[Mechanism.HOOKS].value])


def _fact_claude_md_combination() -> frozenset[str]:
    """How CLAUDE.md files of several levels combine."""
    from ...config import COMBINATION, Mechanism

    return frozenset([COMBINATION[Mechanism.CLAUDE_MD].value])


KEY_FACTS: dict[str, Callable[[], frozenset[str]]] = {
    "tool_choice_auto": lambda: _fact_tool_choice("auto"),
    "tool_choice_any": lambda: _fact_tool_choice("any"),
    "tool_choice_named": lambda: _fact_tool_choice("extract_metadata"),
    "mcp_scope_winner": _fact_mcp_scope_winner,
    "mcp_scope_local": _fact_mcp_scope_local,
    "var_default": _fact_var_default,
    "retried_kinds": _fact_retried_kinds,
    "edit_duplicate_anchor": _fact_edit_duplicate_anchor,
    "max_turns_calls": _fact_max_turns_calls,
    "hooks_combination": _fact_hooks_combination,
    "claude_md_combination": _fact_claude_md_combination,
}


@cache
def _computed(fact: str) -> frozenset[str]:
    return KEY_FACTS[fact]()


# --- loading ---------------------------------------------------------------------------

_OPTION = {
    "type": "object",
    "required": ["id", "text"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": "^[A-F]$"},
        "text": {"type": "string", "minLength": 1},
        "rebuttal": {"type": "string", "minLength": 1},
        "value": {"type": "string"},
    },
}
ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id", "task", "scenario", "stem", "options", "pick", "explanation"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$"},
        "task": {"type": "string", "pattern": r"^[1-5]\.[0-9]+$"},
        "scenario": {"type": "string", "minLength": 1},
        "stem": {"type": "string", "minLength": 1},
        "options": {"type": "array", "minItems": 3, "maxItems": 6, "items": _OPTION},
        "answer": {"type": "array", "minItems": 1, "items": {"type": "string"}},
        "compute": {"type": "string"},
        "pick": {"type": "integer", "minimum": 1},
        "explanation": {"type": "string", "minLength": 1},
        "source": {"type": "string"},
    },
    "oneOf": [{"required": ["answer"]}, {"required": ["compute"]}],
}
#: One validator for every item, built once (as :mod:`mcpmini.mcp.schema` does per tool).
_ITEM_VALIDATOR = jsonschema.Draft202012Validator(ITEM_SCHEMA)


def _read_yaml(path: Path, problems: list[Problem]) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
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
    except OSError as exc:
        problems.append(Problem(Severity.ERROR, f"cannot read: {exc}", str(path)))
    return None


def _tidy(text: Any) -> Any:
    """Strip, and drop the space YAML folding leaves after Japanese punctuation."""
    if not isinstance(text, str):
        return text
    return re.sub(r"(?<=[。、」）])\s+", "", text.strip())


def _item(
    raw: Mapping[str, Any], origin: str, where: tuple[str | int, ...], problems: list[Problem]
) -> QuizItem | None:
    errors = sorted(_ITEM_VALIDATOR.iter_errors(raw), key=lambda e: list(map(str, e.path)))
    if errors:
        for e in errors:
            path = json_path([*where, *e.absolute_path])
            problems.append(Problem(Severity.ERROR, f"item skipped: {e.message}", origin, path))
        return None
    options = tuple(
        Option(o["id"], _tidy(o["text"]), _tidy(o.get("rebuttal")), o.get("value"))
        for o in raw["options"]
    )
    compute = raw.get("compute")
    if compute is not None:
        if compute not in KEY_FACTS:
            problems.append(
                Problem(
                    Severity.ERROR,
                    f"item skipped: unknown fact {compute!r}",
                    origin,
                    json_path([*where, "compute"]),
                )
            )
            return None
        truth = _computed(compute)
        correct = frozenset(o.id for o in options if o.value in truth)
    else:
        correct = frozenset(raw["answer"])
    options, correct = _reorder(raw["id"], options, correct)
    return QuizItem(
        raw["id"],
        raw["task"],
        _tidy(raw["scenario"]),
        _tidy(raw["stem"]),
        options,
        correct,
        int(raw["pick"]),
        _tidy(raw["explanation"]),
        compute,
        origin,
        raw.get("source", ""),
        json_path(where),
    )


def _reorder(
    item_id: str, options: tuple[Option, ...], correct: frozenset[str]
) -> tuple[tuple[Option, ...], frozenset[str]]:
    """Shuffle the options with a seed taken from the item id and letter them A, B, C…

    Authors tend to put the right answer first; a stable shuffle spreads the keys over
    the letters, and the same item always shows the same order.
    """
    if len({o.id for o in options}) != len(options):
        return options, correct  # left for bank_problems to report
    order = list(options)
    random.Random(zlib.crc32(item_id.encode())).shuffle(order)
    letters = "ABCDEF"
    renamed = {o.id: letters[n] for n, o in enumerate(order)}
    return (
        tuple(Option(renamed[o.id], o.text, o.rebuttal, o.value) for o in order),
        frozenset(renamed[c] for c in correct if c in renamed)
        | frozenset(c for c in correct if c not in renamed),
    )


def load_bank(folder: str | Path | None = None) -> Bank:
    """Load the bank from ``folder`` (default :data:`BANK_DIR`).

    ``tasks.yaml`` gives ``domains`` and ``tasks``; every other ``*.yaml`` holds a list
    ``items``. Computed keys are computed here. Returns a :class:`Bank` whose ``problems``
    hold every file or item that could not be read (those items are left out) followed by
    :func:`bank_problems`. Raises :class:`ConfigError` when ``tasks.yaml`` is missing or
    unreadable, since nothing can be checked without it.
    """
    root = Path(folder) if folder is not None else BANK_DIR
    problems: list[Problem] = []
    meta = _read_yaml(root / "tasks.yaml", problems)
    if not isinstance(meta, Mapping):
        raise ConfigError(
            problems[0].message if problems else "expected domains and tasks",
            str(root / "tasks.yaml"),
        )
    try:
        domains = tuple(
            Domain(int(d["id"]), d["title"], d["title_ja"], int(d["weight"]))
            for d in meta["domains"]
        )
        tasks = tuple(
            TaskStatement(
                str(t["id"]),
                int(str(t["id"]).split(".")[0]),
                t["title"],
                t["title_ja"],
                tuple(t.get("chapters", ())),
            )
            for t in meta["tasks"]
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(
            f"domains/tasks entry is incomplete: {exc}", str(root / "tasks.yaml")
        ) from None
    items: list[QuizItem] = []
    for path in sorted(root.glob("*.yaml")):
        if path.name in ("tasks.yaml", "scenarios.yaml", "item_schema.yaml"):
            continue
        data = _read_yaml(path, problems)
        if data is None:
            continue
        raw_items = data.get("items") if isinstance(data, Mapping) else None
        if not isinstance(raw_items, list):
            problems.append(Problem(Severity.ERROR, "expected a list under 'items'", str(path)))
            continue
        for n, raw in enumerate(raw_items):
            if not isinstance(raw, Mapping):
                problems.append(
                    Problem(
                        Severity.ERROR, "item must be a mapping", str(path), json_path(["items", n])
                    )
                )
                continue
            item = _item(raw, str(path), ("items", n), problems)
            if item is not None:
                items.append(item)
    bank = Bank(domains, tasks, tuple(items))
    return Bank(domains, tasks, tuple(items), (*problems, *bank_problems(bank)))


def bank_problems(bank: Bank) -> list[Problem]:
    """Every integrity problem of ``bank``, as error :class:`Problem` values.

    Checked: unique ids; no two stems alike (whitespace ignored); option ids unique per
    item; the key names existing options; ``pick`` equals the size of the key (and a
    multiple-response stem says how many to pick); every
    wrong option has a rebuttal and no correct one has; every item's task statement is
    declared; every Domain 2 task statement has items; domain weights add up to 100.
    """
    out: list[Problem] = []

    def bad(item: QuizItem | None, message: str) -> None:
        where = (item.origin or None, item.at or None) if item else (None, None)
        out.append(Problem(Severity.ERROR, message, *where))

    seen: dict[str, str] = {}
    stems: dict[str, str] = {}
    declared = {t.id for t in bank.tasks}
    for it in bank.items:
        if it.id in seen:
            bad(it, f"duplicate id (also in {seen[it.id]})")
        seen.setdefault(it.id, it.origin)
        stem = " ".join((it.scenario + " " + it.stem).split())
        if stem in stems:
            bad(it, f"same scenario and stem as {stems[stem]}")
        stems.setdefault(stem, it.id)
        for message in _item_problems(it):
            bad(it, message)
        if it.task not in declared:
            bad(it, f"task statement {it.task} is not declared in tasks.yaml")
    for t in bank.tasks:
        if t.domain == 2 and not bank.by_task(t.id):
            bad(None, f"task statement {t.id} has no items")
    if sum(d.weight for d in bank.domains) != 100:
        bad(None, "domain weights do not add up to 100")
    return out


def _item_problems(it: QuizItem) -> list[str]:
    """What is wrong inside one item: its options, key, ``pick`` and rebuttals."""
    out = []
    ids = [o.id for o in it.options]
    if len(set(ids)) != len(ids):
        out.append("option ids repeat")
    if not it.correct or not it.correct <= set(ids):
        out.append(
            f"key {sorted(it.correct)} does not name existing options "
            + ("(computed: the runtime's answer matches no option)" if it.compute else "")
        )
    if it.pick != len(it.correct):
        out.append(f"pick is {it.pick} but the key has {len(it.correct)} options")
    if it.pick > 1 and f"{it.pick} つ" not in it.stem:
        out.append(f"the stem does not say to pick {it.pick} (「{it.pick} つ選べ」)")
    for o in it.options:
        if o.id not in it.correct and not o.rebuttal:
            out.append(f"wrong option {o.id} has no rebuttal")
        if o.id in it.correct and o.rebuttal:
            out.append(f"correct option {o.id} has a rebuttal")
    return out


# --- drawing an exam -------------------------------------------------------------------


def draw(
    bank: Bank, count: int, seed: int = 0, tasks: Iterable[str] | None = None
) -> list[QuizItem]:
    """Draw ``count`` distinct items, stratified by domain weight, reproducibly from ``seed``.

    Each domain with items gets a share of ``count`` proportional to its weight (largest
    remainder; a domain's unused share passes to the others when it runs out of items);
    inside a domain, items are taken round-robin over its task statements in shuffled
    order, so a short exam still spreads over the statements. ``tasks`` restricts the
    pool. Returns the items in the order drawn; raises :class:`ValueError` when ``count``
    is not positive or the pool is smaller than ``count``.
    """
    wanted = set(tasks) if tasks is not None else None
    pool = [it for it in bank.items if wanted is None or it.task in wanted]
    if count < 1:
        raise ValueError("count must be at least 1")
    if count > len(pool):
        raise ValueError(f"only {len(pool)} items match, cannot draw {count}")
    rng = random.Random(seed)
    by_domain: dict[int, list[QuizItem]] = {}
    for it in pool:
        by_domain.setdefault(it.domain, []).append(it)
    weight = {d.id: d.weight for d in bank.domains}
    quota = _shares(
        {d: weight.get(d, 0) or 1 for d in by_domain},
        count,
        {d: len(v) for d, v in by_domain.items()},
    )
    chosen: list[QuizItem] = []
    for d in sorted(by_domain):
        groups: dict[str, list[QuizItem]] = {}
        for it in by_domain[d]:
            groups.setdefault(it.task, []).append(it)
        for g in groups.values():
            rng.shuffle(g)
        order = sorted(groups)
        rng.shuffle(order)
        picked: list[QuizItem] = []
        while len(picked) < quota[d]:
            for t in order:
                if groups[t] and len(picked) < quota[d]:
                    picked.append(groups[t].pop())
        chosen.extend(picked)
    rng.shuffle(chosen)
    return chosen


def _shares(weights: Mapping[int, int], total: int, caps: Mapping[int, int]) -> dict[int, int]:
    """Split ``total`` by ``weights`` (largest remainder), never above ``caps``."""
    share = dict.fromkeys(weights, 0)
    left = total
    open_ = {k for k in weights if caps[k] > 0}
    while left > 0 and open_:
        w = sum(weights[k] for k in open_)
        exact = {k: left * weights[k] / w for k in open_}
        give = {k: min(int(exact[k]), caps[k] - share[k]) for k in open_}
        rest = left - sum(give.values())
        for k in sorted(open_, key=lambda k: (-(exact[k] - int(exact[k])), k)):
            if rest and share[k] + give[k] < caps[k]:
                give[k] += 1
                rest -= 1
        for k, g in give.items():
            share[k] += g
        left = total - sum(share.values())
        open_ = {k for k in open_ if share[k] < caps[k]}
    return share
