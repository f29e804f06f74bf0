"""compile / fit arguments -> canonical form: losses, optimizers, metrics, callbacks, fit arguments."""

from __future__ import annotations

from mutreal.extract.layers import last_part
from mutreal.program import keras_api
from mutreal.program.model import CALL, CONST, REF, SEQ, Callback, Optimizer, Value

#: positional parameters of the training calls (canonical names), per era
FIT_POSITIONAL = {
    "fit": (
        "x",
        "y",
        "batch_size",
        "epochs",
        "verbose",
        "callbacks",
        "validation_split",
        "validation_data",
        "shuffle",
        "class_weight",
        "sample_weight",
        "initial_epoch",
        "steps_per_epoch",
        "validation_steps",
    ),
    "fit_generator": (
        "generator",
        "steps_per_epoch",
        "epochs",
        "verbose",
        "callbacks",
        "validation_data",
        "validation_steps",
        "class_weight",
        "max_queue_size",
        "workers",
        "use_multiprocessing",
        "shuffle",
        "initial_epoch",
    ),
    "train_on_batch": ("x", "y", "sample_weight", "class_weight"),
    "evaluate": ("x", "y", "batch_size", "verbose"),
    "predict": ("x", "batch_size", "verbose"),
}
TRAINING_METHODS = ("fit", "fit_generator", "train_on_batch")

COMPILE_POSITIONAL = (
    "optimizer",
    "loss",
    "metrics",
    "loss_weights",
    "sample_weight_mode",
    "weighted_metrics",
)

#: positional hyperparameters of optimizers (the first ones agree across eras)
_OPT_POSITIONAL = {
    "SGD": ("learning_rate", "momentum"),
    "Adam": ("learning_rate", "beta_1", "beta_2", "epsilon"),
    "Adamax": ("learning_rate", "beta_1", "beta_2", "epsilon"),
    "Nadam": ("learning_rate", "beta_1", "beta_2", "epsilon"),
    "RMSprop": ("learning_rate", "rho"),
    "Adagrad": ("learning_rate",),
    "Adadelta": ("learning_rate", "rho", "epsilon"),
    "AdamW": ("learning_rate", "weight_decay"),
    "Ftrl": ("learning_rate",),
}
#: tf.train optimizers' argument names
_TF_TRAIN_KWARGS = {"beta1": "beta_1", "beta2": "beta_2", "use_nesterov": "nesterov", "decay": "rho"}


def fit_kwarg(name: str) -> str:
    return keras_api.LEGACY_FIT_KWARGS.get(name, name)


def normalise_loss(v: Value) -> Value:
    """``'mse'``, ``losses.mse``, ``MeanSquaredError()`` -> ``Value(const, 'mean_squared_error')``.

    A loss object with non-default arguments (``from_logits=True``) stays a call with the canonical
    name, so it differs from the plain string. Lists/dicts (several outputs) are normalised item by item.
    """
    if v.kind == CONST and isinstance(v.value, str):
        canon = keras_api.canonical_loss(v.value)
        return Value(CONST, canon, text=v.text, line=v.line) if canon else v
    if v.kind == CONST and isinstance(v.value, list):
        items = [normalise_loss(Value.const(x)) for x in v.value]
        return Value(CONST, [i.value for i in items], text=v.text, line=v.line)
    if v.kind == REF and isinstance(v.value, str):
        canon = keras_api.canonical_loss(last_part(v.value))
        if canon and (keras_api.keras_module_part(v.value) is not None or "." not in v.value):
            return Value(CONST, canon, text=v.text, line=v.line)
        return v
    if v.kind == CALL and isinstance(v.value, str):
        canon = keras_api.canonical_loss(last_part(v.value))
        if canon:
            kwargs = {k: a for k, a in v.kwargs.items() if k not in ("name", "reduction")}
            if kwargs.get("from_logits") is not None and kwargs["from_logits"].value is False:
                kwargs.pop("from_logits")
            if not v.args and not kwargs:
                return Value(CONST, canon, text=v.text, line=v.line)
            return Value(CALL, canon, args=v.args, kwargs=kwargs, text=v.text, line=v.line)
    if v.kind == SEQ:
        return Value(SEQ, None, args=[normalise_loss(a) for a in v.args], text=v.text, line=v.line)
    return v


def normalise_metrics(v: Value) -> Value:
    """Metric names canonical (``'acc'`` -> ``'accuracy'``), order kept."""
    if v.kind == CONST and isinstance(v.value, list):
        out = [keras_api.canonical_metric(m) if isinstance(m, str) else m for m in v.value]
        return Value(CONST, out, text=v.text, line=v.line)
    if v.kind == CONST and isinstance(v.value, str):
        return Value(CONST, [keras_api.canonical_metric(v.value)], text=v.text, line=v.line)
    if v.kind == SEQ:
        # [keras.metrics.categorical_accuracy, 'acc'] -> canonical names where known
        items = []
        for a in v.args:
            if a.kind == CONST and isinstance(a.value, str):
                items.append(keras_api.canonical_metric(a.value))
            elif (
                a.kind in (REF, CALL)
                and isinstance(a.value, str)
                and not a.args
                and not a.kwargs
                and (
                    keras_api.keras_module_part(a.value) is not None
                    or a.value.split(".")[0] in ("metrics", "losses")
                )
            ):
                items.append(keras_api.canonical_metric(last_part(a.value)))
            else:
                return v
        return Value(CONST, items, text=v.text, line=v.line)
    return v


def optimizer_from_string(v: Value, file: str) -> Optimizer:
    cls = keras_api.canonical_optimizer(v.value) if isinstance(v.value, str) else None
    return Optimizer(cls=cls, spelling="string" if cls else "opaque", text=v.text, file=file, line=v.line)


#: standalone Keras 1/2 optimizers took ``decay`` before ``nesterov`` (tf.keras dropped ``decay``)
_OPT_POSITIONAL_LEGACY = {
    "SGD": ("learning_rate", "momentum", "decay", "nesterov"),
    "RMSprop": ("learning_rate", "rho", "epsilon", "decay"),
    "Adagrad": ("learning_rate", "epsilon", "decay"),
    "Adadelta": ("learning_rate", "rho", "epsilon", "decay"),
}
_OPT_POSITIONAL_TF2 = {"SGD": ("learning_rate", "momentum", "nesterov")}


def optimizer_from_call(
    name: str,
    args: list[Value],
    kwargs: dict[str, Value],
    text: str,
    file: str,
    line: int | None,
    era: str = keras_api.DEFAULT_ERA,
) -> tuple[Optimizer, list[str]]:
    """``Adam(lr=0.01)`` / ``optimizers.SGD(0.1, 0.9)`` / ``tf.train.AdamOptimizer(1e-3)`` -> Optimizer."""
    cls = keras_api.canonical_optimizer(last_part(name))
    legacy: list[str] = []
    out: dict[str, Value] = {}
    table = _OPT_POSITIONAL_LEGACY if era in ("keras1", "keras2") else _OPT_POSITIONAL_TF2
    params = table.get(cls or "") or _OPT_POSITIONAL.get(cls or "", ("learning_rate",))
    for i, a in enumerate(args):
        out[params[i] if i < len(params) else f"_{i}"] = a
    tf_train = last_part(name) in keras_api.TF_TRAIN_OPTIMIZERS
    for k, a in kwargs.items():
        canon = keras_api.LEGACY_OPTIMIZER_KWARGS.get(k, k)
        if tf_train:
            canon = _TF_TRAIN_KWARGS.get(k, canon)
        if canon != k:
            legacy.append(k)
        if canon != "name":
            out[canon] = a
    return Optimizer(
        cls=cls, args=out, spelling="object" if cls else "opaque", text=text, file=file, line=line
    ), legacy


def callback_from_call(
    name: str, args: list[Value], kwargs: dict[str, Value], text: str, file: str, line: int | None
) -> Callback:
    cls = keras_api.canonical_callback(last_part(name))
    out: dict[str, Value] = {}
    positional = {
        "EarlyStopping": ("monitor", "min_delta", "patience"),
        "ModelCheckpoint": ("filepath", "monitor"),
        "ReduceLROnPlateau": ("monitor", "factor", "patience"),
        "LearningRateScheduler": ("schedule",),
        "TensorBoard": ("log_dir",),
        "CSVLogger": ("filename",),
    }.get(cls or "", ())
    for i, a in enumerate(args):
        out[positional[i] if i < len(positional) else f"_{i}"] = a
    for k, a in kwargs.items():
        out["min_delta" if k == "epsilon" and cls == "ReduceLROnPlateau" else k] = a
    return Callback(
        cls=cls or last_part(name), args=out, known=cls is not None, text=text, file=file, line=line
    )


__all__ = [
    "CALL",
    "COMPILE_POSITIONAL",
    "FIT_POSITIONAL",
    "callback_from_call",
    "fit_kwarg",
    "normalise_loss",
    "normalise_metrics",
    "optimizer_from_call",
    "optimizer_from_string",
]
