"""The tasks extension (SEP-2663, ``io.modelcontextprotocol/tasks``): a task's state machine
and the server's table of tasks, free of I/O.

A server that negotiated the extension may answer ``tools/call`` with a *task handle*
(``resultType: "task"``) instead of the result; the client polls ``tasks/get``, answers the
task's input requests with ``tasks/update`` and may ``tasks/cancel`` it.

Rules of this module (stated here, enforced by the code below, as h11's ``_state.py`` does):

* A task is in one of five :class:`TaskStatus` states; ``working`` and ``input_required`` go
  on, ``completed``, ``failed`` and ``cancelled`` are terminal. Every change is one row of
  :data:`TRANSITIONS` — ``(status, event) → status``. An event on a terminal task changes
  nothing (a late result of a cancelled task is dropped; cancelling a finished task is still
  acknowledged); an event a non-terminal state has no row for is a bug
  (:class:`TaskStateError`).
* ``input_required`` holds exactly while at least one input request is outstanding: asking
  moves there, answering the last outstanding request moves back to ``working``.
* What the wire shows is derived from the status, never stored twice: ``result`` only on
  ``completed``, ``error`` only on ``failed``, ``inputRequests`` only on ``input_required``,
  and never ``requestState`` (that belongs to SEP-2322 results, not to tasks).
* Input request keys are minted here, unique over a task's lifetime; an answer to a key that
  is not outstanding (never issued, already answered) is ignored.
* A task lives ``ttl_ms`` from its creation. Past that it is gone: ``get`` / ``update`` /
  ``cancel`` raise :class:`UnknownTask` (``expired``) and its work is told to stop.
* The limit, stated (it is what a flood of anonymous tasks can exhaust): at most ``max_tasks``
  live tasks of anonymous callers (256 by default) — all of them share that pool, so they can
  lock each other out for a TTL — and at most ``max_tasks_per_caller`` (64) live tasks of each
  authenticated caller, counted against that caller only: no one else's flood keeps them
  from new tasks. A task of an authenticated caller is that caller's: to anyone else it is
  ``not found``. Who is authenticated is the HTTP layer's to say
  (:class:`~mcpmini.mcp.http.HttpEndpoint`'s ``identify``); this module only counts.
* Time comes from the ``clock`` passed in; the table never sleeps. The only wait is
  :meth:`TaskTable.wait_answer`, the work's own wait for an answer, bounded by the task's
  end of life and woken by a cancel.
* Task ids are unguessable (``secrets``): without ``tasks/list`` the id is the only handle.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from .envelope import TASKS_EXTENSION

__all__ = [
    "TASKS_EXTENSION",
    "TERMINAL",
    "TRANSITIONS",
    "TaskCancelled",
    "TaskEvent",
    "TaskStateError",
    "TaskStatus",
    "TaskSupport",
    "TaskTable",
    "UnknownTask",
    "declares_tasks",
    "next_status",
]


class TaskStatus(StrEnum):
    """A task's status (its value is the wire name)."""

    WORKING = "working"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


class TaskEvent(StrEnum):
    """What can happen to a task."""

    ASK = "ask"  #: the work issued an input request
    ANSWERED = "answered"  #: the last outstanding input request was answered
    COMPLETE = "complete"  #: the work returned a result (``isError`` results included)
    FAIL = "fail"  #: the work ended with a JSON-RPC error
    CANCEL = "cancel"  #: the client sent ``tasks/cancel``


class TaskSupport(StrEnum):
    """Whether a tool runs as a task: never, when the client declared the extension, or only
    as a task (a client without the extension gets ``MISSING_CLIENT_CAPABILITY``)."""

    FORBIDDEN = "forbidden"
    OPTIONAL = "optional"
    REQUIRED = "required"


S, E = TaskStatus, TaskEvent
TERMINAL = frozenset({S.COMPLETED, S.FAILED, S.CANCELLED})

#: Every allowed change: (status, event) → the next status.
TRANSITIONS: Mapping[tuple[TaskStatus, TaskEvent], TaskStatus] = {
    (S.WORKING, E.ASK): S.INPUT_REQUIRED,
    (S.WORKING, E.COMPLETE): S.COMPLETED,
    (S.WORKING, E.FAIL): S.FAILED,
    (S.WORKING, E.CANCEL): S.CANCELLED,
    (S.INPUT_REQUIRED, E.ASK): S.INPUT_REQUIRED,
    (S.INPUT_REQUIRED, E.ANSWERED): S.WORKING,
    (S.INPUT_REQUIRED, E.COMPLETE): S.COMPLETED,
    (S.INPUT_REQUIRED, E.FAIL): S.FAILED,
    (S.INPUT_REQUIRED, E.CANCEL): S.CANCELLED,
}


class TaskStateError(RuntimeError):
    """An event the current non-terminal state has no transition for (a bug in the caller)."""


class UnknownTask(LookupError):
    """No live task has this id; ``reason`` is ``"not found"`` or ``"expired"``."""

    def __init__(self, task_id: str, reason: str = "not found") -> None:
        super().__init__(f"Task {reason}: {task_id}")
        self.task_id = task_id
        self.reason = reason


class TaskCancelled(Exception):
    """Raised in a task's work when it waits for an answer and the task is cancelled or
    expires; the work should end (its result would be dropped anyway)."""


def next_status(status: TaskStatus, event: TaskEvent) -> TaskStatus | None:
    """The status after ``event``, or ``None`` when a terminal ``status`` ignores it.

    Raises :class:`TaskStateError` for an event a non-terminal status has no row for.
    """
    if status in TERMINAL:
        return None
    try:
        return TRANSITIONS[(status, event)]
    except KeyError:
        raise TaskStateError(f"no transition from {status} on {event}") from None


def declares_tasks(capabilities: Mapping[str, Any]) -> bool:
    """Whether client ``capabilities`` declare the tasks extension."""
    extensions = capabilities.get("extensions")
    return isinstance(extensions, Mapping) and isinstance(extensions.get(TASKS_EXTENSION), dict)


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


@dataclass
class _Task:
    """One task's state (guarded by its table's lock)."""

    task_id: str
    created: float
    updated: float
    ttl_ms: int
    owner: str | None = None  # the authenticated caller, None: anonymous
    status: TaskStatus = TaskStatus.WORKING
    message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    answers: dict[str, Any] = field(default_factory=dict)
    asked: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def expires(self) -> float:
        return self.created + self.ttl_ms / 1000


class TaskTable:
    """The tasks of one server, shared by all its connections (a task outlives its request).

    ``ttl_ms`` each task's time to live, ``poll_ms`` the polling interval suggested to
    clients, ``max_tasks`` the most live tasks of anonymous callers at once,
    ``max_tasks_per_caller`` the most of one authenticated caller (see the module rules),
    ``clock`` the wall clock in seconds.
    Every callback :meth:`subscribe` registered (``on_change`` is a first one) is called with
    a task's wire state after every change, outside the lock (status notifications): each
    HTTP app serving the server subscribes itself. Every method is thread-safe.
    """

    def __init__(
        self,
        ttl_ms: int = 300_000,
        poll_ms: int = 250,
        max_tasks: int = 256,
        clock: Callable[[], float] = time.time,
        on_change: Callable[[dict[str, Any]], None] | None = None,
        max_tasks_per_caller: int = 64,
    ) -> None:
        if ttl_ms <= 0 or poll_ms <= 0 or max_tasks <= 0 or max_tasks_per_caller <= 0:
            raise ValueError("ttl_ms, poll_ms, max_tasks and max_tasks_per_caller must be positive")
        self.ttl_ms = ttl_ms
        self.poll_ms = poll_ms
        self.max_tasks = max_tasks
        self.max_tasks_per_caller = max_tasks_per_caller
        self.clock = clock
        self._watchers: list[Callable[[dict[str, Any]], None]] = []
        if on_change is not None:
            self._watchers.append(on_change)
        self._tasks: dict[str, _Task] = {}
        self._changed = threading.Condition()

    def subscribe(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Call ``callback`` with a task's wire state after each change; return the function
        that ends the subscription."""
        with self._changed:
            self._watchers.append(callback)

        def unsubscribe() -> None:
            with self._changed:
                if callback in self._watchers:
                    self._watchers.remove(callback)

        return unsubscribe

    def __len__(self) -> int:
        with self._changed:
            self._sweep()
            return len(self._tasks)

    # --- the wire shapes --------------------------------------------------------------

    def _wire(self, task: _Task) -> dict[str, Any]:
        out: dict[str, Any] = {
            "taskId": task.task_id,
            "status": task.status.value,
            "createdAt": _iso(task.created),
            "lastUpdatedAt": _iso(task.updated),
            "ttlMs": task.ttl_ms,
            "pollIntervalMs": self.poll_ms,
        }
        if task.message is not None:
            out["statusMessage"] = task.message
        if task.status is TaskStatus.INPUT_REQUIRED:
            out["inputRequests"] = dict(task.pending)
        elif task.status is TaskStatus.COMPLETED and task.result is not None:
            out["result"] = task.result
        elif task.status is TaskStatus.FAILED and task.error is not None:
            out["error"] = task.error
        return out

    # --- lookups and changes (callers hold the lock) -----------------------------------

    def _sweep(self) -> None:
        now = self.clock()
        for task_id in [t for t, task in self._tasks.items() if task.expires() <= now]:
            self._tasks.pop(task_id).stop.set()

    def _find(self, task_id: object, owner: str | None = None) -> _Task:
        if not isinstance(task_id, str):
            raise UnknownTask(str(task_id))
        task = self._tasks.get(task_id)
        if task is None or (task.owner is not None and task.owner != owner):
            raise UnknownTask(task_id)  # another caller's task is not there for this one
        if task.expires() <= self.clock():
            del self._tasks[task_id]
            task.stop.set()
            raise UnknownTask(task_id, "expired")
        return task

    def _step(self, task: _Task, event: TaskEvent) -> bool:
        status = next_status(task.status, event)
        if status is None:
            return False
        task.status = status
        task.updated = self.clock()
        if status in TERMINAL:
            task.pending.clear()
            task.stop.set()
        self._changed.notify_all()
        return True

    def _changed_to(self, task: _Task | None) -> None:
        if task is None:
            return
        with self._changed:
            if not self._watchers:
                return
            wire = self._wire(task)
            watchers = list(self._watchers)
        for watcher in watchers:
            watcher(dict(wire))

    # --- what the server's handlers call ------------------------------------------------

    def create(self, owner: str | None = None) -> dict[str, Any]:
        """A new ``working`` task of ``owner`` (an authenticated caller; ``None``: anonymous);
        return its wire state (the ``CreateTaskResult`` fields).

        Raises ``OverflowError`` when that caller's pool is full: ``max_tasks`` live
        anonymous tasks, or ``max_tasks_per_caller`` live tasks of ``owner``.
        """
        with self._changed:
            self._sweep()
            mine = sum(1 for t in self._tasks.values() if t.owner == owner)
            if owner is None and mine >= self.max_tasks:
                raise OverflowError(
                    f"too many tasks: {self.max_tasks} anonymous tasks are live (the limit of "
                    "unauthenticated callers together); try again when one has ended"
                )
            if owner is not None and mine >= self.max_tasks_per_caller:
                raise OverflowError(
                    f"too many tasks: this caller has {mine} live tasks "
                    f"(the limit is {self.max_tasks_per_caller} per caller)"
                )
            now = self.clock()
            task = _Task(secrets.token_urlsafe(16), now, now, self.ttl_ms, owner)
            self._tasks[task.task_id] = task
            return self._wire(task)

    def get(self, task_id: object, owner: str | None = None) -> dict[str, Any]:
        """The wire state of a live task (``tasks/get``) as ``owner`` sees it. Raises
        :class:`UnknownTask` (also for another caller's task)."""
        with self._changed:
            return self._wire(self._find(task_id, owner))

    def update(
        self, task_id: object, responses: Mapping[str, Any], owner: str | None = None
    ) -> None:
        """Deliver ``responses`` (``tasks/update``): each key that is outstanding is answered,
        every other key is ignored. Raises :class:`UnknownTask`."""
        with self._changed:
            task = self._find(task_id, owner)
            for key, answer in responses.items():
                if key in task.pending:
                    del task.pending[key]
                    task.answers[key] = answer
            self._changed.notify_all()
            moved = not task.pending and task.status is TaskStatus.INPUT_REQUIRED
            if moved:
                self._step(task, TaskEvent.ANSWERED)
        self._changed_to(task if moved else None)

    def cancel(self, task_id: object, owner: str | None = None) -> None:
        """Cancel a task (``tasks/cancel``); a terminal task stays as it is. Raises
        :class:`UnknownTask`."""
        with self._changed:
            task = self._find(task_id, owner)
            moved = self._step(task, TaskEvent.CANCEL)
        self._changed_to(task if moved else None)

    # --- what a task's work calls ------------------------------------------------------

    def stopped(self, task_id: str) -> threading.Event:
        """The event set when the task ends, is cancelled or expires (a running tool waits on
        it instead of sleeping). Raises :class:`UnknownTask`."""
        with self._changed:
            task = self._tasks.get(task_id)
            if task is None:
                raise UnknownTask(task_id)
            return task.stop

    def complete(self, task_id: str, result: Mapping[str, Any]) -> None:
        """The work returned ``result``; dropped when the task is already terminal or gone."""
        self._finish(task_id, TaskEvent.COMPLETE, "result", dict(result))

    def fail(self, task_id: str, error: Mapping[str, Any]) -> None:
        """The work ended with the JSON-RPC ``error`` (``code``, ``message``, ``data``)."""
        self._finish(task_id, TaskEvent.FAIL, "error", dict(error))

    def _finish(self, task_id: str, event: TaskEvent, slot: str, value: dict[str, Any]) -> None:
        with self._changed:
            task = self._tasks.get(task_id)
            if task is None or task.status in TERMINAL:
                return
            setattr(task, slot, value)
            self._step(task, event)
        self._changed_to(task)

    def note(self, task_id: str, message: str) -> None:
        """Set the task's ``statusMessage`` (progress of a working task)."""
        with self._changed:
            task = self._tasks.get(task_id)
            if task is None or task.status in TERMINAL:
                return
            task.message = message
            task.updated = self.clock()

    def ask(self, task_id: str, request: Mapping[str, Any]) -> str:
        """Issue an input request (``{"method", "params"}``); return its fresh key.

        Raises :class:`TaskCancelled` when the task is no longer running.
        """
        with self._changed:
            task = self._tasks.get(task_id)
            if task is None or task.status in TERMINAL:
                raise TaskCancelled(task_id)
            task.asked += 1
            key = f"input-{task.asked}"
            task.pending[key] = dict(request)
            self._step(task, TaskEvent.ASK)
        self._changed_to(task)
        return key

    def wait_answer(self, task_id: str, key: str, timeout: float | None = None) -> Any:
        """Wait for the answer to input request ``key`` and return it.

        The wait ends at the latest when the task expires (or after ``timeout`` seconds of
        real time). Raises :class:`TaskCancelled` when the task ends, is cancelled or
        expires first, ``TimeoutError`` when ``timeout`` passes.
        """
        limit = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while True:
                task = self._tasks.get(task_id)
                if task is None or task.status in TERMINAL or task.expires() <= self.clock():
                    raise TaskCancelled(task_id)
                if key in task.answers:
                    return task.answers.pop(key)
                wait = task.expires() - self.clock()
                if limit is not None:
                    left = limit - time.monotonic()
                    if left <= 0:
                        raise TimeoutError(f"no answer to {key} of task {task_id}")
                    wait = min(wait, left)
                self._changed.wait(max(wait, 0.0))
