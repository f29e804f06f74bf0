"""Every DeepCrime mutant name Ahmed et al. published: does mutreal read each, or say why not?

Reads every bug's pre-training mutants from a snapshot of their repository
(zaheedahmed/dl-mutant-realism) at run time with :mod:`mutreal.study.published_realism` (nothing of
it is kept here), and parses each distinct DeepCrime name (their row without ``MM_<bug>_``) with
:func:`mutreal.mutation.deepcrime_names.parse_name`. Prints the number of published mutants,
distinct operator names and parameter shapes, one line per operator (names, shape, parsed), and
every name that does not parse, grouped by reason. With ``--deepcrime-git-dir`` (a snapshot of
dlfaults/deepcrime) it also parses the file names of DeepCrime's own ``trained_models/``. With
``--bug ID --program PATH`` it also makes that bug's published mutants of PATH (the benchmark's
program of the bug, not their adapted one) and prints how many are made and why the others are not.
With ``--manifest`` (a runtime manifest) it makes the published mutants of every bug whose id joins
a row of it (their ids named through DeepFD's and DeepLocalize's spreadsheets, read from snapshots
of those repositories), from the row's fixed program (DeepCrime mutated the clean program), under
both layer countings: per bug and in total, mutants made and why the others are not.

    python benchmarks/deepcrime_names_published.py [--git-dir /work/.mirror/zaheedahmed+dl-mutant-realism/repo]
        [--deepcrime-git-dir /work/.mirror/dlfaults+deepcrime/repo] [--bug deepfd006 --program PATH [--counting layers]]
        [--manifest /tmp/mutreal-runtime/manifest.csv [--deepfd-git-dir D] [--deeplocalize-git-dir D]]
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
from collections import Counter, defaultdict

from mutreal.mutation.deepcrime_names import COUNTINGS, REASONS, DeepCrimeNameError, name_formats, parse_name
from mutreal.study.published_realism import (
    PublishedMutant,
    Snapshot,
    first_present,
    numbered_rows,
    published_bugs,
    read_bug,
    runtime_ids,
)

DEFAULT_GIT_DIR = "/work/.mirror/zaheedahmed+dl-mutant-realism/repo"


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True
    ).stdout


def published_mutants(git_dir: str) -> list[PublishedMutant]:
    """Every published pre-training mutant of every bug (read by :mod:`mutreal.study.published_realism`)."""
    snapshot = Snapshot(git_dir)
    return [m for bug in published_bugs(snapshot) for m in read_bug(snapshot, bug)]


def shape(name: str) -> str:
    """A name's parameter shape: the operator's pattern with each value's kind (``<float>_<float>_<layer>``)."""
    try:
        req = parse_name(name)
    except DeepCrimeNameError:
        tail = name.split("_MP", 1)[-1]
        return "?" + re.sub(r"\d+(\.\d+)?(e-\d+)?", "<n>", tail)
    fmt = next(f for f in name_formats().values() if f.operator == req.operator)
    kind = fmt.spec.param.kind if fmt.spec.param else "none"
    return fmt.params.replace("{value}", f"<{kind}>").replace("{layer}", "<layer>") or "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git-dir", default=DEFAULT_GIT_DIR)
    ap.add_argument("--deepcrime-git-dir", default=None, help="also DeepCrime's trained_models/ file names")
    ap.add_argument("--bug", help="a bug id of their CSVs (deepfd006): make its mutants of --program")
    ap.add_argument("--program", help="the bug's program")
    ap.add_argument("--counting", choices=COUNTINGS, default=COUNTINGS[0], help="how the layer indices count")
    ap.add_argument("--manifest", help="a runtime manifest: make every joined bug's mutants")
    ap.add_argument("--deepfd-git-dir", default="/work/.mirror/ArabelaTso+DeepFD/repo")
    ap.add_argument("--deeplocalize-git-dir", default="/work/.mirror/Wardat-ISU+DeepLocalize/repo")
    args = ap.parse_args(argv)
    mutants = published_mutants(args.git_dir)
    bare = sorted({m.name for m in mutants})
    per_op: dict[str, list[str]] = defaultdict(list)
    failed: dict[str, list[DeepCrimeNameError]] = defaultdict(list)
    parsed = Counter()
    for name in bare:
        key = name.split("_mutated", 1)[0]
        per_op[key].append(name)
        try:
            parse_name(name)
            parsed[key] += 1
        except DeepCrimeNameError as exc:
            failed[exc.reason].append(exc)
    shapes = {(key, shape(n)) for key, names in per_op.items() for n in names}
    readable = {s for s in shapes if not s[1].startswith("?")}
    print(f"published pre-training mutants {len(mutants)} of {len({m.bug for m in mutants})} bugs")
    print(
        f"distinct names without the bug prefix {len(bare)}; operator names {len(per_op)}; "
        f"parameter shapes {len(shapes)} ({len(readable)} read, {len(shapes) - len(readable)} not)"
    )
    print(f"{'operator name':34} {'op':4} {'names':>6} {'parsed':>6}  shape(s)")
    for key in sorted(per_op):
        fmt = name_formats().get(key)
        kinds = sorted({s for k, s in shapes if k == key})
        print(
            f"{key:34} {fmt.operator if fmt else '?':4} {len(per_op[key]):6} {parsed[key]:6}  {', '.join(kinds)}"
        )
    total_parsed = sum(parsed.values())
    print(f"parsed {total_parsed} of {len(bare)}; not parsed {len(bare) - total_parsed}")
    unreadable = {exc.name for errors in failed.values() for exc in errors}
    unread = [m for m in mutants if m.name in unreadable]
    print(f"mutants (names with their bug) read {len(mutants) - len(unread)} of {len(mutants)}")
    for reason, errors in sorted(failed.items()):
        print(f"\nnot parsed ({reason}: {REASONS[reason]}): {len(errors)}")
        for err in errors:
            print(f"  {err}")
    if args.deepcrime_git_dir:
        _trained_models(args.deepcrime_git_dir)
    if args.bug and args.program:
        _make_bug([m.name for m in mutants if m.bug == args.bug], args.program, args.counting)
    if args.manifest:
        _make_joined(mutants, args.manifest, args.deepfd_git_dir, args.deeplocalize_git_dir)
    return 0


def _spreadsheet_rows(git_dir: str, path: str, number: str, value: str) -> dict[int, str]:
    import pandas as pd

    data = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"HEAD:{path}"], check=True, capture_output=True
    )
    return numbered_rows(pd.read_excel(io.BytesIO(data.stdout)).to_dict("records"), number, value)


def _model_program(files: list[str]):
    """The file of a side that builds a model and trains it (else the first that builds one); None
    when none parses or builds a model."""
    from mutreal.mutation.operators import Program

    chosen = None
    for path in files:
        try:
            program = Program.from_file(path)
        except Exception:  # noqa: BLE001 - a file that does not parse is not the model's
            continue
        if any(m.layers for m in program.model.models) and (chosen is None or program.model.fits):
            chosen = program
            if program.model.fits:
                break
    return chosen


def _make_joined(mutants: list[PublishedMutant], manifest: str, deepfd: str, deeplocalize: str) -> None:
    """Every joined bug's published mutants made from its fixed program, under both countings."""
    from mutreal.manifest import load_manifest
    from mutreal.mutation.deepcrime_names import make_mutant

    posts = _spreadsheet_rows(deepfd, "Benchmark/Benchmark-with-patches.xlsx", "No", "Post #")
    so = _spreadsheet_rows(deeplocalize, "Benchmark/StackOverflow/Benchmark.xlsx", "No", "Post #")
    gh = _spreadsheet_rows(deeplocalize, "Benchmark/GitHub/Benchmark.xlsx", "NO", "GH Repo")
    rows = {row.id: row for row in load_manifest(manifest).rows}
    by_bug: dict[str, list[str]] = defaultdict(list)
    for m in mutants:
        by_bug[m.bug].append(m.name)
    total: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    not_joined = []
    print(
        f"\n{'bug':16} {'runtime id':40} {'mutants':>7} {'config':>6} {'layers':>6}  refused (best counting)"
    )
    for bug, names in sorted(by_bug.items()):
        rid = first_present(runtime_ids(bug, posts, so, gh), rows) if not bug.startswith("cleanml") else None
        program = _model_program(rows[rid].fixed) if rid else None
        if program is None:
            not_joined.append(bug if rid is None else f"{bug} ({rid}: no model)")
            continue
        made: dict[str, int] = {}
        why: dict[str, Counter[str]] = {}
        for counting in COUNTINGS:
            made[counting], why[counting] = 0, Counter()
            for name in names:
                try:
                    make_mutant(program, name, counting=counting)
                    made[counting] += 1
                except DeepCrimeNameError as exc:
                    why[counting][exc.reason] += 1
        best = max(COUNTINGS, key=lambda c: made[c])
        total.update({"bugs": 1, "mutants": len(names), **made, "best": made[best]})
        reasons.update(why[best])
        refused = ", ".join(f"{r} {n}" for r, n in why[best].most_common())
        print(f"{bug:16} {rid:40} {len(names):7} {made['config']:6} {made['layers']:6}  {refused}")
    print(
        f"joined bugs {total['bugs']}; published mutants {total['mutants']}; made counting config "
        f"{total['config']}, layers {total['layers']}, the better per bug {total['best']}"
    )
    print("refused (the better counting per bug): " + ", ".join(f"{r} {n}" for r, n in reasons.most_common()))
    print(f"not joined ({len(not_joined)}): {', '.join(not_joined)}")


def _make_bug(names: list[str], path: str, counting: str) -> None:
    """Make one bug's published mutants of a program: counts by operator, refusals by reason."""
    from mutreal.mutation.deepcrime_names import make_mutant
    from mutreal.mutation.operators import Program

    program = Program.from_file(path)
    made: Counter[str] = Counter()
    refused: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name in names:
        try:
            _, resolved = make_mutant(program, name, counting=counting)
            made[resolved.operator] += 1
        except DeepCrimeNameError as exc:
            refused[(exc.reason, name.split("_mutated", 1)[0])].append(str(exc))
    print(f"\n{len(names)} published mutants of the bug; made {sum(made.values())} of {path}")
    print("  made: " + ", ".join(f"{op} {n}" for op, n in sorted(made.items())))
    for (reason, key), errors in sorted(refused.items()):
        print(f"  not made ({reason}) {key}: {len(errors)}, e.g. {errors[0]}")


def _trained_models(git_dir: str) -> None:
    """DeepCrime's own trained mutants: ``trained_models/<subject>_<name>_<run>.h5``."""
    files = [
        f
        for f in _git(git_dir, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
        if f.startswith("trained_models/") and f.endswith(".h5")
    ]
    keys: Counter[str] = Counter()
    for f in files:
        try:
            req = parse_name(f)
            keys[f"{req.key} -> {req.operator} {req.canonical}"] += 1
        except DeepCrimeNameError as exc:
            keys[f"not a mutant ({exc.reason}): {f.rsplit('_', 1)[0]}_<run>.h5"] += 1
    print(f"\nDeepCrime's trained_models/: {len(files)} files")
    for what, n in sorted(keys.items()):
        print(f"  {n:4}  {what}")


if __name__ == "__main__":
    sys.exit(main())
