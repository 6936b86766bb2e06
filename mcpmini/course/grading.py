"""Checkers for the course's exercises: ``check()``, ``hint(n)``, ``solution()`` and progress.

An :class:`Exercise` is a list of :class:`Part` objects. Each part carries the expected
value (computed with the runtime by the tracks' exercise modules, never typed in), the
kind of value it wants (a boolean, an integer, one of a few options, a multiple-choice
label, a set of names) and messages aimed at specific wrong answers. ``check(answer)``
reads the learner's ``answer`` dict part by part and returns a :class:`Report` in which
every part is in one of three states: correct, incorrect (with the message for *that*
mistake), or not attempted (``None``, ``...``, ``""`` or a missing key).

``check`` never raises into a notebook: a value it cannot read is an incorrect part whose
message says why, and a progress file it cannot write only adds a note to the report.
Each check of an attempted answer is recorded by :mod:`mcpmini.course.progress`.

In a notebook::

    ex = get_exercise("9.1")   # from mcpmini.course
    ex.describe()              # the keys of ``answer`` and what each one takes
    ex.check(answer)           # a Report: ✓ / ✗ with a message / · per part
    ex.hint(1); ex.solution()  # on demand
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

from .language import Text, Words, say
from .progress import progress_path, record_progress

__all__ = ["WORDS", "Choice", "Exercise", "Kind", "Part", "PartResult", "Report", "Status"]


class Status(StrEnum):
    """The state of one part (and, summarised, of a whole exercise)."""

    CORRECT = "correct"
    INCORRECT = "incorrect"
    NOT_ATTEMPTED = "not_attempted"


class Kind(StrEnum):
    """What kind of value a part expects."""

    BOOL = "bool"
    INT = "int"
    OPTION = "option"
    CHOICE = "choice"
    NAMES = "names"


#: Every fixed text of the checker, one row each (the exercises' own texts are theirs).
WORDS: dict[str, Text] = {
    "bool": Text("True か False", "True or False"),
    "int": Text("整数", "an integer"),
    "one_of": Text("{listed} のどれか 1 つ", "one of {listed}"),
    "names": Text("名前（文字列）のリストか集合", "a list or set of names (strings)"),
    "unreadable": Text(
        "{what}で答えてください（いまの値: {value}）", "Answer with {what} (now: {value})."
    ),
    "wrong_choice": Text("{label} は正しくありません。{why}", "{label} is not right. {why}"),
    "missing": Text("足りないもの {n} 個", "{n} missing"),
    "extra": Text("余分なもの {n} 個", "{n} extra"),
    "names_wrong": Text("{bits}があります。", "{bits}."),
    "wrong": Text("正しくありません。", "Not right."),
    "then": Text("{first}{second}", "{first} {second}"),
    "blank": Text("未回答です。", "Not answered yet."),
    "crashed": Text(
        "この値は読めませんでした（{kind}）。", "This value could not be read ({kind})."
    ),
    "not_attempted": Text("未回答（0/{max}）", "not attempted (0/{max})"),
    "all_correct": Text("全問正解（{score}/{max}）", "all correct ({score}/{max})"),
    "incorrect_n": Text("不正解 {n}", "{n} incorrect"),
    "open_n": Text("未回答 {n}", "{n} not answered"),
    "partial": Text("{score}/{max} 正解（{rest}）", "{score}/{max} correct ({rest})"),
    "sep": Text("・", ", "),
    "list_sep": Text("、", ", "),
    "heading": Text("演習 {id} {title}: {label}", "Exercise {id} {title}: {label}"),
    "not_a_dict": Text(
        "{variable} は dict で書いてください（いまは {kind}）。",
        "Write {variable} as a dict (now it is a {kind}).",
    ),
    "not_saved": Text(
        "進捗を保存できませんでした: {error}", "Progress could not be saved: {error}"
    ),
    "describe": Text(
        "演習 {id} {title}（{max} 点）: {variable} の各キー",
        "Exercise {id} {title} ({max} points): the keys of {variable}",
    ),
    "one_label": Text("（記号 1 つ）", " (one letter)"),
    "options": Text("（{opts}）", " ({opts})"),
    "kind_names": Text("名前のリスト", "a list of names"),
    "no_hints": Text("この演習にはヒントがありません。", "This exercise has no hints."),
    "hint": Text("ヒント {n}/{total}: {text}", "Hint {n}/{total}: {text}"),
    "hint_range": Text(
        "ヒントは 1 から {total} までです（hint({total}) まで）。",
        "Hints go from 1 to {total} (up to hint({total})).",
    ),
    "solution": Text("演習 {id} の解答\n{text}", "Solution to exercise {id}\n{text}"),
}


def _w(name: str, **kwargs: Any) -> str:
    """The checker's text ``name`` in the current language, formatted."""
    return WORDS[name].lang().format(**kwargs)


class _Unreadable(ValueError):
    """The learner's value has the wrong type; the message says what was expected."""


@dataclass(frozen=True)
class Choice:
    """One statement of a multiple-choice part; ``why`` explains a false statement."""

    label: str
    text: Words
    correct: bool
    why: Words = ""


@dataclass(frozen=True)
class Part:
    """One graded question. Build it with :meth:`boolean`, :meth:`integer`, :meth:`option`,
    :meth:`choice` or :meth:`names`; ``key`` is a dotted path into the answer dict."""

    key: str
    prompt: Words
    kind: Kind
    expected: Any
    options: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = ()
    mistakes: tuple[tuple[Hashable, Words], ...] = ()
    otherwise: Words = ""
    points: int = 1

    @classmethod
    def boolean(cls, key: str, prompt: Words, expected: bool, *, otherwise: Words = "") -> Part:
        """A True/False part; ``otherwise`` explains the wrong truth value."""
        return cls(key, prompt, Kind.BOOL, bool(expected), otherwise=otherwise)

    @classmethod
    def integer(
        cls,
        key: str,
        prompt: Words,
        expected: int,
        *,
        mistakes: Mapping[int, Words] | None = None,
        otherwise: Words = "",
    ) -> Part:
        """An integer part; ``mistakes`` maps likely wrong numbers to their explanation."""
        return cls(
            key,
            prompt,
            Kind.INT,
            int(expected),
            mistakes=tuple((mistakes or {}).items()),
            otherwise=otherwise,
        )

    @classmethod
    def option(
        cls,
        key: str,
        prompt: Words,
        expected: str | Enum,
        options: Iterable[str | Enum],
        *,
        mistakes: Mapping[str, Words] | None = None,
        otherwise: Words = "",
    ) -> Part:
        """One value among ``options`` (strings or enum members, compared by value)."""
        opts = tuple(_plain(o) for o in options)
        exp = _plain(expected)
        if exp not in opts:
            raise ValueError(f"expected value {exp!r} is not among the options {opts}")
        return cls(
            key,
            prompt,
            Kind.OPTION,
            exp,
            options=opts,
            mistakes=tuple((_plain(k), v) for k, v in (mistakes or {}).items()),
            otherwise=otherwise,
        )

    @classmethod
    def choice(
        cls, key: str, prompt: Words, statements: Sequence[tuple[Words, bool, Words]]
    ) -> Part:
        """Multiple choice among ``(text, is_true, why_false)`` statements, labelled A, B, ….

        Exactly one statement must be true. Raises ``ValueError`` otherwise.
        """
        if sum(1 for _, truth, _ in statements if truth) != 1:
            raise ValueError(f"part {key!r}: exactly one statement must be true")
        choices = tuple(
            Choice(chr(ord("A") + i), text, bool(truth), why)
            for i, (text, truth, why) in enumerate(statements)
        )
        right = next(c.label for c in choices if c.correct)
        return cls(
            key,
            prompt,
            Kind.CHOICE,
            right,
            options=tuple(c.label for c in choices),
            choices=choices,
        )

    @classmethod
    def names(
        cls, key: str, prompt: Words, expected: Iterable[str], *, otherwise: Words = ""
    ) -> Part:
        """A set of names (order does not matter; a list, tuple or set is accepted)."""
        return cls(key, prompt, Kind.NAMES, frozenset(expected), otherwise=otherwise)

    def read(self, value: Any) -> Any:
        """Normalise a learner's value. Raises ``_Unreadable`` with a specific message."""
        value = _plain(value)
        # One rule for every kind: a value of the right type, or text that spells one
        # ("2", "25,000", "True", " b "), is read; anything else gets the same message.
        if self.kind is Kind.BOOL:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                return value.strip().lower() == "true"
            raise _Unreadable(_unreadable(_w("bool"), value))
        if self.kind is Kind.INT:
            if isinstance(value, bool):
                raise _Unreadable(_unreadable(_w("int"), value))
            if isinstance(value, float) and value.is_integer():
                return int(value)
            if isinstance(value, int):
                return value
            digits = (
                value.replace(",", "").replace("_", "").strip() if isinstance(value, str) else ""
            )
            if digits.isdigit():
                return int(digits)
            raise _Unreadable(_unreadable(_w("int"), value))
        if self.kind in (Kind.OPTION, Kind.CHOICE):
            if isinstance(value, str):
                wanted = value.strip()
                for opt in self.options:
                    if opt.lower() == wanted.lower():
                        return opt
            listed = _w("list_sep").join(repr(o) for o in self.options)
            raise _Unreadable(_unreadable(_w("one_of", listed=listed), value))
        if isinstance(value, (list, tuple, set, frozenset)) and all(
            isinstance(v, str) for v in value
        ):
            return frozenset(v.strip() for v in value)
        raise _Unreadable(_unreadable(_w("names"), value))

    def diagnose(self, value: Any) -> str:
        """The message for a readable but wrong ``value``."""
        if self.kind is Kind.CHOICE:
            picked = next(c for c in self.choices if c.label == value)
            return _w("wrong_choice", label=picked.label, why=say(picked.why)).strip()
        for wrong, message in self.mistakes:
            if wrong == value:
                return say(message)
        if self.kind is Kind.NAMES:
            missing = sorted(self.expected - value)
            extra = sorted(value - self.expected)
            bits = []
            if missing:
                bits.append(_w("missing", n=len(missing)))
            if extra:
                bits.append(_w("extra", n=len(extra)))
            found = _w("names_wrong", bits=_w("list_sep").join(bits))
            return _w("then", first=found, second=say(self.otherwise)).strip()
        return say(self.otherwise) or _w("wrong")

    def grade(self, answer: Any) -> PartResult:
        """Grade this part of ``answer``; never raises."""
        try:
            found, value = _lookup(answer, self.key)
            if not found or _is_blank(value):
                return PartResult(self.key, Status.NOT_ATTEMPTED, _w("blank"), 0, self.points)
            try:
                got = self.read(value)
            except _Unreadable as exc:
                return PartResult(self.key, Status.INCORRECT, str(exc), 0, self.points)
            if got == self.expected:
                return PartResult(self.key, Status.CORRECT, "", self.points, self.points)
            return PartResult(self.key, Status.INCORRECT, self.diagnose(got), 0, self.points)
        except Exception as exc:
            return PartResult(
                self.key,
                Status.INCORRECT,
                _w("crashed", kind=type(exc).__name__),
                0,
                self.points,
            )


def _unreadable(what: str, value: Any) -> str:
    """The one message for a value that cannot be read as the kind a part expects."""
    return _w("unreadable", what=what, value=repr(value))


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def _is_blank(value: Any) -> bool:
    return value is None or value is Ellipsis or (isinstance(value, str) and value == "")


def _lookup(answer: Any, key: str) -> tuple[bool, Any]:
    node = answer
    for step in key.split("."):
        if not isinstance(node, Mapping) or step not in node:
            return False, None
        node = node[step]
    return True, node


@dataclass(frozen=True)
class PartResult:
    """The grade of one part: its status, a message, and the points earned out of ``max_points``."""

    key: str
    status: Status
    message: str
    points: int
    max_points: int


@dataclass(frozen=True)
class Report:
    """What ``check()`` returns: one :class:`PartResult` per part, plus notes.

    ``status`` is CORRECT only when every part is correct and NOT_ATTEMPTED only when no
    part was answered; ``label`` says the same in words and never claims more.
    """

    exercise: str
    title: str
    results: tuple[PartResult, ...]
    notes: tuple[str, ...] = ()

    @property
    def score(self) -> int:
        return sum(r.points for r in self.results)

    @property
    def max_score(self) -> int:
        return sum(r.max_points for r in self.results)

    def count(self, status: Status) -> int:
        """How many parts are in ``status``."""
        return sum(1 for r in self.results if r.status is status)

    @property
    def status(self) -> Status:
        if self.results and all(r.status is Status.CORRECT for r in self.results):
            return Status.CORRECT
        if all(r.status is Status.NOT_ATTEMPTED for r in self.results):
            return Status.NOT_ATTEMPTED
        return Status.INCORRECT

    @property
    def label(self) -> str:
        """An honest one-line summary in the learner's language, such as
        ``3/5 正解（不正解 1・未回答 1）`` / ``3/5 correct (1 incorrect, 1 not answered)``."""
        if self.status is Status.NOT_ATTEMPTED:
            return _w("not_attempted", max=self.max_score)
        if self.status is Status.CORRECT:
            return _w("all_correct", score=self.score, max=self.max_score)
        rest = []
        if self.count(Status.INCORRECT):
            rest.append(_w("incorrect_n", n=self.count(Status.INCORRECT)))
        if self.count(Status.NOT_ATTEMPTED):
            rest.append(_w("open_n", n=self.count(Status.NOT_ATTEMPTED)))
        return _w("partial", score=self.score, max=self.max_score, rest=_w("sep").join(rest))

    def feedback(self) -> str:
        """The messages of the parts that are not correct, on one line (for a CSV cell)."""
        return " / ".join(
            f"{r.key}: {r.message}" for r in self.results if r.status is not Status.CORRECT
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary of the report."""
        return {
            "exercise": self.exercise,
            "title": self.title,
            "score": self.score,
            "max_score": self.max_score,
            "status": self.status.value,
            "parts": {r.key: r.status.value for r in self.results},
        }

    def __str__(self) -> str:
        marks = {Status.CORRECT: "✓", Status.INCORRECT: "✗", Status.NOT_ATTEMPTED: "·"}
        lines = [_w("heading", id=self.exercise, title=self.title, label=self.label)]
        for r in self.results:
            tail = f" — {r.message}" if r.message and r.status is not Status.CORRECT else ""
            lines.append(f"  {marks[r.status]} {r.key}{tail}")
        lines.extend(f"  ※ {note}" for note in self.notes)
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython display hook
        printer.text(str(self))


@dataclass
class Exercise:
    """An exercise a learner can ``check()``, ask a ``hint(n)`` for, or see the ``solution()`` of.

    ``parts`` are graded against the learner's ``answer`` dict; ``variable`` names that
    dict in the notebook (the batch grader reads it from there). A practice instance
    (``practice=True``) records only a tally in the progress file. ``data`` holds the
    instance's inputs (version sets, a history…) so a solution can recompute them.
    """

    id: str
    title: Words
    statement: Words
    parts: Sequence[Part]
    hints: Sequence[Words] = ()
    solution_text: Words | Callable[[], Words] = ""
    variable: str = "answer"
    practice: bool = False
    data: Mapping[str, Any] = field(default_factory=dict)
    environ: Mapping[str, str] | None = field(default=None, repr=False)

    @property
    def max_score(self) -> int:
        return sum(p.points for p in self.parts)

    def shown(self, part: Part, answer: Any) -> tuple[bool, Any]:
        """``(found, value)``: what of ``answer`` a feedback page shows beside ``part`` — here
        the value at the part's dotted key. An exercise whose answer is not one value per part
        says instead which value each part judged."""
        return _lookup(answer, part.key)

    def template(self) -> dict[str, Any]:
        """The empty answer dict (every part ``None``), nested by the parts' dotted keys."""
        return _nest((p.key, None) for p in self.parts)

    def answer_key(self) -> dict[str, Any]:
        """The expected answer dict (sets of names as sorted lists)."""
        return _nest(
            (p.key, sorted(p.expected) if p.kind is Kind.NAMES else p.expected) for p in self.parts
        )

    def grade(self, answer: Any) -> Report:
        """Grade ``answer`` without touching the progress file; never raises."""
        notes: list[str] = []
        if not _is_blank(answer) and not isinstance(answer, Mapping):
            notes.append(_w("not_a_dict", variable=self.variable, kind=type(answer).__name__))
        return Report(
            self.id, say(self.title), tuple(p.grade(answer) for p in self.parts), tuple(notes)
        )

    def check(self, answer: Any = None, *, record: bool = True) -> Report:
        """Grade ``answer``, record it in the progress file, and return the :class:`Report`.

        Never raises: if the progress file cannot be written, the report carries a note.
        """
        report = self.grade(answer)
        # An untouched answer is not recorded, so re-running a fresh notebook never
        # overwrites earlier progress.
        if record and report.status is not Status.NOT_ATTEMPTED:
            try:
                path = progress_path(os.environ if self.environ is None else self.environ)
                if path is not None:
                    record_progress(path, report, practice=self.practice)
            except Exception as exc:
                report = Report(
                    report.exercise,
                    report.title,
                    report.results,
                    (*report.notes, _w("not_saved", error=exc)),
                )
        return report

    def describe(self) -> None:
        """Print every part: its key, its question, and the options or statements it takes."""
        kinds = {Kind.BOOL: "True / False", Kind.INT: _w("int"), Kind.NAMES: _w("kind_names")}
        print(
            _w(
                "describe",
                id=self.id,
                title=say(self.title),
                max=self.max_score,
                variable=self.variable,
            )
        )
        for part in self.parts:
            if part.kind is Kind.CHOICE:
                print(f"  {part.key}: {say(part.prompt)}{_w('one_label')}")
                for c in part.choices:
                    print(f"      {c.label}. {say(c.text)}")
            elif part.kind is Kind.OPTION:
                opts = " / ".join(repr(o) for o in part.options)
                print(f"  {part.key}: {say(part.prompt)}{_w('options', opts=opts)}")
            else:
                print(f"  {part.key}: {say(part.prompt)}{_w('options', opts=kinds[part.kind])}")

    def hint(self, n: int = 1) -> None:
        """Print hint ``n`` (1-based); an out-of-range ``n`` prints how many hints exist. In a
        class whose instructor switched hints off (:mod:`.policy`) it says so."""
        from .policy import OFF, allowed

        if not allowed("hints", self.environ):
            print(say(OFF["hints"]))
        elif not self.hints:
            print(_w("no_hints"))
        elif isinstance(n, int) and 1 <= n <= len(self.hints):
            print(_w("hint", n=n, total=len(self.hints), text=say(self.hints[n - 1])))
        else:
            print(_w("hint_range", total=len(self.hints)))

    def solution(self) -> None:
        """Print the worked solution (computed from the runtime where it shows numbers); in a
        class whose instructor switched solutions off (:mod:`.policy`) it says so."""
        from .policy import OFF, allowed

        if not allowed("solutions", self.environ):
            print(say(OFF["solutions"]))
            return
        text = self.solution_text() if callable(self.solution_text) else self.solution_text
        print(_w("solution", id=self.id, text=say(text)))


def _nest(items: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in items:
        *path, last = key.split(".")
        node = out
        for step in path:
            node = node.setdefault(step, {})
        node[last] = value
    return out
