"""``mcpmini grade --scheduler``: the same rows on a Dask cluster as on this machine (the
committed sample is the local run, pinned by tests/test_batch.py), a worker that dies
mid-batch loses and doubles nothing, and a scheduler that cannot be reached is one line."""

from __future__ import annotations

import csv
import os
import signal
import socket
from pathlib import Path

import pytest

from mcpmini.cli import main
from mcpmini.course.classroom import grade_class, read_grades

distributed = pytest.importorskip("distributed", reason="distributed is not installed")

CLASS = Path(__file__).resolve().parent / "fixtures" / "class"
SAMPLE = CLASS.parent / "class_grades" / "grades.csv"


@pytest.fixture(scope="module")
def cluster():
    from attack_support import require_bubblewrap

    require_bubblewrap()
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_port=0,
        host="127.0.0.1",
        silence_logs=50,
    ) as lc:
        yield lc


def _sample(*learners: str):
    return [r for r in read_grades(SAMPLE) if r.learner in learners]


def test_the_cluster_writes_the_same_csv_as_a_local_run(cluster, tmp_path):
    learners = ("chen", "emil", "gus", "mo", "nia")
    out = tmp_path / "grades.csv"
    rows = grade_class(
        [CLASS / name for name in learners],
        out,
        timeout=8,
        progress=False,
        scheduler=cluster.scheduler_address,
    )
    want = _sample(*learners)
    assert rows == want
    assert [r.answer for r in read_grades(out)] == [r.answer for r in want]
    local = tmp_path / "local.csv"
    from mcpmini.course.classroom import write_csv

    write_csv(want, local)
    assert out.read_bytes() == local.read_bytes()


def test_a_worker_killed_mid_batch_loses_and_doubles_nothing(cluster, tmp_path):

    learners = ("jun", "lea")
    seen = []

    def kill_a_worker_after_the_first_row(row):
        seen.append((row.learner, row.exercise))
        if len(seen) == 1:
            nanny = next(iter(cluster.workers.values()))
            os.kill(nanny.process.pid, signal.SIGKILL)  # the worker, not the nanny

    out = tmp_path / "grades.csv"
    rows = grade_class(
        [CLASS / name for name in learners],
        out,
        timeout=8,
        progress=False,
        scheduler=cluster.scheduler_address,
        on_row=kill_a_worker_after_the_first_row,
    )
    from mcpmini.course.classroom import find_submissions

    assert len(seen) == len(find_submissions([CLASS / name for name in learners]))  # once each
    assert rows == _sample(*learners)
    with out.open(encoding="utf-8", newline="") as fh:
        assert len(list(csv.reader(fh))) == len(rows) + 1
    import psutil

    left = [
        child.pid
        for nanny in cluster.workers.values()
        for child in psutil.Process(nanny.process.pid).children(recursive=True)
        if "_serve" in " ".join(child.cmdline())
    ]
    assert left == []  # no notebook runner outlives its task on a worker


def test_resume_on_the_cluster_grades_only_what_is_missing(cluster, tmp_path):
    out = tmp_path / "grades.csv"
    first = grade_class([CLASS / "chen"], out, timeout=8, progress=False)
    seen = []
    again = grade_class(
        [CLASS / "chen"],
        out,
        timeout=8,
        progress=False,
        resume=True,
        scheduler=cluster.scheduler_address,
        on_row=seen.append,
    )
    assert again == first and seen == []


def test_a_scheduler_that_cannot_be_reached_is_one_line_and_exit_two(tmp_path, capsys):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "g.csv"
    code = main(
        [
            *("grade", str(CLASS / "chen"), "--out", str(out), "--no-progress"),
            *("--scheduler", f"tcp://127.0.0.1:{port}", "--connect-timeout", "1"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "scheduler" in err
