"""The instructor guide's tables come from the measurements: run times in seconds as measured
(an exercise's too, never rounded away), every planned notebook measured, the class times."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpmini.course.classroom.guide import (
    PLANS,
    class_table,
    plan_table,
    read_measurement,
    run_table,
)
from mcpmini.course.language import use

INSTRUCTOR = Path(__file__).resolve().parents[1] / "notebooks" / "instructor"


def test_every_notebook_a_plan_names_exists_and_was_measured():
    measured = read_measurement(INSTRUCTOR / "run_times.json")
    timed = {r["notebook"] for r in measured["notebooks"]}
    root = INSTRUCTOR.parents[1]
    for rows in PLANS.values():
        for notebook, minutes, _ in rows:
            assert minutes > 0
            if notebook:
                assert (root / notebook).is_file() and notebook in timed, notebook


def test_the_plan_keeps_seconds_and_adds_them_to_the_total():
    measured = {
        "notebooks": [
            {"notebook": n, "seconds": 4.9, "error": ""}
            for rows in PLANS.values()
            for n, _, _ in rows
            if n
        ]
    }
    frame, total = plan_table("three_hours", measured)
    runs = frame.iloc[:, 3].tolist()
    assert [r for r in runs if r] == [4.9] * 9  # an exercise's 4.9 s is 4.9, not 0.0 minutes
    minutes = sum(m for _, m, _ in PLANS["three_hours"])
    assert f"{minutes + 9 * 4.9 / 60:.0f}" in total and "44" in total
    with use("en"):
        frame, total = plan_table("three_hours", measured)
    assert list(frame.columns) == ["what", "notebook", "teaching and work (min)", "run (s)"]
    assert total.startswith("About") and "Exercise 9.1" in frame.iloc[:, 0].tolist()
    with pytest.raises(KeyError):
        plan_table("three_hours", {"notebooks": []})


def test_the_measured_tables_read_the_committed_files():
    assert len(run_table(read_measurement(INSTRUCTOR / "run_times.json"))) >= 40
    table = class_table(read_measurement(INSTRUCTOR / "class_times.json"))
    assert table.iloc[:, 0].tolist() == [30, 30]
