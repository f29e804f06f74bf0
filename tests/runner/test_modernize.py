"""mutreal modernize: Keras 1/2 spellings rewritten for current Keras, each change listed."""

from __future__ import annotations

import json

import libcst
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.cli import main
from mutreal.compat.modernize import modernize_source

LEGACY = """\
from keras.models import Sequential
from keras.layers.core import Dense, Dropout, Flatten
from keras.layers import Convolution2D, MaxPooling2D
from keras.optimizers import SGD, adam
from keras.utils import np_utils
import keras

model = Sequential()
model.add(Convolution2D(32, 3, 3, border_mode='same', input_shape=(8, 8, 1), dim_ordering='tf'))
model.add(keras.layers.Convolution2D(16, 3, 3, 'glorot_uniform', 'relu'))
model.add(Dense(output_dim=64, init='uniform'))  # hidden layer
model.add(Dropout(p=0.5))
sgd = SGD(lr=0.01, decay=1e-6, momentum=0.9, nesterov=True)
other = adam(lr=0.001)
y = np_utils.to_categorical([1, 2], 10)
model.fit(x, y, nb_epoch=20, batch_size=32, show_accuracy=True)
model.fit_generator(gen, steps_per_epoch=10, nb_epoch=2)
print(model.optimizer.lr)
"""


def test_legacy_program_is_rewritten_for_current_keras():
    result = modernize_source(LEGACY)
    text = result.source
    assert "from keras.layers import Dense, Dropout, Flatten" in text
    assert "from keras.layers import Conv2D, MaxPooling2D" in text
    assert "from keras import utils as np_utils" in text
    assert "Conv2D(32, (3, 3), padding='same', input_shape=(8, 8, 1), data_format='channels_last')" in text
    assert "keras.layers.Conv2D(16, (3, 3), kernel_initializer='glorot_uniform', activation='relu')" in text
    assert "Dense(units=64, kernel_initializer='uniform'))  # hidden layer" in text
    assert "Dropout(rate=0.5)" in text
    assert "SGD(learning_rate=0.01, momentum=0.9, nesterov=True)" in text and "decay" not in text
    assert "Adam(learning_rate=0.001)" in text
    assert "model.fit(x, y, epochs=20, batch_size=32)" in text
    assert "model.fit(gen, steps_per_epoch=10, epochs=2)" in text
    assert "model.optimizer.learning_rate" in text
    kinds = {(c.line, c.kind) for c in result.changes}
    assert (13, "removed argument") in kinds and (2, "import") in kinds and (9, "kernel size") in kinds
    assert all(c.line > 0 for c in result.changes)
    compile(text, "modernized.py", "exec")


def test_generator_keyword_of_the_generator_methods_becomes_x():
    """``fit_generator(generator=g)``: ``fit`` takes the generator as ``x``; a plain ``fit`` keeps its
    keywords (``generator=`` there is the program's own error, not ours to hide)."""
    source = (
        "h = model.fit_generator(generator=batches, steps_per_epoch=5, epochs=2)\n"
        "s = model.evaluate_generator(generator=batches, steps=3)\n"
        "p = model.predict_generator(generator=batches, steps=3)\n"
        "q = model.fit(generator=batches)\n"
    )
    text = modernize_source(source).source
    assert "model.fit(x=batches, steps_per_epoch=5, epochs=2)" in text
    assert "model.evaluate(x=batches, steps=3)" in text and "model.predict(x=batches, steps=3)" in text
    assert "model.fit(generator=batches)" in text


def test_current_program_is_left_alone():
    current = "import keras\nm = keras.Sequential([keras.layers.Dense(3, activation='relu')])\nm.fit(x, y, epochs=2)\n"
    result = modernize_source(current)
    assert result.source == current and not result.changes


def test_unsupported_apis_are_reported_not_rewritten():
    result = modernize_source(
        "from keras.preprocessing.image import ImageDataGenerator\nc = model.predict_classes(x)\n"
    )
    assert any("ImageDataGenerator" in w for w in result.warnings)
    assert any("predict_classes" in w for w in result.warnings)


names = st.sampled_from(["lr", "nb_epoch", "init", "border_mode", "units", "epochs", "learning_rate"])


@settings(deadline=None)  # a LibCST parse takes over 200 ms on a loaded machine
@given(keyword=names, value=st.integers(0, 1000))
def test_rewriting_is_idempotent(keyword, value):
    source = f"model.fit(x, {keyword}={value})\nopt = SGD({keyword}={value})\nlayer = Dense(4, {keyword}={value})\n"
    once = modernize_source(source).source
    twice = modernize_source(once)
    assert twice.source == once and not twice.changes


def test_cli_lists_changes_and_writes_json(tmp_path):
    program = tmp_path / "old.py"
    program.write_text(LEGACY)
    runner = CliRunner()
    result = runner.invoke(main, ["modernize", str(program), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert any(c["after"] == "epochs=" for c in data["changes"])
    out = tmp_path / "new.py"
    result = runner.invoke(main, ["modernize", str(program), "--out", str(out)])
    assert result.exit_code == 0 and "nb_epoch" not in out.read_text()
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    result = runner.invoke(main, ["modernize", str(broken)])
    assert result.exit_code == 1 and "cannot parse" in result.output
    nested = tmp_path / "new" / "dir" / "new.py"
    result = runner.invoke(main, ["modernize", str(program), "--out", str(nested)])
    assert result.exit_code == 0 and "nb_epoch" not in nested.read_text()
    result = runner.invoke(main, ["modernize", str(program), "--out", str(out / "x.py")])
    assert result.exit_code == 1 and "cannot write" in result.output
    assert isinstance(result.exception, SystemExit)  # not an OSError traceback


def test_parse_error_is_raised_by_the_api():
    with pytest.raises(libcst.ParserSyntaxError):
        modernize_source("print 'python 2'\n")


FUNCTIONAL_TF_OPS = """\
import numpy as np
import tensorflow as tf
from tensorflow.keras.layers import Dense, Input

left, right = Input(shape=(4,)), Input(shape=(6,))
both = tf.concat([left, right], -1)
pooled = tf.reduce_mean(tf.expand_dims(both, axis=1), axis=1, name='pool')
odd = tf.concat([left, right], axis=-1, conjugate=True)
arrays = np.concatenate([np.zeros(2), np.ones(2)])
"""


def test_tf_ops_on_functional_tensors_become_keras_ops():
    result = modernize_source(FUNCTIONAL_TF_OPS)
    text = result.source
    assert "both = tf.keras.ops.concatenate([left, right], -1)" in text
    assert "pooled = tf.keras.ops.mean(tf.keras.ops.expand_dims(both, axis=1), axis=1)" in text
    assert "odd = tf.concat([left, right], axis=-1, conjugate=True)" in text  # no keras.ops counterpart
    assert "np.concatenate" in text
    assert sum(c.kind == "tensorflow op" for c in result.changes) == 3
    compile(text, "modernized.py", "exec")
    # a TF 1 graph program (no functional Input) keeps its TensorFlow ops as written
    graph = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 3])\ny = tf.concat([x, x], 1)\n"
    assert modernize_source(graph).source == graph


def test_weights_only_checkpoint_paths_get_the_keras3_ending():
    source = (
        "import keras\n"
        "a = keras.callbacks.ModelCheckpoint(filepath='best', save_weights_only=True, monitor='val_loss')\n"
        "b = keras.callbacks.ModelCheckpoint('w.hdf5', save_weights_only=True)\n"
        "c = keras.callbacks.ModelCheckpoint('model.keras')\n"
        "d = keras.callbacks.ModelCheckpoint(path, save_weights_only=True)\n"
    )
    result = modernize_source(source)
    assert "filepath='best.weights.h5', save_weights_only=True" in result.source
    assert "ModelCheckpoint('w.weights.h5', save_weights_only=True)" in result.source
    assert "ModelCheckpoint('model.keras')" in result.source and "ModelCheckpoint(path," in result.source
    assert [c.line for c in result.changes] == [2, 3]
    assert modernize_source(result.source).source == result.source  # idempotent
