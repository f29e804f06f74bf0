"""Helpers of the HOM and operator-validation tests: own small Keras subjects and bug pairs.

The programs are written here (never copied from a benchmark): a Sequential keras-2-style
classifier whose activations, loss, learning rate, epochs and batch size a test can set, and a
tf.keras functional one, so that real-fault pairs and synthetic results have known contents.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mutreal.mutation.operators.hyperparameters import ChangeLearningRate
from mutreal.operator_catalogue import OperatorSpec, load_catalogue

SEQUENTIAL = '''"""Digits classifier (test subject)."""
from keras.layers import Dense, Dropout
from keras.models import Sequential
from keras.optimizers import Adam
from sklearn.datasets import load_digits

data = load_digits()
x_train, y_train = data.data / 16.0, data.target

model = Sequential()
model.add(Dense(64, activation="{a0}", input_dim=64))
model.add(Dense(32, activation="{a1}"))
model.add(Dropout(0.2))
model.add(Dense(10, activation="{a2}"))
model.compile(optimizer=Adam(learning_rate={lr}), loss="{loss}", metrics=["accuracy"])
model.fit(x_train, y_train, epochs={epochs}, batch_size={batch}, verbose=0)
'''

FUNCTIONAL = '''"""Wine classifier with the functional API (test subject)."""
import tensorflow as tf
from sklearn.datasets import load_wine

data = load_wine()
inputs = tf.keras.Input(shape=(13,))
h = tf.keras.layers.Dense(16, activation="relu")(inputs)
h = tf.keras.layers.Dense(8, activation="tanh")(h)
outputs = tf.keras.layers.Dense(3, activation="softmax")(h)
model = tf.keras.Model(inputs=inputs, outputs=outputs)
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.01), loss="categorical_crossentropy")
model.fit(data.data, data.target, epochs=40, batch_size=16, verbose=0)
'''

DEFAULTS: dict[str, Any] = {
    "a0": "relu",
    "a1": "relu",
    "a2": "softmax",
    "lr": 0.001,
    "loss": "categorical_crossentropy",
    "epochs": 20,
    "batch": 32,
}


def sequential(**changes: Any) -> str:
    """The Sequential subject with some values changed."""
    return SEQUENTIAL.format(**{**DEFAULTS, **changes})


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def component(
    code: str,
    element: str,
    buggy: str | None,
    fixed: str | None,
    deepcrime: str | None = None,
    simulable: bool = True,
) -> dict[str, Any]:
    """A results component in classify's direction (before = buggy, after = fixed)."""
    return {
        "code": code,
        "deepcrime": deepcrime or code,
        "simulable": simulable,
        "element": element,
        "before": buggy,
        "after": fixed,
    }


def result_row(bug_id: str, components: Sequence[dict[str, Any]], status: str = "ok") -> dict[str, Any]:
    return {
        "id": bug_id,
        "benchmark": "synthetic",
        "status": status,
        "order": len(components),
        "simulable": all(c["simulable"] for c in components) and bool(components),
        "components": list(components),
    }


def write_results(path: Path, rows: Iterable[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


class PluginLearningRate(ChangeLearningRate):
    """A plugin's own learning-rate operator: its own id and catalogue entry, HLR's behaviour."""

    id = "XLR"

    @property
    def spec(self) -> OperatorSpec:
        return dataclasses.replace(load_catalogue()["HLR"], id="XLR", name="Plugin learning rate")
