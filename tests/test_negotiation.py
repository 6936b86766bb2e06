"""Proposition 3.4: the course's negotiation models, checked exhaustively over a small universe
of versions, and run against the real :class:`Client` and :class:`Server` over a memory pair."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpmini.course.chapters import (
    is_interval,
    negotiate_handshake,
    negotiate_per_request,
    non_empty_subsets,
    set_pairs,
)
from mcpmini.errors import McpminiError
from mcpmini.mcp import (
    KNOWN_VERSIONS,
    LEGACY,
    MODERN,
    Client,
    ClientMode,
    Server,
    Traced,
    is_modern,
    memory_pair,
)

UNIVERSE = ("v1", "v2", "v3", "v4")


def test_set_pairs_enumerates_every_pair_of_non_empty_subsets():
    pairs = list(set_pairs(UNIVERSE))
    assert len(pairs) == (2**4 - 1) ** 2
    assert len(set(pairs)) == len(pairs)


def test_handshake_agrees_exactly_when_offer_in_server_or_fallback_in_client():
    # Part 1, for every offer and fallback (not only the newest ones).
    for c, s in set_pairs(UNIVERSE):
        for offer in c:
            for fallback in s:
                result = negotiate_handshake(c, s, offer, fallback)
                assert result.ok == (offer in s or fallback in c)
                if result.ok:
                    assert result.agreed in set(c) & set(s)


def test_handshake_fails_without_a_common_version_and_sometimes_with_one():
    # Part 2.
    for c, s in set_pairs(UNIVERSE):
        if not set(c) & set(s):
            assert not negotiate_handshake(c, s).ok
    counterexample = negotiate_handshake(("v1", "v3"), ("v1", "v2"))
    assert not counterexample.ok


def test_handshake_with_newest_versions_succeeds_on_overlapping_intervals():
    # Part 3.
    checked = 0
    for c, s in set_pairs(UNIVERSE):
        if is_interval(c, UNIVERSE) and is_interval(s, UNIVERSE) and set(c) & set(s):
            assert negotiate_handshake(c, s).ok
            checked += 1
    assert checked > 0


def test_per_request_agrees_in_at_most_two_requests_iff_sets_intersect():
    # Part 4, for every first choice of the client.
    for c, s in set_pairs(UNIVERSE):
        for first in c:
            result = negotiate_per_request(c, s, first)
            assert result.ok == bool(set(c) & set(s))
            assert result.requests <= 2
            if result.ok:
                assert result.agreed in set(c) & set(s)


def test_per_request_succeeds_wherever_handshake_does_when_sets_intersect():
    gaps = [
        (c, s)
        for c, s in set_pairs(UNIVERSE)
        if negotiate_per_request(c, s).ok and not negotiate_handshake(c, s).ok
    ]
    assert gaps and all(set(c) & set(s) for c, s in gaps)
    assert not [
        (c, s)
        for c, s in set_pairs(UNIVERSE)
        if negotiate_handshake(c, s).ok and not negotiate_per_request(c, s).ok
    ]


def test_exercise_9_1_answers_follow_from_the_models():
    a = (("v1", "v2", "v3"), ("v2", "v3", "v4"))
    b = (("v1", "v4"), ("v1", "v2", "v3"))
    c = (("v1", "v2"), ("v3", "v4"))
    assert [negotiate_handshake(*x).ok for x in (a, b, c)] == [True, False, False]
    assert [negotiate_per_request(*x).ok for x in (a, b, c)] == [True, True, False]
    assert negotiate_per_request(*b).requests == 2


def test_messages_record_the_wire_sequence():
    result = negotiate_per_request(("v1", "v4"), ("v1", "v2"))
    kinds = [m.get("method") or ("error" if "error" in m else "result") for _, m in result.messages]
    assert kinds == ["tools/list", "error", "tools/list", "result"]
    assert result.messages[1][1]["error"]["code"] == -32022
    assert result.messages[1][1]["error"]["data"]["supported"] == ["v1", "v2"]


def test_bad_inputs_are_rejected_with_value_errors():
    with pytest.raises(ValueError):
        negotiate_handshake((), ("v1",))
    with pytest.raises(ValueError):
        negotiate_per_request(("v1",), ("v1",), first="v9")
    with pytest.raises(ValueError):
        is_interval(("v9",), UNIVERSE)


def test_generations_and_interval_helpers():
    assert is_modern(MODERN) and not is_modern(LEGACY) and is_modern("2027-01-01")
    assert list(KNOWN_VERSIONS) == sorted(KNOWN_VERSIONS)
    assert is_interval(("v2", "v3"), UNIVERSE) and not is_interval(("v1", "v3"), UNIVERSE)
    assert sum(1 for _ in non_empty_subsets(UNIVERSE)) == 15


# --- the models against the real Client and Server -----------------------------------------

#: Handshake versions (before 2026-07-28) and per-request ones (from it on): one small
#: universe per generation, since each model describes one generation's rule.
HANDSHAKE_UNIVERSE = ("2024-11-05", "2025-03-26", "2025-06-18", LEGACY)
PER_REQUEST_UNIVERSE = (MODERN, "2026-12-01", "2027-06-01", "2027-12-01")


def _real(mode: ClientMode, client: tuple[str, ...], server: tuple[str, ...]) -> tuple:
    """``(agreed version or None, requests the client sent)`` of the real pair over memory."""
    transport = Traced(memory_pair(Server("s", "1", versions=server)))
    try:
        agreed: str | None = (
            Client(transport, mode=mode, versions=client, timeout=5).connect().version
        )
    except McpminiError:
        agreed = None
    sent = [e.json() for e in transport.trace.events if e.direction == "send"]
    return agreed, sum(1 for m in sent if "id" in m)


def _pairs(universe: tuple[str, ...]) -> st.SearchStrategy[tuple[tuple[str, ...], ...]]:
    subset = st.sets(st.sampled_from(universe), min_size=1).map(lambda s: tuple(sorted(s)))
    return st.tuples(subset, subset)


@settings(max_examples=120)
@given(_pairs(HANDSHAKE_UNIVERSE))
def test_the_handshake_model_agrees_with_the_real_client_and_server(pair):
    c, s = pair
    model = negotiate_handshake(c, s)
    assert _real(ClientMode.LEGACY, c, s) == (model.agreed, model.requests)


@settings(max_examples=120)
@given(_pairs(PER_REQUEST_UNIVERSE))
def test_the_per_request_model_agrees_with_the_real_client_and_server(pair):
    c, s = pair
    model = negotiate_per_request(c, s)
    assert _real(ClientMode.MODERN, c, s) == (model.agreed, model.requests)


@pytest.mark.parametrize("mode", [ClientMode.LEGACY, ClientMode.MODERN])
def test_both_models_agree_with_the_real_pair_on_every_pair_of_version_sets(mode):
    negotiate = negotiate_handshake if mode is ClientMode.LEGACY else negotiate_per_request
    universe = HANDSHAKE_UNIVERSE if mode is ClientMode.LEGACY else PER_REQUEST_UNIVERSE
    disagree = []
    for c, s in set_pairs(universe):
        model = negotiate(c, s)
        if _real(mode, c, s) != (model.agreed, model.requests):
            disagree.append((c, s))
    assert disagree == []
    # the grid is not trivial: both outcomes occur in each generation
    outcomes = {negotiate(c, s).ok for c, s in set_pairs(universe)}
    assert outcomes == {True, False}
