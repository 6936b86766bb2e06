"""CCA-F 2.2: structured errors and a retry policy over injected faults.

:class:`ErrorCategory` and :func:`error_result` are the four error kinds as MCP tool
results (``isError`` is the protocol's field, ``errorCategory`` / ``isRetryable`` are a
convention inside the content); :func:`policy_for` and :func:`simulate_retries` run a retry
policy over seeded, injected faults and count the outcomes. Deterministic: random choices
come from ``random.Random(seed)``.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "ErrorCategory",
    "Policy",
    "RetryStats",
    "error_result",
    "policy_for",
    "simulate_retries",
]


# --- 2.2: structured errors and a retry policy -----------------------------------------


class ErrorCategory(StrEnum):
    """The four kinds of tool failure (a convention carried inside the result content)."""

    TRANSIENT = "transient"  # timeout, service down: may work if tried again later
    VALIDATION = "validation"  # the input is wrong: the model must change it
    BUSINESS = "business"  # a rule forbids it: explain to the user, do not retry
    PERMISSION = "permission"  # not allowed for this caller: escalate to a human


_RETRYABLE = {ErrorCategory.TRANSIENT}


def error_result(category: ErrorCategory, message: str, **details: Any) -> dict[str, Any]:
    """An MCP ``tools/call`` result reporting a failure of ``category``.

    ``isError`` is the protocol's field; ``errorCategory``, ``isRetryable`` and
    ``message`` are a convention serialised as JSON text inside ``content`` (and
    mirrored in ``structuredContent``), which a client or model reads like any result.
    """
    body = {
        "errorCategory": category.value,
        "isRetryable": category in _RETRYABLE,
        "message": message,
        **details,
    }
    return {
        "content": [{"type": "text", "text": json.dumps(body, ensure_ascii=False)}],
        "structuredContent": body,
        "isError": True,
    }


@dataclass(frozen=True)
class Policy:
    """What the agent does with one error category: retry (with backoff) or an action."""

    retry: bool
    action: str
    max_attempts: int = 1


def policy_for(category: ErrorCategory) -> Policy:
    """The track's policy: transient → retry with backoff (4 attempts in all);
    validation → the model fixes the input; business → explain to the user;
    permission → escalate."""
    return {
        ErrorCategory.TRANSIENT: Policy(True, "retry with backoff", 4),
        ErrorCategory.VALIDATION: Policy(False, "fix the input and call again"),
        ErrorCategory.BUSINESS: Policy(False, "explain to the user"),
        ErrorCategory.PERMISSION: Policy(False, "escalate to a human"),
    }[category]


@dataclass(frozen=True)
class RetryStats:
    """Outcome counts of :func:`simulate_retries` for one policy.

    ``outcomes`` maps ``(category or "ok"/"empty", outcome)`` to a count; ``calls`` is
    the number of tool calls made, ``wait_s`` the backoff time the schedule asked for
    (computed, never slept).
    """

    policy: str
    requests: int
    calls: int
    wait_s: float
    outcomes: dict[tuple[str, str], int]

    def rows(self) -> list[dict[str, Any]]:
        """The outcomes as table rows: ``kind``, ``outcome``, ``count``."""
        return [
            {"kind": k, "outcome": o, "count": n} for (k, o), n in sorted(self.outcomes.items())
        ]


_FAULTS = (
    ("ok", 0.45),
    ("empty", 0.10),
    ("transient", 0.20),
    ("validation", 0.12),
    ("business", 0.08),
    ("permission", 0.05),
)


def simulate_retries(
    requests: int = 200, seed: int = 0, policy: str = "structured", base_delay: float = 0.5
) -> RetryStats:
    """Run ``requests`` tool requests over injected faults and count what happens.

    Each request draws one fault (45 % ok, 10 % a valid empty result, 20 % transient
    lasting 1–6 failed calls, 12 % validation, 8 % business rule, 5 % permission).
    ``policy="structured"`` reads ``errorCategory`` / ``isRetryable`` and follows
    :func:`policy_for`; ``"naive"`` sees only "it failed" and retries every error up to
    4 attempts with the same input; ``"none"`` never retries. Backoff doubles from
    ``base_delay``. Returns :class:`RetryStats`; raises :class:`ValueError` for an
    unknown policy.
    """
    if policy not in ("structured", "naive", "none"):
        raise ValueError(f"unknown policy {policy!r}; expected structured, naive or none")
    rng = random.Random(seed)
    kinds, weights = zip(*_FAULTS)
    counts: Counter[tuple[str, str]] = Counter()
    calls, wait = 0, 0.0
    for _ in range(requests):
        kind = rng.choices(kinds, weights)[0]
        outage = rng.randint(1, 6) if kind == "transient" else 0
        if kind in ("ok", "empty"):
            calls += 1
            counts[(kind, "answered" if kind == "ok" else "answered: no results")] += 1
            continue
        category = ErrorCategory(kind)
        attempts = 0
        while True:
            attempts += 1
            calls += 1
            failed = attempts <= outage if kind == "transient" else True
            if not failed:
                counts[(kind, "recovered by retry")] += 1
                break
            limit = (
                policy_for(category).max_attempts
                if policy == "structured"
                else 4
                if policy == "naive"
                else 1
            )
            if attempts < limit:
                wait += base_delay * 2 ** (attempts - 1)
                continue
            if policy != "structured":
                counts[(kind, "gave up: generic failure")] += 1
            elif kind == "transient":
                counts[(kind, "escalated with partial result")] += 1
            elif kind == "validation":
                calls += 1  # the model corrects the input once; the corrected call succeeds
                counts[(kind, "fixed by the model")] += 1
            elif kind == "business":
                counts[(kind, "explained to the user")] += 1
            else:
                counts[(kind, "escalated to a human")] += 1
            break
    return RetryStats(policy, requests, calls, wait, dict(counts))
