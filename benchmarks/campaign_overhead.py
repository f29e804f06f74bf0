"""What a benchmark campaign costs beyond the training itself, and what ``compare --mutants all`` costs.

1. ``reproduce --manifest`` over 4 own bugs (benchmarks/campaign_pairs: wrong last activation,
   learning rate too high, one epoch, a missing layer) x 5 seeds on the worker service (``mutreal
   workers start``, then ``--executor pool``): prints (campaign wall x jobs) / (sum of the in-script
   fit+evaluate time of all runs), as benchmarks/runner_overhead.py measures it. 1.0 would mean the
   workers did nothing but train; what is left is program start (imports, data), capture, scheduling
   and the statistics of each bug.
2. ``compare --manifest --mutants all`` on one own bug: how many mutants, how many trainings and the
   wall time (every first-order mutant of the 24 operators at the catalogue's values, 3 seeds).

Both run through the installed entry point (``python -m mutreal``) on fresh stores, so every run
really trains. On a machine shared with other work the figures move; the load is printed with them.

Usage: ``python benchmarks/campaign_overhead.py [--jobs 2] [--seeds 5] [--all-seeds 3] [--skip-all]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mutreal.execution.store import RunStore

PAIRS = Path(__file__).resolve().parent / "campaign_pairs"
BUGS = ("wrong_last_activation", "learning_rate_too_high", "too_few_epochs", "missing_layer")


def manifest(folder: Path, bugs: tuple[str, ...]) -> Path:
    lines = ["id,benchmark,buggy,fixed"] + [
        f"{b},own,{PAIRS / b / 'buggy.py'},{PAIRS / b / 'fixed.py'}" for b in bugs
    ]
    path = folder / "manifest.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def mutreal(*args: str) -> float:
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mutreal", *args], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"mutreal {' '.join(args[:2])} failed: {done.stderr[-2000:]}")
    return time.perf_counter() - began


def campaign_overhead(jobs: int, seeds: int) -> None:
    from mutreal.execution.campaign_config import CampaignConfig
    from mutreal.execution.executor_choice import worker_options
    from mutreal.execution.service import start_service, stop_service

    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        folder = Path(tmp)
        address = str(folder / "w.sock")
        began = time.perf_counter()
        start_service(jobs, worker_options(CampaignConfig(jobs=jobs)), address)
        print(
            f"[campaign] worker service started (outside the campaign) in {time.perf_counter() - began:.1f} s"
        )
        try:
            store = folder / "runs.sqlite"
            wall = mutreal("reproduce", "--manifest", str(manifest(folder, BUGS)), "--runs", str(seeds),
                           "--executor", "pool", "--address", address, "--jobs", str(jobs), "--store", str(store),
                           "--out", str(folder / "r.jsonl"), "-q")  # fmt: skip
        finally:
            stop_service(address)
        with RunStore(store) as opened:
            records = opened.records()
        rows = [json.loads(line) for line in (folder / "r.jsonl").read_text().splitlines()]
    in_script = sum(r.fit_time_s + r.evaluate_time_s for r in records)
    worker = sum(r.wall_time_s for r in records)
    print(f"[campaign] {len(BUGS)} bugs x 2 programs x {seeds} seeds = {len(records)} runs, jobs={jobs}: "
          f"wall {wall:.1f} s, sum fit+evaluate {in_script:.1f} s, sum per-run wall {worker:.1f} s")  # fmt: skip
    print(f"[campaign] rows: {[(r['id'], r['status'], r.get('reproduced')) for r in rows]}")
    print(f"[campaign] (wall x jobs) / (fit+evaluate) = {wall * jobs / in_script:.3f}; "
          f"of it inside runs (imports, data, model building) {(worker - in_script) / in_script:.3f}")  # fmt: skip


def compare_all_cost(jobs: int, seeds: int, bug: str = "too_few_epochs") -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        folder = Path(tmp)
        out = folder / "c.jsonl"
        wall = mutreal("compare", "--manifest", str(manifest(folder, (bug,))), "--mutants", "all", "--runs",
                       str(seeds), "--jobs", str(jobs), "--out", str(out), "-q")  # fmt: skip
        (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    best = row.get("best") or {}
    print(f"[compare --mutants all] {bug}: {len(row['mutants'])} mutants, {row['trainings']} trainings "
          f"({seeds} seeds), wall {wall:.1f} s ({wall / max(row['trainings'], 1):.2f} s per training at jobs={jobs}); "
          f"best {best.get('operator')}={best.get('value')} coupling {best.get('coupling')}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--all-seeds", type=int, default=3)
    parser.add_argument("--skip-all", action="store_true", help="only the campaign overhead")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average before {os.getloadavg()}")
    campaign_overhead(args.jobs, args.seeds)
    if not args.skip_all:
        compare_all_cost(args.jobs, args.all_seeds)
    print(f"machine load average after {os.getloadavg()}")


if __name__ == "__main__":
    main()
