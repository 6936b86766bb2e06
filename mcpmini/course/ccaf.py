"""The runnable side of the CCA-F Domain 2 track (notebooks ``notebooks/ccaf/``).

Each task statement gets something to run and measure, built on the runtime:

* 2.1 — :data:`TOOLSETS` (vague, rewritten, renamed and split descriptions of one support
  and research agent's tools) and :data:`REQUESTS` (34 requests with their intent);
  :func:`routing_accuracy` routes every request with :func:`mcpmini.agent.route`, the
  description-based router behind :class:`~mcpmini.agent.RouterModel`.
* 2.2 — :class:`ErrorCategory` and :func:`error_result` (the four error kinds as MCP tool
  results: ``isError`` is the protocol's field, ``errorCategory`` / ``isRetryable`` are a
  convention inside the content), :func:`policy_for` and :func:`simulate_retries`, which
  runs a retry policy over seeded, injected faults and counts the outcomes.
* 2.3 — :data:`DISTRACTORS` and :func:`selection_accuracy`: the same requests routed by an
  agent holding 5 tools or up to 18.
* 2.5 — :func:`make_sample_repo` and :data:`TOOL_TASKS`, graded by :func:`grade_tool_choices`.

Everything is deterministic: random choices come from ``random.Random(seed)``.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..agent import route

__all__ = [
    "DISTRACTORS",
    "REQUESTS",
    "TOOLSETS",
    "TOOL_TASKS",
    "ErrorCategory",
    "Policy",
    "RetryStats",
    "RoutingResult",
    "error_result",
    "expected_tool",
    "grade_tool_choices",
    "make_sample_repo",
    "plot_routing",
    "plot_selection",
    "policy_for",
    "routing_accuracy",
    "selection_accuracy",
    "simulate_retries",
]


# --- 2.1: descriptions and routing -----------------------------------------------------


def _tool(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": {"input": {"type": "string"}}},
    }


_WEB = (
    "Reads the web search results or a web page the research agent fetched and pulls out "
    "facts, quotes and links. Input: a url or the page text. "
    "Not for uploaded files, PDF, contracts or invoices."
)
_CUSTOMER = (
    "Looks up a customer account by email or customer id: plan, contact details and "
    "account status (active or closed). Not for orders, shipping or refunds."
)
_ORDER = (
    "Looks up one order by order number: items, payment, shipping status and tracking "
    "number. Not for refunds or money back."
)
_REFUND = (
    "Pays money back for an order that was returned, damaged or charged twice. Input: "
    "order number, amount and reason. Not for order status or account details."
)

TOOLSETS: dict[str, list[dict[str, Any]]] = {
    # what a first draft often looks like: names and one-line descriptions that overlap
    "vague": [
        _tool("analyze_content", "Analyzes content and returns the results."),
        _tool("analyze_document", "Analyzes a document and returns the results."),
        _tool("get_customer", "Gets customer information."),
        _tool("get_order", "Gets order information for a customer."),
        _tool("process_refund", "Processes a customer request for an order."),
    ],
    # same names; each description says purpose, input, and when not to use the tool
    "rewritten": [
        _tool("analyze_content", _WEB),
        _tool(
            "analyze_document",
            "Works on an uploaded file (PDF, contract, report, invoice): extracts figures, "
            "dates and amounts, writes a summary with the key points, or checks whether a "
            "quote or citation matches the source. Input: the file id. "
            "Not for web pages or search results.",
        ),
        _tool("get_customer", _CUSTOMER),
        _tool("get_order", _ORDER),
        _tool("process_refund", _REFUND),
    ],
    # the misrouted generic tools renamed and split by purpose
    "split": [
        _tool("extract_web_results", _WEB),
        _tool(
            "extract_data_points",
            "Extracts figures, each date, amounts and totals from an uploaded file (PDF, "
            "contract, report, invoice). Input: the file id and the fields wanted. "
            "Not for summaries, key points, overviews or citation checks.",
        ),
        _tool(
            "summarize_document",
            "Writes a short summary of an uploaded file (PDF, contract, report): overview, "
            "key points or bullet points; can condense it to one paragraph. Input: the file "
            "id and the length. Not for single figures, dates or citation checks.",
        ),
        _tool(
            "verify_citation",
            "Checks whether a quote, claim or citation in a draft really appears in its "
            "source document (contract, report, article), with page and exact wording. "
            "Input: the quote and the file id. Not for summaries or figures.",
        ),
        _tool("get_customer", _CUSTOMER),
        _tool("get_order", _ORDER),
        _tool("process_refund", _REFUND),
    ],
}

# (request, intent): the intent names the job; expected_tool() maps it to a tool per set
REQUESTS: tuple[tuple[str, str], ...] = (
    ("analyze the search results for recent battery recycling news", "web"),
    ("pull the key facts from this web page about the new EU AI rules", "web"),
    ("what do the top search results say about solid state batteries", "web"),
    ("collect quotes and links from the pages the search returned", "web"),
    ("analyze this article url https://example.test/post and list its claims", "web"),
    ("extract the invoice total and due date from the uploaded PDF", "extract"),
    ("what amounts are listed in the contract file I uploaded", "extract"),
    ("pull every date out of the attached report", "extract"),
    ("analyze the quarterly report and give me the revenue figure", "extract"),
    ("find the payment amount in this invoice", "extract"),
    ("summarize the uploaded contract in three bullet points", "summarize"),
    ("give me a short overview of the attached report", "summarize"),
    ("what are the key points of this PDF", "summarize"),
    ("analyze the document and write a summary for the manager", "summarize"),
    ("condense the 40 page report into one paragraph", "summarize"),
    ("check whether the quote in my draft matches the source document", "verify"),
    ("does the citation on page 4 really say that", "verify"),
    ("verify this citation against the original report", "verify"),
    ("is the claim we attribute to the contract actually in it", "verify"),
    ("what plan is the customer with email ana@example.test on", "customer"),
    ("show the account status for customer 8812", "customer"),
    ("I need the contact details of this customer", "customer"),
    ("who holds the account registered to this email address", "customer"),
    ("is customer 1204 still active", "customer"),
    ("where is order 5531, has it shipped yet", "order"),
    ("give me the tracking number for order 9001", "order"),
    ("what items were in order 7720", "order"),
    ("has the payment for this order gone through", "order"),
    ("check the shipping status of my order", "order"),
    ("the customer was charged twice for order 4410, pay it back", "refund"),
    ("issue a refund for the damaged blender in order 3307", "refund"),
    ("the package came back returned, refund the customer", "refund"),
    ("give the customer their money back for order 6001", "refund"),
    ("refund 20 dollars for a late delivery on order 8080", "refund"),
)

_BY_INTENT = {
    "merged": {
        "web": "analyze_content",
        "extract": "analyze_document",
        "summarize": "analyze_document",
        "verify": "analyze_document",
        "customer": "get_customer",
        "order": "get_order",
        "refund": "process_refund",
    },
    "split": {
        "web": "extract_web_results",
        "extract": "extract_data_points",
        "summarize": "summarize_document",
        "verify": "verify_citation",
        "customer": "get_customer",
        "order": "get_order",
        "refund": "process_refund",
    },
}


def expected_tool(intent: str, toolset: str) -> str:
    """The tool that should serve ``intent`` in the tool set named ``toolset``.

    Raises :class:`KeyError` for an unknown intent.
    """
    return _BY_INTENT["split" if toolset == "split" else "merged"][intent]


@dataclass(frozen=True)
class RoutingResult:
    """Routing of every request over one tool set: hits, misses and per-tool accuracy.

    ``misses`` holds ``(request, expected, chosen)`` with ``chosen`` ``None`` when no
    tool scored above zero; ``ties`` counts decisions where several tools shared the top.
    """

    toolset: str
    hits: int
    total: int
    misses: tuple[tuple[str, str, str | None], ...]
    ties: int
    per_tool: dict[str, tuple[int, int]]

    @property
    def accuracy(self) -> float:
        """Share of requests routed to the expected tool (0–1)."""
        return self.hits / self.total if self.total else 0.0


def routing_accuracy(
    toolset: str | Sequence[Mapping[str, Any]],
    requests: Sequence[tuple[str, str]] = REQUESTS,
    name: str | None = None,
) -> RoutingResult:
    """Route ``requests`` over a tool set (a :data:`TOOLSETS` key or a list of definitions).

    ``name`` says which intent mapping applies to a custom list (``"split"`` or any
    other name for the merged one). Returns a :class:`RoutingResult`.
    """
    label = toolset if isinstance(toolset, str) else (name or "custom")
    tools = TOOLSETS[toolset] if isinstance(toolset, str) else list(toolset)
    hits, ties = 0, 0
    misses: list[tuple[str, str, str | None]] = []
    per_tool: dict[str, list[int]] = {}
    for text, intent in requests:
        want = expected_tool(intent, label)
        decision = route(text, tools)
        ties += len(decision.tied) > 1
        tally = per_tool.setdefault(want, [0, 0])
        tally[1] += 1
        if decision.tool == want:
            hits += 1
            tally[0] += 1
        else:
            misses.append((text, want, decision.tool))
    return RoutingResult(
        label,
        hits,
        len(requests),
        tuple(misses),
        ties,
        {k: (v[0], v[1]) for k, v in per_tool.items()},
    )


def plot_routing(results: Sequence[RoutingResult], dpi: int = 72) -> Any:
    """A bar per tool set: routing accuracy in percent. Returns the matplotlib figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.0, 2.8), dpi=dpi)
    names = [r.toolset for r in results]
    values = [100 * r.accuracy for r in results]
    bars = ax.bar(names, values, color=["#c44e52", "#55a868", "#4c72b0"][: len(names)])
    for bar, v in zip(bars, values):
        ax.text(bar.get_x() + bar.get_width() / 2, v + 1, f"{v:.0f} %", ha="center")
    ax.set_ylim(0, 110)
    ax.set_ylabel("routed correctly (%)")
    ax.set_title(f"{results[0].total} requests, description-based router")
    fig.tight_layout()
    return fig


def plot_selection(rows: Sequence[Mapping[str, Any]], dpi: int = 72) -> Any:
    """Selection accuracy (mean, min–max band) against the number of tools held."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.0, 2.8), dpi=dpi)
    xs = [r["tools"] for r in rows]
    ax.fill_between(
        xs,
        [100 * r["min"] for r in rows],
        [100 * r["max"] for r in rows],
        alpha=0.2,
        label="min-max over seeds",
    )
    ax.plot(xs, [100 * r["accuracy"] for r in rows], marker="o", label="mean")
    ax.set_xlabel("tools the agent holds")
    ax.set_ylabel("right tool chosen (%)")
    ax.set_xticks(xs)
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig


# --- 2.3: how many tools one agent holds -----------------------------------------------

DISTRACTORS: tuple[dict[str, Any], ...] = (
    _tool("search_web", "Runs a web search for a topic and returns the result pages."),
    _tool("fetch_url", "Downloads the raw content of a web page from its url."),
    _tool("translate_text", "Translates text or a document into another language."),
    _tool("send_email", "Sends an email to a customer or a colleague."),
    _tool("create_ticket", "Opens a support ticket for a customer problem with an order."),
    _tool("update_customer", "Changes a customer's contact details, email or plan."),
    _tool("cancel_order", "Cancels an order that has not shipped yet."),
    _tool("track_shipment", "Tracks a parcel with the carrier by its tracking number."),
    _tool("generate_report", "Writes a report with figures and key points for a manager."),
    _tool("classify_document", "Classifies an uploaded file as invoice, contract or report."),
    _tool("check_payment", "Checks whether a payment was charged, failed or charged twice."),
    _tool("schedule_callback", "Schedules a phone call back to a customer."),
    _tool("log_note", "Adds an internal note to a customer account or an order."),
)


def selection_accuracy(
    counts: Sequence[int] = (5, 8, 12, 18),
    seeds: int = 20,
    requests: Sequence[tuple[str, str]] = REQUESTS,
) -> list[dict[str, Any]]:
    """Routing accuracy of an agent holding the 5 rewritten core tools plus distractors.

    For each tool count ``n`` (5 to 18) and each of ``seeds`` seeds, ``n - 5``
    distractors are drawn from :data:`DISTRACTORS` and the tool list is shuffled (order
    decides ties). Returns one row per count: ``tools``, ``accuracy`` (mean), ``min``,
    ``max`` and ``stolen`` (mean share of requests a distractor took). Raises
    :class:`ValueError` for a count outside 5–18.
    """
    core = TOOLSETS["rewritten"]
    rows = []
    for n in counts:
        if not len(core) <= n <= len(core) + len(DISTRACTORS):
            raise ValueError(
                f"tool count must be between {len(core)} and "
                f"{len(core) + len(DISTRACTORS)}, got {n}"
            )
        accs, stolen = [], []
        for seed in range(seeds):
            rng = random.Random(seed)
            tools = core + rng.sample(DISTRACTORS, n - len(core))
            rng.shuffle(tools)
            extra = {t["name"] for t in DISTRACTORS}
            chosen = [route(text, tools).tool for text, _ in requests]
            accs.append(
                sum(c == expected_tool(i, "rewritten") for c, (_, i) in zip(chosen, requests))
                / len(requests)
            )
            stolen.append(sum(c in extra for c in chosen) / len(requests))
        rows.append(
            {
                "tools": n,
                "accuracy": round(sum(accs) / len(accs), 3),
                "min": round(min(accs), 3),
                "max": round(max(accs), 3),
                "stolen": round(sum(stolen) / len(stolen), 3),
            }
        )
    return rows


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


# --- 2.5: built-in tools on a sample repository ----------------------------------------

_SAMPLE = {
    "src/shop/__init__.py": "",
    "src/shop/login.py": (
        "def check_password(user, password):\n"
        "    if not user.verify(password):\n"
        '        raise LoginError("Password is incorrect")\n'
    ),
    "src/shop/payment.py": (
        "from .gateway import charge_card\n\n\n"
        "def pay(order):\n"
        "    if not charge_card(order.card, order.total):\n"
        '        return "Payment declined"\n'
        '    return "ok"\n'
    ),
    "src/shop/gateway.py": "def charge_card(card, amount):\n    return amount < 1000\n",
    "src/shop/refund.py": (
        "from .gateway import charge_card\n\n\n"
        "def refund(order):\n    return charge_card(order.card, -order.total)\n"
    ),
    "tests/test_login.py": "def test_wrong_password_is_refused():\n    assert True\n",
    "tests/test_payment.py": "def test_declined_card():\n    assert True\n",
    "tests/test_refund.py": "def test_refund_is_negative_charge():\n    assert True\n",
    "config/app.yaml": "api:\n  timeout: 30\n  retries: 2\ndb:\n  timeout: 30\n",
    "config/logging.yaml": "level: INFO\n",
    "docs/README.md": "# shop\n\nA toy shop used by the CCA-F track.\n",
}


def make_sample_repo(root: str | Path) -> Path:
    """Write the small sample repository of notebook 2_5 under ``root``; return ``root``."""
    base = Path(root)
    for rel, text in _SAMPLE.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base


# (task in Japanese, the tool to reach for first)
TOOL_TASKS: tuple[tuple[str, str], ...] = (
    ("画面に出る「Payment declined」という文言が、どのファイルから来ているか知りたい", "Grep"),
    ("テストファイル（tests/test_*.py）が全部で何本あるか知りたい", "Glob"),
    ("charge_card を呼んでいる箇所をすべて洗い出したい", "Grep"),
    ("config/ の下にある YAML ファイルの一覧がほしい", "Glob"),
    ("login.py の「Password is incorrect」の 1 か所だけを別の文言にしたい", "Edit"),
    ("新しいファイル CHANGELOG.md を作りたい", "Write"),
    ("Edit が「一致が一意でない」で失敗した。api の timeout だけを 60 にしたい", "Read+Write"),
    ("初めてのリポジトリで、決済の処理がどこから始まるかの入口を探したい", "Grep"),
)


def grade_tool_choices(answers: Mapping[str, str]) -> list[dict[str, Any]]:
    """Grade ``answers`` (task text or its index as a string → tool name) against
    :data:`TOOL_TASKS`. Returns one row per task: ``task``, ``chosen`` (``None`` when
    unanswered), ``key`` and ``ok``. Tool names compare case-insensitively, spaces ignored.
    """

    def norm(s: str) -> str:
        return s.replace(" ", "").lower()

    rows = []
    for n, (task, key) in enumerate(TOOL_TASKS):
        chosen = answers.get(task, answers.get(str(n)))
        rows.append(
            {
                "task": task,
                "chosen": chosen,
                "key": key,
                "ok": chosen is not None and norm(chosen) == norm(key),
            }
        )
    return rows
