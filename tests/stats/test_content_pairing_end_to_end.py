"""``mutreal compare`` on programs that split their data without a seed: KP, coupling and IoU by input.

The programs are written here (not taken from a benchmark): iris, split with ``train_test_split``
and no ``random_state``, as many Stack Overflow programs do. mutreal seeds run k of every program
alike, so the fixed, buggy and mutant programs test on the same 45 inputs in seed k, and on other
ones in seed k'. Before inputs were paired by content, compare gave no KP for such a bug ("per-input
correctness differs between the runs of one program"). Real trainings through the entry point: slow.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

FIXED = """
import keras
from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split

x, y = load_iris(return_X_y=True)
x = (x - x.mean(axis=0)) / x.std(axis=0)
x_train, x_test, y_train, y_test = train_test_split(x.astype("float32"), y, test_size=0.3)
model = keras.Sequential([
    keras.Input(shape=(4,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer=keras.optimizers.Adam(RATE), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=20, batch_size=16, verbose=0)
print(model.evaluate(x_test, y_test, verbose=0))
"""


def test_compare_pairs_unseeded_splits_by_input_and_gives_coupling(tmp_path: Path) -> None:
    (tmp_path / "mutants").mkdir()
    (tmp_path / "fixed.py").write_text(FIXED.replace("RATE", "0.01"), encoding="utf-8")
    (tmp_path / "buggy.py").write_text(FIXED.replace("RATE", "0.0001"), encoding="utf-8")  # a rate too low
    (tmp_path / "mutants" / "lower_rate.py").write_text(FIXED.replace("RATE", "0.0002"), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mutreal", "compare", "--buggy", "buggy.py", "--fixed", "fixed.py",
         "--mutants", "mutants", "--runs", "2", "--jobs", "1", "--store", "runs.sqlite", "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    data = json.loads(result.stdout)
    assert not any("differs between the runs" in note for note in data["notes"]), data["notes"]
    assert data["fixed"]["summary"]["n"] == 2 and data["per_input"]["n_inputs"] == 45
    pairing = data["per_input"]["pairing"]
    assert pairing.startswith("by input content: the runs evaluated other inputs")
    kp = data["fault"]["kp"]
    # two splits of 45 of the 150 flowers: inputs seen in one run or in both, n 1 or 2 each
    assert 45 < kp["n_inputs"] <= 90 and f"{kp['n_inputs']} distinct inputs" in pairing
    assert set(kp["n"]) <= {1, 2} and sum(kp["n"]) == 90
    assert all(v in ((0.0, 1.0) if n == 1 else (0.0, 0.5, 1.0)) for v, n in zip(kp["kp"], kp["n"], strict=True))
    assert kp["inputs_killing"] > 0  # a rate a hundred times too low leaves inputs wrong the fixed gets right
    (mutant,) = data["mutants"]
    assert mutant["kp"]["n"] == kp["n"]  # the mutant's runs of seed k tested the same inputs as the fault's
    assert mutant["coupling_strength"] is not None and 0.0 < mutant["coupling_strength"] <= 1.0
    assert mutant["detectability_iou"] is not None and 0.0 < mutant["detectability_iou"] <= 1.0
    assert data["fault"]["fisher"]["pool_size"] == kp["n_inputs"]
