"""Path rules: ``Read(...)`` / ``Edit(...)`` specifiers, the paths a call touches, and the
folders the modes trust (reference §2.1, §2.3).

Specifiers use gitignore syntax: ``//abs`` is filesystem-absolute, ``~/x`` is under the
*real* home passed in (never a fixed ``/root``), ``/x`` is relative to the settings file's
root, ``./a/b`` or ``a/b`` relative to the working directory, and a bare name (no slash)
matches at any depth under the working directory — and so does ``./name`` (documented as
the working directory's only; observed in Claude Code 2.1.332 at any depth below it; a
bare name never matches outside it, whichever settings file holds the rule: a user deny
``Read(secret.txt)`` does not cover ``~/secret.txt``). A path is compared as written (made absolute
against ``cwd``) *and* with its symlinks resolved: a deny matches when either form does,
an allow only when the resolved form does, so a symlink into a denied folder is denied and a
symlink out of an allowed one is not allowed.

Case: documented nowhere; observed in Claude Code 2.1.332, even on Linux, path rules match
case-insensitively (a deny ``Read(SRC/**)`` denies ``src/a.txt``) and so do the protected
names (a write to ``.CLAUDE/x`` is asked in acceptEdits).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from .tools import SEARCH_TOOLS

__all__ = [
    "PROTECTED_DIRS",
    "PROTECTED_FILES",
    "absolute",
    "call_paths",
    "home_dir",
    "inside",
    "is_protected_path",
    "path_rule_matches",
    "working_dir",
]

PROTECTED_DIRS = frozenset({".git", ".claude", ".vscode", ".idea", ".husky"})
PROTECTED_FILES = frozenset(
    {
        ".bashrc",
        ".zshrc",
        ".profile",
        ".bash_profile",
        ".zprofile",
        ".bash_login",
        ".zshenv",
        ".mcp.json",
        ".claude.json",
        ".gitconfig",
        ".gitmodules",
    }
)
#: observed in 2.1.332: path rules ignore case (see the module doc)
_FLAGS = re.DOTALL | re.IGNORECASE


def home_dir(home: str | None) -> str:
    """``home`` made absolute; ``None`` means the home of the user running this process."""
    return posixpath.normpath(os.path.abspath(os.path.expanduser("~") if home is None else home))


def working_dir(cwd: str | None) -> str:
    """``cwd`` made absolute; empty or ``None`` means the process's working directory."""
    return posixpath.normpath(os.path.abspath(cwd or os.getcwd()))


def absolute(path: str, cwd: str, home: str) -> str:
    """``path`` (``~`` expanded with ``home``, relative to ``cwd``), normalised and absolute."""
    path = path.replace("\\", "/")
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return posixpath.normpath(path if path.startswith("/") else posixpath.join(cwd, path))


def _resolved(path: str) -> str:
    return posixpath.normpath(os.path.realpath(path))


def inside(path: str, folders: Iterable[str]) -> bool:
    """Whether ``path`` (resolved through symlinks) lies in one of ``folders`` (resolved)."""
    real = _resolved(path)
    for folder in folders:
        base = _resolved(folder)
        if real == base or real.startswith(base.rstrip("/") + "/"):
            return True
    return False


def is_protected_path(path: str) -> bool:
    """True for paths inside protected folders or naming protected files (``.git``,
    ``.claude`` except ``.claude/worktrees``, shell rc files, ``.mcp.json``…)."""
    parts = [p.lower() for p in path.replace("\\", "/").split("/") if p]
    for i, part in enumerate(parts[:-1]):
        if part in PROTECTED_DIRS and not (part == ".claude" and parts[i + 1] == "worktrees"):
            return True
    return bool(parts) and (parts[-1] in PROTECTED_FILES or parts[-1] in PROTECTED_DIRS)


@lru_cache(maxsize=1024)
def _rule_regex(spec: str, cwd: str, home: str, root: str) -> tuple[re.Pattern[str], str | None]:
    """The regex for ``spec`` and its literal anchor folder (``None`` for a bare name)."""
    if spec.startswith("//"):
        base, rest = "/", spec.lstrip("/")
    elif spec == "~" or spec.startswith("~/"):
        base, rest = home, spec[2:]
    elif spec.startswith("/"):
        base, rest = root, spec[1:]
    elif spec.startswith("./") and "/" in spec[2:].rstrip("/"):
        base, rest = cwd, spec[2:]
    elif spec.startswith("./"):
        # documented: "./.env" is the .env of the working directory only. Observed in
        # Claude Code 2.1.332: a "./name" with no further slash matches at any depth
        base, rest = None, spec[2:]
    elif "/" in spec.rstrip("/"):
        base, rest = cwd, spec
    else:
        base, rest = None, spec  # a bare name matches at any depth under the cwd
    rest = rest.rstrip("/")
    out = []
    i = 0
    while i < len(rest):
        if rest.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif rest.startswith("**", i):
            out.append(".*")
            i += 2
        elif rest[i] == "*":
            out.append("[^/]*")
            i += 1
        elif rest[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(rest[i]))
            i += 1
    if base is None:
        under = re.escape(cwd.rstrip("/") + "/")
        return re.compile(f"{under}(?:.*/)?{''.join(out)}(?:/.*)?", _FLAGS), None
    prefix = "/" if base == "/" else re.escape(base.rstrip("/") + "/")
    literal = re.split(r"[*?\[]", rest, maxsplit=1)[0]
    anchor = posixpath.normpath(posixpath.join(base, literal)) if literal else base
    if literal and not literal.endswith("/") and len(literal) < len(rest):
        anchor = posixpath.dirname(anchor)  # "secrets/k*" anchors at secrets
    return re.compile(f"{prefix}{''.join(out)}(?:/.*)?", _FLAGS), anchor


def _one(spec: str, path: str, cwd: str, home: str, root: str, directory: bool) -> bool:
    regex, anchor = _rule_regex(spec, cwd, home, root)
    if regex.fullmatch(path):
        return True
    # a search or listing of a folder reads what is under it: the folder is covered when
    # the rule's fixed part lies at or under it ("Read(./secrets/**)" covers Grep secrets)
    return (
        directory
        and anchor is not None
        and (
            anchor.lower() == path.lower()
            or anchor.lower().startswith(path.rstrip("/").lower() + "/")
        )
        and path != "/"
    )


def path_rule_matches(
    spec: str, path: str, *, behavior: str, cwd: str, home: str, root: str, directory: bool = False
) -> bool:
    """Whether the path specifier ``spec`` covers the absolute ``path``.

    A deny/ask matches the path as written or resolved through symlinks (with the anchors
    also taken as written or resolved); an allow only the resolved path. ``directory``:
    the call reads the whole folder (Grep, Glob, LS), so a rule for something under it
    counts too — for deny and ask; an allow covers the folder when it covers everything
    under it (``Read(//abs/**)`` approves ``ls /abs``, observed in 2.1.332).
    """
    real = _resolved(path)
    bases = {(cwd, home, root), (_resolved(cwd), _resolved(home), _resolved(root))}
    if behavior == "allow":
        forms = {real, real.rstrip("/") + "/"} if directory else {real}
        return any(_one(spec, f, c, h, r, False) for f in forms for c, h, r in bases)
    return any(_one(spec, p, c, h, r, directory) for p in {path, real} for c, h, r in bases)


def call_paths(
    tool_name: str, tool_input: Mapping[str, Any], cwd: str, home: str
) -> list[tuple[str, bool]]:
    """The absolute paths a file tool call touches, each with ``True`` when the call reads
    the folder as a whole (Grep/Glob/LS, or any tool given an existing directory). Glob's
    pattern adds its fixed leading folders (``secrets/*.pem`` searches ``secrets``)."""
    found: list[tuple[str, bool]] = []
    for key in ("file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            path = absolute(value, cwd, home)
            found.append((path, tool_name in SEARCH_TOOLS or os.path.isdir(path)))
    if tool_name in SEARCH_TOOLS and not found:
        found.append((cwd, True))
    pattern = tool_input.get("pattern")
    if tool_name == "Glob" and isinstance(pattern, str) and pattern:
        base = found[0][0] if found else cwd
        literal = re.split(r"[*?\[{]", pattern, maxsplit=1)[0]
        head = (
            literal if literal.endswith("/") or literal == pattern else posixpath.dirname(literal)
        )
        if head:
            found.append((absolute(head, base, home), True))
    return found
