"""Fixtures of the runner tests: tiny Keras programs written into a temporary folder."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

#: A small classifier on seeded random data: trains in about a second, uses dropout and shuffling
#: so that its numbers depend on every seed the runner sets.
TINY_PROGRAM = """
import numpy as np
import keras

rng = np.random.default_rng(0)
x = rng.normal(size=(240, 8)).astype("float32")
y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype("int64")
model = keras.Sequential([
    keras.Input(shape=(8,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dropout(0.2),
    keras.layers.Dense(2, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x[:180], y[:180], epochs=EPOCHS, batch_size=16, shuffle=True, verbose=0)
model.evaluate(x[180:], y[180:], verbose=0)
"""


def _tiny_program(epochs: int = 2, comment: str = "") -> str:
    """The text of :data:`TINY_PROGRAM` with ``epochs`` and an optional leading comment."""
    text = TINY_PROGRAM.replace("EPOCHS", str(epochs))
    return (f"# {comment}\n" if comment else "") + text


@pytest.fixture
def write_program(tmp_path: Path):
    """Write a program text (dedented) into the test's folder and return its path."""

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


@pytest.fixture
def tiny_program():
    """``tiny_program(epochs, comment)`` -> the text of a small seeded classifier (see TINY_PROGRAM)."""
    return _tiny_program


@pytest.fixture
def bwrap():
    """The bwrap sandbox choice on this machine; in CI (``CI=true``) a missing bubblewrap fails the
    test instead of skipping it."""
    import os

    from mutreal.execution import sandbox

    works, _user_namespace, why = sandbox.probe()
    if not works:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"bubblewrap is required in CI: {why}")
        pytest.skip(f"bubblewrap does not work here: {why}")
    return sandbox.resolve("bwrap")
