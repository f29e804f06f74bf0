"""What the bubblewrap sandbox costs: per run on warm workers, and once per worker at start-up.

Two warm workers run the digits MLP subject (benchmarks/subjects/digits_mlp.py, a few seconds of
training) with the same seeds, one inside bubblewrap (``--sandbox bwrap``) and one without
(``--sandbox none``), runs interleaved so that a change of the machine's load hits both alike. Each
run is timed from outside, as the campaign sees it: sending the task, the run itself (in the sandbox:
copying the program's folder into its private ``/tmp``), the result coming back, and the reset after
it (killing the run's leftover processes, emptying the private ``/tmp``).

Prints the median per-run wall time of each, their ratio (target <= 1.05), the in-sandbox reset
time, and the start-up time of a sandboxed and an unsandboxed worker (importing TensorFlow
dominates both; the difference is the sandbox's start-up cost).

Usage: ``python benchmarks/sandbox_overhead.py [--seeds 5] [--threads 1]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from mutreal.execution import sandbox
from mutreal.execution.pool import WorkerProcess

PROGRAM = Path(__file__).resolve().parent / "subjects" / "digits_mlp.py"


def _task(seed: int) -> dict:
    return {
        "program": str(PROGRAM),
        "folder": str(PROGRAM.parent),
        "source": PROGRAM.read_text(encoding="utf-8"),
        "seed": seed,
        "args": [],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="runs per mode")
    parser.add_argument("--threads", type=int, default=1, help="TensorFlow threads per worker")
    args = parser.parse_args()
    works, user_namespace, why = sandbox.probe()
    if not works:
        raise SystemExit(f"bubblewrap does not work here: {why}")
    workers = {
        mode: WorkerProcess({"threads": args.threads, "sandbox": mode}, name=f"bench-{mode}")
        for mode in ("bwrap", "none")
    }
    walls: dict[str, list[float]] = {mode: [] for mode in workers}
    inner: dict[str, list[float]] = {mode: [] for mode in workers}
    try:
        for mode, worker in workers.items():
            worker.start()
            print(f"[startup] {mode:5s} worker ready in {worker.startup_s:.2f} s")
        startup_extra = workers["bwrap"].startup_s - workers["none"].startup_s
        print(f"[startup] sandbox start-up cost: {startup_extra:+.2f} s per worker "
              f"(user namespace: {user_namespace}, memory cgroup: {workers['bwrap'].cgroup is not None})")  # fmt: skip
        for worker in workers.values():  # one untimed run each: the first trace of a model
            worker.run(_task(99), timeout_s=600, memory_limit_mb=None)
        for seed in range(args.seeds):
            order = ("bwrap", "none") if seed % 2 == 0 else ("none", "bwrap")
            for mode in order:
                began = time.perf_counter()
                result = workers[mode].run(_task(seed), timeout_s=600, memory_limit_mb=None)
                walls[mode].append(time.perf_counter() - began)
                inner[mode].append(float(result.get("wall_time_s") or 0.0))
                if result["outcome"] != "ok":
                    raise SystemExit(
                        f"{mode} seed {seed}: {result['outcome']}: {result.get('error_message')}"
                    )
        reset = workers["bwrap"]
        began = time.perf_counter()
        for _ in range(10):
            reset._reset_between_runs()
        reset_s = (time.perf_counter() - began) / 10
    finally:
        for worker in workers.values():
            worker.stop()
    sandboxed, plain = statistics.median(walls["bwrap"]), statistics.median(walls["none"])
    print(
        f"[per run] load average {os.getloadavg()[0]:.2f}; {args.seeds} runs each, {args.threads} thread(s)"
    )
    for mode in workers:
        print(f"[per run] {mode:5s}: median wall {statistics.median(walls[mode]):.3f} s "
              f"(in the worker {statistics.median(inner[mode]):.3f} s); all: "
              + ", ".join(f"{w:.2f}" for w in walls[mode]))  # fmt: skip
    print(f"[per run] reset between runs (kill leftovers, empty private /tmp): {reset_s * 1000:.1f} ms")
    print(f"[per run] sandbox / no sandbox wall time = {sandboxed / plain:.3f}   (target <= 1.05)")


if __name__ == "__main__":
    main()
