"""``mcpmini collect``: hub homes and LMS zips into nbgrader's ``submitted/`` layout, every
candidate either copied or reported with its reason, nothing followed, nothing outside OUT."""

from __future__ import annotations

import csv
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from mcpmini.cli import main
from mcpmini.course.classroom import (
    CollectStatus,
    RosterError,
    collect_homes,
    collect_zip,
    find_submissions,
    parse_roster,
)

ROOT = Path(__file__).resolve().parents[1]
SOLVED = ROOT / "solutions" / "9_1_version_negotiation.ipynb"
BLANK = ROOT / "exercises" / "9_2_request_ids.ipynb"


@pytest.fixture
def homes(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    ada = root / "ada" / "exercises"
    ada.mkdir(parents=True)
    shutil.copy(SOLVED, ada / SOLVED.name)
    shutil.copy(SOLVED, ada / "9_1_version_negotiation-Copy1.ipynb")
    shutil.copy(BLANK, ada / BLANK.name)
    (ada / "todo.txt").write_text("not a candidate")
    ben = root / "ben" / "exercises"
    ben.mkdir(parents=True)
    (ben / SOLVED.name).symlink_to(ada / SOLVED.name)
    (root / "chen").mkdir()
    (root / "chen" / "exercises").symlink_to(ada, target_is_directory=True)
    dora = root / "dora" / "exercises"
    dora.mkdir(parents=True)
    (dora / "9_3_hook_failure.ipynb").write_text("{not json")
    (dora / "9_4_skill_reattach.ipynb").mkdir()  # a folder named like a notebook
    (dora / "notes.ipynb").write_bytes(SOLVED.read_bytes().replace(b'"9.1"', b'"x"'))
    (root / "eve").symlink_to(root / "ada", target_is_directory=True)
    (root / "Not_A_Learner").mkdir()
    (root / "fay").mkdir()  # logged in, handed in nothing
    return root


def _by(records):
    return {(r.learner, Path(r.source).name): r for r in records}


def test_hub_homes_are_copied_into_the_nbgrader_layout(homes, tmp_path):
    out = tmp_path / "course"
    records = collect_homes(homes, out)
    by = _by(records)
    assert by["ada", SOLVED.name].status is CollectStatus.COLLECTED
    assert by["ada", BLANK.name].status is CollectStatus.COLLECTED
    assert by["ada", "9_1_version_negotiation-Copy1.ipynb"].status is CollectStatus.DUPLICATE
    folder = out / "submitted" / "ada" / "exercises"
    assert (folder / SOLVED.name).read_bytes() == SOLVED.read_bytes()
    assert (folder / "timestamp.txt").is_file()
    assert ("ada", "todo.txt") not in by


def test_every_link_bad_file_and_bad_name_is_reported_never_copied(homes, tmp_path):
    out = tmp_path / "course"
    by = _by(collect_homes(homes, out))
    assert by["ben", SOLVED.name].status is CollectStatus.SYMLINK
    assert by["chen", "exercises"].status is CollectStatus.SYMLINK
    assert by["eve", "eve"].status is CollectStatus.SYMLINK
    assert by["dora", "9_3_hook_failure.ipynb"].status is CollectStatus.NOT_NOTEBOOK
    assert by["dora", "9_4_skill_reattach.ipynb"].status is CollectStatus.UNREADABLE
    assert by["dora", "notes.ipynb"].status is CollectStatus.NOT_EXERCISE
    assert by["Not_A_Learner", "Not_A_Learner"].status is CollectStatus.BAD_NAME
    copied = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.ipynb"))
    assert all(p.startswith("submitted/ada/") for p in copied) and len(copied) == 3
    assert not any(p.is_symlink() for p in out.rglob("*"))


def test_the_grader_reads_the_collected_course_folder_directly(homes, tmp_path):
    out = tmp_path / "course"
    collect_homes(homes, out)
    jobs = find_submissions([out])
    assert {j.learner for j in jobs} == {"ada", "ben", "chen", "dora", "fay"}
    handed = {(j.learner, j.exercise) for j in jobs if j.path is not None}
    assert handed == {("ada", "9.1"), ("ada", "9.2")}
    assert sum(1 for j in jobs if j.learner == "fay" and j.path is None) == 4
    assert find_submissions([out / "submitted"]) == jobs


def test_a_roster_names_who_is_collected_and_who_handed_in_nothing(homes, tmp_path):
    out = tmp_path / "course"
    by = _by(collect_homes(homes, out, roster=["ada", "gus"]))
    assert by["dora", "dora"].status is CollectStatus.NOT_ON_ROSTER
    assert (out / "submitted" / "gus" / "exercises").is_dir()
    assert not (out / "submitted" / "dora").exists()


def _zip(path: Path, entries: dict[str, bytes], links: tuple[str, ...] = ()) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "../../ada/exercises/9_1_version_negotiation.ipynb")
    return path


def test_an_lms_zip_is_split_by_learner_and_every_odd_entry_reported(tmp_path):
    solved, blank = SOLVED.read_bytes(), BLANK.read_bytes()
    archive = _zip(
        tmp_path / "downloads.zip",
        {
            "Ada_1203_9_1_version_negotiation.ipynb": solved,
            "ada_1500_9_1_version_negotiation.ipynb": solved,  # a resubmission
            "folder/ben_77_9_2_request_ids.ipynb": blank,
            "../../chen_5_9_2_request_ids.ipynb": blank,  # a path that tries to escape
            "dora_6_essay.docx": b"PK...",
            "dora_7_9_3.ipynb": b"\xff\xfe",
            "readme.ipynb": solved,
            "__MACOSX/._ada_1203_9_1_version_negotiation.ipynb": b"junk",
        },
        links=("eve_9_9_1_version_negotiation.ipynb",),
    )
    out = tmp_path / "course"
    records = collect_zip(archive, out)
    by = {r.source: r.status for r in records}
    assert by["Ada_1203_9_1_version_negotiation.ipynb"] is CollectStatus.COLLECTED
    assert by["ada_1500_9_1_version_negotiation.ipynb"] is CollectStatus.DUPLICATE
    assert by["folder/ben_77_9_2_request_ids.ipynb"] is CollectStatus.COLLECTED
    assert by["../../chen_5_9_2_request_ids.ipynb"] is CollectStatus.COLLECTED
    assert by["dora_6_essay.docx"] is CollectStatus.NOT_NOTEBOOK
    assert by["dora_7_9_3.ipynb"] is CollectStatus.NOT_NOTEBOOK
    assert by["readme.ipynb"] is CollectStatus.BAD_NAME
    assert by["eve_9_9_1_version_negotiation.ipynb"] is CollectStatus.SYMLINK
    assert len(records) == 8  # every entry but the __MACOSX resource fork
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.ipynb"))
    assert files == [
        "course/submitted/ada/exercises/9_1_version_negotiation-2.ipynb",
        "course/submitted/ada/exercises/9_1_version_negotiation.ipynb",
        "course/submitted/ben/exercises/9_2_request_ids.ipynb",
        "course/submitted/chen/exercises/9_2_request_ids.ipynb",
    ]


def test_a_file_that_is_not_a_zip_is_refused(tmp_path):
    bad = tmp_path / "x.zip"
    bad.write_text("no")
    with pytest.raises(ValueError):
        collect_zip(bad, tmp_path / "course")


def test_the_roster_refuses_duplicate_and_invalid_names_naming_the_line():
    assert parse_roster("# class A\nada\n\nben  # late\n") == ["ada", "ben"]
    with pytest.raises(RosterError, match=":3:"):
        parse_roster("ada\nben\nada\n")
    for bad in ("Ada", "a_b", "../x", "-x", "a" * 33, "a..b", "x y", "ａｄａ"):
        with pytest.raises(RosterError):
            parse_roster(f"ok\n{bad}\n")
    with pytest.raises(RosterError):
        parse_roster("# nobody\n")


def test_the_collect_command_reports_problems_and_exits_one(homes, tmp_path, capsys):
    out, report = tmp_path / "course", tmp_path / "report.csv"
    assert main(["collect", str(homes), "--out", str(out), "--report", str(report)]) == 1
    err = capsys.readouterr().err
    assert "symlink: ben:" in err and "not_notebook: dora:" in err
    with report.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["status"] for r in rows} >= {"collected", "duplicate", "symlink", "bad_name"}
    clean = tmp_path / "clean"
    shutil.copytree(homes / "ada", clean / "ada")
    assert main(["collect", str(clean), "--out", str(tmp_path / "c2")]) == 0  # a duplicate is kept
    assert "duplicate 1" in capsys.readouterr().out
    assert main(["collect", str(tmp_path / "missing"), "--out", str(out)]) == 2
    roster = tmp_path / "roster.txt"
    roster.write_text("ada\nada\n")
    assert main(["collect", str(homes), "--out", str(out), "--roster", str(roster)]) == 2
