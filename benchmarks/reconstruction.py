"""How many components of real faults become mutants, and why the others do not (no training).

``validate-operators`` counts only the bugs whose every component is simulable; ``compare
--mutants reconstruct`` trains the mutants of every simulable component, also in bugs with others
no operator makes. This prints what compare gets, over a manifest of real bugs: the simulable
components, how many got an edit (a mutant), how many were reconstructed exactly (classify finds
nothing left at their element), the failures by reason with the bug and detail, where the values
came from (written, resolved, folded, the catalogue's), and the mutant sets compare writes: one
first-order mutant per component, a higher-order one per bug of several (``--mutants``, slower:
each set is classified again).

Usage (paths in the manifest are relative to it; run from its folder or give it whole):
``python benchmarks/reconstruction.py MANIFEST [--mutants]``.
"""

from __future__ import annotations

import argparse
import collections
import os
import tempfile

from mutreal.campaigns.mutants import reconstruct_mutants
from mutreal.campaigns.reproduce import entry_program
from mutreal.label.classify import expand_side
from mutreal.manifest import read_manifest
from mutreal.study.validate import validate_bug


def components(manifest: str) -> None:
    tally: collections.Counter[str] = collections.Counter()
    origins: collections.Counter[str] = collections.Counter()
    failures = []
    for row in read_manifest(manifest):
        try:
            bug = validate_bug(row, partial=True)
        except Exception as exc:  # one bad bug never stops the count; it is listed instead
            tally["bugs that could not be validated"] += 1
            failures.append(f"  {row.id}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        tally[f"bugs {bug.status}"] += 1
        attempted = [c for c in bug.components if c.status != "not_simulable"]
        tally["bugs with a simulable component"] += bool(attempted)
        for c in attempted:
            tally["simulable components"] += 1
            tally["  with a mutant"] += c.applied
            tally["  reconstructed exactly"] += c.reconstructed
            tally["  completed by another operator"] += bool(c.completions)
            if c.value_origin:
                origins[c.value_origin] += 1
            if not c.reconstructed:
                tally[f"  not reconstructed: {c.status}"] += 1
                failures.append(f"  {bug.id}  {c.operator} {c.element}: {c.status}: {c.detail[:200]}")
    for key in sorted(tally, key=lambda k: (not k.startswith("bugs"), k)):
        print(f"{key:36s} {tally[key]}")
    print("value origins: " + ", ".join(f"{k} {v}" for k, v in sorted(origins.items())))
    print("not reconstructed:")
    print("\n".join(failures))


def mutant_sets(manifest: str) -> None:
    tally: collections.Counter[str] = collections.Counter()
    base = tempfile.mkdtemp(prefix="mutreal-reconstruction-")
    for i, row in enumerate(read_manifest(manifest)):
        fixed, buggy = expand_side(row.fixed), expand_side(row.buggy)
        if not fixed or not buggy:
            continue
        try:
            # The program compare would run: the manifest's entry, the only file, or the one calling fit.
            entry = entry_program(fixed, (row.cells.get("entry") or "").strip() or None)
            made = reconstruct_mutants(row.id, row.benchmark, buggy, fixed, entry, os.path.join(base, str(i)))
        except Exception as exc:  # one bad bug never stops the count
            tally[f"bugs failing: {type(exc).__name__}"] += 1
            print(f"  {row.id}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        if made.reason:
            tally["bugs without a mutant"] += 1
            continue
        orders = [m.provenance.get("order") or 0 for m in made.mutants]
        tally["bugs with mutants"] += 1
        tally["first-order mutants"] += orders.count(1)
        tally["higher-order mutants"] += sum(o > 1 for o in orders)
        tally["HOMs whose parts all have a first-order mutant"] += any(
            o > 1 for o in orders
        ) and orders.count(1) == max(orders)
        tally["bugs noting a catalogue value"] += any("catalogue" in n for n in made.notes)
    for key in sorted(tally):
        print(f"{key:48s} {tally[key]}")
    print(f"(mutants under {base})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manifest")
    parser.add_argument(
        "--mutants", action="store_true", help="also write compare's mutant sets and count them"
    )
    args = parser.parse_args()
    components(args.manifest)
    if args.mutants:
        mutant_sets(args.manifest)


if __name__ == "__main__":
    main()
