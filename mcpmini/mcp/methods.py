"""The MCP method catalogue as data: one frozen :class:`MethodSpec` per method.

Rules of this module:

* Every method name the runtime speaks is a :class:`Method` member here, and every member has
  exactly one row in :data:`METHODS`. No other module of :mod:`mcpmini.mcp` spells a method
  name as a literal (``tests/test_methods.py`` reads them all with ``ast``); they use
  ``Method.TOOLS_CALL`` and friends, or read a row.
* A row owns everything that differs between methods: who sends it, whether it is a
  notification, the generations that have it, whether it lists (paginated by ``cursor``),
  whether a 2026-07-28 result carries ``ttlMs`` / ``cacheScope``, which param names its target
  (the ``Mcp-Name`` header), and whether it runs user code (a worker thread, and a reply that
  may become an event stream).
* What the stateless 2026-07-28 route removed is *derived*: a method the handshake generation
  has and the per-request generation lacks (:attr:`MethodSpec.removed_stateless`).
* A server answers a request with its ``on_<member name in lower case>`` method
  (:attr:`MethodSpec.handler`); a server without one answers ``-32601``.

Readers: the server's dispatch (:mod:`.server`), the HTTP routing and header checks
(:mod:`.http`), the ASGI threading choice (:mod:`.asgi`) and the conformance fixtures.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .versions import Generation

__all__ = [
    "METHODS",
    "Method",
    "MethodSpec",
    "Sender",
    "Target",
    "method_spec",
]


class Method(StrEnum):
    """Every MCP method name mcpmini speaks (its value is the wire name)."""

    INITIALIZE = "initialize"
    PING = "ping"
    SERVER_DISCOVER = "server/discover"
    TOOLS_LIST = "tools/list"
    TOOLS_CALL = "tools/call"
    RESOURCES_LIST = "resources/list"
    RESOURCES_TEMPLATES_LIST = "resources/templates/list"
    RESOURCES_READ = "resources/read"
    RESOURCES_SUBSCRIBE = "resources/subscribe"
    RESOURCES_UNSUBSCRIBE = "resources/unsubscribe"
    PROMPTS_LIST = "prompts/list"
    PROMPTS_GET = "prompts/get"
    LOGGING_SET_LEVEL = "logging/setLevel"
    COMPLETION_COMPLETE = "completion/complete"
    SAMPLING_CREATE_MESSAGE = "sampling/createMessage"
    ELICITATION_CREATE = "elicitation/create"
    ROOTS_LIST = "roots/list"
    NOTIFICATIONS_INITIALIZED = "notifications/initialized"
    NOTIFICATIONS_PROGRESS = "notifications/progress"
    NOTIFICATIONS_MESSAGE = "notifications/message"
    NOTIFICATIONS_CANCELLED = "notifications/cancelled"
    SUBSCRIPTIONS_LISTEN = "subscriptions/listen"
    NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
    NOTIFICATIONS_TOOLS_LIST_CHANGED = "notifications/tools/list_changed"
    NOTIFICATIONS_PROMPTS_LIST_CHANGED = "notifications/prompts/list_changed"
    NOTIFICATIONS_RESOURCES_LIST_CHANGED = "notifications/resources/list_changed"
    NOTIFICATIONS_RESOURCES_UPDATED = "notifications/resources/updated"
    TASKS_GET = "tasks/get"
    TASKS_UPDATE = "tasks/update"
    TASKS_CANCEL = "tasks/cancel"
    NOTIFICATIONS_TASKS = "notifications/tasks"


class Sender(StrEnum):
    """Which side sends a method."""

    CLIENT = "client"
    SERVER = "server"
    EITHER = "either"


class Target(StrEnum):
    """What a request acts on, named by one of its params (and, on 2026-07-28, ``Mcp-Name``)."""

    TOOL = "tool"
    PROMPT = "prompt"
    RESOURCE = "resource"
    TASK = "task"

    @property
    def param(self) -> str:
        """The param holding the target: ``uri`` for a resource, ``taskId`` for a task (the
        tasks extension), else ``name``."""
        return {Target.RESOURCE: "uri", Target.TASK: "taskId"}.get(self, "name")


BOTH = frozenset(Generation)
LEGACY_ONLY = frozenset({Generation.LEGACY})
MODERN_ONLY = frozenset({Generation.MODERN})


@dataclass(frozen=True)
class MethodSpec:
    """One row of the catalogue.

    ``generations`` the protocol generations that have the method; ``sender`` who sends it;
    ``notification`` whether it is a notification (no id, no reply); ``lists`` whether its
    result is a list paginated by ``cursor`` / ``nextCursor``; ``cached`` whether a
    2026-07-28 result carries ``ttlMs`` and ``cacheScope``; ``target`` what the request acts
    on (``None``: nothing named); ``streams`` whether it runs user code, so the HTTP layer runs
    it in a worker thread and may answer with an event stream; ``holds`` whether its answer is
    a long-lived stream (``subscriptions/listen``: an acknowledgement, then notifications,
    the result only when the server ends it); ``filter_key`` for a server notification, the
    key of the listen filter that opts in to it.
    """

    method: Method
    generations: frozenset[Generation] = BOTH
    sender: Sender = Sender.CLIENT
    notification: bool = False
    lists: bool = False
    cached: bool = False
    target: Target | None = None
    streams: bool = False
    holds: bool = False
    filter_key: str | None = None

    @property
    def name(self) -> str:
        """The wire name."""
        return self.method.value

    @property
    def removed_stateless(self) -> bool:
        """True for a method the handshake generation has and the stateless one removed."""
        return Generation.LEGACY in self.generations and Generation.MODERN not in self.generations

    @property
    def handler(self) -> str:
        """The name of the server method answering this request (``on_tools_call``)."""
        return "on_" + self.method.name.lower()

    @property
    def answered_by_server(self) -> bool:
        """True for a request a server answers (not a notification, not server-sent only)."""
        return not self.notification and self.sender is not Sender.SERVER


M = Method
_ROWS = [
    MethodSpec(M.INITIALIZE, LEGACY_ONLY),
    MethodSpec(M.PING, LEGACY_ONLY, Sender.EITHER),
    MethodSpec(M.SERVER_DISCOVER, MODERN_ONLY, cached=True),
    MethodSpec(M.TOOLS_LIST, lists=True, cached=True),
    MethodSpec(M.TOOLS_CALL, target=Target.TOOL, streams=True),
    MethodSpec(M.RESOURCES_LIST, lists=True, cached=True),
    MethodSpec(M.RESOURCES_TEMPLATES_LIST, lists=True, cached=True),
    MethodSpec(M.RESOURCES_READ, cached=True, target=Target.RESOURCE, streams=True),
    MethodSpec(M.RESOURCES_SUBSCRIBE, LEGACY_ONLY),
    MethodSpec(M.RESOURCES_UNSUBSCRIBE, LEGACY_ONLY),
    MethodSpec(M.PROMPTS_LIST, lists=True, cached=True),
    MethodSpec(M.PROMPTS_GET, target=Target.PROMPT, streams=True),
    MethodSpec(M.LOGGING_SET_LEVEL, LEGACY_ONLY),
    MethodSpec(M.COMPLETION_COMPLETE),
    MethodSpec(M.SAMPLING_CREATE_MESSAGE, sender=Sender.SERVER),
    MethodSpec(M.ELICITATION_CREATE, sender=Sender.SERVER),
    MethodSpec(M.ROOTS_LIST, sender=Sender.SERVER),
    MethodSpec(M.NOTIFICATIONS_INITIALIZED, LEGACY_ONLY, notification=True),
    MethodSpec(M.NOTIFICATIONS_PROGRESS, sender=Sender.EITHER, notification=True),
    MethodSpec(M.NOTIFICATIONS_MESSAGE, sender=Sender.SERVER, notification=True),
    MethodSpec(M.NOTIFICATIONS_CANCELLED, sender=Sender.EITHER, notification=True),
    MethodSpec(M.SUBSCRIPTIONS_LISTEN, MODERN_ONLY, holds=True),
    MethodSpec(
        M.NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED, MODERN_ONLY, Sender.SERVER, notification=True
    ),
    MethodSpec(
        M.NOTIFICATIONS_TOOLS_LIST_CHANGED,
        sender=Sender.SERVER,
        notification=True,
        filter_key="toolsListChanged",
    ),
    MethodSpec(
        M.NOTIFICATIONS_PROMPTS_LIST_CHANGED,
        sender=Sender.SERVER,
        notification=True,
        filter_key="promptsListChanged",
    ),
    MethodSpec(
        M.NOTIFICATIONS_RESOURCES_LIST_CHANGED,
        sender=Sender.SERVER,
        notification=True,
        filter_key="resourcesListChanged",
    ),
    MethodSpec(
        M.NOTIFICATIONS_RESOURCES_UPDATED,
        sender=Sender.SERVER,
        notification=True,
        filter_key="resourceSubscriptions",
    ),
    # The tasks extension (SEP-2663): 2026-07-28 only, routed by the task id.
    MethodSpec(M.TASKS_GET, MODERN_ONLY, target=Target.TASK),
    MethodSpec(M.TASKS_UPDATE, MODERN_ONLY, target=Target.TASK),
    MethodSpec(M.TASKS_CANCEL, MODERN_ONLY, target=Target.TASK),
    MethodSpec(
        M.NOTIFICATIONS_TASKS, MODERN_ONLY, Sender.SERVER, notification=True, filter_key="taskIds"
    ),
]

#: wire name → row, one per :class:`Method` member.
METHODS: dict[str, MethodSpec] = {row.name: row for row in _ROWS}


def method_spec(name: str) -> MethodSpec | None:
    """The row of the method called ``name`` on the wire, or ``None`` for an unknown name."""
    return METHODS.get(name)
