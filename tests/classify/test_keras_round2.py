"""Keras rules of the second round on every change accounted for (issue #30): each pinned both ways,
a case the rule explains and a near case it must leave alone. Programs are written for these tests."""

from __future__ import annotations

_EMBEDDED = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Embedding, Flatten, Dense

x = np.random.randint(0, 40, (90, 6))
y = np.random.randint(0, 2, 90)
lookup = np.zeros((40, 4))
for row in range(40):
    lookup[row] = np.full(4, row / 40.0)
net = Sequential()
net.add(Embedding(40, 4, input_length=6))
net.add(Flatten())
net.add(Dense(1, activation='sigmoid'))
{tail}net.compile(loss='binary_crossentropy', optimizer='sgd')
net.fit(x, y, epochs=2, batch_size=10)
"""


def _codes(result):
    return sorted(c.code for c in result.components)


def test_starting_weights_taken_out_are_wci_and_explain_the_table(classify_texts):
    """Decision WCI-set-weights: the table a layer started from, set with set_weights, removed."""
    buggy = _EMBEDDED.format(tail="net.layers[0].set_weights([lookup])\nnet.layers[0].trainable = False\n")
    fixed = _EMBEDDED.format(tail="")
    result = classify_texts(buggy, fixed)
    assert _codes(result) == ["WCI"]
    assert result.components[0].element.endswith("weights")


def test_a_saved_model_loaded_is_not_wci(classify_texts):
    """A whole model's weights restored from a file are set-up: no initialisation component."""
    buggy = _EMBEDDED.format(tail="net.load_weights('previous_run.h5')\n")
    fixed = _EMBEDDED.format(tail="")
    assert "WCI" not in _codes(classify_texts(buggy, fixed))


def test_same_starting_weights_on_both_sides_are_no_change(classify_texts):
    """Weights given on both sides, written alike, are no component (they are not compared)."""
    source = _EMBEDDED.format(tail="net.layers[0].set_weights([lookup])\n")
    other = source.replace("epochs=2", "epochs=2 ")
    assert _codes(classify_texts(source, other)) == []


_KERAS_MNIST = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
from keras.datasets import mnist

(x_train, y_train), (x_test, y_test) = mnist.load_data()
x_train = x_train.reshape(60000, 784) / 255.0
model = Sequential()
model.add(Dense(10, activation='softmax', input_shape=(784,)))
model.compile(loss='sparse_categorical_crossentropy', optimizer='adam')
model.fit(x_train, y_train, epochs=4, batch_size=64)
"""

_TUTORIAL_MNIST = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
from {module} import input_data

digits = input_data.read_data_sets('/tmp/mnist_copy/', one_hot=False)
x_train, y_train = digits.train.next_batch(60000)
x_train = x_train.reshape(60000, 784) / 255.0
model = Sequential()
model.add(Dense(10, activation='softmax', input_shape=(784,)))
model.compile(loss='sparse_categorical_crossentropy', optimizer='adam')
model.fit(x_train, y_train, epochs=4, batch_size=64)
"""


def test_tutorial_mnist_loader_in_a_keras_program_is_the_real_data_set():
    """TensorFlow 1's tutorial loader read by a Keras program: MNIST, real data, its batch a slice."""
    from mutreal.extract import extract_source

    model = extract_source(_TUTORIAL_MNIST.format(module="tensorflow.examples.tutorials.mnist"))
    source = model.data["x_train"].source
    assert (source.kind, source.name, source.origin) == ("keras_dataset", "mnist", "real")
    assert model.data["y_train"].source.name == "mnist"


def test_tutorial_mnist_for_keras_mnist_leaves_no_change_unexplained(classify_texts):
    result = classify_texts(_KERAS_MNIST, _TUTORIAL_MNIST.format(module="tensorflow.examples.tutorials.mnist"))
    assert result.unexplained == []


def test_a_loader_of_that_name_elsewhere_is_not_mnist():
    """Near case: a user module's read_data_sets is no known data set."""
    from mutreal.extract import extract_source

    model = extract_source(_TUTORIAL_MNIST.format(module="myproject.loaders"))
    source = model.data["x_train"].source
    assert source.name != "mnist"


_CHANNELS = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Conv2D, Flatten, Dense

pics = np.random.rand(64, 784)
tags = np.random.randint(0, 2, 64)
pics = pics.reshape(pics.shape[0], {data_shape})
model = Sequential()
model.add(Conv2D(4, (3, 3), activation='relu', input_shape=({model_shape})))
model.add(Flatten())
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(pics, tags, epochs=2, batch_size=8)
"""


def test_data_reshaped_to_the_new_input_shape_is_the_lis(classify_texts):
    """Decision LIS-reshape-once: the reshape to the new declared shape is the LIS's statement."""
    buggy = _CHANNELS.format(data_shape="1, 28, 28", model_shape="1, 28, 28")
    fixed = _CHANNELS.format(data_shape="28, 28, 1", model_shape="28, 28, 1")
    result = classify_texts(buggy, fixed)
    assert _codes(result) == ["LIS"]
    assert result.unexplained == []
    assert result.explained_statements == 2  # the declared shape and the reshape
    assert "compared_equal" not in result.noise_statements


def test_a_reshape_to_another_shape_is_not_the_lis(classify_texts):
    """Near case (decision LIS-reshape-elsewhere): the data reshaped to a shape the model does not
    declare is a step of its own: the LIS does not point at it."""
    buggy = _CHANNELS.format(data_shape="1, 28, 28", model_shape="1, 28, 28")
    fixed = _CHANNELS.format(data_shape="784, 1, 1", model_shape="28, 28, 1")
    from mutreal.compare.pipeline import diff_models
    from mutreal.extract import extract_source

    components = diff_models(extract_source(buggy), extract_source(fixed))
    lis = [c for c in components if c.kind.value == "layer.input_shape"]
    assert lis and 7 not in (lis[0].detail.get("fixed_lines") or [])
    assert "CPP" in _codes(classify_texts(buggy, fixed))


_TABLE = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense

xs = {open_}[[1., 2.], [2., 1.], [3., 5.], [4., 4.]]{close}
ys = {open_}[[3.], [3.], [8.], [8.]]{close}
model = Sequential()
model.add(Dense(1, input_dim=2))
model.compile(loss='mse', optimizer='sgd')
model.fit(xs, ys, epochs=20)
"""


def test_a_written_out_list_made_an_array_is_one_iwf(classify_texts):
    """Decision IWF-format: the same table handed to fit as lists, then as arrays: one IWF."""
    buggy = _TABLE.format(open_="", close="")
    fixed = _TABLE.format(open_="np.array(", close=")")
    result = classify_texts(buggy, fixed)
    assert _codes(result) == ["IWF"]
    assert result.unexplained == []


def test_another_table_as_an_array_is_not_iwf(classify_texts):
    """Near case: an array of another shape is other data, not the same table's format."""
    buggy = _TABLE.format(open_="", close="")
    fixed = _TABLE.format(open_="np.array(", close=")")
    fixed = fixed.replace("[[1., 2.], [2., 1.], ", "[[1., 2.], ").replace("[[3.], [3.], ", "[[3.], ")
    assert "IWF" not in _codes(classify_texts(buggy, fixed))


_CROPPED = """\
import numpy as np
import tensorflow as tf
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Flatten, Dense

frames = np.random.rand(32, 28, 28, 1)
marks = np.random.randint(0, 2, 32)
frames = tf.image.resize_with_crop_or_pad(frames, {side}, {side})
net = Sequential()
net.add(Flatten())
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='adam')
net.fit(frames, marks, epochs=2{more})
"""


def test_images_cropped_to_another_size_are_cpp(classify_texts):
    """A crop to a size is a preprocessing step like a resize: another size is CPP."""
    result = classify_texts(_CROPPED.format(side=20, more=""), _CROPPED.format(side=24, more=""))
    assert _codes(result) == ["CPP"]
    assert result.unexplained == []


def test_images_cropped_alike_are_no_cpp(classify_texts):
    """Near case: the same crop on both sides is no step changed."""
    result = classify_texts(_CROPPED.format(side=20, more=""), _CROPPED.format(side=20, more=", batch_size=8"))
    assert "CPP" not in _codes(result)
