"""Which data a program that never evaluates is judged on, input by input (no TensorFlow needed).

The order is the one the issue asks for: a fit's ``validation_data``, else the share that
``validation_split`` holds out (Keras takes the last ``floor(n * (1 - split))``-th on), else the
training arrays; a generator is never read twice. Regression outputs stay numbers.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from mutreal.execution import per_input
from mutreal.execution.records import EvaluateRecord


def _sources(call: dict) -> list[tuple[str, int]]:
    return [(source, len(y) if y is not None else -1) for source, _x, y in per_input.held_out_candidates(call)]


def test_validation_data_then_training_arrays() -> None:
    x, y = np.zeros((50, 3)), np.arange(50)
    call = {"x": x, "y": y, "validation_data": (np.ones((7, 3)), np.ones(7), np.ones(7))}  # with sample weights
    assert _sources(call) == [("validation", 7), ("training", 50)]
    assert _sources({"x": x, "y": y}) == [("training", 50)]


def test_data_written_as_nested_lists_is_one_array() -> None:
    # a program that fits on Python lists (x = [[73., 80.], ...]) has training data like any other
    rows, targets = [[73.0, 80.0, 75.0], [93.0, 88.0, 93.0]], [[152.0], [185.0]]
    assert _sources({"x": rows, "y": targets}) == [("training", 2)]
    assert per_input.as_numpy(rows).shape == (2, 3)
    assert per_input.as_numpy([np.zeros((2, 3)), np.zeros((2, 1))]) is None  # two inputs: no single array
    assert per_input.as_numpy([[1.0, 2.0], [3.0]]) is None  # ragged
    assert per_input.as_numpy([1, 2, 3]).tolist() == [1, 2, 3]


@given(st.integers(2, 400), st.floats(0.01, 0.99))
def test_the_validation_split_holds_out_the_last_share_as_keras_does(n: int, split: float) -> None:
    x, y = np.arange(n * 2).reshape(n, 2), np.arange(n)
    candidates = per_input.held_out_candidates({"x": x, "y": y, "validation_split": split})
    split_at = int(math.floor(n * (1.0 - split)))  # keras.src.trainers.data_adapters.array_slicing
    held = [c for c in candidates if c[0] == "validation"]
    if 0 < split_at < n:
        assert len(held) == 1 and held[0][2].tolist() == list(range(split_at, n))
        assert held[0][1].shape == (n - split_at, 2)
    else:
        assert held == []
    assert candidates[-1][0] == "training"


def test_a_generator_is_never_a_candidate() -> None:
    batches = ((np.zeros((2, 3)), np.zeros(2)) for _ in range(3))
    assert per_input.held_out_candidates({"x": batches, "y": None}) == []


class _EndlessBatches:
    """Like Keras' DirectoryIterator: a Sequence (len, indexable) whose iteration never ends."""

    def __init__(self) -> None:
        self.read = 0

    def __len__(self) -> int:
        return 3

    def __getitem__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        self.read += 1
        return np.zeros((2, 3)), np.zeros(2)

    def __iter__(self) -> _EndlessBatches:
        return self

    def __next__(self) -> tuple[np.ndarray, np.ndarray]:
        self.read += 1
        if self.read > 1000:  # fail the test instead of hanging it
            raise AssertionError("the batches were read as if they were an array")
        return np.zeros((2, 3)), np.zeros(2)


def test_a_sequence_of_batches_is_never_read_as_an_array() -> None:
    # SFData 64435490 fits on flow_from_directory's iterator: reading it into an array ran for ever
    batches = _EndlessBatches()
    assert per_input.as_numpy(batches) is None
    validation = _EndlessBatches()
    assert per_input.held_out_candidates({"x": batches, "y": None, "validation_data": validation}) == []
    assert batches.read == 0 and validation.read == 0


def test_regression_outputs_stay_numbers_even_when_they_look_like_classes() -> None:
    outputs = np.array([[0.2], [0.9], [0.4]], dtype="float32")  # in [0, 1]: a classifier's would be thresholded
    labels = np.array([0.0, 1.0, 1.0])
    regression = per_input.per_input_result(outputs, labels, {"kind": "regression"})
    assert regression["prediction_kind"] == "value"
    assert regression["predictions"] == [float(np.float32(v)) for v in (0.2, 0.9, 0.4)]
    assert regression["labels"] == [0.0, 1.0, 1.0]
    classifier = per_input.per_input_result(outputs, labels, {"kind": "classification"})
    assert classifier["prediction_kind"] == "class" and classifier["predictions"] == [0, 1, 0]
    wide = per_input.per_input_result(np.zeros((3, 2)), np.zeros((3, 2)), {"kind": "regression"})
    assert wide == {"n_inputs": 3}  # two numbers per input: no single tolerance rule


def test_correctness_needs_labels_paired_with_predictions() -> None:
    assert per_input.has_correctness(EvaluateRecord(predictions=[1, 0], labels=[1, 1]))
    assert not per_input.has_correctness(EvaluateRecord(predictions=[1, 0]))
    assert not per_input.has_correctness(EvaluateRecord(results={"accuracy": 0.5}))


def test_a_diverged_output_predicts_no_class_and_is_wrong() -> None:
    """A model whose outputs are NaN in some runs (real programs train on ``np.empty`` arrays) is wrong
    on those inputs; it does not turn the run's per-input record into regression values."""
    nan = float("nan")
    assert per_input.to_classes(np.array([[0.2], [nan], [0.9]]), is_label=False) == ([0, -1, 1], "class")
    assert per_input.to_classes(np.array([[0.1, 0.9], [nan, nan]]), is_label=False) == ([1, -1], "class")
    result = per_input.per_input_result(np.full((3, 1), nan), np.array([1.0, 0.0, 0.0]))
    assert result["prediction_kind"] == "class" and result["predictions"] == [-1, -1, -1]
    record = EvaluateRecord(**{k: v for k, v in result.items() if k != "n_inputs"})
    assert record.correct == [False, False, False]


def test_named_inputs_count_their_rows_not_their_names() -> None:
    class Model:  # a model of two named inputs, called by the framework's predict only
        def __call__(self, inputs, training=False):
            raise TypeError("named inputs: eager calls are not tried")

    def predict(model, x, batch_size):
        return np.full((len(x["image"]), 1), 0.7)

    x = {"image": np.zeros((5, 3)), "meta": np.zeros((5, 2))}
    unlabelled = per_input.per_input_arrays(Model(), x, None, 2, predict)
    assert unlabelled["n_inputs"] == 5 and unlabelled["predictions"] == [1] * 5
    labelled = per_input.per_input_arrays(Model(), x, np.array([1, 0, 1, 1, 0]), 2, predict)
    assert labelled["labels"] == [1, 0, 1, 1, 0]


def test_one_logit_of_a_known_classifier_is_thresholded_at_zero() -> None:
    """Dense(1) with BinaryCrossentropy(from_logits=True): outputs outside [0, 1] are logits, and the
    classifier's inputs get classes (a positive logit is class 1), not regression values."""
    logits = np.array([[-2.5], [0.3], [4.0], [-0.1]], dtype="float32")
    labels = np.array([0, 1, 1, 1])
    task = {"kind": "classification", "loss": "binarycrossentropy", "activation": "linear", "from_logits": True}
    result = per_input.per_input_result(logits, labels, task)
    assert result["prediction_kind"] == "class" and result["predictions"] == [0, 1, 1, 0]
    inside = per_input.per_input_result(np.array([[0.2], [0.7]]), np.array([1, 1]), task)
    assert inside["predictions"] == [1, 1]  # logits in [0, 1] are still logits: positive, class 1
    record = EvaluateRecord(**{k: v for k, v in result.items() if k != "n_inputs"})
    assert record.correct == [True, True, True, False]
    unknown = per_input.per_input_result(logits, labels)  # task not read: numbers stay numbers
    assert unknown["prediction_kind"] == "value"
    hinge = {"kind": "classification", "loss": "hinge", "activation": "linear"}  # labels -1 and 1: no 0/1 classes
    assert per_input.per_input_result(logits, np.array([-1, 1, 1, 1]), hinge)["prediction_kind"] == "value"


def test_one_output_unit_of_a_loss_given_by_name_is_thresholded_at_a_half_as_keras_accuracy() -> None:
    """Dense(1) (linear) compiled with ``loss="binary_crossentropy"``: the loss reads the output as a
    probability (Keras clips it) and Keras' accuracy thresholds it at 0.5; mutreal's classes must
    agree with the program's own accuracy (they read 0 as the threshold before: an output of 0.3 was
    class 1 to mutreal and class 0 to Keras)."""
    outputs = np.array([[-2.5], [0.3], [4.0], [0.6]], dtype="float32")
    labels = np.array([0, 0, 1, 1])
    task = {"kind": "classification", "loss": "binary_crossentropy", "activation": "linear", "from_logits": False}
    result = per_input.per_input_result(outputs, labels, task)
    assert result["predictions"] == [0, 0, 1, 1]
    record = EvaluateRecord(**{k: v for k, v in result.items() if k != "n_inputs"})
    assert record.correct == [True] * 4
