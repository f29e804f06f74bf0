"""What the run store's checks on open cost: ``PRAGMA quick_check`` reads every page once.

Writes a store of ``--runs`` records (each with a 2 KB output tail, about what a small Keras run
keeps), then prints the median seconds to open it with :class:`~mutreal.execution.RunStore` (version
and integrity checked through a read-only connection, then opened for writing) against a bare
``sqlite3.connect`` plus one query, and the file's size. A campaign opens its store once, so the
figure to watch is the check's seconds per 100 MB.

Usage: ``python benchmarks/store_open.py [--runs 20000] [--repeat 5]``. The load average is printed
with the figures (they move on a shared machine).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from mutreal.execution import EvaluateRecord, RunRecord, RunStore


def _write(path: Path, runs: int) -> None:
    with RunStore(path) as store:
        for seed in range(runs):
            store.put(
                RunRecord(
                    key=f"k{seed}", program=f"/p/mutant_{seed % 300}.py", seed=seed, outcome="ok",
                    program_hash=f"h{seed % 300}", metric_name="accuracy", metric_value=seed / runs,
                    direction="higher", evaluations=[EvaluateRecord(results={"accuracy": 0.5})],
                    output_tail="epoch 1/5 - loss 0.69 " * 90,
                )
            )  # fmt: skip


def _median_s(action, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs.sqlite"
        _write(path, args.runs)
        size_mb = path.stat().st_size / 1e6

        def checked() -> None:
            with RunStore(path) as store:
                store.has("k0")

        def bare() -> None:
            db = sqlite3.connect(path)
            db.execute("SELECT 1 FROM runs WHERE key = 'k0'").fetchone()
            db.close()

        checked_s, bare_s = _median_s(checked, args.repeat), _median_s(bare, args.repeat)
    print(f"store of {args.runs} runs, {size_mb:.1f} MB (load average {os.getloadavg()[0]:.1f})")
    print(f"RunStore open with version + quick_check: {checked_s:.3f} s (median of {args.repeat})")
    print(f"bare sqlite3 connect + one query:         {bare_s:.3f} s")
    print(f"check cost: {(checked_s - bare_s) / max(size_mb, 1e-9) * 100:.3f} s per 100 MB")


if __name__ == "__main__":
    main()
