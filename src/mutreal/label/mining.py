"""Which fault types occur together in real bugs: a co-occurrence graph and frequent code multisets.

A real bug is a *multiset* of fault codes: ``["ACH", "ACH", "LCH"]`` is a bug with two activation
changes and a loss change, and a higher-order mutant that imitates it must apply ACH twice. So the
combinations mined here are multisets too, written as sorted tuples (``("ACH", "ACH", "LCH")``).
A bug *supports* a combination when the combination is a sub-multiset of the bug's codes; support
is counted over bugs (a bug supports a combination once however many ways it contains it), which
makes support anti-monotone: a sub-multiset is supported by at least the bugs of its super-multiset.

Used by ``mutreal report`` (tables, heat map) and by ``mutreal hom-generate``, which turns the
frequent simulable combinations into higher-order mutants; it sits in ``label``, the stage whose
codes it counts, so that both (``mutation`` and ``report``, later stages) import it forwards. Nothing here knows about results files:
callers pass plain code sequences (see :func:`codes_per_bug` for classify results). The
:class:`Combination` type and :func:`sub_multisets` are :mod:`mutreal.combinations`'s.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import networkx as nx

from mutreal.combinations import Combination, sub_multisets

__all__ = [
    "CodeFilter",
    "Combination",
    "codes_per_bug",
    "cooccurrence_graph",
    "frequent_combinations",
    "normalise_bugs",
    "sub_multisets",
]

#: a filter on codes: a collection of codes to keep, or a predicate on a code
CodeFilter = Collection[str] | Callable[[str], bool]


def _keep(only: CodeFilter | None) -> Callable[[str], bool]:
    if only is None:
        return lambda code: True
    if callable(only):
        return only
    allowed = frozenset(only)
    return lambda code: code in allowed


def normalise_bugs(bugs: Iterable[Sequence[str]], only: CodeFilter | None = None) -> list[Counter[str]]:
    """Each bug's codes as a Counter, codes stripped and upper-cased, filtered by ``only``.

    Bugs left empty by the filter are kept (as empty Counters) so that positions still match.
    """
    keep = _keep(only)
    out: list[Counter[str]] = []
    for bug in bugs:
        if isinstance(bug, str):
            raise TypeError("a bug is a sequence of codes, not one string: wrap it in a list")
        codes = (str(code).strip().upper() for code in bug)
        out.append(Counter(code for code in codes if code and keep(code)))
    return out


def frequent_combinations(
    bugs: Iterable[Sequence[str]],
    min_order: int = 2,
    max_order: int = 6,
    min_support: int = 1,
    only: CodeFilter | None = None,
) -> list[Combination]:
    """Code multisets of ``min_order..max_order`` codes that at least ``min_support`` bugs contain.

    Level-wise (Apriori) over multisets: a combination of order k is only counted when its first
    k-1 codes (sorted) are frequent, which is exact because support is anti-monotone, and keeps
    large bugs cheap when ``min_support`` > 1. ``only`` keeps just some codes (e.g. the codes
    DeepCrime can simulate) before mining; a bug supports a combination of its kept codes.

    Returns combinations sorted by support (descending), then order, then codes.
    """
    if min_order < 1 or max_order < min_order:
        raise ValueError(f"need 1 <= min_order <= max_order, got {min_order}..{max_order}")
    if min_support < 1:
        raise ValueError(f"min_support must be >= 1, got {min_support}")
    counted = [bug for bug in normalise_bugs(bugs, only) if bug]
    result: list[Combination] = []
    # level 1: single codes; per bug the frequent prefixes it contains at the current level
    support: Counter[tuple[str, ...]] = Counter()
    for bug in counted:
        for code in bug:
            support[(code,)] += 1
    frequent = {combo for combo, n in support.items() if n >= min_support}
    if min_order <= 1:
        result.extend(Combination(combo, support[combo]) for combo in frequent)
    prefixes: list[list[tuple[str, ...]]] = [
        [(code,) for code in sorted(bug) if (code,) in frequent] for bug in counted
    ]
    for order in range(2, max_order + 1):
        support = Counter()
        extended: list[list[tuple[str, ...]]] = []
        for bug, bug_prefixes in zip(counted, prefixes, strict=True):
            codes = sorted(bug)
            grown: list[tuple[str, ...]] = []
            for prefix in bug_prefixes:
                used = Counter(prefix)
                last = prefix[-1]
                for code in codes:
                    if code < last or used[code] >= bug[code]:
                        continue
                    grown.append(prefix + (code,))
            for combo in grown:
                support[combo] += 1
            extended.append(grown)
        frequent = {combo for combo, n in support.items() if n >= min_support}
        if not frequent:
            break
        if order >= min_order:
            result.extend(Combination(combo, support[combo]) for combo in frequent)
        prefixes = [[combo for combo in grown if combo in frequent] for grown in extended]
    result.sort(key=lambda c: (-c.support, c.order, c.codes))
    return result


def cooccurrence_graph(bugs: Iterable[Sequence[str]], only: CodeFilter | None = None) -> nx.Graph:
    """Fault codes as nodes, an edge between two codes for each bug holding both.

    Node attributes: ``count`` (components with that code over all bugs) and ``bugs`` (bugs that
    hold it at least once). Edge attribute ``weight``: the number of bugs holding both codes. A
    code repeated within one bug (ACH, ACH) gives a self-loop whose weight is the number of such
    bugs, so the graph keeps the multiset information a heat map's diagonal shows.
    """
    graph = nx.Graph()
    for bug in normalise_bugs(bugs, only):
        for code, n in bug.items():
            if code not in graph:
                graph.add_node(code, count=0, bugs=0)
            graph.nodes[code]["count"] += n
            graph.nodes[code]["bugs"] += 1
        codes = sorted(bug)
        for i, a in enumerate(codes):
            pairs = [(a, a)] if bug[a] > 1 else []
            pairs.extend((a, b) for b in codes[i + 1 :])
            for u, v in pairs:
                if graph.has_edge(u, v):
                    graph.edges[u, v]["weight"] += 1
                else:
                    graph.add_edge(u, v, weight=1)
    return graph


def codes_per_bug(rows: Iterable[Any], simulable_only: bool = False) -> list[list[str]]:
    """The code lists of classified bugs (:class:`mutreal.results.BugResult` or results dicts).

    Error rows and order-0 bugs give no list. ``simulable_only`` keeps the components classify
    found DeepCrime can simulate (a per-component decision, finer than a filter on codes), which
    is what ``hom-generate`` wants.
    """
    out: list[list[str]] = []
    for row in rows:
        status = row.get("status", "ok") if isinstance(row, dict) else row.status
        components = (row.get("components") or []) if isinstance(row, dict) else row.components
        if status != "ok":
            continue
        codes: list[str] = []
        for comp in components:
            if isinstance(comp, dict):
                code, sim = comp.get("code"), comp.get("simulable", comp.get("deepcrime") is not None)
            else:
                code, sim = comp.code, comp.simulable
            if code and (sim or not simulable_only):
                codes.append(str(code).upper())
        if codes:
            out.append(codes)
    return out
