"""Runner overhead and warm-worker speed-up on the digits MLP subjects (targets from issue 5).

1. Overhead: 2 programs x 10 seeds with ``jobs=2``; prints (campaign wall time x jobs) / (sum of the
   in-script fit+evaluate time of all runs). 1.0 would mean workers spend all their time training;
   target <= 1.15. Measured twice: with workers started by the campaign (``mutreal run``), and on
   the worker service whose workers are already warm (``mutreal workers start`` once, then every
   campaign with ``--executor pool``).
2. Warm workers: 4 seeds of one program with ``jobs=2`` against 4 fresh ``python program.py``
   processes in a row (what the realism study did); target >= 2x faster.
3. Determinism: the 4 seeds of (2) run again in a fresh campaign give the same numbers.
4. Start-up (issue 32), ``--startup``: where the fixed cost of a campaign's first result goes, and
   the command against plain runs. First the split, measured step by step in a fresh interpreter
   (the parent's imports and whether TensorFlow is among them, the program's framework choice and
   hashes, the sandbox probe, the store and plan, one worker's spawn to ready beside a plain
   ``import keras``, its first and second run with what a run costs beyond fit+evaluate, its kill);
   then, alternating and repeated (``--repeats``, medians), one plain ``python program.py`` against
   ``mutreal run --runs 1 --jobs 1``, and 4 plain runs in a row against ``mutreal run --runs 4
   --jobs 2``; targets: within 1.3x of one plain run, and at least 2.5x faster than 4 plain runs.
   ``--baseline-src /work/main/src`` (repeatable) measures that source tree too, in the same
   alternation, so before and after share the machine's load (printed beside each figure).

Usage: ``python benchmarks/runner_overhead.py [--seeds 10] [--jobs 2]``; ``--startup [--repeats 3]
[--baseline-src DIR]`` for part 4 alone. Nothing is stored (each campaign uses a fresh temporary
store), so every run really trains. On a machine shared with other work the figures move; the load
average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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
    from mutreal.execution.campaign_config import CampaignConfig
    from mutreal.execution.executor_choice import worker_options
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


OWN_SRC = Path(__file__).resolve().parents[1] / "src"
#: TensorFlow's and Keras' top-level modules: the parent of a campaign imports none of them.
FRAMEWORK_MODULES = frozenset({"tensorflow", "keras", "tf_keras"})


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


def _step(label: str, began: float, note: str = "") -> float:
    seconds = time.perf_counter() - began
    print(f"[split]   {label:<58} {seconds:6.2f} s{('  ' + note) if note else ''}", flush=True)
    return seconds


def split() -> None:
    """One campaign's fixed costs, step by step, in this (fresh) interpreter: what ``mutreal run``
    does before, around and after its first run (run with ``python runner_overhead.py --split``)."""
    began = time.perf_counter()
    import mutreal.commands.run  # noqa: F401 - the command's own imports
    from mutreal.execution import campaign, campaign_config, environment, executor_choice, sandbox
    from mutreal.execution.plan import plan_campaign, prepare_program
    from mutreal.execution.pool import WorkerProcess

    _step("parent imports (cli, run command, execution)", began)
    began = time.perf_counter()
    prepared = prepare_program(FIXED, False, FIXED.parent, "auto", None)
    _step("framework choice, rewrites and hashes of the program", began, f"({prepared.framework})")
    cfg = campaign_config.campaign_config(None, {"programs": [FIXED], "runs": 1, "jobs": 1})
    began = time.perf_counter()
    sandbox.resolve(cfg.sandbox)
    _step("sandbox probe (bubblewrap)", began, f"({sandbox.resolve(cfg.sandbox).mode})")
    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        opened = campaign.open_campaign(cfg, Path(tmp) / "runs.sqlite", [prepared])
        plan = plan_campaign(cfg, [prepared], opened.store, opened.id, env_hash=environment.environment_hash(),
                             memory_limit_mb=opened.memory_limit_mb)  # fmt: skip
        _step("store, environment, manifest files and plan", began)
        imported = FRAMEWORK_MODULES & set(sys.modules)
        print(f"[split]   parent has imported TensorFlow/Keras: {sorted(imported) or 'no'}")
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import keras"], check=True, capture_output=True, env=env)
        _step("for comparison: a plain `python -c 'import keras'`", began)
        worker = WorkerProcess(executor_choice.worker_options(cfg), name="w0")
        began = time.perf_counter()
        worker.start()
        _step("worker start: sandbox, interpreter, TensorFlow import, ready", began)
        task = plan.task(plan.runs[0], cfg)
        for index in range(2):
            began = time.perf_counter()
            result = worker.run(task, cfg.timeout_s, opened.memory_limit_mb)
            inside = result["fit_time_s"] + result["evaluate_time_s"]
            _step(f"run {index + 1} on that worker ({result['outcome']})", began,
                  f"(fit+evaluate {inside:.2f} s, the rest of the run {result['wall_time_s'] - inside:.2f} s: "
                  "program imports, data, per-input capture)")  # fmt: skip
        began = time.perf_counter()
        worker.kill()
        _step("kill the worker (its sandbox dead)", began)
        opened.close()


def _timed(command: list[str], src: Path | None = None) -> float:
    """Seconds one command takes from a fresh process to its end (its ``mutreal`` from ``src``)."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), os.environ.get("PYTHONPATH", "")) if p)
    began = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env, cwd=SUBJECTS)
    return time.perf_counter() - began


def startup(repeats: int, baselines: list[Path]) -> None:
    """Part 4: the split of each source tree, then plain runs against ``mutreal run``, alternating."""
    trees = {"this tree": OWN_SRC, **{f"baseline {src}": src for src in baselines}}
    for name, src in trees.items():
        print(f"[split] {name} ({src}), {_load()}", flush=True)
        env = {**os.environ, "PYTHONPATH": str(src), "TF_CPP_MIN_LOG_LEVEL": "2"}
        subprocess.run([sys.executable, __file__, "--split"], check=True, env=env)
    mutreal = [sys.executable, "-m", "mutreal", "run", str(FIXED), "--quiet"]
    plain = [sys.executable, str(FIXED)]
    times: dict[str, list[float]] = {}
    for repeat in range(repeats):
        measured = {"plain x1": lambda: _timed(plain),
                    "plain x4 in a row": lambda: sum(_timed(plain) for _ in range(4))}  # fmt: skip
        for name, src in trees.items():
            measured[f"{name}: run --runs 1 --jobs 1"] = lambda s=src: _timed(
                [*mutreal, "--runs", "1", "--jobs", "1"], s
            )
            measured[f"{name}: run --runs 4 --jobs 2"] = lambda s=src: _timed(
                [*mutreal, "--runs", "4", "--jobs", "2"], s
            )
        order = list(measured) if repeat % 2 == 0 else list(reversed(measured))
        for label in order:
            before = _load()
            seconds = measured[label]()
            times.setdefault(label, []).append(seconds)
            print(f"[startup] repeat {repeat + 1}: {label:<36} {seconds:6.1f} s   ({before} before, {_load()} after)",
                  flush=True)  # fmt: skip
    median = {label: statistics.median(values) for label, values in times.items()}
    print(f"[startup] medians of {repeats} ({_load()} now):")
    for label, value in median.items():
        print(f"[startup]   {label:<36} {value:6.1f} s")
    for name in trees:
        one = median[f"{name}: run --runs 1 --jobs 1"] / median["plain x1"]
        four = median["plain x4 in a row"] / median[f"{name}: run --runs 4 --jobs 2"]
        print(
            f"[startup] {name}: run --runs 1 = {one:.2f}x one plain run (target <= 1.3); "
            f"run --runs 4 --jobs 2 {four:.2f}x faster than 4 plain runs (target >= 2.5)"
        )
    print("[startup] " + json.dumps({"medians_s": median, "repeats": repeats}))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=10, help="seeds per program in the overhead part")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-overhead", action="store_true")
    parser.add_argument("--startup", action="store_true", help="part 4 alone: start-up split and targets")
    parser.add_argument("--repeats", type=int, default=3, help="alternating repeats of part 4 (medians)")
    parser.add_argument("--baseline-src", type=Path, action="append", default=[],
                        help="another tree's src/ (e.g. main's) measured in the same alternation; repeatable")  # fmt: skip
    parser.add_argument("--split", action="store_true", help=argparse.SUPPRESS)  # part 4's fresh interpreter
    args = parser.parse_args()
    if args.split:
        split()
        return
    print(f"machine: {os.cpu_count()} cores, load average before {os.getloadavg()}")
    if args.startup:
        startup(args.repeats, args.baseline_src)
        print(f"machine load average after {os.getloadavg()}")
        return
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
