"""How far can precision go by keeping or dropping whole kinds of component? (a precision ceiling)

Scores `mutreal classify --manifest` results against labels exactly as
``shared/tools/score_classify.py`` does (codes matched as multisets per bug), then groups every
predicted component by a coarse, general signature:

* its fault code,
* its element with the indices removed (``model[0].layer[3].units`` -> ``model.layer.units``,
  ``data.y_train.preprocess[0]`` -> ``data.y_train.preprocess``, ``fit.epochs``),
* its change: ``added``, ``removed``, ``increased``, ``decreased``, ``set-to-1`` or ``other``.

For each signature it prints how many of its components matched a label and how many were extra
(within a bug, the matches of a code are shared evenly among that bug's predicted components of
the code, so the figures may be fractional). It then finds the best precision any rule that keeps
or drops whole signatures could reach while recall stays at or above ``--min-recall`` (exactly,
by trying every subset of the signatures that carry extras when there are few of them; else
dropping them in order of their extra/matched ratio and improving that set one signature at a
time), overall and restricted to each benchmark. A rule of that kind is as general as a rule can
be (it never looks at a program), so the ceiling says how much of the precision target is
reachable without rules fitted to single programs.

usage: python benchmarks/classify_ceiling.py RESULTS.jsonl LABELS.csv [--min-recall 0.85] [--json]
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mutreal.study.labelsfile import read_labels, read_results

#: lower recall floors printed too, to show what each point of recall would buy in precision
FRONTIER = (0.8, 0.75, 0.7)
#: at most this many candidate signatures are searched exhaustively (2**n subsets)
EXACT_LIMIT = 14

_INDEX = re.compile(r"\[-?\d+\]")


@dataclass(frozen=True)
class Signature:
    """A coarse, program-independent description of a predicted component."""

    code: str
    element: str
    change: str

    def __str__(self) -> str:
        return f"{self.code} {self.element} {self.change}"


@dataclass
class Bug:
    """One labelled bug: its labelled codes and the signatures of its predicted components."""

    id: str
    benchmark: str
    labelled: Counter = field(default_factory=Counter)
    predicted: list[Signature] = field(default_factory=list)


def element_kind(element: str | None) -> str:
    """``model[0].layer[3].units`` -> ``model.layer.units``; empty when the element is unknown."""
    return _INDEX.sub("", element or "") or "?"


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def change_kind(change: str | None, before: str | None, after: str | None) -> str:
    """added / removed / increased / decreased / set-to-1 / other, from the component's fields."""
    if change == "added" or (change is None and before is None and after is not None):
        return "added"
    if change == "removed" or (change is None and after is None and before is not None):
        return "removed"
    b, a = _number(before), _number(after)
    if a == 1 and b is not None and b != 1:
        return "set-to-1"
    if a is not None and b is not None and a != b:
        return "increased" if a > b else "decreased"
    return "other"


def load(results: str | Path, labels: str | Path) -> list[Bug]:
    """The labelled bugs (with at least one code, as the scoring script counts them) and their predictions."""
    rows = {r.id: r for r in read_results(results)}
    bugs = []
    for lb in read_labels(labels):
        if not lb.codes:
            continue
        row = rows.get(lb.id)
        bug = Bug(lb.id, lb.benchmark or (row.benchmark if row else None) or "?", Counter(lb.codes))
        if row is not None and row.status == "ok":
            for c in row.components:
                bug.predicted.append(
                    Signature(
                        str(c.code).upper(),
                        element_kind(c.element),
                        change_kind(c.extra.get("change"), c.before, c.after),
                    )
                )
        bugs.append(bug)
    return bugs


def score(bugs: Iterable[Bug], dropped: frozenset[Signature] = frozenset()) -> tuple[int, int, int]:
    """(matched, predicted, labelled) with the components of ``dropped`` signatures removed."""
    tp = n_pred = n_true = 0
    for bug in bugs:
        kept = Counter(s.code for s in bug.predicted if s not in dropped)
        tp += sum(min(n, kept[c]) for c, n in bug.labelled.items())
        n_pred += sum(kept.values())
        n_true += sum(bug.labelled.values())
    return tp, n_pred, n_true


def attribute(bugs: Iterable[Bug]) -> dict[Signature, list[float]]:
    """Signature -> [matched, extra]: within a bug the matches of a code are shared evenly among the
    bug's predicted components of that code (the scorer's multiset rule does not say which one)."""
    table: dict[Signature, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for bug in bugs:
        by_code = Counter(s.code for s in bug.predicted)
        for s in bug.predicted:
            share = min(bug.labelled[s.code], by_code[s.code]) / by_code[s.code]
            table[s][0] += share
            table[s][1] += 1 - share
    return dict(table)


@dataclass
class Ceiling:
    precision: float
    recall: float
    dropped: list[Signature]
    baseline_precision: float
    baseline_recall: float
    exact: bool
    bugs: int

    def to_dict(self) -> dict:
        return {
            "bugs": self.bugs,
            "baseline_precision": round(self.baseline_precision, 3),
            "baseline_recall": round(self.baseline_recall, 3),
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "dropped": [str(s) for s in self.dropped],
            "exact": self.exact,
        }


def _pr(tp: int, n_pred: int, n_true: int) -> tuple[float, float]:
    return (tp / n_pred if n_pred else 0.0), (tp / n_true if n_true else 0.0)


def ceiling(bugs: Sequence[Bug], min_recall: float = 0.85, exact_limit: int = EXACT_LIMIT) -> Ceiling:
    """The best precision reachable by dropping whole signatures while recall >= ``min_recall``.

    Ties in precision go to the higher recall, then to fewer dropped signatures. When the unchanged
    results already miss ``min_recall`` (no rule of this kind raises recall), the floor is their
    recall: the ceiling then says what dropping could gain without losing any match.
    """
    base_p, base_r = _pr(*score(bugs))
    min_recall = min(min_recall, base_r)
    table = attribute(bugs)
    candidates = sorted(
        (s for s, (m, x) in table.items() if x > 1e-9),
        key=lambda s: (-(table[s][1] / (table[s][0] + 1e-9)), -table[s][1], str(s)),
    )
    best = (base_p, base_r, 0)
    best_set: frozenset[Signature] = frozenset()

    def consider(dropped: frozenset[Signature]) -> None:
        nonlocal best, best_set
        p, r = _pr(*score(bugs, dropped))
        if r + 1e-12 < min_recall:
            return
        key = (round(p, 12), round(r, 12), -len(dropped))
        if key > (round(best[0], 12), round(best[1], 12), -best[2]):
            best, best_set = (p, r, len(dropped)), dropped

    exact = len(candidates) <= exact_limit
    if exact:
        for n in range(1, len(candidates) + 1):
            for subset in itertools.combinations(candidates, n):
                consider(frozenset(subset))
    else:
        for n in range(1, len(candidates) + 1):  # greedy prefix by extra/matched ratio
            consider(frozenset(candidates[:n]))
        improved = True
        while improved:  # then flip one signature at a time while that helps
            improved = False
            current = best_set
            for s in candidates:
                trial = current - {s} if s in current else current | {s}
                before = best_set
                consider(frozenset(trial))
                if best_set is not before:
                    improved = True
                    break
    order = {s: i for i, s in enumerate(candidates)}
    return Ceiling(
        best[0], best[1], sorted(best_set, key=order.__getitem__), base_p, base_r, exact, len(bugs)
    )


def report(bugs: Sequence[Bug], min_recall: float) -> dict:
    """Everything the script prints, as one JSON-ready object."""
    table = attribute(bugs)
    rows = sorted(table.items(), key=lambda kv: (-kv[1][1], -kv[1][0], str(kv[0])))
    by_benchmark: dict[str, list[Bug]] = defaultdict(list)
    for bug in bugs:
        by_benchmark[bug.benchmark].append(bug)
    return {
        "signatures": [
            {
                "code": s.code,
                "element": s.element,
                "change": s.change,
                "matched": round(m, 2),
                "extra": round(x, 2),
            }
            for s, (m, x) in rows
        ],
        "overall": ceiling(bugs, min_recall).to_dict(),
        "frontier": {str(floor): ceiling(bugs, floor).to_dict() for floor in FRONTIER if floor < min_recall},
        "benchmarks": {
            name: ceiling(group, min_recall).to_dict() for name, group in sorted(by_benchmark.items())
        },
        "min_recall": min_recall,
    }


def _print(rep: dict) -> None:
    print(f"{'code':<5} {'element':<34} {'change':<10} {'matched':>8} {'extra':>7}")
    for r in rep["signatures"]:
        print(
            f"{r['code']:<5} {r['element'][:34]:<34} {r['change']:<10} {r['matched']:>8.2f} {r['extra']:>7.2f}"
        )
    print()
    print(
        f"precision ceiling by keeping/dropping whole signatures, recall >= {rep['min_recall']}"
        " (or >= the current recall where that is lower):"
    )
    for name, c in [("ALL", rep["overall"]), *rep["benchmarks"].items()]:
        how = "exact" if c["exact"] else "greedy+flips"
        print(
            f"  {name:<12} bugs={c['bugs']:<3} now P={c['baseline_precision']:.3f} R={c['baseline_recall']:.3f}"
            f"  ceiling P={c['precision']:.3f} R={c['recall']:.3f} ({how})"
        )
        for s in c["dropped"]:
            print(f"      drop {s}")
    for floor, c in rep["frontier"].items():
        print(
            f"  ALL with recall >= {floor}: ceiling P={c['precision']:.3f} R={c['recall']:.3f}"
            f" dropping {len(c['dropped'])} signatures"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("labels")
    ap.add_argument("--min-recall", type=float, default=0.85)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    args = ap.parse_args(argv)
    rep = report(load(args.results, args.labels), args.min_recall)
    if args.json:
        print(json.dumps(rep))
    else:
        _print(rep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
