"""The CCA-F question bank as values: domains, task statements, scenarios, items, the bank.

Rules of this module: values only — frozen dataclasses, no I/O. Every learner-facing text is
a :class:`~mcpmini.course.language.Text` in both languages; :meth:`Text.lang` picks one. The
files they are read from are :mod:`.loader`'s business, their integrity :mod:`.integrity`'s,
and the counts the bank's targets are stated in :mod:`.figures`'.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from ...errors import Problem
from ..language import Lang, Text

__all__ = [
    "BANK_DIR",
    "Bank",
    "Domain",
    "Kind",
    "Lang",
    "Option",
    "QuizItem",
    "Scenario",
    "TaskStatement",
    "Text",
]

#: The folder of the course's own bank.
BANK_DIR = Path(__file__).with_name("data")


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
    #: a digest of the files the bank was read from (an answers file names it)
    version: str = ""

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
