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
from ..language import Text

if TYPE_CHECKING:
    from ...hooks import EventResult
    from ...skills import Reattachment

__all__ = ["Fate", "Setting", "build_9_3", "build_9_4", "practice_9_3", "practice_9_4"]

TITLES: dict[str, Text] = {
    "9.3": Text("起動できないフック", "A hook that cannot start"),
    "9.4": Text("スキルの再添付", "Skills re-attached"),
}
#: The suffix of a practice variant's title.
PRACTICE = Text("（練習）", " (practice)")

#: The fixed texts of the 9.3 feedback stories (what happened to one hook run).
STORY: dict[str, Text] = {
    "unmatched": Text(
        "マッチャがツール名にマッチしないので、フックは実行されず、呼び出しはそのまま進みます。",
        "The matcher does not match the tool name, so the hook does not run and the call goes on.",
    ),
    "default": Text("continue（既定）", "continue (the default)"),
    "failed": Text(
        "フックは失敗しました（{what}、終了コード {code}）。",
        "The hook failed ({what}, exit code {code}). ",
    ),
    "ended": Text(
        "フックは終了コード {code} で終わりました（{what}）。",
        "The hook ended with exit code {code} ({what}). ",
    ),
    "post": Text(
        "PostToolUse はツールの実行のあとなので、呼び出しはもう止められません。",
        "PostToolUse comes after the tool ran, so the call can no longer be stopped.",
    ),
    "post_told": Text(
        "失敗はブロックするエラーとして Claude に伝えられますが、"
        "PostToolUse はツールの実行のあとなので、"
        "呼び出しはもう止められません。",
        "The failure reaches Claude as a blocking error, but PostToolUse comes after the tool "
        "ran, so the call can no longer be stopped.",
    ),
    "blocked": Text("呼び出しは実行されません。", "The call is not executed."),
    "proceeds": Text(
        "呼び出しは止まらず、権限の判定へ進みます。",
        "The call is not stopped and goes on to the permission decision.",
    ),
    "because": Text(
        "{head}onFailure = {setting} なので、{tail}", "{head}With onFailure = {setting}, {tail}"
    ),
}


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


def _fate_story(result: EventResult, on_failure: str | None) -> Text:
    ran = result.ran
    if not ran:
        return STORY["unmatched"]
    run = ran[0]
    failed = run.failure is not None
    setting: Text | str = on_failure or STORY["default"]
    what = run.failure or run.outcome
    shown = what.value if what else "?"
    head = STORY["failed" if failed else "ended"].format(what=shown, code=run.exit_code)
    if result.event == "PostToolUse":
        # under "block" the failure is exit 2's feedback to Claude (observed in 2.1.332)
        tail = STORY["post_told" if failed and on_failure == "block" else "post"]
    else:
        tail = STORY["blocked" if result.blocked else "proceeds"]
    if failed:
        return Text(
            STORY["because"].ja.format(head=head.ja, setting=_ja(setting), tail=tail.ja),
            STORY["because"].en.format(head=head.en, setting=_en(setting), tail=_lower(tail.en)),
        )
    return head + tail


def _ja(words: Text | str) -> str:
    return words.ja if isinstance(words, Text) else words


def _en(words: Text | str) -> str:
    return words.en if isinstance(words, Text) else words


def _lower(text: str) -> str:
    """A sentence going on after a comma: its first letter in lower case, unless it starts
    with a name (``PostToolUse``)."""
    return text if text.startswith("PostToolUse") else text[:1].lower() + text[1:]


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
            Text(
                "(1) onFailure が既定のとき、マッチする呼び出しはどうなるか",
                "(1) With onFailure left at its default, what happens to a matching call?",
            ),
            _fate(default),
            Fate,
            otherwise=_fate_story(default, None),
        ),
        Part.option(
            "block",
            Text(
                '(2) onFailure が "block" のとき、マッチする呼び出しはどうなるか',
                '(2) With onFailure "block", what happens to a matching call?',
            ),
            _fate(block),
            Fate,
            otherwise=_fate_story(block, "block"),
        ),
        Part.option(
            "guard_setting",
            Text(
                "秘密のファイルへの書き込みを止めるフックに合う onFailure",
                "The onFailure that suits a hook stopping writes to a secrets file",
            ),
            guard,
            Setting,
            otherwise=Text(
                "止めることが目的のフックです。スクリプトが起動できないとき、"
                "どちらの設定なら呼び出しが止まりますか（fail-closed）。",
                "The hook is there to stop calls. When its script cannot start, under which "
                "setting does the call stop (fail-closed)?",
            ),
        ),
        Part.option(
            "formatter_setting",
            Text(
                "編集のあとで整形するフックに合う onFailure",
                "The onFailure that suits a hook formatting files after an edit",
            ),
            formatter,
            Setting,
            otherwise=Text(
                "整形は付随的な処理です。整形が失敗しただけで作業全体を止める理由はありません（fail-open）。",
                "Formatting is a side task. A failed formatting run is no reason to stop all "
                "the work (fail-open).",
            ),
        ),
        Part.boolean(
            "post_tool_use_can_block",
            Text(
                'PostToolUse のフックは、onFailure が "block" でも編集そのものを止められるか',
                'Can a PostToolUse hook stop the edit itself, even with onFailure "block"?',
            ),
            post.blocked,
            otherwise=Text(
                "PostToolUse はツールが実行されたあとのイベントです。終わった編集は取り消せません"
                "（失敗が Claude に伝えられるだけです）。",
                "PostToolUse is the event after the tool ran. An edit that is done cannot be "
                "undone (the failure is only reported to Claude).",
            ),
        ),
        Part.choice(
            "why_guard",
            Text(
                "書き込みを止めるフックの設定についての正しい説明はどれか",
                "Which statement about the setting of a hook that stops writes is right?",
            ),
            [
                (
                    Text(
                        "既定の continue では、スクリプトのパスを 1 つ間違えただけで、"
                        "保護が何も言わずに無くなるから（fail-open）。",
                        "Under the default continue, a single wrong script path silently removes "
                        "the protection (fail-open).",
                    ),
                    fates["continue"] is Fate.PROCEEDS and fates["block"] is Fate.BLOCKED,
                    "",
                ),
                (
                    Text(
                        '"block" にすると、起動できないスクリプトの終了コードが 2 になるから。',
                        'With "block", a script that cannot start gets exit code 2.',
                    ),
                    code == 2,
                    Text(
                        f"終了コードは {code} のままです。"
                        f"onFailure が失敗をブロックとして扱うのです。",
                        f"The exit code stays {code}; onFailure treats the failure as a block.",
                    ),
                ),
                (
                    Text(
                        '"block" にしても、起動できなかったフックは'
                        "数に入らないので止まらないから。",
                        'Even with "block", a hook that could not start does not count, so '
                        "nothing stops.",
                    ),
                    fates["block"] is Fate.PROCEEDS,
                    Text(
                        '"block" では、起動できない失敗でも止まります。',
                        'Under "block", even a failure to start stops the call.',
                    ),
                ),
                (
                    Text(
                        "どちらの設定でも呼び出しは止まるので、違いはないから。",
                        "The call stops under either setting, so there is no difference.",
                    ),
                    fates["continue"] is Fate.BLOCKED and fates["block"] is Fate.BLOCKED,
                    Text(
                        "既定の設定では、失敗したフックは何も決めなかったのと同じ扱いです。",
                        "Under the default, a failed hook counts as one that decided nothing.",
                    ),
                ),
            ],
        ),
    ]
    default_story, block_story = _fate_story(default, None), _fate_story(block, "block")
    solution = Text(
        f'登録: PreToolUse, matcher "Write|Edit", command {_GUARD}（存在しない）\n'
        f"(1) 既定: {default_story.ja}\n"
        f"(2) block: {block_story.ja}\n"
        f"書き込みを止めるフック → {guard}（失敗でも止まる側に倒す）。"
        f"整形のフック → {formatter}（失敗しても作業を止めない）。\n"
        f"PostToolUse + block でも blocked = {post.blocked}: 実行後のイベントなので止められません"
        "（失敗は Claude に伝えられます）。\n"
        "理由の選択肢は A です。",
        f'Registered: PreToolUse, matcher "Write|Edit", command {_GUARD} (does not exist)\n'
        f"(1) default: {default_story.en}\n"
        f"(2) block: {block_story.en}\n"
        f"A hook that stops writes → {guard} (a failure falls on the stopping side). "
        f"A formatting hook → {formatter} (a failure does not stop the work).\n"
        f"PostToolUse + block still gives blocked = {post.blocked}: the event comes after the "
        "tool ran, so nothing can be stopped (the failure is reported to Claude).\n"
        "The statement giving the reason is A.",
    )
    return Exercise(
        "9.3",
        TITLES["9.3"],
        Text(
            "PreToolUse のフックのスクリプトが設定のパスに無いとき、onFailure が既定のときと"
            ' "block" のときで、マッチする呼び出しがどうなるか。書き込みを止めるフックと、'
            "整形のフックに合う設定はどちらか。",
            "When the script of a PreToolUse hook is missing from the path in the settings, "
            'what happens to a matching call with onFailure left at its default and with "block"? '
            "Which setting suits a hook that stops writes, and which a formatting hook?",
        ),
        parts,
        hints=[
            Text(
                "起動できないことは「ブロックしないエラー」、"
                "つまり失敗の一種です。終了コード 2 とは違います。",
                "Failing to start is a non-blocking error, a kind of failure. It is not exit "
                "code 2.",
            ),
            Text(
                "onFailure が決めるのは、"
                "失敗したときに行為を進めるか止めるかです。既定値は continue です。",
                "What onFailure decides is whether the action goes on or stops when the hook "
                "fails. Its default is continue.",
            ),
            Text(
                "run_hooks の結果の .blocked と、.runs[0].failure を見てみましょう。",
                "Look at .blocked and .runs[0].failure of what run_hooks returns.",
            ),
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
    command = _COMMANDS_9_3[label]
    shown = (
        Text("省略（既定）", "left out (the default)") if on_failure is None else f'"{on_failure}"'
    )
    return Exercise(
        "9.3",
        TITLES["9.3"] + PRACTICE,
        Text(
            f'{event} に matcher "Write|Edit" のコマンドのフックがあり、コマンドは '
            f"{command!r}、onFailure は {_ja(shown)}。{tool} の呼び出しについて、"
            "matched（フックが実行されるか）と fate（'proceeds' か 'blocked'）を答えよ。",
            f'{event} has a command hook with matcher "Write|Edit"; its command is '
            f"{command!r} and its onFailure is {_en(shown)}. For a {tool} call, answer matched "
            "(does the hook run?) and fate ('proceeds' or 'blocked').",
        ),
        [
            Part.boolean(
                "matched",
                Text("フックが実行されるか", "Does the hook run?"),
                bool(result.ran),
                otherwise=Text(
                    'matcher "Write|Edit" は | で区切った名前の列挙で、完全一致で比べます。',
                    'The matcher "Write|Edit" is a list of names separated by |, compared exactly.',
                ),
            ),
            Part.option(
                "fate",
                Text("呼び出しはどうなるか", "What happens to the call?"),
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


def _reattach_story(result: Reattachment) -> Text:
    bits = ", ".join(
        f"{r.name}: {r.status.value} {r.tokens:,}/{r.original_tokens:,}" for r in result.items
    )
    numbers = {
        "bits": bits,
        "total": f"{result.total_tokens:,}",
        "each": f"{result.per_skill_tokens:,}",
        "budget": f"{result.total_budget:,}",
    }
    return Text(
        "新しいものから順に: {bits}。"
        "合計 {total} トークン（1 個あたり {each}、合計の上限 {budget}）。",
        "Newest first: {bits}. {total} tokens in all ({each} per skill, a total cap of {budget}).",
    ).format(**numbers)


def build_9_4() -> Exercise:
    from ...skills import PER_SKILL_TOKENS, TOTAL_TOKENS, ReattachStatus, reattach

    invocations = [(f"skill-{i}", 6_000) for i in range(1, 8)]
    result = reattach(invocations, per_skill_tokens=PER_SKILL_TOKENS, total_tokens=TOTAL_TOKENS)
    k, body = len(invocations), invocations[0][1]
    kept = [r for r in result.items if r.status is not ReattachStatus.DROPPED]
    oldest = [name for name, _ in invocations[: len(result.dropped)]]
    a, total = f"{PER_SKILL_TOKENS:,}", f"{TOTAL_TOKENS:,}"
    parts = [
        Part.integer(
            "upper_bound",
            Text("再び添付される量の上界（トークン）", "The bound on what is re-attached (tokens)"),
            result.total_tokens,
            mistakes={
                k * PER_SKILL_TOKENS: Text(
                    f"{k} × {a} は 1 個あたりの上限だけを使った値です。"
                    f"合計の上限 {total} もかかります。",
                    f"{k} × {a} uses only the cap per skill. The total cap of {total} applies too.",
                ),
                k * body: Text(
                    "本文をそのまま足した値です。各スキルは 1 個あたりの上限で切られます。",
                    "That adds up the whole bodies. Each skill is cut at the cap per skill.",
                ),
            },
            otherwise=Text(
                "上界は min(k × a, A) です（命題 5.2 の 2）。",
                "The bound is min(k × a, A) (part 2 of Proposition 5.2).",
            ),
        ),
        Part.integer(
            "dropped_at_least",
            Text(
                "内容がまったく添付されないスキルの数（少なくとも）",
                "How many skills get nothing re-attached (at least)",
            ),
            len(result.dropped),
            mistakes={
                0: Text(
                    f"{k} 個すべてを 1 個あたり {a} で添付すると、合計の上限を超えます。",
                    f"Attaching all {k} at {a} each goes over the total cap.",
                )
            },
            otherwise=Text(
                f"{total} / {a} 個で予算が尽きます。",
                f"The budget runs out after {total} / {a} skills.",
            ),
        ),
        Part.integer(
            "tokens_each",
            Text(
                "添付されるスキル 1 個あたりのトークン数",
                "Tokens attached for each skill that comes back",
            ),
            kept[0].tokens,
            mistakes={
                body: Text(
                    f"本文は {body:,} トークンですが、1 個あたりの上限で切られます。",
                    f"The body is {body:,} tokens, but it is cut at the cap per skill.",
                )
            },
            otherwise=_reattach_story(result),
        ),
        Part.names(
            "dropped",
            Text(
                "skill-1 → skill-7 の順に呼び出したとき、落ちるスキルの名前",
                "Invoked in the order skill-1 → skill-7: the names of the skills dropped",
            ),
            result.dropped,
            otherwise=Text(
                "予算は新しく呼び出したものから埋まります。",
                "The budget fills from the most recently invoked skill.",
            ),
        ),
        Part.choice(
            "why_dropped",
            Text(
                "落ちるスキルがそれになる理由として正しいものはどれか",
                "Which statement gives the right reason why those skills are dropped?",
            ),
            [
                (
                    Text(
                        "新しく呼び出したものから予算を埋めるので、古いものから落ちるから。",
                        "The budget is filled from the most recent invocation, so the oldest go "
                        "first.",
                    ),
                    sorted(result.dropped) == sorted(oldest),
                    "",
                ),
                (
                    Text("古いスキルほど本文が長いから。", "Older skills have longer bodies."),
                    len({r.original_tokens for r in result.items}) > 1,
                    Text(
                        "どのスキルも本文は同じ長さです。",
                        "Every skill's body has the same length.",
                    ),
                ),
                (
                    Text(
                        f"{a} トークンを超える本文は、丸ごと捨てられるから。",
                        f"A body over {a} tokens is thrown away whole.",
                    ),
                    not any(r.status is ReattachStatus.CUT for r in result.items),
                    Text(
                        "上限を超えた本文は、捨てられずに先頭が残るように切られます。",
                        "A body over the cap is not thrown away: it is cut, keeping its start.",
                    ),
                ),
                (
                    Text(
                        "合計の上限をスキルの数で等分して配るから。",
                        "The total cap is shared out equally among the skills.",
                    ),
                    len({r.tokens for r in result.items}) == 1 and not result.dropped,
                    Text(
                        "等分ではありません。1 個ずつ上限まで入れ、"
                        "予算が尽きたら残りは入りません。",
                        "It is not shared equally: each skill goes in up to its cap, 1 at a time, "
                        "and once the budget runs out the rest get nothing.",
                    ),
                ),
            ],
        ),
    ]
    story, dropped = _reattach_story(result), sorted(result.dropped)
    return Exercise(
        "9.4",
        TITLES["9.4"],
        Text(
            "7 個のスキルを呼び出し、本文はどれも 6,000 トークン。1 個あたり 5,000・合計 25,000 の"
            "上限で、圧縮のあとに再び添付される量の上界と、まったく添付されないスキルの数を求める。",
            "7 skills were invoked, each with a body of 6,000 tokens. With a cap of 5,000 per "
            "skill and 25,000 in all, find the bound on what is re-attached after compaction and "
            "how many skills get nothing re-attached.",
        ),
        parts,
        hints=[
            Text(
                "2 つの上限が両方かかります。"
                "1 個あたりの上限で切った量を、合計の上限まで詰めます。",
                "Both caps apply: cut each body at the cap per skill, "
                "then fill up to the total cap.",
            ),
            Text(
                "上界は min(k × a, A)。k = 7、a = 5,000、A = 25,000 です。",
                "The bound is min(k × a, A), with k = 7, a = 5,000 and A = 25,000.",
            ),
            Text(
                "reattach([(名前, 6000), …]) の .total_tokens と .dropped で確かめられます。",
                "You can check with .total_tokens and .dropped of reattach([(name, 6000), …]).",
            ),
        ],
        solution_text=Text(
            f"{story.ja}\n上界は min({k} × {a}, {total}) = {result.total_tokens:,}。落ちるのは古い "
            f"{len(result.dropped)} 個 {dropped}。理由の選択肢は A です。",
            f"{story.en}\nThe bound is min({k} × {a}, {total}) = {result.total_tokens:,}. The "
            f"{len(result.dropped)} oldest are dropped: {dropped}. The statement giving the "
            "reason is A.",
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
    story = _reattach_story(result)
    return Exercise(
        "9.4",
        TITLES["9.4"] + PRACTICE,
        Text(
            f"呼び出しの順（古い順、括弧は本文のトークン数）: {listed}。1 個あたり {per_skill:,}、"
            f"合計 {total:,} の上限で、total_tokens（再添付の合計）、"
            "dropped（まったく添付されない名前）、cut（途中で切られる名前）を答えよ。",
            f"The invocations, oldest first (body tokens in brackets): {listed}. With a cap of "
            f"{per_skill:,} per skill and {total:,} in all, answer total_tokens (what is "
            "re-attached in all), dropped (the names that get nothing) and cut (the names cut "
            "short).",
        ),
        [
            Part.integer(
                "total_tokens",
                Text("再添付の合計（トークン）", "Re-attached in all (tokens)"),
                result.total_tokens,
                otherwise=story,
            ),
            Part.names(
                "dropped",
                Text("まったく添付されないスキル", "The skills that get nothing"),
                result.dropped,
                otherwise=story,
            ),
            Part.names(
                "cut",
                Text("途中で切られるスキル", "The skills cut short"),
                result.names(ReattachStatus.CUT),
                otherwise=story,
            ),
        ],
        solution_text=_reattach_story(result),
        variable="practice_answer",
        practice=True,
        data={"invocations": invocations, "per_skill_tokens": per_skill, "total_tokens": total},
    )
