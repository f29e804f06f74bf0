"""compare counts the runs whose per-input classes do not give the program's own accuracy.

KP, coupling and IoU are counted from the classes mutreal reads off a model's outputs; where those
are not the classes Keras' accuracy counted, a realism figure measures something else than the
program's metric, and the row says so (``accuracy_disagreements``). Own records (the rule is pure)
and, trained, an own program whose output unit is an ELU trained with binary cross-entropy given
by name: its outputs leave [0, 1]; runner 5 read them as logits (class 1 above 0) while Keras'
accuracy thresholds at 0.5, and this count found it (issue 29: DeepLocalize-SO 44066044's ACH
mutants of the sigmoid output). Runner 6 thresholds such an output at 0.5 (a logit only with
``from_logits=True``), so the count is now 0 there.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.campaigns.compare import accuracy_disagreements
from mutreal.execution.records import EvaluateRecord, RunRecord


def _record(predictions: list[int], labels: list[int], accuracy: float, source: str = "evaluate") -> RunRecord:
    evaluation = EvaluateRecord({"loss": 0.5, "accuracy": accuracy}, predictions=predictions, labels=labels,
                                prediction_kind="class", n_inputs=len(labels), source=source)  # fmt: skip
    return RunRecord(key="k", program="p.py", seed=0, outcome="ok", evaluations=[evaluation])


pairs = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=40)


@settings(max_examples=100, deadline=None)
@given(pairs, st.integers(-3, 3))
def test_a_run_disagrees_when_its_accuracy_is_off_by_more_than_one_input(rows, shift):
    predictions, labels = [p for p, _ in rows], [y for _, y in rows]
    share = sum(p == y for p, y in rows) / len(rows)
    accuracy = share + shift / len(rows)
    assert accuracy_disagreements([_record(predictions, labels, accuracy)]) == int(abs(shift) > 1)
    # a record mutreal made after the program (no accuracy of the program's own) is never counted
    assert accuracy_disagreements([_record(predictions, labels, accuracy, source="validation")]) == 0


@pytest.mark.slow
def test_an_elu_output_trained_with_binary_crossentropy_agrees_with_keras_accuracy(
    tmp_path: Path, mutreal_command: str
) -> None:
    program = """\
import keras
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

data = load_breast_cancer()
x = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
x_train, x_test, y_train, y_test = train_test_split(x, data.target, test_size=0.3, random_state=1)
model = keras.Sequential([keras.Input(shape=(30,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="{activation}")])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs={epochs}, batch_size=32, verbose=0)
print(model.evaluate(x_test, y_test, verbose=0))
"""
    (tmp_path / "fixed.py").write_text(program.format(activation="sigmoid", epochs=5))
    (tmp_path / "buggy.py").write_text(program.format(activation="sigmoid", epochs=1))
    (tmp_path / "mutants" / "own").mkdir(parents=True)
    (tmp_path / "mutants" / "own" / "elu.py").write_text(program.format(activation="elu", epochs=5))
    (tmp_path / "m.csv").write_text(f"id,benchmark,buggy,fixed\nown,own,{tmp_path / 'buggy.py'},{tmp_path / 'fixed.py'}\n")
    done = subprocess.run([mutreal_command, "compare", "--manifest", "m.csv", "--mutants", "mutants", "--runs", "2",
                           "--jobs", "1", "--out", "rows.jsonl", "-q"],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (row,) = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    (elu,) = row["mutants"]
    # the ELU output is thresholded at 0.5, as Keras' accuracy does (runner 5 read it as a logit: >= 1 here)
    assert elu["accuracy_disagreements"] == 0, elu
    assert not any("per-input classes do not give" in note for note in row["notes"])  # sigmoid sides agree
