"""Exercises P.1–P.4 of the practice track (notebooks ``notebooks/practice/``).

Like 9.1–9.4, every answer key is computed by the runtime the chapters use:

* P.1 — :func:`mcpmini.agent.name_problems` and :func:`~mcpmini.agent.split_name` on a set
  of servers (collisions, ambiguous splits, names over 64 characters).
* P.2 — :func:`mcpmini.agent.visible_tools` / :func:`~mcpmini.agent.check_layers` for the
  plan and session layers, and a real call through a :class:`~mcpmini.agent.Registry` to
  the order server for the user layer.
* P.3 — :func:`predict_run`, the order in which :func:`mcpmini.agent.run_python` meets its
  limits, applied to workloads described phase by phase (notebook 03 checks it live).
* P.4 — :func:`loop_context`, which runs the real agent loop with a scripted model and a
  tool returning a large result, and reports the largest request for each budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from ...agent import (
    AccessPolicy,
    AgentOptions,
    Layer,
    Limits,
    NameProblemKind,
    NameStyle,
    Registry,
    SandboxOutcome,
    ScriptedModel,
    Tool,
    check_layers,
    either_filter,
    exposed_name,
    name_problems,
    run,
    split_name,
    visible_tools,
)
from ...agent.registry import MCP_MAX_TOKENS
from ...mcp import OutcomeKind, orders_server
from ..grading import Exercise, Part
from ..language import Text, Words

__all__ = [
    "P2_POLICY",
    "P2_TOOLS",
    "P3_LIMITS",
    "P4_CAP_TOKENS",
    "P4_CONTEXT_LIMIT",
    "P4_HOST_BUDGET",
    "P4_PAGE_LINES",
    "P4_RESULT_LINES",
    "P4_WARN_TOKENS",
    "PRACTICE_IDS",
    "TITLES",
    "Workload",
    "build_practice",
    "loop_context",
    "predict_run",
]

PRACTICE_IDS = ("P.1", "P.2", "P.3", "P.4")
TITLES: dict[str, Text] = {
    "P.1": Text("公開名の予測", "Predicting exposed names"),
    "P.2": Text("3 つの権限層", "The three permission layers"),
    "P.3": Text("サンドボックスの上限", "Sandbox limits"),
    "P.4": Text("切り詰めの予算", "A truncation budget"),
}


# --- P.1 ------------------------------------------------------------------------------------

P1_SERVERS: dict[str, tuple[str, ...]] = {
    "orders": ("query_order", "list_recent_orders"),
    "weather": ("get_current_weather", "get_weather_history"),
    "crm__eu": ("lookup",),
    "crm": ("eu__lookup", "add"),
    "calc": ("add",),
    "acme_enterprise_resource_planning": ("search_purchase_orders_by_supplier",),
}


def _pairs() -> list[tuple[str, str]]:
    return [(s, t) for s, tools in P1_SERVERS.items() for t in tools]


def _build_p1() -> Exercise:
    pairs = _pairs()
    problems = name_problems(pairs)
    names = {exposed_name(s, t) for s, t in pairs}
    collisions = {p.name for p in problems if p.kind is NameProblemKind.COLLISION}
    too_long = {p.name for p in problems if p.kind is NameProblemKind.TOO_LONG}
    plain = {
        p.name for p in name_problems(pairs, NameStyle.PLAIN) if p.kind is NameProblemKind.COLLISION
    }
    server, _ = split_name("crm__eu__lookup")
    cc = exposed_name("crm__eu", "lookup", NameStyle.CLAUDE_CODE)
    cc_collides = any(
        p.kind is NameProblemKind.COLLISION for p in name_problems(pairs, NameStyle.CLAUDE_CODE)
    )
    parts = [
        Part.integer(
            "distinct_names",
            Text(
                "server__tool 形式で公開される、異なる名前の数",
                "How many different names are exposed in the server__tool style",
            ),
            len(names),
            mistakes={
                len(pairs): Text(
                    "同じ名前になる組があります。数えるのは異なる名前です。",
                    "Some pairs end up with the same name; count the different names.",
                )
            },
        ),
        Part.names(
            "collisions",
            Text(
                "server__tool 形式で衝突する（2 つ以上の組が同じになる）名前",
                "The names that collide in the server__tool style (two or more pairs give them)",
            ),
            collisions,
            otherwise=Text(
                "サーバ名とツール名の両方に __ が入りうることを思い出してください。",
                "Remember that both server names and tool names may contain __.",
            ),
        ),
        Part.names(
            "too_long",
            Text("64 文字を超える公開名", "The exposed names longer than 64 characters"),
            too_long,
            otherwise=Text(
                "server__tool 全体の長さを数えます（__ の 2 文字も入ります）。",
                "Count the length of the whole server__tool (the 2 characters of __ included).",
            ),
        ),
        Part.option(
            "split_server",
            Text(
                "crm__eu__lookup を最初の __ で分けたときのサーバ名",
                "The server name when crm__eu__lookup is split at the first __",
            ),
            server,
            ("crm", "crm__eu", "eu"),
            mistakes={
                "crm__eu": Text(
                    "最初の __ で分けると、サーバ名は crm になります。",
                    "Split at the first __, the server name is crm.",
                )
            },
        ),
        Part.names(
            "plain_collisions",
            Text(
                "名前空間なし（ツール名だけ）で衝突する名前",
                "The names that collide without a namespace (tool names only)",
            ),
            plain,
            otherwise=Text(
                "名前空間を付けないと、別のサーバの同名ツールがぶつかります。",
                "Without a namespace, tools of the same name on different servers collide.",
            ),
        ),
        Part.boolean(
            "claude_code_collides",
            Text(
                f"mcp__server__tool 形式（{cc} など）でも衝突は残るか",
                f"Does the collision remain in the mcp__server__tool style ({cc} and the like)?",
            ),
            cc_collides,
            otherwise=Text(
                "前に mcp__ を付けても、__ を含む名前の曖昧さは消えません。",
                "Putting mcp__ in front does not remove the ambiguity of names holding __.",
            ),
        ),
    ]
    rows = "\n".join(f"  {s}: {', '.join(t)}" for s, t in P1_SERVERS.items())
    return Exercise(
        "P.1",
        TITLES["P.1"],
        Text(
            f"次のサーバとツールを server__tool 形式で公開します。\n{rows}",
            f"These servers and tools are exposed in the server__tool style.\n{rows}",
        ),
        parts,
        hints=(
            Text(
                '公開名は f"{server}__{tool}" です。全部書き出してから数えましょう。',
                'An exposed name is f"{server}__{tool}". Write them all out, then count.',
            ),
            Text(
                "crm__eu の lookup と、crm の eu__lookup を並べて書いてみてください。",
                "Write lookup of crm__eu and eu__lookup of crm side by side.",
            ),
            Text(
                "64 文字を超えるのは acme_… のサーバのツールです。len() で数えられます。",
                "The tool of the acme_… server is the one over 64 characters; len() counts it.",
            ),
        ),
        solution_text=lambda: Text(
            "\n".join(
                [
                    f"公開名は {len(pairs)} 組から {len(names)} 個。",
                    f"衝突: {sorted(collisions)}（分けると ({server!r}, ...) になり、"
                    "どちらの組かわからない）",
                    f"64 文字超: {sorted(too_long)}",
                    f"名前空間なしの衝突: {sorted(plain)}",
                    f"mcp__ 形式でも衝突は {'残る' if cc_collides else '消える'}。"
                    "対策は名前を分けずに表で引くこと。",
                ]
            ),
            "\n".join(
                [
                    f"{len(pairs)} pairs give {len(names)} exposed names.",
                    f"Collision: {sorted(collisions)} (split, it gives ({server!r}, ...), "
                    "and which pair was meant is lost)",
                    f"Over 64 characters: {sorted(too_long)}",
                    f"Collisions without a namespace: {sorted(plain)}",
                    f"In the mcp__ style the collision {'remains' if cc_collides else 'goes'}. "
                    "The fix: look names up in a table instead of splitting them.",
                ]
            ),
        ),
        data={"servers": P1_SERVERS},
    )


# --- P.2 ------------------------------------------------------------------------------------

P2_POLICY = AccessPolicy(
    plans={
        "free": frozenset(
            {"weather__get_current_weather", "orders__query_order", "orders__list_recent_orders"}
        ),
        "pro": frozenset(
            {
                "weather__get_current_weather",
                "weather__get_weather_history",
                "orders__query_order",
                "orders__list_recent_orders",
                "interp__execute_code",
            }
        ),
        "enterprise": None,
    },
    needs_grant=frozenset({"orders__list_recent_orders", "interp__execute_code"}),
)
P2_TOOLS = (
    "weather__get_current_weather",
    "weather__get_weather_history",
    "orders__query_order",
    "orders__list_recent_orders",
    "interp__execute_code",
)
P2_USER = {"user": "alice", "plan": "free", "grants": ("interp__execute_code",)}
P2_CALLS = {
    "a": ("weather__get_weather_history", {"city": "Tokyo"}),
    "b": ("orders__list_recent_orders", {}),
    "c": ("orders__query_order", {"orderId": "B-2001"}),
    "d": ("interp__execute_code", {"code": "print(1)"}),
    "e": ("orders__query_order", {"orderId": "A-1002"}),
}
REFUSED = ("plan", "session", "user", "none")


def _refused_at(name: str, arguments: Mapping[str, object], reg: Registry) -> str:
    verdict = check_layers(name, P2_POLICY, str(P2_USER["plan"]), P2_USER["grants"])
    if verdict.layer is not None:
        return verdict.layer.value
    outcome = reg.call(name, arguments, {"userId": P2_USER["user"]})
    return Layer.USER.value if outcome.kind is not OutcomeKind.OK else "none"


def _build_p2() -> Exercise:
    plan, grants = str(P2_USER["plan"]), P2_USER["grants"]
    visible = visible_tools(P2_TOOLS, P2_POLICY, plan, grants)
    loose = either_filter(P2_TOOLS, P2_POLICY, plan, grants)
    with Registry() as reg:
        reg.add("orders", orders_server())
        refused = {k: _refused_at(n, a, reg) for k, (n, a) in P2_CALLS.items()}
    parts = [
        Part.names(
            "visible",
            Text("alice に見えるツール（公開名）", "The tools alice sees (exposed names)"),
            visible,
            otherwise=Text(
                "プラン層で残ったものから、許可が要るのにまだ許可していないものを除きます。",
                "From what the plan layer leaves, remove the tools that need a grant not given.",
            ),
        )
    ]
    for key, (name, args) in P2_CALLS.items():
        parts.append(
            Part.option(
                f"refused_at.{key}",
                Text(
                    f"{name}({args}) を拒む層（通るなら none）",
                    f"The layer that refuses {name}({args}) (none if it goes through)",
                ),
                refused[key],
                REFUSED,
            )
        )
    parts.append(
        Part.names(
            "either_extra",
            Text(
                "「プランにある または 許可済み」の緩い規則でだけ見えるツール",
                'The tools only the loose rule "in the plan OR granted" shows',
            ),
            set(loose) - set(visible),
            otherwise=Text(
                "緩い規則では、許可だけでプランの外のツールが見えてしまいます。",
                "Under the loose rule a grant alone shows a tool outside the plan.",
            ),
        )
    )
    return Exercise(
        "P.2",
        TITLES["P.2"],
        Text(
            f"エンドユーザ alice は {plan} プランで、"
            f"このセッションで {list(grants)} を許可しています。",
            f"The end user alice is on the {plan} plan and has granted {list(grants)} "
            "in this session.",
        ),
        parts,
        hints=(
            Text(
                "プラン層 → セッション層 → エンドユーザ層の順に当てはめます。",
                "Apply the plan layer, then the session layer, then the end-user layer.",
            ),
            Text(
                "free プランに interp__execute_code は入っていません。"
                "許可してもプラン層で止まります。",
                "The free plan does not include interp__execute_code: "
                "granted or not, the plan layer stops it.",
            ),
            Text(
                "B- で始まる注文は bob のものです。"
                "エンドユーザ層はサーバが呼び出し時に判定します。",
                "Orders starting with B- are bob's. The server decides the end-user layer "
                "when it is called.",
            ),
        ),
        solution_text=lambda: Text(
            "\n".join(
                [
                    f"見えるツール: {visible}",
                    *(f"  {k}: {P2_CALLS[k][0]} → {v}" for k, v in refused.items()),
                    f"緩い規則でだけ見える: {sorted(set(loose) - set(visible))}",
                ]
            ),
            "\n".join(
                [
                    f"Visible tools: {visible}",
                    *(f"  {k}: {P2_CALLS[k][0]} → {v}" for k, v in refused.items()),
                    f"Visible only under the loose rule: {sorted(set(loose) - set(visible))}",
                ]
            ),
        ),
        data={"policy": P2_POLICY, "user": P2_USER, "calls": P2_CALLS},
    )


# --- P.3 ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """A program described phase by phase: it allocates ``memory_mb``, computes for
    ``cpu_seconds``, sleeps ``sleep_seconds``, prints ``output_bytes``, exits ``exit_code``."""

    memory_mb: int = 10
    cpu_seconds: float = 0.1
    sleep_seconds: float = 0.0
    output_bytes: int = 100
    exit_code: int = 0

    def code(self) -> str:
        """A Python program that does what this workload describes (for the live check)."""
        return "\n".join(
            [
                "import time",
                f"block = bytearray({self.memory_mb} * 1024 * 1024)",
                f"end = time.process_time() + {self.cpu_seconds}",
                "while time.process_time() < end:\n    pass",
                f"time.sleep({self.sleep_seconds})",
                f"print('x' * {self.output_bytes})",
                f"raise SystemExit({self.exit_code})",
            ]
        )


def predict_run(work: Workload, limits: Limits) -> SandboxOutcome:
    """How :func:`mcpmini.agent.run_python` ends ``work`` under ``limits``: the first limit
    met in the order of the phases. ``RLIMIT_CPU`` counts only computing; the wall-clock
    deadline counts computing and sleeping; the output cap counts what is printed."""
    if work.memory_mb >= limits.memory_mb:
        return SandboxOutcome.MEMORY
    if work.cpu_seconds > min(limits.cpu_seconds, limits.wall_seconds):
        return (
            SandboxOutcome.CPU_LIMIT
            if limits.cpu_seconds < limits.wall_seconds
            else SandboxOutcome.TIMEOUT
        )
    if work.cpu_seconds + work.sleep_seconds > limits.wall_seconds:
        return SandboxOutcome.TIMEOUT
    if work.output_bytes + 1 > limits.output_bytes:
        return SandboxOutcome.OUTPUT_LIMIT
    return SandboxOutcome.OK if work.exit_code == 0 else SandboxOutcome.ERROR


P3_LIMITS = Limits(wall_seconds=3.0, cpu_seconds=1, memory_mb=128, output_bytes=4000)
P3_RUNS = {
    "a": Workload(memory_mb=20, cpu_seconds=0.5, output_bytes=1000),
    "b": Workload(memory_mb=20, cpu_seconds=2.0),
    "c": Workload(memory_mb=20, cpu_seconds=0.2, sleep_seconds=5.0),
    "d": Workload(memory_mb=300),
    "e": Workload(memory_mb=20, output_bytes=20_000),
    "f": Workload(memory_mb=20, cpu_seconds=0.2, exit_code=1),
}
P3_JOB = Workload(memory_mb=180, cpu_seconds=1.5, output_bytes=30_000)
P3_CANDIDATES = {
    "A": Limits(wall_seconds=5.0, cpu_seconds=2, memory_mb=256, output_bytes=64_000),
    "B": Limits(wall_seconds=5.0, cpu_seconds=1, memory_mb=512, output_bytes=64_000),
    "C": Limits(wall_seconds=2.0, cpu_seconds=2, memory_mb=256, output_bytes=16_000),
    "D": Limits(wall_seconds=30.0, cpu_seconds=30, memory_mb=4096, output_bytes=10_000_000),
}
_OUTCOMES = tuple(o.value for o in SandboxOutcome)


def _describe(w: Workload) -> Text:
    return Text(
        f"{w.memory_mb} MB を確保 → {w.cpu_seconds} 秒計算 → {w.sleep_seconds} 秒待つ → "
        f"{w.output_bytes} バイト出力 → 終了コード {w.exit_code}",
        f"allocates {w.memory_mb} MB → computes {w.cpu_seconds} s → waits {w.sleep_seconds} s "
        f"→ prints {w.output_bytes} bytes → exit code {w.exit_code}",
    )


def _limits_text(lim: Limits) -> Text:
    return Text(
        f"wall {lim.wall_seconds} 秒 / CPU {lim.cpu_seconds} 秒 / {lim.memory_mb} MB / "
        f"出力 {lim.output_bytes} バイト",
        f"wall {lim.wall_seconds} s / CPU {lim.cpu_seconds} s / {lim.memory_mb} MB / "
        f"output {lim.output_bytes} bytes",
    )


def _build_p3() -> Exercise:
    outcomes = {k: predict_run(w, P3_LIMITS).value for k, w in P3_RUNS.items()}
    fitting = [
        k for k, lim in P3_CANDIDATES.items() if predict_run(P3_JOB, lim) is SandboxOutcome.OK
    ]
    tight = [k for k in fitting if k != "D"]
    assert len(tight) == 1, "exactly one reasonable candidate must fit the job"
    statements: list[tuple[Words, bool, Words]] = []
    for label, lim in P3_CANDIDATES.items():
        got = predict_run(P3_JOB, lim)
        if label == tight[0]:
            statements.append((_limits_text(lim), True, ""))
        elif got is SandboxOutcome.OK:
            statements.append(
                (
                    _limits_text(lim),
                    False,
                    Text(
                        "動きはしますが、上限が大きすぎて暴走したときに守ってくれません。",
                        "It runs, but the limits are so loose they do not protect you "
                        "from a runaway program.",
                    ),
                )
            )
        else:
            statements.append(
                (
                    _limits_text(lim),
                    False,
                    Text(
                        f"この上限では {got.value} で終わります。",
                        f"Under these limits it ends with {got.value}.",
                    ),
                )
            )
    parts = [
        Part.option(
            f"runs.{k}",
            Text(f"実行（{_describe(w).ja}）の終わり方", f"How the run ({_describe(w).en}) ends"),
            outcomes[k],
            _OUTCOMES,
        )
        for k, w in P3_RUNS.items()
    ]
    parts.append(
        Part.choice(
            "limits_for_job",
            Text(
                f"仕事（{_describe(P3_JOB).ja}）を通し、それでいて最も絞った上限",
                f"The tightest limits that still let the job ({_describe(P3_JOB).en}) through",
            ),
            statements,
        )
    )
    return Exercise(
        "P.3",
        TITLES["P.3"],
        Text(
            f"上限: {_limits_text(P3_LIMITS).ja}。各実行がどう終わるかを予測します。",
            f"Limits: {_limits_text(P3_LIMITS).en}. Predict how each run ends.",
        ),
        parts,
        hints=(
            Text(
                "段階の順に、最初にぶつかる上限で終わります。確保 → 計算 → 待ち → 出力。",
                "Phase by phase, a run ends at the first limit it meets: "
                "allocate → compute → wait → print.",
            ),
            Text(
                "CPU の上限は計算している時間だけを数えます。sleep は wall の上限にだけ効きます。",
                "The CPU limit counts computing time only; sleeping counts against the wall "
                "limit alone.",
            ),
            Text("終了コードが 0 でなければ error です。", "An exit code other than 0 is error."),
        ),
        solution_text=lambda: Text(
            "\n".join(
                [
                    *(f"  {k}: {v}" for k, v in outcomes.items()),
                    f"仕事に合う上限: {tight[0]}（D も通りますが、30 秒・4 GB は暴走を止めません）",
                ]
            ),
            "\n".join(
                [
                    *(f"  {k}: {v}" for k, v in outcomes.items()),
                    f"The limits that fit the job: {tight[0]} (D lets it through too, but "
                    "30 s and 4 GB stop no runaway program)",
                ]
            ),
        ),
        data={"limits": P3_LIMITS, "runs": P3_RUNS, "job": P3_JOB},
    )


# --- P.4 ------------------------------------------------------------------------------------

#: The course host's budget per result in practice/04, and the lines of one page there.
P4_HOST_BUDGET = 2_000
P4_PAGE_LINES = 100
#: The budgets P.4 offers; the last is Claude Code's documented default cap.
P4_BUDGETS = (500, P4_HOST_BUDGET, 8_000, MCP_MAX_TOKENS)
P4_CONTEXT_LIMIT = 32_000
P4_CALLS = 5
P4_RESULT_LINES = 1_000
#: The documented warning threshold of Claude Code for one MCP tool result (tokens). The
#: runtime models what 2.1.332 was observed to do (``agent.registry.result_fate``), which
#: shows no such warning; the figure is the documentation's.
P4_WARN_TOKENS = 10_000
#: Claude Code's documented default cap on one MCP tool result (``MAX_MCP_OUTPUT_TOKENS``),
#: read from the runtime.
P4_CAP_TOKENS = MCP_MAX_TOKENS


def _log_lines(n: int) -> str:
    return "\n".join(
        f"2026-11-30T09:{i // 60 % 60:02d}:{i % 60:02d} INFO job={i:05d} done in "
        f"{(i * 37) % 900 + 100} ms"
        for i in range(n)
    )


@cache
def loop_context(
    budget: int | None, calls: int = P4_CALLS, lines: int = P4_RESULT_LINES
) -> tuple[int, ...]:
    """Run the agent loop: a scripted model calls ``read_logs`` ``calls`` times, each result
    ``lines`` log lines, results cut at ``budget`` tokens (``None``: not cut). Returns the
    estimated tokens of every request, in order."""
    text = _log_lines(lines)
    tool = Tool(
        "read_logs",
        "Read the job log of one day.",
        {"type": "object", "properties": {"day": {"type": "integer"}}},
        lambda _input: text,
    )
    script: list[list[dict[str, object]] | str] = [
        [{"type": "tool_use", "id": f"toolu_{i}", "name": "read_logs", "input": {"day": i}}]
        for i in range(calls)
    ]
    script.append("done")
    options = AgentOptions(
        tools=[tool],
        allowed_tools=["read_logs"],
        max_result_tokens=budget if budget is not None else 10**9,
    )
    result = run("Summarise the failed jobs of the last days.", ScriptedModel(script), options)
    return tuple(r.total_tokens for r in result.requests)


def _build_p4() -> Exercise:
    peaks = {b: max(loop_context(b)) for b in P4_BUDGETS}
    full = max(loop_context(None))
    fitting = [b for b in P4_BUDGETS if peaks[b] <= P4_CONTEXT_LIMIT]
    largest = max(fitting)
    single = loop_context(None, calls=1)
    one_result = single[-1] - single[0]
    cap = P4_CAP_TOKENS
    parts = [
        Part.boolean(
            "fits_without_truncation",
            Text(
                f"切り詰めなしで最後の要求が {P4_CONTEXT_LIMIT} トークンに収まるか",
                f"Does the last request fit in {P4_CONTEXT_LIMIT} tokens without truncation?",
            ),
            full <= P4_CONTEXT_LIMIT,
        ),
        Part.option(
            "largest_budget",
            Text(
                "収まる範囲で最も大きい予算（トークン）",
                "The largest budget (tokens) that still fits",
            ),
            str(largest),
            [str(b) for b in P4_BUDGETS],
            mistakes={
                str(P4_BUDGETS[0]): Text(
                    "収まりますが、もっと大きな予算でも収まります。",
                    "It fits, but a larger budget fits too.",
                )
            },
        ),
        Part.boolean(
            "claude_code_warns",
            Text(
                "結果 1 つの大きさは Claude Code が警告を出す"
                f" {P4_WARN_TOKENS:,} トークンを超えるか",
                f"Is one result larger than the {P4_WARN_TOKENS:,} tokens at which "
                "Claude Code warns?",
            ),
            one_result > P4_WARN_TOKENS,
        ),
        Part.boolean(
            "default_cap_enough",
            Text(
                f"Claude Code の既定の上限 {cap:,} トークンで切るだけで収まるか",
                f"Does cutting at Claude Code's default cap of {cap:,} tokens alone make it fit?",
            ),
            peaks[cap] <= P4_CONTEXT_LIMIT,
            otherwise=Text(
                "上限は結果 1 つごとです。呼び出しが重なると合計は増え続けます。",
                "The cap is per result: as calls pile up, the total keeps growing.",
            ),
        ),
    ]
    return Exercise(
        "P.4",
        TITLES["P.4"],
        Text(
            f"モデルがログを読むツールを {P4_CALLS} 回呼びます。"
            f"結果は毎回約 {one_result} トークン。"
            f"コンテキストの上限は {P4_CONTEXT_LIMIT} トークンです。",
            f"The model calls a log-reading tool {P4_CALLS} times; each result is about "
            f"{one_result} tokens. The context limit is {P4_CONTEXT_LIMIT} tokens.",
        ),
        parts,
        hints=(
            Text(
                "各要求には、それまでのすべての結果が入ります。最後の要求がいちばん大きくなります。",
                "Each request carries every result so far, so the last request is the largest.",
            ),
            Text(
                f"予算 b なら最後の要求はおよそ 基本分 + {P4_CALLS} × b です。",
                f"With budget b the last request is about the base + {P4_CALLS} × b.",
            ),
            Text(
                "loop_context(b) を実行すると、予算 b での要求ごとのトークン数が見られます。",
                "Run loop_context(b) to see the tokens of every request with budget b.",
            ),
        ),
        solution_text=lambda: Text(
            "\n".join(
                [
                    f"切り詰めなし: 最後の要求 {full} トークン",
                    *(f"  予算 {b}: 最大 {peaks[b]} トークン" for b in P4_BUDGETS),
                    f"収まる最大の予算: {largest}",
                ]
            ),
            "\n".join(
                [
                    f"No truncation: the last request is {full} tokens",
                    *(f"  budget {b}: at most {peaks[b]} tokens" for b in P4_BUDGETS),
                    f"The largest budget that fits: {largest}",
                ]
            ),
        ),
        data={"budgets": P4_BUDGETS, "limit": P4_CONTEXT_LIMIT, "calls": P4_CALLS},
    )


_BUILDERS = {"P.1": _build_p1, "P.2": _build_p2, "P.3": _build_p3, "P.4": _build_p4}


def build_practice(exercise_id: str) -> Exercise:
    """Build exercise ``exercise_id`` (``"P.1"`` … ``"P.4"``). Raises ``KeyError`` otherwise."""
    return _BUILDERS[exercise_id]()
