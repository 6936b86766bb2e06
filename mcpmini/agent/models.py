"""Offline models for the agent loop, and an optional adapter for a real one.

A model is any callable ``model(request) -> list[dict]``: it gets a
:class:`ModelRequest` (system text, the tool layer, the message list and the
``tool_choice``) and returns the content blocks of one assistant message, in the
Messages API shape: ``{"type": "text", "text": ...}`` and
``{"type": "tool_use", "id": ..., "name": ..., "input": {...}}``. The loop treats the
reply as untrusted data and checks every block (see :mod:`mcpmini.agent.loop`).

The offline models are deliberately simple, each one the counterexample or
illustration a chapter needs: :class:`ScriptedModel` replays fixed replies,
:class:`ConstantModel` ignores its input (Prop. 4.5), :class:`AlwaysToolModel` never
stops asking for a tool (Prop. 7.1 without a limit), :class:`RouterModel` picks a tool
by word overlap with the descriptions, so vague or overlapping descriptions misroute.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError

__all__ = [
    "AlwaysToolModel",
    "AnthropicModel",
    "ConstantModel",
    "Model",
    "ModelRequest",
    "Route",
    "RouterModel",
    "ScriptedModel",
    "description_words",
    "route",
    "words",
]


@dataclass(frozen=True)
class ModelRequest:
    """What one model call sees.

    ``tools`` is the tool layer as sent: full definitions, or only ``{"name": ...}``
    entries when tool search defers them. ``tool_choice`` is ``{"type": "auto"}``,
    ``{"type": "any"}`` or ``{"type": "tool", "name": ...}``.
    """

    system: str
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    tool_choice: dict[str, Any] = field(default_factory=lambda: {"type": "auto"})


Model = Callable[[ModelRequest], list[dict[str, Any]]]


class _Ids:
    """Tool-use ids ``toolu_0001``, ``toolu_0002``… counted per model, so runs repeat exactly."""

    def __init__(self) -> None:
        self._count = itertools.count(1)

    def next(self) -> str:
        return f"toolu_{next(self._count):04d}"

    def tool_use(self, name: str, tool_input: Mapping[str, Any]) -> dict[str, Any]:
        return {"type": "tool_use", "id": self.next(), "name": name, "input": dict(tool_input)}


class ScriptedModel:
    """Replays ``replies`` one per call; a ``str`` reply becomes one text block.

    After the last reply it answers with a text block ``"(end of script)"``, so a
    loop driven by it always ends. ``calls`` keeps every request it was given.
    """

    def __init__(self, replies: Sequence[list[dict[str, Any]] | str]) -> None:
        self.replies = list(replies)
        self.calls: list[ModelRequest] = []

    def __call__(self, request: ModelRequest) -> list[dict[str, Any]]:
        self.calls.append(request)
        if len(self.calls) > len(self.replies):
            return [{"type": "text", "text": "(end of script)"}]
        reply = self.replies[len(self.calls) - 1]
        return [{"type": "text", "text": reply}] if isinstance(reply, str) else list(reply)


class ConstantModel:
    """Returns the same reply whatever it is shown (fresh tool_use ids each time)."""

    def __init__(self, reply: list[dict[str, Any]] | str) -> None:
        self.reply = reply
        self.calls = 0
        self._ids = _Ids()

    def __call__(self, request: ModelRequest) -> list[dict[str, Any]]:
        self.calls += 1
        if isinstance(self.reply, str):
            return [{"type": "text", "text": self.reply}]
        return [
            dict(b, id=self._ids.next()) if b.get("type") == "tool_use" else dict(b)
            for b in self.reply
        ]


class AlwaysToolModel:
    """Asks for ``tool_name`` with ``tool_input`` on every call: never ends by itself."""

    def __init__(self, tool_name: str, tool_input: Mapping[str, Any] | None = None) -> None:
        self.tool_name = tool_name
        self.tool_input = dict(tool_input or {})
        self.calls = 0
        self._ids = _Ids()

    def __call__(self, request: ModelRequest) -> list[dict[str, Any]]:
        self.calls += 1
        return [self._ids.tool_use(self.tool_name, self.tool_input)]


# ASCII words, katakana runs and kanji runs; hiragana (mostly particles) separates them.
_WORD = re.compile(r"[a-z0-9]+|[\u30a0-\u30ff]+|[\u4e00-\u9fff]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "for",
        "and",
        "or",
        "in",
        "on",
        "at",
        "by",
        "with",
        "is",
        "are",
        "be",
        "it",
        "this",
        "that",
        "from",
        "as",
        "use",
        "when",
        "tool",
        "tools",
        "get",
        "returns",
        "return",
    ]
)


def words(text: str) -> set[str]:
    """The content words of ``text``: lower-cased ASCII words, katakana and kanji runs, minus
    stop words."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


@dataclass(frozen=True)
class Route:
    """The routing decision: the chosen tool (``None``: none overlaps) and every score."""

    tool: str | None
    scores: dict[str, int]

    @property
    def tied(self) -> list[str]:
        """Every tool with the top score (more than one means the choice was a tie)."""
        if not self.scores:
            return []
        top = max(self.scores.values())
        return [n for n, s in self.scores.items() if s == top and top > 0]


# A description sentence that starts like this states a boundary: its words count against.
_BOUNDARY = re.compile(r"^(not for|do not use|don't use|never use)\b", re.IGNORECASE)


def description_words(description: str) -> tuple[set[str], set[str]]:
    """``(for_words, against_words)`` of a tool description.

    Words of a sentence that opens with "Not for", "Do not use", "Don't use" or "Never
    use" are *against* words (the boundary the description draws), unless another
    sentence also uses them; every other content word is a *for* word.
    """
    for_: set[str] = set()
    against: set[str] = set()
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", description):
        sentence = sentence.strip()
        if _BOUNDARY.match(sentence):
            against.update(words(_BOUNDARY.sub("", sentence)))
        else:
            for_.update(words(sentence))
    return for_, against - for_


def route(request_text: str, tools: Sequence[Mapping[str, Any]]) -> Route:
    """Score each tool by the words its name and description share with ``request_text``.

    A shared word counts +1, a shared word of a boundary sentence ("Not for …", "Do not
    use … ", see :func:`description_words`) counts -1. The highest positive score wins;
    a tie goes to the tool listed first, exactly the silent misrouting overlapping
    descriptions cause. Returns ``Route(None, ...)`` when no tool scores above zero.
    """
    asked = words(request_text)
    scores: dict[str, int] = {}
    for t in tools:
        name = str(t.get("name", ""))
        for_, against = description_words(str(t.get("description", "")))
        for_ |= words(name.replace("_", " "))
        scores[name] = len(asked & for_) - len(asked & (against - for_))
    best = max(scores.values(), default=0)
    chosen = next((n for n, s in scores.items() if s == best), None) if best > 0 else None
    return Route(chosen, scores)


class RouterModel:
    """Calls the tool whose description best matches the latest user text, once.

    ``arguments`` maps a tool name to the input to send, ``default_input`` is sent to any
    other tool (default ``{}``). When the last message already holds tool results it
    answers with their text and stops.
    ``tool_choice`` is honoured: ``any`` forces its best guess (or the first tool),
    a named tool is called whatever the overlap. ``routes`` records each decision.
    """

    def __init__(
        self,
        arguments: Mapping[str, Mapping[str, Any]] | None = None,
        default_input: Mapping[str, Any] | None = None,
    ) -> None:
        self.arguments = {k: dict(v) for k, v in (arguments or {}).items()}
        self.default_input = dict(default_input or {})
        self.routes: list[Route] = []
        self._ids = _Ids()

    def __call__(self, request: ModelRequest) -> list[dict[str, Any]]:
        last = request.messages[-1] if request.messages else {"content": []}
        blocks = last["content"] if isinstance(last.get("content"), list) else []
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results:
            return [
                {"type": "text", "text": " / ".join(str(r.get("content", "")) for r in results)}
            ]
        text = " ".join(_texts(request.messages[-1:])) if request.messages else ""
        decision = route(text, request.tools)
        self.routes.append(decision)
        choice = request.tool_choice.get("type")
        name = decision.tool
        if choice == "tool":
            name = request.tool_choice.get("name")
        elif choice == "any" and name is None and request.tools:
            name = request.tools[0].get("name")
        if name is None:
            return [{"type": "text", "text": "No tool matches this request."}]
        return [self._ids.tool_use(str(name), self.arguments.get(str(name), self.default_input))]


def _texts(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    out: list[str] = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(
                str(b.get("text", ""))
                for b in content
                if isinstance(b, dict) and b.get("type") == "text"
            )
    return out


class AnthropicModel:
    """Adapter to a real model through the ``anthropic`` package (optional, never needed).

    ``environ`` must hold ``ANTHROPIC_API_KEY``; construction raises
    :class:`ConfigError` when it does not or when the package is not installed. No
    notebook or test of this project uses it.
    """

    def __init__(self, model: str, environ: Mapping[str, str], max_tokens: int = 1024) -> None:
        key = environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ConfigError(
                "ANTHROPIC_API_KEY is not set", source="environ", path="ANTHROPIC_API_KEY"
            )
        try:
            import anthropic  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise ConfigError("the 'anthropic' package is not installed") from None
        self._client = anthropic.Anthropic(api_key=key)
        self.model = model
        self.max_tokens = max_tokens

    def __call__(self, request: ModelRequest) -> list[dict[str, Any]]:
        reply = self._client.messages.create(
            model=self.model,
            max_tokens=self.max_tokens,
            system=request.system,
            tools=[t for t in request.tools if "input_schema" in t],
            tool_choice=request.tool_choice,
            messages=request.messages,
        )
        return [json.loads(block.model_dump_json()) for block in reply.content]
