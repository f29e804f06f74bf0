"""Per-input predictions when a program evaluates on a generator, a tf.data dataset or a PyDataset.

Real benchmark programs often evaluate on streams rather than arrays; per-input killing (Kim et al.'s
Fisher rule, killing probability) needs the predictions anyway. The check that cannot pass by chance:
the share of inputs predicted correctly equals the accuracy ``evaluate`` itself reported."""

from __future__ import annotations

import pytest

from mutreal.execution import run_campaign

HEAD = """
import numpy as np
import keras

rng = np.random.default_rng(0)
x = rng.normal(size=(300, 6)).astype("float32")
y = (x[:, 0] - x[:, 2] > 0).astype("int64")
model = keras.Sequential([keras.Input(shape=(6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x[:200], y[:200], epochs=2, batch_size=20, verbose=0)
x_test, y_test = x[200:], y[200:]
"""

GENERATOR = (
    HEAD
    + """
def batches():
    while True:  # an endless generator, as Keras-era programs write them: steps bounds the evaluate
        for i in range(0, 100, 25):
            yield x_test[i:i + 25], y_test[i:i + 25]

model.evaluate(batches(), steps=4, verbose=0)
"""
)

TF_DATA = (
    HEAD
    + """
import tensorflow as tf

model.evaluate(tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(32), verbose=0)
"""
)

PY_DATASET = (
    HEAD
    + """
class TestSet(keras.utils.PyDataset):
    def __len__(self):
        return 5

    def __getitem__(self, index):
        return x_test[index * 20:(index + 1) * 20], y_test[index * 20:(index + 1) * 20]

model.evaluate(TestSet(), verbose=0)
"""
)


@pytest.mark.slow
def test_stream_evaluations_get_per_input_predictions(write_program) -> None:
    programs = [
        write_program("generator.py", GENERATOR),
        write_program("tf_data.py", TF_DATA),
        write_program("py_dataset.py", PY_DATASET),
    ]
    records = run_campaign(programs, runs=1, jobs=1, progress=False)
    assert len(records) == len(programs)  # one run of each: the loop below checks every one
    for record in records:
        assert record.outcome == "ok", (record.program, record.error_message)
        evaluation = record.last_evaluation
        assert evaluation.n_inputs == 100, record.program
        assert evaluation.prediction_kind == "class" and len(evaluation.labels) == 100
        share = sum(record.correct) / len(record.correct)
        assert share == pytest.approx(evaluation.results["accuracy"], abs=1e-6), record.program
