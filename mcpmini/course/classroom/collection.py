"""Gather a class's exercise notebooks into nbgrader's ``submitted/<learner>/<assignment>/``.

Two sources, as an instructor has them:

- the hub's user folders (``<root>/<learner>/`` with the learner's copy of ``exercises/``
  inside, every ``*.ipynb`` of it a candidate). When ``<root>`` is a hub's ``homes/`` (the
  hub's ``accounts.json`` beside it), its learners are the roster unless one is given, and the
  instructor's own home is reported as such, not as a problem;
- a zip of an LMS's "download all submissions". Each entry's path in the zip is read with a
  named pattern (:data:`FORMS`): Moodle's folders (``Ada Lovelace_1234567_assignsubmission_file/
  9_1_version_negotiation.ipynb``) and flat names (``Ada Lovelace_1234567_assignsubmission_file_
  9_1_version_negotiation.ipynb``), Canvas's names (``lovelaceada_1234_5678_9_1_….ipynb``, with
  ``_LATE_`` after the name for a late submission, ``anon_<id>`` under anonymous grading), or a
  pattern of the instructor's in the form of nbgrader's ``FileNameCollectorPlugin.named_regexp``
  (``student_id`` and ``file_id`` groups required; ``timestamp``, ``late``, ``lms_id`` and
  ``attempt`` optional; matched from the start of the entry's path, as nbgrader matches). The
  LMS's name for a learner becomes a roster login through a names file (:func:`read_names`,
  ``lms_name,login`` per line: the full name, Canvas's sortable name or the LMS's numeric id),
  or is taken as it is when it already is a login.

Rules of this module: every candidate ends as exactly one :class:`Collected` record —
copied, or reported with the reason it was not (:class:`CollectStatus`), never silently
dropped. Nothing is followed or trusted: a symbolic link (a notebook, an ``exercises`` folder
or a whole home) is reported and not copied; files are opened with ``O_NOFOLLOW``; a zip
entry's path is never used as a path (no ``..`` escape), its size is checked before it is
read and the read is capped; a learner name must pass
:func:`~mcpmini.course.classroom.roster.is_learner_name` (whole-string). A copied file is a
valid notebook (nbformat), written under its exercise's release notebook name
(:data:`~.assignments.NOTEBOOKS`: what nbgrader's ``autograde`` and ``release_feedback`` look
for, whatever the LMS or the learner called the file). Resubmissions: of several
notebooks a learner handed in for one exercise only the latest is copied (by time, then by the
LMS's attempt number), the others are reported ``superseded``. Nothing is half-written: the
copies are made in a staging folder inside ``out`` and moved into ``submitted/`` only once the
whole source was read; each learner's folder of the assignment is replaced whole. A zip none
of whose entries the pattern reads is a :class:`CollectError` and writes nothing. Each
assignment folder gets nbgrader's ``timestamp.txt`` (its latest notebook's time) and
``submission_secret.txt``, and :data:`~.assignments.LATE_FILE` when the LMS marked it late.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import secrets
import shutil
import stat
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from .assignments import DEFAULT_ASSIGNMENT, LATE_FILE, NOTEBOOKS, is_assignment_name
from .execution import MAX_NOTEBOOK_BYTES, SymlinkRefused, identify_exercise, read_submission
from .roster import is_learner_name

__all__ = [
    "COPIED",
    "FORMS",
    "PROBLEMS",
    "CollectError",
    "CollectStatus",
    "Collected",
    "collect",
    "collect_homes",
    "collect_zip",
    "compile_pattern",
    "parse_names",
    "read_names",
]


class CollectError(ValueError):
    """A source or an option that cannot be collected from (nothing is written then)."""


#: The named patterns of the LMS downloads, tried in order on each entry's path in the zip.
FORMS: dict[str, tuple[str, ...]] = {
    "moodle": (
        # "Download submissions in folders" (Moodle 3.1 and later, the default)
        r"(?:.*/)?(?P<student_id>[^/]+?)_(?P<lms_id>\d+)_assignsubmission_(?P<plugin>[a-z]+)"
        r"/(?:.*/)?(?P<file_id>[^/]+)",
        # the flat form: everything in one folder
        r"(?:.*/)?(?P<student_id>[^/]+?)_(?P<lms_id>\d+)_assignsubmission_(?P<plugin>[a-z]+)"
        r"_(?P<file_id>[^/]+)",
    ),
    "canvas": (
        # anonymous grading (first: the name below would swallow it): LATE, then anon_<id>
        r"(?:.*/)?(?:(?P<late>LATE)_)?(?P<student_id>anon_[A-Za-z0-9]+)_(?P<attempt>\d+)"
        r"_(?P<file_id>[^/]+)",
        # sortable name, LATE when late, user id, attachment id, file name
        r"(?:.*/)?(?P<student_id>[^/]+?)(?:_(?P<late>LATE))?_(?P<lms_id>\d+)_(?P<attempt>\d+)"
        r"_(?P<file_id>[^/]+)",
    ),
}
_AUTO = ("moodle", "canvas")
_SAFE_FILE = re.compile(r"[^A-Za-z0-9._-]")


class CollectStatus(StrEnum):
    """What became of one candidate file."""

    COLLECTED = "collected"
    SUPERSEDED = "superseded"  # not copied: the learner handed in a later one for the exercise
    SYMLINK = "symlink"  # a symbolic link: not followed, not copied
    UNREADABLE = "unreadable"  # cannot be opened or read (permissions, too large, a folder)
    NOT_NOTEBOOK = "not_notebook"  # not a valid notebook (nbformat)
    NOT_EXERCISE = "not_exercise"  # a notebook, but no exercise of the course
    BAD_NAME = "bad_name"  # no usable learner name (an LMS name that maps to no login)
    NOT_ON_ROSTER = "not_on_roster"
    INSTRUCTOR = "instructor"  # the hub's instructor home: not a learner's, not collected


#: The statuses whose file was copied into ``submitted/``.
COPIED = frozenset({CollectStatus.COLLECTED})
#: The statuses that make ``mcpmini collect`` end with exit code 1 (something to look at).
PROBLEMS = frozenset(CollectStatus) - {
    CollectStatus.COLLECTED,
    CollectStatus.SUPERSEDED,
    CollectStatus.INSTRUCTOR,
}


@dataclass(frozen=True)
class Collected:
    """One candidate: ``source`` as found, ``target`` the copy (``None`` when not copied)."""

    learner: str
    source: str
    status: CollectStatus
    exercise: str = ""
    target: Path | None = None
    detail: str = ""
    late: bool = False


def _check(raw: bytes) -> tuple[object | None, str]:
    """The notebook in ``raw`` and ``""``, or ``None`` and why it is not one."""
    import nbformat

    try:
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except nbformat.ValidationError as exc:
        return None, f"not a valid notebook ({exc.message[:120]})"
    except Exception as exc:  # NotJSONError and whatever a broken file makes nbformat raise
        return None, f"not a notebook ({type(exc).__name__})"
    return nb, ""


@dataclass
class _Candidate:
    learner: str
    source: str
    name: str
    raw: bytes
    when: float
    order: tuple[Any, ...]
    late: bool
    exercise: str = ""


@dataclass
class _Sink:
    """Checks candidates, keeps the latest per learner and exercise, and writes the copies
    into a staging folder that :meth:`publish` moves into ``out/submitted``."""

    out: Path
    assignment: str
    records: list[Collected] = field(default_factory=list)
    candidates: list[_Candidate] = field(default_factory=list)
    learners: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not is_assignment_name(self.assignment):
            raise CollectError(f"invalid assignment name {self.assignment!r}")

    def report(self, learner: str, source: str, status: CollectStatus, detail: str) -> None:
        self.records.append(Collected(learner, source, status, detail=detail))

    def add(self, cand: _Candidate) -> None:
        """Check ``cand`` (a valid notebook of an exercise) and keep it, or report why not."""
        nb, why = _check(cand.raw)
        if nb is None:
            self.report(cand.learner, cand.source, CollectStatus.NOT_NOTEBOOK, why)
            return
        cand.exercise = identify_exercise(Path(cand.name), nb)
        if not cand.exercise:
            self.report(
                cand.learner, cand.source, CollectStatus.NOT_EXERCISE, "no exercise of the course"
            )
            return
        self.learners.add(cand.learner)
        self.candidates.append(cand)

    def stage(self) -> Path:
        """Write the kept copies into a staging folder; returns it."""
        staging = self.out / f".collect-{secrets.token_hex(4)}"
        staging.mkdir(parents=True)
        groups: dict[tuple[str, str], list[_Candidate]] = {}
        for cand in self.candidates:
            groups.setdefault((cand.learner, cand.exercise), []).append(cand)
        late: dict[str, list[str]] = {}
        for learner in sorted(self.learners):
            (staging / learner).mkdir()
        for (learner, exercise), group in sorted(groups.items()):
            group.sort(key=lambda c: c.order)
            latest = group[-1]
            folder = staging / learner
            # the release notebook's name (one kept per exercise): "… (1).ipynb" from Moodle
            # or "…-1.ipynb" from Canvas would be a notebook nbgrader does not know
            safe = NOTEBOOKS.get(exercise) or (
                _SAFE_FILE.sub("_", latest.name.removesuffix(".ipynb"))[:80] or "notebook"
            )
            target = folder / f"{safe}.ipynb"
            n = 1
            while target.exists():
                n += 1
                target = folder / f"{safe}-{n}.ipynb"
            target.write_bytes(latest.raw)
            os.utime(target, (latest.when, latest.when))
            final = self.out / "submitted" / learner / self.assignment / target.name
            if latest.late:
                late.setdefault(learner, []).append(latest.source)
            self.records.append(
                Collected(
                    learner,
                    latest.source,
                    CollectStatus.COLLECTED,
                    exercise,
                    final,
                    "",
                    latest.late,
                )
            )
            for older in group[:-1]:
                self.records.append(
                    Collected(
                        learner,
                        older.source,
                        CollectStatus.SUPERSEDED,
                        exercise,
                        None,
                        f"a later notebook for {exercise} was handed in ({latest.source})",
                    )
                )
        for learner in sorted(self.learners):
            _stamp(staging / learner, late.get(learner, []))
        return staging

    def publish(self, staging: Path, empty: Iterable[str]) -> None:
        """Move each learner's staged folder to ``submitted/<learner>/<assignment>`` (the old
        one, if any, replaced whole), and make an empty one for each of ``empty``."""
        root = self.out / "submitted"
        for learner in sorted(set(empty) - self.learners):
            (staging / learner).mkdir(exist_ok=True)
            _stamp(staging / learner, [])
        for folder in sorted(p for p in staging.iterdir() if p.is_dir()):
            place = root / folder.name / self.assignment
            place.parent.mkdir(parents=True, exist_ok=True)
            old = None
            if place.exists() or place.is_symlink():
                old = staging / f".old-{folder.name}"
                os.replace(place, old)
            os.replace(folder, place)
            if old is not None:
                if old.is_symlink() or not old.is_dir():
                    old.unlink()
                else:
                    shutil.rmtree(old)
        shutil.rmtree(staging)


def _stamp(folder: Path, late: list[str]) -> None:
    """nbgrader's ``timestamp.txt`` (the newest notebook's time) and ``submission_secret.txt``
    in ``folder``, and :data:`LATE_FILE` listing the entries the LMS marked late."""
    times = [p.stat().st_mtime for p in folder.glob("*.ipynb")]
    when = datetime.fromtimestamp(max(times) if times else 0, UTC)
    (folder / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S.%f %Z\n"))
    (folder / "submission_secret.txt").write_text(secrets.token_hex(16))
    if late:
        (folder / LATE_FILE).write_text(
            "".join(f"marked late by the LMS: {entry}\n" for entry in late), encoding="utf-8"
        )


def _finish(sink: _Sink, empty: Iterable[str]) -> list[Collected]:
    staging = sink.stage()
    try:
        sink.publish(staging, empty)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return sink.records


def _hub_accounts(root: Path) -> tuple[list[str] | None, str]:
    """The learners and the instructor of the hub whose ``homes/`` is ``root`` (its
    ``accounts.json``), or ``(None, "")`` when ``root`` is not a hub's."""
    try:
        data = json.loads((root.parent / "accounts.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, ""
    if not isinstance(data, dict) or root.name != "homes":
        return None, ""
    learners = [n for n in data.get("learners", []) if isinstance(n, str) and is_learner_name(n)]
    admin = data.get("admin")
    return learners, admin if isinstance(admin, str) else ""


def _home_candidates(sink: _Sink, home: Path, subdir: str) -> None:
    learner = home.name
    place = home / subdir if subdir else home
    if place.is_symlink():
        sink.report(learner, str(place), CollectStatus.SYMLINK, "a symbolic link, not followed")
        return
    if not place.is_dir():
        return  # nothing handed in: the empty folder made for the learner says so
    try:
        entries = sorted(place.iterdir(), key=lambda p: (len(p.name), p.name))  # originals first
    except OSError as exc:
        sink.report(learner, str(place), CollectStatus.UNREADABLE, exc.strerror or str(exc))
        return
    for path in entries:
        if not path.name.endswith(".ipynb") or path.name.startswith("."):
            continue
        try:
            raw = read_submission(path)
            when = path.lstat().st_mtime
        except SymlinkRefused:
            sink.report(learner, str(path), CollectStatus.SYMLINK, "a symbolic link, not followed")
            continue
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            sink.report(learner, str(path), CollectStatus.UNREADABLE, why)
            continue
        order = (when, len(path.name), path.name)
        sink.add(_Candidate(learner, str(path), path.name, raw, when, order, False))


def collect_homes(
    root: Path,
    out: Path,
    *,
    assignment: str = DEFAULT_ASSIGNMENT,
    subdir: str = "exercises",
    roster: Iterable[str] | None = None,
) -> list[Collected]:
    """Copy every learner's ``<root>/<learner>/<subdir>/*.ipynb`` into ``out/submitted``.

    Returns one record per candidate (see the module rules). Raises ``FileNotFoundError``
    when ``root`` is not a folder, :class:`CollectError` for a bad assignment name.
    """
    if not root.is_dir():
        raise FileNotFoundError(f"no such folder: {root}")
    sink = _Sink(out, assignment)
    hub_learners, admin = _hub_accounts(root)
    wanted = list(roster) if roster is not None else hub_learners
    for home in sorted(p for p in root.iterdir() if not p.name.startswith(".")):
        learner = home.name
        if learner == admin and (wanted is None or learner not in wanted):
            sink.report(learner, str(home), CollectStatus.INSTRUCTOR, "the hub's instructor")
        elif home.is_symlink():
            sink.report(learner, str(home), CollectStatus.SYMLINK, "a symbolic link, not followed")
        elif not home.is_dir():
            continue
        elif not is_learner_name(learner):
            sink.report(learner, str(home), CollectStatus.BAD_NAME, "not a learner name")
        elif wanted is not None and learner not in wanted:
            sink.report(learner, str(home), CollectStatus.NOT_ON_ROSTER, "not on the roster")
        else:
            sink.learners.add(learner)
            _home_candidates(sink, home, subdir)
    return _finish(sink, wanted or ())


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """An instructor's entry pattern (nbgrader's ``named_regexp`` form), compiled. Raises
    :class:`CollectError` when it is not a regular expression or lacks a required group."""
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise CollectError(f"--pattern {pattern!r} is not a regular expression ({exc})") from None
    missing = [g for g in ("student_id", "file_id") if g not in compiled.groupindex]
    if missing:
        raise CollectError(f"--pattern {pattern!r} has no (?P<{missing[0]}>...) group")
    return compiled


def parse_names(text: str, source: str = "names") -> dict[str, str]:
    """An LMS-name-to-login mapping from CSV text: two columns, ``lms_name,login`` (a first
    row naming the columns is skipped; blank lines and ``#`` lines are ignored). Keys are
    compared with :func:`_key` (case and runs of spaces do not matter). Raises
    :class:`CollectError` naming the line for a login that is not a learner name, a line
    without two columns, or a name mapped to two logins."""
    names: dict[str, str] = {}
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for number, cells in enumerate(csv.reader(lines), start=1):
        if len(cells) != 2:
            raise CollectError(f"{source}:{number}: expected lms_name,login")
        lms, login = cells[0].strip(), cells[1].strip()
        if number == 1 and login.lower() == "login":
            continue
        if not is_learner_name(login):
            raise CollectError(f"{source}:{number}: {login!r} is not a learner login")
        key = _key(lms)
        if not key:
            raise CollectError(f"{source}:{number}: empty LMS name")
        if names.get(key, login) != login:
            raise CollectError(f"{source}:{number}: {lms!r} mapped to {names[key]!r} already")
        names[key] = login
    return names


def read_names(path: Path) -> dict[str, str]:
    """:func:`parse_names` of the file ``path``; an unreadable file is a :class:`CollectError`."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CollectError(f"{path}: cannot be read ({exc})") from None
    return parse_names(text, str(path))


def _key(name: str) -> str:
    return " ".join(name.casefold().split())


@dataclass(frozen=True)
class _Entry:
    """What a pattern read from one zip entry's path."""

    student: str
    lms_id: str
    file: str
    late: bool
    attempt: int
    timestamp: datetime | None


def _read_entry(path: str, patterns: list[re.Pattern[str]], custom: bool) -> _Entry | None:
    for pattern in patterns:
        match = pattern.match(path) if custom else pattern.fullmatch(path)
        if match is None:
            continue
        groups = match.groupdict()
        stamp = None
        if groups.get("timestamp"):
            with contextlib.suppress(ValueError, OverflowError):
                from dateutil import parser as dateparser

                stamp = dateparser.parse(groups["timestamp"])
                stamp = stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
        file = groups["file_id"] or ""
        if custom and "." not in Path(file).name:  # nbgrader's file_id may leave out the suffix
            file += Path(path).suffix
        attempt = groups.get("attempt") or "0"
        return _Entry(
            groups["student_id"] or "",
            groups.get("lms_id") or "",
            file,
            bool(groups.get("late")),
            int(attempt) if attempt.isdigit() else 0,
            stamp,
        )
    return None


def _login(entry: _Entry, names: Mapping[str, str]) -> tuple[str, str]:
    """The roster login of an entry and ``""``, or ``""`` and why there is none."""
    for key in (entry.lms_id, entry.student):
        if key and _key(key) in names:
            return names[_key(key)], ""
    if is_learner_name(entry.student.lower()):
        return entry.student.lower(), ""
    return "", f"LMS name {entry.student!r} is not a login: map it in a names file (--names)"


class _ZipReader:
    """Reads the entries of one LMS zip into a sink."""

    def __init__(
        self,
        sink: _Sink,
        archive: zipfile.ZipFile,
        patterns: list[re.Pattern[str]],
        custom: bool,
        names: Mapping[str, str],
        wanted: list[str] | None,
    ) -> None:
        self.sink, self.archive, self.patterns, self.custom = sink, archive, patterns, custom
        self.names, self.wanted = names, wanted

    def entry(self, info: zipfile.ZipInfo, parsed: _Entry | None) -> None:
        sink, source = self.sink, info.filename
        if parsed is None:
            sink.report("", source, CollectStatus.BAD_NAME, "the pattern does not read this name")
            return
        learner, why = _login(parsed, self.names)
        if not learner:
            sink.report(parsed.student, source, CollectStatus.BAD_NAME, why)
            return
        if self.wanted is not None and learner not in self.wanted:
            sink.report(learner, source, CollectStatus.NOT_ON_ROSTER, "not on the roster")
            return
        if stat.S_ISLNK(info.external_attr >> 16):
            sink.report(learner, source, CollectStatus.SYMLINK, "a symbolic link entry")
            return
        if not parsed.file.endswith(".ipynb"):
            sink.report(learner, source, CollectStatus.NOT_NOTEBOOK, "not an .ipynb file")
            return
        if info.file_size > MAX_NOTEBOOK_BYTES:
            sink.report(
                learner, source, CollectStatus.UNREADABLE, f"too large ({info.file_size} bytes)"
            )
            return
        try:
            with self.archive.open(info) as fh:
                raw = fh.read(MAX_NOTEBOOK_BYTES + 1)
        except (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError) as exc:
            why = f"{type(exc).__name__}: {exc}"[:200]
            sink.report(learner, source, CollectStatus.UNREADABLE, why)
            return
        if len(raw) > MAX_NOTEBOOK_BYTES:
            sink.report(learner, source, CollectStatus.UNREADABLE, "larger than its entry says")
            return
        when = datetime(*info.date_time, tzinfo=UTC).timestamp()
        if parsed.timestamp is not None:
            when = parsed.timestamp.timestamp()
        order = (when, parsed.attempt, source)
        sink.add(_Candidate(learner, source, parsed.file, raw, when, order, parsed.late))


def _patterns(form: str, pattern: str | None) -> tuple[list[re.Pattern[str]], bool]:
    if pattern is not None:
        return [compile_pattern(pattern)], True
    if form == "auto":
        chosen = [p for name in _AUTO for p in FORMS[name]]
    elif form in FORMS:
        chosen = list(FORMS[form])
    else:
        raise CollectError(f"unknown LMS form {form!r} (auto, {', '.join(FORMS)})")
    return [re.compile(p) for p in chosen], False


def collect_zip(
    archive: Path,
    out: Path,
    *,
    assignment: str = DEFAULT_ASSIGNMENT,
    roster: Iterable[str] | None = None,
    form: str = "auto",
    pattern: str | None = None,
    names: Mapping[str, str] | None = None,
) -> list[Collected]:
    """Copy the notebooks of an LMS download zip into ``out/submitted``.

    ``form`` names the LMS (``moodle``, ``canvas``, or ``auto``: Moodle's forms, then
    Canvas's); ``pattern`` replaces it with an nbgrader-style named pattern; ``names`` maps
    LMS names and ids to logins (:func:`parse_names`). Returns one record per file entry
    (see the module rules). Raises ``FileNotFoundError`` for a missing file and
    :class:`CollectError` for one that is not a zip, a bad pattern or form, and a zip none of
    whose entries the pattern reads — nothing is written then.
    """
    if not archive.is_file():
        raise FileNotFoundError(f"no such file: {archive}")
    patterns, custom = _patterns(form, pattern)
    sink = _Sink(out, assignment)
    wanted = list(roster) if roster is not None else None
    try:
        with zipfile.ZipFile(archive) as zf:
            entries = [i for i in zf.infolist() if not i.is_dir()]
            entries = [i for i in entries if not i.filename.startswith("__MACOSX/")]
            parsed = {
                i.filename: _read_entry(i.filename.replace("\\", "/"), patterns, custom)
                for i in entries
            }
            if entries and not any(parsed.values()):
                first = entries[0].filename
                raise CollectError(
                    f"{archive}: no entry's name is in the {form if pattern is None else 'given'} "
                    f"form (the first is {first!r}): choose --lms, or give --pattern"
                )
            reader = _ZipReader(sink, zf, patterns, custom, names or {}, wanted)
            for info in entries:
                reader.entry(info, parsed[info.filename])
    except zipfile.BadZipFile as exc:
        raise CollectError(f"{archive}: not a zip file ({exc})") from None
    return _finish(sink, wanted or ())


def collect(
    source: Path,
    out: Path,
    *,
    assignment: str = DEFAULT_ASSIGNMENT,
    subdir: str = "exercises",
    roster: Iterable[str] | None = None,
    form: str = "auto",
    pattern: str | None = None,
    names: Mapping[str, str] | None = None,
) -> list[Collected]:
    """:func:`collect_zip` for a ``.zip`` file, :func:`collect_homes` for a folder."""
    if source.is_file() and source.suffix.lower() == ".zip":
        return collect_zip(
            source,
            out,
            assignment=assignment,
            roster=roster,
            form=form,
            pattern=pattern,
            names=names,
        )
    return collect_homes(source, out, assignment=assignment, subdir=subdir, roster=roster)
