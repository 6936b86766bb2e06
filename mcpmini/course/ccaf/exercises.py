"""Exercise C.1 of the CCA-F track: two weather tools whose descriptions must route.

The grade is computed by the runtime the track teaches:

* the two docstrings become tool descriptions of a real server and are listed over an
  in-memory client (:mod:`.weather`);
* every request of :data:`~.weather.C1_REQUESTS` (near-misses among them) is routed over
  that list by :func:`mcpmini.agent.route`, the description-based router of CCA-F 2.1; a
  miss says which words counted for each tool (:mod:`.explain`);
* each description must draw a boundary the router reads (a sentence opening "Not for" /
  "Do not use" that names the other tool) and name its inputs;
* the ``.mcp.json`` goes through :func:`mcpmini.config.load_mcp_json`, and the API key
  must come from ``${WEATHER_API_KEY}``.

:func:`practice_ccaf` draws unseen requests from :data:`~.weather.C1_POOL` (the same
descriptions must route them too). Every prompt, message and hint is a
:class:`~mcpmini.course.language.Text`, spoken in the learner's language when graded.

Rules of this module: the grade never runs learner code (answers are text and plain JSON,
as the class grader reads them back), and it never raises into a notebook.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...agent import route
from ...config import load_mcp_json
from ...errors import ConfigError
from ...mcp import docstring_parts
from ..grading import Exercise, Kind, Part, PartResult, Status
from ..language import Text, Words, say
from .explain import explain
from .weather import (
    C1_KEY,
    C1_POOL,
    C1_REQUESTS,
    CURRENT,
    HISTORY,
    KEY_VARIABLE,
    OTHER,
    PARAMETERS,
    SERVER,
    TOOLS,
    Unreadable,
    blank,
    description,
    listed_tools,
)

__all__ = [
    "CCAF_IDS",
    "TITLES",
    "RoutingExercise",
    "build_ccaf",
    "practice_ccaf",
]

CCAF_IDS = ("C.1",)
TITLES: dict[str, Text] = {
    "C.1": Text("天気ツールの説明文と振り分け", "Weather tool descriptions and routing")
}

#: A judge's verdict: ``None`` (not attempted) or ``(correct, why)``.
Verdict = tuple[bool, Text] | None
_RIGHT = Text("", "")


@dataclass(frozen=True)
class _Judged(Part):
    """A part graded by ``judge(answer)`` on the whole answer: ``(correct, message)``.

    ``judge`` returns ``None`` when the part is not attempted and raises :class:`Unreadable`
    for a value it cannot read; :meth:`grade` turns both into a result and never raises.
    """

    judge: Callable[[Any], Verdict] = field(default=lambda _a: None)

    def grade(self, answer: Any) -> PartResult:
        try:
            verdict = self.judge(answer)
        except Unreadable as exc:
            return PartResult(self.key, Status.INCORRECT, say(exc.text), 0, self.points)
        except Exception as exc:
            kind = type(exc).__name__
            message = Text(
                f"この答えは読めませんでした（{kind}）。",
                f"This answer could not be read ({kind}).",
            )
            return PartResult(self.key, Status.INCORRECT, say(message), 0, self.points)
        if verdict is None:
            blank_text = Text("未回答です。", "Not answered yet.")
            return PartResult(self.key, Status.NOT_ATTEMPTED, say(blank_text), 0, self.points)
        right, message = verdict
        if right:
            return PartResult(self.key, Status.CORRECT, "", self.points, self.points)
        return PartResult(self.key, Status.INCORRECT, say(message), 0, self.points)


def _judged(key: str, prompt: Words, judge: Callable[[Any], Verdict]) -> Part:
    return _Judged(key, prompt, Kind.NAMES, None, judge=judge)


def _routing_judge(request: str, expected: str) -> Callable[[Any], Verdict]:
    def judge(answer: Any) -> Verdict:
        texts = [description(answer, t) for t in TOOLS]
        if all(t is None for t in texts):
            return None
        return explain(request, expected, listed_tools(answer))

    return judge


_OPENER = re.compile(r"^(not for|do not use|don't use|never use)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


def _boundary_judge(tool: str) -> Callable[[Any], Verdict]:
    other = OTHER[tool]

    def judge(answer: Any) -> Verdict:
        text = description(answer, tool)
        if text is None:
            return None
        if not re.search(r"[A-Za-z]{3,}", text):
            return False, Text(
                "説明文が日本語だけです。このルーターは依頼と説明文の語の一致で選ぶので、"
                "依頼と同じ英語で書いてください（都市名の例は日本語を混ぜてもかまいません）。",
                "The description has no English. This router chooses by the words a request "
                "shares with a description, so write it in English like the requests (city "
                "examples may mix in Japanese).",
            )
        sentences = [s.strip() for s in _SENTENCES.split(docstring_parts(text)[0]) if s.strip()]
        fences = [s for s in sentences if _OPENER.match(s)]
        if any(other in s for s in fences):
            return True, _RIGHT
        loose = [s for s in sentences if other in s and not _OPENER.match(s)]
        if loose:
            return False, Text(
                f"「{loose[0]}」は {other} を名指ししていますが、境界として読まれません。"
                f"この文の語はかえって {tool} の得点になります。境界の一文は Not for / "
                f"Do not use で始め、代わりに {other} を使うと書きます。",
                f"{loose[0]!r} names {other} but is not read as a boundary: its words count "
                f"for {tool} instead. Open the boundary sentence with Not for / Do not use "
                f"and say to use {other} instead.",
            )
        if fences:
            return False, Text(
                f"境界の一文はありますが、代わりに使う {other} を名指ししていません。",
                f"There is a boundary sentence, but it does not name {other}, the tool to "
                "use instead.",
            )
        return False, Text(
            f"いつ使わないか（境界）の一文がありません。「Not for …: use {other}.」の形で、"
            f"{other} に回す依頼を書いてください。",
            f"There is no sentence saying when not to use it (the boundary). Write the "
            f"requests that belong to {other} as 'Not for …: use {other}.'",
        )

    return judge


def _inputs_judge(tool: str) -> Callable[[Any], Verdict]:
    def judge(answer: Any) -> Verdict:
        text = description(answer, tool)
        if text is None:
            return None
        named = set(re.findall(r"[a-z0-9_]+", text.lower()))
        missing = ", ".join(p for p in PARAMETERS[tool] if p not in named)
        if not missing:
            return True, _RIGHT
        return False, Text(
            f"入力 {missing} が説明文に書かれていません。"
            "入力の名前と形（例: 都市名、YYYY-MM-DD の日付）を書きます。",
            f"The description does not mention the input {missing}. Write each input's name "
            "and form (for example a city name, a date as YYYY-MM-DD).",
        )

    return judge


def _weather_entry(answer: Any) -> Mapping[str, Any] | None:
    """The ``weather`` entry of the answer's ``.mcp.json`` (``None``: not attempted).

    Raises :class:`Unreadable` with what is wrong when there is no usable entry."""
    config = answer.get("mcp_json") if isinstance(answer, Mapping) else None
    if blank(config):
        return None
    if not isinstance(config, Mapping):
        raise Unreadable(
            Text(
                ".mcp.json は dict（JSON のオブジェクト）で書いてください。",
                "Write the .mcp.json as a dict (a JSON object).",
            )
        )
    try:
        loaded = load_mcp_json(config, environ={KEY_VARIABLE: "set-by-the-learner"})
    except ConfigError as exc:
        raise Unreadable(
            Text(f".mcp.json として読めません: {exc}", f"This is not a readable .mcp.json: {exc}")
        ) from None
    errors = [p for p in loaded.problems if p.severity.value == "error"]
    if errors:
        where = f"{errors[0].path}: {errors[0].message}"
        raise Unreadable(Text(where, where))
    servers = config.get("mcpServers", {})
    if SERVER not in loaded.servers:
        names = ", ".join(sorted(servers))
        raise Unreadable(
            Text(
                f"mcpServers に {SERVER} という名前のサーバがありません"
                f"（いまは {names or 'なし'}）。"
                f"名前は Claude Code でのツール名 mcp__{SERVER}__get_weather の一部になります。",
                f"mcpServers has no server named {SERVER} (it has {names or 'none'}). The "
                f"name becomes part of the tool's name in Claude Code, mcp__{SERVER}__get_weather.",
            )
        )
    entry: Mapping[str, Any] = servers[SERVER]
    return entry


def _server_judge(answer: Any) -> Verdict:
    entry = _weather_entry(answer)
    if entry is None:
        return None
    if entry.get("type", "stdio") != "stdio" or not entry.get("command"):
        return False, Text(
            "stdio のサーバとして command（と args）で起動するように書いてください。",
            "Start it as a stdio server, with command (and args).",
        )
    return True, _RIGHT


def _secret_judge(answer: Any) -> Verdict:
    entry = _weather_entry(answer)
    if entry is None:
        return None
    env = entry.get("env")
    value = env.get(KEY_VARIABLE) if isinstance(env, Mapping) else None
    if not isinstance(value, str):
        return False, Text(
            f"サーバは API キーを環境変数 {KEY_VARIABLE} から読みます。env に渡してください。",
            f"The server reads its API key from the environment variable {KEY_VARIABLE}: "
            "pass it in env.",
        )
    if "${" + KEY_VARIABLE not in value:
        return False, Text(
            "キーを直に書くと、.mcp.json と一緒にチーム全員へ配られ、git の履歴にも残ります。"
            f"値は ${{{KEY_VARIABLE}}} と書き、各自の環境から展開させます。",
            "A key written into the file goes to the whole team with the .mcp.json and stays "
            f"in the git history. Write the value as ${{{KEY_VARIABLE}}} and let each "
            "person's environment fill it in.",
        )
    return True, _RIGHT


def _routing_parts(requests: Sequence[tuple[str, str]]) -> list[Part]:
    return [
        _judged(f"routing.{i:02d}", f"{text!r} → {tool}", _routing_judge(text, tool))
        for i, (text, tool) in enumerate(requests, start=1)
    ]


@dataclass
class RoutingExercise(Exercise):
    """An :class:`~mcpmini.course.Exercise` whose answer is two docstrings and a ``.mcp.json``
    (not one value per part): ``template`` and ``answer_key`` give that shape."""

    key_answer: Mapping[str, Any] = field(default_factory=dict)

    def template(self) -> dict[str, Any]:
        return {CURRENT: None, HISTORY: None, "mcp_json": None}

    def answer_key(self) -> dict[str, Any]:
        return dict(self.key_answer)

    def shown(self, part: Part, answer: Any) -> tuple[bool, Any]:
        """What each part judged (no part has a value of its own in this answer): the tool's
        docstring for its boundary and inputs parts, the tool the router chose for a routing
        part, the ``weather`` entry of the ``.mcp.json`` (its ``env`` for the secret part)."""
        if not isinstance(answer, Mapping):
            return False, None
        head, _, tail = part.key.partition(".")
        if head in TOOLS:
            value = answer.get(head)
            return not blank(value), value
        if head == "routing":
            request, _tool = self.data["requests"][int(tail) - 1]
            try:
                if all(description(answer, t) is None for t in TOOLS):
                    return False, None
                chosen = route(request, listed_tools(answer)).tool
            except Unreadable:
                return False, None
            return True, chosen or say(Text("（どのツールも選ばれない）", "(no tool chosen)"))
        config = answer.get("mcp_json")
        if blank(config):
            return False, None
        servers = config.get("mcpServers") if isinstance(config, Mapping) else None
        entry = servers.get(SERVER) if isinstance(servers, Mapping) else None
        if not isinstance(entry, Mapping):
            return True, config
        return True, entry.get("env", entry) if tail == "secret" else entry

    def describe(self) -> None:
        head = Text(
            f"演習 {self.id} {say(self.title)}（{self.max_score} 点）: {self.variable} の各キー",
            f"Exercise {self.id} {say(self.title)} ({self.max_score} points): the keys of "
            f"{self.variable}",
        )
        rows = [
            head,
            Text(
                f"  {CURRENT}: get_weather の docstring（説明文、文字列）",
                f"  {CURRENT}: the docstring of get_weather (its description, a string)",
            ),
            Text(
                f"  {HISTORY}: get_weather_history の docstring（説明文、文字列）",
                f"  {HISTORY}: the docstring of get_weather_history (its description, a string)",
            ),
            Text(
                "  mcp_json: サーバを登録する .mcp.json（dict）",
                "  mcp_json: the .mcp.json that registers the server (a dict)",
            ),
            Text("採点する部分:", "Graded parts:"),
        ]
        for row in rows:
            print(say(row))
        for part in self.parts:
            print(f"  {part.key}: {say(part.prompt)}")


_HINTS = (
    Text(
        "ルーターは依頼と「名前＋説明文」に共通する語を数えます。✗ の行に、各ツールで数えられた語"
        "（+語 / -語）が出ています。",
        "The router counts the words a request shares with each tool's name and description. "
        "The ✗ lines show the words counted for each tool (+word / -word).",
    ),
    Text(
        "Not for / Do not use で始まる文（境界の一文）の語は、そのツールの減点になります。"
        "過去を表す語（yesterday, last week, days ago …）を get_weather の境界の一文に"
        "入れましょう。",
        "The words of a sentence opening with Not for / Do not use (the boundary) count against "
        "that tool. Put the past-time words (yesterday, last week, days ago …) into "
        "get_weather's boundary sentence.",
    ),
    Text(
        "片方の説明文にだけ都市名の例（Tokyo など）を書くと、その都市の依頼がそちらに寄ります。"
        "例は両方にそろえるか、どちらにも書かないようにします。",
        "A city example (Tokyo, say) in one description only pulls that city's requests to "
        "that tool. Give both descriptions the same examples, or none.",
    ),
)


def _statement(requests: Sequence[tuple[str, str]]) -> Text:
    rows = "\n".join(f"  {text!r} → {tool}" for text, tool in requests)
    return Text(
        f"weather サーバの {CURRENT}(city) と {HISTORY}(city, date) の docstring を書き、"
        f"次の依頼が正しいツールに振り分けられるようにします。\n{rows}",
        f"Write the docstrings of the weather server's {CURRENT}(city) and {HISTORY}(city, "
        f"date) so that each of these requests goes to the right tool.\n{rows}",
    )


def _solution() -> Text:
    tools = listed_tools(C1_KEY)
    lines = []
    for t in tools:
        lines.append(f"--- {t['name']}\n{t['description']}")
    scores = [
        f"  {text!r} → {(d := route(text, tools)).tool}  {d.scores}" for text, _want in C1_REQUESTS
    ]
    body = "\n".join(lines)
    rows = "\n".join(scores)
    return Text(
        f"説明文の一例（目的・入力・使う場面・境界の 4 つ）:\n{body}\n各依頼の得点:\n{rows}",
        f"One way to write them (purpose, inputs, when to use, the boundary):\n{body}\n"
        f"Each request's scores:\n{rows}",
    )


def _build_c1() -> Exercise:
    parts: list[Part] = [
        _judged(
            f"{tool}.boundary",
            Text(
                f"{tool} の説明文に、ルーターが読める境界の一文がある",
                f"{tool}'s description has a boundary sentence the router reads",
            ),
            _boundary_judge(tool),
        )
        for tool in TOOLS
    ]
    parts += [
        _judged(
            f"{tool}.inputs",
            Text(
                f"{tool} の説明文が入力（{', '.join(PARAMETERS[tool])}）を書いている",
                f"{tool}'s description names its inputs ({', '.join(PARAMETERS[tool])})",
            ),
            _inputs_judge(tool),
        )
        for tool in TOOLS
    ]
    parts += _routing_parts(C1_REQUESTS)
    parts += [
        _judged(
            "mcp_json.server",
            Text(
                f".mcp.json に stdio のサーバ {SERVER} が登録されている",
                f"the .mcp.json registers the stdio server {SERVER}",
            ),
            _server_judge,
        ),
        _judged(
            "mcp_json.secret",
            Text(
                f"API キーは ${{{KEY_VARIABLE}}} で渡し、直書きしない",
                f"the API key comes through ${{{KEY_VARIABLE}}}, never written in",
            ),
            _secret_judge,
        ),
    ]
    return RoutingExercise(
        "C.1",
        TITLES["C.1"],
        _statement(C1_REQUESTS),
        parts,
        hints=_HINTS,
        solution_text=_solution,
        data={"requests": C1_REQUESTS, "parameters": PARAMETERS},
        key_answer=C1_KEY,
    )


_BUILDERS = {"C.1": _build_c1}


def build_ccaf(exercise_id: str) -> Exercise:
    """Build exercise ``exercise_id`` (``"C.1"``). Raises ``KeyError`` otherwise."""
    return _BUILDERS[exercise_id]()


def practice_ccaf(exercise_id: str, rng: random.Random, size: int = 8) -> Exercise:
    """A "more practice" instance of ``exercise_id``: ``size`` requests of
    :data:`~.weather.C1_POOL` (half for each tool) that the main exercise never grades; the
    answer variable is ``practice_answer``, the same docstrings. Raises ``KeyError`` for an
    unknown id."""
    if exercise_id not in _BUILDERS:
        raise KeyError(exercise_id)
    half = size // 2
    picked = [
        *rng.sample([r for r in C1_POOL if r[1] == CURRENT], half),
        *rng.sample([r for r in C1_POOL if r[1] == HISTORY], size - half),
    ]
    rng.shuffle(picked)
    return RoutingExercise(
        exercise_id,
        TITLES[exercise_id] + Text("（練習）", " (practice)"),
        _statement(picked),
        _routing_parts(picked),
        hints=_HINTS,
        variable="practice_answer",
        practice=True,
        data={"requests": tuple(picked)},
        key_answer=C1_KEY,
    )
