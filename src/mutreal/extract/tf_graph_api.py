"""TensorFlow 1 graph-code knowledge as data: which ``tf.*`` functions build layers, losses and shapes.

The graph front-end (:mod:`mutreal.extract.tf_graph`) reads these tables; nothing here walks code.
Names are the function's last part after ``tensorflow.`` with ``compat.v1.`` removed
(:func:`graph_name`), so ``tf.compat.v1.layers.dense`` and ``tf.layers.dense`` are one entry.
"""

from __future__ import annotations

#: activation functions of ``tf.nn`` / ``tf`` -> the Keras activation name the program model uses
ACTIVATIONS: dict[str, str] = {
    "nn.relu": "relu",
    "nn.relu6": "relu6",
    "nn.elu": "elu",
    "nn.selu": "selu",
    "nn.leaky_relu": "leaky_relu",
    "nn.sigmoid": "sigmoid",
    "sigmoid": "sigmoid",
    "nn.tanh": "tanh",
    "tanh": "tanh",
    "nn.softmax": "softmax",
    "nn.log_softmax": "log_softmax",
    "nn.softplus": "softplus",
    "nn.softsign": "softsign",
    "nn.swish": "swish",
    "math.sigmoid": "sigmoid",
    "math.tanh": "tanh",
}

#: layer functions (``tf.layers``, ``tf.contrib.layers``) -> (Keras class, positional parameters
#: after the input, the default activation when none is written)
LAYER_FUNCTIONS: dict[str, tuple[str, tuple[str, ...], str | None]] = {
    "layers.dense": ("Dense", ("units", "activation", "use_bias"), None),
    "layers.conv1d": ("Conv1D", ("filters", "kernel_size", "strides", "padding"), None),
    "layers.conv2d": ("Conv2D", ("filters", "kernel_size", "strides", "padding"), None),
    "layers.conv3d": ("Conv3D", ("filters", "kernel_size", "strides", "padding"), None),
    "layers.conv2d_transpose": ("Conv2DTranspose", ("filters", "kernel_size", "strides", "padding"), None),
    "layers.max_pooling1d": ("MaxPooling1D", ("pool_size", "strides", "padding"), None),
    "layers.max_pooling2d": ("MaxPooling2D", ("pool_size", "strides", "padding"), None),
    "layers.average_pooling2d": ("AveragePooling2D", ("pool_size", "strides", "padding"), None),
    "layers.dropout": ("Dropout", ("rate",), None),
    "layers.flatten": ("Flatten", (), None),
    "layers.batch_normalization": ("BatchNormalization", ("axis", "momentum", "epsilon"), None),
    "contrib.layers.fully_connected": ("Dense", ("units", "activation"), "relu"),
    "contrib.layers.conv2d": ("Conv2D", ("filters", "kernel_size", "strides", "padding"), "relu"),
    "contrib.layers.max_pool2d": ("MaxPooling2D", ("pool_size", "strides", "padding"), None),
    "contrib.layers.avg_pool2d": ("AveragePooling2D", ("pool_size", "strides", "padding"), None),
    "contrib.layers.flatten": ("Flatten", (), None),
    "contrib.layers.dropout": ("Dropout", ("rate",), None),
    "contrib.layers.batch_norm": ("BatchNormalization", (), None),
    "contrib.slim.fully_connected": ("Dense", ("units", "activation"), "relu"),
    "contrib.slim.conv2d": ("Conv2D", ("filters", "kernel_size", "strides", "padding"), "relu"),
}

#: keyword spellings of the layer functions -> the Keras argument names
LAYER_KWARGS: dict[str, str] = {
    "num_outputs": "units",
    "activation_fn": "activation",
    "weights_initializer": "kernel_initializer",
    "weights_regularizer": "kernel_regularizer",
    "biases_initializer": "bias_initializer",
    "biases_regularizer": "bias_regularizer",
    "keep_prob": "keep_prob",
    "stride": "strides",
}

#: recurrent cells -> the Keras layer the cell run by ``dynamic_rnn``/``static_rnn`` amounts to
RNN_CELLS: dict[str, str] = {
    "BasicLSTMCell": "LSTM",
    "LSTMCell": "LSTM",
    "GRUCell": "GRU",
    "BasicRNNCell": "SimpleRNN",
    "RNNCell": "SimpleRNN",
}

#: functions that run a recurrent cell over a sequence
RNN_RUNNERS = frozenset(
    {"dynamic_rnn", "static_rnn", "rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn"}
)

#: loss functions -> the Keras loss name the program model compares
LOSSES: dict[str, str] = {
    "losses.mean_squared_error": "mean_squared_error",
    "losses.absolute_difference": "mean_absolute_error",
    "losses.softmax_cross_entropy": "categorical_crossentropy",
    "losses.sparse_softmax_cross_entropy": "sparse_categorical_crossentropy",
    "losses.sigmoid_cross_entropy": "binary_crossentropy",
    "losses.log_loss": "binary_crossentropy",
    "losses.hinge_loss": "hinge",
    "losses.huber_loss": "huber",
    "losses.cosine_distance": "cosine_similarity",
    "nn.softmax_cross_entropy_with_logits": "categorical_crossentropy",
    "nn.softmax_cross_entropy_with_logits_v2": "categorical_crossentropy",
    "nn.sparse_softmax_cross_entropy_with_logits": "sparse_categorical_crossentropy",
    "nn.sigmoid_cross_entropy_with_logits": "binary_crossentropy",
    "nn.weighted_cross_entropy_with_logits": "weighted_binary_crossentropy",
    "nn.l2_loss": "l2_loss",
    "nn.ctc_loss": "ctc",
    "nn.nce_loss": "nce",
    "nn.sampled_softmax_loss": "sampled_softmax",
    "contrib.losses.mean_squared_error": "mean_squared_error",
    "contrib.losses.softmax_cross_entropy": "categorical_crossentropy",
    "contrib.legacy_seq2seq.sequence_loss": "sparse_categorical_crossentropy",
    "contrib.seq2seq.sequence_loss": "sparse_categorical_crossentropy",
}

#: reductions that keep a loss what it is (their mean/sum over the batch)
REDUCTIONS = frozenset({"reduce_mean", "reduce_sum", "math.reduce_mean", "math.reduce_sum"})

#: shape-changing tensor operations -> names of their shape arguments (positional order after the
#: tensor); the operations the study's TWS faults are edits of
SHAPE_OPS: dict[str, tuple[str, ...]] = {
    "reshape": ("shape",),
    "expand_dims": ("axis",),
    "squeeze": ("axis",),
    "transpose": ("perm",),
    "stack": ("axis",),
    "pack": ("axis",),
    "unstack": ("num", "axis"),
    "unpack": ("num", "axis"),
    "concat": ("axis",),
    "split": ("num_or_size_splits", "axis"),
    "tile": ("multiples",),
    "slice": ("begin", "size"),
    "gather": ("indices", "axis"),
    "gather_nd": ("indices",),
    "one_hot": ("depth",),
    "image.resize_images": ("size",),
    "TensorShape": ("dims",),
    "random_crop": ("size",),
    "image.resize_image_with_crop_or_pad": ("target_height", "target_width"),
    "image.resize": ("size",),
    "pad": ("paddings",),
    "broadcast_to": ("shape",),
}

#: shape operations that take no tensor: their first argument is already the shape
SHAPE_CONSTRUCTORS = frozenset({"TensorShape"})

#: shape-changing operations that only become a tensor op when an argument names a shape or axis
SHAPE_OPS_NEEDING_ARGS: frozenset[str] = frozenset()

#: calls that create a session (training loops run ``session.run(train_op, feed_dict=...)``)
SESSIONS = frozenset(
    {"Session", "InteractiveSession", "train.MonitoredTrainingSession", "train.MonitoredSession"}
)

#: initialiser functions -> the Keras initializer name
INITIALISERS: dict[str, str] = {
    "random_normal": "random_normal",
    "truncated_normal": "truncated_normal",
    "random_uniform": "random_uniform",
    "zeros": "zeros",
    "ones": "ones",
    "constant": "constant",
    "random_normal_initializer": "random_normal",
    "truncated_normal_initializer": "truncated_normal",
    "random_uniform_initializer": "random_uniform",
    "zeros_initializer": "zeros",
    "ones_initializer": "ones",
    "constant_initializer": "constant",
    "glorot_uniform_initializer": "glorot_uniform",
    "glorot_normal_initializer": "glorot_normal",
    "contrib.layers.xavier_initializer": "glorot_uniform",
    "variance_scaling_initializer": "variance_scaling",
    "initializers.he_normal": "he_normal",
}


def graph_name(qn: str) -> str | None:
    """``tensorflow.compat.v1.nn.relu`` -> ``nn.relu``; None for a name outside TensorFlow."""
    if not qn.startswith("tensorflow."):
        return None
    name = qn[len("tensorflow.") :]
    for prefix in ("compat.v1.", "compat.v2.", "python.ops.", "python."):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    if name.startswith("contrib.rnn.") or name.startswith("nn.rnn_cell."):
        name = "rnn." + name.rsplit(".", 1)[-1]
    return name
