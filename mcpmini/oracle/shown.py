"""What the model was shown: read from the first request body of the main loop (sans-I/O).

The fake model records every request; the first one that carries ``tools`` is the main loop's
first turn. From it :func:`shown_in` reads the top-level system text, the tool list (and which
tools arrive with ``defer_loading``), the ``role: "system"`` messages, among them the list of
deferred tools and the skill listing, and their sizes in characters and estimated tokens
(:func:`mcpmini.agent.estimate_tokens`, the course's one estimate).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..agent import estimate_tokens

__all__ = ["DEFERRED_HEADER", "SKILLS_HEADER", "Shown", "shown_in", "system_text"]

SKILLS_HEADER = "The following skills are available for use with the Skill tool"
DEFERRED_HEADER = "The following deferred tools are now available via ToolSearch"


@dataclass(frozen=True)
class Shown:
    """The model's first view: ``system`` text, ``tools`` (names in order), ``deferred``
    (tools sent with ``defer_loading`` or named in the deferred-tools message),
    ``system_messages`` (the ``role: "system"`` texts), ``skill_listing`` (its text, or
    empty), and ``tool_chars`` (the JSON size of each tool definition)."""

    system: str = ""
    tools: tuple[str, ...] = ()
    deferred: tuple[str, ...] = ()
    system_messages: tuple[str, ...] = ()
    skill_listing: str = ""
    tool_chars: Mapping[str, int] | None = None

    def sizes(self) -> dict[str, dict[str, int]]:
        """Characters and estimated tokens of the system text, the tool list and the listing."""
        tools_json = sum((self.tool_chars or {}).values())
        return {
            "system": {"chars": len(self.system), "tokens": estimate_tokens(self.system)},
            "tools": {"chars": tools_json, "tokens": max(0, tools_json // 4)},
            "skill_listing": {
                "chars": len(self.skill_listing),
                "tokens": estimate_tokens(self.skill_listing),
            },
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "tools": list(self.tools),
            "deferred": list(self.deferred),
            "skill_listing": self.skill_listing,
            "system_messages": len(self.system_messages),
            "sizes": self.sizes(),
        }


def system_text(system: Any) -> str:
    """The top-level ``system`` field as text (a string, or its text blocks joined)."""
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n\n".join(
            str(b.get("text", "")) for b in system if isinstance(b, Mapping) and "text" in b
        )
    return ""


def _message_texts(body: Mapping[str, Any], role: str) -> list[str]:
    texts = []
    for message in body.get("messages") or ():
        if not isinstance(message, Mapping) or message.get("role") != role:
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(
                str(b.get("text", ""))
                for b in content
                if isinstance(b, Mapping) and b.get("type") == "text"
            )
    return texts


def _deferred_names(text: str) -> list[str]:
    lines = text.split("\n")[1:]
    return [ln.strip().lstrip("-").strip() for ln in lines if ln.strip() and " " not in ln.strip()]


def _listing(text: str) -> str:
    """The listing block: its header, then the ``- name: text`` lines up to the blank line
    that ends them (the same system message carries other text after it)."""
    first = text.find("\n- ")
    if first < 0:
        return text.strip()
    end = text.find("\n\n", first + 1)
    return text[: end if end >= 0 else len(text)].strip()


def shown_in(bodies: Sequence[Mapping[str, Any]]) -> Shown:
    """What the first main-loop request (the first with ``tools``) showed; empty ``Shown``
    when there was none."""
    first = next((b for b in bodies if b.get("tools")), None)
    if first is None:
        return Shown()
    tools = [t for t in first.get("tools") or () if isinstance(t, Mapping)]
    system_messages = _message_texts(first, "system") + [
        t for t in _message_texts(first, "user") if SKILLS_HEADER in t or DEFERRED_HEADER in t
    ]
    deferred = [str(t.get("name")) for t in tools if t.get("defer_loading")]
    listing = ""
    for text in system_messages:
        if text.lstrip().startswith(DEFERRED_HEADER) or DEFERRED_HEADER in text:
            deferred += [n for n in _deferred_names(text) if n not in deferred]
        if SKILLS_HEADER in text:
            listing = _listing(text[text.index(SKILLS_HEADER) :])
    return Shown(
        system=system_text(first.get("system")),
        tools=tuple(str(t.get("name")) for t in tools),
        deferred=tuple(deferred),
        system_messages=tuple(system_messages),
        skill_listing=listing,
        tool_chars={str(t.get("name")): len(json.dumps(t)) for t in tools},
    )
