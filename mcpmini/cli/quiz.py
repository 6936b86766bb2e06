"""``mcpmini quiz``: the CCA-F question bank from the terminal.

``list`` shows items without their keys, ``take`` runs an exam interactively (answer, flag
for review, come back to flagged items, a report at the end, recorded in progress),
``grade`` scores an answers file, ``key`` prints the key for instructors.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .output import print_json

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
    lst.set_defaults(handler=_cmd_list)
    take = qsub.add_parser("take", help="take an exam interactively")
    take.add_argument("--count", type=int, default=20, help="items to draw (20)")
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
    take.add_argument("--out", metavar="FILE", help="also save the answers as JSON")
    take.add_argument("--no-record", action="store_true", help="do not record in progress")
    take.set_defaults(handler=_cmd_take)
    grade = qsub.add_parser("grade", help="grade an answers file")
    grade.add_argument(
        "answers",
        metavar="ANSWERS.json",
        help='{"items": [...], "answers": {id: ["A"]}} or {id: "A,C"}',
    )
    grade.add_argument("--json", action="store_true", help="print JSON")
    grade.add_argument("--record", action="store_true", help="record the result in progress")
    grade.set_defaults(handler=_cmd_grade)
    key = qsub.add_parser("key", help="print the key (instructors)")
    key.add_argument("--task", action="append", metavar="N.M", help="only this task statement")
    key.add_argument("--json", action="store_true", help="print JSON")
    key.set_defaults(handler=_cmd_key)


def _bank() -> Any:
    from ..course.quiz import load_bank

    bank = load_bank()
    for p in bank.problems:
        print(p, file=sys.stderr)
    return bank


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
        print_json({"items": [it.public() for it in items]})
        return 0
    for it in items:
        multi = f" (pick {it.pick})" if it.pick > 1 else ""
        print(f"{it.id:<36} {it.task}{multi}")
    print(f"{len(items)} items")
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
) -> int:
    from ..course.quiz import grade

    report = grade(bank, answers, items, flagged)
    if as_json:
        print_json(report.to_dict())
    else:
        print("\n".join(report.lines()))
    if record:
        _record(report)
    return 0


def _record(report: Any) -> None:
    import os

    from ..course.progress import progress_path, record_quiz

    path = progress_path(os.environ)
    if path is not None:
        record_quiz(path, report)


def _recorded() -> dict[str, Any]:
    """The quiz part of the learner's progress file (empty when recording is off)."""
    import os

    from ..course.progress import load_progress, progress_path

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
    from ..course.quiz import parse_answers

    path = Path(args.answers)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read ({exc})") from None
    try:
        items, answers, flagged = parse_answers(data)
    except ValueError as exc:  # parse_answers' documented refusal of a malformed file
        raise UsageError(f"{path}: {exc}") from None
    return _report(_bank(), items, answers, flagged, args.json, args.record)


def _draw(bank: Any, count: int, seed: int, tasks: list[str] | None) -> list[Any]:
    """``course.quiz.draw``, its documented refusal (``--count``, ``--task``) a usage error."""
    from ..course.quiz import draw

    try:
        return draw(bank, count, seed, tasks)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _cmd_take(args: argparse.Namespace) -> int:
    import random

    bank = _bank()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    if args.missed:
        missed = [
            i
            for i in _recorded().get("last", {}).get("missed", [])
            if any(it.id == i for it in bank.items)
        ]
        if not missed:
            raise UsageError("no missed items recorded; take a quiz first")
        items = [bank.item(i) for i in missed]
        random.Random(seed).shuffle(items)
    else:
        tasks = args.task
        if args.weakest:
            tasks = _weakest(bank, args.weakest, tasks)
            print("weakest task statements:", ", ".join(tasks))
        items = _draw(
            bank,
            min(args.count, sum(it.task in tasks for it in bank.items)) if tasks else args.count,
            seed,
            tasks,
        )
    budget = (args.minutes if args.minutes is not None else 2.0 * len(items)) * 60
    print(
        f"{len(items)} items (seed {seed}), {budget / 60:.0f} minutes. Answer with letters "
        "(A or A,C), add ? to flag for review (A?), Enter to skip, q to finish."
    )
    answers: dict[str, list[str]] = {}
    flagged: set[str] = set()
    start = time.monotonic()
    order = list(items)
    review = False
    while order:
        for n, it in enumerate(order, 1):
            left = max(0, int(budget - (time.monotonic() - start)))
            print(
                f"\n[{n}/{len(order)}{' review' if review else ''}] {it.id} ({it.task})  "
                f"time left {left // 60}:{left % 60:02d}"
            )
            print(it.scenario)
            print(it.stem)
            for o in it.options:
                print(f"  {o.id}. {o.text}")
            letters = {o.id for o in it.options}
            while True:
                try:
                    line = input("> ").strip()
                except EOFError:
                    line = "q"
                typed = {c.strip().upper() for c in line.rstrip("?").split(",") if c.strip()}
                if line.lower() == "q" or typed <= letters:
                    break
                print(
                    f"  choose among {', '.join(sorted(letters))} (or Enter to skip, q to finish)"
                )
            if line.lower() == "q":
                order = []
                break
            if line.endswith("?"):
                flagged.add(it.id)
                line = line[:-1]
            else:
                flagged.discard(it.id)
            chosen = sorted({c.strip().upper() for c in line.split(",") if c.strip()})
            if chosen:
                answers[it.id] = chosen
        else:
            order = [it for it in items if it.id in flagged] if not review else []
            review = True
            if order:
                print(f"\n{len(order)} flagged items to review.")
    elapsed = int(time.monotonic() - start)
    print(f"\ntime used {elapsed // 60}:{elapsed % 60:02d}\n")
    ids = [it.id for it in items]
    if args.out:
        Path(args.out).write_text(
            json.dumps(
                {"items": ids, "answers": answers, "flagged": sorted(flagged), "seed": seed},
                ensure_ascii=False,
                indent=2,
            ),
            encoding="utf-8",
        )
    return _report(bank, ids, answers, flagged, False, not args.no_record)
