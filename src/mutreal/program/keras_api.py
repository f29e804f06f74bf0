"""Keras knowledge as data: canonical names, legacy spellings and defaults per API era.

Real benchmark programs are written against Keras 1, standalone Keras 2, tf.keras (TF 2) or Keras 3
and spell the same thing in many ways (``Convolution2D``/``Conv2D``, ``lr``/``learning_rate``,
``'mse'``/``MeanSquaredError()``). Everything that turns a spelling into one canonical form lives
here, as tables, so the extractor (``mutreal.extract``) and the modernizer (``mutreal modernize``)
share it. Nothing here imports Keras or TensorFlow: the values are copied from the documented
signatures of each era. The eras and the default tables live in :mod:`mutreal.program.keras_eras` (re-exported
here); this module owns the spellings and the lookups over them.

Public API
----------
- :data:`ERAS`, :data:`DEFAULT_ERA`
- :func:`canonical_layer`, :func:`is_layer`, :data:`LAYER_ALIASES`, :data:`KNOWN_LAYERS`
- :func:`canonical_kwarg`, :data:`LEGACY_LAYER_KWARGS`, :data:`LEGACY_OPTIMIZER_KWARGS`,
  :data:`LEGACY_FIT_KWARGS`, :func:`positional_params`
- :func:`canonical_optimizer`, :func:`canonical_loss`, :func:`canonical_activation`,
  :func:`canonical_initializer`, :func:`canonical_regularizer`, :func:`canonical_callback`,
  :func:`canonical_metric`
- :func:`default_arg`, :data:`NO_DEFAULT`
- :func:`keras_module_part` (strip ``tensorflow.keras.``/``keras.`` prefixes)
"""

from __future__ import annotations

from typing import Any

from mutreal.program.keras_eras import (  # noqa: F401 - re-exported: eras and their defaults
    _DEFAULTS,
    DEFAULT_ERA,
    ERAS,
    NO_DEFAULT,
    _NoDefault,
)

# ---------------------------------------------------------------------------------------------------
# module paths
# ---------------------------------------------------------------------------------------------------

#: dotted prefixes under which the Keras API lives (longest first); stripped to get e.g. "layers.Dense"
KERAS_PREFIXES = (
    "tensorflow.compat.v1.keras.",
    "tensorflow.compat.v2.keras.",
    "tensorflow.python.keras.",
    "tensorflow.contrib.keras.api.keras.",
    "tensorflow.contrib.keras.",
    "tensorflow.keras.",
    "tensorflow.python.keras",
    "keras.src.",
    "keras._tf_keras.keras.",
    "keras_core.",
    "tf_keras.",
    "keras.",
)
KERAS_ROOTS = ("keras", "tensorflow.keras", "tensorflow.python.keras", "tf_keras", "keras_core")


#: TensorFlow 2 shortcuts to Keras modules (``tf.optimizers.Adam`` is ``tf.keras.optimizers.Adam``)
TF_KERAS_SHORTCUTS = (
    "tensorflow.optimizers.",
    "tensorflow.losses.",
    "tensorflow.metrics.",
    "tensorflow.initializers.",
    "tensorflow.activations.",
)


#: attribute names of an optimizer's learning rate (``model.optimizer.lr``; Keras 2.3+ ``learning_rate``)
LEARNING_RATE_ATTRIBUTES = frozenset({"lr", "learning_rate"})


def keras_module_part(qualname: str) -> str | None:
    """``tensorflow.keras.layers.Dense`` -> ``layers.Dense``; None when not inside Keras."""
    if qualname in KERAS_ROOTS:
        return ""
    for prefix in KERAS_PREFIXES:
        if qualname.startswith(prefix):
            return qualname[len(prefix) :]
    for prefix in TF_KERAS_SHORTCUTS:
        if qualname.startswith(prefix):
            return qualname[len("tensorflow.") :]
    return None


# ---------------------------------------------------------------------------------------------------
# layers
# ---------------------------------------------------------------------------------------------------

#: legacy or alternative layer class names -> canonical (Keras 2 / tf.keras) names
LAYER_ALIASES: dict[str, str] = {
    "Convolution1D": "Conv1D",
    "Convolution2D": "Conv2D",
    "Convolution3D": "Conv3D",
    "Conv2d": "Conv2D",
    "AtrousConvolution1D": "Conv1D",
    "AtrousConvolution2D": "Conv2D",
    "AtrousConv1D": "Conv1D",
    "AtrousConv2D": "Conv2D",
    "Deconvolution2D": "Conv2DTranspose",
    "Deconvolution3D": "Conv3DTranspose",
    "Deconv2D": "Conv2DTranspose",
    "Deconv3D": "Conv3DTranspose",
    "SeparableConvolution1D": "SeparableConv1D",
    "SeparableConvolution2D": "SeparableConv2D",
    "DepthwiseConvolution2D": "DepthwiseConv2D",
    "MaxPool1D": "MaxPooling1D",
    "MaxPool2D": "MaxPooling2D",
    "MaxPool3D": "MaxPooling3D",
    "AvgPool1D": "AveragePooling1D",
    "AvgPool2D": "AveragePooling2D",
    "AvgPool3D": "AveragePooling3D",
    "GlobalMaxPool1D": "GlobalMaxPooling1D",
    "GlobalMaxPool2D": "GlobalMaxPooling2D",
    "GlobalMaxPool3D": "GlobalMaxPooling3D",
    "GlobalAvgPool1D": "GlobalAveragePooling1D",
    "GlobalAvgPool2D": "GlobalAveragePooling2D",
    "GlobalAvgPool3D": "GlobalAveragePooling3D",
    "CuDNNLSTM": "LSTM",
    "CuDNNGRU": "GRU",
    "BatchNorm": "BatchNormalization",
}

#: canonical layer classes mutreal knows (anything else called in a model is a custom/unknown layer)
KNOWN_LAYERS: frozenset[str] = frozenset(
    [
        "Dense",
        "Activation",
        "Dropout",
        "Flatten",
        "Reshape",
        "Permute",
        "RepeatVector",
        "Lambda",
        "ActivityRegularization",
        "Masking",
        "SpatialDropout1D",
        "SpatialDropout2D",
        "SpatialDropout3D",
        "Conv1D",
        "Conv2D",
        "Conv3D",
        "Conv1DTranspose",
        "Conv2DTranspose",
        "Conv3DTranspose",
        "SeparableConv1D",
        "SeparableConv2D",
        "DepthwiseConv1D",
        "DepthwiseConv2D",
        "Cropping1D",
        "Cropping2D",
        "Cropping3D",
        "UpSampling1D",
        "UpSampling2D",
        "UpSampling3D",
        "ZeroPadding1D",
        "ZeroPadding2D",
        "ZeroPadding3D",
        "MaxPooling1D",
        "MaxPooling2D",
        "MaxPooling3D",
        "AveragePooling1D",
        "AveragePooling2D",
        "AveragePooling3D",
        "GlobalMaxPooling1D",
        "GlobalMaxPooling2D",
        "GlobalMaxPooling3D",
        "GlobalAveragePooling1D",
        "GlobalAveragePooling2D",
        "GlobalAveragePooling3D",
        "LocallyConnected1D",
        "LocallyConnected2D",
        "SimpleRNN",
        "GRU",
        "LSTM",
        "ConvLSTM1D",
        "ConvLSTM2D",
        "ConvLSTM3D",
        "RNN",
        "SimpleRNNCell",
        "GRUCell",
        "LSTMCell",
        "StackedRNNCells",
        "Embedding",
        "BatchNormalization",
        "LayerNormalization",
        "GroupNormalization",
        "UnitNormalization",
        "GaussianNoise",
        "GaussianDropout",
        "AlphaDropout",
        "LeakyReLU",
        "PReLU",
        "ELU",
        "ThresholdedReLU",
        "ReLU",
        "Softmax",
        "TimeDistributed",
        "Bidirectional",
        "Input",
        "InputLayer",
        "Concatenate",
        "Add",
        "Multiply",
        "Average",
        "Maximum",
        "Minimum",
        "Subtract",
        "Dot",
        "Merge",
        "Highway",
        "MaxoutDense",
        "Normalization",
        "Rescaling",
        "Resizing",
        "CenterCrop",
        "RandomFlip",
        "RandomRotation",
        "RandomZoom",
        "RandomTranslation",
        "RandomCrop",
        "RandomContrast",
        "Attention",
        "AdditiveAttention",
        "MultiHeadAttention",
        "Embedding",
        "Identity",
        "Wrapper",
        "TextVectorization",
        "StringLookup",
        "IntegerLookup",
        "CategoryEncoding",
        "Discretization",
        "HashedCrossing",
        "Hashing",
        "EinsumDense",
        "Flatten",
        "GlobalMaxPool",
        "GlobalAveragePooling",
    ]
)

#: functional merge helpers (``concatenate([a, b])``) -> the layer class they build
MERGE_FUNCTIONS: dict[str, str] = {
    "concatenate": "Concatenate",
    "add": "Add",
    "multiply": "Multiply",
    "average": "Average",
    "maximum": "Maximum",
    "minimum": "Minimum",
    "subtract": "Subtract",
    "dot": "Dot",
    "merge": "Merge",
}

#: layer wrappers: their first argument is a layer
WRAPPER_LAYERS = frozenset({"TimeDistributed", "Bidirectional"})

#: layers that only hold an activation (the 'activation layer' noise rule); name -> activation
ACTIVATION_LAYERS: dict[str, str] = {
    "ReLU": "relu",
    "LeakyReLU": "leaky_relu",
    "ELU": "elu",
    "Softmax": "softmax",
    "PReLU": "prelu",
    "ThresholdedReLU": "thresholded_relu",
}


def canonical_layer(name: str) -> str:
    """Canonical class name of a layer (``Convolution2D`` -> ``Conv2D``); unknown names unchanged."""
    return LAYER_ALIASES.get(name, name)


def is_layer(name: str) -> bool:
    """Whether ``name`` (any spelling) is a Keras layer class mutreal knows."""
    return canonical_layer(name) in KNOWN_LAYERS


def _layers_by_casefold() -> dict[str, str]:
    found: dict[str, str] = {}
    for name in [*KNOWN_LAYERS, *LAYER_ALIASES]:
        found.setdefault(name.casefold(), canonical_layer(name))
    return found


_LAYERS_BY_CASEFOLD: dict[str, str] | None = None


def layer_ignoring_case(name: str) -> str | None:
    """The canonical layer class a name spells in other letter case (``Conv1d`` -> ``Conv1D``,
    ``Maxpooling2D`` -> ``MaxPooling2D``), or None. Keras has no two layer classes whose names differ
    in case only, so the match is unambiguous; used for names a pasted snippet never imports."""
    global _LAYERS_BY_CASEFOLD
    if _LAYERS_BY_CASEFOLD is None:
        _LAYERS_BY_CASEFOLD = _layers_by_casefold()
    return _LAYERS_BY_CASEFOLD.get(name.casefold())


def _layer_rank(cls: str) -> int | None:
    """1, 2 or 3 for the spatial rank of conv/pooling layers (tuple arguments), else None."""
    for rank in ("1D", "2D", "3D"):
        if cls.endswith(rank):
            return int(rank[0])
    return None


#: Keras 1 -> Keras 2 keyword spellings valid for any layer (layer-specific ones below win)
LEGACY_LAYER_KWARGS: dict[str, str] = {
    "output_dim": "units",
    "init": "kernel_initializer",
    "inner_init": "recurrent_initializer",
    "W_regularizer": "kernel_regularizer",
    "b_regularizer": "bias_regularizer",
    "U_regularizer": "recurrent_regularizer",
    "W_constraint": "kernel_constraint",
    "b_constraint": "bias_constraint",
    "U_constraint": "recurrent_constraint",
    "bias": "use_bias",
    "border_mode": "padding",
    "subsample": "strides",
    "subsample_length": "strides",
    "nb_filter": "filters",
    "filter_length": "kernel_size",
    "pool_length": "pool_size",
    "stride": "strides",
    "dropout_W": "dropout",
    "dropout_U": "recurrent_dropout",
    "inner_activation": "recurrent_activation",
    "dim_ordering": "data_format",
    "atrous_rate": "dilation_rate",
    "beta_init": "beta_initializer",
    "gamma_init": "gamma_initializer",
    "forget_bias_init": "unit_forget_bias",
}

#: per-layer legacy spellings that differ from the general table
_LAYER_SPECIFIC_KWARGS: dict[str, dict[str, str]] = {
    "Embedding": {
        "output_dim": "output_dim",  # a real Embedding argument, not Dense's units
        "init": "embeddings_initializer",
        "W_regularizer": "embeddings_regularizer",
        "W_constraint": "embeddings_constraint",
        "input_dim": "input_dim",
    },
    "BatchNormalization": {"beta_init": "beta_initializer", "gamma_init": "gamma_initializer"},
    "Dropout": {"p": "rate"},
    "SpatialDropout1D": {"p": "rate"},
    "SpatialDropout2D": {"p": "rate"},
    "SpatialDropout3D": {"p": "rate"},
    "GaussianDropout": {"p": "rate"},
    "GaussianNoise": {"sigma": "stddev"},
    "UpSampling1D": {"length": "size"},
    "LeakyReLU": {"negative_slope": "alpha"},  # Keras 3 spelling of the Keras 2 argument
}

#: optimizer hyperparameter spellings
LEGACY_OPTIMIZER_KWARGS: dict[str, str] = {"lr": "learning_rate"}

#: fit / fit_generator spellings
LEGACY_FIT_KWARGS: dict[str, str] = {
    "nb_epoch": "epochs",
    "samples_per_epoch": "steps_per_epoch",
    "nb_val_samples": "validation_steps",
    "nb_worker": "workers",
    "pickle_safe": "use_multiprocessing",
    "show_accuracy": "show_accuracy",
    "X": "x",
    "Y": "y",
}

#: Keras 1 ``dim_ordering`` values -> Keras 2 ``data_format`` values
DATA_FORMAT_VALUES = {"tf": "channels_last", "th": "channels_first", "default": None}


def canonical_kwarg(layer: str, kwarg: str, era: str = DEFAULT_ERA) -> str:
    """Canonical (Keras 2) name of keyword ``kwarg`` of layer class ``layer`` in ``era``.

    Legacy spellings are mapped in every era (Keras 2 accepted most of them with a warning, and a
    program that uses them is written against the older API anyway).
    """
    cls = canonical_layer(layer)
    specific = _LAYER_SPECIFIC_KWARGS.get(cls)
    if specific and kwarg in specific:
        return specific[kwarg]
    if kwarg == "input_dim" and cls != "Embedding":
        return "input_dim"  # folded into input_shape by normalise_layer_kwargs
    return LEGACY_LAYER_KWARGS.get(kwarg, kwarg)


#: positional parameter names per era for layers (canonical names; Keras 1 rows/cols folded later)
_POSITIONAL_K2: dict[str, tuple[str, ...]] = {
    "Dense": ("units",),
    "Activation": ("activation",),
    "Dropout": ("rate", "noise_shape", "seed"),
    "SpatialDropout1D": ("rate",),
    "SpatialDropout2D": ("rate",),
    "SpatialDropout3D": ("rate",),
    "AlphaDropout": ("rate",),
    "GaussianDropout": ("rate",),
    "GaussianNoise": ("stddev",),
    "Reshape": ("target_shape",),
    "Permute": ("dims",),
    "RepeatVector": ("n",),
    "Lambda": ("function", "output_shape"),
    "Flatten": ("data_format",),
    "Conv1D": ("filters", "kernel_size", "strides", "padding"),
    "Conv2D": ("filters", "kernel_size", "strides", "padding"),
    "Conv3D": ("filters", "kernel_size", "strides", "padding"),
    "Conv1DTranspose": ("filters", "kernel_size", "strides", "padding"),
    "Conv2DTranspose": ("filters", "kernel_size", "strides", "padding"),
    "Conv3DTranspose": ("filters", "kernel_size", "strides", "padding"),
    "SeparableConv1D": ("filters", "kernel_size", "strides", "padding"),
    "SeparableConv2D": ("filters", "kernel_size", "strides", "padding"),
    "DepthwiseConv2D": ("kernel_size", "strides", "padding"),
    "LocallyConnected1D": ("filters", "kernel_size", "strides", "padding"),
    "LocallyConnected2D": ("filters", "kernel_size", "strides", "padding"),
    "MaxPooling1D": ("pool_size", "strides", "padding"),
    "MaxPooling2D": ("pool_size", "strides", "padding"),
    "MaxPooling3D": ("pool_size", "strides", "padding"),
    "AveragePooling1D": ("pool_size", "strides", "padding"),
    "AveragePooling2D": ("pool_size", "strides", "padding"),
    "AveragePooling3D": ("pool_size", "strides", "padding"),
    "UpSampling1D": ("size",),
    "UpSampling2D": ("size",),
    "UpSampling3D": ("size",),
    "ZeroPadding1D": ("padding",),
    "ZeroPadding2D": ("padding",),
    "ZeroPadding3D": ("padding",),
    "Cropping1D": ("cropping",),
    "Cropping2D": ("cropping",),
    "Cropping3D": ("cropping",),
    "SimpleRNN": ("units", "activation"),
    "GRU": ("units", "activation", "recurrent_activation"),
    "LSTM": ("units", "activation", "recurrent_activation"),
    "ConvLSTM2D": ("filters", "kernel_size", "strides", "padding"),
    "Embedding": ("input_dim", "output_dim"),
    "BatchNormalization": ("axis", "momentum", "epsilon"),
    "LayerNormalization": ("axis", "epsilon"),
    "LeakyReLU": ("alpha",),
    "ELU": ("alpha",),
    "ReLU": ("max_value", "negative_slope", "threshold"),
    "Softmax": ("axis",),
    "PReLU": ("alpha_initializer",),
    "ThresholdedReLU": ("theta",),
    "TimeDistributed": ("layer",),
    "Bidirectional": ("layer", "merge_mode"),
    "Input": ("shape", "batch_size", "name", "dtype"),
    "InputLayer": ("input_shape", "batch_size"),
    "Concatenate": ("axis",),
    "Dot": ("axes",),
    "Masking": ("mask_value",),
    "ActivityRegularization": ("l1", "l2"),
    "Rescaling": ("scale", "offset"),
    "Resizing": ("height", "width"),
    "Highway": (),
    "MaxoutDense": ("units", "nb_feature"),
}

#: Keras 1 positional signatures (canonical names; "_rows"/"_cols"/"_dim*" are folded into kernel_size)
_POSITIONAL_K1: dict[str, tuple[str, ...]] = {
    **_POSITIONAL_K2,
    "Dense": ("units", "kernel_initializer", "activation"),
    "Dropout": ("rate",),
    "Conv1D": ("filters", "kernel_size", "kernel_initializer", "activation"),
    "Conv2D": ("filters", "_rows", "_cols", "kernel_initializer", "activation"),
    "Conv3D": ("filters", "_dim1", "_dim2", "_dim3", "kernel_initializer", "activation"),
    "Conv2DTranspose": ("filters", "_rows", "_cols", "output_shape"),
    "SeparableConv2D": ("filters", "_rows", "_cols"),
    "LocallyConnected2D": ("filters", "_rows", "_cols"),
    "MaxPooling1D": ("pool_size", "strides", "padding"),
    "AveragePooling1D": ("pool_size", "strides", "padding"),
    "SimpleRNN": ("units",),
    "GRU": ("units",),
    "LSTM": ("units",),
    "BatchNormalization": ("epsilon", "mode", "axis", "momentum"),
    "Embedding": ("input_dim", "output_dim"),
}


def positional_params(layer: str, era: str = DEFAULT_ERA) -> tuple[str, ...]:
    """Names of the positional parameters of ``layer`` in ``era`` (empty when unknown).

    ``Convolution2D(32, 3, 3)`` is ``(filters, _rows, _cols)`` in Keras 1 and
    ``(filters, kernel_size, strides)`` in Keras 2 and later; the extractor folds ``_rows`` and
    ``_cols`` into ``kernel_size``.
    """
    cls = canonical_layer(layer)
    table = _POSITIONAL_K1 if era == "keras1" else _POSITIONAL_K2
    return table.get(cls, ())


#: arguments whose int value means the same tuple in every dimension of an N-D layer
TUPLE_ARGS = frozenset(
    {"kernel_size", "strides", "pool_size", "dilation_rate", "size", "padding_size", "cropping"}
)


# ---------------------------------------------------------------------------------------------------
# optimizers, losses, activations, initializers, regularizers, callbacks, metrics
# ---------------------------------------------------------------------------------------------------

OPTIMIZERS: dict[str, str] = {
    "sgd": "SGD",
    "adam": "Adam",
    "adamw": "AdamW",
    "adamax": "Adamax",
    "nadam": "Nadam",
    "rmsprop": "RMSprop",
    "adagrad": "Adagrad",
    "adadelta": "Adadelta",
    "ftrl": "Ftrl",
    "lion": "Lion",
    "adafactor": "Adafactor",
    "lamb": "Lamb",
    "tfoptimizer": "TFOptimizer",
}
#: tf.train.*Optimizer (TF1) classes and their Keras counterpart
TF_TRAIN_OPTIMIZERS: dict[str, str] = {
    "GradientDescentOptimizer": "SGD",
    "AdamOptimizer": "Adam",
    "RMSPropOptimizer": "RMSprop",
    "AdagradOptimizer": "Adagrad",
    "AdadeltaOptimizer": "Adadelta",
    "MomentumOptimizer": "SGD",
    "FtrlOptimizer": "Ftrl",
}


def canonical_optimizer(name: str) -> str | None:
    """``'adam'``, ``Adam``, ``optimizers.adam`` (Keras 2 lowercase alias) -> ``Adam``; None if unknown."""
    low = name.lower()
    if low in OPTIMIZERS:
        return OPTIMIZERS[low]
    return TF_TRAIN_OPTIMIZERS.get(name)


LOSSES: dict[str, str] = {
    "mse": "mean_squared_error",
    "mean_squared_error": "mean_squared_error",
    "meansquarederror": "mean_squared_error",
    "mae": "mean_absolute_error",
    "mean_absolute_error": "mean_absolute_error",
    "meanabsoluteerror": "mean_absolute_error",
    "mape": "mean_absolute_percentage_error",
    "mean_absolute_percentage_error": "mean_absolute_percentage_error",
    "meanabsolutepercentageerror": "mean_absolute_percentage_error",
    "msle": "mean_squared_logarithmic_error",
    "mean_squared_logarithmic_error": "mean_squared_logarithmic_error",
    "meansquaredlogarithmicerror": "mean_squared_logarithmic_error",
    "categorical_crossentropy": "categorical_crossentropy",
    "categoricalcrossentropy": "categorical_crossentropy",
    "sparse_categorical_crossentropy": "sparse_categorical_crossentropy",
    "sparsecategoricalcrossentropy": "sparse_categorical_crossentropy",
    "binary_crossentropy": "binary_crossentropy",
    "binarycrossentropy": "binary_crossentropy",
    "binary_focal_crossentropy": "binary_focal_crossentropy",
    "binaryfocalcrossentropy": "binary_focal_crossentropy",
    "hinge": "hinge",
    "squared_hinge": "squared_hinge",
    "squaredhinge": "squared_hinge",
    "categorical_hinge": "categorical_hinge",
    "categoricalhinge": "categorical_hinge",
    "kld": "kullback_leibler_divergence",
    "kl_divergence": "kullback_leibler_divergence",
    "kullback_leibler_divergence": "kullback_leibler_divergence",
    "kldivergence": "kullback_leibler_divergence",
    "poisson": "poisson",
    "cosine_proximity": "cosine_similarity",
    "cosine_similarity": "cosine_similarity",
    "cosinesimilarity": "cosine_similarity",
    "logcosh": "log_cosh",
    "log_cosh": "log_cosh",
    "huber": "huber",
    "huber_loss": "huber",
    "ctc": "ctc",
}


def canonical_loss(name: str) -> str | None:
    """``'mse'``, ``mean_squared_error``, ``MeanSquaredError`` -> ``'mean_squared_error'``; None if unknown."""
    return LOSSES.get(name.lower()) or LOSSES.get(name.lower().replace("_", ""))


ACTIVATIONS: dict[str, str] = {
    "relu": "relu",
    "sigmoid": "sigmoid",
    "softmax": "softmax",
    "tanh": "tanh",
    "linear": "linear",
    "none": "linear",
    "elu": "elu",
    "selu": "selu",
    "softplus": "softplus",
    "softsign": "softsign",
    "hard_sigmoid": "hard_sigmoid",
    "hardsigmoid": "hard_sigmoid",
    "exponential": "exponential",
    "swish": "silu",
    "silu": "silu",
    "gelu": "gelu",
    "relu6": "relu6",
    "leaky_relu": "leaky_relu",
    "leakyrelu": "leaky_relu",
    "log_softmax": "log_softmax",
    "mish": "mish",
    "hard_silu": "hard_silu",
    "hard_swish": "hard_silu",
}


def canonical_activation(name: str | None) -> str | None:
    """``'relu'``, ``activations.relu``, ``tf.nn.relu``, None -> ``'relu'``/``'linear'``; None if unknown."""
    if name is None:
        return "linear"
    return ACTIVATIONS.get(name.lower())


INITIALIZERS: dict[str, str] = {
    "glorot_uniform": "glorot_uniform",
    "glorotuniform": "glorot_uniform",
    "xavier_uniform": "glorot_uniform",
    "glorot_normal": "glorot_normal",
    "glorotnormal": "glorot_normal",
    "xavier_normal": "glorot_normal",
    "he_normal": "he_normal",
    "henormal": "he_normal",
    "he_uniform": "he_uniform",
    "heuniform": "he_uniform",
    "lecun_uniform": "lecun_uniform",
    "lecununiform": "lecun_uniform",
    "lecun_normal": "lecun_normal",
    "lecunnormal": "lecun_normal",
    "zeros": "zeros",
    "zero": "zeros",
    "ones": "ones",
    "one": "ones",
    "uniform": "random_uniform",
    "random_uniform": "random_uniform",
    "randomuniform": "random_uniform",
    "normal": "random_normal",
    "random_normal": "random_normal",
    "randomnormal": "random_normal",
    "truncated_normal": "truncated_normal",
    "truncatednormal": "truncated_normal",
    "orthogonal": "orthogonal",
    "identity": "identity",
    "constant": "constant",
    "variance_scaling": "variance_scaling",
    "variancescaling": "variance_scaling",
}


def canonical_initializer(name: str | None) -> str | None:
    """``'he_normal'``, ``HeNormal``, ``initializers.he_normal``, ``'zero'`` -> canonical string."""
    if name is None:
        return None
    return INITIALIZERS.get(name.lower())


#: regularizer spellings -> canonical kind (``l1``, ``l2``, ``l1_l2``); keyword of the factor(s)
REGULARIZERS: dict[str, str] = {
    "l1": "l1",
    "l2": "l2",
    "l1_l2": "l1_l2",
    "l1l2": "l1_l2",
    "weightregularizer": "l1_l2",
    "orthogonalregularizer": "orthogonal_regularizer",
}
#: default factor per regularizer kind and era (Keras 2 l2(l=0.01); Keras 3 L2(l2=0.01))
REGULARIZER_DEFAULT_FACTOR = 0.01


def canonical_regularizer(name: str | None) -> str | None:
    """``l2``, ``L2``, ``regularizers.l2`` -> ``'l2'``; ``L1L2``/``l1_l2`` -> ``'l1_l2'``; None if unknown."""
    if name is None:
        return None
    return REGULARIZERS.get(name.lower())


CALLBACKS = frozenset(
    [
        "EarlyStopping",
        "ModelCheckpoint",
        "ReduceLROnPlateau",
        "TensorBoard",
        "CSVLogger",
        "LearningRateScheduler",
        "History",
        "ProgbarLogger",
        "LambdaCallback",
        "TerminateOnNaN",
        "RemoteMonitor",
        "BaseLogger",
        "BackupAndRestore",
        "Callback",
        "SwapEMAWeights",
    ]
)
def canonical_callback(name: str) -> str | None:
    """Canonical callback class name, None when not a Keras callback."""
    return name if name in CALLBACKS else None


METRICS: dict[str, str] = {
    "acc": "accuracy",
    "accuracy": "accuracy",
    "categorical_accuracy": "categorical_accuracy",
    "categoricalaccuracy": "categorical_accuracy",
    "sparse_categorical_accuracy": "sparse_categorical_accuracy",
    "sparsecategoricalaccuracy": "sparse_categorical_accuracy",
    "binary_accuracy": "binary_accuracy",
    "binaryaccuracy": "binary_accuracy",
    "top_k_categorical_accuracy": "top_k_categorical_accuracy",
    "auc": "auc",
    "topkcategoricalaccuracy": "top_k_categorical_accuracy",
    "precision": "precision",
    "recall": "recall",
}


def canonical_metric(name: str) -> str:
    """``'acc'`` -> ``'accuracy'``; losses used as metrics get their loss name; else unchanged."""
    low = name.lower()
    return METRICS.get(low) or METRICS.get(low.replace("_", "")) or canonical_loss(name) or name


def default_arg(cls: str, arg: str, era: str = DEFAULT_ERA) -> Any:
    """The default of argument ``arg`` of ``cls`` (layer, optimizer, callback, ``fit``) in ``era``.

    Returns :data:`NO_DEFAULT` when the argument is required or unknown. Activation defaults are
    canonical strings (``'linear'`` for None), tuple arguments are lists (``[1, 1]``).
    """
    table = _DEFAULTS.get(canonical_layer(cls)) or _DEFAULTS.get(canonical_optimizer(cls) or "")
    if table is None or arg not in table:
        return NO_DEFAULT
    value = table[arg]
    if isinstance(value, dict):
        return value.get(era, value.get(DEFAULT_ERA, NO_DEFAULT))
    return value


def defaults_for(cls: str, era: str = DEFAULT_ERA) -> dict[str, Any]:
    """All known defaults of ``cls`` in ``era`` (arguments without a default in that era left out)."""
    table = _DEFAULTS.get(canonical_layer(cls)) or _DEFAULTS.get(canonical_optimizer(cls) or "", {})
    out = {}
    for arg in table:
        v = default_arg(cls, arg, era)
        if v is not NO_DEFAULT:
            out[arg] = v
    return out
