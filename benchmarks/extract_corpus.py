"""Extractor robustness and coverage on a corpus: exceptions, frameworks, eras, opaque share.

Usage::

    python benchmarks/extract_corpus.py [GLOB ...]   # default: the dev corpus /work/dev/corpus/*/*/*/*.py

Every file that LibCST parses must extract without an exception; the script prints how many did
not, the frameworks and API eras detected, how many Keras files yielded no model, and the share
of layer/compile/fit arguments left opaque (``ProgramModel.opaque_share`` over all files).
"""

from __future__ import annotations

import collections
import glob
import sys
import traceback

import libcst as cst

from mutreal.extract import extract_model


def main(patterns: list[str]) -> int:
    files = sorted(f for p in patterns for f in glob.glob(p))
    parsed = failures = 0
    frameworks: collections.Counter[str] = collections.Counter()
    eras: collections.Counter[str] = collections.Counter()
    opaque = total = 0
    no_model: list[str] = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        try:
            module = cst.parse_module(text)
        except Exception:  # noqa: BLE001 - not Python 3 as written: classify upgrades or sets it aside
            continue
        parsed += 1
        try:
            pm = extract_model(module, path, source=text)
        except Exception:  # noqa: BLE001 - the point of this script is to count these
            failures += 1
            print(f"FAILED {path}", file=sys.stderr)
            traceback.print_exc(limit=-3)
            continue
        frameworks[pm.framework] += 1
        eras[pm.era] += 1
        o, t = pm.opaque_counts()
        opaque += o
        total += t
        if pm.framework == "keras" and not pm.models:
            no_model.append(path)
    print(f"files {len(files)} parsed {parsed} extraction failures {failures}")
    print("frameworks", dict(frameworks))
    print("eras", dict(eras))
    print(f"keras files without a model: {len(no_model)}")
    print(f"opaque share of layer/compile/fit arguments: {opaque / max(total, 1):.3f} ({opaque}/{total})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["/work/dev/corpus/*/*/*/*.py"]))
