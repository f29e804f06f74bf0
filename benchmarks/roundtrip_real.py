"""Round trip on real programs: mutate every fixed program of a manifest, classify(fixed, mutant).

For every fixed program of the manifest (single-file rows) and every registered operator, the
first ``--per-op`` mutants of ``mutate --all`` (every site, every catalogue value, in order; 2 as
issue 22 measured) are classified against their original. Per operator it prints:

- mutants: mutants written;
- exact: classify gives exactly one component, of that operator;
- named: some component of classify's is of that operator;
- no change: classify finds no component at all;
- invalid: the mutant does not parse, or names an API its framework (of the program's era, as
  installed here) lacks (:mod:`mutreal.mutation.operators.written_names`);
- equivalent: mutants not written because the program model finds them equal to the original
  (``mutate`` says so; they are not in "mutants");
- errors: classify or mutate failed on the pair.

Programs are untrusted input: one that fails to parse or extract is counted and skipped.
``--out FILE`` writes one JSON line per mutant (program, operator, name, verdict, components).

    python benchmarks/roundtrip_real.py MANIFEST [--per-op 2] [--jobs N] [--out rows.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

COLUMNS = ("mutants", "exact", "named", "no_change", "invalid", "equivalent", "errors")


def roundtrip_program(path: str, per_op: int = 2, ops: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One row per mutant (and per equivalent mutant not written) of one program."""
    from mutreal.label.classify import classify_pair
    from mutreal.mutation.mutate import Failure, generate
    from mutreal.mutation.operators import Program, registry
    from mutreal.mutation.operators.written_names import missing_names, written_names

    try:
        program = Program.from_file(path)
    except Exception as exc:  # an untrusted program that cannot be read: one row says so
        return [
            {
                "program": path,
                "operator": None,
                "verdict": "program_error",
                "error": f"{type(exc).__name__}: {exc}",
            }
        ]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for op_id in ops or list(registry.operators()):
            made = 0
            # read lazily: the loop stops after `per_op` mutants, and writing every other value of
            # every site first took two thirds of the round trip's time
            items = generate(program, op_id, all_values=True)
            while True:
                try:
                    item = next(items, None)
                except Exception as exc:
                    rows.append(
                        {"program": path, "operator": op_id, "verdict": "error", "error": f"mutate: {exc}"}
                    )
                    break
                if item is None:
                    break
                if isinstance(item, Failure):
                    if item.error.startswith("equivalent"):
                        rows.append(
                            {"program": path, "operator": op_id, "verdict": "equivalent", "error": item.error}
                        )
                    continue
                if made >= per_op:
                    break
                made += 1
                row: dict[str, Any] = {"program": path, "operator": op_id, "mutant": item.name}
                rows.append(row)
                missing = missing_names(written_names(program, item), program.era)
                if missing:
                    row.update(verdict="invalid", error="names missing: " + ", ".join(map(str, missing)))
                    continue
                mpath = os.path.join(tmp, item.name)
                with open(mpath, "w", encoding="utf-8", newline="") as fh:
                    fh.write(item.code)
                try:
                    result = classify_pair(path, mpath, tolerant=True)
                except Exception as exc:
                    row.update(verdict="error", error=f"classify: {type(exc).__name__}: {exc}")
                    continue
                comps = [(c.deepcrime, c.code, c.element) for c in result.components]
                row["components"] = comps
                ops_found = [c[0] for c in comps]
                if not comps:
                    row["verdict"] = "no_change"
                elif len(comps) == 1 and ops_found[0] == op_id:
                    row["verdict"] = "exact"
                elif op_id in ops_found:
                    row["verdict"] = "named"
                else:
                    row["verdict"] = "other"
    return rows


def summarise(rows: Iterable[dict[str, Any]]) -> dict[str, Counter]:
    """Per operator: the counts of :data:`COLUMNS` (``named`` includes ``exact``)."""
    table: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        op = r.get("operator")
        if op is None:
            continue
        v = r["verdict"]
        c = table[op]
        if v == "equivalent":
            c["equivalent"] += 1
            continue
        c["mutants"] += 1
        if v == "exact":
            c["exact"] += 1
            c["named"] += 1
        elif v == "named":
            c["named"] += 1
        elif v == "no_change":
            c["no_change"] += 1
        elif v == "invalid":
            c["invalid"] += 1
        elif v == "error":
            c["errors"] += 1
    return table


def format_table(table: dict[str, Counter]) -> str:
    lines = ["op     " + " ".join(f"{c:>10}" for c in COLUMNS)]
    total: Counter = Counter()
    for op, c in table.items():
        total.update(c)
        lines.append(f"{op:<6} " + " ".join(f"{c[k]:>10}" for k in COLUMNS))
    lines.append("total  " + " ".join(f"{total[k]:>10}" for k in COLUMNS))
    n = total["mutants"]
    if n:
        lines.append(f"exact round trips: {total['exact']}/{n} = {100 * total['exact'] / n:.1f}%")
    return "\n".join(lines)


def fixed_programs(manifest: str) -> list[str]:
    """The fixed file of every single-file row of a manifest (each program once)."""
    from mutreal.manifest import read_manifest

    seen: dict[str, None] = {}
    for row in read_manifest(manifest):
        if len(row.fixed) == 1 and os.path.isfile(row.fixed[0]):
            seen.setdefault(row.fixed[0], None)
    return list(seen)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest")
    ap.add_argument("--per-op", type=int, default=2, help="mutants per (program, operator) (default 2)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", help="one JSON line per mutant")
    ap.add_argument("--op", action="append", help="only these operators (repeatable)")
    args = ap.parse_args(argv)
    programs = fixed_programs(args.manifest)
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            for got in pool.map(
                roundtrip_program, programs, [args.per_op] * len(programs), [args.op] * len(programs)
            ):
                rows += got
    else:
        for p in programs:
            rows += roundtrip_program(p, args.per_op, args.op)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, default=str) + "\n")
    bad = sum(1 for r in rows if r["verdict"] == "program_error")
    print(f"{len(programs)} programs ({bad} could not be read), {time.perf_counter() - start:.0f} s")
    print(format_table(summarise(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
