"""Runner overhead and warm-worker speed-up on the digits MLP subjects (targets from issue 5).

1. Overhead: 2 programs x 10 seeds with ``jobs=2``; prints (campaign wall time x jobs) / (sum of the
   in-script fit+evaluate time of all runs). 1.0 would mean workers spend all their time training;
   target <= 1.15. Measured twice: with workers started by the campaign (``mutreal run``), and on
   the worker service whose workers are already warm (``mutreal workers start`` once, then every
   campaign with ``--executor pool``).
2. Warm workers: 4 seeds of one program with ``jobs=2`` against 4 fresh ``python program.py``
   processes in a row (what the realism study did); target >= 2x faster.
3. Determinism: the 4 seeds of (2) run again in a fresh campaign give the same numbers.

Usage: ``python benchmarks/runner_overhead.py [--seeds 10] [--jobs 2]``. Nothing is stored (each
campaign uses a fresh temporary store), so every run really trains. On a machine shared with other
work the figures move; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mutreal.execution import execute_campaign, run_campaign

SUBJECTS = Path(__file__).resolve().parent / "subjects"
FIXED = SUBJECTS / "digits_mlp.py"
BUGGY = SUBJECTS / "digits_mlp_wrong_activation.py"


def overhead(seeds: int, jobs: int, executor: str = "local", address: str | None = None) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        result = execute_campaign(
            [FIXED, BUGGY], runs=seeds, jobs=jobs, store=Path(tmp) / "runs.sqlite", progress=False,
            executor=executor, address=address,
        )  # fmt: skip
        records = result.records
        wall = time.perf_counter() - start
    print(f"[overhead] executor {executor}" + (" (workers already warm)" if executor == "pool" else
                                               " (workers start with the campaign)"))  # fmt: skip
    in_script = sum(r.fit_time_s + r.evaluate_time_s for r in records)
    worker_wall = sum(r.wall_time_s for r in records)
    ratio = wall * jobs / in_script
    outcomes = {r.outcome for r in records}
    print(f"[overhead] {len(records)} runs ({outcomes}), jobs={jobs}: campaign wall {wall:.1f} s, "
          f"sum in-script fit+evaluate {in_script:.1f} s, sum per-run wall {worker_wall:.1f} s")  # fmt: skip
    print(f"[overhead] (wall x jobs) / (fit+evaluate) = {ratio:.3f}   (target <= 1.15)")
    startup = result.worker_startup_s or 0.0
    outside = wall * jobs - worker_wall
    print(f"[overhead] inside runs (imports, data, model building, capture): {(worker_wall - in_script) / in_script:.3f}; "
          f"outside runs: {outside / in_script:.3f}, of which worker start-up (TensorFlow import) "
          f"{startup / in_script:.3f} ({startup:.1f} worker-s) and idle tail/scheduling {(outside - startup) / in_script:.3f}")  # fmt: skip
    print(f"[overhead] without worker start-up: {(wall * jobs - startup) / in_script:.3f}")
    return ratio


def service_overhead(seeds: int, jobs: int) -> float:
    """The same campaign on the worker service (``mutreal workers start``, ``--executor pool``): what
    each campaign after the first costs when its workers are kept warm between commands."""
    from mutreal.execution.campaign import CampaignConfig, worker_options
    from mutreal.execution.service import start_service, stop_service

    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        address = str(Path(tmp) / "w.sock")
        began = time.perf_counter()
        start_service(jobs, worker_options(CampaignConfig(jobs=jobs)), address)
        print(
            f"[overhead] worker service started (outside the campaign) in {time.perf_counter() - began:.1f} s"
        )
        try:
            return overhead(seeds, jobs, executor="pool", address=address)
        finally:
            stop_service(address)


def warm_vs_fresh(jobs: int) -> tuple[float, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        records = run_campaign([FIXED], runs=4, jobs=jobs, store=Path(tmp) / "runs.sqlite", progress=False)
        warm = time.perf_counter() - start
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    start = time.perf_counter()
    for _ in range(4):
        subprocess.run([sys.executable, str(FIXED)], check=True, capture_output=True, env=env, cwd=SUBJECTS)
    fresh = time.perf_counter() - start
    print(f"[warm] 4 seeds with jobs={jobs}: {warm:.1f} s; 4 fresh python processes in a row: {fresh:.1f} s")
    print(f"[warm] speed-up {fresh / warm:.2f}x   (target >= 2x)")
    return fresh / warm, [r.metric_value for r in records]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=10, help="seeds per program in the overhead part")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-overhead", action="store_true")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average before {os.getloadavg()}")
    if not args.skip_overhead:
        overhead(args.seeds, args.jobs)
        service_overhead(args.seeds, args.jobs)
    _, first = warm_vs_fresh(args.jobs)
    with tempfile.TemporaryDirectory() as tmp:
        last = execute_campaign([FIXED], runs=4, jobs=args.jobs, store=Path(tmp) / "s.sqlite", progress=False)
        again = [r.metric_value for r in last.records]
    print(
        f"[determinism] same seeds twice: {'identical' if first == again else 'DIFFERENT'} {first} vs {again}"
    )
    print(f"machine load average after {os.getloadavg()}; last campaign {last.id}")


if __name__ == "__main__":
    main()
