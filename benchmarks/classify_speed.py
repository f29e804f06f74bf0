"""Speed of `mutreal classify --manifest` relative to only parsing the same files with LibCST.

Prints the wall time of one `mutreal classify --manifest M --out FILE` process (start-up included),
the time to only `libcst.parse_module` every file of the manifest in one process, and their ratio.
Both are measured in the same repeat, one after the other, so a busy machine slows both; the ratio
of one repeat still moves by about 0.5 on a shared machine, so the script repeats the pair
(`--repeats`, default 5) and prints the median ratio and the spread (lowest and highest).
Target: median ratio <= 2.7 (goal 2.0) on the dev corpus.

usage: python benchmarks/classify_speed.py [MANIFEST] [--jobs N] [--repeats N]

MANIFEST defaults to the bundled corpus (benchmarks/corpus/manifest.csv), which every checkout has;
the dev corpus the target names is built with ../shared/tools/build_dev_corpus.py
(``/tmp/mutreal-dev/manifest.csv``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mutreal.manifest import read_manifest


def manifest_files(manifest: Path) -> list[Path]:
    """Every buggy and fixed file of the manifest, read as classify reads it."""
    return [Path(p) for row in read_manifest(manifest) for p in (*row.buggy, *row.fixed)]


def parse_only_seconds(files: list[Path]) -> float:
    """Time to read and libcst.parse_module every file (files that do not parse count as read)."""
    code = (
        "import sys, time, libcst\n"
        "start = time.perf_counter()\n"
        "for p in sys.argv[1:]:\n"
        "    try:\n"
        "        libcst.parse_module(open(p, 'rb').read().decode('utf-8', 'replace'))\n"
        "    except Exception:\n"
        "        pass\n"
        "print(time.perf_counter() - start)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, files)], capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip())


def classify_seconds(manifest: Path, jobs: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.jsonl"
        cmd = [sys.executable, "-m", "mutreal", "classify", "--manifest", str(manifest), "--out", str(out)]
        if jobs > 1:
            cmd += ["--jobs", str(jobs)]
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "TQDM_DISABLE": "1"})
        seconds = time.perf_counter() - start
        rows = sum(1 for line in out.open() if line.strip()) if out.exists() else 0
    return seconds, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manifest", nargs="?", default=str(Path(__file__).resolve().parent / "corpus" / "manifest.csv"))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    manifest = Path(args.manifest)
    files = manifest_files(manifest)
    ratios = []
    for repeat in range(1, args.repeats + 1):
        parse = parse_only_seconds(files)
        total, rows = classify_seconds(manifest, args.jobs)
        ratios.append(total / parse)
        print(
            f"repeat {repeat}: files {len(files)}, bugs classified {rows}, "
            f"parse only {parse:.2f} s, classify (jobs={args.jobs}, start-up included) "
            f"{total:.2f} s, ratio {total / parse:.2f}"
        )
    print(
        f"median ratio of {len(ratios)}: {statistics.median(ratios):.2f} "
        f"(spread {min(ratios):.2f} to {max(ratios):.2f}; target <= 2.7, goal 2.0)"
    )


if __name__ == "__main__":
    main()
