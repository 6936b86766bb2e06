"""Every fixed text the practice track's notebooks print, in both languages.

One row per label, column name or line, each a :class:`~mcpmini.course.language.Text` pair:
the notebooks' code cells stay identical in both editions and print these through
:func:`line` (a formatted line) or the tables of :mod:`.hostlab`. A concept the glossary
names is taken from it (:func:`~mcpmini.course.glossary.term`), so a label and the prose
beside it use the same word.
"""

from __future__ import annotations

from typing import Any

from ..glossary import term
from ..language import Text

__all__ = ["WORDS", "line", "yes_no"]

#: The practice track's fixed texts (the exercises' own texts live in :mod:`.exercises`).
WORDS: dict[str, Text] = {
    # shared
    "yes": Text("はい", "yes"),
    "no": Text("いいえ", "no"),
    "tool": term("ツール"),
    "exposed_name": term("公開名"),
    # 01: the inventory of a configuration
    "definition_tokens": Text("定義のトークン数", "definition tokens"),
    "description_cut": Text("説明文の切り詰め", "description cut"),
    "inventory_summary": Text(
        "前もって全部置く: {upfront} トークン | 遅延読み込み（名前だけ）: {deferred} トークン"
        " | 損益分岐点 u* = {u}（ツール {n} 個のうち）",
        "up front: {upfront} tokens | deferred (names only): {deferred} tokens"
        " | break-even u* = {u} of {n} tools",
    ),
    # 02: the permission layers
    "plan_layer": term("プラン層"),
    "session_layer": term("セッション層"),
    "visible": Text("見える", "visible"),
    "pass": Text("通す", "passes"),
    "hides": Text("隠す", "hides"),
    "plan": Text("プラン", "plan"),
    "both_layers": Text("両方の層", "both layers"),
    "plan_or_grant": Text("プランにある または 許可済み", "in the plan OR granted"),
    "call": Text("呼び出し", "call"),
    "product_host": Text("製品のホスト", "product host"),
    "hidden_by_plan": Text("プラン層で隠れる", "hidden by the plan layer"),
    "hidden_by_session": Text("セッション層で隠れる", "hidden by the session layer"),
    "refused_by_user": Text("エンドユーザ層が拒む", "refused by the end-user layer"),
    "runs": Text("実行される", "runs"),
    # 03: the sandbox
    "isolation": Text(
        "bubblewrap の名前空間: {isolated} | ネットワークの遮断: {network}",
        "bubblewrap namespaces: {isolated} | network cut off: {network}",
    ),
    "probe": Text("試したこと", "probe"),
    "outcome": Text("結果", "outcome"),
    "exit_code": term("終了コード"),
    "last_line": Text("結果の最後の行", "last line of the result"),
    "probe_wall": Text("実時間（眠るだけ）", "wall clock (sleeps)"),
    "probe_memory": Text("メモリ（1 GB）", "memory (1 GB)"),
    "probe_output": Text("出力（大量）", "output (flood)"),
    "probe_exit": Text("終了コード 3", "exit code 3"),
    "probe_network": Text("ネットワーク", "network"),
    "probe_read_etc": Text("/etc を読む", "read /etc"),
    "probe_write_tmp": Text("/tmp に書く", "write /tmp"),
    "probe_environment": Text("環境変数", "environment"),
    "cpu_after": Text(
        "{outcome}: 実時間 {seconds:.1f} 秒で止まった",
        "{outcome} after {seconds:.1f} s of wall time",
    ),
    "host_tmp": Text("ホストの /tmp に残ったか: {left}", "left in the host's /tmp: {left}"),
    # 04: big results
    "result_size": Text(
        "{chars:,} 文字、およそ {tokens:,} トークン",
        "{chars:,} characters, about {tokens:,} tokens",
    ),
    "truncated": Text(
        "切り詰めたか: {cut} | 全体: {full} トークン | 残した分: {kept} トークン",
        "cut: {cut} | full: {full} tokens | kept: {kept} tokens",
    ),
    "on_disk": Text("ディスクの全文は元のままか: {same}", "on disk, unchanged: {same}"),
    "claude_code_cap": Text(
        "警告（{warn:,} トークン超）: {warned} | 上限（{cap:,} トークン）で切られるか: {cut}",
        "warning (over {warn:,} tokens): {warned} | cut at the cap ({cap:,} tokens): {cut}",
    ),
    "kept_under_cap": Text(
        "上限までに残る分: {tokens:,} トークン", "kept under the cap: {tokens:,} tokens"
    ),
    "page": Text(
        "1 ページ: {tokens:,} トークン | 全体の行数: {total:,} | next_offset: {next}",
        "one page: {tokens:,} tokens | rows in all: {total:,} | next_offset: {next}",
    ),
    "result_chars": Text("結果の文字数", "result chars"),
    "fate_mcpmini": Text("mcpmini の result_fate", "mcpmini result_fate"),
    "fate_claude_code": Text("Claude Code {version}", "Claude Code {version}"),
    "shown_chars": Text("モデルに見せた文字数", "chars shown to the model"),
    "host_keeps": Text(
        "コースのホスト（{budget:,} トークン）が残す分",
        "course host ({budget:,} tokens) keeps",
    ),
    "strategy": Text("やり方", "strategy"),
    "last_request": Text("最後の要求のトークン数", "last request (tokens)"),
    "fits": Text("収まるか", "fits"),
    "no_truncation": Text("切り詰めなし", "no truncation"),
    "claude_code_limit": Text("Claude Code の上限 {cap:,}", "Claude Code's cap {cap:,}"),
    "host_budget": Text("ホストの予算 {budget:,} ＋ファイル", "host budget {budget:,} + file"),
    "paged": Text("サーバで {lines} 行ずつページ分け", "server pages of {lines} lines"),
    "context_limit": Text("コンテキストの上限 {limit:,}", "context limit {limit:,}"),
    "request_number": Text("要求（何番目か）", "request (number)"),
    "request_tokens": Text("要求のトークン数", "tokens in the request"),
    "context_title": Text("ループの中で要求が大きくなる様子", "How requests grow inside the loop"),
    # 05: transports
    "placement": Text("置き場所", "placement"),
    "median_ms": Text("中央値（ms）", "median (ms)"),
    "fastest_ms": Text("最速（ms）", "fastest (ms)"),
    "slowest_ms": Text("最遅（ms）", "slowest (ms)"),
    "in_process": Text("同じプロセス（メモリ）", "in-process (memory)"),
    "stdio_child": Text("子プロセス（stdio）", "stdio child process"),
    "http_loopback": Text("ループバックの HTTP", "HTTP on loopback"),
    "simulated_remote": Text(
        "模擬の遠隔（HTTP ＋ 往復 {rtt_ms:.0f} ms）",
        "simulated remote (HTTP + {rtt_ms:.0f} ms RTT)",
    ),
    "plain_function": Text("普通の関数呼び出し", "plain function call"),
    "pipelined": Text(
        "3 回を順番に: {sequential:.0f} ms | まとめて送る: {pipelined:.0f} ms"
        "（模擬の往復 {rtt_ms:.0f} ms）",
        "3 calls one by one: {sequential:.0f} ms | pipelined: {pipelined:.0f} ms"
        " (simulated RTT {rtt_ms:.0f} ms)",
    ),
    "calls_per_turn": Text("1 ターンの呼び出し", "calls per turn"),
    "local_ms": Text("ローカル（ms）", "local (ms)"),
    "remote_ms": Text("リモート（ms）", "remote (ms)"),
    "remote_pipelined_ms": Text("リモート・まとめて送る（ms）", "remote, pipelined (ms)"),
    "agent": Text("エージェント", "agent"),
    "outer": Text("外側", "outer"),
    "inner": Text("内側", "inner"),
    "model_calls": Text("モデルの呼び出し", "model calls"),
    "request_tokens_each": Text("要求ごとのトークン数", "tokens per request"),
    "outer_got": Text(
        "外側のモデルが受け取ったもの: {content}", "what the outer model got back: {content}"
    ),
    "per_call_ms": Text("1 回あたり（ms）", "per call (ms)"),
}


def line(name: str, **values: Any) -> str:
    """The text ``name`` of :data:`WORDS` in the learner's language, formatted with ``values``
    (booleans read as yes / no). Raises ``KeyError`` for an unknown name."""
    shown = {k: yes_no(v) if isinstance(v, bool) else v for k, v in values.items()}
    return str(WORDS[name]).format(**shown)


def yes_no(value: bool) -> str:
    """``value`` as the word for yes or no in the learner's language."""
    return str(WORDS["yes" if value else "no"])
