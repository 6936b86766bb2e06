"""Built-in tools (Read, Write, Edit, Grep, Glob, Python) confined to one workspace folder.

A :class:`Tool` is a name, a description, a JSON Schema for its input and a function
from the (validated) input to text. :meth:`Tool.run` is total: invalid input, a path
outside the workspace, a :class:`ToolError` and any other exception raised by the
function all come back as a :class:`ToolResult` with ``is_error=True``, so the agent
loop always has exactly one result per call. Every path goes through
:meth:`Workspace.resolve`, which follows symlinks and ``..`` before it compares, so
``../x`` and a symlink pointing out of the folder are refused alike. Files are then opened
component by component from a descriptor of the workspace folder with ``O_NOFOLLOW``, so a
path swapped for a symlink between that check and the use is refused, not followed
(:class:`SwappedPathError`). Grep matches with RE2 (``google-re2``: linear time, the
guarantee ripgrep gives Claude Code's Grep); a pattern only Python's ``re`` understands
(back-references, look-around) runs in a child process with a time limit. The Python tool
delegates to :func:`mcpmini.agent.run_python`.
"""

from __future__ import annotations

import errno
import fnmatch
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import re2

from ..errors import McpminiError, json_path
from ..mcp import Validator
from ..permissions import PermissionRules
from ..process import Ending
from ..process import run as run_process
from .sandbox import Limits, run_python

__all__ = [
    "SwappedPathError",
    "Tool",
    "ToolError",
    "ToolResult",
    "Workspace",
    "WorkspaceError",
    "builtin_tools",
]


class ToolError(McpminiError):
    """A tool failed in a way the model can act on (becomes an ``is_error`` result)."""


class WorkspaceError(ToolError):
    """A path points outside the workspace folder; ``path`` is the path as given."""

    def __init__(self, path: str, root: Path) -> None:
        super().__init__(f"path {path!r} is outside the workspace {str(root)!r}")
        self.path = path
        self.root = root


class SwappedPathError(ToolError):
    """A path component became a symlink (or vanished) between the check and the use."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"refused {path!r}: it changed to a symlink or moved between the "
            "permission check and the use; nothing was written or read"
        )
        self.path = path


class GrepTimeoutError(ToolError):
    """A pattern that RE2 cannot run took longer than the limit with Python ``re``."""


@dataclass(frozen=True)
class ToolResult:
    """The text of one tool result and whether it reports an error."""

    content: str
    is_error: bool = False


@dataclass(frozen=True)
class Tool:
    """A tool the loop can offer to a model; ``fn`` gets the validated input dict."""

    name: str
    description: str
    input_schema: dict[str, Any]
    fn: Callable[[dict[str, Any]], str | ToolResult] = field(repr=False)

    def definition(self) -> dict[str, Any]:
        """The definition sent to a model: ``name``, ``description``, ``input_schema``."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }

    @cached_property
    def _validator(self) -> Validator:
        """One validator per tool, built on first use (as :mod:`mcpmini.mcp.schema` does)."""
        return Validator(self.input_schema)

    def run(self, tool_input: Any) -> ToolResult:
        """Validate ``tool_input`` and call the tool; never raises for a failing tool.

        Invalid input is one error result naming each problem at its :func:`json_path`
        (``edits[0].old_string: … is a required property``).
        """
        problems = [
            (f"{json_path(path)}: " if path else "") + message
            for path, message in self._validator.problems(tool_input)
        ]
        if problems:
            return ToolResult("Invalid input: " + "; ".join(problems), True)
        try:
            out = self.fn(tool_input)
        except ToolError as exc:
            return ToolResult(str(exc), True)
        except Exception as exc:
            return ToolResult(f"{type(exc).__name__}: {exc}", True)
        return out if isinstance(out, ToolResult) else ToolResult(str(out))


class Workspace:
    """The one folder every built-in tool may touch."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ToolError(f"workspace {str(root)!r} is not a folder")

    def resolve(self, path: str) -> Path:
        """The absolute path for ``path`` (relative to the root, or absolute).

        Raises :class:`WorkspaceError` when it lies outside the workspace after
        ``..`` and symlinks are followed.
        """
        full = (self.root / path).resolve()
        if full != self.root and self.root not in full.parents:
            raise WorkspaceError(path, self.root)
        return full

    def relative(self, path: Path) -> str:
        """``path`` written relative to the root, with forward slashes."""
        return path.relative_to(self.root).as_posix()

    @contextmanager
    def _parent_fd(self, path: Path, create: bool) -> Iterator[int]:
        """A descriptor of ``path``'s folder, reached from the root one component at a time
        with ``O_NOFOLLOW`` (``create``: make missing folders). Raises SwappedPathError."""
        parts = path.relative_to(self.root).parts[:-1]
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.root, flags)
        try:
            for part in parts:
                try:
                    if create:
                        try:
                            os.mkdir(part, 0o777, dir_fd=fd)
                        except FileExistsError:
                            pass
                    nxt = os.open(part, flags, dir_fd=fd)
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                        raise SwappedPathError(self.relative(path)) from None
                    raise
                os.close(fd)
                fd = nxt
            yield fd
        finally:
            os.close(fd)

    def read_text(self, path: Path) -> str:
        """Read a checked path without following a symlink put there since the check."""
        with self._parent_fd(path, create=False) as parent:
            try:
                fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=parent)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise SwappedPathError(self.relative(path)) from None
                raise
            with os.fdopen(fd, "rb") as fh:
                return fh.read().decode("utf-8", errors="replace")

    def write_text(self, path: Path, text: str) -> None:
        """Write a checked path (folders created) without following a symlink put there."""
        with self._parent_fd(path, create=True) as parent:
            try:
                fd = os.open(
                    path.name,
                    os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW,
                    0o666,
                    dir_fd=parent,
                )
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise SwappedPathError(self.relative(path)) from None
                raise
            with os.fdopen(fd, "wb") as fh:
                fh.write(text.encode("utf-8"))


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False
_FALLBACK = """
import json, re, sys
job = json.load(sys.stdin)
rx = re.compile(job["pattern"])
hits = []
for name in job["files"]:
    with open(name, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh.read().splitlines(), 1):
            if rx.search(line):
                hits.append([name, n, line])
                if len(hits) > job["cap"]:
                    break
json.dump(hits, sys.stdout)
"""


def _python_grep(
    pattern: str, files: list[Path], cap: int, timeout: float
) -> list[tuple[Path, int, str]]:
    """Search with Python ``re`` in a child process, killed after ``timeout`` seconds."""
    job = json.dumps({"pattern": pattern, "files": [str(f) for f in files], "cap": cap})
    done = run_process(
        [sys.executable, "-I", "-c", _FALLBACK],
        stdin=job.encode(),
        timeout=timeout,
        cap=64 * 1024 * 1024,
        stop_at_cap=True,
    )
    if done.ending is Ending.TIMEOUT:
        raise GrepTimeoutError(
            f"pattern {pattern!r} needs Python re (RE2 lacks its syntax) and took longer "
            f"than {timeout:g} s; simplify it (no back-references or look-around)"
        )
    if done.ending is not Ending.EXITED or done.exit_code != 0:
        detail = done.start_error or done.stderr.decode(errors="replace").strip().splitlines()[-1:]
        raise ToolError(f"search failed ({done.ending.value}): {detail}")
    return [(Path(name), n, line) for name, n, line in json.loads(done.stdout)]


def _schema(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


_STR = {"type": "string"}


class _Builtins:
    """The six tools' functions over one workspace, and what Grep and Glob leave out."""

    def __init__(
        self,
        ws: Workspace,
        limits: Limits | None,
        max_matches: int,
        grep_timeout: float,
        rules: PermissionRules | None,
        home: str | None,
    ) -> None:
        self.ws, self.limits, self.max_matches = ws, limits, max_matches
        self.grep_timeout, self.rules, self.home = grep_timeout, rules, home

    def hidden(self, path: Path) -> bool:
        """Whether a ``Read`` deny rule covers ``path`` (then Grep and Glob skip it)."""
        if self.rules is None:
            return False
        found = self.rules.first(
            "deny", "Read", {"file_path": str(path)}, cwd=str(self.ws.root), home=self.home
        )
        return found is not None

    def searchable(self, path: Path) -> Path | None:
        """``path`` resolved inside the workspace and not hidden, or ``None`` to skip it (a
        symlink leading out of the workspace is skipped, not read)."""
        try:
            real = self.ws.resolve(str(path))
        except WorkspaceError:
            return None
        return None if self.hidden(path) or self.hidden(real) else real

    def _file(self, given: str) -> Path:
        path = self.ws.resolve(given)
        if not path.is_file():
            raise ToolError(f"no such file: {given}")
        return path

    def _capped(self, lines: list[str], empty: str) -> str:
        cap = self.max_matches
        more = f"\n... {len(lines) - cap} more" if len(lines) > cap else ""
        return "\n".join(lines[:cap]) + more if lines else empty

    def read(self, inp: dict[str, Any]) -> str:
        lines = self.ws.read_text(self._file(inp["file_path"])).splitlines()
        start = inp.get("offset", 1)
        stop = start - 1 + inp.get("limit", len(lines))
        return "\n".join(f"{n:>6}\t{lines[n - 1]}" for n in range(start, min(stop, len(lines)) + 1))

    def write(self, inp: dict[str, Any]) -> str:
        path = self.ws.resolve(inp["file_path"])
        if path == self.ws.root or path.is_dir():
            raise ToolError(f"{inp['file_path']!r} is a folder")
        self.ws.write_text(path, inp["content"])
        return f"wrote {len(inp['content'])} characters to {self.ws.relative(path)}"

    def edit(self, inp: dict[str, Any]) -> str:
        path = self._file(inp["file_path"])
        text = self.ws.read_text(path)
        old, new, every = inp["old_string"], inp["new_string"], inp.get("replace_all", False)
        count = text.count(old) if old else 0
        where = self.ws.relative(path)
        if count == 0:
            raise ToolError(f"old_string not found in {where}")
        if count > 1 and not every:
            raise ToolError(
                f"old_string occurs {count} times in {where}; "
                "add surrounding text to make it unique or set replace_all"
            )
        self.ws.write_text(path, text.replace(old, new) if every else text.replace(old, new, 1))
        return f"replaced {count if every else 1} occurrence(s) in {where}"

    def grep(self, inp: dict[str, Any]) -> str:
        pattern = inp["pattern"]
        rx = _compile(pattern)
        base = self.ws.resolve(inp.get("path", "."))
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        wanted = inp.get("glob")
        named = [f for f in files if not wanted or fnmatch.fnmatch(f.name, wanted)]
        checked = [real for f in named if (real := self.searchable(f)) is not None]
        if rx is None:
            found = _python_grep(pattern, checked, self.max_matches, self.grep_timeout)
        else:
            found = [
                (f, n, line)
                for f in checked
                for n, line in enumerate(self.ws.read_text(f).splitlines(), 1)
                if rx.search(line)
            ]
        hits = [f"{self.ws.relative(f)}:{n}:{line}" for f, n, line in found]
        return self._capped(hits, "no matches")

    def glob(self, inp: dict[str, Any]) -> str:
        pat = inp["pattern"]
        if os.path.isabs(pat) or ".." in Path(pat).parts:
            raise WorkspaceError(pat, self.ws.root)
        base = self.ws.resolve(inp.get("path", "."))
        reals = [real for p in base.glob(pat) if (real := self.searchable(p)) is not None]
        return self._capped(sorted({self.ws.relative(r) for r in reals}), "no files")

    def python(self, inp: dict[str, Any]) -> ToolResult:
        result = run_python(inp["code"], self.ws.root, self.limits)
        return ToolResult(result.as_text(), not result.ok)


def _compile(pattern: str) -> Any:
    """The RE2 program for ``pattern``, or ``None`` when only Python ``re`` reads it (then
    Grep runs it in a time-limited child). Raises :class:`ToolError` when neither does."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ToolError(f"invalid regular expression: {exc}") from None
    return None


#: The built-in tools as data: name, description, input properties, required keys.
_TOOLS: tuple[tuple[str, str, dict[str, Any], list[str]], ...] = (
    (
        "Read",
        "Read a text file of the workspace; lines come numbered.",
        {
            "file_path": _STR,
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1},
        },
        ["file_path"],
    ),
    (
        "Write",
        "Write a text file in the workspace, replacing it if it exists.",
        {"file_path": _STR, "content": _STR},
        ["file_path", "content"],
    ),
    (
        "Edit",
        "Replace one exact, unique piece of text in a workspace file.",
        {
            "file_path": _STR,
            "old_string": _STR,
            "new_string": _STR,
            "replace_all": {"type": "boolean"},
        },
        ["file_path", "old_string", "new_string"],
    ),
    (
        "Grep",
        "Search file contents in the workspace with a regular expression.",
        {"pattern": _STR, "path": _STR, "glob": _STR},
        ["pattern"],
    ),
    (
        "Glob",
        "Find workspace files by name pattern such as **/*.py.",
        {"pattern": _STR, "path": _STR},
        ["pattern"],
    ),
    (
        "Python",
        "Run Python code in a sandbox (time, CPU, memory and output "
        "limits, no network) inside the workspace.",
        {"code": _STR},
        ["code"],
    ),
)


def builtin_tools(
    workspace: str | os.PathLike[str] | Workspace,
    limits: Limits | None = None,
    max_matches: int = 200,
    grep_timeout: float = 5.0,
    rules: PermissionRules | None = None,
    home: str | None = None,
) -> list[Tool]:
    """The six built-in tools bound to one workspace folder.

    ``limits`` applies to the Python tool, ``max_matches`` caps Grep and Glob output,
    ``grep_timeout`` bounds a Grep whose pattern needs Python ``re`` (RE2 needs none).
    ``rules``: files a ``Read`` deny rule covers (``home`` anchors ``~``) are left out of
    Grep and Glob results even when an enclosing folder is searched.
    Raises :class:`ToolError` when the folder does not exist.
    """
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    tools = _Builtins(ws, limits, max_matches, grep_timeout, rules, home)
    return [
        Tool(name, description, _schema(props, required), getattr(tools, name.lower()))
        for name, description, props, required in _TOOLS
    ]
