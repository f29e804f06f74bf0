"""A reconstructing mutant never writes a loss without the output layer it was written for.

Own pairs on scikit-learn's breast-cancer data: the fixed program has a 2-unit softmax output and
sparse categorical cross-entropy, the buggy one a 1-unit sigmoid output and binary cross-entropy
(the shape of DeepLocalize-SO 50481178). No operator changes a layer's units (LCN), so a partial
reconstruction could write the buggy loss on the fixed output, which does not fit the integer
labels: a mutant that dies before its first epoch. The loss change is left out and the set says
why; the activation change, which trains, is still made. The slow test trains the loss-only edit
once to show the premise: it is stillborn.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mutreal.campaigns.mutants import reconstruct_mutants
from mutreal.mutation.reconstruct import reconstruct_pair

PROGRAM = """\
import keras
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

data = load_breast_cancer()
x = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
x_train, x_test, y_train, y_test = train_test_split(x, data.target, test_size=0.25, random_state=3)
model = keras.Sequential([keras.Input(shape=(30,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense({units}, activation="{activation}")])
model.compile(optimizer="adam", loss="{loss}", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=2, batch_size=32, verbose=0)
print(model.evaluate(x_test, y_test, verbose=0))
"""
FIXED = {"units": 2, "activation": "softmax", "loss": "sparse_categorical_crossentropy"}


def _pair(tmp_path: Path, **buggy: object) -> tuple[str, str]:
    (tmp_path / "fixed.py").write_text(PROGRAM.format(**FIXED))
    (tmp_path / "buggy.py").write_text(PROGRAM.format(**(FIXED | buggy)))
    return str(tmp_path / "buggy.py"), str(tmp_path / "fixed.py")


def test_a_loss_whose_output_change_no_operator_makes_is_left_out_and_said(tmp_path: Path) -> None:
    buggy, fixed = _pair(tmp_path, units=1, activation="sigmoid", loss="binary_crossentropy")
    made = reconstruct_mutants("own", "own", [buggy], [fixed], fixed, tmp_path / "m")
    assert [m.operator for m in made.mutants] == ["ACH"]  # the activation alone, no LCH, no HOM
    text = Path(made.mutants[0].file).read_text()
    assert '"sigmoid"' in text and "sparse_categorical_crossentropy" in text
    left = {c["code"]: c["reason"] for c in made.mutants[0].provenance["not_reconstructed"]}
    assert set(left) == {"LCN", "LCH"} and "stillborn" in left["LCH"] and "LCN at" in left["LCH"]
    assert any("stillborn" in note for note in made.notes)


def test_a_fault_of_only_such_a_loss_and_its_output_gets_no_mutant_and_the_reason(tmp_path: Path) -> None:
    buggy, fixed = _pair(tmp_path, units=1, loss="binary_crossentropy")
    made = reconstruct_mutants("own", "own", [buggy], [fixed], fixed, tmp_path / "m")
    assert made.mutants == [] and "LCH at compile.loss" in made.reason and "stillborn" in made.reason
    assert reconstruct_pair(buggy, fixed, str(tmp_path / "p"), partial=True).status == "not_simulable"


def test_a_loss_change_on_an_unchanged_output_is_still_made(tmp_path: Path) -> None:
    buggy, fixed = _pair(tmp_path, loss="categorical_hinge")
    made = reconstruct_mutants("own", "own", [buggy], [fixed], fixed, tmp_path / "m")
    assert [m.operator for m in made.mutants] == ["LCH"] and made.mutants[0].provenance["exact"]


#: the same fixed program in Keras 2 spelling (mutreal trains it on tf_keras, whose binary
#: cross-entropy differs from Keras 3's)
KERAS2 = """\
from keras.models import Sequential
from keras.layers import Dense
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

data = load_breast_cancer()
x = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
x_train, x_test, y_train, y_test = train_test_split(x, data.target, test_size=0.25, random_state=3)
model = Sequential()
model.add(Dense(8, input_dim=30, activation="relu"))
model.add(Dense(2, activation="softmax"))
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, nb_epoch=2, batch_size=32, verbose=0)
print(model.evaluate(x_test, y_test, verbose=0))
"""


@pytest.mark.slow
def test_the_loss_alone_on_the_fixed_output_is_stillborn(tmp_path: Path, mutreal_command: str) -> None:
    """The premise of the rule, trained once on each Keras (one campaign): the buggy loss on the
    fixed 2-unit output crashes before training, on Keras 3 and on tf_keras (Keras 2 spelling)."""
    lone = {"keras3": tmp_path / "keras3.py", "keras2": tmp_path / "keras2.py"}
    lone["keras3"].write_text(PROGRAM.format(**FIXED).replace("sparse_categorical_crossentropy", "binary_crossentropy"))
    lone["keras2"].write_text(KERAS2.replace("sparse_categorical_crossentropy", "binary_crossentropy"))
    done = subprocess.run([mutreal_command, "run", *map(str, lone.values()), "--runs", "1", "--jobs", "1", "--json",
                           "-q"], capture_output=True, text=True, timeout=600, cwd=tmp_path)  # fmt: skip
    runs = {Path(r["program"]).stem: r for r in json.loads(done.stdout)["runs"]}
    assert {era: r["outcome"] for era, r in runs.items()} == {"keras3": "crash", "keras2": "crash"}, runs
    assert runs["keras2"]["framework"] == "tf_keras"
