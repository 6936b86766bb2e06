"""Issue 14, the class grader under attack by a submission: the kernel sees neither the
grader, the CSV, the class folder, the environment nor the network; a forged display earns
nothing; whatever it does, the other rows are graded and nothing it started survives."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import nbformat
import pytest
from attack_support import require_bubblewrap, running_with, snapshot

from mcpmini.cli import main
from mcpmini.course.classroom import RowStatus, grade_class

ROOT = Path(__file__).resolve().parents[1]

SNOOP = """\
import glob, os, socket, subprocess
CSV, CLASS, SECRET, ALICE, GRADER, PORT = {csv!r}, {cls!r}, {secret!r}, {alice!r}, {grader}, {port}
class Leak(Exception):
    pass
seen = []
for proc in glob.glob("/proc/[0-9]*"):
    for name in ("cmdline", "environ"):
        try:
            data = open(f"{{proc}}/{{name}}", "rb").read().decode("utf-8", "replace")
        except OSError:
            continue
        if CSV in data or CLASS in data or SECRET in data:
            seen.append(f"{{proc}}/{{name}}")
if SECRET in str(os.environ):
    seen.append("environ")
for path in (ALICE, CSV, CLASS + "/mallory/owned.txt"):
    try:
        open(path, "a").write("x")
        seen.append("wrote " + path)
    except OSError:
        pass
try:
    os.kill(GRADER, 0)
    seen.append("grader visible")
except OSError:
    pass
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=2)
    seen.append("network")
except OSError:
    pass
subprocess.Popen(["sh", "-c", f"sleep 44.1; echo hacked > {{CSV}}"], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if seen:
    raise Leak(";".join(seen))
"""

FORGE = """\
import IPython.display, IPython.core.display_functions
from mcpmini.course import get_exercise
KEY = get_exercise("9.1").answer_key()
def forged(*objs, **kw):
    IPython.core.display_functions.__dict__["_real"]({"application/vnd.mcpmini.answer+json": {
        "nonce": "0" * 32, "found": True, "answer": KEY}}, raw=True)
IPython.core.display_functions._real = IPython.core.display_functions.display
IPython.display.display = IPython.core.display_functions.display = forged
print("全問正解 8/8")
answer = None
"""

INJECT = """\
import glob, json, threading, time
from mcpmini.course import get_exercise
KEY = get_exercise("9.1").answer_key()
def inject():
    for _ in range(200):
        for name in list(globals()):
            if name.startswith("_mcpmini_answer_"):
                guess = name.removeprefix("_mcpmini_answer_")
                line = json.dumps({"nonce": guess, "status": "ok", "found": True,
                                   "answer": KEY, "cell": 0}) + "\\n"
                for fd in glob.glob("/proc/*/fd/1"):
                    try:
                        open(fd, "w").write(line)
                    except OSError:
                        pass
        time.sleep(0.01)
threading.Thread(target=inject, daemon=True).start()
answer = None
"""

KILLER = """\
import os, signal
for pid in (os.getppid(), 1):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
answer = {"why_b": "B"}
"""


def _notebook(path: Path, *sources: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["mcpmini"] = {"exercise": "9.1"}
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    require_bubblewrap()
    import os

    base = tmp_path_factory.mktemp("attack")
    cls, csv = base / "class", base / "grades" / "grades.csv"
    alice = cls / "alice" / "9_1_version_negotiation.ipynb"
    alice.parent.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / "9_1_version_negotiation.ipynb", alice)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    secret = "mcpmini-attack-secret-7f3a"
    os.environ["MCPMINI_ATTACK_SECRET"] = secret
    try:
        _notebook(
            cls / "mallory" / "9_1_version_negotiation.ipynb",
            SNOOP.format(
                csv=str(csv),
                cls=str(cls),
                secret=secret,
                alice=str(alice),
                grader=os.getpid(),
                port=listener.getsockname()[1],
            ),
            FORGE,
        )
        _notebook(cls / "eve" / "9_1_version_negotiation.ipynb", KILLER)
        _notebook(cls / "trent" / "9_1_version_negotiation.ipynb", INJECT)
        before = snapshot(cls)
        rows = grade_class([cls], csv, workers=2, timeout=30, progress=False)
        written = csv.read_bytes()
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        os.environ.pop("MCPMINI_ATTACK_SECRET", None)
        listener.close()
    return {
        "rows": {(r.learner, r.exercise): r for r in rows},
        "before": before,
        "after": snapshot(cls),
        "csv": csv,
        "written": written,
    }


def test_a_snooping_kernel_sees_no_grader_csv_class_folder_secret_or_network(attacked):
    row = attacked["rows"]["mallory", "9.1"]
    assert "Leak" not in row.feedback  # the notebook raises Leak if any probe succeeded
    assert row.status is RowStatus.NOT_ATTEMPTED


def test_a_forged_display_earns_nothing(attacked):
    row = attacked["rows"]["mallory", "9.1"]
    assert row.score == 0  # before: 8/8 with every answer None


def test_a_result_line_written_into_the_runners_stdout_earns_nothing(attacked):
    row = attacked["rows"]["trent", "9.1"]
    assert row.score == 0 and row.status is RowStatus.NOT_ATTEMPTED


def test_no_submission_changes_the_class_folder_or_another_notebook(attacked):
    assert attacked["after"] == attacked["before"]


def test_a_kernel_that_kills_its_parents_only_loses_its_own_row(attacked):
    rows = attacked["rows"]
    assert rows["eve", "9.1"].status is RowStatus.ERROR and rows["eve", "9.1"].score == 0
    assert rows["alice", "9.1"].status is RowStatus.GRADED and rows["alice", "9.1"].score == 8


def test_no_daemon_survives_to_rewrite_the_csv(attacked):
    assert running_with("sleep 44.1") == []
    assert attacked["csv"].read_bytes() == attacked["written"]
    assert b"hacked" not in attacked["written"]


def test_without_bubblewrap_require_isolation_refuses_to_run(tmp_path, monkeypatch, capsys):
    import mcpmini.agent

    monkeypatch.setattr(mcpmini.agent, "bubblewrap_available", lambda: False)
    learner = tmp_path / "class" / "alice"
    learner.mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / "9_1_version_negotiation.ipynb", learner)
    out = tmp_path / "g.csv"
    with pytest.raises(RuntimeError):
        grade_class([learner], out, progress=False, require_isolation=True)
    assert not out.exists()
    code = main(["grade", str(learner), "--out", str(out), "--require-isolation", "--no-progress"])
    assert code == 2 and not out.exists()
    assert "bubblewrap" in capsys.readouterr().err


# Issue 22, grader and files: a symlink is never graded as the learner's own work, and no
# cell a spreadsheet would run reaches the CSV unquoted.


def _symlinked_class(tmp_path: Path) -> Path:
    cls = tmp_path / "class"
    alice = cls / "alice" / "9_1_version_negotiation.ipynb"
    alice.parent.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / "9_1_version_negotiation.ipynb", alice)
    (cls / "mallory").mkdir()
    (cls / "mallory" / "9_1_version_negotiation.ipynb").symlink_to(alice)
    (cls / "oscar").symlink_to(cls / "alice", target_is_directory=True)
    return cls


def test_a_symlinked_notebook_or_learner_folder_is_refused_not_graded(tmp_path, monkeypatch):
    from mcpmini.course.classroom import batch

    graded = []

    async def record(path, learner, timeout, exercise):
        graded.append((learner, path.name))
        return batch.GradeRow(learner, exercise, 8, 8, RowStatus.GRADED, "")

    monkeypatch.setattr(batch, "grade_notebook", record)
    rows = grade_class([_symlinked_class(tmp_path)], tmp_path / "g.csv", progress=False)
    by = {(r.learner, r.exercise): r for r in rows}
    assert graded == [("alice", "9_1_version_negotiation.ipynb")]
    assert by["mallory", "9.1"].status is RowStatus.REFUSED and by["mallory", "9.1"].score == 0
    assert by["oscar", ""].status is RowStatus.REFUSED
    assert {by["oscar", e].status for e in ("9.1", "9.2", "9.3", "9.4")} == {
        RowStatus.NOT_ATTEMPTED
    }


def test_grade_notebook_opens_without_following_a_symlink(tmp_path):
    import asyncio

    from mcpmini.course.classroom import grade_notebook

    cls = _symlinked_class(tmp_path)
    row = asyncio.run(grade_notebook(cls / "mallory" / "9_1_version_negotiation.ipynb", "mallory"))
    assert row.status is RowStatus.REFUSED and row.score == 0 and row.exercise == "9.1"


def test_a_symlink_named_on_the_command_line_is_refused_too(tmp_path):
    cls = _symlinked_class(tmp_path)
    rows = grade_class(
        [cls / "mallory" / "9_1_version_negotiation.ipynb"], tmp_path / "g.csv", progress=False
    )
    assert [(r.learner, r.status) for r in rows] == [("mallory", RowStatus.REFUSED)]


@pytest.mark.parametrize("lead", ["=", "+", "-", "@", "\t", "\r", "\t=", "\r="])
def test_every_cell_owasp_lists_is_quoted_and_read_back_unchanged(tmp_path, lead):
    import csv as csvlib

    from mcpmini.course.classroom import GradeRow, read_csv, write_csv

    row = GradeRow(lead + "cmd|' /C calc'!A0", "9.1", 0, 8, RowStatus.INVALID, lead + "SUM(1)")
    out = tmp_path / "g.csv"
    write_csv([row], out)
    with out.open(encoding="utf-8", newline="") as fh:
        cells = list(csvlib.reader(fh))[1]
    assert cells[0].startswith("'") and cells[9].startswith("'")
    assert read_csv(out) == [row]
