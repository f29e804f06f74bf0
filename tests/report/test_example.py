"""The committed example report (reports/example): up to date with `mutreal report`, and right.

The up-to-date check compares the committed tables with what the same code makes again; that alone
would pass a wrong table. The figures below are also counted here, independently of mutreal, from
the corpus's hand labels (benchmarks/corpus/labels.csv): the example report classifies the corpus
automatically, so each figure holds only while classification agrees with the labels.
"""

from __future__ import annotations

import collections
import csv
import re
from pathlib import Path

from click.testing import CliRunner

from mutreal.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "reports" / "example"
LABELS = ROOT / "benchmarks" / "corpus" / "labels.csv"


def test_example_tables_are_up_to_date(tmp_path):
    out = tmp_path / "again"
    result = CliRunner().invoke(
        main, ["report", str(EXAMPLE / "results.jsonl"), "--out", str(out), "--no-plots"]
    )
    assert result.exit_code == 0, result.output
    made = sorted(p.name for p in (out / "tables").glob("*.csv"))
    assert made == sorted(p.name for p in (EXAMPLE / "tables").glob("*.csv"))
    for name in made:
        assert (out / "tables" / name).read_text() == (EXAMPLE / "tables" / name).read_text(), (
            f"reports/example/tables/{name} is stale: regenerate with the command in reports/README.md"
        )
    assert {p.name for p in (EXAMPLE / "plots").glob("*.png")} >= {"order_histogram.png", "rsb_rsfc.png"}


def _labelled() -> dict[str, list[list[str]]]:
    """benchmark -> one list of fault codes per bug, from the hand labels ("CPP (missing scaling)" -> CPP)."""
    by_benchmark: dict[str, list[list[str]]] = collections.defaultdict(list)
    with open(LABELS, newline="") as handle:
        for row in csv.DictReader(handle):
            codes = [re.sub(r"\s*\(.*?\)", "", c).strip() for c in row["codes"].split(",") if c.strip()]
            by_benchmark[row["benchmark"]].append(codes)
    return by_benchmark


def _table(name: str) -> list[dict[str, str]]:
    with open(EXAMPLE / "tables" / name, newline="") as handle:
        return list(csv.DictReader(handle))


def test_table3_figures_match_the_hand_labels():
    labelled = _labelled()
    table = {row["benchmark"]: row for row in _table("table3_order.csv")}
    everything = table.pop("ALL")
    assert set(table) == set(labelled)
    all_faulty = [codes for bugs in labelled.values() for codes in bugs if codes]
    assert int(everything["bugs"]) == len(all_faulty)
    assert int(everything["total"]) == sum(len(codes) for codes in all_faulty)
    for benchmark, bugs in labelled.items():
        faulty = [codes for codes in bugs if codes]
        row = table[benchmark]
        assert int(row["bugs"]) == len(faulty), benchmark
        assert int(row["total"]) == sum(len(codes) for codes in faulty), benchmark
        assert int(row["max"]) == max(len(codes) for codes in faulty), benchmark
        assert int(row["#FT"]) == len({code for codes in faulty for code in codes}), benchmark


def test_order_zero_bugs_match_the_hand_labels():
    with open(LABELS, newline="") as handle:
        unlabelled = {row["id"] for row in csv.DictReader(handle) if not row["codes"].strip()}
    assert {row["id"] for row in _table("order0.csv")} == unlabelled
    assert len(unlabelled) == 8


def test_order_distribution_counts_the_labelled_orders():
    counted = collections.Counter(len(codes) for bugs in _labelled().values() for codes in bugs if codes)
    table = {int(row["order"]): int(row["ALL"]) for row in _table("order_distribution.csv")}
    assert {order: n for order, n in table.items() if n} == dict(counted)
