"""Local progress: the learner's results, kept in one small JSON file.

:func:`progress_path` finds the file: the path in ``$MCPMINI_PROGRESS`` when set (the value
``off`` turns recording off; the batch grader sets it so learners' notebooks never write
into the instructor's file), otherwise ``progress.json`` in the user data directory that
``platformdirs`` gives. :func:`record_progress` keeps, per exercise, the latest result, the
best score and the number of checks, plus a tally of practice instances; it writes through
a temporary file and ``os.replace`` so a crash never leaves half a file. :func:`summary`
turns the file into rows whose labels are honest: "all correct" only when every part of
every exercise is correct.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from .. import jsonfile
from ..errors import ConfigError
from .language import Text

__all__ = [
    "PROGRESS_ENV",
    "Graded",
    "GradedQuiz",
    "load_progress",
    "progress_path",
    "quiz_summary",
    "record_progress",
    "record_quiz",
    "summary",
]

PROGRESS_ENV = "MCPMINI_PROGRESS"

#: The labels of :func:`summary`, in both languages.
LABELS = {
    "not_started": Text("未着手", "not started"),
    "correct": Text("全問正解", "all correct"),
    "wrong": Text("不正解 {n}", "{n} incorrect"),
    "open": Text("未回答 {n}", "{n} not answered"),
    "changed": Text(
        "採点の対象が変わりました。もう一度 check してください",
        "the graded parts have changed: run check again",
    ),
    "partial": Text("{score}/{max} 正解（{rest}）", "{score}/{max} correct ({rest})"),
    "sep": Text("・", ", "),
}


class Graded(Protocol):
    """What :func:`record_progress` needs from a result (a :class:`~mcpmini.course.Report`).

    Declared here so that grading imports progress and never the other way round.
    """

    @property
    def exercise(self) -> str: ...

    @property
    def score(self) -> int: ...

    @property
    def status(self) -> str: ...  # a grading ``Status``: "correct", "not_attempted", …

    def to_dict(self) -> dict[str, Any]: ...


class GradedQuiz(Protocol):
    """What :func:`record_quiz` needs from a graded quiz (a CCA-F ``QuizReport``).

    ``results`` hold ``item`` and ``is_correct``; ``by_task`` holds ``id``, ``correct`` and
    ``total``. Declared here so that progress never imports a track.
    """

    @property
    def scaled(self) -> int: ...

    @property
    def passed(self) -> bool: ...

    @property
    def correct(self) -> int: ...

    @property
    def results(self) -> Sequence[Any]: ...

    @property
    def by_task(self) -> Sequence[Any]: ...


# --- progress --------------------------------------------------------------------------


def progress_path(environ: Mapping[str, str]) -> Path | None:
    """Where progress is kept: ``$MCPMINI_PROGRESS`` if set (``off`` → ``None``, no file),
    otherwise ``progress.json`` in the user data directory given by ``platformdirs``."""
    value = environ.get(PROGRESS_ENV)
    if value is not None and value.strip():
        return None if value.strip().lower() == "off" else Path(value).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("mcpmini", appauthor=False)) / "progress.json"


def load_progress(path: Path) -> dict[str, Any]:
    """Read the progress file; a missing file is empty progress.

    Returns ``{"exercises": {...}, "practice": {...}, "quiz": {...}}``. Raises :class:`ConfigError`
    (naming the file and line) when it is not valid JSON or not the expected shape.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"exercises": {}, "practice": {}, "quiz": {}}
    try:
        data = jsonfile.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON ({exc.msg})", str(path), line=exc.lineno) from None
    if not isinstance(data, dict):
        raise ConfigError("expected a JSON object", str(path), path="$")
    for key in ("exercises", "practice", "quiz"):
        data.setdefault(key, {})
        if not isinstance(data[key], dict):
            raise ConfigError("expected an object", str(path), path=key)
    return data


def record_progress(path: Path, report: Graded, *, practice: bool = False) -> None:
    """Add ``report`` to the progress file at ``path`` (written atomically).

    A main exercise keeps its latest result, its best score and the attempt count; a
    practice instance adds to the exercise's practice tally. A corrupt file is moved
    aside to ``<name>.corrupt`` (so nothing is lost) and a fresh one is started.
    Raises ``OSError`` when the file cannot be written.
    """
    data = _load_or_reset(path)
    now = datetime.now(UTC).isoformat(timespec="seconds")
    if practice:
        tally = data["practice"].setdefault(report.exercise, {"attempts": 0, "correct": 0})
        if report.status != "not_attempted":
            tally["attempts"] = int(tally.get("attempts", 0)) + 1
            tally["correct"] = int(tally.get("correct", 0)) + (report.status == "correct")
    else:
        old = data["exercises"].get(report.exercise, {})
        entry = report.to_dict()
        entry["best_score"] = max(int(old.get("best_score", 0)), report.score)
        entry["attempts"] = int(old.get("attempts", 0)) + 1
        entry["updated"] = now
        data["exercises"][report.exercise] = entry
    _write(path, data)


def _write(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def _load_or_reset(path: Path) -> dict[str, Any]:
    try:
        return load_progress(path)
    except ConfigError:
        path.replace(path.with_name(path.name + ".corrupt"))
        return {"exercises": {}, "practice": {}, "quiz": {}}


def record_quiz(path: Path, report: GradedQuiz) -> None:
    """Add a graded CCA-F quiz to the progress file at ``path`` (written atomically).

    Keeps the number of attempts, the best and the latest scaled score (with the ids of
    the items missed, for ``mcpmini quiz take --missed``), and per task statement the
    running totals of items right and asked. A corrupt file is moved aside
    like :func:`record_progress` does. Raises ``OSError`` when the file cannot be written.
    """
    data = _load_or_reset(path)
    quiz = data["quiz"]
    quiz["attempts"] = int(quiz.get("attempts", 0)) + 1
    quiz["best_scaled"] = max(int(quiz.get("best_scaled", 0)), report.scaled)
    quiz["last"] = {
        "scaled": report.scaled,
        "passed": report.passed,
        "correct": report.correct,
        "total": len(report.results),
        "missed": [r.item for r in report.results if not r.is_correct],
        "updated": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    tasks = quiz.setdefault("tasks", {})
    for t in report.by_task:
        entry = tasks.setdefault(t.id, {"correct": 0, "total": 0})
        entry["correct"] = int(entry.get("correct", 0)) + t.correct
        entry["total"] = int(entry.get("total", 0)) + t.total
    _write(path, data)


def quiz_summary(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per task statement answered so far: ``task``, ``correct``, ``total``,
    ``percent`` (running totals over every recorded quiz), in task order."""
    tasks = data.get("quiz", {}).get("tasks", {})
    rows = []
    for task, entry in tasks.items():
        correct, total = int(entry.get("correct", 0)), int(entry.get("total", 0))
        rows.append(
            {
                "task": task,
                "correct": correct,
                "total": total,
                "percent": round(100 * correct / total, 1) if total else 0.0,
            }
        )
    return sorted(
        rows, key=lambda r: tuple(int(p) for p in str(r["task"]).split(".") if p.isdigit())
    )


def summary(
    data: Mapping[str, Any], catalogue: Sequence[tuple[str, str, int]]
) -> list[dict[str, Any]]:
    """One row per exercise of ``catalogue`` (``(id, title, max_score)`` triples).

    Each row has ``exercise``, ``title``, ``score``, ``best_score``, ``max_score``,
    ``attempts``, ``practice`` (``"correct/attempts"``), ``state`` (``not_started``,
    ``correct`` — the latest check all correct — or ``open``) and ``label``, the state in the
    learner's language (未着手 / not started, 全問正解 / all correct, or the parts still open).
    """
    rows = []
    for exercise, title, max_score in catalogue:
        entry = data.get("exercises", {}).get(exercise)
        tally = data.get("practice", {}).get(exercise, {})
        practice = f"{tally.get('correct', 0)}/{tally.get('attempts', 0)}"
        if not isinstance(entry, Mapping):
            rows.append(
                {
                    "exercise": exercise,
                    "title": title,
                    "score": 0,
                    "best_score": 0,
                    "max_score": max_score,
                    "attempts": 0,
                    "practice": practice,
                    "state": "not_started",
                    "label": LABELS["not_started"].lang(),
                }
            )
            continue
        parts = entry.get("parts", {})
        wrong = sum(1 for v in parts.values() if v == "incorrect")
        open_ = sum(1 for v in parts.values() if v == "not_attempted")
        score = int(entry.get("score", 0))
        if parts and not wrong and not open_ and score == max_score:
            state, label = "correct", LABELS["correct"].lang()
        else:
            bits = [LABELS["wrong"].lang().format(n=wrong)] if wrong else []
            bits += [LABELS["open"].lang().format(n=open_)] if open_ else []
            if len(parts) != max_score and not bits:
                bits.append(LABELS["changed"].lang())
            state = "open"
            label = (
                LABELS["partial"]
                .lang()
                .format(score=score, max=max_score, rest=LABELS["sep"].lang().join(bits))
            )
        rows.append(
            {
                "exercise": exercise,
                "title": title,
                "score": score,
                "best_score": int(entry.get("best_score", score)),
                "max_score": max_score,
                "attempts": int(entry.get("attempts", 0)),
                "practice": practice,
                "state": state,
                "label": label,
            }
        )
    return rows
