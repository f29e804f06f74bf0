"""Every DeepCrime mutant name Ahmed et al. published: does mutreal read each, or say why not?

Reads the first column of every ``results/{coupling_strength,detectability_overlap}/*_pre_training_clean.csv``
of a bare git snapshot of their repository (zaheedahmed/dl-mutant-realism) at run time (nothing of
it is kept here), drops the ``MM_<bug>_`` prefix, and parses each distinct name with
:func:`mutreal.mutation.deepcrime_names.parse_name`. Prints the number of rows, distinct mutant names,
distinct operator names and parameter shapes, one line per operator (names, shape, parsed), and
every name that does not parse, grouped by reason. With ``--deepcrime-git-dir`` (a snapshot of
dlfaults/deepcrime) it also parses the file names of DeepCrime's own ``trained_models/``. With
``--bug ID --program PATH`` it also makes that bug's published mutants of PATH (the benchmark's
program of the bug, not their adapted one) and prints how many are made and why the others are not.

    python benchmarks/deepcrime_names_published.py [--git-dir /work/.mirror/zaheedahmed+dl-mutant-realism/repo]
        [--deepcrime-git-dir /work/.mirror/dlfaults+deepcrime/repo] [--bug deepfd006 --program PATH]
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import subprocess
import sys
from collections import Counter, defaultdict

from mutreal.mutation.deepcrime_names import REASONS, DeepCrimeNameError, name_formats, parse_name

DEFAULT_GIT_DIR = "/work/.mirror/zaheedahmed+dl-mutant-realism/repo"
_CSV = re.compile(r"^results/(coupling_strength|detectability_overlap)/[^/]+_pre_training_clean\.csv$")
_BUG_PREFIX = re.compile(r"^MM_(?P<bug>[a-z0-9]*?\d{3})_")


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True
    ).stdout


def published_names(git_dir: str) -> list[str]:
    """The mutant column of every pre-training CSV, one entry per row (``MM_<bug>_<name>``)."""
    files = [f for f in _git(git_dir, "ls-tree", "-r", "--name-only", "HEAD").splitlines() if _CSV.match(f)]
    names: list[str] = []
    for f in files:
        rows = csv.reader(io.StringIO(_git(git_dir, "show", f"HEAD:{f}")))
        next(rows, None)
        names.extend(row[0] for row in rows if row and row[0].startswith("MM_"))
    return names


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
    args = ap.parse_args(argv)
    rows = published_names(args.git_dir)
    bare = sorted({_BUG_PREFIX.sub("", n) for n in rows})
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
    print(f"rows {len(rows)} in the pre-training CSVs; distinct mutant names {len(set(rows))}")
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
    unread = {n for n in set(rows) if _BUG_PREFIX.sub("", n) in unreadable}
    print(f"mutants (names with their bug) read {len(set(rows)) - len(unread)} of {len(set(rows))}")
    for reason, errors in sorted(failed.items()):
        print(f"\nnot parsed ({reason}: {REASONS[reason]}): {len(errors)}")
        for err in errors:
            print(f"  {err}")
    if args.deepcrime_git_dir:
        _trained_models(args.deepcrime_git_dir)
    if args.bug and args.program:
        _make_bug(sorted({n for n in rows if n.startswith(f"MM_{args.bug}_")}), args.program)
    return 0


def _make_bug(names: list[str], path: str) -> None:
    """Make one bug's published mutants of a program: counts by operator, refusals by reason."""
    from mutreal.mutation.deepcrime_names import make_mutant
    from mutreal.mutation.operators import Program

    program = Program.from_file(path)
    made: Counter[str] = Counter()
    refused: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name in names:
        try:
            _, resolved = make_mutant(program, name)
            made[resolved.operator] += 1
        except DeepCrimeNameError as exc:
            refused[(exc.reason, name.split("_mutated", 1)[0].split("_", 2)[-1])].append(str(exc))
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
