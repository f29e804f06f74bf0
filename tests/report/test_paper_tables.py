"""Audit of the stored study figures: each printed cell agrees with its counts or is a listed erratum."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from mutreal.report.paper import erratum, load_paper_tables, paper_benchmark, paper_figures

DATA = Path(__file__).resolve().parents[2] / "src" / "mutreal" / "report" / "paper_tables.yaml"
PAPER = yaml.safe_load(DATA.read_text(encoding="utf-8"))
STUDY = list(PAPER["benchmarks"])


def half_up(value: Fraction, places: int = 0) -> Fraction:
    scale = 10**places
    return Fraction(int(value * scale + Fraction(1, 2)), scale)


def test_packaged_copy_is_the_file():
    assert load_paper_tables() == PAPER


@pytest.mark.parametrize("row", [*STUDY, "ALL"])
@pytest.mark.parametrize("column", ["rsb_all", "rsb_realistic", "rsfc_all", "rsfc_realistic"])
def test_table4_percent_is_its_counts_or_an_erratum(row, column):
    cell = PAPER["table4"]["rows"][row][column]
    num, den, pct = re.match(r"(\d+)/(\d+) \((\d+)%?\)", cell["printed"]).groups()
    assert (int(num), int(den), int(pct)) == (cell["num"], cell["den"], cell["pct"])
    expected = half_up(Fraction(100 * cell["num"], cell["den"]))
    fix = erratum(4, row, column)
    if fix is None:
        assert cell["pct"] == expected
    else:
        assert cell["pct"] != expected and fix["corrected"] == expected


@pytest.mark.parametrize("row", [*STUDY, "ALL"])
@pytest.mark.parametrize("subset", ["all", "realistic"])
def test_table3_average_is_its_counts_or_an_erratum(row, subset):
    cell = PAPER["table3"]["rows"][row][subset]
    expected = half_up(Fraction(cell["overall"], cell["bugs"]), 1)
    fix = erratum(3, row, f"{subset}.average")
    if fix is None:
        assert Fraction(str(cell["average"])) == expected
    else:
        assert Fraction(str(fix["corrected"])) == expected != Fraction(str(cell["average"]))


def test_table3_printed_cells_hold_both_subsets():
    for row, cells in PAPER["table3"]["rows"].items():
        for column, text in cells["printed"].items():
            a, r = re.match(r"([\d.]+) \(([\d.]+)\)", text).groups()
            assert float(a) == cells["all"][column] and float(r) == cells["realistic"][column], (row, column)


def test_realistic_subset_sizes_agree_across_tables():
    for row in [*STUDY, "ALL"]:
        bugs = PAPER["table3"]["rows"][row]["realistic"]["bugs"]
        assert PAPER["table4"]["rows"][row]["rsb_realistic"]["den"] == bugs
        assert PAPER["table5"]["rows"][row]["bugs"] == bugs
        assert PAPER["table3"]["rows"][row]["all"]["bugs"] == PAPER["table4"]["rows"][row]["rsb_all"]["den"]
    for row in STUDY:
        assert PAPER["table1"]["rows"][row]["analysed"] == PAPER["table3"]["rows"][row]["all"]["bugs"]


def test_all_rows_are_sums_of_benchmarks_or_errata():
    t3, t4, t5 = (PAPER[t]["rows"] for t in ("table3", "table4", "table5"))
    for subset in ("all", "realistic"):
        for column in ("bugs", "overall"):
            assert t3["ALL"][subset][column] == sum(t3[b][subset][column] for b in STUDY)
        assert t3["ALL"][subset]["max"] == max(t3[b][subset]["max"] for b in STUDY)
        for measure in ("rsb", "rsfc"):
            for part in ("num", "den"):
                assert t4["ALL"][f"{measure}_{subset}"][part] == sum(
                    t4[b][f"{measure}_{subset}"][part] for b in STUDY
                )
    for column in ("bugs", "version_problems", "reproduced", "stable"):
        assert t5["ALL"][column] == sum(t5[b][column] or 0 for b in STUDY)
    t2 = PAPER["table2"]["rows"]
    for column in ("buggy_match", "fix_match", "buggy_fix_match", "td_match", "td_real", "buggy_fix_real_td"):
        total = sum(t2[b][column]["count"] for b in STUDY)
        fix = erratum(2, "ALL", column)
        assert (fix["corrected"] if fix else t2["ALL"][column]["count"]) == total, column


def test_table2_percent_is_its_counts_or_an_erratum():
    for row, cells in PAPER["table2"]["rows"].items():
        for column, cell in cells.items():
            if column == "analysed":
                continue
            expected = half_up(Fraction(100 * cell["count"], cells["analysed"]), 1)
            fix = erratum(2, row, f"{column}.pct")
            if erratum(2, row, column):  # the count itself is a slip: its percent follows the slip
                continue
            if fix is None:
                assert Fraction(str(cell["pct"])) == expected, (row, column)
            else:
                assert Fraction(str(fix["corrected"])) == expected, (row, column)


def test_benchmark_names_match_any_spelling():
    assert paper_benchmark("deeplocalize") == "DeepLocalize"
    assert paper_benchmark("Defects4ML") == "Defects4ML"
    assert paper_benchmark("TF-Bugs-2018") == "TFBugs2018"
    assert paper_benchmark("MyBench") is None


def test_paper_figures_apply_errata():
    fig = paper_figures("DeepLocalize", "all")
    assert fig.rsb == (23, 39, 59) and fig.rsb_printed == "23/39 (60%)"
    assert paper_figures("DeepFD", "realistic").average == 2.0
    assert paper_figures("DeepFD", "realistic").average_printed == 1.7
