"""Exercise C.1 of the CCA-F track: two weather tools whose descriptions must route.

The learner writes the docstrings of ``get_weather`` (the weather now) and
``get_weather_history`` (past days) and the ``.mcp.json`` entry that registers the server.
The grade is computed by the runtime the track teaches:

* the two docstrings become tool descriptions through a real :class:`~mcpmini.mcp.Server`
  (``docstring_parts``, as the decorator does), are listed over an in-memory
  :class:`~mcpmini.mcp.Client` and cut as Claude Code cuts them (``sent_description``);
* every request of :data:`C1_REQUESTS` (near-misses among them) is routed over that list
  by :func:`mcpmini.agent.route`, the description-based router of CCA-F 2.1; a miss says
  which words counted for each tool, in Japanese;
* each description must draw a boundary the router reads (a sentence opening "Not for" /
  "Do not use" that names the other tool) and name its inputs;
* the ``.mcp.json`` goes through :func:`mcpmini.config.load_mcp_json`, and the API key
  must come from ``${WEATHER_API_KEY}``.

:func:`practice_ccaf` draws unseen requests from :data:`C1_POOL` (the same descriptions
must route them too); :data:`CHECKLIST` and :func:`checklist_lines` are the chapter's
closing self-check, each item backed by a check of this exercise or the quiz.

Rules of this module: the grade never runs learner code (answers are text and plain JSON,
as the class grader reads them back), and it never raises into a notebook.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...agent import AgentOptions, RouterModel, route, run
from ...agent.models import description_words, words
from ...config import load_mcp_json
from ...config.inventory import sent_description
from ...errors import ConfigError
from ...mcp import Client, Server, docstring_parts, memory_pair
from ..grading import Exercise, Kind, Part, PartResult, Status
from ..progress import load_progress, progress_path

__all__ = [
    "C1_KEY",
    "C1_POOL",
    "C1_REQUESTS",
    "CCAF_IDS",
    "CHECKLIST",
    "TITLES",
    "ChecklistItem",
    "RoutingExercise",
    "ask",
    "build_ccaf",
    "checklist_gaps",
    "checklist_lines",
    "listed_tools",
    "practice_ccaf",
    "quiz_tasks",
    "weather_server",
]

CCAF_IDS = ("C.1",)
TITLES = {"C.1": "天気ツールの説明文と振り分け"}

CURRENT, HISTORY = "get_weather", "get_weather_history"
TOOLS = (CURRENT, HISTORY)
#: The inputs each tool takes (its function signature); a description names each one.
PARAMETERS: dict[str, tuple[str, ...]] = {CURRENT: ("city",), HISTORY: ("city", "date")}
SERVER, KEY_VARIABLE = "weather", "WEATHER_API_KEY"
_OTHER = {CURRENT: HISTORY, HISTORY: CURRENT}
_JA = {CURRENT: "いまの天気", HISTORY: "過去の天気"}

#: The graded requests: the article's two checks first, then near-misses (a request that
#: shares a word with the wrong tool, or uses the other tool's kind of time word).
C1_REQUESTS: tuple[tuple[str, str], ...] = (
    ("what is the weather in Tokyo now", CURRENT),
    ("what was the weather in Tokyo yesterday", HISTORY),
    ("is it snowing in Sapporo right now", CURRENT),
    ("current temperature in Naha", CURRENT),
    ("how windy is it in Kobe at the moment", CURRENT),
    ("what is the weather like in Osaka today", CURRENT),
    ("what was the temperature in Nagoya yesterday", HISTORY),
    ("how much snow fell in Sapporo last week", HISTORY),
    ("was it windy in Fukuoka two days ago", HISTORY),
    ("show the weather of the past 7 days in Sendai", HISTORY),
)

#: Requests for "more practice": never graded in the main exercise.
C1_POOL: tuple[tuple[str, str], ...] = (
    ("weather in Kyoto now", CURRENT),
    ("is it sunny in Hiroshima right now", CURRENT),
    ("current weather in Yokohama", CURRENT),
    ("what is the temperature in Kobe today", CURRENT),
    ("how cold is it in Sapporo at the moment", CURRENT),
    ("is it raining in Osaka now", CURRENT),
    ("wind in Naha right now", CURRENT),
    ("today's weather in Fukuoka", CURRENT),
    ("weather in Kyoto yesterday", HISTORY),
    ("was it sunny in Hiroshima last week", HISTORY),
    ("the temperature in Yokohama three days ago", HISTORY),
    ("how much rain fell in Osaka yesterday", HISTORY),
    ("weather of the past days in Kobe", HISTORY),
    ("was it cold in Sendai last week", HISTORY),
    ("snow in Sapporo on a past date", HISTORY),
    ("wind in Naha two days ago", HISTORY),
)

_CURRENT_DOC = """\
Current weather for one city right now: condition (sunny, rain, snow), temperature and wind.
Input: city, the city name in English or Japanese (Tokyo, 大阪).
Use for now, today, current or at the moment.
Not for past days (yesterday, last week, days ago, a past date): use get_weather_history.
"""
_HISTORY_DOC = """\
Weather of past days for one city: condition (sunny, rain, snow), temperature and wind.
Input: city (Tokyo, 大阪) and date, a past day as YYYY-MM-DD.
Use for yesterday, last week, days ago or a past date.
Not for the current weather (now, today, at the moment): use get_weather.
"""
#: A full-mark answer (the solution notebook writes the same by hand).
C1_KEY: dict[str, Any] = {
    CURRENT: _CURRENT_DOC,
    HISTORY: _HISTORY_DOC,
    "mcp_json": {
        "mcpServers": {
            SERVER: {
                "command": "python",
                "args": ["servers/weather.py"],
                "env": {KEY_VARIABLE: "${" + KEY_VARIABLE + "}"},
            }
        }
    },
}


# --- reading the answer -----------------------------------------------------------------


class _Unreadable(ValueError):
    """A value that is not a description; the message says what to write instead."""


def _blank(value: Any) -> bool:
    return value is None or value is Ellipsis or (isinstance(value, str) and not value.strip())


def _description(answer: Any, tool: str) -> str | None:
    """The description ``answer`` gives ``tool``: ``None`` when blank. Raises ``_Unreadable``."""
    value = answer.get(tool) if isinstance(answer, Mapping) else None
    if _blank(value):
        return None
    if isinstance(value, str):
        return value
    if callable(value) or (isinstance(value, Mapping) and "__unreadable__" in value):
        raise _Unreadable(
            f"関数そのものではなく、その docstring（{tool}.__doc__）を入れてください。"
        )
    raise _Unreadable(f"{tool} の説明文は文字列で書いてください（いまは {type(value).__name__}）。")


def _weather_now(city: str) -> str:
    return f"{city}: sunny, 28 C"


def _weather_past(city: str, date: str) -> str:
    return f"{city} on {date}: rain, 24 C"


def weather_server(answer: Mapping[str, Any]) -> Server:
    """A weather server whose two tools carry ``answer``'s docstrings as their descriptions
    (cut as Claude Code sends them). Raises ``ValueError`` when a value is not a string."""
    server = Server(SERVER)
    for tool, fn in ((CURRENT, _weather_now), (HISTORY, _weather_past)):
        text = _description(answer, tool) or ""
        server.add_tool(fn, tool, sent_description(docstring_parts(text)[0]))
    return server


def ask(answer: Mapping[str, Any], request: str) -> tuple[str | None, str]:
    """Send ``request`` through the agent loop to the server built on ``answer``: the offline
    :class:`~mcpmini.agent.RouterModel` picks a tool from the listed descriptions, the loop
    calls it over MCP. Returns ``(tool called or None, the final text)``."""
    names = {f"mcp__{SERVER}__{t}": t for t in TOOLS}
    model = RouterModel(
        {f"mcp__{SERVER}__{CURRENT}": {"city": "Tokyo"}},
        default_input={"city": "Tokyo", "date": "2026-08-01"},
    )
    options = AgentOptions(
        mcp_servers={SERVER: weather_server(answer)}, allowed_tools=[f"mcp__{SERVER}"]
    )
    result = run(request, model, options)
    called = [
        b["name"]
        for m in result.messages
        if m["role"] == "assistant"
        for b in m["content"]
        if b.get("type") == "tool_use"
    ]
    return (names.get(called[0], called[0]) if called else None), result.final_text


def listed_tools(answer: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The tool definitions a client lists from a server built on ``answer``'s docstrings.

    Each docstring becomes its tool's description as the ``@server.tool()`` decorator makes
    it (``docstring_parts``), the list is read with ``tools/list`` over an in-memory client,
    and each description is cut as Claude Code sends it. A blank docstring gives an empty
    description. Raises ``ValueError`` when a value is not a string.
    """
    with Client(memory_pair(weather_server(answer)), timeout=5) as client:
        client.connect()
        listed = {t["name"]: t for t in client.list_tools()}
    # the article lists get_weather first; a tie goes to the tool listed first
    return [listed[CURRENT], listed[HISTORY]]


# --- why a request went where it went -------------------------------------------------------


def _counted(request: str, tool: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The request's words counting for and against ``tool`` (as :func:`route` counts)."""
    asked = words(request)
    for_, against = description_words(str(tool.get("description", "")))
    for_ |= words(str(tool["name"]).replace("_", " "))
    return sorted(asked & for_), sorted(asked & (against - for_))


def _score_text(request: str, tool: Mapping[str, Any], score: int) -> str:
    plus, minus = _counted(request, tool)
    bits = [f"+{w}" for w in plus] + [f"-{w}" for w in minus]
    return f"{tool['name']} {score} 点（{' '.join(bits) or '重なる語なし'}）"


def _shared_words() -> frozenset[str]:
    """Words that occur in requests for both tools (cities, "weather", "temperature"…):
    fencing one of them off in a boundary would misroute the other tool's requests."""
    by_tool: dict[str, set[str]] = {t: set() for t in TOOLS}
    for text, tool in C1_REQUESTS + C1_POOL:
        by_tool[tool] |= words(text)
    return frozenset(by_tool[CURRENT] & by_tool[HISTORY])


_SHARED = _shared_words()


def explain(request: str, expected: str, tools: Sequence[Mapping[str, Any]]) -> tuple[bool, str]:
    """``(routed right, why)`` for one request over ``tools``: the Japanese message says which
    tool was chosen, the words that counted for each tool, and what to change."""
    decision = route(request, tools)
    if decision.tool == expected:
        return True, ""
    scores = "、".join(_score_text(request, t, decision.scores[t["name"]]) for t in tools)
    head = f"「{request}」は{_JA[expected]}の依頼（正しくは {expected}）"
    if decision.tool is None:
        return False, (
            f"{head}ですが、どのツールも 0 点以下で選ばれませんでした（{scores}）。"
            f"依頼に出てくる語を {expected} の説明文に書いてください。"
        )
    wrong = decision.tool
    extra, _ = _counted(request, next(t for t in tools if t["name"] == wrong))
    mine, _ = _counted(request, next(t for t in tools if t["name"] == expected))
    pulled = [w for w in extra if w not in mine]
    if len(decision.tied) > 1:
        why = f"同点なので、一覧で先の {wrong} が選ばれました"
    else:
        why = f"{wrong} のほうが点が高くなりました"
    shared = [w for w in pulled if w in _SHARED]
    fence = [w for w in pulled if w not in _SHARED]
    if fence:
        tip = (
            f"{wrong} の説明文の境界の一文（Not for …）に {', '.join(fence)} を入れると、"
            f"その語は {wrong} の減点になります"
        )
    elif shared:
        tip = (
            f"{', '.join(shared)} はどちらのツールの依頼にも出る語です。片方の説明文にだけ書かず"
            f"両方にそろえるか、{expected} の説明文にこの依頼の時を表す語を書き足してください"
        )
    else:
        tip = f"{expected} の説明文に、この依頼の時を表す語を書き足してください"
    return False, f"{head}ですが {wrong} に行きました。{scores}。{why}。{tip}。"


# --- the parts ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Judged(Part):
    """A part graded by ``judge(answer)`` on the whole answer: ``(correct, message)``.

    ``judge`` returns ``None`` when the part is not attempted and raises ``_Unreadable``
    for a value it cannot read; :meth:`grade` turns both into a result and never raises.
    """

    judge: Callable[[Any], tuple[bool, str] | None] = field(default=lambda _a: None)

    def grade(self, answer: Any) -> PartResult:
        try:
            verdict = self.judge(answer)
        except _Unreadable as exc:
            return PartResult(self.key, Status.INCORRECT, str(exc), 0, self.points)
        except Exception as exc:
            message = f"この答えは読めませんでした（{type(exc).__name__}）。"
            return PartResult(self.key, Status.INCORRECT, message, 0, self.points)
        if verdict is None:
            return PartResult(self.key, Status.NOT_ATTEMPTED, "未回答です。", 0, self.points)
        right, message = verdict
        if right:
            return PartResult(self.key, Status.CORRECT, "", self.points, self.points)
        return PartResult(self.key, Status.INCORRECT, message, 0, self.points)


def _judged(key: str, prompt: str, judge: Callable[[Any], tuple[bool, str] | None]) -> Part:
    return _Judged(key, prompt, Kind.NAMES, None, judge=judge)


def _routing_judge(request: str, expected: str) -> Callable[[Any], tuple[bool, str] | None]:
    def judge(answer: Any) -> tuple[bool, str] | None:
        texts = [_description(answer, t) for t in TOOLS]
        if all(t is None for t in texts):
            return None
        return explain(request, expected, listed_tools(answer))

    return judge


_OPENER = re.compile(r"^(not for|do not use|don't use|never use)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


def _boundary_judge(tool: str) -> Callable[[Any], tuple[bool, str] | None]:
    other = _OTHER[tool]

    def judge(answer: Any) -> tuple[bool, str] | None:
        text = _description(answer, tool)
        if text is None:
            return None
        if not re.search(r"[A-Za-z]{3,}", text):
            return False, (
                "説明文が日本語だけです。このルーターは依頼と説明文の語の一致で選ぶので、"
                "依頼と同じ英語で書いてください（都市名の例は日本語を混ぜてもかまいません）。"
            )
        sentences = [s.strip() for s in _SENTENCES.split(docstring_parts(text)[0]) if s.strip()]
        fences = [s for s in sentences if _OPENER.match(s)]
        if any(other in s for s in fences):
            return True, ""
        loose = [s for s in sentences if other in s and not _OPENER.match(s)]
        if loose:
            return False, (
                f"「{loose[0]}」は {other} を名指ししていますが、境界として読まれません。"
                f"この文の語はかえって {tool} の得点になります。境界の一文は Not for / "
                f"Do not use で始め、代わりに {other} を使うと書きます。"
            )
        if fences:
            return False, f"境界の一文はありますが、代わりに使う {other} を名指ししていません。"
        return False, (
            f"いつ使わないか（境界）の一文がありません。「Not for …: use {other}.」の形で、"
            f"{other} に回す依頼を書いてください。"
        )

    return judge


def _inputs_judge(tool: str) -> Callable[[Any], tuple[bool, str] | None]:
    def judge(answer: Any) -> tuple[bool, str] | None:
        text = _description(answer, tool)
        if text is None:
            return None
        named = set(re.findall(r"[a-z0-9_]+", text.lower()))
        missing = [p for p in PARAMETERS[tool] if p not in named]
        if not missing:
            return True, ""
        return False, (
            f"入力 {', '.join(missing)} が説明文に書かれていません。"
            "入力の名前と形（例: 都市名、YYYY-MM-DD の日付）を書きます。"
        )

    return judge


def _weather_entry(answer: Any) -> Mapping[str, Any] | None:
    """The ``weather`` entry of the answer's ``.mcp.json`` (``None``: not attempted).

    Raises ``_Unreadable`` with what is wrong when there is no usable entry."""
    config = answer.get("mcp_json") if isinstance(answer, Mapping) else None
    if _blank(config):
        return None
    if not isinstance(config, Mapping):
        raise _Unreadable(".mcp.json は dict（JSON のオブジェクト）で書いてください。")
    try:
        loaded = load_mcp_json(config, environ={KEY_VARIABLE: "set-by-the-learner"})
    except ConfigError as exc:
        raise _Unreadable(f".mcp.json として読めません: {exc}") from None
    errors = [p for p in loaded.problems if p.severity.value == "error"]
    if errors:
        raise _Unreadable(f"{errors[0].path}: {errors[0].message}")
    servers = config.get("mcpServers", {})
    if SERVER not in loaded.servers:
        names = ", ".join(sorted(servers)) or "なし"
        raise _Unreadable(
            f"mcpServers に {SERVER} という名前のサーバがありません（いまは {names}）。"
            f"名前は Claude Code でのツール名 mcp__{SERVER}__get_weather の一部になります。"
        )
    return servers[SERVER]


def _server_judge(answer: Any) -> tuple[bool, str] | None:
    entry = _weather_entry(answer)
    if entry is None:
        return None
    if entry.get("type", "stdio") != "stdio" or not entry.get("command"):
        return False, "stdio のサーバとして command（と args）で起動するように書いてください。"
    return True, ""


def _secret_judge(answer: Any) -> tuple[bool, str] | None:
    entry = _weather_entry(answer)
    if entry is None:
        return None
    env = entry.get("env")
    value = env.get(KEY_VARIABLE) if isinstance(env, Mapping) else None
    if not isinstance(value, str):
        return (
            False,
            f"サーバは API キーを環境変数 {KEY_VARIABLE} から読みます。env に渡してください。",
        )
    if "${" + KEY_VARIABLE not in value:
        return False, (
            "キーを直に書くと、.mcp.json と一緒にチーム全員へ配られ、git の履歴にも残ります。"
            f"値は ${{{KEY_VARIABLE}}} と書き、各自の環境から展開させます。"
        )
    return True, ""


def _routing_parts(requests: Sequence[tuple[str, str]]) -> list[Part]:
    return [
        _judged(f"routing.{i:02d}", f"「{text}」→ {tool}", _routing_judge(text, tool))
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

    def describe(self) -> None:
        print(f"演習 {self.id} {self.title}（{self.max_score} 点）: {self.variable} の各キー")
        print(f"  {CURRENT}: get_weather の docstring（説明文、文字列）")
        print(f"  {HISTORY}: get_weather_history の docstring（説明文、文字列）")
        print("  mcp_json: サーバを登録する .mcp.json（dict）")
        print("採点する部分:")
        for part in self.parts:
            print(f"  {part.key}: {part.prompt}")


_HINTS = (
    "ルーターは依頼と「名前＋説明文」に共通する語を数えます。✗ の行に、各ツールで数えられた語"
    "（+語 / -語）が出ています。",
    "Not for / Do not use で始まる文（境界の一文）の語は、そのツールの減点になります。"
    "過去を表す語（yesterday, last week, days ago …）を get_weather の境界の一文に入れましょう。",
    "片方の説明文にだけ都市名の例（Tokyo など）を書くと、その都市の依頼がそちらに寄ります。"
    "例は両方にそろえるか、どちらにも書かないようにします。",
)


def _statement(requests: Sequence[tuple[str, str]]) -> str:
    rows = "\n".join(f"  {text!r} → {tool}" for text, tool in requests)
    return (
        f"weather サーバの {CURRENT}(city) と {HISTORY}(city, date) の docstring を書き、"
        f"次の依頼が正しいツールに振り分けられるようにします。\n{rows}"
    )


def _solution() -> str:
    tools = listed_tools(C1_KEY)
    lines = ["説明文の一例（目的・入力・使う場面・境界の 4 つ）:"]
    for t in tools:
        lines.append(f"--- {t['name']}\n{t['description']}")
    lines.append("各依頼の得点:")
    for text, _want in C1_REQUESTS:
        decision = route(text, tools)
        lines.append(f"  {text!r} → {decision.tool}  {decision.scores}")
    return "\n".join(lines)


def _build_c1() -> Exercise:
    parts: list[Part] = [
        _judged(
            f"{tool}.boundary",
            f"{tool} の説明文に、ルーターが読める境界の一文がある",
            _boundary_judge(tool),
        )
        for tool in TOOLS
    ]
    parts += [
        _judged(
            f"{tool}.inputs",
            f"{tool} の説明文が入力（{', '.join(PARAMETERS[tool])}）を書いている",
            _inputs_judge(tool),
        )
        for tool in TOOLS
    ]
    parts += _routing_parts(C1_REQUESTS)
    parts += [
        _judged(
            "mcp_json.server",
            f".mcp.json に stdio のサーバ {SERVER} が登録されている",
            _server_judge,
        ),
        _judged(
            "mcp_json.secret", f"API キーは ${{{KEY_VARIABLE}}} で渡し、直書きしない", _secret_judge
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
    """A "more practice" instance of ``exercise_id``: ``size`` requests of :data:`C1_POOL`
    (half for each tool) that the main exercise never grades; the answer variable is
    ``practice_answer``, the same docstrings. Raises ``KeyError`` for an unknown id."""
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
        TITLES[exercise_id] + "（練習）",
        _statement(picked),
        _routing_parts(picked),
        hints=_HINTS,
        variable="practice_answer",
        practice=True,
        data={"requests": tuple(picked)},
        key_answer=C1_KEY,
    )


# --- the closing checklist ------------------------------------------------------------------


@dataclass(frozen=True)
class ChecklistItem:
    """One item of the closing self-check: its ``key``, the ``text`` the learner ticks, and
    what backs it: parts of C.1 (key prefixes) and/or CCA-F task statements of the quiz."""

    key: str
    text: str
    parts: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()


CHECKLIST: tuple[ChecklistItem, ...] = (
    ChecklistItem(
        "docstring",
        "FastMCP（公式 SDK）や mcpmini のデコレータで、docstring がそのままツールの説明文になる"
        "ことを説明できる",
        parts=("get_weather.inputs", "get_weather_history.inputs"),
    ),
    ChecklistItem(
        "boundary",
        "説明文の 4 つの要素（目的・入力の形と例・例外的な場合・境界）を挙げ、境界の一文が"
        "取り違えを防ぐ理由を説明できる",
        parts=("get_weather.boundary", "get_weather_history.boundary", "routing."),
        tasks=("2.1",),
    ),
    ChecklistItem(
        "first_fix",
        "ツールの取り違えに対する最初の一手が説明文の充実であり、few-shot・振り分けの層・"
        "ツールの統合ではない理由を説明できる",
        tasks=("2.1",),
    ),
    ChecklistItem(
        "errors",
        "一時的・入力の検証・業務の規則・権限のエラーを区別し、正常な空の結果をエラーにしない"
        "理由を説明できる",
        tasks=("2.2",),
    ),
    ChecklistItem(
        "tool_choice",
        "tool_choice の auto・any・名前の指定の違いと、1 体に渡すツールを絞る理由を説明できる",
        tasks=("2.3",),
    ),
    ChecklistItem(
        "scopes",
        ".mcp.json（チームで共有）と ~/.claude.json（自分だけ）の使い分けと、秘密を ${VAR} で"
        "渡す理由を説明できる",
        parts=("mcp_json.",),
        tasks=("2.4",),
    ),
    ChecklistItem(
        "builtin",
        "Grep（中身）と Glob（名前）の使い分けと、Edit が失敗したときの Read＋Write を説明できる",
        tasks=("2.5",),
    ),
)


def _backed(item: ChecklistItem, report: Any, quiz_tasks: Mapping[str, Any]) -> list[str]:
    """What still does not back ``item``: failing C.1 parts and task statements of the quiz
    answered below 70 % or not at all (an empty list: every check passes)."""
    gaps = []
    if item.parts:
        results = list(getattr(report, "results", ()) or ())
        mine = [r for r in results if any(r.key.startswith(p) for p in item.parts)]
        if not mine or any(r.status is not Status.CORRECT for r in mine):
            gaps.append("演習 C.1 の " + "・".join(p.rstrip(".") for p in item.parts))
    for task in item.tasks:
        entry = quiz_tasks.get(task) or {}
        total, correct = int(entry.get("total", 0)), int(entry.get("correct", 0))
        if not total or correct / total < 0.7:
            gaps.append(f"問題集の {task}（{correct}/{total}）")
    return gaps


def quiz_tasks(environ: Mapping[str, str]) -> Mapping[str, Any]:
    """The progress file's per-task-statement quiz totals (``quiz.tasks``), read from the file
    :func:`~mcpmini.course.progress_path` finds in ``environ``; ``{}`` when there is none or
    it cannot be read."""
    try:
        path = progress_path(environ)
        if path is None or not path.exists():
            return {}
        tasks = load_progress(path).get("quiz", {}).get("tasks", {})
    except (OSError, ConfigError):
        return {}
    return tasks if isinstance(tasks, Mapping) else {}


def checklist_gaps(
    report: Any = None, quiz_tasks: Mapping[str, Any] | None = None
) -> dict[str, list[str]]:
    """Per :data:`CHECKLIST` item, the checks that do not pass yet (an empty list: backed)."""
    return {item.key: _backed(item, report, quiz_tasks or {}) for item in CHECKLIST}


def checklist_lines(
    ticked: Mapping[str, bool], report: Any = None, quiz_tasks: Mapping[str, Any] | None = None
) -> list[str]:
    """One line per :data:`CHECKLIST` item: ☑ / ☐ as the learner ticked it, and whether a
    passing check backs it. ``report`` is C.1's :class:`~mcpmini.course.Report` (or
    ``None``); ``quiz_tasks`` the progress file's ``quiz.tasks`` (a task statement counts
    when 70 % of its items were right). A ticked item without a passing check is marked
    "まだ裏付けなし" with what is missing."""
    every = checklist_gaps(report, quiz_tasks)
    lines = []
    for item in CHECKLIST:
        mark = "☑" if ticked.get(item.key) is True else "☐"
        gaps = every[item.key]
        if not gaps:
            state = "裏付けあり"
        elif mark == "☑":
            state = "まだ裏付けなし: " + "、".join(gaps)
        else:
            state = "未チェック（確かめるもの: " + "、".join(gaps) + "）"
        lines.append(f"{mark} {item.key}: {item.text} — {state}")
    return lines
