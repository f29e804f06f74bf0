"""GPU packing benchmark: trainings per minute with several runs sharing one GPU vs one at a time.

Prepared for a GPU machine (issue 5): a small CNN on scikit-learn's digits and its buggy copy
(benchmarks/subjects/digits_cnn*.py), 2 programs x 20 seeds, run by ``--jobs`` warm workers that share
the GPU (TensorFlow memory growth), then a few runs with ``jobs=1`` for the one-at-a-time rate. Prints
trainings per minute for both, the speed-up, GPU utilisation sampled with nvidia-smi, and the device.
Writes the figures as JSON to ``$OUT/runner_gpu.json`` when ``OUT`` is set.

    python benchmarks/runner_gpu.py                 # GPU machine: 2 x 20 packed, 6 serial
    python benchmarks/runner_gpu.py --quick         # CPU smoke test: 2 x 2, 2 epochs, jobs 2

Needs TensorFlow with CUDA and scikit-learn on the GPU machine; from a bare checkout run it as
``PYTHONPATH=src python benchmarks/runner_gpu.py`` (workers find ``src`` themselves). Not yet run on a
GPU: the task that wrote it had no GPU machine.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from mutreal.execution import execute_campaign, summarize
from mutreal.execution.environment import describe_environment

SUBJECTS = Path(__file__).resolve().parent / "subjects"
PROGRAMS = [SUBJECTS / "digits_cnn.py", SUBJECTS / "digits_cnn_wrong_activation.py"]


def campaign(programs: list[Path], seeds: int, jobs: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        result = execute_campaign(
            programs, runs=seeds, jobs=jobs, store=Path(tmp) / "runs.sqlite", progress=True
        )
        records = result.records
        wall = time.perf_counter() - start
    ok = sum(r.outcome == "ok" for r in records)
    in_script = sum(r.fit_time_s + r.evaluate_time_s for r in records)
    summaries = [s.to_dict() for s in summarize(records)]
    return {
        "runs": len(records),
        "ok": ok,
        "jobs": jobs,
        "wall_s": wall,
        "trainings_per_minute": 60.0 * len(records) / wall,
        "mean_in_script_s": in_script / max(1, len(records)),
        "gpu": result.gpu,
        "summaries": summaries,
        "errors": sorted({r.error_message for r in records if r.outcome != "ok"})[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=20, help="seeds per program when packed")
    parser.add_argument("--jobs", type=int, default=None, help="workers sharing the GPU [min(8, cores)]")
    parser.add_argument("--serial-runs", type=int, default=6, help="runs made one at a time for the baseline")
    parser.add_argument("--epochs", type=int, default=None, help="epochs of the CNN [15; 2 with --quick]")
    parser.add_argument("--quick", action="store_true", help="small CPU smoke test")
    args = parser.parse_args()
    if args.quick:
        args.seeds, args.serial_runs = 2, 2
        args.jobs = args.jobs or 2
        args.epochs = args.epochs or 2
    jobs = args.jobs or min(8, os.cpu_count() or 1)
    os.environ["MUTREAL_SUBJECT_EPOCHS"] = str(args.epochs or 15)  # workers inherit it
    env = describe_environment()
    print(f"device: {env['gpus'] or 'no GPU'}; cpu {env['cpu']} x {env['cpu_count']}; "
          f"tensorflow {env['packages'].get('tensorflow')}")  # fmt: skip
    packed = campaign(PROGRAMS, args.seeds, jobs)
    print(f"[packed] {packed['runs']} runs ({packed['ok']} ok) with {jobs} workers: {packed['wall_s']:.1f} s, "
          f"{packed['trainings_per_minute']:.1f} trainings/min, GPU {packed['gpu']}")  # fmt: skip
    serial = campaign(PROGRAMS[:1], args.serial_runs, 1)
    print(f"[serial] {serial['runs']} runs one at a time: {serial['wall_s']:.1f} s, "
          f"{serial['trainings_per_minute']:.1f} trainings/min, GPU {serial['gpu']}")  # fmt: skip
    speedup = packed["trainings_per_minute"] / serial["trainings_per_minute"]
    print(f"[result] packing {jobs} runs per GPU: {speedup:.2f}x the trainings per minute of one at a time")
    for s in packed["summaries"]:
        print(f"  {Path(s['program']).name}: {s['metric_name']} {s['mean']} ± {s['std']} (N={s['n_ok']})")
    out = os.environ.get("OUT")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        payload = {"environment": env, "packed": packed, "serial": serial, "speedup": speedup}
        (Path(out) / "runner_gpu.json").write_text(json.dumps(payload, indent=2, default=str))


if __name__ == "__main__":
    main()
