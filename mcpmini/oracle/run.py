"""Run one :class:`~.case.Case` through the real Claude Code, offline and sandboxed.

Rules of this module:

- Everything a run writes lives in one temporary case folder (``root``): ``home/`` (``HOME``),
  ``ws/`` (the workspace and working directory), ``managed/`` (bound at ``/etc/claude-code``),
  the plan, the prompt log and the supervisor's output. The folder is removed afterwards
  unless ``keep`` is set.
- Claude Code runs inside bubblewrap: the host root read-only, ``/tmp``, ``/run``, ``/home``,
  ``/root`` and the folder holding this checkout replaced by empty tmpfs (so nothing of the
  host's users is visible), ``/etc/claude-code`` replaced by the case's managed folder,
  the checkout itself and the Claude Code binary's folder bound read-only, only the case
  folder writable; new user (uid 1000, so bypassPermissions is allowed), PID and network
  namespaces, ``--die-with-parent``. With ``--unshare-net`` the sandbox has only its own
  loopback, so the fake model runs *inside* it (:mod:`.supervisor`): no command Claude Code
  allows can reach the host's network or its loopback services.
- One deadline bounds the whole run (:func:`mcpmini.process.run`, which ends every process it
  started). A Claude Code that hangs, crashes, asks for a login or is missing raises
  :class:`OracleFailure` with one line naming what happened (``exit_code`` 2).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..errors import ConfigError, McpminiError
from ..process import Ending, run
from .case import SCOPE_FILES, Call, Case, Scope
from .fakeapi import tool_use_id
from .probe import PROMPT_SERVER, PROMPT_TOOL
from .shown import Shown, shown_in
from .verdict import Observed, observe

__all__ = [
    "SANDBOX_UID",
    "Command",
    "Failure",
    "OracleFailure",
    "Session",
    "Tree",
    "claude_env",
    "lay_out",
    "run_case",
    "run_command",
    "run_tree",
    "sandbox_argv",
]

SANDBOX_UID = 1000
REPO = Path(__file__).resolve().parents[2]
DEFAULT_TIMEOUT = 120.0
_HIDDEN = ("/tmp", "/run", "/home", "/root", "/var/tmp")


class Failure(StrEnum):
    """What went wrong with Claude Code itself (not with a call in it)."""

    MISSING = "missing"  # no binary, or it does not start
    SANDBOX = "sandbox"  # bubblewrap is missing or refused to start
    HUNG = "hung"  # the deadline passed
    CRASHED = "crashed"  # it exited without a result object
    LOGIN = "login"  # it asked for a login / an API key


class OracleFailure(McpminiError):
    """Claude Code could not produce a verdict; ``kind`` says why. Exit code 2."""

    exit_code = 2

    def __init__(self, kind: Failure, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Session:
    """One finished run: the bound case, one :class:`~.verdict.Observed` per call, what the
    model was shown, Claude Code's result object, its stderr, and the request bodies."""

    case: Case
    calls: tuple[Observed, ...]
    shown: Shown
    result: Mapping[str, Any]
    stderr: str
    requests: tuple[Mapping[str, Any], ...] = field(repr=False)
    elapsed: float
    places: Mapping[str, str]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (without the raw request bodies)."""
        return {
            "case": self.case.name,
            "calls": [o.to_dict() for o in self.calls],
            "shown": self.shown.to_dict(),
            "elapsed": round(self.elapsed, 3),
            "stderr": self.stderr,
        }


def claude_env(
    home: str, extra: Mapping[str, str] | None = None, tool_search: bool = True
) -> dict[str, str]:
    """The whole environment Claude Code runs with: offline, quiet, a fake key, ``HOME``."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "USER": "oracle",
        "LOGNAME": "oracle",
        "SHELL": "/bin/bash",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "TMPDIR": "/tmp",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS": "1",
        "ANTHROPIC_API_KEY": "sk-ant-oracle-offline",
    }
    if not tool_search:
        env["ENABLE_TOOL_SEARCH"] = "false"
    env.update(extra or {})
    return env


def _etc_binds(managed: Path) -> list[str]:
    """``/etc`` rebuilt from its entries, with ``/etc/claude-code`` the case's folder.

    ``--ro-bind-try``: an entry that vanishes between this listing and bubblewrap's start
    (``/etc/group.lock`` while another process adds a user) is skipped, not a failed run."""
    cmd = ["--tmpfs", "/etc"]
    for entry in sorted(os.listdir("/etc")):
        if entry == "claude-code" or entry.endswith(".lock"):
            continue
        path = f"/etc/{entry}"
        try:
            target = os.readlink(path) if os.path.islink(path) else None
        except OSError:
            continue
        if target is not None:
            cmd += ["--symlink", target, path]
        elif os.path.exists(path):
            cmd += ["--ro-bind-try", path, path]
    return [*cmd, "--ro-bind", str(managed), "/etc/claude-code"]


def sandbox_argv(
    argv: Sequence[str],
    root: Path,
    cwd: Path,
    binary: Path,
    *,
    bwrap: str = "bwrap",
    network: bool = False,
) -> list[str]:
    """The bubblewrap command that runs ``argv`` for the case folder ``root`` (module doc).

    ``network=True`` keeps the host's network namespace (only for diagnosis). Runs nothing.
    """
    cmd = [bwrap, "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    cmd += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--hostname", "oracle"]
    if not network:
        cmd += ["--unshare-net"]
    cmd += ["--die-with-parent", "--new-session", "--ro-bind", "/", "/"]
    cmd += ["--dev", "/dev", "--proc", "/proc"]
    for path in _HIDDEN:
        if os.path.isdir(path) and not os.path.islink(path):
            cmd += ["--tmpfs", path]
    top = Path("/" + REPO.parts[1]) if len(REPO.parts) > 1 else None
    if top is not None and str(top) not in _HIDDEN and top != Path("/usr"):
        cmd += ["--tmpfs", str(top)]
    cmd += _etc_binds(root / "managed")
    reads = {
        str(REPO),
        os.path.realpath(sys.prefix),
        os.path.realpath(sys.base_prefix),
        str(Path(os.path.realpath(binary)).parent),
    }
    for path in sorted(reads):
        cmd += ["--ro-bind", path, path]
    cmd += ["--bind", str(root), str(root), "--chdir", str(cwd), "--", *argv]
    return cmd


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _copy(origin: Path, dest: Path, root: Path) -> None:
    """Copy ``origin`` to ``dest``, which must lie inside the case folder ``root``."""
    if not dest.is_absolute() or not dest.resolve().is_relative_to(root):
        raise ConfigError(f"a copy must land inside the case folder: {dest}")
    if not origin.exists():
        raise ConfigError(f"nothing to copy at {origin}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    if origin.is_dir():
        shutil.copytree(origin, dest, symlinks=True, dirs_exist_ok=True)
    else:
        shutil.copy2(origin, dest)


def _mcp_config(case: Case, root: Path) -> dict[str, Any]:
    python = sys.executable
    servers: dict[str, Any] = {
        PROMPT_SERVER: {
            "type": "stdio",
            "command": python,
            "args": ["-I", "-m", "mcpmini.oracle.probe", "prompt", str(root / "prompts.jsonl")],
        }
    }
    for name, entry in case.mcp_servers.items():
        if entry.get("probe") is True:
            servers[name] = {
                "type": "stdio",
                "command": python,
                "args": ["-I", "-m", "mcpmini.oracle.probe", "tools"],
            }
        else:
            servers[name] = dict(entry)
    return {"mcpServers": servers}


def _lay_out(case: Case, root: Path, places: Mapping[str, str]) -> dict[Scope, Path]:
    home, ws = Path(places["home"]), Path(places["ws"])
    for folder in (home, ws, root / "managed"):
        folder.mkdir(parents=True, exist_ok=True)
    anchors = {"home": home, "ws": ws, "root": root}
    written: dict[Scope, Path] = {}
    for scope, settings in case.settings.items():
        anchor, rel = SCOPE_FILES[scope]
        written[scope] = anchors[anchor] / rel
        _write(written[scope], json.dumps(settings, indent=2))
    state: dict[str, Any] = {"hasCompletedOnboarding": True, "projects": {}}
    if case.user_mcp_servers:
        state["mcpServers"] = {k: dict(v) for k, v in case.user_mcp_servers.items()}
    if case.trusted:
        state["projects"][str(ws)] = {"hasTrustDialogAccepted": True}
    _write(home / ".claude.json", json.dumps(state, indent=2))
    for rel, text in case.files.items():
        target = home / rel[2:] if rel.startswith("~/") else ws / rel
        _write(target, text)
    for dest, origin in case.copies.items():
        _copy(Path(origin), Path(dest), root)
    _write(root / "mcp.json", json.dumps(_mcp_config(case, root), indent=2))
    return written


def _claude_argv(case: Case, binary: Path, root: Path) -> list[str]:
    argv = [str(binary), "-p", case.prompt, "--output-format", "json"]
    argv += ["--max-turns", str(len(case.calls) + 5)]
    if case.prompt_tool:
        argv += ["--permission-prompt-tool", PROMPT_TOOL]
    argv += ["--mcp-config", str(root / "mcp.json")]
    if case.mode:
        argv += ["--permission-mode", case.mode]
    if Scope.FLAG in case.settings:
        argv += ["--settings", str(root / SCOPE_FILES[Scope.FLAG][1])]
    for folder in case.plugin_dirs:
        argv += ["--plugin-dir", folder]
    if case.allowed_tools:
        argv += ["--allowedTools", *case.allowed_tools]
    if case.disallowed_tools:
        argv += ["--disallowedTools", *case.disallowed_tools]
    return [*argv, *case.args]


def _failure(seen: Mapping[str, Any]) -> OracleFailure | None:
    """A login prompt or a missing result object in a finished ``-p`` run."""
    code = seen.get("exit_code")
    tail = (seen.get("stderr") or seen.get("stdout") or "").strip().splitlines()[-1:]
    last = tail[0][:200] if tail else "no output"
    out = str(seen.get("stdout") or "")
    low = (out + str(seen.get("stderr") or "")).lower()
    if "/login" in low or "invalid api key" in low or "not logged in" in low:
        return OracleFailure(Failure.LOGIN, f"Claude Code asked for a login: {last}")
    try:
        result = json.loads(out)
    except ValueError:
        result = None
    if not isinstance(result, dict) or result.get("type") != "result":
        return OracleFailure(Failure.CRASHED, f"Claude Code exited {code} without a result: {last}")
    return None


def _prompts(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    return rows


@dataclass(frozen=True)
class Tree:
    """A laid-out case folder: ``root``, ``home``, ``ws``, the bound case, and where each
    scope's settings file was written (``settings_files``)."""

    root: Path
    case: Case
    settings_files: Mapping[Scope, Path]

    @property
    def home(self) -> Path:
        """The temporary ``HOME``."""
        return self.root / "home"

    @property
    def ws(self) -> Path:
        """The workspace (Claude Code's working directory)."""
        return self.root / "ws"

    @property
    def places(self) -> dict[str, str]:
        """The placeholder values of :meth:`Case.bind`."""
        return {"root": str(self.root), "home": str(self.home), "ws": str(self.ws)}


@contextlib.contextmanager
def lay_out(case: Case, *, keep: bool = False, tmp: str | None = None) -> Iterator[Tree]:
    """Create the case folder under ``tmp`` (default: the system's), bind ``case`` to it and
    write its files; remove the folder on exit unless ``keep``."""
    root = Path(tempfile.mkdtemp(prefix="mcpmini-oracle-", dir=tmp)).resolve()
    try:
        places = {"root": str(root), "home": str(root / "home"), "ws": str(root / "ws")}
        bound = case.bind(places)
        files = _lay_out(bound, root, places)
        yield Tree(root, bound, files)
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def _supervised(
    tree: Tree,
    binary: Path,
    argv: Sequence[str],
    *,
    timeout: float,
    bwrap: str | None,
    calls: Sequence[Call] = (),
) -> dict[str, Any]:
    """Run ``argv`` (Claude Code's command line) through the supervisor in the sandbox of
    ``tree``; return what the supervisor saw. Raises :class:`OracleFailure` for a missing
    binary or bubblewrap, a hang, or a sandbox that did not start."""
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        raise OracleFailure(
            Failure.MISSING, f"no Claude Code executable at {binary}; run `make claude-code`"
        )
    exe = bwrap or shutil.which("bwrap")
    if exe is None or not os.access(exe, os.X_OK):
        raise OracleFailure(
            Failure.SANDBOX, "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
        )
    root, case = tree.root, tree.case
    out = root / "seen.json"
    out.unlink(missing_ok=True)
    plan = {
        "argv": list(argv),
        "env": claude_env(str(tree.home), case.env, case.tool_search),
        "cwd": str(tree.ws),
        "timeout": timeout,
        "out": str(out),
        "script": {"calls": [{"name": c.tool, "input": dict(c.input)} for c in calls]},
    }
    _write(root / "plan.json", json.dumps(plan))
    inner = [sys.executable, "-I", "-m", "mcpmini.oracle.supervisor", str(root / "plan.json")]
    done = run(
        sandbox_argv(inner, root, tree.ws, binary, bwrap=exe),
        env=_host_env(),
        timeout=timeout + 20,
        cap=1_000_000,
    )
    if done.ending is Ending.TIMEOUT:
        raise OracleFailure(
            Failure.HUNG, f"the sandboxed run did not finish within {timeout + 20:.0f} s"
        )
    if not out.exists():
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        last = lines[0][:200] if lines else "no output"
        raise OracleFailure(
            Failure.SANDBOX, f"the sandbox did not run (exit {done.exit_code}): {last}"
        )
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    if seen.get("ending") == Ending.START_ERROR.value:
        raise OracleFailure(
            Failure.MISSING, f"Claude Code at {binary} did not start: {seen.get('start_error')}"
        )
    if seen.get("ending") == Ending.TIMEOUT.value:
        raise OracleFailure(Failure.HUNG, f"Claude Code did not finish within {timeout:.0f} s")
    return seen


def run_tree(
    tree: Tree, binary: Path, *, timeout: float = DEFAULT_TIMEOUT, bwrap: str | None = None
) -> Session:
    """Run the laid-out case through Claude Code at ``binary``; return the :class:`Session`.

    ``timeout`` bounds the whole run. Raises :class:`OracleFailure` for a missing binary or
    bubblewrap, a hang, a crash or a login.
    """
    started = time.monotonic()
    case = tree.case
    argv = _claude_argv(case, binary, tree.root)
    seen = _supervised(tree, binary, argv, timeout=timeout, bwrap=bwrap, calls=case.calls)
    failed = _failure(seen)
    if failed is not None:
        raise failed
    result = json.loads(seen["stdout"])
    bodies = tuple(
        r["body"]
        for r in seen["requests"]
        if r["path"] == "/v1/messages" and isinstance(r["body"], dict)
    )
    ids = [tool_use_id(i) for i in range(len(case.calls))]
    return Session(
        case=case,
        calls=observe(case.calls, ids, bodies, result, _prompts(tree.root / "prompts.jsonl")),
        shown=shown_in(bodies),
        result=result,
        stderr=str(seen.get("stderr") or ""),
        requests=bodies,
        elapsed=time.monotonic() - started,
        places=tree.places,
    )


@dataclass(frozen=True)
class Command:
    """What one sandboxed ``claude`` subcommand printed and how it exited."""

    argv: tuple[str, ...]
    exit_code: int | None
    stdout: str
    stderr: str


def run_command(
    tree: Tree,
    binary: Path,
    args: Sequence[str],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    bwrap: str | None = None,
) -> Command:
    """Run ``claude ARGS`` (e.g. ``plugin validate --json PATH``) in the sandbox of ``tree``,
    with the same home, workspace, environment and fake model as a session; return its exit
    code and output. Raises :class:`OracleFailure` for a missing binary or bubblewrap or a
    hang (a nonzero exit is data, not a failure)."""
    argv = [str(binary), *args]
    seen = _supervised(tree, binary, argv, timeout=timeout, bwrap=bwrap)
    return Command(
        tuple(argv),
        seen.get("exit_code"),
        str(seen.get("stdout") or ""),
        str(seen.get("stderr") or ""),
    )


def run_case(
    case: Case,
    binary: Path,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    keep: bool = False,
    bwrap: str | None = None,
    tmp: str | None = None,
) -> Session:
    """:func:`lay_out` then :func:`run_tree`: one case from data to :class:`Session`.

    ``keep`` leaves the case folder in place (``Session.places["root"]``). Raises
    :class:`OracleFailure` like :func:`run_tree`.
    """
    with lay_out(case, keep=keep, tmp=tmp) as tree:
        return run_tree(tree, binary, timeout=timeout, bwrap=bwrap)


def _host_env() -> dict[str, str]:
    """The environment bubblewrap and the supervisor start with (never the caller's secrets)."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
