"""Keras 2-era habits real programs have, trained through ``mutreal run`` (slow: real trainings).

Own programs, scikit-learn data, seconds each, laid out the way a benchmark lays out a bug
(``<bug>/fixed/<program>.py`` beside its own helper module):

* a helper module imports Keras 2's sub-modules (``keras.layers.normalization``,
  ``keras.layers.recurrent``): their names resolve in the package Keras 2 re-exported them from;
* ``fit_generator(generator=...)``: rewritten to ``fit(x=...)``;
* the program writes ``fixed/result.json``, a path relative to the bug's folder (its harness ran
  ``python fixed/train.py`` from there), and reads its data beside itself: both reach its folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.cli import main

pytestmark = pytest.mark.slow

HELPERS = """\
from keras.layers.core import Dense
from keras.layers.normalization import BatchNormalization
from keras.layers.recurrent import LSTM  # imported only, as old helper modules do
from keras.models import Sequential


def build():
    model = Sequential()
    model.add(Dense(16, input_dim=4, activation="relu"))
    model.add(BatchNormalization())
    model.add(Dense(3, activation="softmax"))
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    return model
"""

TRAIN = """\
import json

import numpy as np
from keras.utils import np_utils

import helpers

data = np.loadtxt("iris.csv", delimiter=",")
x, y = data[:, :4].astype("float32"), np_utils.to_categorical(data[:, 4], 3)


def batches():
    while True:
        for start in range(0, len(x), 30):
            yield x[start:start + 30], y[start:start + 30]


model = helpers.build()
history = model.fit_generator(generator=batches(), steps_per_epoch=5, epochs=3, verbose=0)
file = open(file="fixed/result.json", mode="w")
json.dump({"loss": [float(v) for v in history.history["loss"]]}, file)
file.close()
with open("fixed/result.json") as handle:
    assert len(json.load(handle)["loss"]) == 3
"""


def test_a_keras2_era_bug_folder_program_trains(tmp_path: Path):
    from sklearn.datasets import load_iris

    folder = tmp_path / "bug" / "fixed"
    folder.mkdir(parents=True)
    iris = load_iris()
    rows = [",".join(f"{v:g}" for v in [*features, label]) for features, label in zip(iris.data, iris.target, strict=True)]
    (folder / "iris.csv").write_text("\n".join(rows) + "\n")
    (folder / "helpers.py").write_text(HELPERS)
    program = folder / "train.py"
    program.write_text(TRAIN)
    result = CliRunner().invoke(main, ["run", str(program), "--runs", "1", "--jobs", "1", "--json", "-q"])
    run = json.loads(result.stdout)["runs"][0]
    assert run["outcome"] == "ok", (run["error_type"], run["error_message"])
    assert run["framework"] == "tf_keras"
    assert not (folder / "result.json").exists() and not (folder / "fixed").exists()  # the original untouched

WRAPPED = """\
import numpy as np
from keras import backend as K
from keras.layers import Dense, Lambda
from keras.models import Sequential
from keras.utils import np_utils
from keras.wrappers.scikit_learn import KerasClassifier
from sklearn.datasets import load_iris
from sklearn.model_selection import KFold, cross_val_score

session = K.get_session()  # Keras 2's backend API
data = load_iris()
y = np_utils.to_categorical(data.target, 3)


def baseline_model():
    model = Sequential()
    model.add(Dense(8, activation="relu"))  # no input shape: Keras 2 built it on the first batch
    model.add(Lambda(lambda x: K.tf.clip_by_value(x, K.constant(0.0), K.constant(6.0))))  # Keras <= 2.2's K.tf
    model.add(Dense(3, activation="softmax"))
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    return model


estimator = KerasClassifier(build_fn=baseline_model, nb_epoch=2, batch_size=16, verbose=0)
scores = cross_val_score(estimator, data.data, y, cv=KFold(n_splits=3, shuffle=True, random_state=0),
                         error_score="raise")
print("accuracy", scores.mean())
"""


def test_keras2_backend_names_and_the_scikit_learn_wrapper_run_on_keras2(tmp_path: Path):
    """``K.get_session``, ``K.tf`` and ``KerasClassifier(build_fn=, nb_epoch=)`` (SciKeras on tf_keras), with a
    model written without an input shape (SciKeras counted its outputs before the first batch built it)."""
    program = tmp_path / "wrapped.py"
    program.write_text(WRAPPED)
    result = CliRunner().invoke(main, ["run", str(program), "--runs", "1", "--jobs", "1", "--json", "-q"])
    run = json.loads(result.stdout)["runs"][0]
    assert run["outcome"] == "ok", (run["error_type"], run["error_message"])
    assert run["framework"] == "tf_keras"
