"""Rewritten blocks (:mod:`mutreal.compare.rewritten_blocks`): a function or class is one element.

Each rule both ways: the block its component explains, and the near case it must leave alone.
"""

from __future__ import annotations

from mutreal.compare.components import FaultComponent
from mutreal.compare.rewritten_blocks import (
    compound_ends,
    custom_layer_components,
    extend_to_bodies,
    extend_to_builders,
    placeholder_arguments,
)
from mutreal.compare.statements import statements_of

HEAD = """import numpy as np
from keras import backend as K
from keras.layers import Conv2D, Dense, Flatten, Input, Layer
from keras.models import Model

"""

TAIL = """

grid = np.random.rand(30, 6, 6, 2)
kinds = np.eye(2)[np.random.randint(0, 2, 30)]
entry = Input((6, 6, 2))
h = Doubled(2)(entry)
h = Flatten()(h)
net = Model(entry, Dense(2, activation="softmax")(h))
net.compile(loss="categorical_crossentropy", optimizer="sgd")
net.fit(grid, kinds, epochs=3, batch_size=6)
"""

AS_MODEL = """class Doubled(Model):
    def __init__(self, width):
        x = Input((None, None, width))
        y = Conv2D(width, 1, activation="tanh")(x)
        super(Doubled, self).__init__(x, y)
"""

AS_LAYER = """class Doubled(Layer):
    def __init__(self, width, **kwargs):
        self.width = width
        super(Doubled, self).__init__(**kwargs)

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", (1, 1, self.width, self.width), initializer="glorot_uniform")
        super(Doubled, self).build(input_shape)

    def call(self, x):
        return K.tanh(K.conv2d(x, self.kernel))
"""


def test_a_custom_model_rewritten_as_a_layer_is_one_APW_explaining_every_statement(classify_texts):
    result = classify_texts(HEAD + AS_MODEL + TAIL, HEAD + AS_LAYER + TAIL)
    assert [(c.code, c.element) for c in result.components] == [("APW", "class[Doubled]")]
    assert result.unexplained == []
    assert result.changed_statements == result.explained_statements > 5


def test_a_statement_changed_in_place_in_a_custom_layer_is_no_APW(classify_texts):
    padded = AS_LAYER.replace("self.kernel))", 'self.kernel, padding="same"))')
    result = classify_texts(HEAD + AS_LAYER + TAIL, HEAD + padded + TAIL)
    assert "APW" not in [c.code for c in result.components]
    assert [u["after"] for u in result.unexplained] == [
        'return K.tanh(K.conv2d(x, self.kernel, padding="same"))'
    ]


def _statements(text: str, name: str, cache: dict | None = None):
    return statements_of(text, name, None, cache)


def test_a_class_whose_base_is_no_keras_name_is_not_taken():
    own = "import tensorflow as tf\nimport base\n\n\nclass Net(base.Model):\n    def fit(self):\n        return 1\n"
    grown = own + "\n    def predict(self):\n        if self:\n            return 2\n"
    assert custom_layer_components(_statements(own, "b"), _statements(grown, "f"), []) == []
    keras_own = own.replace("import base", "from tensorflow import keras as base")
    keras_grown = grown.replace("import base", "from tensorflow import keras as base")
    found = custom_layer_components(_statements(keras_own, "b"), _statements(keras_grown, "f"), [])
    assert [c.element for c in found] == ["class[Net]"]


def test_a_class_a_component_points_into_is_left_to_that_component():
    b, f = _statements(HEAD + AS_MODEL, "b"), _statements(HEAD + AS_LAYER, "f")
    assert len(custom_layer_components(b, f, [])) == 1
    inside = FaultComponent("model[0]", "layer.activation", "changed", buggy_file="b", buggy_line=8)
    assert custom_layer_components(b, f, [inside]) == []


SCHEDULE_B = "rate = lambda epoch: 0.1\nopt = SGD(lr=rate(0))\n"
SCHEDULE_F = (
    "def rate(epoch):\n    warm = min(epoch, 3)\n    return 0.01 * (warm + 1)\nopt = SGD(lr=rate(0))\n"
)


def test_a_component_whose_value_is_a_function_covers_its_body():
    schedule = FaultComponent(
        "compile", "compile.learning_rate", "changed", "rate: return 0.1", "rate: ...", "b", 1, "f", 1
    )
    extend_to_bodies(
        [schedule], _statements(SCHEDULE_B, "b"), _statements(SCHEDULE_F, "f"), (SCHEDULE_B, SCHEDULE_F)
    )
    assert schedule.detail["fixed_lines"] == [2, 3]


def test_a_header_pointed_at_for_a_default_argument_does_not_cover_the_method():
    b = "class Trainer:\n    def __init__(self, epochs=400):\n        self.epochs = epochs\n"
    f = "class Trainer:\n    def __init__(self, epochs=1):\n        self.epochs = epochs\n        self.steps = 3\n"
    epochs = FaultComponent(
        "fit", "fit.epochs", "changed", b.splitlines()[1], f.splitlines()[1], "b", 2, "f", 2
    )
    extend_to_bodies([epochs], _statements(b, "b"), _statements(f, "f"), (b, f))
    assert epochs.detail == {}


OPTIMISER = "class Doubler(Base):\n    def rate(self):\n        return 2\n\n\nopt = Doubler(0.5)\n"


def test_a_class_the_fix_adds_with_its_use_is_covered_by_that_use_s_component():
    b = "opt = Base(0.5)\n"
    optimiser = FaultComponent(
        "compile", "compile.optimizer", "changed", "Base(0.5)", "Doubler(0.5)", "b", 1, "f", 6
    )
    extend_to_bodies([optimiser], _statements(b, "b"), _statements(OPTIMISER, "f"), (b, OPTIMISER))
    assert optimiser.detail["fixed_lines"] == [1, 2, 3]


def test_a_helper_the_buggy_snippet_already_calls_is_its_completion_not_the_component_s():
    b = "opt = Doubler(0.5)\nother = 1\n"
    optimiser = FaultComponent("compile", "compile.optimizer", "changed", "x", "y", "b", 1, "f", 6)
    extend_to_bodies([optimiser], _statements(b, "b"), _statements(OPTIMISER, "f"), (b, OPTIMISER))
    assert optimiser.detail == {}


def test_compound_ends_read_the_source_where_a_cached_header_keeps_the_other_side_s_end():
    short = "def f():\n    return 1\n"
    long = "def f():\n    a = 2\n    return a\n"
    cache: dict = {}
    _statements(short, "b", cache)
    header = _statements(long, "f", cache)[0]
    assert compound_ends(long)[header.line] == 3


BUILT_B = "estimator = Sequential()\nestimator.add(Dense(4))\nestimator.add(Dense(1))\nestimator.fit(x, y)\n"
BUILT_F = (
    "widths = [4, 1]\nestimator = Sequential()\nfor k in range(len(widths)):\n"
    "    if k == 0:\n        estimator.add(Dense(widths[k]))\n    else:\n        estimator.add(Dense(1))\n"
    "estimator.fit(x, y)\n"
)


def _architecture() -> FaultComponent:
    return FaultComponent("model[0]", "model.architecture", "changed", "2 layers", "2 layers", "b", 1, "f", 2)


def test_the_loop_and_conditions_that_add_a_rebuilt_model_s_layers_are_its_component_s():
    architecture = _architecture()
    b, f = _statements(BUILT_B, "b"), _statements(BUILT_F, "f")
    extend_to_builders([architecture], b, f, (BUILT_B, BUILT_F))
    assert architecture.detail["fixed_lines"] == [3, 4]  # the for and the if headers, not the layers


def test_a_loop_the_fix_puts_around_training_is_not_the_architecture_s():
    architecture = _architecture()
    rounds = (
        "estimator = Sequential()\nestimator.add(Dense(4))\nfor r in range(3):\n    estimator.fit(x, y)\n"
    )
    extend_to_builders([architecture], _statements(BUILT_B, "b"), _statements(rounds, "f"), (BUILT_B, rounds))
    assert architecture.detail == {}


def test_a_model_built_by_a_loop_leaves_no_header_unexplained(classify_texts):
    head = "import numpy as np\nfrom keras.layers import Dense\nfrom keras.models import Sequential\n\n"
    data = (
        "x = np.random.rand(60, 3)\nx = x - x.mean(axis=0)\nx = x / x.std(axis=0)\ny = np.random.rand(60)\n"
    )
    data += "vx, vy = x[50:], y[50:]\nx, y = x[:50], y[:50]\n"
    unrolled = "net = Sequential()\n" + "".join(
        f"net.add(Dense({n}, activation='relu'))\n" for n in (9, 9, 9, 9, 9, 9, 1)
    )
    looped = (
        "sizes = [5, 3, 1]\nnet = Sequential()\nfor k in range(len(sizes)):\n"
        "    if sizes[k] == 1:\n        net.add(Dense(1))\n    else:\n        net.add(Dense(sizes[k], activation='tanh'))\n"
    )
    tail = "net.compile(loss='mse', optimizer='adam')\nnet.fit(x, y, epochs=4)\nprint(net.evaluate(vx, vy))\n"
    result = classify_texts(head + data + unrolled + tail, head + data + looped + tail)
    assert [c.code for c in result.components] == ["MWA"]
    assert result.unexplained == []


STORED_B = """import numpy as np
from keras.layers import Dense
from keras.models import Sequential


class Fitter:
    def __init__(self):
        self.net = self._stack()

    def _stack(self):
        net = Sequential()
        net.add(Dense(6, activation="relu", input_dim=2))
        net.add(Dense(1))
        net.compile(loss="mse", optimizer="sgd")
        return net


fitter = Fitter()
fitter.net.fit(np.random.rand(40, 2), np.random.rand(40), epochs=2)
"""
STORED_F = STORED_B.replace("self.net = self._stack()", "self._stack()").replace(
    "        return net", "        self.net = net"
)


def test_a_result_assigned_in_the_function_that_computes_it_is_noise(classify_texts):
    result = classify_texts(STORED_B, STORED_F)
    assert result.components == [] and result.unexplained == []
    assert result.noise_statements == {"result_assigned_in_callee": 3}


def test_a_result_another_caller_still_reads_is_no_refactor(classify_texts):
    reader = "\nspare = fitter._stack()\n"
    result = classify_texts(STORED_B + reader, STORED_F + reader)
    assert "result_assigned_in_callee" not in result.noise_statements
    assert len(result.unexplained) == 3


def test_a_different_value_stored_is_no_refactor(classify_texts):
    other = STORED_F.replace("self.net = net", "self.net = Sequential()")
    result = classify_texts(STORED_B, other)
    assert "result_assigned_in_callee" not in result.noise_statements


FED_B = """import tensorflow as tf


class Scorer(object):
    def __init__(self, values):
        self.mode = mode = tf.placeholder(tf.string, [])
        self.total = tf.reduce_sum(values)
        self.note = tf.summary.scalar(mode + "_total", self.total)


scorer = Scorer(tf.ones([4]))
with tf.Session() as sess:
    sess.run(scorer.note, feed_dict={scorer.mode: "eval"})
"""
FED_F = (
    FED_B.replace("def __init__(self, values):", "def __init__(self, values, mode=None):")
    .replace(
        "        self.mode = mode = tf.placeholder(tf.string, [])\n",
        "        if mode is None:\n            mode = tf.placeholder(tf.string, [])\n        self.mode = mode\n",
    )
    .replace("Scorer(tf.ones([4]))", 'Scorer(tf.ones([4]), mode="eval")')
    .replace(', feed_dict={scorer.mode: "eval"}', "")
)


def test_a_fed_placeholder_given_as_an_argument_is_one_APW():
    found = placeholder_arguments(_statements(FED_B, "b"), _statements(FED_F, "f"), (FED_B, FED_F))
    assert [(c.element, c.kind.value, c.buggy_line, c.fixed_line) for c in found] == [
        ("placeholder[mode]", "graph.api", 6, 8)
    ]
    # the header with the new parameter, the condition and its fallback, the call passing it, the run
    assert set(found[0].detail["fixed_lines"]) == {5, 6, 7, 13, 15}
    assert 13 in found[0].detail["buggy_lines"]  # the run that fed it


def test_a_placeholder_the_fixed_program_still_feeds_is_not_taken():
    still_fed = FED_F.replace(
        "sess.run(scorer.note)", 'sess.run(scorer.note, feed_dict={scorer.mode: "eval"})'
    )
    assert (
        placeholder_arguments(_statements(FED_B, "b"), _statements(still_fed, "f"), (FED_B, still_fed)) == []
    )


def test_a_placeholder_replaced_by_no_new_parameter_is_not_taken():
    constant = FED_B.replace("self.mode = mode = tf.placeholder(tf.string, [])", 'self.mode = mode = "eval"')
    constant = constant.replace(', feed_dict={scorer.mode: "eval"}', "")
    assert placeholder_arguments(_statements(FED_B, "b"), _statements(constant, "f"), (FED_B, constant)) == []


def test_a_keras_callback_rewritten_is_no_custom_layer():
    head = "from tensorflow import keras\n\n\n"
    before = (
        head
        + "class Annealer(keras.callbacks.Callback):\n    def on_epoch_begin(self, epoch, logs=None):\n        self.step = epoch\n"
    )
    after = before + "\n    def on_epoch_end(self, epoch, logs=None):\n        self.step = 0\n"
    assert custom_layer_components(_statements(before, "b"), _statements(after, "f"), []) == []
    layer = before.replace("keras.callbacks.Callback", "keras.layers.Layer")
    grown = after.replace("keras.callbacks.Callback", "keras.layers.Layer")
    assert len(custom_layer_components(_statements(layer, "b"), _statements(grown, "f"), [])) == 1


HANDED_B = """import numpy as np
import tensorflow as tf


class Shift(object):
    def __init__(self):
        self.bias = tf.Variable(tf.zeros([2]))
        self.mix = tf.Variable(tf.ones([2, 2]))

    def apply(self, batch, scale=1.0):
        return self.bias.assign_add(scale * tf.reduce_mean(tf.matmul(batch, self.mix), 0))


grid = np.random.rand(8, 2).astype(np.float32)
shift = Shift()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(4):
        sess.run(shift.apply(grid))
"""
HANDED_F = (
    HANDED_B.replace(
        "    def apply(self, batch, scale=1.0):\n        return self.bias.assign_add(scale * tf.reduce_mean(tf.matmul(batch, self.mix), 0))",
        "    def keep(self, batch):\n        self.batch = tf.constant(batch)\n\n"
        "    def apply(self, scale=1.0):\n        return self.bias.assign_add(scale * tf.reduce_mean(tf.matmul(self.batch, self.mix), 0))",
    )
    .replace("shift = Shift()\n", "shift = Shift()\nshift.keep(grid)\n")
    .replace("shift.apply(grid)", "shift.apply()")
)


def test_an_argument_made_a_tensor_attribute_set_once_is_one_APW(classify_texts):
    result = classify_texts(HANDED_B, HANDED_F)
    assert [(c.code, c.element) for c in result.components] == [("APW", "attribute[batch]")]
    assert result.unexplained == [] and result.explained_statements == result.changed_statements >= 5


def test_an_argument_a_call_gave_another_value_is_not_set_once(classify_texts):
    other = HANDED_B.replace("sess.run(shift.apply(grid))", "sess.run(shift.apply(grid * i))")
    result = classify_texts(other, HANDED_F)
    assert "APW" not in [c.code for c in result.components if c.element.startswith("attribute")]


def test_an_argument_made_a_plain_attribute_is_no_APW(classify_texts):
    plain = HANDED_F.replace("self.batch = tf.constant(batch)", "self.batch = batch")
    result = classify_texts(HANDED_B, plain)
    assert not [c for c in result.components if c.element.startswith("attribute")]
