"""CCA-F 2.1 and 2.3: tool descriptions, routing, and how many tools one agent holds.

* 2.1 — :data:`TOOLSETS` (vague, rewritten, renamed and split descriptions of one support
  and research agent's tools) and :data:`REQUESTS` (34 requests with their intent);
  :func:`routing_accuracy` routes every request with :func:`mcpmini.agent.route`, the
  description-based router behind :class:`~mcpmini.agent.RouterModel`.
* 2.3 — :data:`DISTRACTORS` and :func:`selection_accuracy`: the same requests routed by an
  agent holding 5 tools or up to 18.

Everything is deterministic: random choices come from ``random.Random(seed)``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...agent import route

__all__ = [
    "DISTRACTORS",
    "REQUESTS",
    "TOOLSETS",
    "RoutingResult",
    "expected_tool",
    "plot_routing",
    "plot_selection",
    "routing_accuracy",
    "selection_accuracy",
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


#: The tool sets' names on the figures.
_SET_NAMES = {"vague": "書き直す前", "rewritten": "書き直した後", "split": "改名と分割"}


def plot_routing(results: Sequence[RoutingResult], dpi: int = 72) -> Any:
    """A bar per tool set: routing accuracy in percent, Japanese labels. Returns the figure."""
    from ..plots import figure

    fig, ax = figure(None, (5.0, 2.8), dpi)
    names = [_SET_NAMES.get(r.toolset, r.toolset) for r in results]
    values = [100 * r.accuracy for r in results]
    bars = ax.bar(names, values, color=["#c44e52", "#55a868", "#4c72b0"][: len(names)])
    for bar, v in zip(bars, values):
        ax.text(bar.get_x() + bar.get_width() / 2, v + 1, f"{v:.0f} %", ha="center")
    ax.set_ylim(0, 110)
    ax.set_ylabel("正しく振り分けた割合（%）")
    ax.set_title(f"{results[0].total} 件の依頼、説明文で選ぶルーター")
    fig.tight_layout()
    return fig


def plot_selection(rows: Sequence[Mapping[str, Any]], dpi: int = 72) -> Any:
    """Selection accuracy (mean, min–max band) against the number of tools held, Japanese
    labels. Returns the figure."""
    from ..plots import figure

    fig, ax = figure(None, (5.0, 2.8), dpi)
    xs = [r["tools"] for r in rows]
    ax.fill_between(
        xs,
        [100 * r["min"] for r in rows],
        [100 * r["max"] for r in rows],
        alpha=0.2,
        label="種ごとの最小〜最大",
    )
    ax.plot(xs, [100 * r["accuracy"] for r in rows], marker="o", label="平均")
    ax.set_xlabel("エージェントが持つツールの数")
    ax.set_ylabel("正しいツールを選んだ割合（%）")
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
