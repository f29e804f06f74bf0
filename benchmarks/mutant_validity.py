"""Are the mutants mutreal writes valid programs? A static check of every first-order mutant of the
fixed programs of a runtime manifest, and a seeded sample of them run once.

Usage::

    python benchmarks/mutant_validity.py MANIFEST [--benchmark B] [--limit K] [--json OUT]
        [--skip K] [--run-sample N [--sample-programs K] [--max-program-seconds S] [--program-time-limit S]
        [--parts P] [--store DB] [--jobs J]] [--seed S] [--time-limit SECONDS]

MANIFEST is a runtime manifest (``id, benchmark, buggy, fixed, entry``; paths relative to its folder,
as ``benchmarks/real_programs.py`` reads it). Why this exists: a mutant that dies on a name mutreal
left unbound or a keyword it added to a call that does not take it measures mutreal, not a fault,
yet reads as a kill. Part (a) makes every mutant ``mutate --all`` would make of each fixed program
(the operators' own edits, before ``mutate``'s refusal of invalid ones, so a defect of an operator is
counted, not hidden) and runs :func:`mutreal.mutation.static_check.check_mutant` on it: names bound
before use, keywords the called API takes in the program's framework (``inspect.signature`` of the
installed keras / tf_keras / tf.compat.v1 object). It prints, per benchmark and per operator,
mutants written and violations, one example per failing cell, and the seconds per program.

Part (b), ``--run-sample N``: first each fixed program (``--sample-programs K`` of each benchmark,
seeded; those whose data the corpus lacks, its ``data_missing`` column, are skipped up front and
counted) is run once in a copy of its folder, so that the sample stands only on programs that
complete their own run offline (within ``--max-program-seconds``, to keep the sample affordable);
each program that does not is listed with its outcome (most: Keras' ``mnist.npz``, absent offline).
Then every mutant of those programs is made and statically checked as in (a), and N of them are
drawn with a seeded generator, spread round-robin over the (benchmark, operator) cells, each written
into a copy of its program's folder (same folder name, so data beside the program resolves) and
trained once by the installed ``mutreal run`` (seed 0 as its program's run, ``--framework auto``; in
``--parts`` calls, the tables printed after each so that a partial result exists). Each failed run is
classified by compare's own classifier (:func:`mutreal.analysis.run_failures.classify_failure`,
against its program's run): invalid and harness are mutreal's defects, stillborn and outgrown the
operator's own effect, "model" a crash after training began (a kill). It prints per benchmark and
operator: written, trained and each kind, one example per failing cell, and every failed mutant
with its error and the classifier's reason.

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
from collections import defaultdict
from pathlib import Path
from typing import Any

from mutreal.mutation.operators import Program, registry
from mutreal.mutation.operators.base import MutationError, apply_edits
from mutreal.mutation.static_check import check_mutant, default_oracle


def read_manifest(path: str, benchmark: str | None, limit: int | None) -> list[dict[str, str]]:
    """The manifest's rows with ``fixed`` resolved to the file that runs (its ``entry`` when a side
    has several files) and ``data_missing`` (files the corpus lists without content) kept."""
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
            rows.append({"id": row["id"], "benchmark": row["benchmark"], "file": str(base / chosen),
                         "data_missing": row.get("data_missing") or ""})  # fmt: skip
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
                             "encoding": mutant.encoding,
                             "parts": [p.to_dict() for p in mutant.provenance.parts]})  # fmt: skip
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


def sample(valid: list[dict[str, Any]], n: int, seed: int, slow: set[str] | None = None) -> list[dict[str, Any]]:
    """``n`` mutants spread round-robin over the (benchmark, operator) cells, seeded. Mutants of the
    ``slow`` programs (files) are drawn in the first round only (every cell covered once), so that
    a benchmark of one slow program does not take a sixth of the machine's time."""
    if slow:
        first = sample([m for m in valid if m["file"] in slow], 10**9, seed)
        covered = {(m["benchmark"], m["operator"]) for m in valid if m["file"] not in slow}
        once: dict[tuple[str, str], dict[str, Any]] = {}
        for m in first:
            once.setdefault((m["benchmark"], m["operator"]), m)
        rest = sample([m for m in valid if m["file"] not in slow], n, seed)
        extra = [m for key, m in sorted(once.items()) if key not in covered]
        return (extra + rest)[:n] if len(extra) < n else extra[:n]
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
#: are mutreal's defects, stillborn and outgrown the operator's own effect, "model" a crash after training
#: began, which compare counts as a kill)
RUN_COLUMNS = ("written", "trained", "invalid", "harness", "stillborn", "outgrown", "model")


def failure_kind(mutant: dict[str, Any], run: Any, program_run: Any) -> tuple[str, str]:
    """The run sample's column of one mutant's run (its program's run completed), decided by
    compare's own classifier, and the reason it gives."""
    from mutreal.analysis.run_failures import classify_failure, edit_names

    if run.outcome == "ok":
        return "trained", ""
    try:
        original = Path(mutant["file"]).read_text(encoding=mutant["encoding"])
    except (OSError, UnicodeDecodeError):
        original = None
    edit = edit_names(mutant["code"], original, {"parts": mutant.get("parts") or []})
    failure = classify_failure(run, program_run, edit)
    return (failure.kind, failure.reason) if failure is not None else ("model", "a crash after training began")


def _missing(message: str) -> Any:
    from mutreal.execution.records import RunRecord

    return RunRecord("", "", 0, "lost", error_type="NoRecord", error_message=message)


def run_files(paths: list[str], time_limit: float, jobs: int, store: Path) -> dict[str, Any]:
    """Each file trained once (seed 0, ``--framework auto``) by the installed ``mutreal run`` in one
    call (warm workers); the full run records (read back from the store: the command's JSON rows
    lack the fits and traceback the classifier reads), by real path."""
    from mutreal.execution.records import RunRecord
    from mutreal.execution.store import RunStore

    if not paths:
        return {}
    exe = shutil.which("mutreal", path=str(Path(sys.executable).parent)) or shutil.which("mutreal") or "mutreal"
    cmd = [exe, "run", "--runs", "1", "--json", "-q", "--framework", "auto", "--timeout", str(time_limit),
           "--jobs", str(jobs), "--store", str(store), *paths]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    try:
        rows = json.loads(proc.stdout)["runs"]
    except (ValueError, KeyError):
        sys.stderr.write(proc.stderr[-3000:])
        rows = []
    stored = RunStore(store).get_many([r["key"] for r in rows if r.get("key")])
    found: dict[str, Any] = {}
    for row in rows:
        record = stored.get(row.get("key") or "")
        if record is None:
            record = RunRecord.from_dict({k: v for k, v in row.items() if k in ("program", "seed", "outcome",
                                          "error_type", "error_message", "wall_time_s")} | {"key": ""})  # fmt: skip
        found[os.path.realpath(row["program"])] = record
    missing = _missing(proc.stderr[-300:])
    if len(rows) == len(paths):  # one run per program, in their order: a run reused from the store
        # carries the path it was first trained at, not this one
        return {os.path.realpath(p): found[os.path.realpath(r["program"])] for p, r in zip(paths, rows, strict=True)}
    return {os.path.realpath(p): found.get(os.path.realpath(p), missing) for p in paths}


def program_runs(rows: list[dict[str, str]], time_limit: float, work: Path, jobs: int, store: Path) -> dict[str, Any]:
    """Each program run once in a copy of its folder (same folder name, so data beside it
    resolves), by file."""
    copies = {}
    for i, row in enumerate(rows):
        src = Path(row["file"]).parent
        dst = work / f"p{i}" / src.parent.name / src.name
        _copy_folder(src, dst)
        copies[row["file"]] = str(dst / Path(row["file"]).name)
    runs = run_files(list(copies.values()), time_limit, jobs, store)
    return {f: runs[os.path.realpath(c)] for f, c in copies.items()}


def mutant_runs(chosen: list[dict[str, Any]], time_limit: float, work: Path, jobs: int, store: Path) -> list[Any]:
    """Each chosen mutant written into a copy of its program's folder, under the program's file
    name, with the provenance ``mutate`` writes beside it (so it runs on its program's framework, as
    a user's mutant does), and trained once; their run records in order."""
    from mutreal.execution.mutant_origin import file_sha256, provenance_path

    paths = []
    for m in chosen:
        src = Path(m["file"]).parent
        dst = work / f"m{m['index']}" / src.parent.name / src.name
        _copy_folder(src, dst)
        target = dst / Path(m["file"]).name
        target.write_text(m["code"], encoding=m["encoding"])
        beside = provenance_path(target)
        if not beside.exists():  # never over a file of the program's own
            provenance = {"mutant": m["name"], "original": str(Path(m["file"]).resolve()),
                          "original_sha256": file_sha256(m["file"]), "parts": m["parts"]}  # fmt: skip
            beside.write_text(json.dumps(provenance, default=str), encoding="utf-8")
        paths.append(str(target))
    runs = run_files(paths, time_limit, jobs, store)
    return [runs[os.path.realpath(p)] for p in paths]


def _first_line(text: Any) -> str:
    lines = [line.strip() for line in str(text or "").splitlines() if line.strip()]
    return (lines[-1] if lines and lines[0].endswith(":") else (lines[0] if lines else ""))[:160]


def choose_programs(rows: list[dict[str, str]], per_benchmark: int, seed: int) -> list[dict[str, str]]:
    """``per_benchmark`` rows of each benchmark, drawn with a seeded generator (all when 0)."""
    if not per_benchmark:
        return rows
    rng = random.Random(seed)
    by_bench: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        by_bench[row["benchmark"]].append(row)
    return [r for b in sorted(by_bench) for r in rng.sample(by_bench[b], min(per_benchmark, len(by_bench[b])))]


def run_sample_part(args: argparse.Namespace, rows: list[dict[str, str]], result: dict[str, Any]) -> None:
    """Part (b): the programs run once; the mutants of those that complete (within
    ``--max-program-seconds``) sampled and run in ``--parts`` parts, the tables printed after each."""
    skipped = [r for r in rows if r["data_missing"]]
    rows = [r for r in rows if not r["data_missing"]]
    print(f"skipped up front: {len(skipped)} programs whose data the corpus lacks (manifest's data_missing): "
          + ", ".join(f"{b} {n}" for b, n in sorted(_count(r["benchmark"] for r in skipped).items())))
    again = _rerun_list(args.rerun) if args.rerun else None
    if again is not None:  # only the programs of the mutants to run again
        rows = [r for r in rows if r["id"] in {m["id"] for m in again}]
    else:
        rows = choose_programs(rows, args.sample_programs, args.seed)
    work = Path(tempfile.mkdtemp(prefix="mutreal-validity-"))
    store = Path(args.store) if args.store else work / "runs.sqlite"
    t0 = time.perf_counter()
    programs = program_runs(rows, args.program_time_limit or args.time_limit, work, args.jobs, store)
    usable = []
    lines = []
    for row in rows:
        run = programs[row["file"]]
        if run.outcome != "ok":
            lines.append(f"  {row['id']}: {run.outcome} {run.error_type or ''}: {_first_line(run.error_message)}")
        elif args.max_program_seconds and run.wall_time_s > args.max_program_seconds:
            lines.append(f"  {row['id']}: completes in {run.wall_time_s:.0f} s (over --max-program-seconds)")
        else:
            usable.append(row)
    print(f"programs run first: {len(rows)}, {len(usable)} complete their run offline"
          + (f" within {args.max_program_seconds:g} s" if args.max_program_seconds else "")
          + f" ({time.perf_counter() - t0:.0f} s); per benchmark (complete/run): "
          + ", ".join(f"{b} {_count(r['benchmark'] for r in usable).get(b, 0)}/{n}"
                      for b, n in sorted(_count(r["benchmark"] for r in rows).items())))  # fmt: skip
    print("not sampled (their own run):\n" + "\n".join(lines), flush=True)
    got = static_part(usable)
    print(f"static check of those: {len(got['seconds'])} programs, "
          f"{sum(c['written'] for c in got['cells'].values())} mutants, "
          f"{sum(c['violations'] for c in got['cells'].values())} violations", flush=True)
    offered = {o for (_, o), c in got["cells"].items() if c["written"]}
    print("operators with no site in them: " + (", ".join(sorted(set(registry.operators()) - offered)) or "none"))
    if again is not None:
        wanted = {(m["id"], m["name"]) for m in again}
        chosen = [m for m in got["valid"] if (m["id"], m["name"]) in wanted]
        print(f"running again {len(chosen)} of the {len(wanted)} failed mutants of {args.rerun} (the others are no "
              "longer made: their operator has no site there now)")
    else:
        slow = {r["file"] for r in usable if args.slow_seconds and programs[r["file"]].wall_time_s > args.slow_seconds}
        chosen = sample(got["valid"], args.run_sample, args.seed, slow)
    for i, m in enumerate(chosen):
        m["index"] = i
    cells: dict[tuple[str, str], dict[str, Any]] = defaultdict(
        lambda: dict.fromkeys((*RUN_COLUMNS, "example"), 0) | {"example": None}
    )
    result["programs"] = {r["id"]: {"outcome": programs[r["file"]].outcome,
                                    "wall_time_s": programs[r["file"]].wall_time_s} for r in rows}  # fmt: skip
    result["runs"] = []
    parts = max(1, args.parts)
    bounds = [round(len(chosen) * k / parts) for k in range(parts + 1)]
    for k in range(parts):
        part = chosen[bounds[k] : bounds[k + 1]]
        t1 = time.perf_counter()
        records = mutant_runs(part, args.time_limit, work, args.jobs, store)
        for m, r in zip(part, records, strict=True):
            kind, reason = failure_kind(m, r, programs[m["file"]])
            cell = cells[(m["benchmark"], m["operator"])]
            cell["written"] += 1
            cell[kind] += 1
            if kind != "trained":
                cell["example"] = cell["example"] or (
                    f"{m['id']} {m['name']}: {kind}: {r.outcome} {r.error_type}: {_first_line(r.error_message)}"
                )
            result["runs"].append({k: m[k] for k in ("id", "benchmark", "operator", "name")} | {
                "outcome": r.outcome, "error_type": r.error_type, "error_message": str(r.error_message or "")[:2000],
                "wall_time_s": r.wall_time_s, "program_wall_time_s": programs[m["file"]].wall_time_s,
                "failure": kind, "reason": reason})  # fmt: skip
        done = bounds[k + 1]
        print(f"\nrun sample, part {k + 1}/{parts}: mutants {bounds[k] + 1}..{done} of {len(chosen)} "
              f"(seed {args.seed}), part {time.perf_counter() - t1:.0f} s, in all {time.perf_counter() - t0:.0f} s")
        print("per benchmark")
        print("\n".join(_table(cells, list(RUN_COLUMNS), 0)))
        print("per operator")
        print("\n".join(_table(cells, list(RUN_COLUMNS), 1)))
        failed = [r for r in result["runs"] if r["failure"] not in ("trained",)]
        if failed:
            print("every failed mutant:")
            for r in failed:
                print(f"  {r['id']} {r['name']}: {r['failure']}: {r['outcome']} {r['error_type']}: "
                      f"{_first_line(r['error_message'])} [{r['reason']}]")
        sys.stdout.flush()
        if args.json_out:
            with open(args.json_out, "w", encoding="utf-8") as fh:
                json.dump(result, fh, indent=1, default=str)
    shutil.rmtree(work, ignore_errors=True)


def _rerun_list(path: str) -> list[dict[str, Any]]:
    """The mutants of an earlier ``--json`` output whose run failed (any kind but outgrown, which
    a run under the same limit repeats)."""
    with open(path, encoding="utf-8") as fh:
        return [r for r in json.load(fh).get("runs") or [] if r.get("failure") not in ("trained", "outgrown")]


def _count(items: Any) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        counts[item] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("manifest")
    ap.add_argument("--benchmark")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--skip", type=int, default=0, help="Leave out the manifest's first K rows (a measurement in parts).")
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--run-sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=300.0, help="Seconds per mutant run.")
    ap.add_argument("--program-time-limit", type=float, default=0.0,
                    help="Seconds for each program's first run [--time-limit].")
    ap.add_argument("--max-program-seconds", type=float, default=0.0,
                    help="Sample only mutants of programs whose own run completes within this many seconds.")
    ap.add_argument("--sample-programs", type=int, default=0,
                    help="Run (and draw the sample from) this many programs per benchmark (seeded) [all].")
    ap.add_argument("--slow-seconds", type=float, default=0.0,
                    help="Mutants of programs whose run takes longer are drawn once per (benchmark, operator) "
                    "cell that no faster program covers, never more.")
    ap.add_argument("--parts", type=int, default=1, help="Run the sample in this many parts, tables after each.")
    ap.add_argument("--store", help="Run store kept between calls (programs' runs reused) [a temporary one].")
    ap.add_argument("--jobs", type=int, default=1, help="Warm workers of the run sample.")
    ap.add_argument("--rerun", help="Run again only the failed mutants of this earlier --json output (after a fix).")
    args = ap.parse_args(argv)

    rows = read_manifest(args.manifest, args.benchmark, None)[args.skip :]
    rows = rows[: args.limit] if args.limit else rows
    result: dict[str, Any] = {}
    if args.run_sample or args.rerun:
        run_sample_part(args, rows, result)
        return 0
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
    result["static"] = {f"{b}/{o}": c for (b, o), c in cells.items()}
    result["seconds_per_program"] = seconds
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
