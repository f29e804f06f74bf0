"""How many runs does ``--adaptive`` need, and does it reach the 20-run verdict? (replayed, not live)

Trains the buggy and the fixed program of each own campaign pair (benchmarks/campaign_pairs: a
wrong last activation, a learning rate far too high, one epoch, missing preprocessing, a missing
layer, a batch size that makes no difference: reproduced and not) with 20 seeds, then replays the
runs in run-index (seed) order through the sequential rule of ``--adaptive``
(:func:`mutreal.stats.sequential.sequential_decision`, the reproduction target: fixed better with
d >= 0.2) and compares each early verdict with the rule at all 20 runs. Prints, per pair and
overall, the runs needed / 20 and how many verdicts equal the full one. Goal: at most 0.5 of the
runs, every verdict equal.

``--published FILE`` replays the study's own per-run outcomes as well: a CSV with the columns
``id,side,run,value[,crashed]`` (side buggy|fixed, run 0..19 in the study's order, value the
metric, crashed 1 when that run failed) and optionally ``lower_is_better`` (1 for a loss).

Usage: ``python benchmarks/adaptive_replay.py [--store runs.sqlite] [--jobs 2] [--published F.csv]``.
The store keeps the trainings, so a second call only replays.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from mutreal.analysis.series import metric_series
from mutreal.campaigns.pair import run_programs
from mutreal.campaigns.reproduce import read_reproduce_manifest
from mutreal.stats.sequential import look_at, sequential_decision

PAIRS = Path(__file__).resolve().parent / "campaign_pairs" / "manifest.csv"
PLANNED = 20


def replay(name: str, buggy: np.ndarray, fixed: np.ndarray, crashed_b: np.ndarray, crashed_f: np.ndarray,
           lower_is_better: bool, min_runs: int, step: int) -> tuple[int, bool, bool]:  # fmt: skip
    """(runs used, early verdict, full 20-run verdict) of one pair, a = buggy, b = fixed."""
    # the study's published files sometimes hold a 21st run: both verdicts see the first 20 only, and a
    # shorter series is planned at its own length (the full verdict then really is the last look)
    buggy, fixed, crashed_b, crashed_f = (np.asarray(v)[:PLANNED] for v in (buggy, fixed, crashed_b, crashed_f))
    planned = min(PLANNED, len(buggy), len(fixed))
    common = {"target": "b better", "effect": 0.2, "lower_is_better": lower_is_better, "alpha": 0.05}
    early = sequential_decision(buggy, fixed, planned_runs=planned, min_runs=min_runs, step=step,
                                crashed_a=crashed_b, crashed_b=crashed_f, **common)  # fmt: skip
    full = look_at(buggy, fixed, planned_runs=planned, crashed_a=crashed_b, crashed_b=crashed_f, **common)
    verdict = bool(full.decision)
    print(f"  {name:28} runs {early.used_runs:2d}/{PLANNED}  adaptive {'yes' if early.decision else 'no ':3}  "
          f"20-run {'yes' if verdict else 'no ':3}  {'equal' if early.decision == verdict else 'DIFFERENT'}")  # fmt: skip
    return early.used_runs, early.decision, verdict


def summary(label: str, results: list[tuple[int, bool, bool]]) -> None:
    if not results:
        return
    share = sum(r[0] for r in results) / (PLANNED * len(results))
    equal = sum(r[1] == r[2] for r in results)
    print(f"[{label}] {len(results)} pairs: runs needed {share:.2f} of {PLANNED} (goal <= 0.5); "
          f"verdicts equal to the 20-run verdict: {equal}/{len(results)} (goal all)")  # fmt: skip


def own_pairs(store: str, jobs: int, min_runs: int, step: int) -> list[tuple[int, bool, bool]]:
    tasks = read_reproduce_manifest(PAIRS)
    seeds = list(range(PLANNED))
    results = []
    print(f"[own] {len(tasks)} pairs x 2 programs x {PLANNED} seeds (store {store})")
    for task in tasks:
        buggy, fixed = run_programs([task.buggy[0], task.fixed[0]], seeds,
                                    {"store": store, "jobs": jobs, "progress": False})  # fmt: skip
        b = metric_series(buggy)
        f = metric_series(fixed, b.metric, b.lower_is_better)
        results.append(
            replay(task.id, b.values, f.values, b.aborted, f.aborted, b.lower_is_better, min_runs, step)
        )
    return results


def published(path: str, min_runs: int, step: int) -> list[tuple[int, bool, bool]]:
    runs: dict[str, dict[str, dict[int, tuple[float, bool]]]] = defaultdict(lambda: defaultdict(dict))
    lower: dict[str, bool] = {}
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            value = float(row["value"]) if (row.get("value") or "").strip() else float("nan")
            runs[row["id"]][row["side"]][int(row["run"])] = (
                value,
                (row.get("crashed") or "0").strip() == "1",
            )
            lower[row["id"]] = (row.get("lower_is_better") or "0").strip() == "1"
    results = []
    print(f"[published] {len(runs)} bugs from {path}")
    for bug, sides in runs.items():
        if set(sides) != {"buggy", "fixed"}:
            print(f"  {bug}: needs both a buggy and a fixed side, skipped", file=sys.stderr)
            continue
        order = {s: [sides[s][i] for i in sorted(sides[s])] for s in sides}
        values = {s: np.array([v for v, _ in order[s]]) for s in order}
        crashed = {s: np.array([c for _, c in order[s]]) for s in order}
        results.append(replay(bug, values["buggy"], values["fixed"], crashed["buggy"], crashed["fixed"],
                              lower[bug], min_runs, step))  # fmt: skip
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default=str(Path.cwd() / "adaptive_replay.sqlite"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--min-runs", type=int, default=5)
    parser.add_argument("--step", type=int, default=5)
    parser.add_argument("--published", default=None, help="CSV id,side,run,value[,crashed,lower_is_better]")
    parser.add_argument("--skip-own", action="store_true", help="replay only --published")
    args = parser.parse_args()
    own = [] if args.skip_own else own_pairs(args.store, args.jobs, args.min_runs, args.step)
    summary("own", own)
    if args.published:
        summary("published", published(args.published, args.min_runs, args.step))


if __name__ == "__main__":
    main()
