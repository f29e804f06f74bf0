"""Outcomes that say who failed, mutants in their program's setting, and a fault that does not
reproduce (issue 35 items 3-5), through the installed ``mutreal`` entry point on own programs.

One benchmark-shaped bug, as Defects4ML lays its programs out: ``bug/fixed/program.py`` reads
``data.csv`` beside itself and writes ``fixed/result.json`` (its harness runs it from the bug's
folder). Its mutants are written elsewhere with ``mutate --out`` and run with ``compare --mutants
DIR``:

- the learning-rate mutant runs in its original's folder, under that folder's name: it trains and
  evaluates, and no run fails on ``fixed/result.json`` (before, its runs failed there: a kill);
- a mutant whose edit uses a name before the import the edit wrote (``NameError``) is *invalid*, a
  mutreal defect, never a kill, with no coupling or IoU, and is counted in the JSON and the text;
- the buggy program trains longer than the fixed one and is better: the fault does not reproduce
  here, and every coupling strength and IoU is null with that reason, not 0.0.

Slow: 4 programs x 2 seeds on scikit-learn's iris, 2 epochs each.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).parents[2]

PROGRAM = """
import json
import numpy as np
import keras

data = np.loadtxt("data.csv", delimiter=",")
x, y = data[:, :4].astype("float32"), data[:, 4].astype("int64")
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer=keras.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x[:120], y[:120], epochs=EPOCHS, batch_size=16, verbose=0)
score = model.evaluate(x[120:], y[120:], verbose=0)
with open("SIDE/result.json", "w") as handle:
    json.dump({"accuracy": float(score[1])}, handle)
"""


def _mutreal(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``mutreal`` entry point, with this checkout's sources first."""
    command = shutil.which("mutreal", path=str(Path(sys.executable).parent)) or "mutreal"
    return subprocess.run([command, *args], cwd=cwd, capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))  # fmt: skip


def _bug(root: Path) -> tuple[Path, Path]:
    from sklearn.datasets import load_iris

    x, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(x))
    table = np.column_stack([(x - x.mean(axis=0)) / x.std(axis=0), y])[order]
    paths = []
    for side, epochs in (("buggy", 12), ("fixed", 2)):  # the "buggy" side trains longer: it is better
        folder = root / "bug" / side
        folder.mkdir(parents=True)
        np.savetxt(folder / "data.csv", table, delimiter=",", fmt="%.6f")
        text = PROGRAM.replace("EPOCHS", str(epochs)).replace("SIDE", side)
        (folder / "program.py").write_text(text, encoding="utf-8")
        paths.append(folder / "program.py")
    return paths[0], paths[1]


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("outcomes")
    buggy, fixed = _bug(root)
    made = _mutreal(root, "mutate", str(fixed), "--op", "HLR", "--param", "0.01", "--out", "mutants", "--json")
    assert made.returncode == 0, made.stderr[-2000:]
    (hlr,) = sorted((root / "mutants").glob("*.py"))
    # the same edit written with the optimizer's bare name and its import after its use: NameError
    broken = root / "mutants" / "program__late_import.py"
    text = hlr.read_text(encoding="utf-8").replace("keras.optimizers.Adam(", "Adam(")
    broken.write_text(text + "from keras.optimizers import Adam\n", encoding="utf-8")
    shutil.copy(hlr.with_suffix(".json"), broken.with_suffix(".json"))
    common = ["compare", "--buggy", str(buggy), "--fixed", str(fixed), "--mutants", "mutants", "--runs", "2",
              "--jobs", "2", "--store", "runs.sqlite", "-q"]  # fmt: skip
    as_json = _mutreal(root, *common, "--json")
    assert as_json.returncode == 0, as_json.stderr[-3000:]
    as_text = _mutreal(root, *common)  # the stored runs again: nothing trains
    assert as_text.returncode == 0, as_text.stderr[-3000:]
    data = json.loads(as_json.stdout)
    by_name = {Path(m["program"]).name: m for m in data["mutants"]}
    return {"data": data, "hlr": by_name[hlr.name], "broken": by_name[broken.name], "text": as_text.stdout,
            "notes": as_text.stderr}  # fmt: skip


@pytest.mark.slow
def test_a_mutant_written_elsewhere_runs_in_its_programs_folder(compared: dict[str, Any]) -> None:
    hlr = compared["hlr"]
    assert hlr["failure"] is None and hlr["mutant"]["outcomes"] == {"ok": 2}
    assert hlr["kill"]["killed_by"] != "crash"  # if killed, by its metric: every run trained and evaluated
    assert hlr["mutant"]["summary"]["n"] == 2
    # its runs wrote fixed/result.json as its original's do: no run failed there (not even after evaluating)
    assert not any(hlr["program"] in note or "result.json" in note for note in compared["data"]["notes"]), \
        compared["data"]["notes"]


@pytest.mark.slow
def test_a_mutant_with_a_name_error_on_its_own_import_is_invalid_not_a_kill(compared: dict[str, Any]) -> None:
    broken, data = compared["broken"], compared["data"]
    failure = broken["failure"]
    assert failure["kind"] == "invalid" and failure["mutreal_defect"] is True
    assert failure["error"].startswith("NameError") and "'Adam'" in failure["reason"]
    assert (failure["runs"], failure["of"]) == (2, 2)
    assert broken["killed"] is None and broken["coupling_strength"] is None and broken["detectability_iou"] is None
    assert broken["kp"] is None and broken["fisher_killed"] is None
    assert data["failed_mutants"] == {"invalid": 1, "harness": 0, "stillborn": 0, "outgrown": 0, "mutreal_defects": 1}
    assert "invalid 1, harness 0, stillborn 0, outgrown 0; 1 of them mutreal defects" in compared["text"]
    assert "invalid, not a kill (2 of 2 runs): NameError" in compared["text"]


@pytest.mark.slow
def test_a_fault_that_does_not_reproduce_has_null_figures_with_the_reason(compared: dict[str, Any]) -> None:
    fault = compared["data"]["fault"]
    assert fault["reproduced"] is False
    missing = fault["not_reproduced"]
    assert missing["reason"].startswith("fault not reproduced here: ")
    assert missing["buggy"]["runs"] == missing["fixed"]["runs"] == 2
    assert missing["buggy"]["mean"] >= missing["fixed"]["mean"]
    hlr = compared["hlr"]
    assert hlr["kp"] is not None  # it was measured; only its likeness to an absent fault is not
    assert hlr["coupling_strength"] is None and hlr["detectability_iou"] is None
    assert hlr["similarity_reason"] == missing["reason"]
    assert "fault not reproduced here" in compared["text"] and "coupling strength and IoU are null" in compared["text"]
