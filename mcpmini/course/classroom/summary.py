"""The class at a glance, for the instructor's summary notebook: pure tables from grade
rows (:func:`score_table`, :func:`success_rates`, :func:`common_wrong_answers`,
:func:`missing_learners`) and two drawers with Japanese labels (:func:`plot_scores`,
:func:`plot_success`). ``pandas`` and ``matplotlib`` are imported inside the functions.

A row counts as handed in unless its status is ``not_attempted`` with nothing handed in;
"fully correct" means every point of the exercise. Rows without an exercise (a notebook
that is no exercise) are left out of every table.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .execution import GradeRow, RowStatus

__all__ = [
    "common_wrong_answers",
    "missing_learners",
    "plot_scores",
    "plot_success",
    "score_table",
    "success_rates",
]

_NOTHING = "nothing handed in"


def _handed_in(row: GradeRow) -> bool:
    return not (row.status is RowStatus.NOT_ATTEMPTED and row.feedback == _NOTHING)


def _rows(rows: Iterable[GradeRow]) -> list[GradeRow]:
    return [r for r in rows if r.exercise]


def score_table(rows: Iterable[GradeRow]) -> Any:
    """A ``DataFrame``: a row per learner, a column per exercise (its score), ``合計``."""
    import pandas as pd

    data = _rows(rows)
    table = pd.DataFrame(
        [{"受講者": r.learner, "演習": r.exercise, "得点": r.score} for r in data]
    ).pivot_table(index="受講者", columns="演習", values="得点", aggfunc="max", fill_value=0)
    table["合計"] = table.sum(axis=1)
    return table


def success_rates(rows: Iterable[GradeRow]) -> Any:
    """A ``DataFrame`` per exercise: ``提出数``, ``全問正解率`` (share of hand-ins with every
    point, in %), ``平均得点率`` (mean score / max over hand-ins, in %)."""
    import pandas as pd

    data = [r for r in _rows(rows) if _handed_in(r)]
    out = []
    for exercise in sorted({r.exercise for r in data}):
        mine = [r for r in data if r.exercise == exercise]
        full = sum(1 for r in mine if r.max_score and r.score == r.max_score)
        mean = sum(r.score / r.max_score for r in mine if r.max_score) / len(mine)
        out.append(
            {
                "演習": exercise,
                "提出数": len(mine),
                "全問正解率": round(100 * full / len(mine), 1),
                "平均得点率": round(100 * mean, 1),
            }
        )
    return pd.DataFrame(out).set_index("演習")


def _leaves(answer: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(answer, Mapping):
        return {prefix: answer} if prefix else {}
    out: dict[str, Any] = {}
    for key, value in answer.items():
        out.update(_leaves(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def common_wrong_answers(rows: Iterable[GradeRow], top: int = 3) -> Any:
    """A ``DataFrame`` of the most common wrong values per part: ``演習``, ``設問``,
    ``誤答``, ``人数`` (at most ``top`` per part, most frequent first). Only rows whose
    answer was read are counted; blank parts are not wrong answers."""
    import pandas as pd

    from ..catalogue import get_exercise

    counts: dict[tuple[str, str], Counter[str]] = {}
    for row in _rows(rows):
        if row.answer is None:
            continue
        ex = get_exercise(row.exercise)
        values = _leaves(row.answer)
        for part, result in zip(ex.parts, ex.grade(row.answer).results, strict=True):
            if result.status.value == "incorrect":
                shown = json.dumps(values.get(part.key), ensure_ascii=False, sort_keys=True)
                counts.setdefault((row.exercise, part.key), Counter())[shown] += 1
    out = [
        {"演習": exercise, "設問": key, "誤答": value, "人数": n}
        for (exercise, key), counter in sorted(counts.items())
        for value, n in counter.most_common(top)
    ]
    frame = pd.DataFrame(out, columns=["演習", "設問", "誤答", "人数"])
    return frame.sort_values(["人数", "演習", "設問"], ascending=[False, True, True])


def missing_learners(
    rows: Iterable[GradeRow], exercises: Sequence[str] = ()
) -> dict[str, list[str]]:
    """Per learner, the exercises (of ``exercises``, default the article's) they did not
    hand in; learners who handed in everything are left out."""
    from ..catalogue import EXERCISE_IDS

    wanted = tuple(exercises) or EXERCISE_IDS
    data = _rows(rows)
    handed = {(r.learner, r.exercise) for r in data if _handed_in(r)}
    out = {}
    for learner in sorted({r.learner for r in data}):
        lacking = [e for e in wanted if (learner, e) not in handed]
        if lacking:
            out[learner] = lacking
    return out


def plot_scores(rows: Iterable[GradeRow], ax: Any = None) -> Any:
    """A histogram of the learners' total scores (Japanese labels); returns the figure."""
    from ..plots import figure

    table = score_table(rows)
    fig, ax = figure(ax, (6, 3), 80)
    top = sum(_max_scores(table.columns))
    ax.hist(table["合計"], bins=range(0, top + 2), color="#4878a8", edgecolor="white")
    ax.set_title("合計点の分布")
    ax.set_xlabel(f"合計点（満点 {top}）")
    ax.set_ylabel("人数")
    fig.tight_layout()
    return fig


def _max_scores(columns: Iterable[str]) -> list[int]:
    from ..catalogue import get_exercise

    return [get_exercise(c).max_score for c in columns if c != "合計"]


def plot_success(rows: Iterable[GradeRow], ax: Any = None) -> Any:
    """Bars of each exercise's fully-correct and mean score rates (%); returns the figure."""
    from ..plots import figure

    rates = success_rates(rows)
    fig, ax = figure(ax, (6, 3), 80)
    xs = range(len(rates))
    ax.bar([x - 0.2 for x in xs], rates["全問正解率"], width=0.4, label="全問正解率")
    ax.bar([x + 0.2 for x in xs], rates["平均得点率"], width=0.4, label="平均得点率")
    ax.set_xticks(list(xs), [f"演習 {e}" for e in rates.index])
    ax.set_ylim(0, 100)
    ax.set_ylabel("割合（%）")
    ax.set_title("演習ごとの正答率（提出者のうち）")
    ax.legend()
    fig.tight_layout()
    return fig
