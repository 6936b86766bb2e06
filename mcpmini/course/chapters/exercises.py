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
from ..language import Text, Words
from .extensions import PRACTICE, build_9_3, build_9_4, practice_9_3, practice_9_4
from .extensions import TITLES as EXTENSION_TITLES
from .ids import id_violations, outstanding_is_injective
from .negotiation import is_interval, negotiate_handshake, negotiate_per_request, set_pairs

__all__ = [
    "BUILDERS",
    "EXERCISE_IDS",
    "PRACTICE",
    "PRACTICE_BUILDERS",
    "TITLES",
    "WORDS_9_1",
    "WORDS_9_2",
]

EXERCISE_IDS = ("9.1", "9.2", "9.3", "9.4")
TITLES: dict[str, Words] = {
    "9.1": Text("版の取り決め", "Agreeing on a version"),
    "9.2": Text("要求の id", "Request ids"),
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

#: Every text of exercise 9.1 (``{name}`` fields are formatted in).
WORDS_9_1: dict[str, Text] = {
    "hs_offer_in_s": Text(
        "クライアントは max C = {offer} を出し、{offer} ∈ S なのでサーバはそれを返し、合意します。",
        "The client offers max C = {offer}; {offer} ∈ S, so the server returns it and they agree.",
    ),
    "hs_answer_in_c": Text(
        "クライアントは max C = {offer} を出しますが S にありません。サーバは max S = "
        "{answer} を返し、{answer} ∈ C なので合意します。",
        "The client offers max C = {offer}, which is not in S. The server returns max S = "
        "{answer}; {answer} ∈ C, so they agree.",
    ),
    "hs_disconnect": Text(
        "クライアントは max C = {offer} を出しますが S にありません。サーバは max S = "
        "{answer} を返し、{answer} ∉ C なのでクライアントは切断します。",
        "The client offers max C = {offer}, which is not in S. The server returns max S = "
        "{answer}; {answer} ∉ C, so the client disconnects.",
    ),
    "pr_none": Text(
        "C ∩ S = ∅ なので、-32022 のエラーで S を知っても再試行できる版がありません。",
        "C ∩ S = ∅, so even knowing S from the -32022 error there is no version to retry with.",
    ),
    "pr_one": Text(
        "1 回目の要求の版 max C = {agreed} が S に入っているので、1 回で成立します。",
        "The version of request 1, max C = {agreed}, is in S, so it succeeds in 1 request.",
    ),
    "pr_two": Text(
        "1 回目の版 max C = {first} は S にないので -32022 が返りますが、C ∩ S = "
        "{common} から {agreed} を選んで再試行し、2 回目で成立します。",
        "The version of request 1, max C = {first}, is not in S, so -32022 comes back; the "
        "client picks {agreed} from C ∩ S = {common}, retries, and succeeds at request 2.",
    ),
    "hs_ok_pointer": Text(
        "成立します。クライアントが出す版 max C = {offer} を S と見比べましょう。",
        "It succeeds. Compare the version the client offers, max C = {offer}, with S.",
    ),
    "hs_fail_pointer": Text(
        "成立しません。サーバが返す版 {answer} を C と見比べましょう（hint(1)）。",
        "It fails. Compare the version the server returns, {answer}, with C (hint(1)).",
    ),
    "pr_ok_pointer": Text(
        "成立します。-32022 のエラーで S を知ったあと、C ∩ S を見ましょう（hint(2)）。",
        "It succeeds. Once the -32022 error has told the client S, look at C ∩ S (hint(2)).",
    ),
    "pr_fail_pointer": Text(
        "成立しません。C ∩ S を書き出してみましょう（hint(2)）。",
        "It fails. Write out C ∩ S (hint(2)).",
    ),
    "handshake_prompt": Text(
        "{label}握手による方式で成立するか", "{label}Does the handshake way agree?"
    ),
    "per_request_prompt": Text(
        "{label}要求ごとに版を示す方式で成立するか",
        "{label}Does the way that gives the version on every request agree?",
    ),
    "requests_b": Text(
        "(b) 要求ごとの方式で、クライアントが送る要求の数",
        "(b) How many requests the client sends in the per-request way",
    ),
    "requests_b_1": Text(
        "1 回目の要求の版 v4 は S にあるでしょうか。", "Is v4, the version of request 1, in S?"
    ),
    "requests_b_other": Text(
        "1 回目の要求が断られたあと、何回目で通るかを数えましょう（hint(2)）。",
        "After request 1 is refused, count at which request it gets through (hint(2)).",
    ),
    "why_b": Text(
        "(b) の握手が成立しない理由として正しいものはどれか",
        "Which is the right reason why the handshake of (b) fails?",
    ),
    "why_b_empty": Text("C ∩ S が空だから。", "Because C ∩ S is empty."),
    "why_b_empty_no": Text(
        "C ∩ S = {common} は空ではありません。", "C ∩ S = {common} is not empty."
    ),
    "why_b_right": Text(
        "クライアントが出す {offer} が S になく、サーバが代わりに返す {answer} が C にないから。",
        "Because {offer}, which the client offers, is not in S, and {answer}, which the server "
        "returns instead, is not in C.",
    ),
    "why_b_oldest": Text(
        "サーバは共通の版のうち最も古い {oldest} を返すが、クライアントがそれを拒むから。",
        "Because the server returns {oldest}, the oldest common version, and the client "
        "refuses it.",
    ),
    "why_b_oldest_no": Text(
        "サーバが返すのは自分の最新の版 {answer} で、共通の版を探すわけではありません。",
        "The server returns its own newest version, {answer}; it does not look for a common one.",
    ),
    "why_b_interval": Text(
        "C が区間でないと、握手は必ず失敗するから。",
        "Because the handshake always fails when C is not an interval.",
    ),
    "why_b_interval_no": Text(
        "区間であることは成立の十分条件（命題 3.4 の 3）で、必要条件ではありません。"
        "区間でない C でも成立する組はあります。",
        "Being an interval is a sufficient condition for success (part 3 of Proposition 3.4), "
        "not a necessary one: some pairs with a C that is not an interval agree.",
    ),
    "solution_case": Text(
        "({case}) C = {c}, S = {s}\n  握手: {handshake}\n  要求ごと: {per_request}",
        "({case}) C = {c}, S = {s}\n  handshake: {handshake}\n  per request: {per_request}",
    ),
    "solution_why": Text("(b) の理由は B です。", "The reason for (b) is B."),
    "statement": Text(
        "版 v1 < v2 < v3 < v4。(a)(b)(c) の C, S について、握手による方式（双方が最新の版を出す）"
        "と要求ごとの方式のそれぞれで取り決めが成立するかを答える。",
        "Versions v1 < v2 < v3 < v4. For the C, S of (a), (b) and (c), answer whether agreement "
        "is reached by the handshake (both sides offer their newest version) and by the "
        "per-request way.",
    ),
    "hint_1": Text(
        "握手では、クライアントが出すのは max C、サーバが自分の版を返すなら max S です。"
        "C ∩ S が空でないことだけでは足りません。",
        "In the handshake the client offers max C, and when the server returns a version of its "
        "own it is max S. C ∩ S not being empty is not enough.",
    ),
    "hint_2": Text(
        "要求ごとの方式では、サーバが -32022 のエラーで S をまるごと返します。"
        "クライアントは C ∩ S を計算できます。",
        "In the per-request way the server returns the whole of S with the -32022 error, so "
        "the client can compute C ∩ S.",
    ),
    "hint_3": Text(
        "negotiate_handshake(C, S).ok と negotiate_per_request(C, S).requests で確かめられます。",
        "negotiate_handshake(C, S).ok and negotiate_per_request(C, S).requests check it.",
    ),
    "practice_requests": Text(
        "要求ごとの方式でクライアントが送る要求の数",
        "How many requests the client sends in the per-request way",
    ),
    "practice_version": Text(
        "握手で合意する版（成立しなければ 'none'）",
        "The version agreed by handshake ('none' if there is none)",
    ),
    "practice_statement": Text(
        "版 {universe}。C = {c}, S = {s} のとき、handshake / per_request（成立するか）、"
        "requests（要求ごとの方式で送る要求の数）、handshake_version（握手で合意する版、"
        "成立しなければ 'none'）を答えよ。",
        "Versions {universe}. With C = {c}, S = {s}, answer handshake / per_request (is "
        "agreement reached?), requests (how many requests the per-request way sends) and "
        "handshake_version (the version agreed by handshake, 'none' if there is none).",
    ),
    "practice_solution": Text(
        "握手: {handshake}\n要求ごと: {per_request}",
        "Handshake: {handshake}\nPer request: {per_request}",
    ),
}


def _t1(row: str, /, **fields: object) -> Text:
    """Row ``row`` of :data:`WORDS_9_1`, both languages formatted."""
    return _format(WORDS_9_1[row], fields)


def _format(text: Text, fields: dict[str, object]) -> Text:
    # a field that is itself a Text is put in each language's own version
    ja = {k: (v.ja if isinstance(v, Text) else v) for k, v in fields.items()}
    en = {k: (v.en if isinstance(v, Text) else v) for k, v in fields.items()}
    return Text(text.ja.format(**ja), text.en.format(**en))


def _handshake_story(c: Sequence[str], s: Sequence[str]) -> Text:
    n = negotiate_handshake(c, s)
    offer = n.messages[0][1]["params"]["protocolVersion"]
    answer = n.messages[1][1]["result"]["protocolVersion"]
    if offer in s:
        return _t1("hs_offer_in_s", offer=offer)
    if answer in c:
        return _t1("hs_answer_in_c", offer=offer, answer=answer)
    return _t1("hs_disconnect", offer=offer, answer=answer)


def _per_request_story(c: Sequence[str], s: Sequence[str]) -> Text:
    n = negotiate_per_request(c, s)
    common = sorted(set(c) & set(s))
    if not n.ok:
        return _t1("pr_none")
    if n.requests == 1:
        return _t1("pr_one", agreed=n.agreed)
    return _t1("pr_two", first=max(c), common=_fmt(common), agreed=n.agreed)


def _handshake_pointer(c: Sequence[str], s: Sequence[str]) -> Text:
    """Where to look when the handshake answer is wrong; the reasoning is left to a hint."""
    n = negotiate_handshake(c, s)
    answer = n.messages[1][1]["result"]["protocolVersion"]
    if n.ok:
        return _t1("hs_ok_pointer", offer=max(c))
    return _t1("hs_fail_pointer", answer=answer)


def _per_request_pointer(c: Sequence[str], s: Sequence[str]) -> Text:
    """Where to look when the per-request answer is wrong (C ∩ S decides it)."""
    if negotiate_per_request(c, s).ok:
        return _t1("pr_ok_pointer")
    return _t1("pr_fail_pointer")


def _negotiation_parts(prefix: str, c: Sequence[str], s: Sequence[str]) -> list[Part]:
    hs, pr = negotiate_handshake(c, s), negotiate_per_request(c, s)
    label = f"({prefix[:-1]}) " if prefix else ""
    return [
        Part.boolean(
            f"{prefix}handshake",
            _t1("handshake_prompt", label=label),
            hs.ok,
            otherwise=_handshake_pointer(c, s),
        ),
        Part.boolean(
            f"{prefix}per_request",
            _t1("per_request_prompt", label=label),
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
                _t1("requests_b"),
                pr_b.requests,
                mistakes={1: _t1("requests_b_1")},
                otherwise=_t1("requests_b_other"),
            )
        )
    offer = hs_b.messages[0][1]["params"]["protocolVersion"]
    answer = hs_b.messages[1][1]["result"]["protocolVersion"]
    common = sorted(set(cb) & set(sb))
    parts.append(
        Part.choice(
            "why_b",
            _t1("why_b"),
            [
                (_t1("why_b_empty"), not common, _t1("why_b_empty_no", common=_fmt(common))),
                (
                    _t1("why_b_right", offer=offer, answer=answer),
                    offer not in sb and answer not in cb and not hs_b.ok,
                    "",
                ),
                (
                    _t1("why_b_oldest", oldest=common[0]),
                    answer == common[0] and not hs_b.ok,
                    _t1("why_b_oldest_no", answer=answer),
                ),
                (
                    _t1("why_b_interval"),
                    not _non_interval_can_succeed(universe),
                    _t1("why_b_interval_no"),
                ),
            ],
        )
    )
    solution = Text("", "")
    for case, (c, s) in _CASES_9_1.items():
        solution += _t1(
            "solution_case",
            case=case,
            c=_fmt(c),
            s=_fmt(s),
            handshake=_handshake_story(c, s),
            per_request=_per_request_story(c, s),
        )
        solution += "\n"
    solution += _t1("solution_why")
    return Exercise(
        "9.1",
        TITLES["9.1"],
        _t1("statement"),
        parts,
        hints=[_t1("hint_1"), _t1("hint_2"), _t1("hint_3")],
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
            _t1("practice_requests"),
            pr.requests,
            otherwise=_per_request_story(c, s),
        )
    )
    parts.append(
        Part.option(
            "handshake_version",
            _t1("practice_version"),
            hs.agreed or "none",
            [*universe, "none"],
            otherwise=_handshake_story(c, s),
        )
    )
    return Exercise(
        "9.1",
        TITLES["9.1"] + PRACTICE,
        _t1("practice_statement", universe=" < ".join(universe), c=_fmt(c), s=_fmt(s)),
        parts,
        solution_text=_t1(
            "practice_solution",
            handshake=_handshake_story(c, s),
            per_request=_per_request_story(c, s),
        ),
        variable="practice_answer",
        practice=True,
        data={"C": c, "S": s},
    )


# --- 9.2 request ids -------------------------------------------------------------------

_HISTORY_9_2 = (("send", 7), ("reply", 7), ("send", 7))

#: Every text of exercise 9.2 (``{name}`` fields are formatted in).
WORDS_9_2: dict[str, Text] = {
    "rule_modern": Text(
        "未応答の要求どうしで id が重ならないこと",
        "that requests awaiting a reply never share an id",
    ),
    "rule_legacy": Text(
        "セッションの中で id を使い直さないこと", "that no id is used again within a session"
    ),
    "obeys": Text(
        "{version} 版が求めるのは{rule}で、この履歴はそれを守っています。",
        "Version {version} requires {rule}, and this history obeys it.",
    ),
    "reason_outstanding": Text(
        "まだ応答を待っている要求と同じ id", "the id of a request still awaiting its reply"
    ),
    "reason_used": Text("このセッションで一度使った id", "an id already used in this session"),
    "breaks": Text(
        "{n} 番目の出来事で、{reason} {id} の要求を送っています。",
        "Event {n} sends a request with {reason}, {id}.",
    ),
    "violates_legacy": Text(
        "2025-11-25 版の要請に反するか", "Does it break the rule of 2025-11-25?"
    ),
    "violates_modern": Text(
        "2026-07-28 版の要請に反するか", "Does it break the rule of 2026-07-28?"
    ),
    "hypothesis": Text(
        "命題 3.3 の仮定（未応答の要求の上で id が単射）は満たされるか",
        "Does the hypothesis of Proposition 3.3 (ids injective on the outstanding requests) hold?",
    ),
    "hypothesis_yes": Text(
        "どの時点でも未応答の要求の id は互いに異なっています。",
        "At every moment the outstanding requests have different ids.",
    ),
    "hypothesis_no": Text(
        "同じ id の要求が 2 つ同時に応答を待つ時点があります。",
        "At some moment 2 requests with the same id await their replies.",
    ),
    "outstanding_after": Text(
        "2 本目の要求を送った直後、応答を待っている要求はいくつか",
        "Right after request 2 is sent, how many requests await a reply?",
    ),
    "outstanding_2": Text(
        "1 本目の要求にはもう応答が届いています。応答を受け取った要求は表から消えます。",
        "Request 1 has already been answered. A request whose reply arrived leaves the table.",
    ),
    "outstanding_0": Text(
        "2 本目の要求そのものが、まだ応答を待っています。",
        "Request 2 itself is still awaiting its reply.",
    ),
    "why": Text(
        "2 本目の id 7 の要求についての正しい説明はどれか",
        "Which is the right account of request 2, with id 7?",
    ),
    "why_both": Text(
        "どちらの版にも反する。1 本目の要求がまだ応答を待っているから。",
        "It breaks both versions' rules, because request 1 is still awaiting its reply.",
    ),
    "why_both_no": Text(
        "1 本目の要求には、2 本目を送る前に応答が届いています。",
        "Request 1 was answered before request 2 was sent.",
    ),
    "why_legacy": Text(
        "2025-11-25 版にだけ反する。この版はセッション内での id の使い直しを禁じ、"
        "2026-07-28 版は応答待ちの要求との重複だけを禁じるから。",
        "It breaks only the rule of 2025-11-25, because that version forbids using an id again "
        "within a session, while 2026-07-28 forbids only sharing an id with a request awaiting "
        "its reply.",
    ),
    "why_modern": Text(
        "2026-07-28 版にだけ反する。新しい版のほうが id の規則が厳しいから。",
        "It breaks only the rule of 2026-07-28, because the newer version's id rule is stricter.",
    ),
    "why_modern_no": Text(
        "新しい版の要請のほうが弱い（緩い）のです。",
        "The newer version's requirement is the weaker (looser) one.",
    ),
    "why_neither": Text(
        "どちらにも反しない。応答を受け取った id は、どちらの版でも使い直してよいから。",
        "It breaks neither, because an id whose reply has arrived may be used again in both "
        "versions.",
    ),
    "why_neither_no": Text(
        "2025-11-25 版は、応答が届いたあとでも使い直しを禁じています。",
        "Version 2025-11-25 forbids using it again even after its reply has arrived.",
    ),
    "solution": Text(
        "履歴: {history}\n(a) 2025-11-25: {legacy}\n(b) 2026-07-28: {modern}\n"
        "命題 3.3 の仮定: 2 本目を送った直後の未応答の要求は {n} 個だけなので、"
        "id は単射で、応答の対応は一意に決まります。\n理由の選択肢は B です。",
        "History: {history}\n(a) 2025-11-25: {legacy}\n(b) 2026-07-28: {modern}\n"
        "The hypothesis of Proposition 3.3: right after request 2 is sent only {n} request "
        "awaits a reply, so ids are injective and replies match requests uniquely.\n"
        "The right choice for the reason is B.",
    ),
    "statement": Text(
        "id 7 の要求を送り、その応答を受け取り、また id 7 の要求を送った。各版の要請に反するか、"
        "命題 3.3 の仮定は満たされるかを答える。",
        "A request with id 7 was sent, its reply received, and a request with id 7 sent again. "
        "Answer whether this breaks each version's rule, and whether the hypothesis of "
        "Proposition 3.3 holds.",
    ),
    "hint_1": Text(
        "2 つの版で禁じていることが違います。「以前に使った id」と「応答待ちの要求の id」です。",
        "The 2 versions forbid different things: 'an id used before' and 'the id of a request "
        "awaiting its reply'.",
    ),
    "hint_2": Text(
        "2 本目を送る時点で、応答を待っている要求は何本ありますか。",
        "When request 2 is sent, how many requests are awaiting a reply?",
    ),
    "hint_3": Text(
        "id_violations(history, version) と outstanding_is_injective(history) で確かめられます。",
        "id_violations(history, version) and outstanding_is_injective(history) check it.",
    ),
    "practice_statement": Text(
        "送り手の履歴: {history}。violates_2025_11_25 / violates_2026_07_28 / hypothesis_holds"
        "（True か False）を答えよ。",
        "The sender's history: {history}. Answer violates_2025_11_25 / violates_2026_07_28 / "
        "hypothesis_holds (True or False).",
    ),
    "practice_solution": Text(
        "2025-11-25: {legacy}\n2026-07-28: {modern}", "2025-11-25: {legacy}\n2026-07-28: {modern}"
    ),
}


def _t2(row: str, /, **fields: object) -> Text:
    """Row ``row`` of :data:`WORDS_9_2`, both languages formatted."""
    return _format(WORDS_9_2[row], fields)


def _violation_story(history: Sequence[tuple[str, int]], version: str) -> Text:
    found = id_violations(history, version)
    if not found:
        rule = _t2("rule_modern") if version == MODERN else _t2("rule_legacy")
        return _t2("obeys", version=version, rule=rule)
    first = found[0]
    # A send that also breaks the 2026-07-28 rule collides with an outstanding request.
    outstanding = bool(id_violations(history[: first.index + 1], MODERN))
    reason = _t2("reason_outstanding") if outstanding else _t2("reason_used")
    return _t2("breaks", n=first.index + 1, reason=reason, id=repr(first.id))


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
            _t2("violates_legacy"),
            bool(id_violations(history, LEGACY)),
            otherwise=_violation_story(history, LEGACY),
        ),
        Part.boolean(
            "violates_2026_07_28",
            _t2("violates_modern"),
            bool(id_violations(history, MODERN)),
            otherwise=_violation_story(history, MODERN),
        ),
        Part.boolean(
            "hypothesis_holds",
            _t2("hypothesis"),
            injective,
            otherwise=_t2("hypothesis_yes") if injective else _t2("hypothesis_no"),
        ),
    ]


def _build_9_2() -> Exercise:
    h = list(_HISTORY_9_2)
    legacy, modern = bool(id_violations(h, LEGACY)), bool(id_violations(h, MODERN))
    parts = _id_parts(h)
    parts.append(
        Part.integer(
            "outstanding_after",
            _t2("outstanding_after"),
            _outstanding_after(h),
            mistakes={2: _t2("outstanding_2"), 0: _t2("outstanding_0")},
        )
    )
    parts.append(
        Part.choice(
            "why",
            _t2("why"),
            [
                (_t2("why_both"), legacy and modern, _t2("why_both_no")),
                (_t2("why_legacy"), legacy and not modern, ""),
                (_t2("why_modern"), modern and not legacy, _t2("why_modern_no")),
                (_t2("why_neither"), not legacy and not modern, _t2("why_neither_no")),
            ],
        )
    )
    solution = _t2(
        "solution",
        history=h,
        legacy=_violation_story(h, LEGACY),
        modern=_violation_story(h, MODERN),
        n=_outstanding_after(h),
    )
    return Exercise(
        "9.2",
        TITLES["9.2"],
        _t2("statement"),
        parts,
        hints=[_t2("hint_1"), _t2("hint_2"), _t2("hint_3")],
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
        TITLES["9.2"] + PRACTICE,
        _t2("practice_statement", history=history),
        _id_parts(history),
        solution_text=_t2(
            "practice_solution",
            legacy=_violation_story(history, LEGACY),
            modern=_violation_story(history, MODERN),
        ),
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
