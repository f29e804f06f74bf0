"""Fixtures of the runner tests: tiny Keras programs written into a temporary folder."""

from __future__ import annotations

import gzip
import struct
import textwrap
from pathlib import Path

import numpy as np
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


def _write_idx(folder: Path, train: int = 20, test: int = 6, rows: int = 28, gz: bool = True) -> np.ndarray:
    """MNIST's four idx files in ``folder``: image ``i`` is filled with the value ``i * 10`` (so an
    image tells its index and its label ``i % 10``); returns the train images' pixel values."""
    folder.mkdir(parents=True, exist_ok=True)
    for prefix, count in (("train", train), ("t10k", test)):
        pixels = np.repeat(np.arange(count, dtype=np.uint8) * 10, rows * rows)
        labels = (np.arange(count) % 10).astype(np.uint8)
        images = struct.pack(">IIII", 2051, count, rows, rows) + pixels.tobytes()
        tags = struct.pack(">II", 2049, count) + labels.tobytes()
        for name, data in ((f"{prefix}-images-idx3-ubyte", images), (f"{prefix}-labels-idx1-ubyte", tags)):
            if gz:
                (folder / f"{name}.gz").write_bytes(gzip.compress(data))
            else:
                (folder / name).write_bytes(data)
    return np.arange(train) * 10


@pytest.fixture
def mnist_idx():
    """``mnist_idx(folder, train=20, test=6, rows=28, gz=True)``: MNIST's four idx files written into
    ``folder`` (image ``i`` filled with ``i * 10``, label ``i % 10``; see :func:`_write_idx`)."""
    return _write_idx
