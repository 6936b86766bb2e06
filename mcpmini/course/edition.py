"""The English edition, built from the Japanese notebooks and one gettext catalogue each.

Japanese is the authoring language. Every notebook of the course (``notebooks/``,
``exercises/``, ``solutions/``) has an English catalogue ``i18n/en/<path>.po`` holding one entry
per markdown cell: the cell id as ``msgctxt``, the Japanese source as ``msgid``, the English as
``msgstr``. Code cells are never extracted, so the two editions' code is identical by
construction. The English notebooks are generated into ``en/<path>.ipynb`` (never edited by
hand): markdown from the catalogue, everything else from the Japanese notebook, then executed
in ``en/``, whose marker file (:data:`~.language.EDITION_MARKER`) makes every kernel there
speak English.

The steps, each a function and a subcommand of ``python -m mcpmini.course.edition``:

- :func:`extract` adds an entry for every new markdown cell, marks an entry *fuzzy* (keeping
  the old text as ``previous msgid``) when its Japanese cell changed, and makes an entry whose
  cell is gone obsolete;
- :func:`todo` lists the entries still to write (untranslated or fuzzy) as YAML, and
  :func:`apply` takes a YAML mapping of cell id → English back into the catalogue;
- :func:`build` writes the English notebooks (executed unless told otherwise);
- :func:`purity_problems` checks the Japanese edition: an output line that reads as English
  prose or an English label (:func:`english_lines`) outside the cells
  ``i18n/ja-english-outputs.yaml`` lists with a reason;
- :func:`problems` is what the tests assert is empty: a missing, untranslated or fuzzy entry,
  an entry whose numbers, code spans or link targets differ from its Japanese cell's, an
  English notebook that is stale or was edited by hand (its cells are not what a build gives),
  and Japanese characters anywhere in the English edition.

Libraries: ``polib`` reads and writes the catalogues, ``nbformat`` the notebooks and
``nbclient`` runs them.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .language import EDITION_MARKER, LANG_ENV, Lang

__all__ = [
    "CATALOGUE_DIR",
    "EDITION_DIR",
    "ENGLISH_WORDS",
    "SOURCE_DIRS",
    "EditionProblem",
    "apply",
    "build",
    "build_notebook",
    "catalogue_path",
    "edition_path",
    "english_allowed",
    "english_lines",
    "extract",
    "japanese_chars",
    "main",
    "placeholder_differences",
    "placeholders",
    "problems",
    "purity_problems",
    "sources",
    "todo",
]

#: The folders, under the repository root, that hold the Japanese notebooks.
SOURCE_DIRS = ("notebooks", "exercises", "solutions")
#: Where the English catalogues live, mirroring the source paths.
CATALOGUE_DIR = Path("i18n") / "en"
#: The English edition's top folder (it carries the edition marker).
EDITION_DIR = Path("en")
#: The cells of the Japanese edition allowed to print English lines, each with its reason
#: (notebook path → cell id → why): a runtime message or the workbench CLI's own output.
ENGLISH_ALLOWED = Path("i18n") / "ja-english-outputs.yaml"

_JAPANESE = re.compile(
    r"[\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]"
)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_URL = re.compile(r"https?://[^\s)>\]]+")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:[.,]\d+)*(?![A-Za-z0-9_])")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


#: Words that mark a line of output as English prose or an English label: function words and
#: the nouns and verbs the course's labels use. Protocol values (``allow``, ``deny``, mode and
#: outcome names) are not among them, so ``決定: allow`` reads as Japanese.
ENGLISH_WORDS = frozenset(
    """
    the a an of to in on for with by at from is are was were be been being has have had not
    no and or but if then than this that these those it its as which who what when where how
    all each every per only also there here do does did can cannot will would should may
    might must yet still already same other first last next before after because so such
    more most less very too tool tools server servers client clients result results outcome
    outcomes error errors call calls request requests reply replies response message
    messages file files line lines name names count total time size token tokens cost costs
    step steps rule rules hook hooks decision decisions final passed failed fails match
    matches matched version versions chars characters bytes items item exit code status
    pairs pair choices holds succeed succeeds run runs ran example examples listing budget
    description descriptions skill skills plugin plugins scope scopes source sources value
    values answer answers part parts correct incorrect attempted hint solution points score
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
#: Output lines that are code by shape: wire lines, JSON, reprs, matplotlib's figure repr.
_CODE_LINE = re.compile(r"^\s*(?:[CS]→[CS]\s|[{\[]|<Figure size \S+ with \d+ Axes>|\w+\(.*\)\s*$)")
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`")
#: Product names read as names, not as English words ("Claude Code" holds "code").
_PRODUCTS = re.compile(r"\bClaude Code\b")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")


def english_lines(nb: Any) -> list[tuple[str, str]]:
    """The lines of ``nb``'s text outputs that read as English prose or English labels:
    ``(cell id, line)`` pairs. Quoted strings, tokens holding code punctuation, wire lines,
    JSON and reprs are not read."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            for line in "".join(text).splitlines():
                if _is_english(line):
                    found.append((cell.id, line))
    return found


def _is_english(line: str) -> bool:
    if _CODE_LINE.match(line):
        return False
    words: list[str] = []
    for token in _PRODUCTS.sub(" ", _QUOTED.sub(" ", line)).split():
        bare = token.strip(",;:!?()[]{}")
        if not bare or any(ch in bare for ch in "_/.=()[]{}<>#@$\\|*~+") or bare[0].isdigit():
            continue
        words.extend(w.lower() for w in _WORD.findall(bare))
    return any(w in ENGLISH_WORDS for w in words)


def english_allowed(root: Path) -> dict[str, dict[str, str]]:
    """The justified English outputs of the Japanese edition (:data:`ENGLISH_ALLOWED`)."""
    import yaml

    path = root / ENGLISH_ALLOWED
    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {
        str(nb): {str(c): str(why) for c, why in (cells or {}).items()}
        for nb, cells in data.items()
    }


def purity_problems(root: Path, notebooks: Sequence[Path] | None = None) -> list[EditionProblem]:
    """English lines in the Japanese edition's outputs outside the justified cells, and listed
    cells that no longer print English (the list must stay true)."""
    allowed = english_allowed(root)
    found = []
    for notebook in notebooks or sources(root):
        name = str(notebook)
        mine = allowed.get(name, {})
        lines = english_lines(_read_notebook(root / notebook))
        for cell_id, line in lines:
            if cell_id not in mine:
                found.append(EditionProblem(name, cell_id, f"English output: {line.strip()[:90]}"))
        printing = {cell_id for cell_id, _ in lines}
        for cell_id in sorted(set(mine) - printing):
            found.append(EditionProblem(name, cell_id, "listed as English output but prints none"))
    return found


@dataclass(frozen=True)
class EditionProblem:
    """One thing wrong with the English edition: the notebook, the cell (or ``""``), what."""

    notebook: str
    cell: str
    message: str

    def __str__(self) -> str:
        where = f"{self.notebook} cell {self.cell}" if self.cell else self.notebook
        return f"{where}: {self.message}"


def sources(root: Path) -> list[Path]:
    """The Japanese notebooks under ``root``, as paths relative to it, sorted."""
    found = []
    for folder in SOURCE_DIRS:
        for path in sorted((root / folder).rglob("*.ipynb")):
            rel = path.relative_to(root)
            if ".ipynb_checkpoints" not in rel.parts:
                found.append(rel)
    return found


def catalogue_path(root: Path, notebook: Path) -> Path:
    """The catalogue of ``notebook`` (a path relative to ``root``)."""
    return root / CATALOGUE_DIR / notebook.with_suffix(".po")


def edition_path(root: Path, notebook: Path) -> Path:
    """Where the English edition of ``notebook`` is written."""
    return root / EDITION_DIR / notebook


def japanese_chars(text: str) -> int:
    """How many Japanese characters (kana, kanji, full-width forms and CJK punctuation)."""
    return len(_JAPANESE.findall(text))


def placeholders(text: str) -> dict[str, list[str]]:
    """What a translation must carry over unchanged: code spans, link targets and URLs, and
    the numbers outside them (after NFKC, so ``３`` is ``3``), each sorted."""
    text = unicodedata.normalize("NFKC", text)
    fences = _FENCE.findall(text)
    body = _FENCE.sub(" ", text)
    code = sorted(m.group(2).strip() for m in _CODE_SPAN.finditer(body))
    body = _CODE_SPAN.sub(" ", body)
    links = sorted(_LINK.findall(body))
    body = _LINK.sub("] ", body)
    urls = sorted(_URL.findall(body))
    body = _URL.sub(" ", body)
    numbers = sorted(_NUMBER.findall(body))
    return {"code": code, "links": links, "urls": urls, "numbers": numbers, "fences": fences}


#: Small numbers English spells out ("three roles", "one client per server", "twice"): each
#: stands for its digit when a translation is compared with its Japanese cell.
NUMBER_WORDS = {
    "zero": "0", "no": "0", "none": "0", "one": "1", "once": "1", "single": "1", "two": "2",
    "twice": "2", "both": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
}  # fmt: skip


def placeholder_differences(japanese: str, english: str) -> list[str]:
    """How a translation's placeholders differ from its Japanese cell's (``[]``: they agree).

    Code spans, code fences, link targets and URLs must be the same, as many times each. Every
    number of the Japanese must be in the English, as digits or as a spelled-out small number
    (:data:`NUMBER_WORDS`), and the English may bring no number of its own in digits.
    """
    want, got = placeholders(japanese), placeholders(english)
    found = []
    for kind in ("code", "fences", "links", "urls"):
        if want[kind] != got[kind]:
            lost = sorted(set(want[kind]) - set(got[kind]))
            extra = sorted(set(got[kind]) - set(want[kind]))
            if not lost and not extra:
                lost = ["(a different count of the same)"]
            found.append(f"{kind} differ: missing {lost}, extra {extra}")
    required, digits = set(want["numbers"]), set(got["numbers"])
    words = {NUMBER_WORDS[w.lower()] for w in _WORD.findall(english) if w.lower() in NUMBER_WORDS}
    lost, extra = sorted(required - digits - words), sorted(digits - required)
    if lost or extra:
        found.append(f"numbers differ: missing {lost}, extra {extra}")
    return found


def _read_notebook(path: Path) -> Any:
    import nbformat

    return nbformat.read(path, as_version=4)


def _catalogue(path: Path) -> Any:
    import polib

    if path.exists():
        return polib.pofile(str(path), wrapwidth=0)
    po = polib.POFile(wrapwidth=0)
    po.metadata = {
        "Project-Id-Version": "mcpmini-course",
        "Language": "en",
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
    }
    return po


def _entries(po: Any) -> dict[str, Any]:
    """The live entries of a catalogue by cell id."""
    return {e.msgctxt: e for e in po if not e.obsolete}


def _markdown(nb: Any) -> Iterator[tuple[str, str]]:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            yield cell.id, cell.source


@dataclass(frozen=True)
class ExtractCount:
    """What :func:`extract` did to one catalogue."""

    notebook: str
    added: int
    changed: int
    obsolete: int


def extract(root: Path, notebooks: Iterable[Path] | None = None) -> list[ExtractCount]:
    """Bring each catalogue up to date with its Japanese notebook; returns what changed.

    A new markdown cell gets an empty entry, a changed one keeps its English but turns fuzzy
    (``previous msgid`` holds the Japanese it was written for), and an entry whose cell is gone
    becomes obsolete. Unchanged catalogues are not rewritten.
    """
    import polib

    counts = []
    for notebook in notebooks or sources(root):
        nb = _read_notebook(root / notebook)
        path = catalogue_path(root, notebook)
        po = _catalogue(path)
        live = _entries(po)
        added = changed = gone = 0
        ids = []
        for cell_id, text in _markdown(nb):
            ids.append(cell_id)
            entry = live.get(cell_id)
            if entry is None:
                po.append(polib.POEntry(msgctxt=cell_id, msgid=text, msgstr=""))
                added += 1
            elif entry.msgid != text:
                if entry.msgstr and "fuzzy" not in entry.flags:
                    entry.previous_msgid = entry.msgid
                    entry.flags.append("fuzzy")
                entry.msgid = text
                changed += 1
        for cell_id, entry in live.items():
            if cell_id not in ids:
                entry.obsolete = True
                gone += 1
        if added or changed or gone or not path.exists():
            order = {cell_id: i for i, cell_id in enumerate(ids)}
            po.sort(key=lambda e: (e.obsolete, order.get(e.msgctxt, len(order))))
            path.parent.mkdir(parents=True, exist_ok=True)
            po.save(str(path))
        counts.append(ExtractCount(str(notebook), added, changed, gone))
    return counts


def todo(root: Path, notebook: Path) -> str:
    """The entries of ``notebook``'s catalogue still to write, as YAML: per cell id the
    Japanese, the previous English of a fuzzy entry, and an empty ``en`` to fill in."""
    po = _catalogue(catalogue_path(root, notebook))
    rows: dict[str, dict[str, str]] = {}
    for entry in po:
        if entry.obsolete or (entry.msgstr and "fuzzy" not in entry.flags):
            continue
        row = {"ja": entry.msgid}
        if entry.msgstr:
            row["was_ja"] = entry.previous_msgid or ""
            row["was_en"] = entry.msgstr
        row["en"] = ""
        rows[entry.msgctxt] = row
    import yaml

    return yaml.dump(rows, Dumper=_block_dumper(), allow_unicode=True, sort_keys=False, width=100)


def _block_dumper() -> Any:
    import yaml

    class Dumper(yaml.SafeDumper):  # type: ignore[misc]
        """Multi-line strings as ``|`` blocks, so markdown reads (and is written) as it is."""

    def text(dumper: Any, value: str) -> Any:
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return Dumper


def apply(root: Path, notebook: Path, english: dict[str, str]) -> list[str]:
    """Write ``english`` (cell id → English markdown) into ``notebook``'s catalogue, clearing
    fuzzy flags. Returns the ids it did not know (nothing is written when there are any)."""
    path = catalogue_path(root, notebook)
    po = _catalogue(path)
    live = _entries(po)
    unknown = sorted(cell_id for cell_id in english if cell_id not in live)
    if unknown:
        return unknown
    for cell_id, text in english.items():
        entry = live[cell_id]
        entry.msgstr = text
        if "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
        entry.previous_msgid = None
    po.save(str(path))
    return []


def build_notebook(root: Path, notebook: Path) -> tuple[Any, list[EditionProblem]]:
    """The English notebook of ``notebook`` before execution, and what stops it being built.

    Markdown comes from the catalogue; code cells, ids, cell metadata and the notebook's
    metadata from the Japanese notebook (``metadata.mcpmini.edition`` set to ``en``); outputs
    are cleared.
    """
    nb = _read_notebook(root / notebook)
    entries = _entries(_catalogue(catalogue_path(root, notebook)))
    found: list[EditionProblem] = []
    out = copy.deepcopy(nb)
    out.metadata.pop("widgets", None)
    out.metadata.setdefault("mcpmini", {})["edition"] = Lang.EN.value
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
        if cell.cell_type != "markdown":
            continue
        entry = entries.get(cell.id)
        if entry is None:
            found.append(EditionProblem(str(notebook), cell.id, "no catalogue entry"))
        elif entry.msgid != cell.source:
            found.append(EditionProblem(str(notebook), cell.id, "catalogue out of date: extract"))
        elif not entry.msgstr:
            found.append(EditionProblem(str(notebook), cell.id, "not translated"))
        elif "fuzzy" in entry.flags:
            found.append(EditionProblem(str(notebook), cell.id, "fuzzy: the Japanese changed"))
        else:
            cell.source = entry.msgstr
    return out, found


def _execute(nb: Any, folder: Path, timeout: int) -> None:
    from nbclient import NotebookClient

    # The kernel starts in the notebook's folder under en/, so the edition marker alone makes
    # it speak English; the environment (set by build) says the same and keeps progress off.
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    )
    client.execute()


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def build(
    root: Path,
    notebooks: Iterable[Path] | None = None,
    *,
    execute: bool = True,
    timeout: int = 600,
    jobs: int = 2,
) -> list[EditionProblem]:
    """Write the English edition of ``notebooks`` (default: all) under ``en/``, executed
    unless ``execute`` is false. A notebook with a problem is not written; returns them all."""
    import nbformat

    marker = root / EDITION_DIR / EDITION_MARKER
    marker.parent.mkdir(parents=True, exist_ok=True)
    if not marker.exists():
        marker.write_text(Lang.EN.value + "\n", encoding="utf-8")

    def one(notebook: Path) -> list[EditionProblem]:
        nb, found = build_notebook(root, notebook)
        if found:
            return found
        target = edition_path(root, notebook)
        target.parent.mkdir(parents=True, exist_ok=True)
        if execute:
            try:
                _execute(nb, target.parent, timeout)
            except Exception as exc:  # a failing cell: report it, keep building the others
                return [EditionProblem(str(notebook), "", f"execution failed: {exc}")]
        nbformat.write(nb, target)
        return []

    todo_list = list(notebooks or sources(root))
    env = {LANG_ENV: Lang.EN.value, "MCPMINI_PROGRESS": "off"}
    with _environment(env), ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, todo_list))
    return [p for found in results for p in found]


def _cells(nb: Any) -> list[tuple[str, str, str, dict[str, Any]]]:
    """What a hand edit or a stale build changes: each cell's id, type, source and metadata
    (without execution timings)."""
    rows = []
    for cell in nb.cells:
        meta = {k: v for k, v in cell.metadata.items() if k != "execution"}
        rows.append((cell.id, cell.cell_type, cell.source, meta))
    return rows


def problems(root: Path, notebooks: Sequence[Path] | None = None) -> list[EditionProblem]:
    """Everything the tests require to be empty (see the module docstring)."""
    found: list[EditionProblem] = []
    for notebook in notebooks or sources(root):
        name = str(notebook)
        expected, missing = build_notebook(root, notebook)
        found.extend(missing)
        entries = _entries(_catalogue(catalogue_path(root, notebook)))
        for cell_id, ja in _markdown(_read_notebook(root / notebook)):
            entry = entries.get(cell_id)
            if entry is None or not entry.msgstr:
                continue
            for difference in placeholder_differences(ja, entry.msgstr):
                found.append(EditionProblem(name, cell_id, difference))
        target = edition_path(root, notebook)
        if not target.exists():
            found.append(EditionProblem(name, "", "no English notebook: build"))
            continue
        built = _read_notebook(target)
        if not missing and _cells(built) != _cells(expected):
            found.append(EditionProblem(name, "", "English notebook is stale or edited by hand"))
        chars = japanese_chars(Path(target).read_text(encoding="utf-8"))
        if chars:
            found.append(EditionProblem(name, "", f"{chars} Japanese characters in English"))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mcpmini.course.edition extract|todo|apply|build|check|purity [NOTEBOOK …]``."""
    import yaml

    parser = argparse.ArgumentParser(prog="python -m mcpmini.course.edition")
    parser.add_argument("command", choices=["extract", "todo", "apply", "build", "check", "purity"])
    parser.add_argument("notebooks", nargs="*", type=Path, help="Japanese notebooks (default: all)")
    parser.add_argument("--root", type=Path, default=Path.cwd())
    parser.add_argument("--file", type=Path, help="apply: YAML of cell id → English")
    parser.add_argument("--no-execute", action="store_true", help="build: do not run the cells")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    notebooks = [
        (p.resolve().relative_to(root) if p.is_absolute() or p.exists() else p)
        for p in args.notebooks
    ] or None
    if args.command == "extract":
        for count in extract(root, notebooks):
            if count.added or count.changed or count.obsolete:
                print(
                    f"{count.notebook}: {count.added} new, {count.changed} changed (fuzzy), "
                    f"{count.obsolete} obsolete"
                )
        return 0
    if args.command == "todo":
        for notebook in notebooks or sources(root):
            print(f"# {notebook}")
            print(todo(root, notebook))
        return 0
    if args.command == "apply":
        if not notebooks or len(notebooks) != 1 or args.file is None:
            print("apply takes one notebook and --file FILE.yaml", file=sys.stderr)
            return 2
        rows = yaml.safe_load(args.file.read_text(encoding="utf-8")) or {}
        english = {str(k): (v["en"] if isinstance(v, dict) else v) for k, v in rows.items() if v}
        english = {k: v for k, v in english.items() if v}
        unknown = apply(root, notebooks[0], english)
        if unknown:
            print(f"unknown cell ids, nothing written: {', '.join(unknown)}", file=sys.stderr)
            return 2
        print(f"{notebooks[0]}: {len(english)} entries written")
        return 0
    if args.command == "build":
        found = build(root, notebooks, execute=not args.no_execute, jobs=args.jobs)
    elif args.command == "purity":
        found = purity_problems(root, notebooks)
    else:
        found = problems(root, notebooks)
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
