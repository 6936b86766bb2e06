"""Plain functions behind chapters 07-08: matcher explanations, hook simulations, and the
executable checks of Propositions 4.3 and 4.5.

Everything here drives the real runtime: :func:`simulate_hook` starts a real command hook
(a one-line ``sh`` program with the chosen stdout and exit code, or a path that does not
exist) through :func:`mcpmini.hooks.run_hooks` and sends the result through
:func:`mcpmini.permissions.gate`. :func:`prop_4_3_rows` does that for every combination of
a small universe; :func:`prop_4_5_trial` runs the agent loop of :mod:`mcpmini.agent.loop` with a
randomly generated model and checks that a matching PreToolUse hook saw every executed call
before it ran.
"""

from __future__ import annotations

import itertools
import os
import random
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...hooks import (
    CommandHandler,
    EventResult,
    HandlerOptions,
    HookMatcher,
    MatcherRule,
    OnFailure,
    decide,
    match,
)
from ...permissions import GateResult, PermissionMode, PermissionRules, gate

__all__ = [
    "EXIT_CHOICES",
    "MISSING",
    "OTHER_DECISIONS",
    "RULE_SETS",
    "HookSimulation",
    "MatcherExplanation",
    "RandomToolModel",
    "Trial",
    "check_prop_4_3",
    "explain_matcher",
    "prop_4_3_rows",
    "prop_4_5_trial",
    "simulate_hook",
]

MISSING = "missing"  # the exit-code choice "script does not exist"
EXIT_CHOICES: tuple[int | str, ...] = (0, 1, 2, MISSING)


@dataclass(frozen=True)
class MatcherExplanation:
    """Whether a matcher fires for a name, which rule read it, and the details in words."""

    matcher: str | None
    name: str
    matched: bool
    rule: MatcherRule
    lines: tuple[str, ...]

    def text(self) -> str:
        """The explanation as printable lines."""
        return "\n".join(self.lines)


def explain_matcher(matcher: str | None, name: str, *, narrow: bool = False) -> MatcherExplanation:
    """Explain how ``matcher`` is read and whether it matches ``name`` (reference §1.5)."""
    result = match(matcher, name, narrow=narrow)
    lines = [f"matcher {matcher!r}, name {name!r}", f"rule: {result.rule.value}"]
    if result.rule is MatcherRule.ALL:
        lines.append('"*", "" or no matcher: every name matches')
    elif result.rule in (MatcherRule.EXACT, MatcherRule.LIST):
        lines.append(f"only letters, digits, _ - space , | -> exact names {list(result.names)}")
    elif result.error:
        lines.append(f"regex refused: {result.error}")
    else:
        lines.append(
            f"other characters -> unanchored JavaScript regex, run as Python "
            f"{result.pattern!r} with re.ASCII and .search()"
        )
    lines.append(f"result: {'MATCH' if result.matched else 'no match'}")
    return MatcherExplanation(matcher, name, result.matched, result.rule, tuple(lines))


@dataclass(frozen=True)
class HookSimulation:
    """One real hook run and the gate decision that follows it."""

    hooks: EventResult
    gate: GateResult

    @property
    def outcome(self) -> str:
        """The hook's outcome value (``success``, ``blocking_error``, ``non_blocking_error``),
        after ``onFailure``: a failure under ``"block"`` is reported as a blocking error."""
        run = next(r for r in self.hooks.ran if r.handler_type == "command")
        return run.outcome.value if run.outcome else "not run"

    @property
    def article_outcome(self) -> str:
        """The outcome of Definition 4.2 before ``onFailure`` is applied: any failure
        (not started, exit 1, bad JSON, timeout) is a non-blocking error."""
        run = next(r for r in self.hooks.ran if r.handler_type == "command")
        return "non_blocking_error" if run.failure else self.outcome

    def text(self) -> str:
        """The hook outcome, combined decision and the path through the gate."""
        run = next(r for r in self.hooks.ran if r.handler_type == "command")
        lines = [
            f"hook: outcome {self.outcome}, exit code {run.exit_code}"
            + (f", failure {run.failure.value}" if run.failure else ""),
            f"hooks combined: decision {self.hooks.decision or 'none'}, "
            f"blocked {'yes' if self.hooks.blocked else 'no'}",
        ]
        lines += [
            f"  {i}. {s.step:<13} {s.verdict or 'pass':<5} {s.detail}"
            for i, s in enumerate(self.gate.path, 1)
        ]
        lines.append(f"final: {self.gate.final}")
        return "\n".join(lines)


def _hook_command(exit_code: int | str, stdout: str) -> CommandHandler:
    if exit_code == MISSING:
        return CommandHandler("/nonexistent/.claude/hooks/guard.py")
    return CommandHandler(f"printf '%s' {shlex.quote(stdout)}; exit {int(exit_code)}")


def _rules(rules: PermissionRules | Mapping[str, Sequence[str]] | None) -> PermissionRules:
    if rules is None:
        return PermissionRules()
    if isinstance(rules, PermissionRules):
        return rules
    return PermissionRules(
        tuple(rules.get("allow", ())), tuple(rules.get("ask", ())), tuple(rules.get("deny", ()))
    )


def simulate_hook(
    exit_code: int | str,
    stdout: str = "",
    on_failure: str = "continue",
    rules: PermissionRules | Mapping[str, Sequence[str]] | None = None,
    mode: PermissionMode | str = "default",
    *,
    tool_name: str = "Write",
    tool_input: Mapping[str, Any] | None = None,
    other_decision: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> HookSimulation:
    """Run one real PreToolUse command hook and the gate after it.

    ``exit_code`` is an int or ``"missing"`` (the script path does not exist); ``stdout``
    what the hook prints; ``other_decision`` adds a second hook (a Python callback) that
    returns that permission decision. Returns a :class:`HookSimulation`.
    """
    handler = _hook_command(exit_code, stdout)
    options = HandlerOptions(timeout=10, on_failure=OnFailure(on_failure))
    handler = CommandHandler(handler.command, options=options)
    hooks: list[Any] = [handler]
    if other_decision:

        def other(input_data: Any, tool_use_id: Any, context: Any) -> dict[str, Any]:
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": other_decision,
                }
            }

        hooks.append(other)
    tool_input = dict(tool_input or {"file_path": "/repo/.env"})
    env = environ if environ is not None else {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    decided = decide(
        {"PreToolUse": [HookMatcher("*", hooks)]},
        tool_name,
        tool_input,
        rules=_rules(rules),
        mode=mode,
        cwd="/repo",
        tool_use_id="toolu_sim",
        environ=env,
        project_dir="/",
    )
    assert decided.hooks is not None and decided.gate is not None
    return HookSimulation(decided.hooks, decided.gate)


RULE_SETS: dict[str, PermissionRules] = {
    "none": PermissionRules(),
    "allow Write": PermissionRules(allow=("Write", "Edit")),
    "ask Write": PermissionRules(ask=("Write",)),
    "deny Write": PermissionRules(deny=("Write",)),
}
OTHER_DECISIONS: tuple[str | None, ...] = (None, "allow", "ask", "defer")


def prop_4_3_rows(environ: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Every combination of exit code x onFailure x other hook x rules x mode, run for real.

    Returns one dict per combination: the inputs, the hook ``outcome`` of Definition 4.2
    (before onFailure) and the ``reported`` one (after it), the ``final`` decision and
    ``deferred`` (a hook's defer won: the runtime reports it as ``final="ask"``),
    ``stopped_at_hooks`` (the gate decided at its first station) and ``final_without_h``
    (the gate with only the other hook: what happens when H contributes nothing).
    """
    rows = []
    for code, on_failure, other in itertools.product(
        EXIT_CHOICES, ("continue", "block"), OTHER_DECISIONS
    ):
        sim = simulate_hook(code, "", on_failure, other_decision=other, environ=environ)
        alone = None
        for (label, rules), mode in itertools.product(RULE_SETS.items(), PermissionMode):
            verdict = gate(
                "Write",
                {"file_path": "/repo/.env"},
                hooks=sim.hooks,
                rules=rules,
                mode=mode,
                cwd="/repo",
            )
            if other is None:
                baseline = gate(
                    "Write", {"file_path": "/repo/.env"}, rules=rules, mode=mode, cwd="/repo"
                )
            else:
                alone = alone or simulate_hook(0, "", other_decision=other, environ=environ)
                baseline = gate(
                    "Write",
                    {"file_path": "/repo/.env"},
                    hooks=alone.hooks,
                    rules=rules,
                    mode=mode,
                    cwd="/repo",
                )
            rows.append(
                {
                    "exit_code": code,
                    "on_failure": on_failure,
                    "other": other or "-",
                    "rules": label,
                    "mode": mode.value,
                    "outcome": sim.article_outcome,
                    "reported": sim.outcome,
                    "final": verdict.final.value,
                    "deferred": verdict.deferred,
                    "stopped_at_hooks": verdict.decided_by == "hooks",
                    "final_without_h": baseline.final.value,
                }
            )
    return rows


def check_prop_4_3(rows: Sequence[Mapping[str, Any]]) -> dict[str, bool]:
    """Check parts 1-3 of Proposition 4.3 on :func:`prop_4_3_rows`' output.

    1: every blocking outcome gives ``deny`` decided at the hooks station;
    2: a non-blocking error with ``continue`` leaves the decision to the rest (``final`` is
    what it would be without H), with ``block`` it gives ``deny``;
    3: the outcomes that stop a call are {blocking} under fail-open and every outcome but
    success under fail-closed, so the fail-closed requirement is the weaker one.
    """
    part1 = all(
        r["final"] == "deny" and r["stopped_at_hooks"]
        for r in rows
        if r["outcome"] == "blocking_error"
    )
    failures = [r for r in rows if r["exit_code"] in (1, MISSING)]
    part2 = all(
        (r["final"] == r["final_without_h"])
        if r["on_failure"] == "continue"
        else (r["final"] == "deny" and r["stopped_at_hooks"])
        for r in failures
    )
    stopping = {
        of: {
            r["outcome"]
            for r in rows
            if r["on_failure"] == of
            and all(
                x["final"] == "deny"
                for x in rows
                if (x["exit_code"], x["on_failure"]) == (r["exit_code"], of)
            )
        }
        for of in ("continue", "block")
    }
    outcomes = {r["outcome"] for r in rows}
    part3 = (
        stopping["continue"] == {"blocking_error"}
        and stopping["block"] == outcomes - {"success"}
        and stopping["continue"] < stopping["block"]
    )
    return {"4.3.1": part1, "4.3.2": part2, "4.3.3": part3}


# --- Proposition 4.5: hooks do not depend on the model --------------------------------------


class RandomToolModel:
    """A model drawn at random: each call asks for 0-3 tool calls on random inputs.

    It ignores what it is shown (so it also ignores every instruction), and stops with a
    text reply with probability ``p_stop``. ``seed`` makes it reproducible.
    """

    def __init__(
        self, seed: int, tools: Sequence[str], paths: Sequence[str], p_stop: float = 0.25
    ) -> None:
        self.rng = random.Random(seed)
        self.tools, self.paths, self.p_stop = list(tools), list(paths), p_stop
        self.count = 0

    def __call__(self, request: Any) -> list[dict[str, Any]]:
        if self.rng.random() < self.p_stop:
            return [{"type": "text", "text": "done"}]
        blocks = []
        for _ in range(self.rng.randint(1, 3)):
            self.count += 1
            blocks.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_r{self.count:04d}",
                    "name": self.rng.choice(self.tools),
                    "input": {
                        "file_path": self.rng.choice(self.paths),
                        "content": f"v{self.count}",
                    },
                }
            )
        return blocks


@dataclass
class Trial:
    """One run of the loop: executed calls, hook invocations, and the invariant's verdict."""

    seed: int
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, tool, path)

    @property
    def executed(self) -> int:
        """How many tool calls actually ran."""
        return sum(1 for kind, _, _ in self.events if kind == "run")

    @property
    def violations(self) -> int:
        """Executed calls with no earlier hook invocation on the same (name, input)."""
        seen: set[tuple[str, str]] = set()
        bad = 0
        for kind, tool, path in self.events:
            if kind == "hook":
                seen.add((tool, path))
            elif (tool, path) not in seen:
                bad += 1
        return bad

    @property
    def env_writes(self) -> int:
        """Executed writes to a ``.env`` file."""
        return sum(1 for kind, _, path in self.events if kind == "run" and path.endswith(".env"))


def prop_4_5_trial(
    seed: int,
    *,
    guard: bool = True,
    max_turns: int = 6,
    instruction: str = "Never write to .env files.",
) -> Trial:
    """Run the agent loop once with :class:`RandomToolModel` (seeded) and record events.

    Tools ``Write`` and ``Edit`` only record that they ran. A PreToolUse hook on
    ``Edit|Write`` records every invocation and, when ``guard`` is true, blocks ``.env``
    paths. ``instruction`` is placed in the system prompt, where the model may ignore it.
    """
    from ...agent import AgentOptions, Tool, run

    trial = Trial(seed)

    def tool(name: str) -> Tool:
        def fn(args: dict[str, Any]) -> str:
            trial.events.append(("run", name, args["file_path"]))
            return "ok"

        schema = {
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["file_path"],
        }
        return Tool(name, f"{name} a file", schema, fn)

    def hook(input_data: dict[str, Any], tool_use_id: Any, context: Any) -> dict[str, Any]:
        path = input_data["tool_input"].get("file_path", "")
        trial.events.append(("hook", input_data["tool_name"], path))
        if guard and path.endswith(".env"):
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": ".env is protected",
                }
            }
        return {}

    model = RandomToolModel(
        seed, ["Write", "Edit"], ["/repo/app.py", "/repo/.env", "/repo/docs/a.md"]
    )
    options = AgentOptions(
        system_prompt=instruction,
        tools=[tool("Write"), tool("Edit")],
        hooks={"PreToolUse": [HookMatcher("Edit|Write", [hook])]},
        permission_mode="bypassPermissions",
        max_turns=max_turns,
    )
    run("update the files", model, options)
    return trial
