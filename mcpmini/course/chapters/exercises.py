"""Exercises 9.1–9.4 of the article, with answer keys computed by the runtime.

This module holds the two protocol exercises (9.1, 9.2) and the chapters' table of
exercises; :mod:`.extensions` holds the hook and skill exercises (9.3, 9.4).

Each ``_build_9_x`` function runs the runtime on the exercise's data (the negotiation
models, the id rules, a real hook registration, the re-attachment function) and turns
what comes back into :class:`~mcpmini.course.grading.Part` objects: the expected values,
the messages for specific mistakes, and the truth of every multiple-choice statement.
Nothing in an answer key is typed in, so a key cannot drift from what the chapters teach.

:data:`BUILDERS` builds each exercise and :data:`PRACTICE_BUILDERS` a fresh random instance
of it ("more practice"), graded the same way; :mod:`mcpmini.course.catalogue` puts them
beside the practice track's exercises behind ``get_exercise`` and ``practice``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ...mcp import LEGACY, MODERN, PendingTable, Request, Response
from ..grading import Exercise, Part
from ..language import Words
from .extensions import TITLES as EXTENSION_TITLES
from .extensions import build_9_3, build_9_4, practice_9_3, practice_9_4
from .ids import id_violations, outstanding_is_injective
from .negotiation import is_interval, negotiate_handshake, negotiate_per_request, set_pairs

__all__ = ["BUILDERS", "EXERCISE_IDS", "PRACTICE_BUILDERS", "TITLES"]

EXERCISE_IDS = ("9.1", "9.2", "9.3", "9.4")
TITLES: dict[str, Words] = {
    "9.1": "版の取り決め",
    "9.2": "要求の id",
    **EXTENSION_TITLES,
}


def _fmt(versions: Sequence[str]) -> str:
    return "{" + ", ".join(sorted(versions)) + "}" if versions else "∅"


# --- 9.1 version negotiation ----------------------------------------------------------

_CASES_9_1 = {
    "a": (("v1", "v2", "v3"), ("v2", "v3", "v4")),
    "b": (("v1", "v4"), ("v1", "v2", "v3")),
    "c": (("v1", "v2"), ("v3", "v4")),
}


def _handshake_story(c: Sequence[str], s: Sequence[str]) -> str:
    n = negotiate_handshake(c, s)
    offer = n.messages[0][1]["params"]["protocolVersion"]
    answer = n.messages[1][1]["result"]["protocolVersion"]
    if offer in s:
        return (
            f"クライアントは max C = {offer} を出し、"
            f"{offer} ∈ S なのでサーバはそれを返し、合意します。"
        )
    if answer in c:
        return (
            f"クライアントは max C = {offer} を出しますが S にありません。サーバは max S = "
            f"{answer} を返し、{answer} ∈ C なので合意します。"
        )
    return (
        f"クライアントは max C = {offer} を出しますが S にありません。サーバは max S = "
        f"{answer} を返し、{answer} ∉ C なのでクライアントは切断します。"
    )


def _per_request_story(c: Sequence[str], s: Sequence[str]) -> str:
    n = negotiate_per_request(c, s)
    common = sorted(set(c) & set(s))
    if not n.ok:
        return "C ∩ S = ∅ なので、-32022 のエラーで S を知っても再試行できる版がありません。"
    if n.requests == 1:
        return f"1 回目の要求の版 max C = {n.agreed} が S に入っているので、1 回で成立します。"
    return (
        f"1 回目の版 max C = {max(c)} は S にないので -32022 が返りますが、C ∩ S = "
        f"{_fmt(common)} から {n.agreed} を選んで再試行し、2 回目で成立します。"
    )


def _handshake_pointer(c: Sequence[str], s: Sequence[str]) -> str:
    """Where to look when the handshake answer is wrong; the reasoning is left to a hint."""
    n = negotiate_handshake(c, s)
    answer = n.messages[1][1]["result"]["protocolVersion"]
    if n.ok:
        return f"成立します。クライアントが出す版 max C = {max(c)} を S と見比べましょう。"
    return f"成立しません。サーバが返す版 {answer} を C と見比べましょう（hint(1)）。"


def _per_request_pointer(c: Sequence[str], s: Sequence[str]) -> str:
    """Where to look when the per-request answer is wrong (C ∩ S decides it)."""
    if negotiate_per_request(c, s).ok:
        return "成立します。-32022 のエラーで S を知ったあと、C ∩ S を見ましょう（hint(2)）。"
    return "成立しません。C ∩ S を書き出してみましょう（hint(2)）。"


def _negotiation_parts(prefix: str, c: Sequence[str], s: Sequence[str]) -> list[Part]:
    hs, pr = negotiate_handshake(c, s), negotiate_per_request(c, s)
    label = f"({prefix[:-1]}) " if prefix else ""
    return [
        Part.boolean(
            f"{prefix}handshake",
            f"{label}握手による方式で成立するか",
            hs.ok,
            otherwise=_handshake_pointer(c, s),
        ),
        Part.boolean(
            f"{prefix}per_request",
            f"{label}要求ごとに版を示す方式で成立するか",
            pr.ok,
            otherwise=_per_request_pointer(c, s),
        ),
    ]


def _non_interval_can_succeed(universe: Sequence[str]) -> bool:
    """Whether some C that is not an interval still agrees by handshake (exhaustive)."""
    return any(
        negotiate_handshake(c, s).ok for c, s in set_pairs(universe) if not is_interval(c, universe)
    )


def _build_9_1() -> Exercise:
    universe = ("v1", "v2", "v3", "v4")
    cb, sb = _CASES_9_1["b"]
    pr_b, hs_b = negotiate_per_request(cb, sb), negotiate_handshake(cb, sb)
    parts: list[Part] = []
    for case, (c, s) in _CASES_9_1.items():
        parts += _negotiation_parts(f"{case}.", c, s)
        if case != "b":
            continue
        parts.append(
            Part.integer(
                "b.requests",
                "(b) 要求ごとの方式で、クライアントが送る要求の数",
                pr_b.requests,
                mistakes={1: "1 回目の要求の版 v4 は S にあるでしょうか。"},
                otherwise="1 回目の要求が断られたあと、何回目で通るかを数えましょう（hint(2)）。",
            )
        )
    offer = hs_b.messages[0][1]["params"]["protocolVersion"]
    answer = hs_b.messages[1][1]["result"]["protocolVersion"]
    common = sorted(set(cb) & set(sb))
    parts.append(
        Part.choice(
            "why_b",
            "(b) の握手が成立しない理由として正しいものはどれか",
            [
                ("C ∩ S が空だから。", not common, f"C ∩ S = {_fmt(common)} は空ではありません。"),
                (
                    f"クライアントが出す {offer} が S になく、"
                    f"サーバが代わりに返す {answer} が C にないから。",
                    offer not in sb and answer not in cb and not hs_b.ok,
                    "",
                ),
                (
                    f"サーバは共通の版のうち最も古い {common[0]} を返すが、"
                    "クライアントがそれを拒むから。",
                    answer == common[0] and not hs_b.ok,
                    f"サーバが返すのは自分の最新の版 {answer} で、"
                    "共通の版を探すわけではありません。",
                ),
                (
                    "C が区間でないと、握手は必ず失敗するから。",
                    not _non_interval_can_succeed(universe),
                    (
                        "区間であることは成立の十分条件（命題 3.4 の 3）"
                        "で、必要条件ではありません。"
                        "区間でない C でも成立する組はあります。"
                    ),
                ),
            ],
        )
    )
    solution = (
        "\n".join(
            f"({case}) C = {_fmt(c)}, S = {_fmt(s)}\n  握手: {_handshake_story(c, s)}\n"
            f"  要求ごと: {_per_request_story(c, s)}"
            for case, (c, s) in _CASES_9_1.items()
        )
        + "\n(b) の理由は B です。"
    )
    return Exercise(
        "9.1",
        TITLES["9.1"],
        "版 v1 < v2 < v3 < v4。(a)(b)(c) の C, S について、握手による方式（双方が最新の版を出す）"
        "と要求ごとの方式のそれぞれで取り決めが成立するかを答える。",
        parts,
        hints=[
            (
                "握手では、クライアントが出すのは max C、サーバが自分の版を返すなら max S です。"
                "C ∩ S が空でないことだけでは足りません。"
            ),
            (
                "要求ごとの方式では、サーバが -32022 のエラーで S をまるごと返します。"
                "クライアントは C ∩ S を計算できます。"
            ),
            "negotiate_handshake(C, S).ok と negotiate_per_request(C, S).requests で"
            "確かめられます。",
        ],
        solution_text=solution,
        data={case: {"C": list(c), "S": list(s)} for case, (c, s) in _CASES_9_1.items()},
    )


def _practice_9_1(rng: random.Random) -> Exercise:
    universe = [f"v{i}" for i in range(1, rng.randint(3, 5) + 1)]
    c = sorted(rng.sample(universe, rng.randint(1, len(universe))))
    s = sorted(rng.sample(universe, rng.randint(1, len(universe))))
    hs, pr = negotiate_handshake(c, s), negotiate_per_request(c, s)
    parts = _negotiation_parts("", c, s)
    parts.append(
        Part.integer(
            "requests",
            "要求ごとの方式でクライアントが送る要求の数",
            pr.requests,
            otherwise=_per_request_story(c, s),
        )
    )
    parts.append(
        Part.option(
            "handshake_version",
            "握手で合意する版（成立しなければ 'none'）",
            hs.agreed or "none",
            [*universe, "none"],
            otherwise=_handshake_story(c, s),
        )
    )
    return Exercise(
        "9.1",
        TITLES["9.1"] + "（練習）",
        f"版 {' < '.join(universe)}。C = {_fmt(c)}, S = {_fmt(s)} のとき、"
        "handshake / per_request（成立するか）、requests（要求ごとの方式で送る要求の数）、"
        "handshake_version（握手で合意する版、成立しなければ 'none'）を答えよ。",
        parts,
        solution_text=f"握手: {_handshake_story(c, s)}\n要求ごと: {_per_request_story(c, s)}",
        variable="practice_answer",
        practice=True,
        data={"C": c, "S": s},
    )


# --- 9.2 request ids -------------------------------------------------------------------

_HISTORY_9_2 = (("send", 7), ("reply", 7), ("send", 7))


def _violation_story(history: Sequence[tuple[str, int]], version: str) -> str:
    found = id_violations(history, version)
    if not found:
        rule = (
            "未応答の要求どうしで id が重ならないこと"
            if version == MODERN
            else "セッションの中で id を使い直さないこと"
        )
        return f"{version} 版が求めるのは{rule}で、この履歴はそれを守っています。"
    first = found[0]
    # A send that also breaks the 2026-07-28 rule collides with an outstanding request.
    outstanding = bool(id_violations(history[: first.index + 1], MODERN))
    reason = "まだ応答を待っている要求と同じ id" if outstanding else "このセッションで一度使った id"
    return f"{first.index + 1} 番目の出来事で、{reason} {first.id!r} の要求を送っています。"


def _outstanding_after(history: Sequence[tuple[str, int]]) -> int:
    table = PendingTable()
    for kind, rid in history:
        if kind == "send":
            table.add(Request(rid, "tools/call"))
        else:
            table.resolve(Response(rid))
    return len(table)


def _id_parts(history: Sequence[tuple[str, int]]) -> list[Part]:
    injective = outstanding_is_injective(history)
    return [
        Part.boolean(
            "violates_2025_11_25",
            "2025-11-25 版の要請に反するか",
            bool(id_violations(history, LEGACY)),
            otherwise=_violation_story(history, LEGACY),
        ),
        Part.boolean(
            "violates_2026_07_28",
            "2026-07-28 版の要請に反するか",
            bool(id_violations(history, MODERN)),
            otherwise=_violation_story(history, MODERN),
        ),
        Part.boolean(
            "hypothesis_holds",
            "命題 3.3 の仮定（未応答の要求の上で id が単射）は満たされるか",
            injective,
            otherwise="どの時点でも未応答の要求の id は互いに異なっています。"
            if injective
            else "同じ id の要求が 2 つ同時に応答を待つ時点があります。",
        ),
    ]


def _build_9_2() -> Exercise:
    h = list(_HISTORY_9_2)
    legacy, modern = bool(id_violations(h, LEGACY)), bool(id_violations(h, MODERN))
    parts = _id_parts(h)
    parts.append(
        Part.integer(
            "outstanding_after",
            "2 本目の要求を送った直後、応答を待っている要求はいくつか",
            _outstanding_after(h),
            mistakes={
                2: "1 本目の要求にはもう応答が届いています。応答を受け取った要求は表から消えます。",
                0: "2 本目の要求そのものが、まだ応答を待っています。",
            },
        )
    )
    parts.append(
        Part.choice(
            "why",
            "2 本目の id 7 の要求についての正しい説明はどれか",
            [
                (
                    "どちらの版にも反する。1 本目の要求がまだ応答を待っているから。",
                    legacy and modern,
                    "1 本目の要求には、2 本目を送る前に応答が届いています。",
                ),
                (
                    (
                        "2025-11-25 版にだけ反する。この版はセッション内での id の使い直しを禁じ、"
                        "2026-07-28 版は応答待ちの要求との重複だけを禁じるから。"
                    ),
                    legacy and not modern,
                    "",
                ),
                (
                    "2026-07-28 版にだけ反する。新しい版のほうが id の規則が厳しいから。",
                    modern and not legacy,
                    "新しい版の要請のほうが弱い（緩い）のです。",
                ),
                (
                    "どちらにも反しない。応答を受け取った id は、"
                    "どちらの版でも使い直してよいから。",
                    not legacy and not modern,
                    "2025-11-25 版は、応答が届いたあとでも使い直しを禁じています。",
                ),
            ],
        )
    )
    solution = (
        f"履歴: {h}\n(a) 2025-11-25: {_violation_story(h, LEGACY)}\n"
        f"(b) 2026-07-28: {_violation_story(h, MODERN)}\n"
        "命題 3.3 の仮定: 2 本目を送った直後の未応答の要求は "
        f"{_outstanding_after(h)} 個だけなので、"
        "id は単射で、応答の対応は一意に決まります。\n理由の選択肢は B です。"
    )
    return Exercise(
        "9.2",
        TITLES["9.2"],
        "id 7 の要求を送り、その応答を受け取り、また id 7 の要求を送った。各版の要請に反するか、"
        "命題 3.3 の仮定は満たされるかを答える。",
        parts,
        hints=[
            "2 つの版で禁じていることが違います。"
            "「以前に使った id」と「応答待ちの要求の id」です。",
            "2 本目を送る時点で、応答を待っている要求は何本ありますか。",
            "id_violations(history, version) と outstanding_is_injective(history) で"
            "確かめられます。",
        ],
        solution_text=solution,
        data={"history": h},
    )


def _practice_9_2(rng: random.Random) -> Exercise:
    ids = rng.sample([1, 2, 3, 7, 8], rng.randint(1, 3))
    history: list[tuple[str, int]] = []
    outstanding: list[int] = []
    for _ in range(rng.randint(3, 6)):
        # Reply only to an id outstanding once: with two alike, whose reply it is would be
        # ambiguous (that is Proposition 3.3's counterexample, not a history to judge).
        answerable = [i for i in outstanding if outstanding.count(i) == 1]
        if answerable and rng.random() < 0.45:
            rid = rng.choice(answerable)
            outstanding.remove(rid)
            history.append(("reply", rid))
        else:
            rid = rng.choice(ids)
            outstanding.append(rid)
            history.append(("send", rid))
    return Exercise(
        "9.2",
        TITLES["9.2"] + "（練習）",
        f"送り手の履歴: {history}。violates_2025_11_25 / violates_2026_07_28 / hypothesis_holds"
        "（True か False）を答えよ。",
        _id_parts(history),
        solution_text=f"2025-11-25: {_violation_story(history, LEGACY)}\n"
        f"2026-07-28: {_violation_story(history, MODERN)}",
        variable="practice_answer",
        practice=True,
        data={"history": history},
    )


# --- the chapters' exercises ------------------------------------------------------------

#: How to build each exercise of §9, its key computed by the runtime.
BUILDERS: dict[str, Callable[[], Exercise]] = {
    "9.1": _build_9_1,
    "9.2": _build_9_2,
    "9.3": build_9_3,
    "9.4": build_9_4,
}
#: How to build a fresh random instance of each exercise from a seeded ``random.Random``.
PRACTICE_BUILDERS: dict[str, Callable[[random.Random], Exercise]] = {
    "9.1": _practice_9_1,
    "9.2": _practice_9_2,
    "9.3": practice_9_3,
    "9.4": practice_9_4,
}
