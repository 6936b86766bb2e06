"""``subscriptions/listen`` (2026-07-28), free of I/O: filters, the acknowledgement, tagging.

A client opens a long-lived stream with ``subscriptions/listen {notifications: FILTER}``; the
server answers first with ``notifications/subscriptions/acknowledged`` naming the filter it
agreed to honour, then sends only the notification types the filter asked for, each carrying
the subscription's id (the listen request's JSON-RPC id) in
``_meta["io.modelcontextprotocol/subscriptionId"]``; the listen *result* is sent only when
the server ends the subscription.

Rules of this module:

* What a server can deliver is read from its ``server/discover`` capabilities
  (``listChanged`` of tools, prompts, resources; ``subscribe`` of resources; the tasks
  extension for ``taskIds``, the status notifications of those tasks): the agreed filter is
  the requested one narrowed to those (``Server.on_subscriptions_listen``).
* Which filter key opts in to which notification is the ``filter_key`` of its row in
  :mod:`.methods`; this module names no method.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .envelope import TASKS_EXTENSION, MetaKey
from .jsonrpc import JsonId, Notification, Response
from .methods import Method, method_spec

__all__ = [
    "SUBSCRIPTION_KEY",
    "acknowledgement",
    "agreed_filter",
    "ended",
    "tagged",
    "wants",
]

#: Where a listen notification names its subscription (a row of the envelope catalogue).
SUBSCRIPTION_KEY = MetaKey.SUBSCRIPTION_ID.value
_SERVER_INFO_KEY = MetaKey.SERVER_INFO.value


def agreed_filter(requested: Mapping[str, Any], capabilities: Mapping[str, Any]) -> dict[str, Any]:
    """The part of ``requested`` a server with ``capabilities`` can honour.

    Raises ``ValueError`` when ``requested`` is not a filter (a boolean flag that is not a
    boolean, ``resourceSubscriptions`` or ``taskIds`` that is not a list of strings).
    """
    agreed: dict[str, Any] = {}
    for family, key in (
        ("tools", "toolsListChanged"),
        ("prompts", "promptsListChanged"),
        ("resources", "resourcesListChanged"),
    ):
        value = requested.get(key, False)
        if not isinstance(value, bool):
            raise ValueError(f"notifications.{key} must be a boolean")
        caps = capabilities.get(family)
        if value and isinstance(caps, Mapping) and caps.get("listChanged") is True:
            agreed[key] = True
    uris = requested.get("resourceSubscriptions", [])
    if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
        raise ValueError("notifications.resourceSubscriptions must be a list of URIs")
    resources = capabilities.get("resources")
    if uris and isinstance(resources, Mapping) and resources.get("subscribe") is True:
        agreed["resourceSubscriptions"] = list(uris)
    task_ids = requested.get("taskIds", [])
    if not isinstance(task_ids, list) or not all(isinstance(t, str) for t in task_ids):
        raise ValueError("notifications.taskIds must be a list of task ids")
    extensions = capabilities.get("extensions")
    if task_ids and isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions:
        agreed["taskIds"] = list(task_ids)
    return agreed


def wants(agreed: Mapping[str, Any], notification: Notification) -> bool:
    """Whether a subscription with the ``agreed`` filter receives ``notification``."""
    spec = method_spec(notification.method)
    key = spec.filter_key if spec is not None else None
    if key is None:
        return False
    if key in ("resourceSubscriptions", "taskIds"):  # the URI or task id must be listed
        named = (notification.params or {}).get(
            "uri" if key == "resourceSubscriptions" else "taskId"
        )
        return named in agreed.get(key, [])
    return agreed.get(key) is True


def tagged(notification: Notification, subscription: JsonId) -> Notification:
    """``notification`` with the subscription id in its ``params._meta``."""
    params = dict(notification.params or {})
    meta = dict(params.get("_meta") or {})
    meta[SUBSCRIPTION_KEY] = subscription
    params["_meta"] = meta
    return Notification(notification.method, params)


def acknowledgement(subscription: JsonId, agreed: Mapping[str, Any]) -> Notification:
    """The first message of a listen stream: the agreed filter, tagged."""
    return Notification(
        Method.NOTIFICATIONS_SUBSCRIPTIONS_ACKNOWLEDGED,
        {"notifications": dict(agreed), "_meta": {SUBSCRIPTION_KEY: subscription}},
    )


def ended(subscription: JsonId, server_info: Mapping[str, str]) -> Response:
    """The listen result sent when the server ends the subscription (e.g. at shutdown)."""
    meta = {SUBSCRIPTION_KEY: subscription, _SERVER_INFO_KEY: dict(server_info)}
    return Response(subscription, {"resultType": "complete", "_meta": meta})
