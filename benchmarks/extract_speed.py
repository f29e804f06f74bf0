"""Extraction cost relative to parsing: CPU seconds to extract vs to ``libcst.parse_module``.

classify must stay within 3x the parse time of the files it reads (issue 2), so the program-model
extraction has to be a small fraction of a parse. Usage::

    python benchmarks/extract_speed.py [GLOB ...]   # default: the dev corpus /work/dev/corpus/*/*/*/*.py

Files are handled one at a time, as classify does (parse, then extract, then drop the tree), and
each phase is timed with ``time.process_time`` (other load on the machine does not count); the
best of three rounds is printed with the ratio extract/parse.
"""

from __future__ import annotations

import glob
import sys
import time

import libcst as cst

from mutreal.extract import extract_model


def one_round(sources: list[tuple[str, str]]) -> tuple[float, float, int]:
    parse = extract = 0.0
    parsed = 0
    for path, text in sources:
        t = time.process_time()
        try:
            module = cst.parse_module(text)
        except Exception:  # noqa: BLE001 - unparsable files are not part of the ratio
            continue
        parse += time.process_time() - t
        parsed += 1
        t = time.process_time()
        extract_model(module, path, source=text)
        extract += time.process_time() - t
    return parse, extract, parsed


def main(patterns: list[str]) -> None:
    files = sorted(f for p in patterns for f in glob.glob(p))
    sources = []
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            sources.append((f, fh.read()))
    extract_model(cst.parse_module("x = 1\n"))  # import the walker outside the timing
    rounds = [one_round(sources) for _ in range(3)]
    parse = min(r[0] for r in rounds)
    extract = min(r[1] for r in rounds)
    print(f"files {len(files)} parsed {rounds[0][2]}")
    print(f"parse   {parse:.3f} s CPU")
    print(f"extract {extract:.3f} s CPU")
    print(f"extract/parse ratio {extract / parse:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["/work/dev/corpus/*/*/*/*.py"])
