"""What sort of program element a fault component changed.

The kind is what :mod:`mutreal.label.codes` maps to a fault code, so it is a closed set: a kind the
labels do not know is a programming error to be caught, not a component to be guessed at. The
values are the strings the results files have always held (``"layer.activation"``), so JSON output
does not change.
"""

from __future__ import annotations

from mutreal.serialise import TextEnum


class ComponentKind(TextEnum):
    """The kinds of element the comparison emits (one per sort of change)."""

    LAYER_ACTIVATION = "layer.activation"
    LAYER_MISSING = "layer.missing"
    LAYER_REDUNDANT = "layer.redundant"
    LAYER_TYPE = "layer.type"
    LAYER_UNITS = "layer.units"
    LAYER_KERNEL_SIZE = "layer.kernel_size"
    LAYER_STRIDES = "layer.strides"
    LAYER_INPUT_SHAPE = "layer.input_shape"
    LAYER_OUTPUT_SHAPE = "layer.output_shape"
    LAYER_PADDING = "layer.padding"
    LAYER_POOL_SIZE = "layer.pool_size"
    LAYER_RATE = "layer.rate"
    LAYER_KERNEL_INITIALIZER = "layer.kernel_initializer"
    LAYER_BIAS_INITIALIZER = "layer.bias_initializer"
    LAYER_REGULARIZER = "layer.regularizer"
    LAYER_USE_BIAS = "layer.use_bias"
    LAYER_RETURN_SEQUENCES = "layer.return_sequences"
    LAYER_BN_EPSILON = "layer.bn_epsilon"
    LAYER_BN_MOMENTUM = "layer.bn_momentum"
    MODEL_ARCHITECTURE = "model.architecture"
    COMPILE_LOSS = "compile.loss"
    COMPILE_LOSS_CALCULATION = "compile.loss_calculation"
    COMPILE_OPTIMIZER = "compile.optimizer"
    COMPILE_LEARNING_RATE = "compile.learning_rate"
    COMPILE_CLIPPING = "compile.clipping"
    COMPILE_EPSILON = "compile.epsilon"
    COMPILE_METRIC = "compile.metric"
    FIT_EPOCHS = "fit.epochs"
    FIT_BATCH_SIZE = "fit.batch_size"
    FIT_VALIDATION = "fit.validation"
    FIT_PATIENCE = "fit.patience"
    DATA_PREPROCESS = "data.preprocess"
    DATA_INPUT_FORMAT = "data.input_format"
    DATA_RESHAPE = "data.reshape"
    DATA_SIZE = "data.size"
    DATA_TRAINING_DATA = "data.training_data"
    DATA_SOURCE_FILE = "data.source_file"
    DATA_LABELS = "data.labels"
    TENSOR_SHAPE = "tensor.shape"
    EVALUATION_STEPS = "evaluation.steps"
    SESSION_MEMORY = "session.memory"
    DATA_BATCHING = "data.batching"
    MODEL_INITIALISATION = "model.initialisation"
    GRAPH_API = "graph.api"
    #: a custom layer or model class written against the framework's contract (Keras programs)
    CUSTOM_CLASS_API = "custom_class.api"
    GRAPH_DEPRECATED_API = "graph.deprecated_api"
    GRAPH_VARIABLE_SCOPE = "graph.variable_scope"

    @classmethod
    def _missing_(cls, value: object) -> ComponentKind:
        """A kind the labels do not know is an error that names it, wherever it is read."""
        raise ValueError(f"unknown fault component kind {value!r}")
