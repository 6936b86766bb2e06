"""The examples the notebooks show, each run through the real Claude Code (through
:mod:`mcpmini.oracle`: offline, in bubblewrap, against a scripted model): :data:`EXAMPLES`,
one function per example returning JSON data."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .fixtures import (
    LARGE_SIZES,
    NOT_RUN,
    SKILL_FILES,
    UNSET_MCP_JSON,
    plugin_variants,
    server_entry,
)

__all__ = ["EXAMPLES"]

_TIMEOUT = 90.0
#: A command Claude Code really runs (``watch ls`` …) is ended after 3 s.
_SHORT_BASH = {"BASH_DEFAULT_TIMEOUT_MS": "3000", "BASH_MAX_TIMEOUT_MS": "3000"}
_WORKERS = 3


def _oracle() -> Any:
    from .... import oracle

    return oracle


def _run_all(cases: Sequence[Any], binary: Path) -> list[Any]:
    oracle = _oracle()
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        return list(pool.map(lambda c: oracle.run_case(c, binary, timeout=_TIMEOUT), cases))


def _permission_key(case: Any) -> tuple[Any, ...]:
    return (case.allow, case.ask, case.deny, case.mode)


def _bound_input(tool_input: Mapping[str, Any]) -> dict[str, Any]:
    from ..attacks import HOME, PROJECT

    out = {}
    for key, value in tool_input.items():
        if isinstance(value, str):
            value = value.replace(PROJECT, "{ws}").replace(HOME, "{home}")
        out[key] = value
    return out


def _permissions(binary: Path) -> list[dict[str, str]]:
    """Claude Code's verdict on every row of chapter 07's table (rows in table order)."""
    from ..attacks import PERMISSION_CASES

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
        oracle.Case(name=f"ch06-{label}", mcp_servers={"course": server_entry()}, tool_search=ts)
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
        mcp_servers={"course": server_entry()},
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
