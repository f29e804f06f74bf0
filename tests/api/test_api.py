"""mutreal.api: results as DataFrames, one row per component / bug / mutant / HOM."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mutreal
from mutreal import api
from mutreal.results import BugResult, ComponentResult

ROOT = Path(__file__).resolve().parents[2]
CNN = ROOT / "benchmarks" / "subjects_mutation" / "cnn.py"

BUGGY = """\
from keras.models import Sequential
from keras.layers import Dense
model = Sequential()
model.add(Dense(8, activation="relu", input_dim=4))
model.add(Dense(1, activation="sigmoid"))
model.compile(loss="mse", optimizer="adam")
model.fit(x, y, epochs=5)
"""
FIXED = BUGGY.replace('loss="mse"', 'loss="binary_crossentropy"').replace("epochs=5", "epochs=50")


def test_the_api_is_at_the_top_level_and_loaded_on_first_use() -> None:
    code = "import sys, mutreal; assert 'mutreal.api' not in sys.modules and 'pandas' not in sys.modules; "
    code += "mutreal.classify_pair; assert 'mutreal.api' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    assert mutreal.classify_manifest is api.classify_manifest
    with pytest.raises(AttributeError):
        mutreal.no_such_name  # noqa: B018


def test_a_pair_gives_a_row_per_component_and_per_bug(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_text(BUGGY)
    (tmp_path / "f.py").write_text(FIXED)
    bugs = mutreal.classify_pair(tmp_path / "b.py", tmp_path / "f.py", bug_id="toy")
    components = bugs.to_frame()
    assert sorted(components["code"]) == ["HNE", "LCH"]
    assert set(components["bug"]) == {"toy"} and (components["bug_status"] == "ok").all()
    assert {"element", "before", "after", "deepcrime", "buggy_line"} <= set(components.columns)
    per_bug = bugs.to_frame("bug")
    assert per_bug.to_dict("records")[0]["order"] == 2 and per_bug["codes"][0] in {"LCH HNE", "HNE LCH"}
    with pytest.raises(ValueError, match="per must be"):
        bugs.to_frame("mutant")


def test_an_unclassifiable_pair_is_an_error_row_not_an_exception(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_text("print('no keras here')\n")
    bugs = mutreal.classify_pair(tmp_path / "b.py", tmp_path / "b.py")
    assert bugs.to_frame().empty and list(bugs.to_frame().columns[:2]) == ["bug", "bug_benchmark"]
    row = bugs.to_frame("bug").to_dict("records")[0]
    assert row["status"] == "error" and "not a Keras program" in row["error"] and row["order"] == 0


def test_results_written_by_the_api_are_read_back_as_written(tmp_path: Path) -> None:
    bug = BugResult("x", "B", components=[ComponentResult("ACH", deepcrime="ACH", simulable=True)])
    path = api.Classified([bug]).write(tmp_path / "r" / "out.jsonl")
    assert path.read_text() == bug.to_json_line()
    again = mutreal.read_results(path)
    assert [b.to_dict() for b in again] == [bug.to_dict()] and again.to_frame()["code"].tolist() == ["ACH"]


def test_mutants_in_memory_and_written(tmp_path: Path) -> None:
    in_memory = mutreal.mutate_program(CNN, "HLR", value=0.5)
    frame = in_memory.to_frame()
    assert frame.shape[0] == 1 and frame["file"].isna().all() and frame["new"][0] == "0.5"
    written = mutreal.mutate_program(CNN, "HLR", value=0.5, out_dir=tmp_path)
    path = Path(written.to_frame()["file"][0])
    assert path.read_text() == in_memory.mutants[0].code and path.with_suffix(".json").exists()
    failed = mutreal.mutate_program(CNN, "HLR", site=99).to_frame()
    assert failed["mutant"].isna().all() and "no site 99" in failed["error"][0]


def test_hom_generate_from_classified_bugs_in_memory(tmp_path: Path) -> None:
    bug = BugResult(
        "real",
        components=[
            ComponentResult("HLR", deepcrime="HLR", simulable=True, before="0.01", after="0.001"),
            ComponentResult("ACH", deepcrime="ACH", simulable=True, before="'sigmoid'", after="'relu'"),
        ],
    )
    homs = mutreal.hom_generate(CNN, results=api.Classified([bug]), orders=[2], top=1)
    frame = homs.to_frame()
    assert frame.to_dict("records")[0]["codes"] == "ACH HLR" and len(homs) == 1
    assert "classified bugs" in homs.report.source


def test_report_tables_as_frames(tmp_path: Path) -> None:
    (tmp_path / "b.py").write_text(BUGGY)
    (tmp_path / "f.py").write_text(FIXED)
    report = mutreal.report_on(mutreal.classify_pair(tmp_path / "b.py", tmp_path / "f.py", bug_id="toy"))
    assert "code_frequency" in report.names and report.summary()["bugs"] == 1
    assert set(report.to_frame("code_frequency").iloc[:, 0]) >= {"HNE", "LCH"}
    with pytest.raises(KeyError, match="no table"):
        report.to_frame("nope")
