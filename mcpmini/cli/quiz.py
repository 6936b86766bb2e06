"""``mcpmini quiz``: the CCA-F question bank from the terminal.

``list`` shows items without their keys or ids, ``take`` runs an exam interactively (a full
sitting with ``--sitting N`` or a practice set; answer, flag for review, come back to flagged
items with their current answer, a report that teaches at the end, recorded in progress;
``--out`` saves answers and flags after every item and ``--resume`` continues from such a
file), ``grade`` scores an answers file, ``key`` prints the key for instructors, ``lint``
prints the bank linter's table (can a test-wise guesser beat the bank?). ``--lang`` chooses
Japanese, English or both (English then Japanese); the default is the learner's language, the
course's one setting (``MCPMINI_LANG`` or the edition).

``take`` enforces the time limit: once it is used up no answer is taken and the exam is
submitted as it stands. The ``--out`` file names items by opaque handles, carries the time
used (``--resume`` goes on with what is left, and submits an exam whose time is up) and the
bank's version (a file of another version is refused, naming both).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .. import jsonfile
from ..errors import UsageError
from .output import echo, print_json

__all__ = ["add"]


def add(sub: Any) -> None:
    quiz = sub.add_parser(
        "quiz",
        help="the CCA-F question bank: list, take, grade, key",
        description="Scenario items for the CCA-F exam, keyed by the runtime.",
    )
    qsub = quiz.add_subparsers(dest="action", metavar="ACTION", required=True)
    lst = qsub.add_parser("list", help="list items (no keys)")
    lst.add_argument(
        "--task",
        action="append",
        metavar="N.M",
        help="only this task statement (repeatable), e.g. --task 2.3",
    )
    lst.add_argument("--json", action="store_true", help="print JSON")
    _lang_option(lst)
    lst.set_defaults(handler=_cmd_list)
    take = qsub.add_parser("take", help="take an exam interactively")
    take.add_argument(
        "--sitting",
        type=int,
        metavar="N",
        help="a full exam: sitting N of the seed (60 items, four scenarios, 120 minutes); "
        "sittings of one seed share no item",
    )
    take.add_argument(
        "--count",
        type=int,
        default=None,
        help="items of a practice set (20), or of a sitting (60)",
    )
    take.add_argument(
        "--format",
        choices=["single", "mixed"],
        default=None,
        help="mixed: multiple-response items among the single-answer ones (the default, the "
        "v1.0 guide); single: one best answer of four only",
    )
    _lang_option(take)
    take.add_argument("--resume", metavar="FILE", help="continue the exam saved in FILE")
    take.add_argument("--seed", type=int, default=None, help="seed of the draw (random)")
    take.add_argument("--task", action="append", metavar="N.M", help="only this task statement")
    take.add_argument(
        "--weakest",
        type=int,
        metavar="K",
        help="only the K task statements with the lowest recorded percent "
        "(never answered counts as 0 %%)",
    )
    take.add_argument(
        "--missed", action="store_true", help="retake the items missed in the last recorded quiz"
    )
    take.add_argument(
        "--minutes", type=float, default=None, help="time budget (default: 2 minutes per item)"
    )
    take.add_argument(
        "--out", metavar="FILE", help="save answers and flags as JSON, after every item"
    )
    take.add_argument("--no-record", action="store_true", help="do not record in progress")
    take.set_defaults(handler=_cmd_take)
    grade = qsub.add_parser("grade", help="grade an answers file")
    grade.add_argument(
        "answers",
        metavar="ANSWERS.json",
        help='{"items": [...], "answers": {id: ["A"]}} or {id: "A,C"}',
    )
    grade.add_argument("--json", action="store_true", help="print JSON")
    _lang_option(grade)
    grade.add_argument("--record", action="store_true", help="record the result in progress")
    grade.set_defaults(handler=_cmd_grade)
    key = qsub.add_parser("key", help="print the key (instructors)")
    key.add_argument("--task", action="append", metavar="N.M", help="only this task statement")
    key.add_argument("--json", action="store_true", help="print JSON")
    key.set_defaults(handler=_cmd_key)
    lint = qsub.add_parser(
        "lint",
        help="the bank linter: surface cues beside chance and a test-wise guesser",
        description="Per language, every surface cue's key rate beside chance and a guesser "
        "fitted on half the bank and scored on the other half; exit 1 when a target is missed.",
    )
    lint.set_defaults(handler=_cmd_lint)


def _lang_option(parser: Any, default: str | None = None) -> None:
    parser.add_argument(
        "--lang",
        choices=["ja", "en", "both"],
        default=default,
        help="language of items and reports: ja, en, or both (English then Japanese); "
        "default: the course's language setting (MCPMINI_LANG or the edition)",
    )


def _lang(args: argparse.Namespace) -> str:
    from ..course.language import current

    return str(args.lang or current().value)


def _echo_lines(lines: Any) -> None:
    """Each line through :func:`echo`, a line holding line breaks as several lines."""
    for line in lines:
        for part in str(line).splitlines() or [""]:
            echo(part)


#: Another bank folder in the real layout (tests, an instructor's own items).
BANK_ENV = "MCPMINI_QUIZ_BANK"


def _bank() -> Any:
    import os

    from ..course.ccaf import load_bank

    bank = load_bank(os.environ.get(BANK_ENV) or None)
    for p in bank.problems:
        print(p, file=sys.stderr)
    return bank


def _cmd_lint(args: argparse.Namespace) -> int:
    import os

    from ..course.ccaf.linter import main as lint_main

    folder = os.environ.get(BANK_ENV)
    return lint_main([folder] if folder else [])


def _selected(bank: Any, tasks: list[str] | None) -> list[Any]:
    if not tasks:
        return list(bank.items)
    unknown = [t for t in tasks if bank.task(t) is None]
    if unknown:
        raise UsageError(
            f"unknown task statement {', '.join(unknown)}; known: "
            + ", ".join(t.id for t in bank.tasks)
        )
    return [it for it in bank.items if it.task in tasks]


def _cmd_list(args: argparse.Namespace) -> int:
    bank = _bank()
    items = _selected(bank, args.task)
    if args.json:
        print_json({"items": [it.public(_lang(args)) for it in items]})
        return 0
    from ..course.language import Text

    lang = _lang(args)
    for n, it in enumerate(items, 1):  # a multiple-response stem says how many to choose
        stem = it.stem.lang(lang).splitlines()[0]
        echo(f"{n:>4}  {it.task:<4} {it.scenario:<12} {stem[:70]}")
    echo(Text("{n} 問", "{n} items").format(n=len(items)).inline(lang))
    return 0


def _cmd_key(args: argparse.Namespace) -> int:
    bank = _bank()
    items = _selected(bank, args.task)
    if args.json:
        print_json({"key": {it.id: it.key() for it in items}})
        return 0
    for it in items:
        print(
            f"{it.id}: {','.join(sorted(it.correct))}"
            + (f"  (computed: {it.compute})" if it.compute else "")
        )
    return 0


def _report(
    bank: Any,
    items: list[str] | None,
    answers: dict[str, list[str]],
    flagged: set[str],
    as_json: bool,
    record: bool,
    lang: str = "both",
) -> int:
    from ..course.ccaf import grade

    report = grade(bank, answers, items, flagged)
    if as_json:
        print_json(report.to_dict())
    else:
        _echo_lines(report.lines(lang))
    if record:
        _record(report)
    return 0


def _record(report: Any) -> None:
    import os

    from ..course import progress_path, record_quiz

    path = progress_path(os.environ)
    if path is not None:
        record_quiz(path, report)


def _recorded() -> dict[str, Any]:
    """The quiz part of the learner's progress file (empty when recording is off)."""
    import os

    from ..course import load_progress, progress_path

    path = progress_path(os.environ)
    quiz = load_progress(path).get("quiz", {}) if path is not None else {}
    return dict(quiz)


def _weakest(bank: Any, k: int, among: list[str] | None) -> list[str]:
    """The ``k`` task statements with the lowest recorded percent (unseen = 0 %)."""
    tasks = _recorded().get("tasks", {})

    def percent(task_id: str) -> float:
        entry = tasks.get(task_id, {})
        total = int(entry.get("total", 0))
        return int(entry.get("correct", 0)) / total if total else 0.0

    ids = [t.id for t in bank.tasks if among is None or t.id in among]
    return sorted(ids, key=lambda t: (percent(t), t))[: max(1, k)]


def _cmd_grade(args: argparse.Namespace) -> int:
    from ..course.ccaf.session import read_answers

    path = Path(args.answers)
    data = _load_saved(path)
    bank = _bank()
    try:
        items, answers, flagged = read_answers(bank, data)
    except KeyError as exc:  # a handle or id the bank lacks
        raise UsageError(f"{path}: {exc.args[0]}") from None
    except ValueError as exc:  # a malformed file, or one of another bank version
        raise UsageError(f"{path}: {exc}") from None
    try:
        return _report(bank, items, answers, flagged, args.json, args.record, _lang(args))
    except ValueError as exc:  # grade's documented refusal: an unknown or stray item id
        raise UsageError(f"{path}: {exc}") from None


def _load_saved(path: Path) -> Any:
    try:
        return jsonfile.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read ({exc})") from None


def _exam(args: argparse.Namespace, bank: Any) -> Any:
    """The :class:`~mcpmini.course.ccaf.ExamSession` that ``quiz take``'s options ask for."""
    import random

    from ..course.ccaf import DEFAULT_FORMAT, EXAM_ITEMS, ExamSession

    fmt = args.format or DEFAULT_FORMAT
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    if args.resume:
        data = _load_saved(Path(args.resume))
        try:
            exam = ExamSession.from_dict(bank, data, minutes=args.minutes)
        except KeyError as exc:  # an item the bank lacks
            raise UsageError(f"{args.resume}: cannot resume ({exc.args[0]})") from None
        except ValueError as exc:  # a malformed file, or one of another bank version
            raise UsageError(f"{args.resume}: cannot resume ({exc})") from None
        if args.lang:
            exam.lang = type(exam.lang)(args.lang)
        return exam
    lang = _lang(args)
    if args.sitting is not None:
        count = args.count if args.count is not None else EXAM_ITEMS
        try:
            return ExamSession.sitting(
                bank, args.sitting, seed, fmt, lang, minutes=args.minutes, count=count
            )
        except ValueError as exc:  # the draw's documented refusal
            raise UsageError(str(exc)) from None
    if args.missed:
        known = {it.id for it in bank.items}
        missed = [i for i in _recorded().get("last", {}).get("missed", []) if i in known]
        if not missed:
            raise UsageError("no missed items recorded; take a quiz first")
        items = [bank.item(i) for i in missed]
        random.Random(seed).shuffle(items)
        return ExamSession(
            bank, seed=seed, minutes=args.minutes, items=items, lang=lang, format="mixed"
        )
    tasks = args.task
    if args.weakest:
        tasks = _weakest(bank, args.weakest, tasks)
        print("weakest task statements:", ", ".join(tasks))
    fits = [it for it in bank.items if fmt == "mixed" or it.pick == 1]
    wanted = args.count if args.count is not None else 20
    count = min(wanted, sum(it.task in tasks for it in fits)) if tasks else wanted
    try:
        return ExamSession(bank, count, seed, args.minutes, tasks, lang=lang, format=fmt)
    except ValueError as exc:  # the draw's documented refusal of --count / --task
        raise UsageError(str(exc)) from None


def _save(exam: Any, out: str | None) -> None:
    if out:
        Path(out).write_text(
            json.dumps(exam.to_dict(), ensure_ascii=False, indent=2), encoding="utf-8"
        )


def _ask(exam: Any, item: Any, out: str | None) -> bool:
    """Prompt for ``item`` until the line is valid and hand it to ``exam`` (then save it to
    ``out``); False on ``q`` or when the time is up (the exam has then submitted itself and
    this line is not taken). A refused line gets one line saying why, and the prompt again."""
    from ..course.ccaf import AnswersLocked, EntryError

    while True:
        try:
            line = input("> ").strip()
        except EOFError:
            line = "q"
        if exam.expired:  # the line came after 0:00: it is not taken
            return False
        if line.lower() == "q":
            return False
        try:
            exam.enter(item.id, line)
        except EntryError as exc:
            echo("  " + exam.again(exc))
            continue
        except AnswersLocked:  # the time ran out while the line was handled
            return False
        _save(exam, out)
        return True


def _run(exam: Any, out: str | None) -> None:
    """Every item once, then the flagged ones (with their current answer), until ``q``."""
    order, review = list(exam.items), False
    while order:
        for n, it in enumerate(order, 1):
            print()
            _echo_lines(exam.prompt_lines(it, n, len(order), review))
            if not _ask(exam, it, out):
                return
        if review:
            return
        order, review = exam.review_items(), True
        if order:
            print()
            echo(exam.screen_line("to review", n=len(order)))


def _cmd_take(args: argparse.Namespace) -> int:
    from ..course.ccaf import clock_text

    bank = _bank()
    exam = _exam(args, bank)
    if exam.expired:  # a resumed exam whose time is up: submitted, not reopened
        echo(exam.time_up_line())
    else:
        _echo_lines([exam.intro()])
        _run(exam, args.out)
        if exam.expired:
            print()
            echo(exam.time_up_line())
    used = clock_text(min(exam.time_used(), exam.budget_s))
    print()
    echo(exam.screen_line("time used", used=used))
    print()
    exam.finish()
    _save(exam, args.out)
    ids = [it.id for it in exam.items]
    return _report(
        bank, ids, exam.answers, exam.flagged, False, not args.no_record, exam.lang.value
    )
