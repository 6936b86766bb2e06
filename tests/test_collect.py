"""``mcpmini collect``: hub homes and LMS zips into nbgrader's ``submitted/`` layout, every
candidate either copied or reported with its reason, nothing followed, nothing outside OUT."""

from __future__ import annotations

import csv
import json
import os
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from mcpmini.cli import main
from mcpmini.course.classroom import (
    CollectError,
    CollectStatus,
    RosterError,
    collect_homes,
    collect_zip,
    find_submissions,
    is_learner_name,
    parse_roster,
)
from mcpmini.course.classroom.collection import parse_names

ROOT = Path(__file__).resolve().parents[1]
SOLVED = ROOT / "solutions" / "9_1_version_negotiation.ipynb"
BLANK = ROOT / "exercises" / "9_2_request_ids.ipynb"
UNTOUCHED = ROOT / "exercises" / "9_1_version_negotiation.ipynb"  # 9.1 as handed out


@pytest.fixture
def homes(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    ada = root / "ada" / "exercises"
    ada.mkdir(parents=True)
    shutil.copy(SOLVED, ada / SOLVED.name)
    shutil.copy(SOLVED, ada / "9_1_version_negotiation-Copy1.ipynb")
    os.utime(ada / "9_1_version_negotiation-Copy1.ipynb", (1_000, 1_000))  # an older copy
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
    folder = out / "submitted" / "ada" / "exercises"
    assert (folder / SOLVED.name).read_bytes() == SOLVED.read_bytes()
    assert (folder / "timestamp.txt").is_file() and (folder / "submission_secret.txt").is_file()
    assert ("ada", "todo.txt") not in by
    assert not list(out.glob(".collect-*"))  # the staging folder is gone


def test_of_two_notebooks_for_one_exercise_the_latest_is_kept(homes, tmp_path):
    ada = homes / "ada" / "exercises"
    os.utime(ada / SOLVED.name, (500, 500))  # now the original is the older one
    by = _by(collect_homes(homes, tmp_path / "course"))
    kept = by["ada", "9_1_version_negotiation-Copy1.ipynb"]
    assert kept.status is CollectStatus.COLLECTED
    assert by["ada", SOLVED.name].status is CollectStatus.SUPERSEDED
    folder = tmp_path / "course" / "submitted" / "ada" / "exercises"
    # the copy is kept under the release notebook's name (the one nbgrader grades)
    assert sorted(p.name for p in folder.glob("*.ipynb")) == [SOLVED.name, BLANK.name]
    assert kept.target == folder / SOLVED.name
    assert (folder / SOLVED.name).read_bytes() == (
        ada / "9_1_version_negotiation-Copy1.ipynb"
    ).read_bytes()


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
    assert all(p.startswith("submitted/ada/") for p in copied) and len(copied) == 2
    assert not any(p.is_symlink() for p in out.rglob("*"))


def test_a_name_with_a_trailing_newline_is_not_a_learner(homes, tmp_path):
    # issue 29 item 7: "alice\n" once matched the name rule with "$" and became a learner
    (homes / "alice\n" / "exercises").mkdir(parents=True)
    shutil.copy(SOLVED, homes / "alice\n" / "exercises" / SOLVED.name)
    by = _by(collect_homes(homes, tmp_path / "course"))
    assert by["alice\n", "alice\n"].status is CollectStatus.BAD_NAME
    assert not (tmp_path / "course" / "submitted" / "alice\n").exists()
    assert not is_learner_name("alice\n") and not is_learner_name("alice\r")
    assert not is_learner_name("alice\x00") and is_learner_name("alice")


def test_the_grader_reads_the_collected_course_folder_directly(homes, tmp_path):
    out = tmp_path / "course"
    collect_homes(homes, out)
    jobs = find_submissions([out])
    assert {j.learner for j in jobs} == {"ada", "ben", "chen", "dora", "fay"}
    handed = {(j.learner, j.exercise) for j in jobs if j.path is not None}
    assert handed == {("ada", "9.1"), ("ada", "9.2")}
    assert sum(1 for j in jobs if j.learner == "fay" and j.path is None) == 4
    assert {j.assignment for j in jobs} == {"exercises"}
    assert find_submissions([out / "submitted"]) == jobs


def test_a_roster_names_who_is_collected_and_who_handed_in_nothing(homes, tmp_path):
    out = tmp_path / "course"
    by = _by(collect_homes(homes, out, roster=["ada", "gus"]))
    assert by["dora", "dora"].status is CollectStatus.NOT_ON_ROSTER
    assert (out / "submitted" / "gus" / "exercises").is_dir()
    assert not (out / "submitted" / "dora").exists()


def test_a_hub_homes_folder_gives_its_roster_and_its_instructor_is_no_problem(tmp_path, capsys):
    hub = tmp_path / "hub"
    for name in ("ada", "ben", "instructor"):
        (hub / "homes" / name / "exercises").mkdir(parents=True)
        shutil.copy(SOLVED, hub / "homes" / name / "exercises" / SOLVED.name)
    (hub / "accounts.json").write_text(
        json.dumps({"learners": ["ada", "ben", "cy"], "admin": "instructor", "tokens": {}})
    )
    records = collect_homes(hub / "homes", tmp_path / "course")
    by = _by(records)
    assert by["instructor", "instructor"].status is CollectStatus.INSTRUCTOR
    assert (tmp_path / "course" / "submitted" / "cy" / "exercises").is_dir()  # on the hub roster
    assert not (tmp_path / "course" / "submitted" / "instructor").exists()
    assert main(["collect", str(hub / "homes"), "--out", str(tmp_path / "c2")]) == 0
    assert "instructor" not in capsys.readouterr().err


def _zip(path: Path, entries: dict[str, bytes | tuple[bytes, tuple]], links=()) -> Path:
    """A zip of ``entries`` (name → bytes, or (bytes, date_time)) and symbolic-link entries."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            raw, when = data if isinstance(data, tuple) else (data, (2026, 12, 1, 10, 0, 0))
            zf.writestr(zipfile.ZipInfo(name, when), raw)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "../../ada/exercises/9_1_version_negotiation.ipynb")
    return path


def _files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*.ipynb"))


NAMES = "lms_name,login\nAda Lovelace,ada\nBen Bitdiddle,ben\nlovelaceada,ada\n7781,chen\n"


def test_a_moodle_download_in_folders_is_read_from_the_folder_names(tmp_path):
    # Moodle 3.1+ "download submissions in folders": <Full Name>_<id>_assignsubmission_file/
    solved, blank = SOLVED.read_bytes(), BLANK.read_bytes()
    archive = _zip(
        tmp_path / "moodle.zip",
        {
            "Ada Lovelace_1203_assignsubmission_file/9_1_version_negotiation.ipynb": solved,
            "Ada Lovelace_1203_assignsubmission_file/9_2_request_ids.ipynb": blank,
            "Ben Bitdiddle_1207_assignsubmission_file/sub/9_2_request_ids.ipynb": blank,
            "Ben Bitdiddle_1207_assignsubmission_onlinetext/onlinetext.html": b"<p>hi</p>",
            "Cy Young_1301_assignsubmission_file/9_1_version_negotiation.ipynb": solved,
        },
    )
    out = tmp_path / "course"
    records = collect_zip(archive, out, names=parse_names(NAMES))
    by = {r.source.split("/")[-1] + "@" + r.learner: r.status for r in records}
    assert by["9_1_version_negotiation.ipynb@ada"] is CollectStatus.COLLECTED
    assert by["9_2_request_ids.ipynb@ben"] is CollectStatus.COLLECTED
    assert by["onlinetext.html@ben"] is CollectStatus.NOT_NOTEBOOK
    cy = [r for r in records if r.source.startswith("Cy Young")]
    assert [r.status for r in cy] == [CollectStatus.BAD_NAME] and "--names" in cy[0].detail
    assert _files(out) == [
        "submitted/ada/exercises/9_1_version_negotiation.ipynb",
        "submitted/ada/exercises/9_2_request_ids.ipynb",
        "submitted/ben/exercises/9_2_request_ids.ipynb",
    ]


def test_a_moodle_flat_download_and_a_resubmission_keep_the_latest(tmp_path):
    solved, blank = SOLVED.read_bytes(), BLANK.read_bytes()
    early, late = (2026, 12, 1, 9, 0, 0), (2026, 12, 2, 9, 0, 0)
    archive = _zip(
        tmp_path / "flat.zip",
        {
            "Ada Lovelace_1203_assignsubmission_file_9_1_version_negotiation.ipynb": (
                UNTOUCHED.read_bytes(),
                early,
            ),
            "Ada Lovelace_1203_assignsubmission_file_9_1_version_negotiation (1).ipynb": (
                solved,
                late,
            ),
            "Ben Bitdiddle_1207_assignsubmission_file_9_2_request_ids.ipynb": blank,
        },
    )
    out = tmp_path / "course"
    records = collect_zip(archive, out, form="moodle", names=parse_names(NAMES))
    by = {r.source: r.status for r in records}
    assert (
        by["Ada Lovelace_1203_assignsubmission_file_9_1_version_negotiation (1).ipynb"]
        is CollectStatus.COLLECTED
    )
    assert (
        by["Ada Lovelace_1203_assignsubmission_file_9_1_version_negotiation.ipynb"]
        is CollectStatus.SUPERSEDED
    )
    # kept under the release notebook's name, which nbgrader's autograde looks for
    kept = out / "submitted" / "ada" / "exercises" / "9_1_version_negotiation.ipynb"
    assert kept.read_bytes() == solved
    assert len(_files(out)) == 2


def test_a_canvas_download_with_late_and_anonymous_names(tmp_path):
    # Canvas: <sortable name>[_LATE]_<user id>_<attachment id>_<file>; anon_<id> when anonymous
    solved, blank = SOLVED.read_bytes(), BLANK.read_bytes()
    archive = _zip(
        tmp_path / "submissions.zip",
        {
            "lovelaceada_1234_5001_9_1_version_negotiation.ipynb": UNTOUCHED.read_bytes(),
            "lovelaceada_1234_5090_9_1_version_negotiation-1.ipynb": solved,  # resubmitted
            "bitdiddleben_LATE_1240_5002_9_2_request_ids.ipynb": blank,
            "LATE_anon_x7Kq2_5003_9_2_request_ids.ipynb": blank,
            "chen_7781_5004_9_2_request_ids.ipynb": blank,
            "readme.txt": b"not a submission",
        },
    )
    names = parse_names(NAMES + "bitdiddleben,ben\nanon_x7Kq2,dora\n")
    out = tmp_path / "course"
    records = collect_zip(archive, out, form="canvas", names=names)
    by = {r.source: r for r in records}
    assert by["lovelaceada_1234_5090_9_1_version_negotiation-1.ipynb"].learner == "ada"
    assert by["lovelaceada_1234_5001_9_1_version_negotiation.ipynb"].status is (
        CollectStatus.SUPERSEDED
    )
    late = by["bitdiddleben_LATE_1240_5002_9_2_request_ids.ipynb"]
    assert late.learner == "ben" and late.late and late.status is CollectStatus.COLLECTED
    assert by["LATE_anon_x7Kq2_5003_9_2_request_ids.ipynb"].learner == "dora"
    assert by["chen_7781_5004_9_2_request_ids.ipynb"].learner == "chen"  # the id maps, too
    assert by["readme.txt"].status is CollectStatus.BAD_NAME
    ada = out / "submitted" / "ada" / "exercises"
    assert (ada / "9_1_version_negotiation.ipynb").read_bytes() == solved  # not "…-1.ipynb"
    assert (out / "submitted" / "ben" / "exercises" / "late.txt").is_file()
    assert not (out / "submitted" / "ada" / "exercises" / "late.txt").exists()
    assert len(_files(out)) == 4


def test_an_nbgrader_named_regexp_reads_the_instructors_own_form(tmp_path):
    archive = _zip(
        tmp_path / "own.zip",
        {
            "ps1_ada_attempt_2026-12-01-10-00-00_9_1_version_negotiation.ipynb": (
                UNTOUCHED.read_bytes()
            ),
            "ps1_ada_attempt_2026-12-02-10-00-00_9_1_version_negotiation.ipynb": (
                SOLVED.read_bytes()
            ),
        },
    )
    pattern = r".*_(?P<student_id>\w+?)_attempt_(?P<timestamp>[0-9\-]+)_(?P<file_id>\w+)"
    records = collect_zip(archive, tmp_path / "course", pattern=pattern)
    latest = [r for r in records if r.status is CollectStatus.COLLECTED]
    assert [r.source[16:26] for r in latest] == ["2026-12-02"] and latest[0].learner == "ada"
    kept = tmp_path / "course" / "submitted" / "ada" / "exercises" / "9_1_version_negotiation.ipynb"
    assert kept.read_bytes() == SOLVED.read_bytes()
    with pytest.raises(CollectError, match="student_id"):
        collect_zip(archive, tmp_path / "c2", pattern=r"(?P<file_id>.*)")
    with pytest.raises(CollectError, match="regular expression"):
        collect_zip(archive, tmp_path / "c3", pattern=r"(?P<student_id>")


def test_every_odd_entry_of_an_lms_zip_is_reported_and_nothing_escapes(tmp_path):
    solved, blank = SOLVED.read_bytes(), BLANK.read_bytes()
    archive = _zip(
        tmp_path / "downloads.zip",
        {
            "ada_1203_1_9_1_version_negotiation.ipynb": solved,
            "../../chen_5_2_9_2_request_ids.ipynb": blank,  # a path that tries to escape
            "dora_6_3_essay.docx": b"PK...",
            "dora_7_4_9_3.ipynb": b"\xff\xfe",
            "readme.ipynb": solved,
            "__MACOSX/._ada_1203_1_9_1_version_negotiation.ipynb": b"junk",
        },
        links=("eve_9_5_9_1_version_negotiation.ipynb",),
    )
    out = tmp_path / "course"
    records = collect_zip(archive, out)
    by = {r.source: r.status for r in records}
    assert by["ada_1203_1_9_1_version_negotiation.ipynb"] is CollectStatus.COLLECTED
    assert by["../../chen_5_2_9_2_request_ids.ipynb"] is CollectStatus.COLLECTED
    assert by["dora_6_3_essay.docx"] is CollectStatus.NOT_NOTEBOOK
    assert by["dora_7_4_9_3.ipynb"] is CollectStatus.NOT_NOTEBOOK
    assert by["readme.ipynb"] is CollectStatus.BAD_NAME
    assert by["eve_9_5_9_1_version_negotiation.ipynb"] is CollectStatus.SYMLINK
    assert len(records) == 6  # every entry but the __MACOSX resource fork
    assert _files(tmp_path) == [
        "course/submitted/ada/exercises/9_1_version_negotiation.ipynb",
        "course/submitted/chen/exercises/9_2_request_ids.ipynb",
    ]


def test_a_zip_whose_names_match_no_form_is_refused_and_writes_nothing(tmp_path, capsys):
    archive = _zip(tmp_path / "hub.zip", {"ada/9_1_version_negotiation.ipynb": SOLVED.read_bytes()})
    with pytest.raises(CollectError, match=r"ada/9_1_version_negotiation\.ipynb"):
        collect_zip(archive, tmp_path / "course")
    assert not (tmp_path / "course").exists()
    assert main(["collect", str(archive), "--out", str(tmp_path / "course")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "hub.zip" in err[0]
    assert not (tmp_path / "course").exists()


def test_a_names_file_with_a_bad_login_is_refused_naming_the_line(tmp_path, capsys):
    names = tmp_path / "names.csv"
    names.write_text("lms_name,login\nAda Lovelace,ada\nBen,Ben_B\n", encoding="utf-8")
    archive = _zip(tmp_path / "m.zip", {"x_1_2_9_1_version_negotiation.ipynb": b"{}"})
    code = main(["collect", str(archive), "--out", str(tmp_path / "c"), "--names", str(names)])
    assert code == 2 and f"{names}:3:" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()
    with pytest.raises(CollectError, match=":3:"):
        parse_names("a,ada\nb,ben\nA,cy\n")  # one LMS name (any case) for two logins


def test_collecting_again_replaces_the_learners_folder_whole(tmp_path):
    first = _zip(tmp_path / "a.zip", {"ada_1_1_9_1_version_negotiation.ipynb": SOLVED.read_bytes()})
    again = _zip(tmp_path / "b.zip", {"ada_1_2_9_2_request_ids.ipynb": BLANK.read_bytes()})
    out = tmp_path / "course"
    collect_zip(first, out)
    collect_zip(again, out)
    assert _files(out) == ["submitted/ada/exercises/9_2_request_ids.ipynb"]


def test_a_file_that_is_not_a_zip_is_refused(tmp_path):
    bad = tmp_path / "x.zip"
    bad.write_text("no")
    with pytest.raises(CollectError):
        collect_zip(bad, tmp_path / "course")
    assert not (tmp_path / "course").exists()


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
    assert {r["status"] for r in rows} >= {"collected", "superseded", "symlink", "bad_name"}
    clean = tmp_path / "clean"
    shutil.copytree(homes / "ada", clean / "ada")
    assert main(["collect", str(clean), "--out", str(tmp_path / "c2")]) == 0  # superseded is fine
    assert "superseded 1" in capsys.readouterr().out
    assert main(["collect", str(tmp_path / "missing"), "--out", str(out)]) == 2
    roster = tmp_path / "roster.txt"
    roster.write_text("ada\nada\n")
    assert main(["collect", str(homes), "--out", str(out), "--roster", str(roster)]) == 2
