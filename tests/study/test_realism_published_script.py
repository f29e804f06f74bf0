"""``benchmarks/realism_published.py`` end to end on an own pair (a digits MLP whose fault is the last
layer's activation, benchmarks/campaign_pairs) and an own snapshot in their file format: published
figures invented here for mutants mutreal names itself, 2 runs per program; the table it writes is
read back and rendered by ``mutreal report --published``."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.mutation.deepcrime_names import name_of_site
from mutreal.mutation.operators import Program
from mutreal.study.realism_comparison import TABLE_FORMAT

ROOT = Path(__file__).resolve().parents[2]
PAIR = ROOT / "benchmarks" / "campaign_pairs" / "wrong_last_activation"
SCRIPT = ROOT / "benchmarks" / "realism_published.py"
BUG = "defect4ml001"  # joins Defects4ML:001 without a spreadsheet
#: (operator, site, value, published CS, published IoU): own figures, spread over the CS range
MUTANTS = [("HLR", 0, 0.5, 0.9, 0.4), ("HNE", 0, 1, 0.7, 0.3), ("OCH", 0, "sgd", 0.5, 0.2),
           ("LCH", 0, "mean_squared_error", 0.3, 0.1), ("ACH", 0, "tanh", 0.1, 0.05), ("HBS", 0, 8, 0.2, 0.1)]  # fmt: skip


def _snapshot(root: Path) -> list[str]:
    program = Program.from_file(str(PAIR / "fixed.py"))
    names = [name_of_site(program, op, site, value) for op, site, value, _, _ in MUTANTS]
    for folder, column in (("coupling_strength", 3), ("detectability_overlap", 4)):
        (root / "results" / folder).mkdir(parents=True)
        lines = [f"mutant,FM_{BUG}_faulty"]
        lines += [f"MM_{BUG}_{name},{m[column]} (unreliable)" for name, m in zip(names, MUTANTS, strict=True)]
        (root / "results" / folder / f"{folder}_{BUG}_pre_training.csv").write_text("\n".join(lines) + "\n")
    return names


@pytest.mark.slow
def test_script_writes_the_table_the_report_reads(tmp_path: Path, synthetic_results_for_page):
    snapshot = tmp_path / "snapshot"
    names = _snapshot(snapshot)
    manifest = tmp_path / "manifest.csv"
    with manifest.open("w", newline="") as f:
        csv.writer(f).writerows([["id", "benchmark", "buggy", "fixed"],
                                 ["Defects4ML:001", "own", str(PAIR / "buggy.py"), str(PAIR / "fixed.py")]])  # fmt: skip
    out = tmp_path / "table.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--manifest", str(manifest), "--git-dir", str(snapshot),
         "--deepfd-git-dir", str(tmp_path / "none"), "--deeplocalize-git-dir", str(tmp_path / "none"),
         "--runs", "2", "--size", "5", "--min-operators", "3", "--work", str(tmp_path / "work"), "--out", str(out)],
        capture_output=True, text=True, timeout=1500, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "sample rule:" in done.stdout
        and "reliability, theirs:" in done.stdout
        and "runs per program: 2" in done.stdout
    )
    data = json.loads(out.read_text())
    assert data["format"] == TABLE_FORMAT and data["runs"] == 2 and data["not_run"] == []
    (row,) = data["bugs"]
    # 5 sampled, fewer than 10 measured: the top-up adds the one mutant left, and compare runs again
    assert (row["bug"], row["runtime_id"], row["runs"], row["sampled"]) == (BUG, "Defects4ML:001", 2, 6)
    assert {m["name"] for m in row["mutants"]} == set(names) and len(row["mutants"]) == 6
    assert row["top_up"]["rounds"] == 1 and len(row["top_up"]["added"]) == 1 and "top-up:" in done.stdout
    assert row["matched"] == sum(1 for m in row["mutants"] if m["our_cs"] is not None) >= 3
    sampled = {m["name"]: m for m in row["mutants"]}
    assert sampled[names[0]]["their_cs"] == 0.9 and sampled[names[4]]["their_cs"] == 0.1  # CS range ends kept
    # the fault (last activation) is reconstructed by ACH and trained in the same runs
    assert row["reconstruction"]["operator"] == "ACH"
    assert row["trainings"]["mutreal"] == 2 * (2 + 6 + 1) and row["trainings"]["theirs"] == (6 + 2) * 5
    assert row["cs"]["rho"] is None or -1 <= row["cs"]["rho"] <= 1
    assert row["runs"] < 5 and any("too few runs: 2" in why for why in row["disagreement"]) == bool(
        row["disagreement"]
    )
    # --reuse-compare recomputes the row from compare's stored row, training nothing
    again = subprocess.run(
        [sys.executable, str(SCRIPT), "--manifest", str(manifest), "--git-dir", str(snapshot),
         "--deepfd-git-dir", str(tmp_path / "none"), "--deeplocalize-git-dir", str(tmp_path / "none"),
         "--runs", "2", "--size", "5", "--min-operators", "3", "--work", str(tmp_path / "work"),
         "--out", str(tmp_path / "again.json"), "--reuse-compare"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 0 and "reusing" in again.stdout, again.stdout + again.stderr
    assert "$ " in again.stdout and again.stdout.count("top-up:") == 2  # its top-up found in compare's row too
    (same,) = json.loads((tmp_path / "again.json").read_text())["bugs"]
    assert same["mutants"] == row["mutants"] and same["matched"] == row["matched"]
    # the report shows it on the bug's page
    results = synthetic_results_for_page("Defects4ML:001", tmp_path / "results.jsonl")
    shown = subprocess.run(
        [shutil.which("mutreal", path=str(Path(sys.executable).parent)) or "mutreal", "report", str(results), "--published", str(out),
         "--out", str(tmp_path / "report"), "--no-plots"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    pages = list((tmp_path / "report" / "bugs").glob("*.html"))
    assert any(f"published figures ({BUG})" in p.read_text() for p in pages)


@pytest.fixture
def synthetic_results_for_page():
    """A one-bug classify results file whose id is the runtime id (the bug page's key)."""

    def write(bug_id: str, path: Path) -> Path:
        row = {"id": bug_id, "benchmark": "own", "status": "ok", "error": None, "order": 1, "simulable": True,
               "components": [{"code": "ACH", "simulable": True, "deepcrime": "ACH", "element": "model[0].layer[1].activation",
                               "before": "'tanh'", "after": "'softmax'", "reason": None}], "data": {}}  # fmt: skip
        path.write_text(json.dumps(row) + "\n")
        return path

    return write


@pytest.mark.slow
def test_probe_times_one_run_of_each_fixed_program_and_trains_nothing_else(tmp_path: Path):
    """``--probe``: the run that picks the bugs a long measurement can afford (one training)."""
    snapshot = tmp_path / "snapshot"
    _snapshot(snapshot)
    manifest = tmp_path / "manifest.csv"
    with manifest.open("w", newline="") as f:
        csv.writer(f).writerows([["id", "benchmark", "buggy", "fixed"],
                                 ["Defects4ML:001", "own", str(PAIR / "buggy.py"), str(PAIR / "fixed.py")]])  # fmt: skip
    out = tmp_path / "probe.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--manifest", str(manifest), "--git-dir", str(snapshot),
         "--deepfd-git-dir", str(tmp_path / "none"), "--deeplocalize-git-dir", str(tmp_path / "none"),
         "--probe", "--jobs", "1", "--work", str(tmp_path / "work"), "--out", str(out)],
        capture_output=True, text=True, timeout=900, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads(out.read_text())["probe"]
    assert (row["bug"], row["runtime_id"], row["outcome"], row["made"], row["published"]) == (
        BUG, "Defects4ML:001", "ok", len(MUTANTS), len(MUTANTS))
    assert 0 < row["seconds"] < 900
    assert not (tmp_path / "work" / BUG).exists()  # no mutant written, no compare run


def test_a_two_file_programs_reconstruction_keeps_the_entrys_mutants_only(tmp_path: Path):
    # a fixed program of two files (the entry and a helper it does not import): reconstruct_mutants
    # copies the helper beside each mutant, and compare would train the copies as mutants; the
    # benchmark removes them (the mutant runs in its original's folder) instead of leaving the
    # reconstruction out
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import realism_published as bench
    finally:
        sys.path.remove(str(SCRIPT.parent))
    from mutreal.manifest import load_manifest

    for side in ("buggy", "fixed"):
        (tmp_path / side).mkdir()
        shutil.copy(PAIR / f"{side}.py", tmp_path / side / "model.py")
        (tmp_path / side / "helper.py").write_text("print('makes data once')\n")
    manifest = tmp_path / "manifest.csv"
    with manifest.open("w", newline="") as f:
        csv.writer(f).writerows([["id", "benchmark", "buggy", "fixed", "entry"],
                                 ["Own:two", "own", f"{tmp_path}/buggy/model.py;{tmp_path}/buggy/helper.py",
                                  f"{tmp_path}/fixed/model.py;{tmp_path}/fixed/helper.py", "model.py"]])  # fmt: skip
    (row,) = load_manifest(str(manifest)).rows
    _, rec, notes = bench.write_bug(row, [], {}, tmp_path / "out")
    assert rec and {s.operator for s in rec.values()} == {"ACH"}
    files = sorted((tmp_path / "out" / bench.RECONSTRUCT).rglob("*.py"))
    assert files and {p.name for p in files} == {"model.py"} and {str(p.resolve()) for p in files} == set(rec)
    assert any("several files" in n and "left out" not in n for n in notes)
