"""Regenerate operators/combinations.csv from the realism study's dev split.

Usage: python tools/derive_combinations.py [DEV_SPLIT.csv] [--out operators/combinations.csv]

For each bug of the dev split (the study's manual codes and per-code DeepCrime flags Y/N) it keeps
the codes the study flagged simulable, and counts every multiset of them of order 1 to 6: support
(bugs containing it), exact (bugs whose simulable codes are exactly it), and support among fully
simulable bugs. Codes are read as the study's scoring script reads them (mutreal.study.labelsfile:
notes in parentheses dropped, "Wrong kernel size" is LCF). Only counting, no third-party code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mutreal.operator_catalogue import count_combinations, write_combinations
from mutreal.study.labelsfile import read_labels

DEFAULT_SPLIT = Path("/work/shared/reference/dev_split.csv")
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "operators" / "combinations.csv"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dev_split", nargs="?", type=Path, default=DEFAULT_SPLIT)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--max-order", type=int, default=6)
    args = ap.parse_args(argv)
    bugs = read_labels(args.dev_split)
    usable = [(b.codes, b.flags) for b in bugs if b.flags is not None]
    skipped = [b.id for b in bugs if b.flags is None]
    for bug_id in skipped:
        print(f"skipped {bug_id}: flags do not pair with codes", file=sys.stderr)
    combos = count_combinations(usable, max_order=args.max_order)
    n_sim = sum(1 for codes, flags in usable if any(flags))
    n_full = sum(1 for codes, flags in usable if codes and all(flags))
    header = [
        "Frequency table of co-occurring DeepCrime-simulable fault codes (mutreal hom-generate's default).",
        f"Derived from the realism study's dev split ({args.dev_split.name}: {len(bugs)} bugs of DeepLocalize,",
        f"Defects4ML, SFData, DeepFD; {len(skipped)} skipped for unusable flags) by tools/derive_combinations.py.",
        "Per bug: the multiset of the codes the study flagged simulable (Y); every sub-multiset of order",
        f"1..{args.max_order} counts once for that bug. {n_sim} bugs have a simulable code, {n_full} are fully simulable.",
        "support: bugs containing the multiset; exact: bugs whose simulable codes are exactly it;",
        "support_fully_simulable: bugs containing it whose codes are all simulable. codes: sorted, space-separated.",
    ]
    write_combinations(combos, args.out, header)
    print(f"wrote {len(combos)} combinations to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
