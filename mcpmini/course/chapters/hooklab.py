"""Plain functions behind chapters 07, 07b and 08: matcher explanations, hook simulations,
the tables those chapters show, and the executable checks of Propositions 4.3 and 4.5 and of
Note 4.4.

Everything here drives the real runtime: :func:`simulate_hook` starts a real command hook
(a one-line ``sh`` program with the chosen stdout and exit code, or a path that does not
exist) through :func:`mcpmini.hooks.run_hooks` and sends the result through
:func:`mcpmini.permissions.gate`. :func:`prop_4_3_rows` does that for every combination of
a small universe; :func:`prop_4_5_trial` runs the agent loop of :mod:`mcpmini.agent.loop` with a
randomly generated model and checks that a matching PreToolUse hook saw every executed call
before it ran; :func:`note_4_4_rows` runs the cases Note 4.4 sets outside the model.

Every word a learner reads is a :class:`~mcpmini.course.language.Text` of the tables at the
top (:data:`WORDS`, :data:`STATIONS`, :data:`VERDICTS`, :data:`OUTCOMES`, :data:`EFFECTS`), so
the notebooks' code cells print no word of either language; the values inside the tables
(``success``, ``deny``, ``blocks``…) are the runtime's identifiers, which both editions show.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shlex
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...hooks import (
    EVENTS,
    CommandHandler,
    EventResult,
    HandlerOptions,
    HookMatcher,
    MatcherRule,
    OnFailure,
    decide,
    load_settings,
    match,
    run_hooks,
)
from ...permissions import GateResult, GateStage, PermissionMode, PermissionRules, gate
from ..language import Text
from .tables import frame

__all__ = [
    "EFFECTS",
    "EXIT_CHOICES",
    "INSTRUCTION",
    "MISSING",
    "OTHER_DECISIONS",
    "OUTCOMES",
    "PROP_4_5_GROUPS",
    "RULE_SETS",
    "STATIONS",
    "VERDICTS",
    "WORDS",
    "HookSimulation",
    "MatcherExplanation",
    "RandomToolModel",
    "Trial",
    "check_prop_4_3",
    "check_prop_4_5",
    "event_table",
    "explain_matcher",
    "gate_lines",
    "guard_table",
    "note_4_4_rows",
    "note_4_4_table",
    "post_failure_rows",
    "post_failure_table",
    "prop_4_3_rows",
    "prop_4_5_constant",
    "prop_4_5_table",
    "prop_4_5_trial",
    "simulate_hook",
    "simulation_rows",
    "simulation_table",
    "station_states",
]

MISSING = "missing"  # the exit-code choice "script does not exist"
EXIT_CHOICES: tuple[int | str, ...] = (0, 1, 2, MISSING)

#: Every fixed text of this module's reports and tables, one row each.
WORDS: dict[str, Text] = {
    "matcher_line": Text("マッチャ {matcher}、名前 {name}", "matcher {matcher}, name {name}"),
    "rule_line": Text("読み方: {rule}", "rule: {rule}"),
    "all": Text('"*"・""・省略: どの名前にもマッチ', '"*", "" or no matcher: every name matches'),
    "exact": Text(
        "英字・数字・_・-・空白・,・| だけ → 完全一致の名前 {names}",
        "only letters, digits, _ - space , | -> exact names {names}",
    ),
    "refused": Text("正規表現として受け付けない: {error}", "regex refused: {error}"),
    "regex": Text(
        "それ以外の文字を含む → 固定されない JavaScript の正規表現。Python では {pattern} を "
        "re.ASCII 付きの .search() で調べる",
        "other characters -> unanchored JavaScript regex, run as Python {pattern} with "
        "re.ASCII and .search()",
    ),
    "matched": Text("結果: マッチする", "result: match"),
    "unmatched": Text("結果: マッチしない", "result: no match"),
    "hook_line": Text(
        "フック: 帰結 {word}（{outcome}）、終了コード {code}{failure}",
        "hook: outcome {outcome}, exit code {code}{failure}",
    ),
    "failure": Text("、失敗 {failure}", ", failure {failure}"),
    "combined": Text(
        "フックの合成: 決定 {decision}、ブロック {blocked}",
        "hooks combined: decision {decision}, blocked {blocked}",
    ),
    "final": Text("最終の判定: {verdict}", "final: {verdict}"),
    "none": Text("なし", "none"),
    "yes": Text("はい", "yes"),
    "no": Text("いいえ", "no"),
    "mark": Text("✓", "✓"),
    # the columns of the chapters' tables
    "col_event": Text("イベント", "event"),
    "col_matcher_field": Text("マッチャが読む欄", "matcher reads"),
    "col_exit2": Text("終了コード 2", "exit code 2"),
    "col_effect": Text("効果", "effect"),
    "col_ignores": Text("onFailure を無視", "ignores onFailure"),
    "col_exit_code": Text("終了コード", "exit code"),
    "col_stdout": Text("標準出力", "stdout"),
    "col_outcome": Text("帰結", "outcome"),
    "col_decision": Text("フックの決定", "hook decision"),
    "col_final": Text("最終の判定", "final"),
    "col_blocked": Text("止めたか", "blocked"),
    "col_to_claude": Text("Claude に届く文", "what Claude is told"),
    "col_case": Text("場合", "case"),
    "col_ran": Text("走ったフック", "hooks run"),
    "col_decided_at": Text("決めた関門", "decided at"),
    "col_command": Text("コマンド", "command"),
    "col_without": Text("フックなし", "without the hook"),
    "col_with": Text("フックあり", "with the hook"),
    "col_group": Text("組", "group"),
    "col_trials": Text("試行", "trials"),
    "col_executed": Text("実行された呼び出し", "executed calls"),
    "col_violations": Text("フックを先に通らなかったもの", "not seen by the hook first"),
    "col_env_writes": Text("実行された .env への書き込み", "executed .env writes"),
}

#: The gate's stations as the chapters name them, in the order a call meets them.
STATIONS: dict[GateStage, Text] = {
    GateStage.HOOKS: Text("フック", "hooks"),
    GateStage.DENY_RULES: Text("deny 規則", "deny rules"),
    GateStage.ASK_RULES: Text("ask 規則", "ask rules"),
    GateStage.SAFETY_CHECK: Text("削除の検査", "removal check"),
    GateStage.HOOK_DECISION: Text("フックの決定", "hook decision"),
    GateStage.MODE: Text("権限モード", "permission mode"),
    GateStage.ALLOW_RULES: Text("allow 規則", "allow rules"),
    GateStage.FALLBACK: Text("どれにも当たらない", "nothing matched"),
}

#: A verdict of the gate (or a hook's decision) in words.
VERDICTS: dict[str, Text] = {
    "deny": Text("拒否 (deny)", "deny"),
    "ask": Text("確認 (ask)", "ask"),
    "allow": Text("許可 (allow)", "allow"),
    "defer": Text("呼び出し側へ (defer)", "defer"),
    "pass": Text("通過", "pass"),
    "unreached": Text("届かない", "not reached"),
}

#: The outcomes of Definition 4.2 in the glossary's words.
OUTCOMES: dict[str, Text] = {
    "success": Text("成功", "success"),
    "blocking_error": Text("ブロックするエラー", "blocking error"),
    "non_blocking_error": Text("ブロックしないエラー", "non-blocking error"),
}

#: What each gate station did, in words: (station, decided?) -> text. ``{rule}``, ``{mode}``,
#: ``{decision}`` and ``{verdict}`` are filled in by :func:`gate_lines`.
_STEPS: dict[tuple[GateStage, bool], Text] = {
    (GateStage.HOOKS, False): Text("フックの決定: {decision}", "hook decision: {decision}"),
    (GateStage.HOOKS, True): Text(
        "PreToolUse フックが呼び出しを止めた", "a PreToolUse hook blocked the call"
    ),
    (GateStage.DENY_RULES, False): Text("当てはまる deny 規則は無い", "no deny rule matches"),
    (GateStage.DENY_RULES, True): Text("deny 規則 {rule} が当てはまる", "deny rule {rule} matches"),
    (GateStage.ASK_RULES, False): Text("当てはまる ask 規則は無い", "no ask rule matches"),
    (GateStage.ASK_RULES, True): Text("ask 規則 {rule} が当てはまる", "ask rule {rule} matches"),
    (GateStage.SAFETY_CHECK, False): Text("危険な削除ではない", "not a dangerous removal"),
    (GateStage.SAFETY_CHECK, True): Text(
        "危険な削除（rm）に当たる: どのモードでも許可されない",
        "a dangerous removal (rm): no mode approves it",
    ),
    (GateStage.HOOK_DECISION, False): Text(
        "フックは ask・defer・allow を返していない", "no hook returned ask, defer or allow"
    ),
    (GateStage.HOOK_DECISION, True): Text(
        "フックの {decision} がここで効く", "the hook's {decision} takes effect here"
    ),
    (GateStage.MODE, False): Text(
        "モード {mode} はこの呼び出しを決めない", "mode {mode} does not decide this call"
    ),
    (GateStage.MODE, True): Text("モード {mode} が決める", "mode {mode} decides"),
    (GateStage.ALLOW_RULES, False): Text("当てはまる allow 規則は無い", "no allow rule matches"),
    (GateStage.ALLOW_RULES, True): Text(
        "allow 規則 {rule} が当てはまる", "allow rule {rule} matches"
    ),
    (GateStage.FALLBACK, True): Text(
        "前のどの関門も決めなかった: {verdict}", "nothing earlier decided: {verdict}"
    ),
}
_PROTECTED = Text(
    "保護されたパス: allow 規則は効かない", "protected path: allow rules do not apply"
)

#: What exit code 2 does on each event (the catalogue's ``effect``), in Japanese; the English
#: is the catalogue's own text. An effect missing here falls back to :data:`_EXIT2_WORDS`.
_EFFECTS_JA: dict[str, str] = {
    "cannot block; stderr shown to the user": "止められない。標準エラーは利用者に見せる",
    "cannot block": "止められない",
    "ignored": "無視される",
    "blocks the prompt and erases it": "入力を止めて消す",
    "blocks the expansion": "展開を止める",
    "original text shown": "元の文がそのまま表示される",
    "blocks the call; stderr to Claude": "呼び出しを止める。標準エラーは Claude へ",
    "not honored; flow unchanged": "効かない。流れは変わらない",
    "cannot block (the tool already ran); stderr to Claude": (
        "止められない（ツールはもう実行された）。標準エラーは Claude へ"
    ),
    "stderr to Claude": "標準エラーは Claude へ",
    "stops the agentic loop": "エージェントループを止める",
    "the subagent keeps running": "サブエージェントは動き続ける",
    "task creation rolled back": "タスクの作成を取り消す",
    "task not marked complete": "タスクは完了にならない",
    "Claude keeps going": "Claude は続ける",
    "the teammate keeps working": "チームメイトは作業を続ける",
    "blocks the change (never for policy_settings)": "変更を止める（policy_settings は止めない）",
    "any nonzero exit fails creation": "0 以外の終了コードはどれも作成を失敗させる",
    "blocks compaction": "圧縮を止める",
    "denies the request": "要求を断る",
    "the action becomes decline": "答えは decline になる",
    "blocks the switch; a timeout also blocks": "切り替えを止める。時間切れでも止める",
}
_EXIT2_WORDS: dict[str, Text] = {
    "blocks": Text("行為を止める", "stops the action"),
    "feedback": Text("止められない。標準エラーは Claude へ", "cannot block; stderr to Claude"),
    "shown": Text("止められない。標準エラーは利用者に見せる", "cannot block; stderr to the user"),
    "ignored": Text("無視される", "ignored"),
}


def _effect(effect: str, exit2: str) -> Text:
    ja = _EFFECTS_JA.get(effect)
    return Text(ja, effect) if ja is not None else _EXIT2_WORDS[exit2]


#: The catalogue's effect of exit code 2 on each event, in both languages.
EFFECTS: dict[str, Text] = {
    name: _effect(spec.effect, spec.exit2.value) for name, spec in EVENTS.items()
}


def event_table() -> Any:
    """The hook events of :data:`mcpmini.hooks.EVENTS` as a labelled ``DataFrame``, the
    article's §4.1 events first (marked ★): matcher field, what exit 2 does (the runtime's
    word and in words), and whether ``onFailure`` is ignored."""
    specs = sorted(EVENTS.values(), key=lambda s: not s.article)  # stable: catalogue order
    rows = [
        {
            "event": ("★ " if s.article else "") + s.name,
            "matcher_field": s.matcher_field or "-",
            "exit2": s.exit2.value,
            "effect": EFFECTS[s.name],
            "ignores": WORDS["mark"] if s.on_failure_ignored else "",
        }
        for s in specs
    ]
    return frame(rows, _columns("event", "matcher_field", "exit2", "effect", "ignores"))


_COLUMN_KEYS = {
    "event": "col_event",
    "matcher_field": "col_matcher_field",
    "exit2": "col_exit2",
    "effect": "col_effect",
    "ignores": "col_ignores",
    "exit_code": "col_exit_code",
    "stdout": "col_stdout",
    "on_failure": "onFailure",
    "outcome": "col_outcome",
    "decision": "col_decision",
    "final": "col_final",
    "blocked": "col_blocked",
    "to_claude": "col_to_claude",
    "case": "col_case",
    "ran": "col_ran",
    "decided_at": "col_decided_at",
    "command": "col_command",
    "without": "col_without",
    "with": "col_with",
    "group": "col_group",
    "trials": "col_trials",
    "executed": "col_executed",
    "violations": "col_violations",
    "env_writes": "col_env_writes",
}


def _columns(*keys: str) -> dict[str, Text | str]:
    return {k: WORDS.get(_COLUMN_KEYS[k], _COLUMN_KEYS[k]) for k in keys}


@dataclass(frozen=True)
class MatcherExplanation:
    """Whether a matcher fires for a name, which rule read it, and the details in words."""

    matcher: str | None
    name: str
    matched: bool
    rule: MatcherRule
    lines: tuple[Text, ...]

    def text(self) -> str:
        """The explanation as printable lines, in the current language."""
        return "\n".join(str(line) for line in self.lines)


def explain_matcher(matcher: str | None, name: str, *, narrow: bool = False) -> MatcherExplanation:
    """Explain how ``matcher`` is read and whether it matches ``name`` (reference §1.5)."""
    result = match(matcher, name, narrow=narrow)
    lines = [
        WORDS["matcher_line"].format(matcher=repr(matcher), name=repr(name)),
        WORDS["rule_line"].format(rule=result.rule.value),
    ]
    if result.rule is MatcherRule.ALL:
        lines.append(WORDS["all"])
    elif result.rule in (MatcherRule.EXACT, MatcherRule.LIST):
        lines.append(WORDS["exact"].format(names=list(result.names)))
    elif result.error:
        lines.append(WORDS["refused"].format(error=result.error))
    else:
        lines.append(WORDS["regex"].format(pattern=repr(result.pattern)))
    lines.append(WORDS["matched" if result.matched else "unmatched"])
    return MatcherExplanation(matcher, name, result.matched, result.rule, tuple(lines))


def station_states(result: GateResult) -> list[tuple[GateStage, str]]:
    """Every station of the gate with what happened there: ``"pass"`` (the call went on),
    the verdict of the station that decided, or ``"unreached"`` after it. A station the
    runtime passes without recording it (the removal check, the hook's own decision when
    there is none) counts as passed: a call meets the stations in order."""
    deciding = result.path[-1].step
    order = list(GateStage)
    last = order.index(deciding)
    verdict = "defer" if result.deferred else str(result.final)
    return [
        (stage, "pass" if i < last else verdict if i == last else "unreached")
        for i, stage in enumerate(order)
    ]


def gate_lines(result: GateResult, *, decision: str | None = None, mode: str = "") -> list[str]:
    """One line per station a call reached, in words: number, station, verdict or pass, and
    what the station found (the rule that matched, the mode, the hook's ``decision``)."""
    details = {step.step: step.detail for step in result.path}
    lines = []
    for i, (stage, state) in enumerate(station_states(result), 1):
        if state == "unreached":
            break
        decided = state != "pass"
        words = _STEPS.get((stage, decided), _STEPS.get((stage, True)))
        assert words is not None
        if (
            stage is GateStage.ALLOW_RULES
            and not decided
            and details.get(stage, "").startswith("protected path")
        ):
            words = _PROTECTED
        text = words.format(
            rule=result.rule.text if result.rule is not None else "",
            mode=mode,
            decision=decision or WORDS["none"],
            verdict=VERDICTS[state] if decided else "",
        )
        lines.append(f"  {i}. {STATIONS[stage]}  [{VERDICTS[state]}]  {text}")
    return lines


@dataclass(frozen=True)
class HookSimulation:
    """One real hook run and the gate decision that follows it (in permission ``mode``)."""

    hooks: EventResult
    gate: GateResult
    mode: str = "default"

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
        """The hook outcome, combined decision and the path through the gate, in words."""
        run = next(r for r in self.hooks.ran if r.handler_type == "command")
        failure = WORDS["failure"].format(failure=run.failure.value) if run.failure else ""
        decision = self.hooks.decision
        lines = [
            str(
                WORDS["hook_line"].format(
                    word=OUTCOMES.get(self.outcome, self.outcome),
                    outcome=self.outcome,
                    code=run.exit_code,
                    failure=failure,
                )
            ),
            str(
                WORDS["combined"].format(
                    decision=decision or WORDS["none"],
                    blocked=WORDS["yes" if self.hooks.blocked else "no"],
                )
            ),
        ]
        lines += gate_lines(self.gate, decision=decision, mode=self.mode)
        verdict = "defer" if self.gate.deferred else str(self.gate.final)
        lines.append(str(WORDS["final"].format(verdict=VERDICTS[verdict])))
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


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return environ if environ is not None else {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


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
    decided = decide(
        {"PreToolUse": [HookMatcher("*", hooks)]},
        tool_name,
        tool_input,
        rules=_rules(rules),
        mode=mode,
        cwd="/repo",
        tool_use_id="toolu_sim",
        environ=_environ(environ),
        project_dir="/",
    )
    assert decided.hooks is not None and decided.gate is not None
    return HookSimulation(decided.hooks, decided.gate, str(PermissionMode(mode).value))


def _short(text: str, width: int = 40) -> str:
    """``text`` within ``width`` characters; a hook's JSON output keeps its decision in view."""
    if len(text) <= width:
        return text
    try:
        decision = json.loads(text)["hookSpecificOutput"]["permissionDecision"]
    except (ValueError, KeyError, TypeError):
        return text[: width - 1] + "…"
    return f'{{… "permissionDecision": "{decision}"}}'


def simulation_rows(
    cases: Iterable[tuple[int | str, str, str]],
    rules: PermissionRules | Mapping[str, Sequence[str]] | None = None,
    mode: PermissionMode | str = "default",
    *,
    environ: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One real hook run per ``(exit_code, stdout, on_failure)`` of ``cases`` and the gate
    after it: the inputs (stdout shortened), the outcome, the hooks' decision, the final
    decision (``defer`` where a hook's defer won)."""
    rows = []
    for code, stdout, on_failure in cases:
        sim = simulate_hook(code, stdout, on_failure, rules, mode, environ=environ)
        rows.append(
            {
                "exit_code": code,
                "stdout": _short(stdout),
                "on_failure": on_failure,
                "outcome": sim.outcome,
                "decision": sim.hooks.decision.value if sim.hooks.decision else "-",
                "final": "defer" if sim.gate.deferred else sim.gate.final.value,
            }
        )
    return rows


def simulation_table(
    cases: Iterable[tuple[int | str, str, str]],
    rules: PermissionRules | Mapping[str, Sequence[str]] | None = None,
    mode: PermissionMode | str = "default",
    *,
    environ: Mapping[str, str] | None = None,
    stdout: bool = True,
) -> Any:
    """:func:`simulation_rows` as a labelled ``DataFrame`` (without the stdout column when
    ``stdout`` is false)."""
    rows = simulation_rows(cases, rules, mode, environ=environ)
    keys = ["exit_code", "stdout", "on_failure", "outcome", "decision", "final"]
    if not stdout:
        keys.remove("stdout")
    return frame(rows, _columns(*keys))


# --- a PostToolUse formatter that fails: continue or block -----------------------------------


def post_failure_rows(environ: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """A PostToolUse formatter hook that fails (exit 1), run under each ``onFailure``: its
    outcome, whether it stopped anything, and the text Claude is given (``-``: nothing).

    Claude Code 2.1.332 was seen to do the same: under ``"block"`` the failure reaches Claude
    as a blocking error with the hook's stderr; the edit, already made, stays.
    """
    command = "echo 'format_after_write: cannot parse app.py' >&2; exit 1"
    payload = {
        "tool_name": "Write",
        "tool_input": {"file_path": "/repo/app.py"},
        "tool_response": {"success": True},
    }
    rows = []
    for on_failure in (OnFailure.CONTINUE, OnFailure.BLOCK):
        handler = CommandHandler(command, options=HandlerOptions(timeout=10, on_failure=on_failure))
        result = run_hooks(
            {"PostToolUse": [HookMatcher("Write", [handler])]},
            "PostToolUse",
            payload,
            tool_use_id="toolu_post",
            environ=_environ(environ),
            project_dir="/",
        )
        outcome = result.ran[0].outcome
        rows.append(
            {
                "on_failure": on_failure.value,
                "outcome": outcome.value if outcome else "-",
                "blocked": WORDS["yes" if result.blocked else "no"],
                "to_claude": result.reason or "-",
            }
        )
    return rows


def post_failure_table(environ: Mapping[str, str] | None = None) -> Any:
    """:func:`post_failure_rows` as a labelled ``DataFrame``."""
    return frame(
        post_failure_rows(environ), _columns("on_failure", "outcome", "blocked", "to_claude")
    )


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


def prop_4_3_table(rows: Sequence[Mapping[str, Any]]) -> Any:
    """:func:`prop_4_3_rows` counted by (exit code, onFailure) against the final decision, a
    deferred call (reported as ``final="ask"`` with ``deferred``) in its own ``defer`` column;
    the axes labelled in the learner's language."""
    import pandas as pd

    data = pd.DataFrame(rows)
    final = data["final"].where(~data["deferred"], "defer").rename(str(WORDS["col_final"]))
    index = [
        data["exit_code"].astype(str).rename(str(WORDS["col_exit_code"])),
        data["on_failure"].rename("onFailure"),
    ]
    return pd.crosstab(index, final)


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


# --- Note 4.4: what the model of Proposition 4.3 leaves out ---------------------------------

_GUARD = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Write|Edit",
                "hooks": [{"type": "command", "command": "echo 'guard: .env' >&2; exit 2"}],
            }
        ]
    }
}
_ALLOW_WRITE = {"permissions": {"allow": ["Write", "Edit"]}}
_OFF = {"disableAllHooks": True}

#: The cases of :func:`note_4_4_rows`: what is set where, in words, and the settings sources
#: (label, dict) of :func:`mcpmini.hooks.load_settings`.
_NOTE_4_4_SETTINGS: tuple[tuple[Text, tuple[tuple[str, dict[str, Any]], ...]], ...] = (
    (
        Text("ガードはプロジェクトの設定", "the guard in the project settings"),
        (("project", _GUARD), ("project", _ALLOW_WRITE)),
    ),
    (
        Text(
            "同じガード ＋ 利用者の設定に disableAllHooks",
            "the same guard + disableAllHooks in the user settings",
        ),
        (("project", _GUARD), ("project", _ALLOW_WRITE), ("user", _OFF)),
    ),
    (
        Text(
            "ガードは管理設定 ＋ 利用者の設定に disableAllHooks",
            "the guard in managed settings + disableAllHooks in the user settings",
        ),
        (("managed", _GUARD), ("project", _ALLOW_WRITE), ("user", _OFF)),
    ),
    (
        Text(
            "ガードは管理設定 ＋ 管理設定に disableAllHooks",
            "the guard in managed settings + disableAllHooks in managed settings",
        ),
        (("managed", _GUARD), ("project", _ALLOW_WRITE), ("managed", _OFF)),
    ),
)


def _slow_callback(seconds: float) -> Callable[[Any, Any, Any], dict[str, Any]]:
    def hook(input_data: Any, tool_use_id: Any, context: Any) -> dict[str, Any]:
        time.sleep(seconds)  # a callback that outlives its timeout (the runner stops waiting)
        return {}

    return hook


def note_4_4_rows(
    environ: Mapping[str, str] | None = None, *, timeout: float = 0.5
) -> list[dict[str, Any]]:
    """Note 4.4 run: a ``Write`` to ``/repo/.env`` (allowed by a rule) under settings that
    switch hooks off (``disableAllHooks`` in the user's or the managed settings), and under
    hooks that time out — an SDK callback and a command hook, each past ``timeout`` seconds.

    Returns one row per case: ``case`` (words), ``ran`` (hooks that ran), the first hook's
    ``outcome``, the ``final`` decision and the station that decided (``decided_at``).
    """
    env = _environ(environ)
    call = ("Write", {"file_path": "/repo/.env", "content": "KEY=leaked\n"})
    rows = []
    for case, sources in _NOTE_4_4_SETTINGS:
        settings = load_settings(list(sources))
        decided = decide(
            settings,
            *call,
            rules=settings.permissions,
            cwd="/repo",
            environ=env,
            project_dir="/",
        )
        rows.append(_note_row(case, decided.hooks, decided.gate))
    sleepy = f"sleep {timeout * 4:g}"
    timeouts: tuple[tuple[Text, HookMatcher], ...] = (
        (
            Text("SDK のコールバックが時間切れ", "an SDK callback times out"),
            HookMatcher("Write", [_slow_callback(timeout * 4)], timeout=timeout),
        ),
        (
            Text("コマンドのフックが時間切れ", "a command hook times out"),
            HookMatcher("Write", [CommandHandler(sleepy)], timeout=timeout),
        ),
        (
            Text(
                'コマンドのフックが時間切れ（onFailure: "block"）',
                'a command hook times out (onFailure: "block")',
            ),
            HookMatcher("Write", [CommandHandler(sleepy)], timeout=timeout, on_failure="block"),
        ),
    )
    for case, group in timeouts:
        decided = decide(
            {"PreToolUse": [group]},
            *call,
            rules=PermissionRules(allow=("Write", "Edit")),
            cwd="/repo",
            environ=env,
            project_dir="/",
        )
        rows.append(_note_row(case, decided.hooks, decided.gate))
    return rows


def _note_row(case: Text, hooks: EventResult | None, result: GateResult | None) -> dict[str, Any]:
    assert result is not None
    ran = hooks.ran if hooks is not None else ()
    outcome = ran[0].outcome if ran else None
    return {
        "case": case,
        "ran": len(ran),
        "outcome": outcome.value if outcome else "-",
        "final": result.final.value,
        "decided_at": STATIONS[result.path[-1].step],
    }


def note_4_4_table(environ: Mapping[str, str] | None = None, *, timeout: float = 0.5) -> Any:
    """:func:`note_4_4_rows` as a labelled ``DataFrame``."""
    return frame(
        note_4_4_rows(environ, timeout=timeout),
        _columns("case", "ran", "outcome", "final", "decided_at"),
    )


def guard_table(
    commands: Iterable[str],
    guard: Mapping[str, Sequence[HookMatcher]],
    rules: PermissionRules,
    mode: PermissionMode | str,
    *,
    home: str,
    environ: Mapping[str, str] | None = None,
) -> Any:
    """Each Bash ``command`` through the gate under ``rules`` and ``mode``, without and with
    the PreToolUse hooks ``guard``: a labelled ``DataFrame`` of the two final decisions."""
    rows = []
    for command in commands:
        tool_input = {"command": command}
        hooked = run_hooks(
            guard,
            "PreToolUse",
            {"tool_name": "Bash", "tool_input": tool_input},
            environ=_environ(environ),
        )
        without = gate("Bash", tool_input, rules=rules, mode=mode, home=home)
        with_hook = gate("Bash", tool_input, hooks=hooked, rules=rules, mode=mode, home=home)
        rows.append(
            {"command": command, "without": without.final.value, "with": with_hook.final.value}
        )
    return frame(rows, _columns("command", "without", "with"))


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
    shown: list[str] = field(default_factory=list)  # the system prompt of every model call

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


def _trial_loop(
    trial: Trial,
    model: Callable[[Any], Any],
    *,
    guard: bool | None,
    max_turns: int,
    instruction: str,
) -> None:
    """Run the loop with tools ``Write`` and ``Edit`` that only record that they ran, and
    (unless ``guard`` is ``None``) a PreToolUse hook on ``Edit|Write`` that records every
    invocation and, when ``guard`` is true, denies ``.env`` paths. ``instruction`` is the
    system prompt; every prompt the model was shown is kept in ``trial.shown``."""
    from ...agent import AgentOptions, Tool, run

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

    def watched(request: Any) -> Any:
        trial.shown.append(request.system)
        return model(request)

    hooks = {} if guard is None else {"PreToolUse": [HookMatcher("Edit|Write", [hook])]}
    options = AgentOptions(
        system_prompt=instruction,
        tools=[tool("Write"), tool("Edit")],
        hooks=hooks,
        permission_mode="bypassPermissions",
        max_turns=max_turns,
    )
    run("update the files", watched, options)


#: The instruction Proposition 4.5's runs place in the system prompt.
INSTRUCTION = "Never write to .env files."


def prop_4_5_trial(
    seed: int,
    *,
    guard: bool = True,
    max_turns: int = 6,
    instruction: str = INSTRUCTION,
) -> Trial:
    """Run the agent loop once with :class:`RandomToolModel` (seeded) and record events.

    Tools ``Write`` and ``Edit`` only record that they ran. A PreToolUse hook on
    ``Edit|Write`` records every invocation and, when ``guard`` is true, blocks ``.env``
    paths. ``instruction`` is placed in the system prompt, where the model may ignore it.
    """
    trial = Trial(seed)
    model = RandomToolModel(
        seed, ["Write", "Edit"], ["/repo/app.py", "/repo/.env", "/repo/docs/a.md"]
    )
    _trial_loop(trial, model, guard=guard, max_turns=max_turns, instruction=instruction)
    return trial


def prop_4_5_constant(
    *, guard: bool | None = None, max_turns: int = 1, instruction: str = INSTRUCTION
) -> Trial:
    """Part 2 of Proposition 4.5 run: a constant model (it asks for the same ``Write`` of
    ``/repo/.env`` whatever it is shown) with ``instruction`` in its system prompt, without a
    hook (``guard=None``), with a hook that only records (``False``) or one that blocks
    ``.env`` (``True``). Returns the :class:`Trial` (seed ``-1``)."""
    from ...agent import ConstantModel

    trial = Trial(-1)
    call = {
        "type": "tool_use",
        "id": "toolu_c001",
        "name": "Write",
        "input": {"file_path": "/repo/.env", "content": "KEY=leaked"},
    }
    model = ConstantModel([call])
    _trial_loop(trial, model, guard=guard, max_turns=max_turns, instruction=instruction)
    return trial


def check_prop_4_5(
    trials: Sequence[Trial],
    constant: Trial | None = None,
    *,
    guarded: Sequence[Trial] = (),
    instruction: str = INSTRUCTION,
) -> dict[str, bool]:
    """Check both parts of Proposition 4.5 on runs of the loop.

    4.5.1: in every trial (``trials`` and ``guarded``; they must have executed some call)
    each executed call was seen by the matching hook first, and no ``guarded`` trial wrote
    ``.env``; 4.5.2: ``constant`` (:func:`prop_4_5_constant` without a hook) was shown
    ``instruction`` at every model call and still wrote ``.env``: a model that does not
    follow the instruction exists (left out of the result when ``constant`` is ``None``).
    """
    every = [*trials, *guarded]
    part1 = (
        bool(every)
        and sum(t.executed for t in every) > 0
        and all(t.violations == 0 for t in every)
        and all(t.env_writes == 0 for t in guarded)
    )
    if constant is None:
        return {"4.5.1": part1}
    part2 = (
        bool(constant.shown)
        and all(instruction in shown for shown in constant.shown)
        and constant.env_writes > 0
    )
    return {"4.5.1": part1, "4.5.2": part2}


#: The two groups of trials chapter 08 compares, in words.
PROP_4_5_GROUPS: dict[str, Text] = {
    "guard": Text("フックが .env を止める", "hook blocks .env"),
    "record": Text("フックは記録だけ", "hook only records"),
}


def prop_4_5_table(groups: Mapping[str, Sequence[Trial]]) -> Any:
    """Per group of trials (keys of :data:`PROP_4_5_GROUPS`, or any label): trials, executed
    calls, executed calls the hook had not seen first, executed ``.env`` writes."""
    rows = [
        {
            "group": PROP_4_5_GROUPS.get(key, key),
            "trials": len(trials),
            "executed": sum(t.executed for t in trials),
            "violations": sum(t.violations for t in trials),
            "env_writes": sum(t.env_writes for t in trials),
        }
        for key, trials in groups.items()
    ]
    return frame(rows, _columns("group", "trials", "executed", "violations", "env_writes"))
