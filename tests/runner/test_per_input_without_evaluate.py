"""Per-input correctness for programs that never evaluate, and a regression model decided on its loss.

Most real programs fit and print, or predict one sample; before, they gave no per-input correctness
and so no killing probability, coupling or IoU. Own small programs on scikit-learn's bundled data:
fit only, fit + predict of one sample, ``validation_split``, ``validation_data``, and a regression
pair compiled with ``metrics=['accuracy']`` whose accuracy is 0.0 on both sides. Slow: they train.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]

IRIS = """
import numpy as np
import keras
from sklearn.datasets import load_iris

x, y = load_iris(return_X_y=True)
x = ((x - x.mean(axis=0)) / x.std(axis=0)).astype("float32")
order = np.random.default_rng(0).permutation(len(x))
x, y = x[order], y[order]
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer=keras.optimizers.Adam(LR), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

PROGRAMS = {
    "fit_only.py": IRIS + "model.fit(x, y, epochs=EPOCHS, batch_size=16, verbose=0)\n",
    "fit_predict.py": IRIS + "model.fit(x, y, epochs=EPOCHS, batch_size=16, verbose=0)\n"
    "print(model.predict(x[:1], verbose=0))\n",
    "split.py": IRIS + "model.fit(x, y, epochs=EPOCHS, batch_size=16, verbose=0, validation_split=0.2)\n",
    "val_data.py": IRIS + "model.fit(x[:100], y[:100], epochs=EPOCHS, batch_size=16, verbose=0, "
    "validation_data=(x[100:], y[100:]))\n",
}

REGRESSION = """
import keras
from sklearn.datasets import load_diabetes

x, y = load_diabetes(return_X_y=True)
x = x.astype("float32") * 10
y = ((y - y.mean()) / y.std()).astype("float32")
model = keras.Sequential([keras.Input(shape=(10,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(LR), loss="mse", metrics=["accuracy"])
model.fit(x[:350], y[:350], epochs=EPOCHS, batch_size=32, verbose=0)
model.evaluate(x[350:], y[350:], verbose=0)
"""


def _write(folder: Path, name: str, text: str, lr: float = 0.05, epochs: int = 20) -> Path:
    path = folder / name
    path.write_text(text.replace("LR", repr(lr)).replace("EPOCHS", str(epochs)), encoding="utf-8")
    return path


def _mutreal(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The ``mutreal`` entry point, with this checkout's sources."""
    return subprocess.run([sys.executable, "-m", "mutreal", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))  # fmt: skip


@pytest.mark.slow
def test_programs_without_evaluate_are_judged_on_their_validation_else_training_data(tmp_path: Path) -> None:
    from mutreal.execution import execute_campaign

    paths = [_write(tmp_path, name, text, epochs=5) for name, text in PROGRAMS.items()]
    result = execute_campaign(paths, seeds=[0], jobs=1, progress=False)
    by_name = {Path(r.program).name: r for r in result.records}
    expected = {"fit_only.py": ("training", 150), "fit_predict.py": ("training", 150),
                "split.py": ("validation", 30), "val_data.py": ("validation", 50)}  # fmt: skip
    for name, (source, n_inputs) in expected.items():
        record = by_name[name]
        assert record.outcome == "ok", (name, record.error_message)
        last = record.last_evaluation
        assert (last.source, last.n_inputs, len(record.correct)) == (source, n_inputs, n_inputs), name
        assert last.results == {}  # made by mutreal after the program: never the compared metric
        assert record.evaluate_time_s == 0.0  # nor the program's evaluate time: it never evaluated
        assert record.metric_source == "fit" and record.metric_name == "accuracy"
        assert record.fits[-1].task == {"kind": "classification", "loss": "sparse_categorical_crossentropy",
                                        "activation": "softmax", "from_logits": False}  # fmt: skip
    assert by_name["split.py"].labels == by_name["fit_only.py"].labels[120:]  # the last fifth, as Keras splits
    assert by_name["fit_predict.py"].evaluations[0].source == "training"  # predict of one sample is no test set


@pytest.mark.slow
def test_compare_gives_kp_coupling_and_iou_for_programs_that_never_evaluate(tmp_path: Path) -> None:
    fixed = _write(tmp_path, "fixed.py", PROGRAMS["fit_predict.py"], lr=0.05, epochs=10)
    buggy = _write(tmp_path, "buggy.py", PROGRAMS["fit_only.py"], lr=0.0005, epochs=10)
    mutant = _write(tmp_path, "mutant_hlr.py", PROGRAMS["fit_predict.py"], lr=0.001, epochs=10)
    out = _mutreal(tmp_path, "compare", "--buggy", str(buggy), "--fixed", str(fixed), "--mutants", str(mutant),
                   "--runs", "3", "--jobs", "2", "--json", "-q")  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert report["per_input"]["source"] == "training" and report["per_input"]["n_inputs"] == 150
    assert report["metric"] == "accuracy" and "accuracy-like" in report["metric_reason"]
    assert report["fault"]["kp"] is not None and report["fault"]["kp"]["n_inputs"] == 150
    (row,) = report["mutants"]
    assert row["kp"] is not None
    assert row["coupling_strength"] is not None and 0.0 <= row["coupling_strength"] <= 1.0
    assert row["detectability_iou"] is None or 0.0 <= row["detectability_iou"] <= 1.0
    assert not any("no per-input correctness" in note for note in report["notes"])


@pytest.mark.slow
def test_a_regression_pair_compiled_with_accuracy_is_decided_on_its_loss(tmp_path: Path) -> None:
    _write(tmp_path, "fixed.py", REGRESSION, lr=0.05, epochs=20)
    _write(tmp_path, "buggy.py", REGRESSION, lr=0.00001, epochs=20)
    out = _mutreal(tmp_path, "reproduce", "buggy.py", "fixed.py", "--runs", "4", "--jobs", "2", "--json", "-q")
    assert out.returncode == 0, out.stderr[-3000:]
    verdict = json.loads(out.stdout)
    assert verdict["metric"] == "loss" and verdict["lower_is_better"] is True
    assert verdict["metric_reason"].startswith("loss: a regression model (loss mse, last activation linear)")
    assert "accuracy" in verdict["metric_reason"]
    assert verdict["symptom"] == "performance" and verdict["reproduced"] is True, verdict["reason"]
    assert verdict["fixed"]["summary"]["mean"] < verdict["buggy"]["summary"]["mean"]


@pytest.mark.slow
def test_compare_judges_a_fault_that_drops_the_evaluate_call_on_the_validation_data_both_sides_have(
    tmp_path: Path,
) -> None:
    split = IRIS + "model.fit(x[:120], y[:120], epochs=EPOCHS, batch_size=16, verbose=0, validation_split=0.25)\n"
    evaluating = split + "model.evaluate(x[120:], y[120:], verbose=0)\n"
    fixed = _write(tmp_path, "fixed.py", evaluating, lr=0.05, epochs=10)
    buggy = _write(tmp_path, "buggy.py", split, lr=0.0005, epochs=10)  # the fault also lost the evaluate call
    mutant = _write(tmp_path, "mutant_hlr.py", evaluating, lr=0.001, epochs=10)
    out = _mutreal(tmp_path, "compare", "--buggy", str(buggy), "--fixed", str(fixed), "--mutants", str(mutant),
                   "--runs", "3", "--jobs", "2", "--json", "-q")  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert report["per_input"]["source"] == "validation" and report["per_input"]["n_inputs"] == 30
    assert report["fault"]["kp"] is not None and report["fault"]["kp"]["n_inputs"] == 30
    (row,) = report["mutants"]
    assert row["kp"] is not None and row["coupling_strength"] is not None
    assert any(n.startswith("per-input correctness on every program's validation data") for n in report["notes"])
    # the programs' own test-set accuracy is still the compared metric
    assert report["metric"] == "accuracy" and report["fixed"]["values"] and len(report["fixed"]["values"]) == 3
