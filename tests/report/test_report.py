"""`mutreal report` on hand-built results rows: figures counted by hand, files written, errors apart."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from mutreal.cli import main
from mutreal.report.build import Report, build_report, load_bugs, report_from_file
from mutreal.report.tables import Bug, mean_half_up, pct_half_up


def rows_small() -> list[dict]:
    """Two benchmarks: A has orders 1, 3 and an order-0 bug; B has orders 2, 1 and an error row."""

    def comp(code, sim, category=None):
        return {"code": code, "simulable": sim, "deepcrime": code if sim else None, "category": category}

    return [
        {
            "id": "a1",
            "benchmark": "A",
            "status": "ok",
            "order": 1,
            "simulable": True,
            "components": [comp("ACH", True, "Model > Layers > Activation Function")],
            "data": {
                "buggy": {"dataset": "mnist", "class": "real"},
                "fixed": {"dataset": "mnist", "class": "real"},
            },
        },
        {
            "id": "a2",
            "benchmark": "A",
            "status": "ok",
            "order": 3,
            "simulable": False,
            "components": [
                comp("ACH", True),
                comp("ACH", True),
                comp("TWS", False, "Tensors & Inputs > Wrong Tensor Shape"),
            ],
            "data": {
                "buggy": {"dataset": None, "class": "fake", "size": 8},
                "fixed": {"dataset": "iris", "class": "real"},
            },
        },
        {"id": "a0", "benchmark": "A", "status": "ok", "order": 0, "simulable": False, "components": []},
        {
            "id": "b1",
            "benchmark": "B",
            "status": "ok",
            "order": 2,
            "simulable": True,
            "components": [comp("HLR", True, "Training > Hyperparameters"), comp("ACH", True)],
        },
        {
            "id": "b2",
            "benchmark": "B",
            "status": "ok",
            "order": 1,
            "simulable": False,
            "components": [comp("CPP", False)],
        },
        {
            "id": "bx",
            "benchmark": "B",
            "status": "error",
            "error": "SyntaxError at line 4",
            "order": 0,
            "simulable": False,
            "components": [],
        },
    ]


def write_rows(path: Path, rows: list[dict], extra_lines: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + extra_lines, encoding="utf-8")
    return path


def figures(report: Report, name: str):
    return next(f for f in report.figures if f.name == name)


def test_rounding_is_half_up():
    assert pct_half_up(25, 40) == 63  # 62.5
    assert pct_half_up(1, 8) == 13  # 12.5
    assert pct_half_up(0, 5) == 0 and pct_half_up(3, 0) is None
    assert mean_half_up(115, 40) == 2.9  # 2.875
    assert mean_half_up(5, 4) == 1.3  # 1.25
    assert mean_half_up(1, 0) is None


def test_table3_and_table4_counted_by_hand(tmp_path):
    report = report_from_file(write_rows(tmp_path / "r.jsonl", rows_small()))
    a, b, overall = figures(report, "A"), figures(report, "B"), figures(report, "ALL")
    assert (a.all.bugs, a.all.max_order, a.all.total, a.all.fault_types, a.all.mean) == (2, 3, 4, 2, 2.0)
    assert (b.all.bugs, b.all.max_order, b.all.total, b.all.fault_types, b.all.mean) == (2, 2, 3, 3, 1.5)
    assert (overall.all.bugs, overall.all.total, overall.all.fault_types) == (4, 7, 4)
    assert (a.all.rsb.num, a.all.rsb.den, a.all.rsfc.num, a.all.rsfc.den) == (1, 2, 3, 4)
    assert (overall.all.rsb.num, overall.all.rsb.den, overall.all.rsfc.num, overall.all.rsfc.den) == (
        2,
        4,
        5,
        7,
    )
    assert overall.all.rsfc.pct == 71
    assert (a.order0, a.errors, b.order0, b.errors) == (1, 0, 0, 1)
    assert report.table("order0").rows == [["a0", "A"]]
    assert report.table("errors").rows == [["bx", "B", "SyntaxError at line 4"]]
    assert report.table("paper_comparison") is None


def test_code_and_category_frequencies(tmp_path):
    report = report_from_file(write_rows(tmp_path / "r.jsonl", rows_small()))
    codes = {rec["code"]: rec for rec in report.table("code_frequency").records()}
    assert (codes["ACH"]["components"], codes["ACH"]["bugs"], codes["ACH"]["simulable"]) == (4, 3, 4)
    assert (codes["ACH"]["A"], codes["ACH"]["B"]) == (3, 1)
    assert list(codes) == ["ACH", "CPP", "HLR", "TWS"]  # by count, then code
    cats = {rec["category"]: rec["components"] for rec in report.table("category_frequency").records()}
    # ACH rows without a category get the taxonomy's category for ACH
    assert cats["Model > Layers > Activation Function"] == 4
    assert cats["Tensors & Inputs > Wrong Tensor Shape"] == 1


def test_training_data_summary(tmp_path):
    report = report_from_file(write_rows(tmp_path / "r.jsonl", rows_small()))
    rows = {rec["benchmark"]: rec for rec in report.table("training_data").records()}
    assert rows["A"]["bugs"] == 2
    assert (rows["A"]["buggy real"], rows["A"]["buggy fake"], rows["A"]["fixed real"]) == (1, 1, 2)
    assert rows["A"]["both real"] == 1
    assert rows["A"]["fake sizes"] == rows["ALL"]["fake sizes"] == "8-8" and "B" not in rows
    datasets = {rec["dataset"]: rec["bugs"] for rec in report.table("datasets").records()}
    assert datasets == {"mnist": 1, "iris": 1}


def test_no_training_data_table_without_data():
    bugs = [Bug("x", "A", ["ACH"], [True], [None])]
    assert build_report(bugs).table("training_data") is None


def test_combinations_and_cooccurrence(tmp_path):
    report = report_from_file(write_rows(tmp_path / "r.jsonl", rows_small()))
    combos = {rec["combination"]: rec["support"] for rec in report.table("combinations").records()}
    assert combos == {"{ACH, ACH}": 1, "{ACH, TWS}": 1, "{ACH, ACH, TWS}": 1, "{ACH, HLR}": 1}
    simulable = {rec["combination"] for rec in report.table("combinations_simulable").records()}
    assert simulable == {"{ACH, ACH}", "{ACH, HLR}"}
    pairs = {(r[0], r[1]): r[2] for r in report.table("cooccurrence").rows}
    assert pairs == {("ACH", "ACH"): 1, ("ACH", "TWS"): 1, ("ACH", "HLR"): 1}


def test_unknown_flags_are_left_out_of_rsb_and_rsfc(tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text(
        'id,benchmark,codes,is_mutant\nx,A,"ACH, HLR","Y,Y"\ny,A,"ACH, TWS",Y\nz,A,CPP,N\n', encoding="utf-8"
    )
    report = report_from_file(labels)
    overall = figures(report, "ALL").all
    assert report.kind == "labels"
    assert (overall.bugs, overall.total) == (3, 5)
    assert (overall.rsb.num, overall.rsb.den) == (1, 2)  # y's flags do not match its codes
    assert (overall.rsfc.num, overall.rsfc.den, overall.unknown_flags) == (2, 3, 2)
    assert "left out" in report.table("table4_similarity").note


def test_cli_writes_every_file_and_csv_holds_every_row(tmp_path):
    source = write_rows(tmp_path / "r.jsonl", rows_small())
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["report", str(source), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "report.html" in result.output
    for name in ("report.md", "report.html", "report.json"):
        assert (out / name).stat().st_size > 0
    pngs = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert pngs == sorted(
        [
            "code_frequency.png",
            "order_histogram.png",
            "cooccurrence_heatmap.png",
            "rsb_rsfc.png",
            "categories.png",
        ]
    )
    for png in (out / "plots").glob("*.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = Report.from_dict(json.loads((out / "report.json").read_text()))
    for table in saved.tables:
        with open(out / "tables" / f"{table.name}.csv", newline="") as fh:
            rows = list(csv.reader(fh))
        assert rows[0] == table.columns and len(rows) - 1 == len(table.rows)
    markdown = (out / "report.md").read_text()
    assert "](plots/order_histogram.png)" in markdown and "Order-0 bugs" in markdown


def test_cli_json_and_markdown_to_stdout(tmp_path):
    source = write_rows(tmp_path / "r.jsonl", rows_small())
    as_json = CliRunner().invoke(main, ["report", str(source), "--json"])
    assert as_json.exit_code == 0
    payload = json.loads(as_json.output)
    assert payload["summary"]["bugs"] == 4 and payload["summary"]["order0"] == 1
    text = CliRunner().invoke(main, ["report", str(source)])
    assert text.exit_code == 0 and "| A | 2 | 3 | 2.0 | 4 | 2 |" in text.output


def test_unreadable_line_is_listed_and_exit_code_is_1(tmp_path):
    source = write_rows(tmp_path / "r.jsonl", rows_small(), "{not json\n")
    result = CliRunner().invoke(main, ["report", str(source), "--json"])
    assert result.exit_code == 1
    errors = next(t for t in json.loads(result.output)["tables"] if t["name"] == "errors")
    assert [
        "line 7",
        "",
        "unreadable: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    ] in errors["rows"]
    assert json.loads(result.output)["summary"]["bugs"] == 4


def test_bad_input_is_a_usage_error(tmp_path):
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\nworld\n", encoding="utf-8")
    assert CliRunner().invoke(main, ["report", str(junk)]).exit_code == 2
    not_labels = tmp_path / "x.csv"
    not_labels.write_text("a,b\n1,2\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(not_labels)])
    assert result.exit_code == 2 and "codes" in result.output


def test_load_bugs_detects_labels_by_header(tmp_path):
    labels = tmp_path / "labels.txt"
    labels.write_text("id,codes,is_mutant\nx,ACH,Y\n", encoding="utf-8")
    bugs, kind, problems = load_bugs(labels)
    assert kind == "labels" and bugs[0].codes == ["ACH"] and bugs[0].simulable == [True] and not problems


def test_report_round_trips_through_json(tmp_path):
    report = report_from_file(write_rows(tmp_path / "r.jsonl", rows_small()))
    again = Report.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.to_dict() == report.to_dict()
    assert sorted(again.graph.edges) == sorted(report.graph.edges)


def test_report_command_imports_neither_tensorflow_nor_matplotlib():
    code = (
        "import sys, mutreal.commands.report, mutreal.report.build, mutreal.report.render;"
        "bad = [m for m in ('tensorflow', 'matplotlib') if m in sys.modules];"
        "sys.exit(repr(bad) if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_realism_from_labels_adds_r_columns(tmp_path):
    source = write_rows(tmp_path / "r.jsonl", rows_small())
    labels = tmp_path / "labels.csv"
    labels.write_text("id,codes,is_mutant,realistic\na1,ACH,Y,Y\na2,ACH,Y,N\nb1,HLR,Y,Y\n", encoding="utf-8")
    report = report_from_file(source, realism_from=labels)
    r = figures(report, "ALL").realistic
    assert (r.bugs, r.total, r.rsb.num, r.rsb.den) == (2, 3, 2, 2)
    assert "R bugs" in report.table("table3_order").columns
    result = CliRunner().invoke(main, ["report", str(source), "--realism", str(labels), "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["figures"][-1]["realistic"]["bugs"] == 2


def test_graphml_holds_the_cooccurrence_graph(tmp_path):
    import networkx as nx

    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["report", str(write_rows(tmp_path / "r.jsonl", rows_small())), "--out", str(out), "--no-plots"]
    )
    assert result.exit_code == 0, result.output
    graph = nx.read_graphml(out / "cooccurrence.graphml")
    assert graph.nodes["ACH"]["count"] == 4 and graph.edges["ACH", "TWS"]["weight"] == 1
    assert not (out / "plots").exists()


def test_a_repeated_id_counts_once_with_the_later_row(tmp_path):
    rows = rows_small()
    rerun = dict(rows[0], components=[{"code": "HLR", "simulable": True}], order=1)
    report = report_from_file(write_rows(tmp_path / "r.jsonl", [*rows, rerun]))
    assert figures(report, "ALL").all.bugs == 4
    assert next(b for b in report.bugs if b.id == "a1").codes == ["HLR"]
    assert [b.id for b in report.bugs][:2] == ["a1", "a2"]


def test_an_empty_results_file_reports_dashes_not_none(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    markdown = CliRunner().invoke(main, ["report", str(empty), "--no-plots"])
    assert markdown.exit_code == 0, markdown.output
    assert "mean -); RSB 0/0 (-), RSFC 0/0 (-)" in markdown.stdout and "None%" not in markdown.stdout
    written = CliRunner().invoke(main, ["report", str(empty), "--no-plots", "--out", str(tmp_path / "r")])
    assert written.exit_code == 0 and "RSB -, RSFC -" in written.stdout
