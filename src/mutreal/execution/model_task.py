"""What a trained model is for (classification or regression) and the metric that fits that task.

Real programs compile regression models with ``metrics=['accuracy']`` (DeepLocalize 48221692,
Defects4ML 073): Keras then reports an accuracy that is 0.0 in every run of both sides, and a
comparison of it says "no difference" where the study compared the loss. The task is read at run
time from the compiled model (:func:`read_task`, inside the worker: its loss and the activation of
its last layer) and travels in the fit and evaluate records; :func:`choose_metric` then picks the
compared metric among a run's named results so that a classification metric is never compared for
a regression model, and :func:`metric_reason` says in words which metric was compared and why.

Nothing here imports TensorFlow: the records and the analysis read these rules too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

CLASSIFICATION = "classification"
REGRESSION = "regression"

#: loss names that only a classifier has (the probabilities of classes against labels)
_CLASSIFICATION_LOSSES = ("crossentropy", "hinge", "kl_divergence", "kld", "kullback", "focal")
#: loss names of regression (distances between numbers)
_REGRESSION_LOSSES = (
    "mean_squared", "mean_absolute", "mse", "mae", "mape", "msle", "huber", "logcosh", "log_cosh",
    "poisson", "cosine", "squared_error", "absolute_error",
)  # fmt: skip
#: last activations whose outputs are class probabilities
_CLASS_ACTIVATIONS = ("softmax", "sigmoid", "log_softmax", "hard_sigmoid")
#: metric names that only mean something for a classifier
_CLASSIFICATION_METRICS = ("acc", "auc", "precision", "recall", "f1", "top_k", "iou", "hinge")


def _name(value: Any) -> str | None:
    """A loss or activation as a lower-case name: strings as they are, functions and objects by name."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.lower()
    if isinstance(value, Mapping):
        return _name(next(iter(value.values()), None))
    if isinstance(value, (list, tuple)):
        return _name(value[0]) if value else None
    for attribute in ("__name__", "name"):
        text = getattr(value, attribute, None)
        if isinstance(text, str) and text:
            return text.lower()
    fn = getattr(value, "fn", None)  # Keras 3 LossFunctionWrapper
    if fn is not None and fn is not value:
        return _name(fn)
    return type(value).__name__.lower()


def task_from(loss: str | None, activation: str | None) -> str | None:
    """``classification``, ``regression`` or ``None`` (not known) from a loss and a last activation name.

    The loss decides first (a cross-entropy is a classifier's); a softmax or sigmoid output is a
    classifier's whatever its loss (old programs train classifiers with MSE); a regression loss on any
    other output is a regression."""
    loss_text = (loss or "").replace("-", "_")
    if any(hint in loss_text for hint in _CLASSIFICATION_LOSSES):
        return CLASSIFICATION
    if activation and any(activation.startswith(name) for name in _CLASS_ACTIVATIONS):
        return CLASSIFICATION
    if any(hint in loss_text for hint in _REGRESSION_LOSSES):
        return REGRESSION
    return None


#: activation layers (no ``activation`` attribute: the layer is the function) by class name
_ACTIVATION_LAYERS = {"Softmax": "softmax", "ReLU": "relu", "LeakyReLU": "leaky_relu", "PReLU": "prelu",
                      "ELU": "elu", "ThresholdedReLU": "thresholded_relu"}  # fmt: skip


def _last_activation(model: Any) -> str | None:
    """The activation of the model's last layer that has one; a ``Softmax()`` layer is a softmax
    (without it, ``Dense(10), Softmax()`` compiled with MSE would read as a regression model)."""
    layers = getattr(model, "layers", None) or []
    for layer in reversed(list(layers)):
        activation = getattr(layer, "activation", None)
        if activation is not None:
            return _name(activation)
        if type(layer).__name__ in _ACTIVATION_LAYERS:
            return _ACTIVATION_LAYERS[type(layer).__name__]
        if type(layer).__name__ not in (
            "Dropout",
            "Reshape",
            "Flatten",
            "InputLayer",
            "ActivityRegularization",
        ):
            return None
    return None


def read_task(model: Any) -> dict[str, Any] | None:
    """The task of a compiled Keras model (Keras 3 or tf_keras): ``{"kind", "loss", "activation"}``,
    or ``None`` when nothing can be read. Never raises: it runs inside the program's run."""
    try:
        loss = _name(getattr(model, "loss", None))
        activation = _last_activation(model)
        logits = from_logits(getattr(model, "loss", None))
    except Exception:  # noqa: BLE001 - a model that cannot be read is no failure of the program
        return None
    if loss is None and activation is None:
        return None
    return {"kind": task_from(loss, activation), "loss": loss, "activation": activation, "from_logits": logits}


def from_logits(loss: Any) -> bool:
    """Whether a compiled loss reads the model's outputs as logits (``BinaryCrossentropy(from_logits=True)``,
    Keras 3 and tf_keras alike): only then is one output unit's class its sign. A loss given by name
    (``"binary_crossentropy"``) reads probabilities, whatever the last activation: Keras clips the
    output into [0, 1] for the loss and its accuracy thresholds it at 0.5, so mutreal does too."""
    if isinstance(loss, Mapping):
        return any(from_logits(value) for value in loss.values())
    if isinstance(loss, (list, tuple)):
        return any(from_logits(value) for value in loss)
    flag = getattr(loss, "from_logits", None)
    if flag is None:
        flag = (getattr(loss, "_fn_kwargs", None) or {}).get("from_logits")
    return bool(flag)


def is_classification_metric(name: str) -> bool:
    """Whether a metric name (``accuracy``, ``val_auc``, ``precision_1``) only means something for a classifier."""
    lowered = name.lower()
    if lowered.startswith("val_"):
        lowered = lowered[4:]
    return any(hint in lowered for hint in _CLASSIFICATION_METRICS)


def choose_metric(names: Iterable[str], task: Mapping[str, Any] | None = None) -> str | None:
    """The compared metric among one run's named results, for the model's task.

    An accuracy-like metric when there is one (the study compares accuracy), otherwise the first
    metric that is not the loss, otherwise the loss. For a regression model the classification
    metrics are left out first: its accuracy is no metric, so its loss (or a regression metric such
    as ``mae``) is compared."""
    candidates = list(names)
    if task and task.get("kind") == REGRESSION:
        candidates = [name for name in candidates if not is_classification_metric(name)] or (
            ["loss"] if "loss" in candidates else []
        )
    if not candidates:
        return None
    for name in candidates:
        if "acc" in name.lower():
            return name
    for name in candidates:
        if name != "loss":
            return name
    return candidates[0]


def describe_task(task: Mapping[str, Any] | None) -> str:
    """``a regression model (loss mse, last activation linear)`` for rows and notes."""
    if not task:
        return "a model whose task could not be read"
    evidence = ", ".join(
        f"{label} {task[key]}"
        for key, label in (("loss", "loss"), ("activation", "last activation"))
        if task.get(key)
    )
    kind = task.get("kind") or "unknown-task"
    return f"a {kind} model" + (f" ({evidence})" if evidence else "")


def metric_reason(
    metric: str | None, task: Mapping[str, Any] | None, available: Iterable[str] = (), *, given: bool = False
) -> str:
    """Why ``metric`` is the compared metric, in one sentence for the analysis rows."""
    if metric is None:
        return "no metric: the runs recorded no evaluate() result and no fit history"
    if given:
        return f"{metric}: chosen by the user (--metric or the manifest's metric column)"
    skipped = [name for name in available if is_classification_metric(name)]
    if task and task.get("kind") == REGRESSION and skipped:
        return (
            f"{metric}: {describe_task(task)}: a classification metric ({', '.join(sorted(set(skipped)))}) "
            "is no metric for it, so its loss or regression metric is compared"
        )
    if is_classification_metric(metric):
        return f"{metric}: the accuracy-like metric of {describe_task(task)} (as the study compares)"
    return (
        f"{metric}: {describe_task(task)} reports no accuracy; its first metric (else its loss) is compared"
    )
