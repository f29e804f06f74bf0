"""Benchmark: cost of ``mutate --all`` per mutant, in units of one LibCST parse of the subject.

Generates every first-order mutant (every registered operator, every site, every catalogue
value) of the CNN mutation subject, as ``mutreal mutate --all`` does (one parse, one extraction,
one node index for all of them; each mutant written with its provenance JSON), and prints the
count and the mean cost per mutant divided by the median time of one ``libcst.parse_module`` of
the subject. Target: at most 3.

    python benchmarks/mutate_speed.py [SUBJECT.py] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import libcst as cst

from mutreal.mutate import Failure, generate, write_mutant
from mutreal.operators import Program, registry

DEFAULT = Path(__file__).resolve().parent / "subjects_mutation" / "cnn.py"


def parse_time(text: str, repeat: int = 20) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        cst.parse_module(text)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def all_mutants(path: Path, out_dir: str) -> tuple[int, int, float]:
    """(mutants written, failures, seconds) for --all over every registered operator."""
    t0 = time.perf_counter()
    program = Program.from_file(str(path))
    written = failed = 0
    for op_id, op in registry.operators().items():
        if not op.sites(program):
            continue  # the operator does not apply to this subject
        for item in generate(program, op_id, all_values=True):
            if isinstance(item, Failure):
                failed += 1
                continue
            write_mutant(item, out_dir)
            written += 1
    return written, failed, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("subject", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=3, help="runs of the whole --all generation (best kept)")
    args = ap.parse_args()
    path = Path(args.subject)
    text = path.read_text(encoding="utf-8")
    registry.operators()  # import the operator modules outside the timed region
    one_parse = parse_time(text)
    best = None
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            n, failed, secs = all_mutants(path, tmp)
        best = secs if best is None else min(best, secs)
    assert best is not None
    per = best / max(n, 1)
    print(f"subject: {path.name} ({len(text.splitlines())} lines)")
    print(f"one libcst.parse_module: {one_parse * 1000:.2f} ms")
    print(f"mutants (--all, every operator): {n} written, {failed} failed, {best:.2f} s")
    print(f"mean cost per mutant: {per * 1000:.2f} ms = {per / one_parse:.2f} x one parse (target <= 3)")


if __name__ == "__main__":
    main()
