"""The compared metric follows the model's task: a regression model's accuracy is no metric.

Real programs compile regression models with ``metrics=['accuracy']``; Keras then reports an accuracy
of 0.0 in every run of both sides, and comparing it says "no difference". The task is read at run
time (loss, last activation) and the metric chosen for it; these tests pin the rules without
training (the slow tests in test_per_input_without_evaluate.py train real models).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mutreal.execution import model_task
from mutreal.execution.model_task import CLASSIFICATION, REGRESSION, choose_metric, task_from
from mutreal.execution.records import EvaluateRecord, FitRecord, select_metric

REGRESSION_TASK = {"kind": REGRESSION, "loss": "mse", "activation": "linear"}


def test_the_loss_and_last_activation_tell_the_task() -> None:
    assert task_from("sparse_categorical_crossentropy", "linear") == CLASSIFICATION  # logits: the loss decides
    assert task_from("mean_squared_error", "softmax") == CLASSIFICATION  # old programs: MSE on class scores
    assert task_from("mse", "sigmoid") == CLASSIFICATION
    assert task_from("mse", "linear") == REGRESSION
    assert task_from("mean_absolute_error", "relu") == REGRESSION
    assert task_from("huber", None) == REGRESSION
    assert task_from("my_loss", "linear") is None  # nothing known: no task, the old default applies
    assert task_from(None, None) is None


class _Loss:
    """A loss object as Keras 3 wraps a function (a name attribute)."""

    name = "mean_squared_error"


def test_loss_and_activation_names_are_read_from_objects() -> None:
    def relu(x):  # an activation function, named as Keras names its own
        return x

    class Dense:
        activation = relu

    class Dropout:
        pass

    class Model:
        loss = _Loss()
        layers = [Dense(), Dropout()]  # a trailing dropout is looked through

    task = model_task.read_task(Model())
    assert task == {"kind": REGRESSION, "loss": "mean_squared_error", "activation": "relu", "from_logits": False}


def test_an_activation_layer_at_the_end_is_the_last_activation() -> None:
    def linear(x):
        return x

    class Dense:
        activation = linear

    class Softmax:  # keras.layers.Softmax: the layer is the activation, it has no attribute for it
        pass

    class Model:
        loss = "mse"  # an old classifier trained with MSE on its class scores
        layers = [Dense(), Softmax()]

    assert model_task.read_task(Model()) == {"kind": CLASSIFICATION, "loss": "mse", "activation": "softmax",
                                             "from_logits": False}


def test_a_regression_model_compares_its_loss_not_its_accuracy() -> None:
    assert choose_metric(["loss", "accuracy"], REGRESSION_TASK) == "loss"
    assert choose_metric(["loss", "accuracy", "mae"], REGRESSION_TASK) == "mae"
    assert choose_metric(["loss", "accuracy"], {"kind": CLASSIFICATION}) == "accuracy"
    assert choose_metric(["loss", "accuracy"], None) == "accuracy"  # task unknown: the study's default


@given(st.lists(st.sampled_from(["loss", "accuracy", "acc", "auc", "precision", "mae", "mse", "val_accuracy"]),
                min_size=1, unique=True))  # fmt: skip
def test_no_classification_metric_is_ever_chosen_for_a_regression_model(names: list[str]) -> None:
    chosen = choose_metric(names, REGRESSION_TASK)
    if chosen is not None:
        assert not model_task.is_classification_metric(chosen)
        assert chosen in names
    else:  # only classification metrics and no loss: nothing fits
        assert all(model_task.is_classification_metric(n) for n in names)


def test_select_metric_reads_the_task_from_the_run_and_skips_per_input_records() -> None:
    evaluate = EvaluateRecord(results={"loss": 2.5, "accuracy": 0.0}, task=REGRESSION_TASK)
    after_fit = EvaluateRecord(source="training", predictions=[1.0], labels=[1.0], prediction_kind="value")
    assert select_metric([], [evaluate, after_fit]) == ("loss", 2.5, "evaluate")
    fit = FitRecord(history={"loss": [3.0, 2.0], "accuracy": [0.0, 0.0], "val_loss": [4.0, 3.5],
                             "val_accuracy": [0.0, 0.0]}, epochs=2, task=REGRESSION_TASK)  # fmt: skip
    assert select_metric([fit], [after_fit]) == ("loss", 3.5, "fit")  # the validation loss of the last epoch
    fit.task = {"kind": CLASSIFICATION}
    assert select_metric([fit], [after_fit]) == ("accuracy", 0.0, "fit")


def test_the_reason_names_the_metric_and_why() -> None:
    reason = model_task.metric_reason("loss", REGRESSION_TASK, ["loss", "accuracy"])
    assert reason.startswith("loss: a regression model (loss mse, last activation linear)")
    assert "accuracy" in reason and "no metric" in reason
    assert "chosen by the user" in model_task.metric_reason("accuracy", REGRESSION_TASK, given=True)
    assert "accuracy-like" in model_task.metric_reason("accuracy", {"kind": CLASSIFICATION, "loss": "bce"})
    assert model_task.metric_reason(None, None).startswith("no metric")


def test_from_logits_is_read_from_the_loss_objects_of_both_kerases() -> None:
    """Only a loss compiled with from_logits=True makes one output unit's class its sign
    (mutreal.execution.per_input); a loss named as a string reads probabilities."""
    import keras
    import tf_keras

    for losses in (keras.losses, tf_keras.losses):
        assert model_task.from_logits(losses.BinaryCrossentropy(from_logits=True))
        assert not model_task.from_logits(losses.BinaryCrossentropy())
    assert not model_task.from_logits("binary_crossentropy")
    assert model_task.from_logits({"out": keras.losses.BinaryCrossentropy(from_logits=True)})
