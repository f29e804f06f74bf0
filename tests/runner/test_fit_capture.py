"""The in-worker capture helpers that need no TensorFlow: labels/predictions to classes, dataset paths."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mutreal.execution import fit_capture, per_input
from mutreal.execution.records import EvaluateRecord


def test_probabilities_and_one_hot_become_class_indices():
    probabilities = np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1]])
    assert per_input.to_classes(probabilities, is_label=False) == ([1, 0], "class")
    assert per_input.to_classes(np.eye(3)[[2, 0]], is_label=True) == ([2, 0], "class")
    assert per_input.to_classes(np.array([[0.2], [0.9]]), is_label=False) == ([0, 1], "class")
    assert per_input.to_classes(np.array([1.0, 0.0]), is_label=True) == ([1, 0], "class")
    values, kind = per_input.to_classes(np.array([[3.5], [-1.0]]), is_label=False)
    assert kind == "value" and values == [3.5, -1.0]


@given(
    arrays(np.float32, st.tuples(st.integers(1, 20), st.integers(2, 6)), elements=st.floats(0, 1, width=32))
)
def test_argmax_classes_are_in_range(outputs):
    classes, kind = per_input.to_classes(outputs, is_label=False)
    assert kind == "class" and len(classes) == len(outputs)
    assert all(0 <= c < outputs.shape[1] for c in classes)


MULTI_LABEL = {"kind": "classification", "loss": "binary_crossentropy", "activation": "sigmoid"}


@given(
    st.integers(1, 12).flatmap(
        lambda n: st.tuples(
            arrays(np.float64, (n, 4), elements=st.floats(0, 1)),
            arrays(np.int64, (n, 4), elements=st.integers(0, 1)),
        )
    )
)
def test_a_multi_label_model_is_right_only_where_every_unit_is(case):
    """Several sigmoid units read by a binary cross-entropy, labels of 0s and 1s: an input is right when
    each unit above 0.5 is exactly a 1 of its label (the argmax of a row would name one unit of many)."""
    outputs, labels = case
    labels[0] = [1, 1, 0, 0]  # one row with two labels: a multi-label task
    result = per_input.per_input_result(outputs, labels, MULTI_LABEL)
    record = EvaluateRecord(predictions=result["predictions"], labels=result["labels"],
                            prediction_kind=result["prediction_kind"])  # fmt: skip
    assert record.correct == [bool(((o > 0.5) == (y == 1)).all()) for o, y in zip(outputs, labels, strict=True)]


def test_one_hot_labels_and_other_losses_keep_the_argmax_rule():
    outputs = np.array([[0.9, 0.2, 0.7], [0.1, 0.6, 0.1]])
    assert per_input.per_input_result(outputs, np.eye(3)[[0, 1]], MULTI_LABEL)["predictions"] == [0, 1]
    softmax = {"kind": "classification", "loss": "categorical_crossentropy", "activation": "softmax"}
    assert per_input.per_input_result(outputs, np.array([[1, 0, 1], [0, 0, 0]]), softmax)["predictions"] == [0, 1]
    # the labels decide, not the loss: sigmoid units trained with MSE are judged as with a cross-entropy
    mse = {"kind": "classification", "loss": "mse", "activation": "sigmoid"}
    assert per_input.per_input_result(outputs, np.array([[1, 0, 1], [0, 0, 0]]), mse)["predictions"] == [5, 2]
    # a row that diverged predicts no label set: wrong whatever its labels
    diverged = per_input.per_input_result(np.array([[np.nan, 0.9], [0.9, 0.9]]), np.array([[0, 0], [1, 1]]), MULTI_LABEL)
    assert diverged["predictions"] == [-1, 3] and diverged["labels"] == [0, 3]


def test_absent_keras_dataset_names_the_file_and_where_to_place_it(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setitem(fit_capture._ORIGINALS, "get_file", lambda *a, **k: "served")
    origin = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
    with pytest.raises(fit_capture.MissingDatasetError) as raised:
        fit_capture._patched_get_file("mnist.npz", origin=origin)
    message = str(raised.value)
    assert str(tmp_path / "datasets" / "mnist.npz") in message and origin in message
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "mnist.npz").write_bytes(b"x")
    assert fit_capture._patched_get_file("mnist.npz", origin=origin) == "served"  # cached files are served


def test_remote_lookups_are_refused_local_ones_allowed(monkeypatch):
    monkeypatch.setitem(fit_capture._ORIGINALS, "getaddrinfo", lambda host, *a, **k: [("local", host)])
    with pytest.raises(fit_capture.NetworkBlockedError, match="example.org"):
        fit_capture._blocked_getaddrinfo("example.org", 443)
    assert fit_capture._blocked_getaddrinfo("localhost", 80) == [("local", "localhost")]


def test_steps_of_a_compiled_training_loop_are_counted_by_the_optimizer():
    """Inside a tf.function (train_on_batch, a compiled custom step) apply_gradients runs in Python
    once per trace: five steps counted as one would make a program that trained and then crashed look
    like one that crashed before training (and its other seeds would not be trained)."""
    from mutreal.execution import fit_capture

    class Optimizer:
        def __init__(self):
            self.iterations = 0

        def apply_gradients(self, grads):
            self.iterations += 1

    raw = Optimizer.apply_gradients
    fit_capture._patch_steps(Optimizer, "apply_gradients")
    fit_capture.start_capture()
    optimizer = Optimizer()
    optimizer.apply_gradients([])  # the trace: the Python body runs once
    for _ in range(4):  # the compiled steps: the graph runs, Python does not
        raw(optimizer, [])
    assert fit_capture.CURRENT.steps_outside_fit == 1
    assert fit_capture.finish_capture(completed=False)["steps_outside_fit"] == 5


def test_a_metric_that_is_not_one_number_is_left_out_not_a_crash():
    """keras.metrics.F1Score() gives one value per class: recording it as a float raised inside the
    program's own fit and evaluate, so a program that runs outside mutreal crashed inside it."""
    import numpy as np

    from mutreal.execution import fit_capture

    per_class = np.array([0.5, 0.25])
    history = {"loss": [0.9, 0.7], "f1_score": [per_class, per_class], "accuracy": [np.float32(0.5), 0.75]}
    assert fit_capture._scalar_history(history) == {"loss": [0.9, 0.7], "accuracy": [0.5, 0.75]}
    assert fit_capture._scalar_logs({"loss": 0.7, "f1_score": per_class}) == {"loss": 0.7}
