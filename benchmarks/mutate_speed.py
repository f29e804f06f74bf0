"""Benchmark: cost of ``mutate --all`` per mutant, in units of one LibCST parse of the subject.

Generates every first-order mutant (every registered operator, every site, every catalogue
value) of each mutation subject, as ``mutreal mutate --all`` does (one parse, one extraction,
one node index for all of them; each mutant written with its provenance JSON), and prints the
count and the mean cost per mutant divided by the median time of one ``libcst.parse_module`` of
the subject. By default every subject of benchmarks/subjects_mutation (generators, Sequence,
tf.data, two inputs, custom losses, a subclassed model included; a helper module without a model
is skipped). Target: at most 1.5 per subject.

    python benchmarks/mutate_speed.py [SUBJECT.py ...] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import libcst as cst

from mutreal.mutation.mutate import Failure, generate, write_mutant
from mutreal.mutation.operators import Program, registry

SUBJECTS = Path(__file__).resolve().parent / "subjects_mutation"
TARGET = 1.5


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


def measure(path: Path, repeat: int) -> tuple[int, int, float, float] | None:
    """(mutants, failures, best seconds, one parse seconds), None for a file without mutants."""
    text = path.read_text(encoding="utf-8")
    one_parse = parse_time(text)
    best = None
    n = failed = 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            n, failed, secs = all_mutants(path, tmp)
        best = secs if best is None else min(best, secs)
    if not n or best is None:
        return None
    return n, failed, best, one_parse


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("subjects", nargs="*", default=sorted(map(str, SUBJECTS.glob("*.py"))))
    ap.add_argument("--repeat", type=int, default=3, help="runs of the whole --all generation (best kept)")
    args = ap.parse_args()
    registry.operators()  # import the operator modules outside the timed region
    worst = 0.0
    for subject in args.subjects:
        path = Path(subject)
        got = measure(path, args.repeat)
        if got is None:
            print(f"{path.name}: no mutant (not a model program), skipped")
            continue
        n, failed, best, one_parse = got
        per = best / n
        worst = max(worst, per / one_parse)
        print(
            f"{path.name} ({len(path.read_text(encoding='utf-8').splitlines())} lines): one parse "
            f"{one_parse * 1000:.2f} ms; {n} mutants, {failed} failed, {best:.2f} s; "
            f"{per * 1000:.2f} ms per mutant = {per / one_parse:.2f} x one parse"
        )
    print(f"worst subject: {worst:.2f} x one parse per mutant (target <= {TARGET})")


if __name__ == "__main__":
    main()
