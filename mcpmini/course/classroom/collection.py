"""Gather a class's exercise notebooks into nbgrader's ``submitted/<learner>/<assignment>/``.

Two sources, as an instructor has them: the hub's user folders (``<root>/<learner>/`` with
the learner's copy of ``exercises/`` inside, every ``*.ipynb`` of it a candidate) and a zip
of LMS downloads named ``<learner>_<id>_<file>.ipynb`` (Moodle, Canvas; folders inside the
zip are ignored, only the entry's name counts).

Rules of this module: every candidate ends as exactly one :class:`Collected` record —
copied, or reported with the reason it was not (:class:`CollectStatus`), never silently
dropped. Nothing is followed or trusted: a symbolic link (a notebook, an ``exercises``
folder or a whole home) is reported and not copied; files are opened with ``O_NOFOLLOW``;
a zip entry's path is never used as a path (no ``..`` escape), its size is checked before
it is read and the read is capped; a learner name must pass
:func:`~mcpmini.course.classroom.roster.is_learner_name`. A copied file is a valid
notebook (nbformat), written under a name of our own making. A second notebook for the same
exercise is copied too (the grader keeps the best) and reported as ``duplicate``. With a
roster, a learner on it who handed in nothing still gets an empty folder (the grader then
writes ``not_attempted`` rows), and a folder of someone not on it is reported, not copied.
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from .execution import MAX_NOTEBOOK_BYTES, SymlinkRefused, identify_exercise, read_submission
from .roster import is_learner_name

__all__ = [
    "COPIED",
    "LMS_NAME",
    "CollectStatus",
    "Collected",
    "collect",
    "collect_homes",
    "collect_zip",
]

#: ``<learner>_<id>_<file>.ipynb``, as LMS bulk downloads name each learner's upload.
LMS_NAME = re.compile(r"^(?P<learner>[^_/]+)_(?P<id>\d+)_(?P<file>[^/]+)$")
_ASSIGNMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_SAFE_FILE = re.compile(r"[^A-Za-z0-9._-]")


class CollectStatus(StrEnum):
    """What became of one candidate file."""

    COLLECTED = "collected"
    DUPLICATE = "duplicate"  # copied too: a second notebook for an exercise already collected
    SYMLINK = "symlink"  # a symbolic link: not followed, not copied
    UNREADABLE = "unreadable"  # cannot be opened or read (permissions, too large, a folder)
    NOT_NOTEBOOK = "not_notebook"  # not a valid notebook (nbformat)
    NOT_EXERCISE = "not_exercise"  # a notebook, but no exercise of the course
    BAD_NAME = "bad_name"  # no usable learner name (an LMS name that does not parse)
    NOT_ON_ROSTER = "not_on_roster"


#: The statuses whose file was copied into ``submitted/``.
COPIED = frozenset({CollectStatus.COLLECTED, CollectStatus.DUPLICATE})


@dataclass(frozen=True)
class Collected:
    """One candidate: ``source`` as found, ``target`` the copy (``None`` when not copied)."""

    learner: str
    source: str
    status: CollectStatus
    exercise: str = ""
    target: Path | None = None
    detail: str = ""


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


class _Sink:
    """Writes copies into ``out/submitted`` and keeps the records and what each learner has."""

    def __init__(self, out: Path, assignment: str) -> None:
        if not _ASSIGNMENT.match(assignment) or ".." in assignment:
            raise ValueError(f"invalid assignment name {assignment!r}")
        self.root = out / "submitted"
        self.assignment = assignment
        self.records: list[Collected] = []
        self.have: dict[tuple[str, str], Path] = {}

    def folder(self, learner: str) -> Path:
        folder = self.root / learner / self.assignment
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def report(self, learner: str, source: str, status: CollectStatus, detail: str) -> None:
        self.records.append(Collected(learner, source, status, detail=detail))

    def add(self, learner: str, source: str, name: str, raw: bytes, when: float) -> None:
        """Check ``raw`` and copy it as ``learner``'s file ``name`` (or report why not)."""
        nb, why = _check(raw)
        if nb is None:
            self.report(learner, source, CollectStatus.NOT_NOTEBOOK, why)
            return
        exercise = identify_exercise(Path(name), nb)
        if not exercise:
            self.report(learner, source, CollectStatus.NOT_EXERCISE, "no exercise of the course")
            return
        folder = self.folder(learner)
        safe = _SAFE_FILE.sub("_", name.removesuffix(".ipynb"))[:80] or "notebook"
        target, n = folder / f"{safe}.ipynb", 1
        while any(r.target == target for r in self.records):
            n += 1
            target = folder / f"{safe}-{n}.ipynb"
        target.write_bytes(raw)
        os.utime(target, (when, when))
        first = self.have.setdefault((learner, exercise), target)
        status, detail = CollectStatus.COLLECTED, ""
        if first != target:
            status = CollectStatus.DUPLICATE
            detail = (
                f"a second notebook for {exercise} (also {first.name}); the grader keeps the best"
            )
        self.records.append(Collected(learner, source, status, exercise, target, detail))

    def stamp(self) -> None:
        """nbgrader's ``timestamp.txt`` in each assignment folder: its newest file's time."""
        for folder in sorted(self.root.glob(f"*/{self.assignment}")):
            times = [p.stat().st_mtime for p in folder.glob("*.ipynb")]
            when = datetime.fromtimestamp(max(times) if times else 0, UTC)
            (folder / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S.%f %Z\n"))


def _home_candidates(sink: _Sink, home: Path, subdir: str) -> None:
    learner = home.name
    place = home / subdir if subdir else home
    if place.is_symlink():
        sink.report(learner, str(place), CollectStatus.SYMLINK, "a symbolic link, not followed")
        return
    if not place.is_dir():
        return  # nothing handed in: the empty folder made by the caller says so
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
        sink.add(learner, str(path), path.name, raw, when)


def collect_homes(
    root: Path,
    out: Path,
    *,
    assignment: str = "exercises",
    subdir: str = "exercises",
    roster: Iterable[str] | None = None,
) -> list[Collected]:
    """Copy every learner's ``<root>/<learner>/<subdir>/*.ipynb`` into ``out/submitted``.

    Returns one record per candidate (see the module rules). Raises ``FileNotFoundError``
    when ``root`` is not a folder.
    """
    if not root.is_dir():
        raise FileNotFoundError(f"no such folder: {root}")
    sink = _Sink(out, assignment)
    wanted = list(roster) if roster is not None else None
    for home in sorted(p for p in root.iterdir() if not p.name.startswith(".")):
        learner = home.name
        if home.is_symlink():
            sink.report(learner, str(home), CollectStatus.SYMLINK, "a symbolic link, not followed")
        elif not home.is_dir():
            continue
        elif not is_learner_name(learner):
            sink.report(learner, str(home), CollectStatus.BAD_NAME, "not a learner name")
        elif wanted is not None and learner not in wanted:
            sink.report(learner, str(home), CollectStatus.NOT_ON_ROSTER, "not on the roster")
        else:
            sink.folder(learner)
            _home_candidates(sink, home, subdir)
    for learner in wanted or ():
        sink.folder(learner)
    sink.stamp()
    return sink.records


def _zip_entry(
    sink: _Sink, archive: zipfile.ZipFile, info: zipfile.ZipInfo, wanted: list[str] | None
) -> None:
    name = info.filename.replace("\\", "/").rsplit("/", 1)[-1]
    source = info.filename
    match = LMS_NAME.match(name)
    learner = match.group("learner").lower() if match else ""
    if not match or not is_learner_name(learner):
        sink.report(learner, source, CollectStatus.BAD_NAME, "not named <learner>_<id>_<file>")
        return
    if wanted is not None and learner not in wanted:
        sink.report(learner, source, CollectStatus.NOT_ON_ROSTER, "not on the roster")
        return
    if stat.S_ISLNK(info.external_attr >> 16):
        sink.report(learner, source, CollectStatus.SYMLINK, "a symbolic link entry, not followed")
        return
    if not match.group("file").endswith(".ipynb"):
        sink.report(learner, source, CollectStatus.NOT_NOTEBOOK, "not an .ipynb file")
        return
    if info.file_size > MAX_NOTEBOOK_BYTES:
        sink.report(
            learner, source, CollectStatus.UNREADABLE, f"too large ({info.file_size} bytes)"
        )
        return
    try:
        with archive.open(info) as fh:
            raw = fh.read(MAX_NOTEBOOK_BYTES + 1)
    except (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError) as exc:
        sink.report(learner, source, CollectStatus.UNREADABLE, f"{type(exc).__name__}: {exc}"[:200])
        return
    if len(raw) > MAX_NOTEBOOK_BYTES:
        sink.report(learner, source, CollectStatus.UNREADABLE, "larger than its entry says")
        return
    when = datetime(*info.date_time, tzinfo=UTC).timestamp()
    sink.add(learner, source, match.group("file"), raw, when)


def collect_zip(
    archive: Path, out: Path, *, assignment: str = "exercises", roster: Iterable[str] | None = None
) -> list[Collected]:
    """Copy the notebooks of an LMS download zip into ``out/submitted``.

    Returns one record per file entry (see the module rules); entries are taken in the
    order of their ``<id>`` so that a resubmission comes after the first upload. Raises
    ``FileNotFoundError`` for a missing file and ``ValueError`` for one that is not a zip.
    """
    if not archive.is_file():
        raise FileNotFoundError(f"no such file: {archive}")
    sink = _Sink(out, assignment)
    wanted = list(roster) if roster is not None else None
    try:
        with zipfile.ZipFile(archive) as zf:
            entries = [i for i in zf.infolist() if not i.is_dir()]
            entries = [i for i in entries if not i.filename.startswith("__MACOSX/")]

            def order(info: zipfile.ZipInfo) -> tuple[int, str]:
                match = LMS_NAME.match(info.filename.rsplit("/", 1)[-1])
                return (int(match.group("id")) if match else 0, info.filename)

            for info in sorted(entries, key=order):
                _zip_entry(sink, zf, info, wanted)
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{archive}: not a zip file ({exc})") from None
    for learner in wanted or ():
        sink.folder(learner)
    sink.stamp()
    return sink.records


def collect(
    source: Path,
    out: Path,
    *,
    assignment: str = "exercises",
    subdir: str = "exercises",
    roster: Iterable[str] | None = None,
) -> list[Collected]:
    """:func:`collect_zip` for a ``.zip`` file, :func:`collect_homes` for a folder."""
    if source.is_file() and source.suffix.lower() == ".zip":
        return collect_zip(source, out, assignment=assignment, roster=roster)
    return collect_homes(source, out, assignment=assignment, subdir=subdir, roster=roster)
