"""``mutreal report ... --published TABLE``: mutreal's realism figures beside Ahmed et al.'s, rendered
from a table written here with the study module's own functions (own figures, not theirs)."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.study.published_realism import PublishedMutant
from mutreal.study.realism_comparison import bug_row, table

MUTREAL = shutil.which("mutreal", path=str(Path(sys.executable).parent)) or shutil.which("mutreal") or "mutreal"
OPS = ["change_activation_function", "change_loss_function", "delete_training_data", "change_learning_rate"]


def _bug(bug: str, runtime_id: str, ours: list[float], rec_iou: float) -> dict:
    published = [
        PublishedMutant(bug, f"{OPS[i % 4]}_mutated0_MP_{i}", i / 12, i / 24, True) for i in range(12)
    ]
    entries = [
        {"file": f"/w/dc{i}.py", "coupling": cs, "iou": cs / 2, "reliable": False}
        for i, cs in enumerate(ours)
    ]
    entries.append(
        {"file": "/w/rec/prog.py", "coupling": 1.0, "iou": rec_iou, "reliable": False, "operator": "ACH"}
    )
    compared = {"status": "ok", "runs": 2, "trainings": 30, "mutants": entries,
                "fault": {"killed": True, "kp": {"mean_kp": 0.25, "inputs_killing": 9, "n_inputs": 40}}}  # fmt: skip
    names = {f"dc{i}.py": m.name for i, m in enumerate(published)}
    return bug_row(bug, runtime_id, published, published, compared,
                   name_of=lambda e: names.get(e["file"].rsplit("/", 1)[1]),
                   is_reconstruction=lambda e: "/rec/" in e["file"])  # fmt: skip


@pytest.fixture
def published_table(tmp_path: Path) -> Path:
    rows = [
        _bug("deepfd001", "b1", [i / 12 + 0.02 for i in range(12)], rec_iou=0.9),  # agrees
        _bug("deeplocalize002", "b2", [1 - i / 12 for i in range(12)], rec_iou=0.05),  # disagrees
    ]
    data = table(rows, not_run=[{"bug": "deepfd003", "reason": "the fixed program builds no model mutreal reads"}],
                 sample_rule_text="RULE-TEXT", our_rule="OUR-RULE", command="python benchmarks/realism_published.py",
                 runs=2, seconds=12.5)  # fmt: skip
    path = tmp_path / "published.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _report(results: Path, table_path: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MUTREAL, "report", str(results), "--published", str(table_path), "--out", str(out), "--no-plots"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_report_shows_published_figures_beside_mutreals(synthetic_results, published_table, tmp_path):
    out = tmp_path / "report"
    done = _report(synthetic_results, published_table, out)
    assert done.returncode == 0, done.stderr
    with open(out / "tables" / "published_realism_bugs.csv", newline="", encoding="utf-8") as handle:
        rows = {r["bug"]: r for r in csv.DictReader(handle)}
    assert set(rows) == {"b1", "b2"}
    assert rows["b1"]["CS rho"] == "1.00" and rows["b1"]["why they differ"] == ""
    assert rows["b2"]["CS rho"] == "-1.00" and "too few runs: 2" in rows["b2"]["why they differ"]
    assert rows["b1"]["CS theirs"] == f"{(5 / 12 + 6 / 12) / 2:.2f}"
    assert "at or above" in rows["b1"]["mutreal's reconstructing mutant"]
    assert "below" in rows["b2"]["mutreal's reconstructing mutant"]
    assert rows["b1"]["trainings mutreal / theirs"] == "30 / 70"
    with open(out / "tables" / "published_realism_summary.csv", newline="", encoding="utf-8") as handle:
        summary = {r["figure"]: r["value"] for r in csv.DictReader(handle)}
    assert summary["reliability, mutreal"] == "OUR-RULE" and "Wilson" in summary["reliability, theirs"]
    assert (
        summary["reconstructing mutant at or above the matched mutants' median IoU (same runs)"] == "1 of 2"
    )
    report_html = (out / "report.html").read_text(encoding="utf-8")
    realism = report_html.split('id="section-realism"', 1)[1].split("</section>", 1)[0]
    assert (
        "Ahmed et al." in realism
        and "RULE-TEXT" in realism
        and "builds no model mutreal reads: 1 (deepfd003)" in realism
    )
    page = (out / "bugs" / "b2.html").read_text(encoding="utf-8")
    assert "Beside Ahmed et al.'s published figures (deeplocalize002)" in page
    assert "change_loss_function_mutated0_MP_1" in page and "OUR-RULE" in page
    other = (out / "bugs" / "b3.html").read_text(encoding="utf-8")
    assert "Ahmed et al." not in other


def test_report_refuses_a_file_that_is_not_the_table(synthetic_results, tmp_path):
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"bugs": []}), encoding="utf-8")
    done = _report(synthetic_results, wrong, tmp_path / "out")
    assert done.returncode == 2 and "not a published-realism table" in done.stderr
