"""Paper table check: labels built with the study's per-benchmark counts give the study's Tables 3 and 4.

The labels are constructed here from the counts stored in paper_tables.yaml (bugs, components,
max order, fault types, simulable bugs and components, for all bugs and the realistic subset),
then `mutreal report LABELS.csv` computes the tables and every figure is compared with the
stored paper figure (errata corrected), never with values from the report's own code.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from mutreal.cli import main

DATA = Path(__file__).resolve().parents[2] / "src" / "mutreal" / "report" / "paper_tables.yaml"
PAPER = yaml.safe_load(DATA.read_text(encoding="utf-8"))
STUDY = list(PAPER["benchmarks"])


def corrected(table: int, row: str, column: str, printed):
    for e in PAPER["errata"]:
        if (e["table"], e["row"], e["column"]) == (table, row, column):
            return e["corrected"]
    return printed


def allocate(
    n: int, total: int, sim_bugs: int, sim_comps: int, max_order: int, reach: bool
) -> list[list[bool]]:
    """Bugs as lists of per-component simulable flags with the given counts.

    ``sim_bugs`` bugs hold only simulable components, every other bug at least one that is not;
    one bug reaches ``max_order`` when ``reach``, none exceeds it.
    """
    non_bugs = n - sim_bugs
    bugs = [[True] for _ in range(sim_bugs)] + [[False] for _ in range(non_bugs)]
    extra_sim, extra_non = sim_comps - sim_bugs, (total - sim_comps) - non_bugs
    assert extra_sim >= 0 and extra_non >= 0 and (non_bugs or not extra_non), "counts cannot be built"
    # the bug that reaches the maximum: a non-simulable one can take both kinds
    first = sim_bugs if non_bugs else 0
    order = list(range(first, n)) + list(range(first))
    if reach:
        while len(bugs[first]) < max_order and extra_non and first >= sim_bugs:
            bugs[first].append(False)
            extra_non -= 1
        while len(bugs[first]) < max_order and extra_sim:
            bugs[first].append(True)
            extra_sim -= 1
        assert len(bugs[first]) == max_order
    while extra_non:
        placed = False
        for i in order:
            if i >= sim_bugs and len(bugs[i]) < max_order and extra_non:
                bugs[i].append(False)
                extra_non -= 1
                placed = True
        assert placed, "no room for the non-simulable components"
    while extra_sim:
        placed = False
        for i in order:
            if len(bugs[i]) < max_order and extra_sim:
                bugs[i].append(True)
                extra_sim -= 1
                placed = True
        assert placed, "no room for the simulable components"
    return bugs


def type_sets() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Fault types per benchmark: realistic sets covering ALL's realistic #FT, full sets covering ALL's #FT."""
    t3 = PAPER["table3"]["rows"]
    n_real, n_all = t3["ALL"]["realistic"]["ft"], t3["ALL"]["all"]["ft"]
    pool_r = [f"R{i:02d}" for i in range(n_real)]
    pool_x = [f"X{i:02d}" for i in range(n_all - n_real)]
    realistic, full = {}, {}
    cursor = 0
    for name in sorted(STUDY, key=lambda b: -t3[b]["realistic"]["ft"]):
        size = t3[name]["realistic"]["ft"]
        realistic[name] = [pool_r[(cursor + k) % n_real] for k in range(size)]
        cursor += size
    cursor_x = 0
    for name in sorted(STUDY, key=lambda b: -(t3[b]["all"]["ft"] - t3[b]["realistic"]["ft"])):
        need = t3[name]["all"]["ft"] - t3[name]["realistic"]["ft"]
        take_x = min(need, len(pool_x))
        extra = [pool_x[(cursor_x + k) % len(pool_x)] for k in range(take_x)]
        cursor_x += take_x
        extra += [t for t in pool_r if t not in realistic[name]][: need - take_x]
        assert len(extra) == need
        full[name] = extra
    return realistic, full


def build_labels(path: Path) -> Path:
    """A labels CSV whose bugs have the study's per-benchmark counts (Tables 3 and 4)."""
    t3, t4 = PAPER["table3"]["rows"], PAPER["table4"]["rows"]
    realistic_types, extra_types = type_sets()
    rows = []
    for name in STUDY:
        a, r = t3[name]["all"], t3[name]["realistic"]
        parts = [
            (
                True,
                realistic_types[name],
                allocate(
                    r["bugs"],
                    r["overall"],
                    t4[name]["rsb_realistic"]["num"],
                    t4[name]["rsfc_realistic"]["num"],
                    r["max"],
                    True,
                ),
            ),
            (
                False,
                extra_types[name] + realistic_types[name],
                allocate(
                    a["bugs"] - r["bugs"],
                    a["overall"] - r["overall"],
                    t4[name]["rsb_all"]["num"] - t4[name]["rsb_realistic"]["num"],
                    t4[name]["rsfc_all"]["num"] - t4[name]["rsfc_realistic"]["num"],
                    a["max"],
                    a["max"] > r["max"],
                ),
            ),
        ]
        for is_real, types, bugs in parts:
            slot = 0
            for flags in bugs:
                codes = [types[(slot + k) % len(types)] for k in range(len(flags))]
                slot += len(flags)
                rows.append(
                    {
                        "id": f"{name}-{len(rows)}",
                        "benchmark": name,
                        "codes": ", ".join(codes),
                        "is_mutant": ",".join("Y" if f else "N" for f in flags),
                        "realistic": "Y" if is_real else "N",
                    }
                )
    # an order-0 bug: listed apart, never counted
    rows.append({"id": "noise-only", "benchmark": STUDY[0], "codes": "", "is_mutant": "", "realistic": "N"})
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["id", "benchmark", "codes", "is_mutant", "realistic"])
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture(scope="module")
def computed(tmp_path_factory) -> dict:
    labels = build_labels(tmp_path_factory.mktemp("paper") / "labels.csv")
    result = CliRunner().invoke(main, ["report", str(labels), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def figures_of(computed: dict, name: str) -> dict:
    return next(f for f in computed["figures"] if f["name"] == name)


@pytest.mark.parametrize("row", [*STUDY, "ALL"])
@pytest.mark.parametrize("subset", ["all", "realistic"])
def test_table3_counts_equal_the_paper(computed, row, subset):
    got = figures_of(computed, row)[subset]
    paper = PAPER["table3"]["rows"][row][subset]
    assert got["bugs"] == paper["bugs"]
    assert got["max"] == paper["max"]
    assert got["total"] == paper["overall"]
    assert got["fault_types"] == paper["ft"]
    assert got["mean"] == corrected(3, row, f"{subset}.average", paper["average"])


@pytest.mark.parametrize("row", [*STUDY, "ALL"])
@pytest.mark.parametrize("measure", ["rsb", "rsfc"])
@pytest.mark.parametrize("subset", ["all", "realistic"])
def test_table4_counts_equal_the_paper(computed, row, measure, subset):
    got = figures_of(computed, row)[subset][measure]
    paper = PAPER["table4"]["rows"][row][f"{measure}_{subset}"]
    assert (got["num"], got["den"]) == (paper["num"], paper["den"])
    assert got["pct"] == corrected(4, row, f"{measure}_{subset}", paper["pct"])


def test_report_prints_paper_and_this_run_side_by_side(computed):
    table = next(t for t in computed["tables"] if t["name"] == "paper_comparison")
    assert table["columns"][3:5] == ["paper", "this run"]
    # every figure agrees once the errata are applied, including the pooled ALL rows
    assert {r[5] for r in table["rows"]} == {"yes"}
    assert {r[0] for r in table["rows"]} == {*STUDY, "ALL"}
    slip = next(r for r in table["rows"] if r[0] == "DeepLocalize" and r[1] == "all" and r[2] == "RSB")
    assert slip[3] == "23/39 (60%)" and slip[4] == "23/39 (59%)" and "58.97" in slip[6]


def test_order0_label_is_listed_apart(computed):
    order0 = next(t for t in computed["tables"] if t["name"] == "order0")
    assert order0["rows"] == [["noise-only", STUDY[0]]]


def test_comparison_is_absent_for_other_benchmarks(tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text('id,benchmark,codes,is_mutant\na,MyBench,"ACH, HLR","Y,Y"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(labels), "--json"])
    assert result.exit_code == 0, result.output
    names = {t["name"] for t in json.loads(result.output)["tables"]}
    assert "paper_comparison" not in names and "table3_order" in names
