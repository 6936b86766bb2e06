"""The chapters' bridge to the real Claude Code: each notebook example, run through the pinned
binary when it can run here, else the result recorded from it.

Rules of this module:

- :data:`EXAMPLES` is the one table of the examples the notebooks show: a name, and the
  function that runs it through Claude Code (through :mod:`mcpmini.oracle`: offline, in
  bubblewrap, against a scripted model) and returns JSON data.
- Recorded results are never typed by hand: :func:`record` (``python -m
  mcpmini.course.chapters.claude_code --record``) runs every example through the pinned
  version and writes :data:`RECORDED`, which carries the version it came from.
- :func:`claude_code` runs the example live when Claude Code :data:`~mcpmini.oracle.PIN` is
  installed and bubblewrap works, else it returns the recorded result; :attr:`Answer.line`
  says which, in one line.
- mcpmini's own answer for the same example is computed beside it by the runtime
  (``*_rows`` functions); nothing here decides a verdict itself.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ...oracle import PIN, ClaudeCodeMissing, binary_version, find_claude
from ..language import Text

__all__ = [
    "EXAMPLES",
    "HEAVY",
    "LARGE_SIZES",
    "RECORDED",
    "SKILL_FILES",
    "SOURCE_LINES",
    "Answer",
    "attack_rows",
    "large_result_rows",
    "live_reason",
    "mcp_tool_rows",
    "plugin_rows",
    "plugin_variants",
    "record",
    "recorded",
    "skill_listing_pair",
    "through_claude_code",
]

RECORDED = Path(__file__).with_name("data") / "claude_code" / f"examples_{PIN}.json"
RECORD_COMMAND = "python -m mcpmini.course.chapters.claude_code --record"
_TIMEOUT = 90.0
#: A command Claude Code really runs (``watch ls`` …) is ended after 3 s.
_SHORT_BASH = {"BASH_DEFAULT_TIMEOUT_MS": "3000", "BASH_MAX_TIMEOUT_MS": "3000"}
_WORKERS = 3

#: Result sizes (characters) chapter 06 sends through one MCP tool: small, just under and
#: over the 50,000-character save line, and over the 100,000-character refusal line.
LARGE_SIZES = (1_000, 49_000, 51_000, 120_000)

#: Chapter 09's example skills (``tidy-imports`` is the chapter's own; ``release-notes``
#: has a description past the 1,536-character cap).
SKILL_FILES: dict[str, str] = {
    "tidy-imports": (
        "---\n"
        "description: Sort and group the import lines of one Python file.\n"
        "when_to_use: When the user asks to clean up, sort or group imports.\n"
        "argument-hint: <file> [style]\n"
        "arguments: [file, style]\n"
        "allowed-tools: Read Edit\n"
        "---\n\nTidy the imports of $file using the $style style.\n"
    ),
    "release-notes": (
        "---\n"
        "description: " + "Collect the merged changes and write release notes. " * 40 + "\n"
        "---\n\nWrite the notes.\n"
    ),
}


@dataclass(frozen=True)
class Answer:
    """Claude Code's answer to one example: ``value`` (JSON data), the ``version`` it came
    from, ``live`` (run just now) or recorded, and ``reason`` why it was not run live."""

    name: str
    value: Any
    version: str
    live: bool
    reason: str = ""

    @property
    def line(self) -> str:
        """One line saying where the figures come from, in the learner's language."""
        if self.live:
            return str(SOURCE_LINES["live"].format(version=self.version))
        return str(
            SOURCE_LINES["recorded"].format(
                version=self.version, reason=self.reason, command=RECORD_COMMAND
            )
        )


#: Where an :class:`Answer`'s figures come from, said in one line (``Answer.line``).
SOURCE_LINES: dict[str, Text] = {
    "live": Text(
        "Claude Code {version}: いま実行した結果（オフライン、bubblewrap の中）",
        "Claude Code {version}: run live (offline, in bubblewrap)",
    ),
    "recorded": Text(
        "Claude Code {version}: 記録した結果（{reason}。`{command}` で記録）",
        "Claude Code {version}: recorded result ({reason}; recorded by `{command}`)",
    ),
}


# --- availability ---------------------------------------------------------------------------


def _bwrap_works() -> str | None:
    """``None`` when bubblewrap can start a user namespace as uid 1000, else why not."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    argv = [bwrap, "--unshare-user", "--uid", "1000", "--ro-bind", "/", "/", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not start ({exc})"
    return None if done.returncode == 0 else "bubblewrap refuses a user namespace here"


@cache
def _live(environ_key: tuple[tuple[str, str], ...]) -> tuple[Path | None, str]:
    environ = dict(environ_key)
    missing = "Claude Code is not installed here (`make claude-code` installs it)"
    binary = find_claude(environ)
    if binary is None:
        return None, missing
    try:
        version = binary_version(binary)
    except ClaudeCodeMissing:
        return None, missing
    if version != PIN:
        return None, f"the Claude Code found is {version}, not the pinned {PIN}"
    reason = _bwrap_works()
    return (None, reason) if reason else (binary, "")


def live_reason(environ: Mapping[str, str] | None = None) -> tuple[Path | None, str]:
    """The pinned Claude Code to run live and ``""``, or ``None`` and the reason it cannot
    run here (not installed, another version, bubblewrap missing or refused)."""
    env = os.environ if environ is None else environ
    keys = ("MCPMINI_CLAUDE_CODE", "PATH", "MCPMINI_COURSE_RECORDED")
    if env.get("MCPMINI_COURSE_RECORDED"):
        return None, "MCPMINI_COURSE_RECORDED is set"
    return _live(tuple((k, env[k]) for k in keys if k in env))


# --- the examples -----------------------------------------------------------------------------


def _oracle() -> Any:
    from ... import oracle

    return oracle


def _run_all(cases: Sequence[Any], binary: Path) -> list[Any]:
    oracle = _oracle()
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        return list(pool.map(lambda c: oracle.run_case(c, binary, timeout=_TIMEOUT), cases))


def _server_entry() -> dict[str, Any]:
    """The chapter's stdio MCP server (this module's ``--serve``), as Claude Code starts it."""
    return {
        "type": "stdio",
        "command": sys.executable,
        "args": ["-I", "-m", "mcpmini.course.chapters.claude_code", "--serve"],
    }


#: Calls of chapter 07's table not sent to Claude Code, and why (shown in its column).
#: Keyed by the call and its allow rules.
NOT_RUN: dict[tuple[str, tuple[str, ...]], str] = {
    ("watch ls", ("Bash(watch ls)",)): "not run: allowed, it never ends"
}


def _permission_key(case: Any) -> tuple[Any, ...]:
    return (case.allow, case.ask, case.deny, case.mode)


def _bound_input(tool_input: Mapping[str, Any]) -> dict[str, Any]:
    from .attacks import HOME, PROJECT

    out = {}
    for key, value in tool_input.items():
        if isinstance(value, str):
            value = value.replace(PROJECT, "{ws}").replace(HOME, "{home}")
        out[key] = value
    return out


def _permissions(binary: Path) -> list[dict[str, str]]:
    """Claude Code's verdict on every row of chapter 07's table (rows in table order)."""
    from .attacks import PERMISSION_CASES

    oracle = _oracle()
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, case in enumerate(PERMISSION_CASES):
        if (case.call, case.allow) in NOT_RUN:
            continue
        groups.setdefault(_permission_key(case), []).append(i)
    cases = []
    for n, (key, indexes) in enumerate(groups.items()):
        allow, ask, deny, mode = key
        rules = {"allow": list(allow), "ask": list(ask), "deny": list(deny)}
        cases.append(
            oracle.Case(
                name=f"ch07-{n}",
                calls=tuple(
                    oracle.Call(
                        PERMISSION_CASES[i].tool, _bound_input(PERMISSION_CASES[i].tool_input)
                    )
                    for i in indexes
                ),
                settings={oracle.Scope.FLAG: {"permissions": rules}},
                mode=mode,
                env=_SHORT_BASH,
                files={"f": "one\n", ".env": "K=1\n", "secrets/k.pem": "k\n"},
            )
        )
    out: list[dict[str, str]] = [
        {"verdict": NOT_RUN.get((c.call, c.allow), ""), "cause": "not_run"}
        for c in PERMISSION_CASES
    ]
    for indexes, session in zip(groups.values(), _run_all(cases, binary), strict=True):
        for i, seen in zip(indexes, session.calls, strict=True):
            out[i] = {"verdict": seen.verdict.value, "cause": seen.cause.value}
    return out


def _first_tools(session: Any) -> list[Mapping[str, Any]]:
    body: Mapping[str, Any] = next((b for b in session.requests if b.get("tools")), {})
    return list(body.get("tools") or [])


def _mcp_tools(binary: Path) -> dict[str, Any]:
    """The chapter server's tools as Claude Code shows them: deferred by default and up front
    with ``ENABLE_TOOL_SEARCH=false``; the built-in tools; the sizes of what was sent."""
    oracle = _oracle()
    cases = [
        oracle.Case(name=f"ch06-{label}", mcp_servers={"course": _server_entry()}, tool_search=ts)
        for label, ts in (("default", True), ("upfront", False))
    ]
    out: dict[str, Any] = {}
    for label, session in zip(("default", "upfront"), _run_all(cases, binary), strict=True):
        tools = [t for t in _first_tools(session) if not str(t["name"]).startswith("mcp__oracle")]
        out[label] = {
            "tools": [str(t["name"]) for t in tools],
            "deferred": [d for d in session.shown.deferred if not d.startswith("mcp__oracle")],
            "tool_chars": {str(t["name"]): len(json.dumps(t, ensure_ascii=False)) for t in tools},
        }
    return out


def _fate(text: str) -> str:
    if "<persisted-output>" in text:
        return "saved"
    if "tool-results/" in text or "exceeds" in text.lower():
        return "refused"
    return "whole"


def _large_result(binary: Path) -> list[dict[str, Any]]:
    """What the model is shown for each of :data:`LARGE_SIZES`: the fate and its length."""
    oracle = _oracle()
    case = oracle.Case(
        name="ch06-large",
        calls=tuple(oracle.Call("mcp__course__text", {"n": n}) for n in LARGE_SIZES),
        mode="bypassPermissions",
        mcp_servers={"course": _server_entry()},
        tool_search=False,
    )
    (session,) = _run_all([case], binary)
    return [
        {"chars": n, "fate": _fate(seen.text), "shown_chars": len(seen.text)}
        for n, seen in zip(LARGE_SIZES, session.calls, strict=True)
    ]


def _skill_listing(binary: Path) -> str:
    """The skill listing Claude Code shows for :data:`SKILL_FILES` as project skills."""
    oracle = _oracle()
    files = {f".claude/skills/{name}/SKILL.md": text for name, text in SKILL_FILES.items()}
    (session,) = _run_all([oracle.Case(name="ch09-skills", files=files)], binary)
    return str(session.shown.skill_listing)


#: Examples that take many sessions: live only with ``MCPMINI_COURSE_LIVE=all`` (the
#: notebooks run in ``make test``); their recording is checked live by the tests.
HEAVY = frozenset({"permissions"})

#: The ``.mcp.json`` of CCA-F 2.4's check: an unset variable without a default in an
#: argument and in ``env`` (``{python}`` is this interpreter).
UNSET_MCP_JSON = {
    "mcpServers": {
        "env": {
            "command": "{python}",
            "args": [
                "-I",
                "-m",
                "mcpmini.course.chapters.claude_code",
                "--serve",
                "${COURSE_UNSET}",
            ],
            "env": {"COURSE_VALUE": "${COURSE_UNSET}", "COURSE_DEFAULTED": "${COURSE_UNSET:-d}"},
        }
    }
}


def _unset_var(binary: Path) -> dict[str, Any]:
    """What the chapter server receives from Claude Code for :data:`UNSET_MCP_JSON` (project
    ``.mcp.json``, approved): its arguments and environment, or why it did not start, and
    the warnings ``claude mcp list`` prints for it."""
    oracle = _oracle()
    text = json.dumps(UNSET_MCP_JSON).replace("{python}", sys.executable)
    case = oracle.Case(
        name="ccaf-2-4-unset",
        calls=(oracle.Call("mcp__env__argv", {}),),
        settings={oracle.Scope.PROJECT: {"enableAllProjectMcpServers": True}},
        mode="bypassPermissions",
        files={".mcp.json": text},
        tool_search=False,
    )
    (session,) = _run_all([case], binary)
    (seen,) = session.calls
    try:
        received = json.loads(seen.text)
    except ValueError:
        received = {"error": seen.text[:200]}
    with oracle.lay_out(case) as tree:
        listed = oracle.run_command(tree, binary, ["mcp", "list"], timeout=_TIMEOUT)
    warnings = [line.strip(" └") for line in listed.stdout.splitlines() if "[Warning]" in line]
    return {"verdict": seen.verdict.value, "received": received, "mcp_list_warnings": warnings}


#: Chapter 10's example plugin ``db-helper`` (file → text), as the notebook builds it.
PLUGIN_FILES: dict[str, str] = {
    ".claude-plugin/plugin.json": json.dumps(
        {
            "name": "db-helper",
            "version": "1.0.0",
            "description": "Query helpers and a guard for the team database.",
            "author": {"name": "Data Team"},
        },
        indent=2,
    ),
    "skills/explain-query/SKILL.md": (
        "---\ndescription: Explain what a SQL query does, step by step.\n---\n"
        "Explain the query in $ARGUMENTS. Schema notes: ${CLAUDE_PLUGIN_ROOT}/schema.md\n"
    ),
    "agents/sql-reviewer.md": (
        "---\nname: sql-reviewer\ndescription: Reviews SQL for missing indexes.\n---\n"
        "You review SQL. Never run it.\n"
    ),
    "hooks/hooks.json": json.dumps(
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [
                            {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/guard.py"}
                        ],
                    }
                ]
            }
        },
        indent=2,
    ),
    "guard.py": (
        "import json, sys\n"
        "cmd = json.load(sys.stdin).get('tool_input', {}).get('command', '')\n"
        "sys.exit(2 if 'DROP TABLE' in cmd.upper() else 0)\n"
    ),
    ".mcp.json": json.dumps(
        {
            "mcpServers": {
                "db": {
                    "command": "db-mcp",
                    "args": ["--root", "${CLAUDE_PLUGIN_ROOT}"],
                    "env": {"DB_URL": "${DB_URL:-sqlite:///dev.db}"},
                }
            }
        },
        indent=2,
    ),
}

#: The broken manifest chapter 10 validates (a number for ``version``, a path leaving the
#: plugin, an unknown field).
BROKEN_MANIFEST = json.dumps(
    {"name": "db-helper", "version": 1, "skills": "./../elsewhere", "colour": "blue"}, indent=2
)


def plugin_variants() -> dict[str, dict[str, str]]:
    """Chapter 10's plugin and its broken variant: label → files."""
    broken = {**PLUGIN_FILES, ".claude-plugin/plugin.json": BROKEN_MANIFEST}
    return {"db-helper": dict(PLUGIN_FILES), "broken manifest": broken}


def _verdict_part(report: Any) -> Any:
    """The verdict of a ``claude plugin validate --json`` report: success, each block's
    errors and warnings, and the skills / commands / agents provided (advice left out)."""
    if not isinstance(report, Mapping) or "success" not in report:
        return report

    def block(b: Mapping[str, Any]) -> dict[str, Any]:
        keep = ("path", "message")
        return {
            "file": b.get("file"),
            **{
                k: [{f: i.get(f) for f in keep} for i in b.get(k) or []]
                for k in ("errors", "warnings")
            },
        }

    provides = report.get("provides") or {}
    return {
        "success": report["success"],
        "manifest": block(report.get("manifest") or {}),
        "contents": [block(c) for c in report.get("contents") or []],
        "provides": {k: provides.get(k, []) for k in ("skills", "commands", "agents")},
    }


def _plugin_validate(binary: Path) -> dict[str, Any]:
    """``claude plugin validate --json`` on each of :func:`plugin_variants`: its exit code and
    its report (the plugin's folder written ``<plugin>``)."""
    oracle = _oracle()
    out: dict[str, Any] = {}
    for label, files in plugin_variants().items():
        case = oracle.Case(name="ch10-plugin", files={f"p/{k}": v for k, v in files.items()})
        with oracle.lay_out(case) as tree:
            folder = str(tree.ws / "p")
            done = oracle.run_command(tree, binary, ["plugin", "validate", "--json", folder])
        text = done.stdout.replace(folder, "<plugin>")
        try:
            report: Any = json.loads(text)
        except ValueError:
            report = {"stdout": text[:2000]}
        out[label] = {"exit_code": done.exit_code, "report": _verdict_part(report)}
    return out


EXAMPLES: dict[str, Callable[[Path], Any]] = {
    "plugin_validate": _plugin_validate,
    "unset_var": _unset_var,
    "permissions": _permissions,
    "mcp_tools": _mcp_tools,
    "large_result": _large_result,
    "skill_listing": _skill_listing,
}


# --- live or recorded --------------------------------------------------------------------------


def recorded(name: str, reason: str = "") -> Answer:
    """The recorded result of example ``name``. Raises ``KeyError`` for an example that was
    never recorded and ``FileNotFoundError`` when :data:`RECORDED` is missing."""
    data = json.loads(RECORDED.read_text(encoding="utf-8"))
    return Answer(name, data["examples"][name], str(data["version"]), False, reason)


def through_claude_code(
    name: str, *, live: bool | None = None, environ: Mapping[str, str] | None = None
) -> Answer:
    """Claude Code's answer to example ``name`` (a key of :data:`EXAMPLES`): live when the
    pinned binary and bubblewrap work here (``live=False`` forces the recorded result), else
    the recorded one. Raises ``KeyError`` for an unknown example and
    :class:`~mcpmini.oracle.OracleFailure` when a live run fails."""
    run = EXAMPLES[name]
    env = os.environ if environ is None else environ
    binary, reason = live_reason(env) if live is not False else (None, "asked for")
    heavy = name in HEAVY and env.get("MCPMINI_COURSE_LIVE") != "all"
    if binary is not None and live is None and heavy:
        binary, reason = None, "many sessions: MCPMINI_COURSE_LIVE=all runs it live"
    if binary is None:
        return recorded(name, reason)
    return Answer(name, run(binary), PIN, True)


def record(names: Sequence[str] | None = None, *, path: Path = RECORDED) -> Path:
    """Run the examples (all, or ``names``) through the pinned Claude Code and write them to
    ``path`` (other recorded examples are kept). Returns ``path``. Raises
    ``ClaudeCodeMissing`` when the pinned version cannot run here."""
    binary, reason = live_reason(
        {k: v for k, v in os.environ.items() if k != "MCPMINI_COURSE_RECORDED"}
    )
    if binary is None:
        raise ClaudeCodeMissing(f"cannot record: {reason}")
    data: dict[str, Any] = {"version": PIN, "recorded_by": RECORD_COMMAND, "examples": {}}
    if path.exists():
        data["examples"] = json.loads(path.read_text(encoding="utf-8"))["examples"]
    for name in names or list(EXAMPLES):
        data["examples"][name] = EXAMPLES[name](binary)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True)
    path.write_text(text + "\n", encoding="utf-8")
    return path


# --- side by side with mcpmini -----------------------------------------------------------------


def attack_rows(group: str | None = None, answer: Answer | None = None) -> list[dict[str, str]]:
    """Chapter 07's table (:func:`~.attacks.case_rows`) with a ``Claude Code <version>``
    column (``allow`` / ``ask`` / ``deny``, or Claude Code's own word) and ``agree``."""
    from .attacks import PERMISSION_CASES, case_rows

    answer = answer or through_claude_code("permissions")
    column = f"Claude Code {answer.version}"
    rows = []
    for case, row, seen in zip(PERMISSION_CASES, case_rows(), answer.value, strict=True):
        if group is not None and case.group != group:
            continue
        verdict = str(seen["verdict"])
        if seen.get("cause") == "removed":
            verdict = "no such tool"
        agree = (
            "—" if seen.get("cause") == "not_run" else "yes" if verdict == row["actual"] else "NO"
        )
        rows.append({**row, column: verdict, "agree": agree})
    return rows


def mcp_tool_rows(answer: Answer | None = None) -> list[dict[str, Any]]:
    """The chapter server's tools: mcpmini's inventory (names, deferred or not) beside what
    Claude Code sent, for the default and for ``ENABLE_TOOL_SEARCH=false``."""
    from ...config.inventory import deferred_names, take_inventory
    from ...config.precedence import Resolved

    answer = answer or through_claude_code("mcp_tools")
    inv = take_inventory({"course": Resolved("course", _server_entry(), "project")}, timeout=20)
    rows = []
    for label, setting in (("default", None), ("upfront", "false")):
        seen = answer.value[label]
        deferred = set(deferred_names(inv, setting))
        for tool in inv.tools:
            claude = (
                "deferred"
                if tool.name in seen["deferred"]
                else "sent"
                if tool.name in seen["tools"]
                else "absent"
            )
            rows.append(
                {
                    "ENABLE_TOOL_SEARCH": setting or "(unset)",
                    "tool": tool.name,
                    "mcpmini": "deferred" if tool.name in deferred else "sent",
                    f"Claude Code {answer.version}": claude,
                    "chars sent": seen["tool_chars"].get(tool.name, 0),
                }
            )
    return rows


def large_result_rows(answer: Answer | None = None) -> list[dict[str, Any]]:
    """Per result size: mcpmini's :func:`~mcpmini.agent.registry.result_fate` and the
    course host's kept prefix beside what Claude Code showed the model."""
    from ...agent.registry import result_fate

    answer = answer or through_claude_code("large_result")
    rows = []
    for seen in answer.value:
        text = _text(int(seen["chars"]))
        rows.append(
            {
                "result chars": seen["chars"],
                "mcpmini result_fate": result_fate(text).value,
                f"Claude Code {answer.version}": seen["fate"],
                "chars shown to the model": seen["shown_chars"],
            }
        )
    return rows


def plugin_rows(answer: Answer | None = None) -> list[dict[str, Any]]:
    """Per variant of :func:`plugin_variants`: ``mcpmini plugin validate``'s problems beside
    ``claude plugin validate --json``'s (severity, path, message), and both exit verdicts."""
    import tempfile

    from ...config.validation import validate

    answer = answer or through_claude_code("plugin_validate")
    rows: list[dict[str, Any]] = []
    for label, files in plugin_variants().items():
        with tempfile.TemporaryDirectory(prefix="mcpmini-ch10-") as tmp:
            root = Path(tmp) / "p"
            for rel, text in files.items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, encoding="utf-8")
            report = validate(root)
            mine = [f"{p.severity.value} {p.path or '-'}: {p.message}" for p in report.problems]
        seen = answer.value[label]
        claude = []
        blocks = [seen["report"].get("manifest") or {}, *(seen["report"].get("contents") or [])]
        for block in blocks:
            for key, severity in (("errors", "error"), ("warnings", "warning")):
                for item in block.get(key) or []:
                    claude.append(
                        f"{severity} {item.get('path') or '-'}: {item.get('message', '')}"
                    )
        rows.append(
            {
                "plugin": label,
                "mcpmini ok": report.success,
                f"Claude Code {answer.version} ok": seen["exit_code"] == 0,
                "mcpmini problems": mine,
                f"Claude Code {answer.version} problems": claude,
            }
        )
    return rows


def skill_listing_pair(answer: Answer | None = None) -> tuple[str, str]:
    """mcpmini's listing message for :data:`SKILL_FILES` and Claude Code's (as shown)."""
    from ...skills import build_listing, parse_skill

    answer = answer or through_claude_code("skill_listing")
    skills = [parse_skill(text, name=name) for name, text in SKILL_FILES.items()]
    mine = build_listing(skills).message
    return mine, str(answer.value)


# --- the chapter's MCP server -------------------------------------------------------------------


def _text(n: int) -> str:
    """``n`` characters: lines of 99 ``x`` and a line break."""
    return (("x" * 99 + "\n") * (n // 100 + 1))[:n]


def serve(extra: Sequence[str] = ()) -> None:
    """Serve the chapter's stdio MCP server: ``add(a, b)``, ``text(n)`` (``n`` chars) and
    ``argv()`` (``extra``, its arguments, and its ``COURSE_*`` environment)."""
    extra = list(extra)
    from ...mcp import Server
    from ...mcp.transport import serve_stdio

    server = Server("course", "1.0.0")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers and return the sum."""
        return a + b

    @server.tool()
    def argv() -> str:
        """Return this server's arguments and COURSE_* environment variables as JSON."""
        env = {k: v for k, v in sorted(os.environ.items()) if k.startswith("COURSE_")}
        return json.dumps({"args": extra, "env": env})

    @server.tool()
    def text(n: int) -> str:
        """Return n characters of text (lines of 99 x), to see what becomes of a large result."""
        return _text(n)

    serve_stdio(server)


def main(argv: Sequence[str] | None = None) -> int:
    """``--record [NAME …]`` writes :data:`RECORDED`; ``--serve`` serves the chapter server."""
    parser = argparse.ArgumentParser(prog="python -m mcpmini.course.chapters.claude_code")
    parser.add_argument("--record", nargs="*", metavar="NAME", help="record examples (all)")
    parser.add_argument(
        "--serve", nargs="*", metavar="ARG", help="serve the chapter's MCP server (ARGs echoed)"
    )
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return 0
    if args.record is not None:
        print(record(args.record or None))
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
