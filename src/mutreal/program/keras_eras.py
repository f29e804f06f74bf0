"""Keras API eras and the defaults of every argument mutreal models, per era.

An argument a program does not write reads as its default, and the default depends on the Keras
release the program was written for (``Adadelta``'s learning rate is 1.0 in Keras 2 and 0.001 in
TF 2). The values are copied from the documented signatures of each era; nothing here imports Keras.
:mod:`mutreal.program.keras_api` re-exports every name and owns the lookups (:func:`~mutreal.program.keras_api.default_arg`),
which first turn a spelling into its canonical class name.
"""

from __future__ import annotations

from typing import Any

#: Keras API eras mutreal distinguishes. ``keras1``: Keras 1.x (nb_epoch, init=, Convolution2D(f, r, c));
#: ``keras2``: standalone Keras 2.x (2.0-2.3; still accepts most Keras 1 spellings through its legacy
#: interface, including ``Conv2D(f, r, c)`` as rows/cols); ``tf2``: tf.keras / tensorflow.keras in
#: TensorFlow 2.x (Keras 2 API, TF 2 defaults, no legacy interface); ``keras3``: Keras 3 (``keras.ops``).
#: The extractor picks one per file and records why (``ProgramModel.era_evidence``).
ERAS = ("keras1", "keras2", "tf2", "keras3")
DEFAULT_ERA = "keras2"


class _NoDefault:
    """Marker: the argument has no default (it is required, or unknown to mutreal)."""

    _instance: _NoDefault | None = None

    def __new__(cls) -> _NoDefault:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_DEFAULT"

    def __bool__(self) -> bool:
        return False


NO_DEFAULT: Any = _NoDefault()

# ---------------------------------------------------------------------------------------------------
# defaults per era
# ---------------------------------------------------------------------------------------------------

_ALL = ERAS


def _era(**values: Any) -> dict[str, Any]:
    """Expand ``keras1=..., keras2=..., tf2=..., keras3=...`` (``rest=`` fills missing eras)."""
    rest = values.pop("rest", NO_DEFAULT)
    return {era: values.get(era, rest) for era in _ALL}


_DENSE_LIKE = {
    "activation": "linear",
    "use_bias": True,
    "kernel_initializer": "glorot_uniform",
    "bias_initializer": "zeros",
    "kernel_regularizer": None,
    "bias_regularizer": None,
    "activity_regularizer": None,
    "kernel_constraint": None,
    "bias_constraint": None,
}
_CONV = {**_DENSE_LIKE, "padding": "valid", "data_format": "channels_last"}

#: every optimizer's gradient clipping (off by default)
_CLIPPING = {"clipnorm": None, "clipvalue": None}
#: the learning-rate decay the optimizers took until Keras 3 (which removed it), and clipping
_DECAY_AND_CLIPPING = {"decay": _era(keras1=0.0, keras2=0.0, tf2=0.0), **_CLIPPING}
#: the adaptive optimizers' fuzz factor: 1e-8 in Keras 1, 1e-7 since
_OPTIMIZER_EPSILON = _era(keras1=1e-8, keras2=1e-7, tf2=1e-7, keras3=1e-7)
_RNN = {
    "activation": "tanh",
    "use_bias": True,
    "kernel_initializer": "glorot_uniform",
    "recurrent_initializer": "orthogonal",
    "bias_initializer": "zeros",
    "kernel_regularizer": None,
    "recurrent_regularizer": None,
    "bias_regularizer": None,
    "activity_regularizer": None,
    "dropout": 0.0,
    "recurrent_dropout": 0.0,
    "return_sequences": False,
    "return_state": False,
    "go_backwards": False,
    "stateful": False,
    "unroll": False,
}

#: per class -> per argument -> value (same in every era) or a dict era -> value
_DEFAULTS: dict[str, dict[str, Any]] = {
    "Dense": dict(_DENSE_LIKE),
    "Conv1D": {**_CONV, "strides": [1], "dilation_rate": [1], "groups": 1},
    "Conv2D": {**_CONV, "strides": [1, 1], "dilation_rate": [1, 1], "groups": 1},
    "Conv3D": {**_CONV, "strides": [1, 1, 1], "dilation_rate": [1, 1, 1], "groups": 1},
    "Conv2DTranspose": {**_CONV, "strides": [1, 1]},
    "SeparableConv2D": {**_CONV, "strides": [1, 1], "depth_multiplier": 1},
    "DepthwiseConv2D": {**_CONV, "strides": [1, 1], "depth_multiplier": 1},
    "MaxPooling1D": {"pool_size": [2], "strides": None, "padding": "valid"},
    "MaxPooling2D": {"pool_size": [2, 2], "strides": None, "padding": "valid"},
    "MaxPooling3D": {"pool_size": [2, 2, 2], "strides": None, "padding": "valid"},
    "AveragePooling1D": {"pool_size": [2], "strides": None, "padding": "valid"},
    "AveragePooling2D": {"pool_size": [2, 2], "strides": None, "padding": "valid"},
    "AveragePooling3D": {"pool_size": [2, 2, 2], "strides": None, "padding": "valid"},
    "UpSampling2D": {"size": [2, 2]},
    "UpSampling1D": {"size": [2]},
    "Dropout": {"noise_shape": None, "seed": None},
    "SimpleRNN": dict(_RNN),
    "LSTM": {
        **_RNN,
        "recurrent_activation": _era(
            keras1="hard_sigmoid", keras2="hard_sigmoid", tf2="sigmoid", keras3="sigmoid"
        ),
        "unit_forget_bias": True,
    },
    "GRU": {
        **_RNN,
        "recurrent_activation": _era(
            keras1="hard_sigmoid", keras2="hard_sigmoid", tf2="sigmoid", keras3="sigmoid"
        ),
        "reset_after": _era(keras1=False, keras2=False, tf2=True, keras3=True),
    },
    "Embedding": {
        "embeddings_initializer": "random_uniform",
        "mask_zero": False,
        "embeddings_regularizer": None,
    },
    "BatchNormalization": {
        "axis": -1,
        "momentum": 0.99,
        "epsilon": 0.001,
        "center": True,
        "scale": True,
        "beta_initializer": "zeros",
        "gamma_initializer": "ones",
        "moving_mean_initializer": "zeros",
        "moving_variance_initializer": "ones",
    },
    "LayerNormalization": {"axis": -1, "epsilon": 0.001, "center": True, "scale": True},
    "LeakyReLU": {"alpha": 0.3},
    "ELU": {"alpha": 1.0},
    "ReLU": {"max_value": None, "negative_slope": 0.0, "threshold": 0.0},
    "Softmax": {"axis": -1},
    "ThresholdedReLU": {"theta": 1.0},
    "Flatten": {"data_format": None},
    "Bidirectional": {"merge_mode": "concat"},
    "Concatenate": {"axis": -1},
    "GaussianNoise": {},
    # optimizers
    "SGD": {
        "learning_rate": 0.01,
        "momentum": 0.0,
        "nesterov": False,
        **_DECAY_AND_CLIPPING,
    },
    "RMSprop": {
        "learning_rate": 0.001,
        "rho": 0.9,
        "epsilon": _OPTIMIZER_EPSILON,
        "momentum": 0.0,
        "centered": False,
        **_DECAY_AND_CLIPPING,
    },
    "Adagrad": {
        "learning_rate": _era(keras1=0.01, keras2=0.01, tf2=0.001, keras3=0.001),
        "epsilon": _OPTIMIZER_EPSILON,
        "initial_accumulator_value": _era(tf2=0.1, keras3=0.1),
        **_DECAY_AND_CLIPPING,
    },
    "Adadelta": {
        "learning_rate": _era(keras1=1.0, keras2=1.0, tf2=0.001, keras3=0.001),
        "rho": 0.95,
        "epsilon": _OPTIMIZER_EPSILON,
        **_DECAY_AND_CLIPPING,
    },
    "Adam": {
        "learning_rate": 0.001,
        "beta_1": 0.9,
        "beta_2": 0.999,
        "epsilon": _OPTIMIZER_EPSILON,
        "amsgrad": False,
        **_DECAY_AND_CLIPPING,
    },
    "AdamW": {"learning_rate": 0.001, "weight_decay": 0.004, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7},
    "Adamax": {
        "learning_rate": _era(keras1=0.002, keras2=0.002, tf2=0.001, keras3=0.001),
        "beta_1": 0.9,
        "beta_2": 0.999,
        "epsilon": _OPTIMIZER_EPSILON,
        **_DECAY_AND_CLIPPING,
    },
    "Nadam": {
        "learning_rate": _era(keras1=0.002, keras2=0.002, tf2=0.001, keras3=0.001),
        "beta_1": 0.9,
        "beta_2": 0.999,
        "epsilon": _OPTIMIZER_EPSILON,
        "schedule_decay": _era(keras1=0.004, keras2=0.004),
        **_CLIPPING,
    },
    "Ftrl": {"learning_rate": 0.001, "learning_rate_power": -0.5, "initial_accumulator_value": 0.1},
    # training calls
    "fit": {
        "batch_size": 32,
        "epochs": _era(keras1=10, keras2=1, tf2=1, keras3=1),
        "verbose": 1,
        "callbacks": None,
        "validation_split": 0.0,
        "validation_data": None,
        "shuffle": True,
        "class_weight": None,
        "sample_weight": None,
        "initial_epoch": 0,
        "steps_per_epoch": None,
        "validation_steps": None,
    },
    "fit_generator": {
        "epochs": _era(keras1=NO_DEFAULT, keras2=1, tf2=1, keras3=1),
        "verbose": 1,
        "callbacks": None,
        "validation_data": None,
        "class_weight": None,
        "shuffle": True,
        "initial_epoch": 0,
        "validation_steps": None,
    },
    "train_on_batch": {"sample_weight": None, "class_weight": None},
    # callbacks
    "EarlyStopping": {
        "monitor": "val_loss",
        "min_delta": 0,
        "patience": 0,
        "verbose": 0,
        "mode": "auto",
        "baseline": None,
        "restore_best_weights": False,
    },
    "ReduceLROnPlateau": {
        "monitor": "val_loss",
        "factor": 0.1,
        "patience": 10,
        "mode": "auto",
        "min_delta": _era(keras1=1e-4, keras2=1e-4, tf2=1e-4, keras3=1e-4),
        "cooldown": 0,
        "min_lr": 0,
    },
    "ModelCheckpoint": {"monitor": "val_loss", "save_best_only": False, "save_weights_only": False},
}
_DEFAULTS["fit_generator"]["steps_per_epoch"] = None
_DEFAULTS["Conv1DTranspose"] = _DEFAULTS["Conv2DTranspose"]
_DEFAULTS["SeparableConv1D"] = {**_CONV, "strides": [1], "depth_multiplier": 1}
_DEFAULTS["GlobalMaxPooling2D"] = {"data_format": "channels_last"}
_DEFAULTS["GlobalAveragePooling2D"] = {"data_format": "channels_last"}
