"""Why a request of exercise C.1 went where it went, in the learner's language.

:func:`explain` routes one request with :func:`mcpmini.agent.route` over the listed tools and,
on a miss, says which tool was chosen, the words that counted for and against each tool (as
the router counts them) and what to change — fence a word off in the wrong tool's boundary
sentence, or, for a word both tools' requests use (a city, "weather"), keep the two
descriptions alike and add the request's time word instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...agent import route
from ...agent.models import description_words, words
from ..language import Text
from .weather import C1_POOL, C1_REQUESTS, CURRENT, HISTORY, PURPOSE, TOOLS

__all__ = ["explain"]

_LIST = Text("、", ", ")


def _counted(request: str, tool: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The request's words counting for and against ``tool`` (as :func:`route` counts)."""
    asked = words(request)
    for_, against = description_words(str(tool.get("description", "")))
    for_ |= words(str(tool["name"]).replace("_", " "))
    return sorted(asked & for_), sorted(asked & (against - for_))


def _score_text(request: str, tool: Mapping[str, Any], score: int) -> Text:
    plus, minus = _counted(request, tool)
    bits = " ".join([f"+{w}" for w in plus] + [f"-{w}" for w in minus])
    name = tool["name"]
    return Text(
        f"{name} {score} 点（{bits or '重なる語なし'}）",
        f"{name} {score} points ({bits or 'no shared word'})",
    )


def _shared_words() -> frozenset[str]:
    """Words that occur in requests for both tools (cities, "weather", "temperature"…):
    fencing one of them off in a boundary would misroute the other tool's requests."""
    by_tool: dict[str, set[str]] = {t: set() for t in TOOLS}
    for text, tool in C1_REQUESTS + C1_POOL:
        by_tool[tool] |= words(text)
    return frozenset(by_tool[CURRENT] & by_tool[HISTORY])


_SHARED = _shared_words()


def _join(texts: Sequence[Text]) -> Text:
    return Text(_LIST.ja.join(t.ja for t in texts), _LIST.en.join(t.en for t in texts))


def explain(request: str, expected: str, tools: Sequence[Mapping[str, Any]]) -> tuple[bool, Text]:
    """``(routed right, why)`` for one request over ``tools``: ``why`` says which tool was
    chosen, the words that counted for each tool, and what to change (empty when right)."""
    decision = route(request, tools)
    if decision.tool == expected:
        return True, Text("", "")
    scores = _join([_score_text(request, t, decision.scores[t["name"]]) for t in tools])
    want = PURPOSE[expected]
    head = Text(
        f"「{request}」は{want.ja}の依頼（正しくは {expected}）",
        f"{request!r} asks for {want.en} (the right tool is {expected})",
    )
    if decision.tool is None:
        return False, Text(
            f"{head.ja}ですが、どのツールも 0 点以下で選ばれませんでした（{scores.ja}）。"
            f"依頼に出てくる語を {expected} の説明文に書いてください。",
            f"{head.en}, but every tool scored 0 or less and none was chosen ({scores.en}). "
            f"Write the request's words into the description of {expected}.",
        )
    wrong = decision.tool
    extra, _ = _counted(request, next(t for t in tools if t["name"] == wrong))
    mine, _ = _counted(request, next(t for t in tools if t["name"] == expected))
    pulled = [w for w in extra if w not in mine]
    if len(decision.tied) > 1:
        why = Text(
            f"同点なので、一覧で先の {wrong} が選ばれました",
            f"the scores tie, so {wrong}, listed first, was chosen",
        )
    else:
        why = Text(f"{wrong} のほうが点が高くなりました", f"{wrong} scored higher")
    shared = ", ".join(w for w in pulled if w in _SHARED)
    fence = ", ".join(w for w in pulled if w not in _SHARED)
    if fence:
        tip = Text(
            f"{wrong} の説明文の境界の一文（Not for …）に {fence} を入れると、"
            f"その語は {wrong} の減点になります",
            f"put {fence} into the boundary sentence (Not for …) of {wrong}'s description, "
            f"and the word counts against {wrong}",
        )
    elif shared:
        tip = Text(
            f"{shared} はどちらのツールの依頼にも出る語です。片方の説明文にだけ書かず"
            f"両方にそろえるか、{expected} の説明文にこの依頼の時を表す語を書き足してください",
            f"{shared} occurs in requests for both tools. Do not write it into one "
            f"description only: make the two alike, or add this request's time word to the "
            f"description of {expected}",
        )
    else:
        tip = Text(
            f"{expected} の説明文に、この依頼の時を表す語を書き足してください",
            f"add this request's time word to the description of {expected}",
        )
    return False, Text(
        f"{head.ja}ですが {wrong} に行きました。{scores.ja}。{why.ja}。{tip.ja}。",
        f"{head.en}, but went to {wrong}. {scores.en}. {why.en.capitalize()}; {tip.en}.",
    )
