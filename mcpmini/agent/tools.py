"""Built-in tools (Read, Write, Edit, Grep, Glob, Python) confined to one workspace folder.

A :class:`Tool` is a name, a description, a JSON Schema for its input and a function
from the (validated) input to text. :meth:`Tool.run` is total: invalid input, a path
outside the workspace, a :class:`ToolError` and any other exception raised by the
function all come back as a :class:`ToolResult` with ``is_error=True``, so the agent
loop always has exactly one result per call. Every path goes through
:meth:`Workspace.resolve`, which follows symlinks and ``..`` before it compares, so
``../x`` and a symlink pointing out of the folder are refused alike. The Python tool
delegates to :func:`mcpmini.agent.run_python`.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from ..errors import McpminiError
from .sandbox import Limits, run_python

__all__ = [
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
        return {"name": self.name, "description": self.description,
                "input_schema": self.input_schema}

    def run(self, tool_input: Any) -> ToolResult:
        """Validate ``tool_input`` and call the tool; never raises for a failing tool."""
        validator = jsonschema.Draft202012Validator(self.input_schema)
        problems = [
            ("/".join(map(str, e.absolute_path)) + ": " if e.absolute_path else "") + e.message
            for e in validator.iter_errors(tool_input)
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


def _schema(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


_STR = {"type": "string"}


def builtin_tools(
    workspace: str | os.PathLike[str] | Workspace,
    limits: Limits | None = None,
    max_matches: int = 200,
) -> list[Tool]:
    """The six built-in tools bound to one workspace folder.

    ``limits`` applies to the Python tool, ``max_matches`` caps Grep and Glob output.
    Raises :class:`ToolError` when the folder does not exist.
    """
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)

    def read(inp: dict[str, Any]) -> str:
        path = ws.resolve(inp["file_path"])
        if not path.is_file():
            raise ToolError(f"no such file: {inp['file_path']}")
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        start = inp.get("offset", 1)
        stop = start - 1 + inp.get("limit", len(lines))
        return "\n".join(f"{n:>6}\t{lines[n - 1]}" for n in range(start, min(stop, len(lines)) + 1))

    def write(inp: dict[str, Any]) -> str:
        path = ws.resolve(inp["file_path"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(inp["content"], encoding="utf-8")
        return f"wrote {len(inp['content'])} characters to {ws.relative(path)}"

    def edit(inp: dict[str, Any]) -> str:
        path = ws.resolve(inp["file_path"])
        if not path.is_file():
            raise ToolError(f"no such file: {inp['file_path']}")
        text = path.read_text(encoding="utf-8")
        old, new = inp["old_string"], inp["new_string"]
        count = text.count(old) if old else 0
        if count == 0:
            raise ToolError(f"old_string not found in {ws.relative(path)}")
        if count > 1 and not inp.get("replace_all", False):
            raise ToolError(f"old_string occurs {count} times in {ws.relative(path)}; "
                            "add surrounding text to make it unique or set replace_all")
        path.write_text(text.replace(old, new) if inp.get("replace_all") else
                        text.replace(old, new, 1), encoding="utf-8")
        return f"replaced {count if inp.get('replace_all') else 1} occurrence(s) in {ws.relative(path)}"

    def grep(inp: dict[str, Any]) -> str:
        try:
            rx = re.compile(inp["pattern"])
        except re.error as exc:
            raise ToolError(f"invalid regular expression: {exc}") from None
        base = ws.resolve(inp.get("path", "."))
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        pattern = inp.get("glob")
        hits: list[str] = []
        for f in files:
            if pattern and not fnmatch.fnmatch(f.name, pattern):
                continue
            try:
                ws.resolve(str(f))
            except WorkspaceError:
                continue  # a symlink leading out of the workspace is skipped, not read
            for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace")
                                     .splitlines(), 1):
                if rx.search(line):
                    hits.append(f"{ws.relative(f)}:{n}:{line}")
        more = f"\n... {len(hits) - max_matches} more" if len(hits) > max_matches else ""
        return "\n".join(hits[:max_matches]) + more if hits else "no matches"

    def glob(inp: dict[str, Any]) -> str:
        pat = inp["pattern"]
        if os.path.isabs(pat) or ".." in Path(pat).parts:
            raise WorkspaceError(pat, ws.root)
        base = ws.resolve(inp.get("path", "."))
        found = []
        for p in base.glob(pat):
            try:
                found.append(ws.relative(ws.resolve(str(p))))
            except WorkspaceError:
                continue
        found = sorted(set(found))
        more = f"\n... {len(found) - max_matches} more" if len(found) > max_matches else ""
        return "\n".join(found[:max_matches]) + more if found else "no files"

    def python(inp: dict[str, Any]) -> ToolResult:
        result = run_python(inp["code"], ws.root, limits)
        return ToolResult(result.as_text(), not result.ok)

    return [
        Tool("Read", "Read a text file of the workspace; lines come numbered.",
             _schema({"file_path": _STR, "offset": {"type": "integer", "minimum": 1},
                      "limit": {"type": "integer", "minimum": 1}}, ["file_path"]), read),
        Tool("Write", "Write a text file in the workspace, replacing it if it exists.",
             _schema({"file_path": _STR, "content": _STR}, ["file_path", "content"]), write),
        Tool("Edit", "Replace one exact, unique piece of text in a workspace file.",
             _schema({"file_path": _STR, "old_string": _STR, "new_string": _STR,
                      "replace_all": {"type": "boolean"}},
                     ["file_path", "old_string", "new_string"]), edit),
        Tool("Grep", "Search file contents in the workspace with a regular expression.",
             _schema({"pattern": _STR, "path": _STR, "glob": _STR}, ["pattern"]), grep),
        Tool("Glob", "Find workspace files by name pattern such as **/*.py.",
             _schema({"pattern": _STR, "path": _STR}, ["pattern"]), glob),
        Tool("Python", "Run Python code in a sandbox (time, CPU, memory and output "
             "limits, no network) inside the workspace.",
             _schema({"code": _STR}, ["code"]), python),
    ]
