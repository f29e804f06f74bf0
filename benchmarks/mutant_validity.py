"""Are the mutants mutreal writes valid programs? A static check of every first-order mutant of the
fixed programs of a runtime manifest, and a seeded sample of them run once.

Usage::

    python benchmarks/mutant_validity.py MANIFEST [--benchmark B] [--limit K] [--json OUT]
        [--skip K] [--run-sample N [--sample-programs K] [--jobs J]] [--seed S] [--time-limit SECONDS]

MANIFEST is a runtime manifest (``id, benchmark, buggy, fixed, entry``; paths relative to its folder,
as ``benchmarks/real_programs.py`` reads it). Why this exists: a mutant that dies on a name mutreal
left unbound or a keyword it added to a call that does not take it measures mutreal, not a fault,
yet reads as a kill. Part (a) makes every mutant ``mutate --all`` would make of each fixed program
(the operators' own edits, before ``mutate``'s refusal of invalid ones, so a defect of an operator is
counted, not hidden) and runs :func:`mutreal.mutation.static_check.check_mutant` on it: names bound
before use, keywords the called API takes in the program's framework (``inspect.signature`` of the
installed keras / tf_keras / tf.compat.v1 object). It prints, per benchmark and per operator,
mutants written and violations, one example per failing cell, and the seconds per program.

Part (b), ``--run-sample N``: N mutants drawn with a seeded generator, spread round-robin over the
(benchmark, operator) cells, each written into a copy of its program's folder (same folder name,
so data beside the program resolves) and trained once by the installed ``mutreal run`` (seed 0 as
its program's run, ``--framework auto``, one call for the whole sample so workers stay warm), beside
one run of each of their programs (in a copy of their own): a mutant whose program fails too is
counted apart ("program failed"), it says nothing of the edit. It prints per benchmark and operator:
written, trained, failed, with the error type and message of one failure per failing cell. With
``--sample-programs K`` the sample is drawn from K programs per benchmark (seeded) checked alone, so
a run sample does not wait for the whole corpus' static check. Failures are printed as the runner reports them; telling invalid, harness
and stillborn failures apart is the runner analysis' job (``run_outcomes`` is the one place to
call it from).

It prints figures; it is not a timed test.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import types
from collections import defaultdict
from pathlib import Path
from typing import Any

from mutreal.mutation.operators import Program, registry
from mutreal.mutation.operators.base import MutationError, apply_edits
from mutreal.mutation.static_check import check_mutant, default_oracle


def read_manifest(path: str, benchmark: str | None, limit: int | None) -> list[dict[str, str]]:
    """The manifest's rows with ``fixed`` resolved to the file that runs (its ``entry`` when a side
    has several files)."""
    base = Path(path).parent
    rows = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if benchmark and row["benchmark"] != benchmark:
                continue
            files = [f for f in (row.get("fixed") or "").split(";") if f]
            if not files:
                continue
            entry = row.get("entry") or ""
            chosen = next((f for f in files if entry and f.endswith(entry)), files[0])
            rows.append({"id": row["id"], "benchmark": row["benchmark"], "file": str(base / chosen)})
    return rows[:limit] if limit else rows


def program_mutants(program: Program) -> list[tuple[str, Any]]:
    """Every first-order mutant the operators make at every site and catalogue value (what
    ``mutate --all`` writes, before it leaves out equivalent and invalid ones; the equivalence
    check, which extracts every mutant, is skipped: it would triple the time), as the operators
    make them: (operator, mutant)."""
    out = []
    for op in registry.operators().values():
        try:
            sites = op.sites(program)
        except Exception:  # noqa: BLE001 - one operator's defect never stops the measurement
            continue
        for site in sites:
            for value in op.values(program, site):
                try:
                    mutant = apply_edits(program, [op.apply(program, site, value, **_opts(op))])
                except (MutationError, Exception):  # noqa: BLE001
                    continue
                out.append((op.id, mutant))
    return out


def _opts(op: Any) -> dict[str, Any]:
    return {"seed": 0} if "seed" in op.options else {}


def static_part(rows: list[dict[str, str]]) -> dict[str, Any]:
    cells: dict[tuple[str, str], dict[str, Any]] = defaultdict(lambda: {"written": 0, "violations": 0, "example": None})
    seconds = []
    made: list[dict[str, Any]] = []
    unread = []
    oracle = default_oracle()
    for row in rows:
        t0 = time.perf_counter()
        try:
            program = Program.from_file(row["file"])
        except Exception as exc:  # noqa: BLE001
            unread.append(f"{row['id']}: {type(exc).__name__}: {exc}")
            continue
        for op_id, mutant in program_mutants(program):
            cell = cells[(row["benchmark"], op_id)]
            cell["written"] += 1
            found = check_mutant(program, mutant, oracle)
            if found:
                cell["violations"] += 1
                cell["example"] = cell["example"] or f"{row['id']} {mutant.name}: {found[0]}"
            else:
                made.append({"id": row["id"], "benchmark": row["benchmark"], "file": row["file"],
                             "operator": op_id, "name": mutant.name, "code": mutant.code,
                             "encoding": mutant.encoding})
        seconds.append(time.perf_counter() - t0)
        bad = sum(c["violations"] for (b, _), c in cells.items())
        print(f"[{len(seconds)}/{len(rows)}] {row['id']}: {seconds[-1]:.1f} s, violations so far {bad}",
              file=sys.stderr, flush=True)
    return {"cells": cells, "seconds": seconds, "valid": made, "unread": unread}


def _table(cells: dict[tuple[str, str], dict[str, Any]], cols: list[str], by: int) -> list[str]:
    agg: dict[str, dict[str, Any]] = defaultdict(lambda: {c: 0 for c in cols} | {"example": None})
    for key, cell in cells.items():
        a = agg[key[by]]
        for c in cols:
            a[c] += cell[c]
        a["example"] = a["example"] or cell.get("example")
    lines = [f"{'':<28}" + "".join(f"{c:>15}" for c in cols)]
    for name in sorted(agg):
        a = agg[name]
        lines.append(f"{name:<28}" + "".join(f"{a[c]:>15}" for c in cols))
    total = {c: sum(a[c] for a in agg.values()) for c in cols}
    lines.append(f"{'total':<28}" + "".join(f"{total[c]:>15}" for c in cols))
    examples = [f"  {name}: {agg[name]['example']}" for name in sorted(agg) if agg[name]["example"]]
    return lines + (["examples:"] + examples if examples else [])


def sample(valid: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` mutants spread round-robin over the (benchmark, operator) cells, seeded."""
    rng = random.Random(seed)
    cells: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for m in valid:
        cells[(m["benchmark"], m["operator"])].append(m)
    for v in cells.values():
        rng.shuffle(v)
    order = sorted(cells)
    rng.shuffle(order)
    out: list[dict[str, Any]] = []
    while len(out) < n and any(cells[k] for k in order):
        for k in order:
            if cells[k] and len(out) < n:
                out.append(cells[k].pop())
    return out


def _copy_folder(src: Path, dst: Path) -> None:
    """The program's folder copied under its own name (files over 200 MB linked, not copied)."""

    def copy(s: str, d: str) -> None:
        if os.path.getsize(s) > 200 * 2**20:
            os.symlink(s, d)
        else:
            shutil.copy2(s, d)

    shutil.copytree(src, dst, copy_function=copy, symlinks=True)


#: the run sample's columns: a mutant trained, or who failed (analysis.run_failures: invalid and harness
#: are mutreal's defects, stillborn the operator's own effect, "model" a crash after training began,
#: which compare counts as a kill), or its program failed too (which says nothing of the edit)
RUN_COLUMNS = ("written", "trained", "invalid", "harness", "stillborn", "model", "program failed")


def failure_kind(mutant: dict[str, Any], run: dict[str, Any], program_run: dict[str, Any]) -> str:
    """The run sample's column of one mutant's run, decided by compare's own classifier."""
    from mutreal.analysis.run_failures import classify_failure, edit_names
    from mutreal.execution.records import RunRecord

    if run.get("outcome") == "ok":
        return "trained"
    if program_run.get("outcome") != "ok":
        return "program failed"
    try:
        original = Path(mutant["file"]).read_text(encoding=mutant["encoding"])
    except (OSError, UnicodeDecodeError):
        original = None
    failure = classify_failure(_record(run, RunRecord), _record(program_run, RunRecord),
                               edit_names(mutant["code"], original))  # fmt: skip
    return failure.kind if failure is not None else "model"


def _record(data: dict[str, Any], record_type: Any) -> Any:
    try:
        return record_type.from_dict(data)
    except (TypeError, ValueError, KeyError):
        return types.SimpleNamespace(**{"fits": [], "evaluations": [], "traceback": None, **data})


def run_outcomes(
    chosen: list[dict[str, Any]], time_limit: float, work: Path, jobs: int = 1
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Each chosen mutant written beside a copy of its program's files, and each of their programs
    in a copy of its own, run once (seed 0, ``--framework auto``) in one ``mutreal run`` call;
    returns the mutants' run records, in order, and the programs' by file."""
    paths = []
    originals: dict[str, str] = {}
    for m in chosen:
        if m["file"] in originals:
            continue
        src = Path(m["file"]).parent
        dst = work / f"p{len(originals)}" / src.parent.name / src.name
        _copy_folder(src, dst)
        originals[m["file"]] = str(dst / Path(m["file"]).name)
    for i, m in enumerate(chosen):
        src = Path(m["file"]).parent
        dst = work / str(i) / src.parent.name / src.name
        _copy_folder(src, dst)
        target = dst / Path(m["file"]).name
        target.write_text(m["code"], encoding=m["encoding"])
        m["path"] = str(target)
        paths.append(str(target))
    cmd = [shutil.which("mutreal", path=str(Path(sys.executable).parent)) or shutil.which("mutreal") or "mutreal", "run", "--runs", "1", "--json", "-q", "--framework", "auto",
           "--timeout", str(time_limit), "--jobs", str(jobs), "--store", str(work / "runs.sqlite"),
           *originals.values(), *paths]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    try:
        runs = json.loads(proc.stdout)["runs"]
    except (ValueError, KeyError):
        sys.stderr.write(proc.stderr[-3000:])
        runs = []
    by_path = {os.path.realpath(r["program"]): r for r in runs}
    missing = {"outcome": "missing", "error_type": "NoRecord", "error_message": proc.stderr[-300:]}
    return (
        [by_path.get(os.path.realpath(p), missing) for p in paths],
        {f: by_path.get(os.path.realpath(p), missing) for f, p in originals.items()},
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("manifest")
    ap.add_argument("--benchmark")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--skip", type=int, default=0, help="Leave out the manifest's first K rows (a measurement in parts).")
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--run-sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--sample-programs", type=int, default=0,
                    help="Draw the run sample from this many programs per benchmark (seeded), statically "
                    "checked alone, instead of from the whole manifest's static check.")
    ap.add_argument("--jobs", type=int, default=1, help="Warm workers of the run sample.")
    args = ap.parse_args(argv)

    rows = read_manifest(args.manifest, args.benchmark, None)[args.skip :]
    rows = rows[: args.limit] if args.limit else rows
    if args.sample_programs:
        rng = random.Random(args.seed)
        by_bench: dict[str, list[dict[str, str]]] = defaultdict(list)
        for row in rows:
            by_bench[row["benchmark"]].append(row)
        rows = [r for b in sorted(by_bench) for r in rng.sample(by_bench[b], min(args.sample_programs, len(by_bench[b])))]
    t0 = time.perf_counter()
    got = static_part(rows)
    cells, seconds = got["cells"], got["seconds"]
    print(f"static check: {len(seconds)} fixed programs, "
          f"{sum(c['written'] for c in cells.values())} mutants, "
          f"{sum(c['violations'] for c in cells.values())} violations, {time.perf_counter() - t0:.0f} s "
          f"({(sum(seconds) / max(len(seconds), 1)):.2f} s per program, max {max(seconds, default=0):.1f} s)")
    for u in got["unread"]:
        print(f"  not read: {u}")
    print("\nper benchmark")
    print("\n".join(_table(cells, ["written", "violations"], 0)))
    print("\nper operator")
    print("\n".join(_table(cells, ["written", "violations"], 1)))
    result: dict[str, Any] = {
        "static": {f"{b}/{o}": c for (b, o), c in cells.items()},
        "seconds_per_program": seconds,
    }
    if args.run_sample:
        chosen = sample(got["valid"], args.run_sample, args.seed)
        t1 = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="mutreal-validity-") as tmp:
            records, programs = run_outcomes(chosen, args.time_limit, Path(tmp), args.jobs)
        run_cells: dict[tuple[str, str], dict[str, Any]] = defaultdict(
            lambda: dict.fromkeys((*RUN_COLUMNS, "example"), 0) | {"example": None}
        )
        for m, r in zip(chosen, records, strict=True):
            cell = run_cells[(m["benchmark"], m["operator"])]
            cell["written"] += 1
            kind = failure_kind(m, r, programs[m["file"]])
            cell[kind] += 1
            m["failure"] = kind
            if kind not in ("trained", "program failed"):
                cell["example"] = cell["example"] or (
                    f"{m['id']} {m['name']}: {kind}: {r.get('outcome')} {r.get('error_type')}: "
                    f"{str(r.get('error_message'))[:200]}"
                )
        ok = sum(r.get("outcome") == "ok" for r in programs.values())
        print(f"\nrun sample: {len(chosen)} mutants (seed {args.seed}) of {len(programs)} programs "
              f"({ok} of which complete their own run), {time.perf_counter() - t1:.0f} s")
        for f, r in sorted(programs.items()):
            if r.get("outcome") != "ok":
                print(f"  program fails: {f}: {r.get('outcome')} {r.get('error_type')}: {str(r.get('error_message'))[:160]}")
        print("\nper benchmark")
        print("\n".join(_table(run_cells, list(RUN_COLUMNS), 0)))
        print("\nper operator")
        print("\n".join(_table(run_cells, list(RUN_COLUMNS), 1)))
        result["runs"] = [
            {k: m[k] for k in ("id", "benchmark", "operator", "name")}
            | {k: r.get(k) for k in ("outcome", "error_type", "error_message")}
            | {"program_outcome": programs[m["file"]].get("outcome"), "failure": m.get("failure")}
            for m, r in zip(chosen, records, strict=True)
        ]
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
