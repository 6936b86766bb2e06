"""Exercises 9.3 (a hook that cannot start) and 9.4 (skills after compaction).

9.3 writes one PreToolUse command hook in the real Claude Code settings shape, with a
script path that does not exist, and fires it through :func:`mcpmini.hooks.run_hooks` in
an empty scratch project under each ``onFailure`` value; whether the call was blocked is
the answer key. 9.4 feeds seven 6,000-token skills to
:func:`mcpmini.skills.reattach`. The hook and skill runtimes are imported when an
exercise is built, so importing the registry stays cheap.
"""

from __future__ import annotations

import os
import random
import tempfile
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..grading import Exercise, Part

if TYPE_CHECKING:
    from ...hooks import EventResult
    from ...skills import Reattachment

__all__ = ["Fate", "Setting", "build_9_3", "build_9_4", "practice_9_3", "practice_9_4"]

TITLES = {"9.3": "起動できないフック", "9.4": "スキルの再添付"}


class Fate(StrEnum):
    """What happens to a matching tool call (exercise 9.3)."""

    PROCEEDS = "proceeds"  # goes on to the permission check
    BLOCKED = "blocked"  # is not executed


class Setting(StrEnum):
    """A value of a hook handler's ``onFailure`` (exercise 9.3)."""

    CONTINUE = "continue"
    BLOCK = "block"


# --- 9.3 a hook that cannot start ------------------------------------------------------

_GUARD = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/protect-secrets.sh'
_SECRET_WRITE = {"tool_name": "Write", "tool_input": {"file_path": ".env", "content": "TOKEN=x"}}


def _run_hook(
    event: str,
    command: str,
    on_failure: str | None,
    payload: dict[str, Any],
    matcher: str = "Write|Edit",
) -> EventResult:
    """Register one command hook in project settings (the real JSON shape) and fire it
    in an empty scratch project, so a script path inside it does not exist."""
    from ...hooks import load_settings, run_hooks

    handler: dict[str, Any] = {"type": "command", "command": command}
    if on_failure is not None:
        handler["onFailure"] = on_failure
    settings = {"hooks": {event: [{"matcher": matcher, "hooks": [handler]}]}}
    if event == "PostToolUse":
        payload = {**payload, "tool_response": {"success": True}}
    with tempfile.TemporaryDirectory(prefix="mcpmini-9-3-") as project:
        return run_hooks(
            load_settings([("project", settings)]),
            event,
            payload,
            project_dir=project,
            environ={"PATH": os.defpath},
        )


def _fate(result: EventResult) -> Fate:
    return Fate.BLOCKED if result.blocked else Fate.PROCEEDS


def _fate_story(result: EventResult, on_failure: str | None) -> str:
    ran = result.ran
    if not ran:
        return (
            "マッチャがツール名にマッチしないので、フックは実行されず、呼び出しはそのまま進みます。"
        )
    run = ran[0]
    failed = run.failure is not None
    setting = on_failure or "continue（既定）"
    what = run.failure or run.outcome
    head = (
        f"フックは失敗しました（{what.value if what else '?'}、終了コード {run.exit_code}）。"
        if failed
        else f"フックは終了コード {run.exit_code} で終わりました（{what.value if what else '?'}）。"
    )
    if result.event == "PostToolUse":
        tail = "PostToolUse はツールの実行のあとなので、呼び出しはもう止められません。"
    else:
        tail = (
            "呼び出しは実行されません。"
            if result.blocked
            else "呼び出しは止まらず、権限の判定へ進みます。"
        )
    if failed:
        return f"{head}onFailure = {setting} なので、{tail}"
    return head + tail


def build_9_3() -> Exercise:
    runs = {of: _run_hook("PreToolUse", _GUARD, of, _SECRET_WRITE) for of in (None, "block")}
    default, block = runs[None], runs["block"]
    post = _run_hook("PostToolUse", _GUARD, "block", _SECRET_WRITE)
    fates = {of: _fate(r) for of, r in (("continue", default), ("block", block))}
    # The guard exists to stop the call: it wants the setting under which a failure stops it;
    # the formatter must not stop work: it wants the setting under which a failure does not.
    guard = next((of for of, f in fates.items() if f is Fate.BLOCKED), "continue")
    formatter = next((of for of, f in fates.items() if f is Fate.PROCEEDS), "continue")
    code = block.ran[0].exit_code if block.ran else None
    parts = [
        Part.option(
            "default",
            "(1) onFailure が既定のとき、マッチする呼び出しはどうなるか",
            _fate(default),
            Fate,
            otherwise=_fate_story(default, None),
        ),
        Part.option(
            "block",
            '(2) onFailure が "block" のとき、マッチする呼び出しはどうなるか',
            _fate(block),
            Fate,
            otherwise=_fate_story(block, "block"),
        ),
        Part.option(
            "guard_setting",
            "秘密のファイルへの書き込みを止めるフックに合う onFailure",
            guard,
            Setting,
            otherwise="止めることが目的のフックです。スクリプトが起動できないとき、"
            "どちらの設定なら呼び出しが止まりますか（fail-closed）。",
        ),
        Part.option(
            "formatter_setting",
            "編集のあとで整形するフックに合う onFailure",
            formatter,
            Setting,
            otherwise="整形は付随的な処理です。整形が失敗しただけで作業全体を止める"
            "理由はありません（fail-open）。",
        ),
        Part.boolean(
            "post_tool_use_can_block",
            'PostToolUse のフックは、onFailure が "block" でも編集そのものを止められるか',
            post.blocked,
            otherwise="PostToolUse はツールが実行されたあとのイベントです。"
            "終わった編集は取り消せません。",
        ),
        Part.choice(
            "why_guard",
            "書き込みを止めるフックの設定についての正しい説明はどれか",
            [
                (
                    (
                        "既定の continue では、"
                        "スクリプトのパスを 1 つ間違えただけで、保護が何も言わずに"
                        "無くなるから（fail-open）。"
                    ),
                    fates["continue"] is Fate.PROCEEDS and fates["block"] is Fate.BLOCKED,
                    "",
                ),
                (
                    '"block" にすると、起動できないスクリプトの終了コードが 2 になるから。',
                    code == 2,
                    f"終了コードは {code} のままです。onFailure が失敗をブロックとして扱うのです。",
                ),
                (
                    '"block" にしても、起動できなかったフックは数に入らないので止まらないから。',
                    fates["block"] is Fate.PROCEEDS,
                    '"block" では、起動できない失敗でも止まります。',
                ),
                (
                    "どちらの設定でも呼び出しは止まるので、違いはないから。",
                    fates["continue"] is Fate.BLOCKED and fates["block"] is Fate.BLOCKED,
                    "既定の設定では、失敗したフックは何も決めなかったのと同じ扱いです。",
                ),
            ],
        ),
    ]
    solution = (
        f'登録: PreToolUse, matcher "Write|Edit", command {_GUARD}（存在しない）\n'
        f"(1) 既定: {_fate_story(default, None)}\n"
        f"(2) block: {_fate_story(block, 'block')}\n"
        f"書き込みを止めるフック → {guard}（失敗でも止まる側に倒す）。"
        f"整形のフック → {formatter}（失敗しても作業を止めない）。\n"
        f"PostToolUse + block でも blocked = {post.blocked}: 実行後のイベントなので止められません。"
        "\n"
        "理由の選択肢は A です。"
    )
    return Exercise(
        "9.3",
        TITLES["9.3"],
        "PreToolUse のフックのスクリプトが設定のパスに無いとき、onFailure が既定のときと"
        ' "block" のときで、マッチする呼び出しがどうなるか。書き込みを止めるフックと、'
        "整形のフックに合う設定はどちらか。",
        parts,
        hints=[
            "起動できないことは「ブロックしないエラー」、"
            "つまり失敗の一種です。終了コード 2 とは違います。",
            "onFailure が決めるのは、"
            "失敗したときに行為を進めるか止めるかです。既定値は continue です。",
            "run_hooks の結果の .blocked と、.runs[0].failure を見てみましょう。",
        ],
        solution_text=solution,
        data={
            "settings": {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Write|Edit",
                            "hooks": [{"type": "command", "command": _GUARD, "onFailure": "block"}],
                        }
                    ]
                }
            },
            "payload": _SECRET_WRITE,
        },
    )


_COMMANDS_9_3 = {
    "exit 0": "exit 0",
    "exit 1": "exit 1",
    "exit 2": "exit 2",
    "missing": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/missing.sh',
}


def practice_9_3(rng: random.Random) -> Exercise:
    event = rng.choice(["PreToolUse", "PreToolUse", "PostToolUse"])
    label = rng.choice(list(_COMMANDS_9_3))
    on_failure = rng.choice([None, "continue", "block"])
    tool = rng.choice(["Write", "Edit", "Bash"])
    payload = {"tool_name": tool, "tool_input": {"file_path": "notes.md", "content": "x"}}
    result = _run_hook(event, _COMMANDS_9_3[label], on_failure, payload)
    shown = "省略（既定）" if on_failure is None else f'"{on_failure}"'
    return Exercise(
        "9.3",
        TITLES["9.3"] + "（練習）",
        f'{event} に matcher "Write|Edit" のコマンドのフックがあり、コマンドは '
        f"{_COMMANDS_9_3[label]!r}、onFailure は {shown}。{tool} の呼び出しについて、"
        "matched（フックが実行されるか）と fate（'proceeds' か 'blocked'）を答えよ。",
        [
            Part.boolean(
                "matched",
                "フックが実行されるか",
                bool(result.ran),
                otherwise='matcher "Write|Edit" は | で区切った名前の列挙で、完全一致で比べます。',
            ),
            Part.option(
                "fate",
                "呼び出しはどうなるか",
                _fate(result),
                Fate,
                otherwise=_fate_story(result, on_failure),
            ),
        ],
        solution_text=_fate_story(result, on_failure),
        variable="practice_answer",
        practice=True,
        data={
            "event": event,
            "command": _COMMANDS_9_3[label],
            "on_failure": on_failure,
            "tool_name": tool,
        },
    )


# --- 9.4 skills re-attached after compaction --------------------------------------------


def _reattach_story(result: Reattachment) -> str:
    bits = [f"{r.name}: {r.status.value} {r.tokens:,}/{r.original_tokens:,}" for r in result.items]
    return (
        f"新しいものから順に: {', '.join(bits)}。合計 {result.total_tokens:,} トークン"
        f"（1 個あたり {result.per_skill_tokens:,}、合計の上限 {result.total_budget:,}）。"
    )


def build_9_4() -> Exercise:
    from ...skills import PER_SKILL_TOKENS, TOTAL_TOKENS, ReattachStatus, reattach

    invocations = [(f"skill-{i}", 6_000) for i in range(1, 8)]
    result = reattach(invocations, per_skill_tokens=PER_SKILL_TOKENS, total_tokens=TOTAL_TOKENS)
    k, body = len(invocations), invocations[0][1]
    kept = [r for r in result.items if r.status is not ReattachStatus.DROPPED]
    oldest = [name for name, _ in invocations[: len(result.dropped)]]
    parts = [
        Part.integer(
            "upper_bound",
            "再び添付される量の上界（トークン）",
            result.total_tokens,
            mistakes={
                k * PER_SKILL_TOKENS: f"{k} × {PER_SKILL_TOKENS:,} は 1 個あたりの上限だけを"
                "使った値です。"
                f"合計の上限 {TOTAL_TOKENS:,} もかかります。",
                k * body: "本文をそのまま足した値です。各スキルは 1 個あたりの上限で切られます。",
            },
            otherwise="上界は min(k × a, A) です（命題 5.2 の 2）。",
        ),
        Part.integer(
            "dropped_at_least",
            "内容がまったく添付されないスキルの数（少なくとも）",
            len(result.dropped),
            mistakes={
                0: (
                    f"{k} 個すべてを 1 個あたり {PER_SKILL_TOKENS:,} で添付すると、"
                    "合計の上限を超えます。"
                )
            },
            otherwise=f"{TOTAL_TOKENS:,} / {PER_SKILL_TOKENS:,} 個で予算が尽きます。",
        ),
        Part.integer(
            "tokens_each",
            "添付されるスキル 1 個あたりのトークン数",
            kept[0].tokens,
            mistakes={body: f"本文は {body:,} トークンですが、1 個あたりの上限で切られます。"},
            otherwise=_reattach_story(result),
        ),
        Part.names(
            "dropped",
            "skill-1 → skill-7 の順に呼び出したとき、落ちるスキルの名前",
            result.dropped,
            otherwise="予算は新しく呼び出したものから埋まります。",
        ),
        Part.choice(
            "why_dropped",
            "落ちるスキルがそれになる理由として正しいものはどれか",
            [
                (
                    "新しく呼び出したものから予算を埋めるので、古いものから落ちるから。",
                    sorted(result.dropped) == sorted(oldest),
                    "",
                ),
                (
                    "古いスキルほど本文が長いから。",
                    len({r.original_tokens for r in result.items}) > 1,
                    "どのスキルも本文は同じ長さです。",
                ),
                (
                    f"{PER_SKILL_TOKENS:,} トークンを超える本文は、丸ごと捨てられるから。",
                    not any(r.status is ReattachStatus.CUT for r in result.items),
                    "上限を超えた本文は、捨てられずに先頭が残るように切られます。",
                ),
                (
                    "合計の上限をスキルの数で等分して配るから。",
                    len({r.tokens for r in result.items}) == 1 and not result.dropped,
                    "等分ではありません。1 個ずつ上限まで入れ、予算が尽きたら残りは入りません。",
                ),
            ],
        ),
    ]
    return Exercise(
        "9.4",
        TITLES["9.4"],
        "7 個のスキルを呼び出し、本文はどれも 6,000 トークン。"
        "1 個あたり 5,000・合計 25,000 の上限で、"
        "圧縮のあとに再び添付される量の上界と、まったく添付されないスキルの数を求める。",
        parts,
        hints=[
            "2 つの上限が両方かかります。1 個あたりの上限で切った量を、合計の上限まで詰めます。",
            "上界は min(k × a, A)。k = 7、a = 5,000、A = 25,000 です。",
            "reattach([(名前, 6000), …]) の .total_tokens と .dropped で確かめられます。",
        ],
        solution_text=(
            f"{_reattach_story(result)}\n上界は min({k} × {PER_SKILL_TOKENS:,}, "
            f"{TOTAL_TOKENS:,}) = {result.total_tokens:,}。落ちるのは古い "
            f"{len(result.dropped)} 個 {sorted(result.dropped)}。理由の選択肢は A です。"
        ),
        data={
            "invocations": invocations,
            "per_skill_tokens": PER_SKILL_TOKENS,
            "total_tokens": TOTAL_TOKENS,
        },
    )


def practice_9_4(rng: random.Random) -> Exercise:
    from ...skills import ReattachStatus, reattach

    per_skill = rng.choice([2_000, 3_000, 5_000])
    total = per_skill * rng.randint(2, 5) + rng.choice([0, 0, 1_000])
    names = [f"skill-{c}" for c in "abcdefgh"[: rng.randint(2, 8)]]
    invocations = [(name, rng.randrange(500, 8_001, 500)) for name in names]
    for _ in range(rng.randint(0, 2)):  # invoke an earlier skill again: only the latest counts
        invocations.append((rng.choice(names), rng.randrange(500, 8_001, 500)))
    result = reattach(invocations, per_skill_tokens=per_skill, total_tokens=total)
    listed = ", ".join(f"{n} ({t:,})" for n, t in invocations)
    return Exercise(
        "9.4",
        TITLES["9.4"] + "（練習）",
        f"呼び出しの順（古い順、括弧は本文のトークン数）: {listed}。1 個あたり {per_skill:,}、"
        f"合計 {total:,} の上限で、total_tokens（再添付の合計）、"
        "dropped（まったく添付されない名前）、"
        "cut（途中で切られる名前）を答えよ。",
        [
            Part.integer(
                "total_tokens",
                "再添付の合計（トークン）",
                result.total_tokens,
                otherwise=_reattach_story(result),
            ),
            Part.names(
                "dropped",
                "まったく添付されないスキル",
                result.dropped,
                otherwise=_reattach_story(result),
            ),
            Part.names(
                "cut",
                "途中で切られるスキル",
                result.names(ReattachStatus.CUT),
                otherwise=_reattach_story(result),
            ),
        ],
        solution_text=_reattach_story(result),
        variable="practice_answer",
        practice=True,
        data={"invocations": invocations, "per_skill_tokens": per_skill, "total_tokens": total},
    )
