"""Frequent fault-code multisets and the co-occurrence graph, checked against brute force."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.label.mining import (
    Combination,
    codes_per_bug,
    cooccurrence_graph,
    frequent_combinations,
    sub_multisets,
)

CODES = ["ACH", "HLR", "HNE", "LCH", "LRM", "CPP"]
bugs_strategy = st.lists(st.lists(st.sampled_from(CODES), min_size=0, max_size=7), min_size=0, max_size=12)


def brute_force(bugs, min_order, max_order):
    """Support of every multiset by enumerating index subsets of each bug (no shared logic)."""
    support: Counter = Counter()
    for bug in bugs:
        seen = set()
        for k in range(min_order, max_order + 1):
            for idx in itertools.combinations(range(len(bug)), k):
                seen.add(tuple(sorted(bug[i] for i in idx)))
        support.update(seen)
    return support


def is_sub_multiset(small, big):
    need, have = Counter(small), Counter(big)
    return all(have[c] >= n for c, n in need.items())


def test_repeated_codes_are_a_combination():
    bugs = [["ACH", "ACH", "LCH"], ["ACH", "LCH"], ["ACH", "ACH"]]
    combos = {c.codes: c.support for c in frequent_combinations(bugs)}
    assert combos[("ACH", "ACH")] == 2
    assert combos[("ACH", "LCH")] == 2
    assert combos[("ACH", "ACH", "LCH")] == 1
    assert ("ACH", "ACH", "ACH") not in combos


def test_sorted_by_support_then_order_then_codes():
    bugs = [["A", "B", "C"], ["A", "B"], ["B", "C"], ["A", "B", "C"]]
    result = frequent_combinations(bugs)
    keys = [(-c.support, c.order, c.codes) for c in result]
    assert keys == sorted(keys)
    assert result[0] == Combination(("A", "B"), 3)


def test_only_filter_keeps_simulable_codes():
    bugs = [["ACH", "TWS", "HLR"], ["ACH", "HLR"], ["TWS", "IWS"]]
    combos = frequent_combinations(bugs, only={"ACH", "HLR"})
    assert [(c.codes, c.support) for c in combos] == [(("ACH", "HLR"), 2)]
    same = frequent_combinations(bugs, only=lambda code: code in {"ACH", "HLR"})
    assert same == combos


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        frequent_combinations([["A", "B"]], min_order=3, max_order=2)
    with pytest.raises(ValueError):
        frequent_combinations([["A", "B"]], min_support=0)
    with pytest.raises(TypeError):
        frequent_combinations(["AB"])


@settings(max_examples=150, deadline=None)
@given(bugs_strategy, st.integers(1, 4), st.integers(0, 3), st.integers(1, 3))
def test_counts_equal_brute_force(bugs, min_order, extra, min_support):
    max_order = min_order + extra
    expected = {combo: n for combo, n in brute_force(bugs, min_order, max_order).items() if n >= min_support}
    got = {c.codes: c.support for c in frequent_combinations(bugs, min_order, max_order, min_support)}
    assert got == expected


@settings(max_examples=150, deadline=None)
@given(bugs_strategy)
def test_support_is_anti_monotone(bugs):
    combos = {c.codes: c.support for c in frequent_combinations(bugs, min_order=1, max_order=6)}
    for combo, support in combos.items():
        for smaller in sub_multisets(combo, 1, len(combo) - 1):
            assert combos[smaller] >= support, (smaller, combo)
        # support equals the number of bugs containing the multiset
        assert support == sum(is_sub_multiset(combo, bug) for bug in bugs)


@settings(max_examples=100, deadline=None)
@given(bugs_strategy)
def test_cooccurrence_graph_counts(bugs):
    graph = cooccurrence_graph(bugs)
    all_codes = Counter(code for bug in bugs for code in bug)
    assert {n: graph.nodes[n]["count"] for n in graph} == dict(all_codes)
    for a, b in itertools.combinations_with_replacement(sorted(all_codes), 2):
        need = Counter([a, b])
        expected = sum(all(Counter(bug)[c] >= n for c, n in need.items()) for bug in bugs)
        weight = graph.edges[a, b]["weight"] if graph.has_edge(a, b) else 0
        assert weight == expected


def test_combination_round_trip():
    """Every field set to a value other than its default, so a field the dict drops fails."""
    combo = Combination(("ACH", "ACH", "LCH"), 4, exact=2, support_fully_simulable=3)
    assert all(getattr(combo, f.name) != f.default for f in dataclasses.fields(combo))
    assert Combination.from_dict(combo.to_dict()) == combo
    assert combo.order == 3 and str(combo) == "{ACH, ACH, LCH}"


def test_codes_per_bug_from_results_rows():
    rows = [
        {
            "id": "a",
            "status": "ok",
            "components": [{"code": "ACH", "simulable": True}, {"code": "TWS", "simulable": False}],
        },
        {"id": "b", "status": "error", "components": []},
        {"id": "c", "status": "ok", "components": []},
    ]
    assert codes_per_bug(rows) == [["ACH", "TWS"]]
    assert codes_per_bug(rows, simulable_only=True) == [["ACH"]]
