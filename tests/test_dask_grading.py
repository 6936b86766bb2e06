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


def test_a_scheduler_off_this_machine_without_tls_is_refused_before_anything_is_written(
    tmp_path, capsys
):
    out = tmp_path / "g.csv"
    for address, why in (
        ("tcp://192.0.2.7:8786", "without TLS"),
        ("192.0.2.7:8786", "tls://"),
        ("tls://192.0.2.7:8786", "certificates"),
        ("ucx://127.0.0.1:8786", "tls://"),
    ):
        code = main(
            [
                *("grade", str(CLASS / "chen"), "--out", str(out), "--no-progress"),
                "--scheduler",
                address,
            ]
        )
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and why in err[0] and address in err[0]
        assert not out.exists()


def test_the_class_certificates_are_made_once_and_keys_stay_private(tmp_path, capsys):
    import stat

    from mcpmini.course.classroom.cluster import CERT_FILES

    folder = tmp_path / "certs"
    assert main(["grade-certs", str(folder), "--host", "10.0.0.5", "--host", "grading"]) == 0
    assert "dask scheduler --protocol tls" in capsys.readouterr().out
    assert sorted(p.name for p in folder.iterdir()) == sorted(CERT_FILES)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in CERT_FILES:
        mode = stat.S_IMODE((folder / name).stat().st_mode)
        assert mode == (0o600 if name.endswith("-key.pem") else 0o644), name
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert main(["grade-certs", str(folder)]) == 2  # never over a class's existing authority
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert "exists" in capsys.readouterr().err
    assert main(["grade-certs", str(tmp_path / "c2"), "--host", "a b"]) == 2


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    from attack_support import require_bubblewrap
    from distributed.security import Security

    from mcpmini.course.classroom.cluster import make_certificates

    require_bubblewrap()
    folder = tmp_path_factory.mktemp("tls") / "certs"
    make_certificates(folder, ["127.0.0.1"])

    def side(role: str) -> Security:
        return Security(
            tls_ca_file=str(folder / "ca.pem"),
            tls_scheduler_cert=str(folder / "scheduler.pem"),
            tls_scheduler_key=str(folder / "scheduler-key.pem"),
            tls_worker_cert=str(folder / "worker.pem"),
            tls_worker_key=str(folder / "worker-key.pem"),
            tls_client_cert=str(folder / "client.pem"),
            tls_client_key=str(folder / "client-key.pem"),
            require_encryption=True,
        )

    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        protocol="tls://",
        host="127.0.0.1",
        security=side("cluster"),
        silence_logs=50,
    ) as lc:
        yield lc, folder


def test_grading_over_tls_gives_the_local_rows_and_a_client_without_the_class_key_is_kept_out(
    tls_cluster, tmp_path
):
    cluster, folder = tls_cluster
    address = cluster.scheduler_address
    assert address.startswith("tls://")
    out = tmp_path / "grades.csv"
    code = main(
        [
            *("grade", str(CLASS / "chen"), str(CLASS / "gus"), "--out", str(out)),
            *("--no-progress", "--timeout", "8", "--scheduler", address, "--tls", str(folder)),
        ]
    )
    assert code == 0
    assert read_grades(out) == _sample("chen", "gus")
    # a learner's process with certificates of its own (another authority) gets nothing
    from mcpmini.course.classroom import grade_class
    from mcpmini.course.classroom.cluster import make_certificates, security_from

    stranger = tmp_path / "stranger"
    make_certificates(stranger, ["127.0.0.1"])
    with pytest.raises(RuntimeError, match="cannot reach"):
        grade_class(
            [CLASS / "gus"],
            tmp_path / "g2.csv",
            progress=False,
            scheduler=address,
            security=security_from(stranger),
            connect_timeout=3,
        )
