"""The round trip of benchmarks/roundtrip_real.py on the own corpus (benchmarks/corpus, programs
written for this project): every fixed program, every operator, the first mutant of each
(program, operator); classify(fixed, mutant) must name the operator, find a change, and every
mutant must name only APIs its framework has."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = ROOT / "benchmarks" / "roundtrip_real.py"
MANIFEST = ROOT / "benchmarks" / "corpus" / "manifest.csv"

@pytest.fixture(scope="module")
def roundtrip():
    spec = importlib.util.spec_from_file_location("roundtrip_real", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.mark.slow
def test_own_corpus_round_trips(roundtrip) -> None:
    programs = roundtrip.fixed_programs(str(MANIFEST))
    assert len(programs) > 80
    rows = [r for p in programs for r in roundtrip.roundtrip_program(p, per_op=1)]
    table = roundtrip.summarise(rows)
    total: Counter = Counter()
    for counts in table.values():
        total.update(counts)
    bad = [r for r in rows if r["verdict"] in ("invalid", "no_change", "error", "other", "program_error")]
    assert bad == []
    assert total["named"] == total["mutants"] > 1000
    assert len(table) == 24  # every operator has a site somewhere in the corpus
    # every mutant is exactly one component of its operator, the training-data operators that
    # rebind inputs and labels in one statement included
    not_exact = [
        (r["operator"], r["mutant"], r["components"])
        for r in rows
        if r["verdict"] == "named"
    ]
    assert not_exact == []


def test_summary_counts_each_verdict_once(roundtrip) -> None:
    rows = [
        {"operator": "HLR", "verdict": "exact"},
        {"operator": "HLR", "verdict": "named"},
        {"operator": "HLR", "verdict": "no_change"},
        {"operator": "OCH", "verdict": "invalid"},
        {"operator": "OCH", "verdict": "equivalent"},
        {"operator": None, "verdict": "program_error"},
    ]
    table = roundtrip.summarise(rows)
    assert dict(table["HLR"]) == {"mutants": 3, "exact": 1, "named": 2, "no_change": 1}
    assert dict(table["OCH"]) == {"mutants": 1, "invalid": 1, "equivalent": 1}
    text = roundtrip.format_table(table)
    assert "exact round trips: 1/4 = 25.0%" in text
