"""The class at a glance, for the instructor's summary notebook: pure tables from grade
rows (:func:`score_table`, :func:`success_rates`, :func:`common_wrong_answers`,
:func:`missing_learners`) and two drawers (:func:`plot_scores`, :func:`plot_success`).
``pandas`` and ``matplotlib`` are imported inside the functions.

Every column name, title and axis label is a :class:`~mcpmini.course.language.Text` of
:data:`WORDS`, given in the current language. Scores are the points that count (after any
late penalty). A row counts as handed in unless its status is ``not_attempted`` with nothing
handed in; "fully correct" means every point of the exercise. Rows without an exercise (a
notebook that is no exercise) and rows of exercises an assignment did not set (maximum 0) are
left out of every table. With several assignments the score table has one column per
assignment and exercise.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..language import Text
from .execution import GradeRow, RowStatus

__all__ = [
    "NOTHING",
    "WORDS",
    "common_wrong_answers",
    "missing_learners",
    "plot_scores",
    "plot_success",
    "score_table",
    "success_rates",
    "summary_line",
]

#: The feedback of a row for an exercise nothing was handed in for (:func:`.batch.job_row`).
NOTHING = Text("提出なし", "nothing handed in")
#: Every label of the tables and plots.
WORDS: dict[str, Text] = {
    "learner": Text("受講者", "learner"),
    "exercise": Text("演習", "exercise"),
    "score": Text("得点", "score"),
    "total": Text("合計", "total"),
    "handed_in": Text("提出数", "handed in"),
    "full": Text("全問正解率", "fully correct (%)"),
    "mean": Text("平均得点率", "mean score (%)"),
    "part": Text("設問", "part"),
    "wrong": Text("誤答", "wrong answer"),
    "count": Text("人数", "learners"),
    "hist_title": Text("合計点の分布", "Total scores"),
    "hist_x": Text("合計点（満点 {top}）", "total score (out of {top})"),
    "bars_title": Text(
        "演習ごとの正答率（提出者のうち）", "Success by exercise (of those who handed in)"
    ),
    "bars_y": Text("割合（%）", "share (%)"),
    "bar_label": Text("演習 {id}", "Exercise {id}"),
    "rows": Text("{rows} 行、受講者 {learners} 人", "{rows} rows, {learners} learners"),
    "complete": Text(
        "全部そろっている受講者: {names}", "Learners who handed in everything: {names}"
    ),
    "lacking": Text("{learner}: {exercises}", "{learner}: {exercises}"),
    "pages": Text(
        "{pages} ページ、ページを書かなかった行 {skipped}",
        "{pages} pages, {skipped} rows without a page",
    ),
}


def summary_line(name: str, **fields: Any) -> str:
    """One line of the summary notebook, :data:`WORDS` ``name`` formatted, in the learner's
    language (``rows``, ``complete``, ``lacking``, ``pages``)."""
    return _w(name, **fields)


def _w(name: str, **kwargs: Any) -> str:
    return WORDS[name].lang().format(**kwargs)


def _handed_in(row: GradeRow) -> bool:
    nothing = row.feedback in (NOTHING.ja, NOTHING.en)  # a CSV written in either language
    return not (row.status is RowStatus.NOT_ATTEMPTED and nothing)


def _rows(rows: Iterable[GradeRow]) -> list[GradeRow]:
    return [r for r in rows if r.exercise and r.max_score]


def _column(row: GradeRow, several: bool) -> str:
    return f"{row.assignment} {row.exercise}" if several else row.exercise


def score_table(rows: Iterable[GradeRow]) -> Any:
    """A ``DataFrame``: a row per learner, a column per exercise (its points; with several
    assignments, per assignment and exercise), and the total."""
    import pandas as pd

    data = _rows(rows)
    several = len({r.assignment for r in data}) > 1
    learner, exercise, score = _w("learner"), _w("exercise"), _w("score")
    table = pd.DataFrame(
        [{learner: r.learner, exercise: _column(r, several), score: r.points} for r in data]
    ).pivot_table(index=learner, columns=exercise, values=score, aggfunc="max", fill_value=0)
    table[_w("total")] = table.sum(axis=1)
    return table


def success_rates(rows: Iterable[GradeRow]) -> Any:
    """A ``DataFrame`` per exercise: how many handed it in, the share of hand-ins with every
    point (%), and the mean points / max over hand-ins (%)."""
    import pandas as pd

    data = [r for r in _rows(rows) if _handed_in(r)]
    out = []
    for exercise in sorted({r.exercise for r in data}):
        mine = [r for r in data if r.exercise == exercise]
        full = sum(1 for r in mine if r.points == r.max_score)
        mean = sum(r.points / r.max_score for r in mine) / len(mine)
        out.append(
            {
                _w("exercise"): exercise,
                _w("handed_in"): len(mine),
                _w("full"): round(100 * full / len(mine), 1),
                _w("mean"): round(100 * mean, 1),
            }
        )
    columns = [_w("exercise"), _w("handed_in"), _w("full"), _w("mean")]
    return pd.DataFrame(out, columns=columns).set_index(_w("exercise"))


def _leaves(answer: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(answer, Mapping):
        return {prefix: answer} if prefix else {}
    out: dict[str, Any] = {}
    for key, value in answer.items():
        out.update(_leaves(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def common_wrong_answers(rows: Iterable[GradeRow], top: int = 3) -> Any:
    """A ``DataFrame`` of the most common wrong values per part: exercise, part, the wrong
    value and how many gave it (at most ``top`` per part, most frequent first). Only rows
    whose answer was read are counted; blank parts are not wrong answers."""
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
    names = [_w("exercise"), _w("part"), _w("wrong"), _w("count")]
    out = [
        dict(zip(names, (exercise, key, value, n), strict=True))
        for (exercise, key), counter in sorted(counts.items())
        for value, n in counter.most_common(top)
    ]
    frame = pd.DataFrame(out, columns=names)
    order = [names[3], names[0], names[1]]
    return frame.sort_values(order, ascending=[False, True, True], ignore_index=True)


def missing_learners(
    rows: Iterable[GradeRow], exercises: Sequence[str] = ()
) -> dict[str, list[str]]:
    """Per learner, the exercises set for them (a row of each is made for every exercise an
    assignment set) that they did not hand in — only those of ``exercises`` when given;
    learners who handed in everything are left out. With several assignments an exercise is
    named with its assignment (``week1 9.1``)."""
    data = _rows(rows)
    several = len({r.assignment for r in data}) > 1
    out: dict[str, list[str]] = {}
    for row in sorted(data, key=lambda r: (r.learner, r.assignment, r.exercise)):
        if _handed_in(row) or (exercises and row.exercise not in exercises):
            continue
        out.setdefault(row.learner, []).append(_column(row, several))
    return out


def plot_scores(rows: Iterable[GradeRow], ax: Any = None) -> Any:
    """A histogram of the learners' total points; returns the figure."""
    from ..plots import figure

    data = _rows(rows)
    table = score_table(data)
    fig, ax = figure(ax, (6, 3), 80)
    tops: dict[str, int] = {}
    for row in data:  # each learner's maximum: the rows made for them
        tops[row.learner] = tops.get(row.learner, 0) + row.max_score
    top = max(tops.values(), default=0)
    ax.hist(table[_w("total")], bins=range(0, top + 2), color="#4878a8", edgecolor="white")
    ax.set_title(_w("hist_title"))
    ax.set_xlabel(_w("hist_x", top=top))
    ax.set_ylabel(_w("count"))
    fig.tight_layout()
    return fig


def plot_success(rows: Iterable[GradeRow], ax: Any = None) -> Any:
    """Bars of each exercise's fully-correct and mean score rates (%); returns the figure."""
    from ..plots import figure

    rates = success_rates(rows)
    fig, ax = figure(ax, (6, 3), 80)
    xs = range(len(rates))
    full, mean = _w("full"), _w("mean")
    ax.bar([x - 0.2 for x in xs], rates[full], width=0.4, label=full)
    ax.bar([x + 0.2 for x in xs], rates[mean], width=0.4, label=mean)
    ax.set_xticks(list(xs), [_w("bar_label", id=e) for e in rates.index])
    ax.set_ylim(0, 100)
    ax.set_ylabel(_w("bars_y"))
    ax.set_title(_w("bars_title"))
    ax.legend()
    fig.tight_layout()
    return fig
