"""The agent loop, runnable offline, with options named like the Agent SDK's.

:func:`run` repeats: build a request (system, tool layer, messages) → call the model →
check its reply → for every ``tool_use``: PreToolUse hooks → permission gate → the tool
→ PostToolUse hooks → a ``tool_result``; then it checks the pairing invariant (every
``tool_use`` has exactly one ``tool_result`` with its id in the next message). It stops
when the model asks for no tool (after the Stop hooks let it) or when ``max_turns``
tool-use turns have run, so with ``max_turns = T`` there are at most ``T + 1`` model
calls (Proposition 7.1). Every step is recorded as a :class:`LoopEvent`, and every
request is measured by layer for the context-cost chapters. The transcript's own rules
(pairing, repairing a reply) and the result types live in :mod:`mcpmini.agent.transcript`
and are re-exported here.

The model's reply is untrusted: a malformed block, an unknown tool, a tool that raises
or an MCP server that does not answer each become one ``tool_result`` with
``is_error: true`` and the loop goes on. Two things cannot be repaired from inside:
an in-process Python tool that never returns (run untrusted code through the Python
sandbox or a stdio MCP server, whose process group is killed), and a model that
raises (the exception propagates; the loop holds no resources of its own).

A permission that resolves to *ask* has no human here: ``options.on_ask(name, input)``
decides, and without it the call is denied with a result saying so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..deadline import Deadline
from ..errors import ConfigError, McpminiError
from ..hooks import STOP_BLOCK_CAP, EventResult, Hooks, decide, has_hooks, run_hooks
from ..permissions import GateResult, PermissionMode, PermissionRules, parse_rule
from .cost import cut_to_tokens, estimate_tokens, json_tokens
from .models import Model, ModelRequest
from .tools import Tool, ToolResult
from .transcript import (
    LoopEvent,
    PairingError,
    RequestRecord,
    RunResult,
    Step,
    StopReason,
    pairing_violations,
    repair_reply,
)

__all__ = [
    "AgentOptions",
    "mcp_tool_name",
    "run",
]


def mcp_tool_name(server: str, tool: str) -> str:
    """The name a model sees for an MCP tool: ``mcp__<server>__<tool>``."""
    return f"mcp__{server}__{tool}"


@dataclass
class AgentOptions:
    """Options of one run, named after ``ClaudeAgentOptions`` where one exists.

    Hooks fire at UserPromptSubmit, PreToolUse, PostToolUse / PostToolUseFailure and Stop.

    ``tools`` are in-process tools (e.g. :func:`mcpmini.agent.builtin_tools`);
    ``mcp_servers`` maps a server name to an mcpmini ``Client``, an in-process
    ``Server``, or a `.mcp.json` entry (``{"type": "http", "url", "headers"}`` or
    ``{"command", "args", "env"}``; the loop connects and closes it).
    ``allowed_tools``/``disallowed_tools`` are allow/deny permission rules
    (a tool named exactly in ``disallowed_tools`` is also left out of the tool layer).
    ``hooks`` maps an event to SDK-style ``HookMatcher`` groups, or is a loaded
    :class:`mcpmini.hooks.HookSettings` (settings files, plugins).
    ``tool_choice`` is ``"auto"``, ``"any"`` or a tool name. ``tool_search`` defers
    definitions: only names go up front, a definition is appended on first use.
    ``max_result_tokens`` cuts longer results (the full text is kept, see
    :attr:`RunResult.full_results`, and written under ``results_dir`` when given).
    """

    system_prompt: str = ""
    tools: Sequence[Tool] = ()
    mcp_servers: Mapping[str, Any] = field(default_factory=dict)
    allowed_tools: Sequence[str] = ()
    disallowed_tools: Sequence[str] = ()
    permission_mode: str = "default"
    hooks: Hooks = field(default_factory=dict)  # {event: [HookMatcher]} or a HookSettings
    max_turns: int | None = None
    tool_choice: str = "auto"
    tool_search: bool = False
    max_result_tokens: int = 25_000
    results_dir: str | os.PathLike[str] | None = None
    on_ask: Callable[[str, dict[str, Any]], bool] | None = None
    tool_timeout: float = 30.0
    cwd: str = ""
    env: Mapping[str, str] | None = None
    session_id: str = "offline"


@dataclass
class _Entry:
    definition: dict[str, Any]
    call: Callable[[dict[str, Any], str], dict[str, Any]]


class _Run:
    """State of one run; :func:`run` is the public entry point."""

    def __init__(self, model: Model, options: AgentOptions) -> None:
        self.model = model
        self.o = options
        self.messages: list[dict[str, Any]] = []
        self.events: list[LoopEvent] = []
        self.requests: list[RequestRecord] = []
        self.full_results: dict[str, str] = {}
        self.turn = 0
        self.loaded: set[str] = set()
        self.used_ids: set[str] = set()
        self.fixed = 0
        self.owned_clients: list[Any] = []
        self.table: dict[str, _Entry] = {}
        PermissionMode.parse(options.permission_mode)  # an unknown mode fails before any call
        self.rules = PermissionRules(
            allow=tuple(parse_rule(r) for r in options.allowed_tools),
            deny=tuple(parse_rule(r) for r in options.disallowed_tools),
        )

    # --- setting up the tool table -----------------------------------------------------

    def add(self, name: str, entry: _Entry) -> None:
        if name in self.table:
            raise ConfigError(f"two tools are both named {name!r}", path="tools")
        self.table[name] = entry

    def build_table(self) -> None:
        for tool in self.o.tools:
            self.add(tool.name, _Entry(tool.definition(), _local_call(tool)))
        for server_name, target in self.o.mcp_servers.items():
            client, setup = self._client(server_name, target)
            for d in client.list_tools(deadline=setup):
                name = mcp_tool_name(server_name, d["name"])
                definition = {
                    "name": name,
                    "description": d.get("description", ""),
                    "input_schema": d.get("inputSchema", {"type": "object"}),
                }
                self.add(
                    name, _Entry(definition, _mcp_call(client, d["name"], self.o.tool_timeout))
                )
        for name in self.o.disallowed_tools:
            self.table.pop(name, None)
        choice = self.o.tool_choice
        if choice not in ("auto", "any") and choice not in self.table:
            raise ConfigError(f"tool_choice names an unknown tool {choice!r}", path="tool_choice")

    def _client(self, name: str, target: Any) -> tuple[Any, Deadline]:
        """The connected client of one ``mcp_servers`` entry, and the deadline its setup
        shares (connecting, then every ``tools/list`` page): made here, once, from the
        client's own timeout (``tool_timeout`` for the clients made here)."""
        from ..mcp import Client, HttpTransport, Server, StdioTransport, memory_pair

        if isinstance(target, Server):
            client = Client(memory_pair(target))
            self.owned_clients.append(client)
        elif isinstance(target, Client):
            client = target
        elif isinstance(target, Mapping):  # a `.mcp.json` server entry (already expanded)
            kind = target.get("type", "stdio")
            if kind in ("http", "streamable-http") and isinstance(target.get("url"), str):
                from ..mcp.auth import oauth_for

                fixed = dict(target.get("headers") or {})
                own = any(str(k).lower() == "authorization" for k in fixed)
                env = self.o.env if self.o.env is not None else os.environ
                transport: Any = HttpTransport(
                    target["url"],
                    fixed,
                    timeout=self.o.tool_timeout,
                    auth=None if own else oauth_for(target["url"], env),
                )
            elif kind == "stdio" and isinstance(target.get("command"), str):
                transport = StdioTransport(
                    [target["command"], *target.get("args", [])], env=target.get("env")
                )
            else:
                raise ConfigError(
                    f"mcp_servers[{name!r}]: type {kind!r} needs a url (http) or a command (stdio)",
                    path=f"mcp_servers.{name}",
                )
            client = Client(transport, timeout=self.o.tool_timeout)
            self.owned_clients.append(client)
        else:
            raise ConfigError(
                f"mcp_servers[{name!r}] must be an mcpmini Client, Server or a .mcp.json entry",
                path=f"mcp_servers.{name}",
            )
        deadline = client.deadline()
        if client.connection is None:
            client.connect(deadline)
        return client, deadline

    # --- requests ------------------------------------------------------------------------

    def tool_layer(self) -> list[dict[str, Any]]:
        if self.o.tool_search:
            return [{"name": n} for n in self.table]
        return [e.definition for e in self.table.values()]

    def call_model(self) -> list[dict[str, Any]]:
        tools = self.tool_layer()
        choice = self.o.tool_choice
        tool_choice = (
            {"type": choice} if choice in ("auto", "any") else {"type": "tool", "name": choice}
        )
        messages = json.loads(json.dumps(self.messages))  # the model gets a copy
        request = ModelRequest(self.o.system_prompt, tools, messages, tool_choice)
        segments = (
            json.dumps(tools, ensure_ascii=False),
            self.o.system_prompt,
            *(json.dumps(m, ensure_ascii=False) for m in self.messages),
        )
        self.requests.append(
            RequestRecord(
                len(self.requests) + 1,
                estimate_tokens(self.o.system_prompt),
                json_tokens(tools),
                json_tokens(self.messages),
                segments,
            )
        )
        self.event(
            Step.MODEL_CALL,
            None,
            f"request {len(self.requests)}: {self.requests[-1].total_tokens} tokens",
        )
        return self.model(request)

    def event(self, step: Step, tool: str | None, detail: str) -> None:
        self.events.append(LoopEvent(step, self.turn, tool, detail))

    # --- checking a reply ----------------------------------------------------------------

    def check_reply(self, reply: Any) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Repair the reply (see :func:`repair_reply`); return its blocks and bad calls."""

        def fresh() -> str:
            self.fixed += 1
            return f"toolu_loop_{self.fixed:03d}"

        repaired = repair_reply(reply, self.used_ids, fresh)
        for tool, note in repaired.notes:
            self.event(Step.MALFORMED, tool, note)
        return repaired.blocks, repaired.bad

    # --- running one tool call -----------------------------------------------------------

    def base(self, event: str) -> dict[str, Any]:
        """The common input fields of ``event`` in this run."""
        return {
            "session_id": self.o.session_id,
            "hook_event_name": event,
            "permission_mode": self.o.permission_mode,
        }

    def hooks(
        self, event: str, payload: dict[str, Any], tool_use_id: str | None = None
    ) -> EventResult | None:
        if not has_hooks(self.o.hooks, event):
            return None
        return run_hooks(
            self.o.hooks,
            event,
            {**self.base(event), **payload},
            tool_use_id=tool_use_id,
            project_dir=self.o.cwd or None,
            environ=self.o.env,
        )

    def execute(
        self, use: dict[str, Any], problem: str | None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        tid, name, tool_input = use["id"], use["name"], use["input"]
        extra: list[dict[str, Any]] = []

        def error(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
            return {
                "type": "tool_result",
                "tool_use_id": tid,
                "content": text,
                "is_error": True,
            }, extra

        if problem is not None:
            return error(f"Malformed tool call: {problem}.")
        entry = self.table.get(name)
        if entry is None:
            self.event(Step.TOOL_RUN, name, "unknown tool")
            return error(f"Unknown tool {name!r}. Available: {', '.join(self.table) or 'none'}.")
        if self.o.tool_search and name not in self.loaded:
            self.loaded.add(name)
            extra.append(
                {
                    "type": "text",
                    "text": "Tool definition loaded: "
                    + json.dumps(entry.definition, ensure_ascii=False),
                }
            )
            self.event(
                Step.DEFINITION_LOADED, name, f"{json_tokens(entry.definition)} tokens appended"
            )
        hooks = self.o.hooks if has_hooks(self.o.hooks, "PreToolUse") else None
        decided = decide(
            hooks,
            name,
            tool_input,
            payload={**self.base("PreToolUse"), "tool_use_id": tid},
            rules=self.rules,
            mode=self.o.permission_mode,
            cwd=self.o.cwd,
            home=(self.o.env if self.o.env is not None else os.environ).get("HOME"),
            tool_use_id=tid,
            project_dir=self.o.cwd or None,
            environ=self.o.env,
        )
        pre = decided.hooks
        if pre is not None:
            self.event(
                Step.PRE_TOOL_USE,
                name,
                f"{len(pre.ran)} ran, decision={pre.decision}, blocked={pre.blocked}",
            )
            extra += [{"type": "text", "text": c} for c in pre.additional_context]
        assert decided.gate is not None
        decision, reason, tool_input = self.permission(name, tool_input, decided.gate)
        self.event(Step.PERMISSION, name, f"{decision}: {reason}")
        if decision != "allow":
            return error(f"Permission denied for {name}: {reason}")
        result = entry.call(tool_input, tid)
        self.event(Step.TOOL_RUN, name, "error" if result["is_error"] else "ok")
        # PostToolUse after a success, PostToolUseFailure after a failed run (not a denial).
        event = "PostToolUseFailure" if result["is_error"] else "PostToolUse"
        field_ = "error" if result["is_error"] else "tool_response"
        post = self.hooks(
            event,
            {
                "tool_name": name,
                "tool_input": tool_input,
                field_: result["content"],
                "tool_use_id": tid,
            },
            tid,
        )
        if post is not None:
            self.event(Step.POST_TOOL_USE, name, f"{event}: blocked={post.blocked}")
            # The tool already ran, so nothing is undone; but a hook's exit-2 stderr or
            # {"decision": "block", "reason": …} is feedback the model must see.
            notes = ([post.reason] if post.reason else []) + list(post.additional_context)
            extra += [{"type": "text", "text": f"{event} hook: {n}"} for n in notes]
        return self.truncate(result), extra

    def permission(
        self, name: str, tool_input: dict[str, Any], verdict: GateResult
    ) -> tuple[str, str, dict[str, Any]]:
        """The gate's verdict as (allow|deny, reason, input to run with); ``ask`` goes to
        ``on_ask``."""
        tool_input = dict(verdict.tool_input if verdict.tool_input is not None else tool_input)
        reason = f"{verdict.reason} [{verdict.decided_by}]"
        if verdict.final == "ask":
            if self.o.on_ask is None:
                return (
                    "deny",
                    (f"{reason}; approval needed and no one to ask (set on_ask or allowed_tools)"),
                    tool_input,
                )
            if self.o.on_ask(name, dict(tool_input)):
                return "allow", f"{reason}; approved by on_ask", tool_input
            return "deny", f"{reason}; refused by on_ask", tool_input
        return verdict.final.value, reason, tool_input

    def truncate(self, result: dict[str, Any]) -> dict[str, Any]:
        text = str(result["content"])
        limit = self.o.max_result_tokens
        kept = cut_to_tokens(text, limit)
        if kept == text:
            return result
        tid = result["tool_use_id"]
        self.full_results[tid] = text
        where = f"RunResult.full_results[{tid!r}]"
        if self.o.results_dir is not None:
            path = Path(self.o.results_dir) / f"{tid}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            where = str(path)
        size = estimate_tokens(text)
        self.event(Step.TRUNCATED, None, f"{size} > {limit} tokens, full text in {where}")
        note = (
            f"\n[truncated: {size} tokens exceed the limit of {limit}; "
            f"the full result is kept in {where}]"
        )
        return dict(result, content=kept + note)

    # --- the loop ---------------------------------------------------------------------------

    def run(self, prompt: str) -> RunResult:
        try:
            return self._run(prompt)
        finally:
            for client in self.owned_clients:
                client.close()

    def _run(self, prompt: str) -> RunResult:
        self.build_table()
        calls = 0
        submitted = self.hooks("UserPromptSubmit", {"prompt": prompt})
        content: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
        if submitted is not None:
            self.event(Step.USER_PROMPT_SUBMIT, None, f"blocked={submitted.blocked}")
            if submitted.blocked:
                return self.result(StopReason.PROMPT_BLOCKED, calls)
            content += [{"type": "text", "text": c} for c in submitted.additional_context]
        self.messages.append({"role": "user", "content": content})
        limit = self.o.max_turns
        stop_blocks = 0  # Stop-hook blocks in a row (capped like Claude Code's)
        while True:
            calls += 1
            blocks, bad = self.check_reply(self.call_model())
            self.messages.append({"role": "assistant", "content": blocks})
            uses = [b for b in blocks if b["type"] == "tool_use"]
            if not uses:
                stop = self.hooks("Stop", {"stop_hook_active": self.turn > 0})
                if stop is not None:
                    self.event(Step.STOP, None, f"blocked={stop.blocked}")
                stop_blocks = stop_blocks + 1 if stop is not None and stop.blocked else 0
                if (
                    not stop_blocks
                    or stop_blocks > STOP_BLOCK_CAP
                    or (limit is not None and self.turn >= limit)
                ):
                    return self.result(StopReason.END_TURN, calls)
                # A blocking Stop hook keeps the loop going; that counts as a turn, so
                # the bound of T + 1 model calls still holds.
                self.turn += 1
                self.messages.append(
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "text",
                                "text": f"Stop hook: {(stop and stop.reason) or 'continue'}",
                            }
                        ],
                    }
                )
                continue
            if limit is not None and self.turn >= limit:
                self.messages.append(
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": u["id"],
                                "is_error": True,
                                "content": f"Not run: max_turns ({limit}) reached.",
                            }
                            for u in uses
                        ],
                    }
                )
                self.check_pairing()
                return self.result(StopReason.MAX_TURNS, calls)
            self.turn += 1
            results: list[dict[str, Any]] = []
            notes: list[dict[str, Any]] = []
            for use in uses:
                result, extra = self.execute(use, bad.get(use["id"]))
                results.append(result)
                notes.extend(extra)
            self.messages.append({"role": "user", "content": results + notes})
            self.check_pairing()

    def check_pairing(self) -> None:
        violations = pairing_violations(self.messages)
        self.event(Step.PAIRING_CHECK, None, "ok" if not violations else str(violations))
        if violations:
            raise PairingError(violations)

    def result(self, reason: StopReason, calls: int) -> RunResult:
        return RunResult(
            self.messages, self.events, self.requests, reason, calls, self.turn, self.full_results
        )


def _local_call(tool: Tool) -> Callable[[dict[str, Any], str], dict[str, Any]]:
    def call(tool_input: dict[str, Any], tid: str) -> dict[str, Any]:
        out: ToolResult = tool.run(tool_input)
        return {
            "type": "tool_result",
            "tool_use_id": tid,
            "content": out.content,
            "is_error": out.is_error,
        }

    return call


def _mcp_call(
    client: Any, tool: str, timeout: float
) -> Callable[[dict[str, Any], str], dict[str, Any]]:
    from ..mcp import OutcomeKind, ToolOutcome, to_tool_result

    def call(tool_input: dict[str, Any], tid: str) -> dict[str, Any]:
        # The call's one deadline, made where the call starts: every input round and a task
        # to its end share it.
        deadline = Deadline.after(timeout, label=f"tool_timeout {timeout:g} s")
        try:
            outcome = client.call_tool(tool, tool_input, deadline=deadline)
        except McpminiError as exc:  # e.g. the server process is gone
            outcome = ToolOutcome(OutcomeKind.NO_ANSWER, tool, reason=str(exc))
        return to_tool_result(outcome, tid)

    return call


def run(prompt: str, model: Model, options: AgentOptions | None = None) -> RunResult:
    """Run the agent loop on ``prompt`` with ``model``; return the :class:`RunResult`.

    Raises :class:`ConfigError` for inconsistent options (duplicate tool names, an
    unknown ``tool_choice`` or permission mode, an invalid permission rule, an
    ``mcp_servers`` entry that is not a Client/Server),
    :class:`PairingError` if the invariant breaks (a bug), and whatever the model
    itself raises. Clients created here for in-process servers are closed at the end.
    """
    return _Run(model, options or AgentOptions()).run(prompt)
