"""mutreal's realism figures beside Ahmed et al.'s, on the same bugs and the same DeepCrime mutants.

Reads their published per-mutant CS/IoU from a snapshot of zaheedahmed/dl-mutant-realism at run time
(nothing of it is kept here: :mod:`mutreal.study.published_realism`), joins their bug ids to a runtime
manifest through DeepFD's and DeepLocalize's spreadsheets, and for each joined bug:

1. makes every published mutant mutreal can make from the bug's fixed program (the DeepCrime-name
   API, :mod:`mutreal.mutation.deepcrime_names`, under the layer counting that makes more of them),
   and takes a sample of them (:func:`mutreal.study.realism_comparison.sample_mutants`, its rule printed);
2. writes the sample into ``WORK/<their bug>/mutants/<runtime id>/`` beside mutreal's reconstructing mutants of the fault
   (``reconstruct/``: what ``compare --mutants reconstruct`` trains), so the fault, the fix and both
   sets of mutants are trained in the same runs;
3. runs ``mutreal compare --manifest <one-row manifest> --mutants WORK/mutants --runs N``;
4. prints per bug: mutants matched, Spearman rho of their CS and mutreal's over the same mutants (and
   IoU), the median |difference|, the fault's KP, the reconstructing mutant against their best and
   median, the trainings of each side and, where rho < 0.3 or the median |difference| > 0.3, why.

The table (``--out``) is what ``mutreal report ... --published TABLE`` shows. A second run with the
same ``--work`` resumes: compare skips a bug its output already holds (delete
``WORK/<their bug>/compare.jsonl`` to train it again).

    python benchmarks/realism_published.py --manifest /tmp/mutreal-runtime/manifest.csv \\
        [--bugs deeplocalize006,deepfd012 | --max-bugs 3] [--runs 5] [--size 12] [--work DIR] [--out T.json]
        [--git-dir SNAPSHOT] [--deepfd-git-dir D] [--deeplocalize-git-dir D] [--timeout-per-bug S]
        [--store RUNS.sqlite] [--probe [--probe-timeout S]]

Which bugs are worth a row is a question of time: ``--probe`` trains each selected bug's fixed
program once (one ``mutreal run`` campaign, one warm worker) and prints, per bug, the seconds of
that run, how it ended (``missing-data``: it needs a file absent offline, such as Keras'
``mnist.npz``) and how many of its published mutants mutreal makes, quickest first; nothing else
is trained. ``--store`` (default ``WORK/runs.sqlite``) is shared by every bug of a run: two of
their ids of one program (``deepfd030``, ``deeplocalize030``) train its fault, fix and common
mutants once.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import shlex
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from deepcrime_names_published import DEFAULT_GIT_DIR, _model_program, _spreadsheet_rows, published_mutants

from mutreal.campaigns.compare import RELIABLE_RULE
from mutreal.campaigns.mutants import reconstruct_mutants, safe_name
from mutreal.campaigns.reproduce import entry_program
from mutreal.manifest import join_files, load_manifest
from mutreal.mutation.deepcrime_names import COUNTINGS, DeepCrimeNameError, make_mutant
from mutreal.mutation.mutate import write_program_files
from mutreal.study.published_realism import first_present, runtime_ids
from mutreal.study.realism_comparison import (
    MIN_OPERATORS,
    NO_KILL_RULE,
    SAMPLE_SIZE,
    THEIR_RELIABLE_RULE,
    bug_row,
    can_top_up,
    sample_mutants,
    sample_rule,
    summary,
    table,
    top_up,
    twin_agreement,
    twin_reason,
)

#: the mutreal command installed beside this interpreter (a venv used without activating it has it off PATH)
MUTREAL = shutil.which("mutreal", path=str(Path(sys.executable).parent)) or shutil.which("mutreal") or "mutreal"

#: the folder of a bug's reconstructing mutants inside its folder of mutants
RECONSTRUCT = "reconstruct"
#: a bug with fewer of their mutants made (or --size, if smaller) gets no row
MIN_SAMPLE = 10
#: the file recording which DeepCrime name each written mutant file is
NAMES_FILE = "deepcrime_names.json"


def _rows_if_there(git_dir: str, path: str, number: str, value: str) -> dict[int, str]:
    """A spreadsheet's numbered rows; none (said) when its snapshot is absent: then only the
    bugs whose ids need no spreadsheet (defect4ML's) join."""
    if not Path(git_dir).is_dir():
        print(f"no snapshot {git_dir}: its bugs do not join", flush=True)
        return {}
    return _spreadsheet_rows(git_dir, path, number, value)


def joined_bugs(mutants: list[Any], manifest: str, deepfd: str, deeplocalize: str) -> tuple[dict, list]:
    """Their bug -> (runtime row); and the bugs that do not join, with why."""
    posts = _rows_if_there(deepfd, "Benchmark/Benchmark-with-patches.xlsx", "No", "Post #")
    so = _rows_if_there(deeplocalize, "Benchmark/StackOverflow/Benchmark.xlsx", "No", "Post #")
    gh = _rows_if_there(deeplocalize, "Benchmark/GitHub/Benchmark.xlsx", "NO", "GH Repo")
    rows = {row.id: row for row in load_manifest(manifest).rows}
    joined, not_joined = {}, []
    for bug in sorted({m.bug for m in mutants}):
        rid = first_present(runtime_ids(bug, posts, so, gh), rows) if not bug.startswith("cleanml") else None
        if rid is None:
            not_joined.append({"bug": bug, "reason": "no program of the runtime manifest is this bug"})
        else:
            joined[bug] = rows[rid]
    return joined, not_joined


def make_sample(
    program: Any, published: list[Any], size: int, min_operators: int
) -> tuple[list, dict, str, dict]:
    """The sample of the bug's published mutants mutreal makes, their mutants by name, the counting
    used, and the refusals by reason."""
    made_by: dict[str, dict[str, Any]] = {}
    refused: dict[str, dict[str, int]] = {}
    for counting in COUNTINGS:
        made_by[counting], refused[counting] = {}, defaultdict(int)
        for m in published:
            try:
                made_by[counting][m.name] = make_mutant(program, m.name, counting=counting)
            except DeepCrimeNameError as exc:
                refused[counting][exc.reason] += 1
    counting = max(COUNTINGS, key=lambda c: len(made_by[c]))
    candidates = [m for m in published if m.name in made_by[counting]]
    sample = sample_mutants(candidates, size, min_operators)
    return sample, made_by[counting], counting, dict(refused[counting])


def write_bug(
    row: Any, sample: list, made: dict, folder: Path
) -> tuple[dict[str, str], dict[str, Any], list[str]]:
    """The sample's mutant files and the reconstructing mutants in ``folder``: file name -> DeepCrime
    name, the reconstructing mutants by path (their MutantSpec: operator and provenance, which compare
    does not read from a folder), and notes (why there are none)."""
    folder.mkdir(parents=True, exist_ok=True)
    names = write_sample(sample, made, folder)
    fixed_entry = entry_program(row.fixed, row.cells.get("entry") or None)
    made_rec = reconstruct_mutants(
        row.id, row.benchmark, row.buggy, row.fixed, fixed_entry, folder / RECONSTRUCT
    )
    notes = []
    rec_files = (
        sorted(p.name for p in (folder / RECONSTRUCT).rglob("*.py"))
        if (folder / RECONSTRUCT).is_dir()
        else []
    )
    if made_rec.reason:
        notes.append(f"no reconstructing mutant: {made_rec.reason}")
    elif len(rec_files) > len(made_rec.mutants):
        # a program of several files: its siblings were copied beside each mutant, and compare would
        # train them as mutants. Where every mutant is the entry file, they go: a mutant runs in its
        # original's folder (its provenance), where the siblings are; else the reconstruction is left out
        mutant_files = {Path(s.file).resolve() for s in made_rec.mutants}
        if {Path(f).name for f in mutant_files} == {Path(fixed_entry).name}:
            for sibling in (folder / RECONSTRUCT).rglob("*.py"):
                if sibling.resolve() not in mutant_files:
                    sibling.unlink()
            notes.append("reconstruction: the fixed program has several files; the entry's mutants run in its folder")
        else:
            notes.append("reconstruction left out: the fixed program has several files and a mutant is not the entry")
            subprocess.run(["rm", "-rf", str(folder / RECONSTRUCT)], check=True)
        rec_files = sorted(p.name for p in (folder / RECONSTRUCT).rglob("*.py")) if (folder / RECONSTRUCT).is_dir() else []
    # the last of reconstruct_mutants' list stands for the whole fault (the HOM, or the only mutant)
    rec = {str(Path(s.file).resolve()): s for s in made_rec.mutants} if rec_files else {}
    return names, rec, notes


def write_sample(sample: list, made: dict, folder: Path, start: int = 0) -> dict[str, str]:
    """The sample's mutant files in ``folder``, numbered from ``start``: file name -> DeepCrime name
    (also written to :data:`NAMES_FILE`, merged with the names already there)."""
    names = {}
    for i, m in enumerate(sample, start):
        mutant, resolved = made[m.name]
        prov = mutant.provenance.to_dict() | {"deepcrime": resolved.to_dict()}
        stem = f"dc{i:02d}_{safe_name(m.name.split('_mutated', 1)[0])}.py"
        py, _ = write_program_files(str(folder), stem, mutant.code, prov, encoding=mutant.encoding)
        names[Path(py).name] = m.name
    known = json.loads((folder / NAMES_FILE).read_text(encoding="utf-8")) if start and (folder / NAMES_FILE).is_file() else {}
    (folder / NAMES_FILE).write_text(json.dumps(known | names, indent=1), encoding="utf-8")
    return names


def one_row_manifest(row: Any, path: Path) -> None:
    """A manifest of the one bug, its paths absolute (the runtime corpus stays where it is)."""
    cells = dict(row.cells) | {"buggy": join_files(row.buggy), "fixed": join_files(row.fixed)}
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(cells))
        writer.writeheader()
        writer.writerow(cells)


def run_bug(bug: str, row: Any, published: list, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    program = _model_program(row.fixed)
    if program is None:
        return {"bug": bug, "runtime_id": row.id, "reason": "the fixed program builds no model mutreal reads"}
    sample, made, counting, refused = make_sample(program, published, args.size, args.min_operators)
    if len(sample) < min(MIN_SAMPLE, args.size):
        return {"bug": bug, "runtime_id": row.id,
                "reason": f"mutreal makes {len(made)} of the {len(published)} published mutants (refused: {refused})"}  # fmt: skip
    own = work / bug  # two of their ids may be one runtime bug: each its own mutants and row
    root = own / "mutants"
    folder = root / safe_name(row.id)
    names, rec_paths, notes = write_bug(row, sample, made, folder)
    manifest = own / "manifest.csv"
    one_row_manifest(row, manifest)
    out = own / "compare.jsonl"
    command = [MUTREAL, "compare", "--manifest", str(manifest), "--mutants", str(root), "--runs", str(args.runs),
               "--out", str(out), "--jobs", str(args.jobs), "--store", str(_store(args, work))]
    command += ["--timeout", str(args.run_timeout)] if args.run_timeout else []  # fmt: skip
    print(f"  {bug} = {row.id}: {len(sample)} of {len(made)} made ({counting} counting; {len(published)} "
          f"published); reconstructing mutants {len(rec_paths)} {notes}", flush=True)  # fmt: skip
    print("  $ " + shlex.join(command), flush=True)
    started = time.monotonic()
    if args.reuse_compare and out.is_file() and out.stat().st_size:
        print(f"  (reusing {out}: the row is recomputed, compare not run)", flush=True)
    else:
        try:
            subprocess.run(command, timeout=args.timeout_per_bug, check=False, capture_output=True, text=True)
        except subprocess.TimeoutExpired:
            return {"bug": bug, "runtime_id": row.id, "reason": f"compare ran past {args.timeout_per_bug:.0f} s"}
    result = _row_of(bug, row, published, sample, out, names, rec_paths)
    candidates = [m for m in published if m.name in made]
    topped: dict[str, Any] = {"rounds": 0, "added": [], "left_out_operators": []}
    for _ in range(args.top_up):  # too few of the sample measured: more of their mutants, the store reused
        if "reason" in result or not can_top_up(result, MIN_SAMPLE):
            break
        extra, left_out = top_up(candidates, sample, result["mutants"], MIN_SAMPLE - result["matched"] + 1,
                                 args.min_operators)  # fmt: skip
        if not extra:
            break
        names |= write_sample(extra, made, folder, start=len(names))
        sample = sample + extra
        topped["rounds"] += 1
        topped["added"] += [m.name for m in extra]
        topped["left_out_operators"] = sorted(set(topped["left_out_operators"]) | set(left_out))
        print(f"  top-up: matched {result['matched']}; {len(extra)} more (operators left out: {left_out})", flush=True)
        if not (args.reuse_compare and {m.name for m in extra} <= _names_in(out)):
            before = out.with_suffix(".before-top-up.jsonl")  # compare skips a bug its --out holds
            out.replace(before)
            with contextlib.suppress(subprocess.TimeoutExpired):
                subprocess.run(command, timeout=args.timeout_per_bug, check=False, capture_output=True, text=True)
            if not _names_in(out):  # the row of the last compare that finished stands
                before.replace(out)
                break
        result = _row_of(bug, row, published, sample, out, names, rec_paths)
    if "reason" in result:
        return result
    result["top_up"] = topped
    result["counting"], result["seconds"] = counting, round(time.monotonic() - started, 1)
    result["notes"] = notes
    return result


def _row_of(
    bug: str, row: Any, published: list, sample: list, out: Path, names: dict[str, str], rec_paths: dict[str, Any]
) -> dict[str, Any]:
    """The bug's row from compare's last row in ``out``; a dict with only a ``reason`` where there is none."""
    lines = (
        [json.loads(line) for line in out.read_text().splitlines() if line.strip()] if out.exists() else []
    )
    if not lines:
        return {"bug": bug, "runtime_id": row.id, "reason": "compare wrote no row"}
    if lines[-1].get("status") in ("missing-data", "error"):  # nothing trained to compare: no row
        return {"bug": bug, "runtime_id": row.id,
                "reason": f"compare: {lines[-1]['status']}: {lines[-1].get('error') or lines[-1].get('reason')}"}  # fmt: skip
    for entry in lines[-1].get("mutants") or []:
        path = str(Path(str(entry.get("file") or "")).resolve())
        if path in rec_paths:  # compare reads a folder's mutants without how they were made
            entry["operator"] = entry.get("operator") or rec_paths[path].operator
            entry["provenance"] = {**rec_paths[path].provenance, **(entry.get("provenance") or {})}
    result = bug_row(
        bug, row.id, published, sample, lines[-1],
        name_of=lambda e: _deepcrime_name(e) or names.get(Path(str(e.get("file") or "")).name),
        is_reconstruction=lambda e: str(Path(str(e.get("file") or "")).resolve()) in rec_paths,
        is_combined=lambda e: str(Path(str(e.get("file") or "")).resolve()) == next(reversed(rec_paths), None),
    )  # fmt: skip
    return result


def _names_in(out: Path) -> set[str | None]:
    """The DeepCrime names compare's last row in ``out`` measured."""
    lines = [line for line in out.read_text().splitlines() if line.strip()] if out.is_file() else []
    return {_deepcrime_name(e) for e in json.loads(lines[-1]).get("mutants") or []} if lines else set()


def _deepcrime_name(entry: dict[str, Any]) -> str | None:
    """The DeepCrime name a compare entry measures, from its provenance's ``deepcrime`` record
    (``compare --mutants DIR`` keeps it); None for a mutant without one (a reconstructing mutant)."""
    record = (entry.get("provenance") or {}).get("deepcrime") or {}
    return record.get("name") if isinstance(record, dict) else None


def _store(args: argparse.Namespace, work: Path) -> Path:
    """The run store every bug of this run shares (``--store``, else ``WORK/runs.sqlite``)."""
    return Path(args.store).resolve() if args.store else work / "runs.sqlite"


def probe(
    bugs: list[str], joined: dict[str, Any], by_bug: dict[str, list[Any]], args: argparse.Namespace, work: Path
) -> list[dict[str, Any]]:
    """One run of each selected bug's fixed program (one campaign, ``--jobs`` workers, a time limit
    of ``--probe-timeout``) and the published mutants mutreal makes of it: what picks the bugs a
    long measurement can afford. Rows quickest first; a program that did not finish says how it ended."""
    programs: dict[str, str] = {}
    for bug in bugs:
        row = joined[bug]
        try:
            programs.setdefault(row.id, str(Path(entry_program(row.fixed, row.cells.get("entry") or None)).resolve()))
        except (ValueError, OSError) as exc:
            programs.setdefault(row.id, f"! {exc}")
    runnable = sorted({p for p in programs.values() if not p.startswith("! ")})
    runs_csv = work / "probe_runs.csv"
    command = [MUTREAL, "run", "--runs", "1", "--jobs", str(args.jobs), "--timeout", str(args.probe_timeout),
               "--store", str(_store(args, work)), "--csv", str(runs_csv), "-q", *runnable]  # fmt: skip
    print("  $ " + shlex.join(command), flush=True)
    subprocess.run(command, check=False, capture_output=True, text=True)
    ran: dict[str, dict[str, str]] = {}
    if runs_csv.exists():
        with runs_csv.open(encoding="utf-8") as f:
            ran = {str(Path(r["program"]).resolve()): r for r in csv.DictReader(f)}
    out = []
    for bug in bugs:
        row, program = joined[bug], programs[joined[bug].id]
        model = _model_program(row.fixed)
        made = 0
        if model is not None:
            _, made_by, _, _ = make_sample(model, by_bug[bug], args.size, args.min_operators)
            made = len(made_by)
        run = ran.get(program, {})
        if run.get("outcome") == "ok" and not run.get("metric"):
            run = run | {"outcome": "no-metric", "error_message": "it ran but evaluated nothing: no per-input correctness"}
        seconds = float(run["wall_time_s"]) if run.get("wall_time_s") else None
        error = (run.get("error_message") or "").strip().splitlines()
        out.append({
            "bug": bug, "runtime_id": row.id, "seconds": seconds,
            "outcome": run.get("outcome") or (program[2:] if program.startswith("! ") else "not run"),
            "error": error[-1][:160] if error else "", "published": len(by_bug[bug]), "made": made,
            "data_missing": bool(row.cells.get("data_missing")),
        })  # fmt: skip
    out.sort(key=lambda r: (r["outcome"] != "ok", r["seconds"] if r["seconds"] is not None else 1e9, r["bug"]))
    for r in out:
        print(f"{r['bug']:16} {r['runtime_id']:40} {_f(r['seconds'], 1):>7} s  {r['outcome']:12} "
              f"made {r['made']:3}/{r['published']:3}" + ("  (manifest: data missing)" if r["data_missing"] else "")
              + (f"  {r['error']}" if r["outcome"] != "ok" else ""), flush=True)  # fmt: skip
    return out


def _f(value: Any, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_row(r: dict[str, Any]) -> None:
    rec = r.get("reconstruction") or {}
    fault = r["fault"]
    print(
        f"{r['bug']:15} {r['runtime_id']:34} matched {r['matched']:2}/{r['sampled']:2} ({r['sample_operators']} ops; "
        f"{r.get('matched_no_kill', 0)} kill nothing here: CS 0) "
        f"runs {r['runs']}  CS rho {_f(r['cs']['rho'])} |d| {_f(r['cs']['median_abs_difference'])} "
        f"(theirs {_f(r['cs']['their_median'])}, mutreal {_f(r['cs']['our_median'])})  "
        f"IoU rho {_f(r['iou']['rho'])} |d| {_f(r['iou']['median_abs_difference'])} "
        f"(theirs {_f(r['iou']['their_median'])}, mutreal {_f(r['iou']['our_median'])})"
    )
    print(f"    fault: killed {fault['killed']}, mean KP {_f(fault['mean_kp'], 3)}, inputs killing "
          f"{fault['inputs_killing']}/{fault['n_inputs']}")  # fmt: skip
    if rec:
        same, pub = rec.get("vs_same_runs_iou") or {}, rec.get("vs_published_iou") or {}
        print(
            f"    reconstruction {rec['file']} ({rec['operator']}{', exact: the fault itself' if rec.get('exact') else ''}{', crashed in every run' if rec.get('crashed') else ''}): "
            f"CS {_f(rec['cs'])} IoU {_f(rec['iou'])}; "
            f"matched mutants here: median IoU {_f(same.get('median'))} best {_f(same.get('best'))}; "
            f"published: median IoU {_f(pub.get('median'))} best {_f(pub.get('best'))} (rank {_f(pub.get('rank'))})"
            + (f"; {rec['reason']}" if rec.get("reason") else "")
        )
    per = r.get("runs_per_program") or {}
    print(f"    runs per program: buggy {per.get('buggy')}, fixed {per.get('fixed')}, "
          f"mutants {per.get('mutants_min')}-{per.get('mutants_max')}")  # fmt: skip
    t = r["trainings"]
    print(
        f"    trainings: mutreal {t['mutreal']} ({t.get('mutreal_new')} trained by this run; the reconstruction alone {t.get('reconstruction')}), "
        f"theirs {t['theirs']} = {t['theirs_rule']}; {r['seconds']} s"
    )
    top = r.get("top_up") or {}
    if top.get("added"):
        print(f"    top-up: {len(top['added'])} more of their mutants in {top['rounds']} round(s) "
              f"(operators left out, unpaired here: {top['left_out_operators']})")  # fmt: skip
    for why in r["disagreement"]:
        print(f"    disagreement: {why}")
    for note in r.get("notes") or []:
        print(f"    note: {note}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--manifest", required=True, help="a runtime manifest (/tmp/mutreal-runtime/manifest.csv)"
    )
    ap.add_argument("--git-dir", default=DEFAULT_GIT_DIR, help="a snapshot of zaheedahmed/dl-mutant-realism")
    ap.add_argument("--deepfd-git-dir", default="/work/.mirror/ArabelaTso+DeepFD/repo")
    ap.add_argument("--deeplocalize-git-dir", default="/work/.mirror/Wardat-ISU+DeepLocalize/repo")
    ap.add_argument("--bugs", default="", help="their bug ids, comma-separated (default: every joined bug)")
    ap.add_argument("--max-bugs", type=int, default=None, help="at most this many bugs (in --bugs order)")
    ap.add_argument("--runs", type=int, default=5, help="trainings per program (default 5, theirs)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--size", type=int, default=SAMPLE_SIZE, help="mutants per bug")
    ap.add_argument("--min-operators", type=int, default=MIN_OPERATORS)
    ap.add_argument("--timeout-per-bug", type=float, default=1800.0)
    ap.add_argument("--work", default="realism_published.work", help="mutants, manifests and compare rows")
    ap.add_argument("--out", default=None, help="the JSON table the report reads")
    ap.add_argument("--store", default=None, help="the run store every bug shares (default WORK/runs.sqlite)")
    ap.add_argument("--run-timeout", type=float, default=None, help="compare's time limit per run (s)")
    ap.add_argument("--probe", action="store_true", help="time one run of each fixed program; train nothing else")
    ap.add_argument(
        "--top-up",
        type=int,
        default=1,
        help="rounds of more mutants where fewer than 10 of the sample have a figure (0: none)",
    )
    ap.add_argument(
        "--reuse-compare",
        action="store_true",
        help="where WORK/<bug>/compare.jsonl exists, recompute the row from it without running compare",
    )
    ap.add_argument("--probe-timeout", type=float, default=120.0, help="--probe's time limit per run (s)")
    args = ap.parse_args(argv)
    started = time.monotonic()
    mutants = published_mutants(args.git_dir)
    by_bug: dict[str, list[Any]] = defaultdict(list)
    for m in mutants:
        by_bug[m.bug].append(m)
    joined, not_run = joined_bugs(mutants, args.manifest, args.deepfd_git_dir, args.deeplocalize_git_dir)
    wanted = [b.strip() for b in args.bugs.split(",") if b.strip()] or sorted(joined)
    unknown = [b for b in wanted if b not in joined]
    not_run += [
        {"bug": b, "reason": "not a joined bug of theirs"}
        for b in unknown
        if b not in {n["bug"] for n in not_run}
    ]
    wanted = [b for b in wanted if b in joined][: args.max_bugs]
    not_run += [
        {"bug": b, "reason": "not selected (--bugs/--max-bugs)"} for b in sorted(joined) if b not in wanted
    ]
    rule = sample_rule(args.size, args.min_operators)
    print(
        f"published pre-training mutants {len(mutants)} of {len(by_bug)} bugs; joined {len(joined)}; running {len(wanted)}"
    )
    print(
        f"runs per program: {args.runs}"
        + ("" if args.runs >= 5 else " (fewer than their 5: said in every row)")
    )
    print(f"sample rule: {rule}")
    print(f"reliability, theirs: {THEIR_RELIABLE_RULE}")
    print(f"reliability, mutreal: {RELIABLE_RULE}")
    print(f"no kill: {NO_KILL_RULE}")
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.probe:
        table_rows = probe(wanted, joined, by_bug, args, work)
        if args.out:
            Path(args.out).write_text(json.dumps({"probe": table_rows, "not_run": not_run}, indent=1), encoding="utf-8")
        print(f"wall time {round(time.monotonic() - started, 1)} s")
        return 0
    rows = []
    for bug in wanted:
        try:
            result = run_bug(bug, joined[bug], by_bug[bug], args, work)
        except Exception as exc:  # noqa: BLE001 - one bad bug never stops the batch
            result = {"bug": bug, "runtime_id": joined[bug].id, "reason": f"{type(exc).__name__}: {exc}"}
        if "reason" in result:
            not_run.append(result)
            print(f"{bug:15} not run: {result['reason']}", flush=True)
            continue
        twins = [b for b, row in joined.items() if b != bug and row.id == joined[bug].id]
        twin = twin_agreement(bug, by_bug[bug], twins[0], by_bug[twins[0]]) if twins else None
        if twin is not None:
            result["their_twin"] = twin
            if result["disagreement"]:
                result["disagreement"].append(twin_reason(twin))
        rows.append(result)
        print_row(result)
        _write(args, argv, rows, not_run, rule, started)  # a run cut short keeps the bugs it finished
    s = summary(rows)
    print(
        f"\nbugs with rows {s['bugs']}; matched mutants {s['matched']}; median CS theirs {_f(s['their_median_cs'])} "
        f"mutreal {_f(s['our_median_cs'])}; median IoU theirs {_f(s['their_median_iou'])} mutreal {_f(s['our_median_iou'])}"
    )
    print(
        f"reconstruction reaches the median IoU of the matched mutants (same runs) in "
        f"{s['reconstruction_at_least_same_runs_median_iou']} of {s['reconstruction_with_same_runs_figure']} bugs, "
        f"their published median IoU in {s['reconstruction_at_least_published_median_iou']} of "
        f"{s['reconstruction_with_published_figure']}; trainings mutreal {s['trainings']['mutreal']} (the reconstruction "
        f"alone {s['trainings']['reconstruction']}), theirs {s['trainings']['theirs']}"
    )
    by_reason: dict[str, list[str]] = defaultdict(list)
    for n in not_run:
        by_reason[n["reason"]].append(n["bug"])
    print(f"not run ({len(not_run)}):")
    for reason, bugs in sorted(by_reason.items(), key=lambda item: -len(item[1])):
        print(f"  {reason}: {len(bugs)} ({', '.join(bugs)})")
    print(f"wall time {round(time.monotonic() - started, 1)} s")
    if _write(args, argv, rows, not_run, rule, started):
        print(f"table: {args.out}")
    return 0


def _write(
    args: argparse.Namespace, argv: list[str] | None, rows: list, not_run: list, rule: str, started: float
) -> bool:
    """The table so far, when ``--out`` names it."""
    if not args.out:
        return False
    command = "python benchmarks/realism_published.py " + shlex.join(
        argv if argv is not None else sys.argv[1:]
    )
    data = table(rows, not_run=not_run, sample_rule_text=rule, our_rule=RELIABLE_RULE, command=command,
                 runs=args.runs, seconds=round(time.monotonic() - started, 1))  # fmt: skip
    Path(args.out).write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    return True


if __name__ == "__main__":
    sys.exit(main())
