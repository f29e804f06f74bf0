"""The readings beneath four decisions, one branch per row, on hand-built model elements.

- ``_input_shape``: which argument of a layer declares the model's input (each of the five
  spellings, their precedence, and an Embedding's ``input_dim``, which is its vocabulary size);
- ``_full_batch`` (decision HBS-full-batch): ``batch_size=len(x)`` / ``x.shape[0]`` of the very
  array the call trains on, inputs or labels, and not of another array;
- ``_monitors_validation``: a training-changing callback that watches a ``val_*`` quantity;
- ``repeats_idempotent_activation``: an Activation layer repeating the idempotent activation of
  the layer before it.

test_noise_positive_controls.py shows each on whole programs; this file pins every argument name
and every branch on its own, so a renamed key or a flipped condition changes a row.
"""

from __future__ import annotations

import pytest

from mutreal.compare.fit import _full_batch, _monitors_validation
from mutreal.compare.layers import _input_shape, repeats_idempotent_activation
from mutreal.program.model import Callback, Fit, FoldedLayer, Layer, Value

C = Value.const
SHAPE = C((28, 28, 1))
OTHER = C((4,))


@pytest.mark.parametrize("key", ["input_shape", "batch_input_shape", "input_dim", "shape", "batch_shape"])
def test_each_input_spelling_declares_the_input(key):
    assert _input_shape(Layer("Dense", {"units": C(8), key: SHAPE})) is SHAPE


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("input_shape", "batch_input_shape"),
        ("input_shape", "input_dim"),
        ("batch_input_shape", "input_dim"),
        ("input_dim", "shape"),
        ("shape", "batch_shape"),
    ],
)
def test_input_spellings_have_a_precedence(first, second):
    # both written: the earlier spelling of the list is the one read
    assert _input_shape(Layer("Dense", {second: OTHER, first: SHAPE})) is SHAPE


def test_a_layer_without_an_input_spelling_declares_none():
    assert _input_shape(Layer("Dense", {"units": C(8), "activation": C("relu")})) is None


def test_an_embeddings_input_dim_is_its_vocabulary_not_an_input_shape():
    assert _input_shape(Layer("Embedding", {"input_dim": C(1000), "output_dim": C(64)})) is None
    length = C(50)
    assert _input_shape(Layer("Embedding", {"input_dim": C(1000), "input_shape": length})) is length
    # the spellings after input_dim are still read for an Embedding
    batch = C((None, 50))
    assert _input_shape(Layer("Embedding", {"input_dim": C(1000), "batch_shape": batch})) is batch
    # a Dense layer's input_dim is its input width
    assert _input_shape(Layer("Dense", {"input_dim": C(1000)})).value == 1000


def _fit(x: str | None = "x_train", y: str | None = "y_train") -> Fit:
    args = {}
    if x is not None:
        args["x"] = Value("name", x, text=x)
    if y is not None:
        args["y"] = Value("name", y, text=y)
    return Fit(index=0, args=args)


def _opaque(text: str) -> Value:
    return Value.opaque(text)


@pytest.mark.parametrize(
    ("batch", "fit", "expected"),
    [
        ("len(x_train)", _fit(), True),
        ("len( x_train )", _fit(), True),
        ("x_train.shape[0]", _fit(), True),
        ("len(y_train)", _fit(), True),  # the labels have as many rows as the inputs
        ("y_train.shape[0]", _fit(), True),
        ("len(y_train)", _fit(y=None), False),  # labels this call does not train on
        ("len(x_train)", _fit(x=None), False),
        ("len(y_train)", _fit(x=None), True),
        ("len(df)", _fit(), False),  # another array's length: unknown, not the full batch
        ("x_test.shape[0]", _fit(), False),
        ("x_train.shape[1]", _fit(), False),  # a feature count, not the sample count
        ("x_train", _fit(), False),  # not a length at all
        ("len(x_train) // 2", _fit(), False),  # half the data
    ],
)
def test_full_batch_reads_the_length_of_the_trained_arrays(batch, fit, expected):
    assert _full_batch(_opaque(batch), fit) is expected


def test_full_batch_of_nothing_or_a_number():
    assert _full_batch(None, _fit()) is False
    assert _full_batch(C(32, text="32"), _fit()) is False


def _callback(cls: str, monitor: Value | None = None, known: bool = True) -> Callback:
    return Callback(cls, {} if monitor is None else {"monitor": monitor}, known=known)


@pytest.mark.parametrize(
    ("callbacks", "expected"),
    [
        ([], False),
        ([_callback("EarlyStopping")], True),  # monitor defaults to val_loss
        ([_callback("ReduceLROnPlateau")], True),
        ([_callback("EarlyStopping", C("val_accuracy"))], True),
        ([_callback("EarlyStopping", C("loss"))], False),  # a training quantity
        ([_callback("ReduceLROnPlateau", C("acc"))], False),
        ([_callback("EarlyStopping", Value.opaque("'val_loss'"))], True),  # quoted source text
        ([_callback("EarlyStopping", Value.opaque("metric_name"))], False),
        ([_callback("ModelCheckpoint", C("val_loss"))], False),  # does not change training
        ([_callback("ModelCheckpoint"), _callback("EarlyStopping")], True),  # any one of them
        ([_callback("EarlyStopping", C("loss")), _callback("ReduceLROnPlateau")], True),
        ([_callback("EarlyStopping", known=False)], False),  # a custom class of that name
    ],
)
def test_monitors_validation(callbacks, expected):
    assert _monitors_validation(Fit(index=0, callbacks=callbacks)) is expected


def _folded(cls: str, activation: str | None, args: dict | None = None) -> FoldedLayer:
    act = None if activation is None else C(activation)
    layer_args = dict(args or {})
    if cls == "Activation" and activation is not None:
        layer_args["activation"] = act
    return FoldedLayer(Layer(cls, layer_args), [0], act)


@pytest.mark.parametrize(
    ("fold", "index", "expected"),
    [
        ([_folded("Dense", "relu"), _folded("Activation", "relu")], 1, True),
        ([_folded("Dense", "linear"), _folded("Activation", "linear")], 1, True),
        ([_folded("Dense", "relu6"), _folded("Activation", "relu6")], 1, True),
        ([_folded("Dense", None), _folded("Activation", None)], 1, True),  # no activation: linear twice
        ([_folded("Dense", "tanh"), _folded("Activation", "tanh")], 1, False),  # tanh(tanh(x)) differs
        ([_folded("Dense", "sigmoid"), _folded("Activation", "relu")], 1, False),  # another function
        ([_folded("Dense", "relu"), _folded("Activation", "softmax")], 1, False),
        ([_folded("Dense", "relu"), _folded("Dense", "relu")], 1, False),  # a layer of its own
        ([_folded("Activation", "relu"), _folded("Dense", "relu")], 0, False),  # nothing before it
        ([_folded("Dense", "relu"), _folded("ReLU", "relu")], 1, True),  # ReLU() is an activation layer
        ([_folded("Dense", "relu"), _folded("ReLU", "relu", {"max_value": C(6)})], 1, False),
    ],
)
def test_repeated_idempotent_activation(fold, index, expected):
    assert repeats_idempotent_activation(fold, index) is expected
