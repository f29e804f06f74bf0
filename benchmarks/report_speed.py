"""Speed of `mutreal report` on a results file of synthetic classified bugs.

Writes N synthetic results rows (orders 0 to 12, mostly 1 to 3, five benchmarks, some error rows,
training-data classes on both sides), then times one `mutreal report RESULTS --out DIR` process,
start-up, every table, five plots, Markdown, HTML and CSV included. Target: < 60 s for 500 bugs.

usage: python benchmarks/report_speed.py [--bugs N] [--seed S] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIMULABLE = ["ACH", "HLR", "HNE", "HBS", "LCH", "OCH", "WCI", "RCD", "VRM", "LRM", "LCN", "RAW"]
NOT_SIMULABLE = ["CPP", "TWS", "IWS", "LIS", "LDM", "MWA", "APW", "LWS", "ISL", "TMS"]
BENCHMARKS = ["TFBugs2018", "DeepLocalize", "DeepFD", "Defects4ML", "SFData"]


def synthetic_row(i: int, rng: random.Random) -> dict:
    benchmark = BENCHMARKS[i % len(BENCHMARKS)]
    if rng.random() < 0.03:
        return {
            "id": f"s{i}",
            "benchmark": benchmark,
            "status": "error",
            "error": "SyntaxError: line 2",
            "order": 0,
            "simulable": False,
            "components": [],
        }
    order = rng.choices(range(13), weights=[4, 40, 25, 12, 6, 4, 3, 2, 1, 1, 1, 0.5, 0.5])[0]
    components = []
    for k in range(order):
        simulable = rng.random() < 0.55
        code = rng.choice(SIMULABLE if simulable else NOT_SIMULABLE)
        components.append(
            {
                "code": code,
                "taxonomy": None,
                "category": None,
                "deepcrime": code if simulable else None,
                "simulable": simulable,
                "reason": None,
                "element": f"model[0].layer[{k}].x",
                "before": "1",
                "after": "2",
                "buggy_file": "b.py",
                "buggy_line": k + 1,
                "fixed_file": "f.py",
                "fixed_line": k + 1,
            }
        )
    data_class = rng.choice(["real", "real", "fake", None])
    data = {
        side: {"dataset": rng.choice(["mnist", "cifar10", "iris", None]), "class": data_class, "size": None}
        for side in ("buggy", "fixed")
    }
    return {
        "id": f"s{i}",
        "benchmark": benchmark,
        "status": "ok",
        "error": None,
        "order": order,
        "simulable": bool(components) and all(c["simulable"] for c in components),
        "components": components,
        "data": data,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bugs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="write the report here instead of a temporary folder")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results.jsonl"
        results.write_text("".join(json.dumps(synthetic_row(i, rng)) + "\n" for i in range(args.bugs)))
        out = args.keep or Path(tmp) / "report"
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "mutreal", "report", str(results), "--out", str(out)],
            capture_output=True,
            text=True,
        )
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            print(done.stdout, done.stderr, file=sys.stderr)
            return done.returncode
        print(done.stdout.splitlines()[0])
        print(f"mutreal report, {args.bugs} synthetic bugs: {elapsed:.2f} s wall (target < 60 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
