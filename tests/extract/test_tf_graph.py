"""TensorFlow 1 graph code read into the program model, and its faults named with the study's codes.

One own graph program (a small classifier: placeholders, a hidden layer written as ``tf.matmul(x, W)
+ b``, a ``tf.layers`` layer, a cross-entropy loss, ``tf.train.*Optimizer(lr).minimize``, an epoch
and batch loop around ``sess.run``) is edited once per fault kind the study's TF codes name; every
edit is classified in the ``tf`` spelling and in the ``tf.compat.v1`` one, and must give the same
single code with DeepCrime's field none.
"""

from __future__ import annotations

import textwrap

import pytest

from mutreal.compare import diff_models
from mutreal.extract import extract_source
from mutreal.label.codes import KERAS_ONLY_REASON, label_component

HEADS = {
    "tf": "import numpy as np\nimport tensorflow as tf\n",
    "compat": "import numpy as np\nimport tensorflow.compat.v1 as tf\n\ntf.disable_v2_behavior()\n",
    "compat-attribute": "import numpy as np\nimport tensorflow as tf\n",
}

#: the TF 1 names a TF 2 program reaches through ``tf.compat.v1.`` (spelling "compat-attribute")
_COMPAT_NAMES = (
    "placeholder",
    "Session",
    "train.",
    "layers.",
    "random_normal",
    "global_variables_initializer",
)

PROGRAM = """
samples = np.random.rand(200, 20).astype(np.float32)
targets = np.random.randint(0, 3, 200)
labels = np.eye(3)[targets]
x = tf.placeholder(tf.float32, [None, 20])
y = tf.placeholder(tf.float32, [None, 3])
w1 = tf.Variable(tf.random_normal([20, 16]))
b1 = tf.Variable(tf.zeros([16]))
hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
hidden = tf.nn.dropout(hidden, 0.8)
logits = tf.layers.dense(hidden, 3)
logits = tf.reshape(logits, [-1, 3])
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss)
batch_size = 20
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(30):
        for i in range(0, 200, batch_size):
            sess.run(train_op, feed_dict={x: samples[i:i + batch_size], y: labels[i:i + batch_size]})
"""

#: fault kind -> (text in the fixed program, text in the buggy one, the study's code)
FAULTS = {
    "learning rate": ("learning_rate=0.001", "learning_rate=5.0", "HLR"),
    "optimiser": ("tf.train.AdamOptimizer(", "tf.train.GradientDescentOptimizer(", "OCH"),
    "loss": ("tf.nn.softmax_cross_entropy_with_logits(", "tf.nn.sigmoid_cross_entropy_with_logits(", "LCH"),
    "activation function": ("hidden = tf.nn.relu(", "hidden = tf.nn.sigmoid(", "ACH"),
    "missing activation": (
        "hidden = tf.nn.relu(tf.matmul(x, w1) + b1)",
        "hidden = tf.matmul(x, w1) + b1",
        "ACH",
    ),
    "epochs": ("range(30)", "range(3)", "HNE"),
    "batch size": ("batch_size = 20", "batch_size = 1", "HBS"),
    "output activation": (
        "tf.layers.dense(hidden, 3)",
        "tf.layers.dense(hidden, 3, activation=tf.nn.relu)",
        "ACH",
    ),
    "dense units": ("tf.random_normal([20, 16])", "tf.random_normal([20, 4])", "LCN"),
    "weights initialisation": ("tf.random_normal([20, 16])", "tf.zeros([20, 16])", "WCI"),
    "dropout rate": ("tf.nn.dropout(hidden, 0.8)", "tf.nn.dropout(hidden, 0.1)", "RCD"),
    "tensor shape": ("tf.reshape(logits, [-1, 3])", "tf.reshape(logits, [3, -1])", "TWS"),
    "placeholder shape": (
        "x = tf.placeholder(tf.float32, [None, 20])",
        "x = tf.placeholder(tf.float32, [20])",
        "TWS",
    ),
    "label encoding": ("labels = np.eye(3)[targets]", "labels = targets", "CPP"),
    # decision CPP-label-placeholder: the placeholder fed the labels declares their format
    "labels placeholder shape": (
        "y = tf.placeholder(tf.float32, [None, 3])",
        "y = tf.placeholder(tf.float32, [None, 3, 1])",
        "CPP",
    ),
}


def _program(spelling: str, replace: tuple[str, str] | None = None) -> str:
    text = HEADS[spelling] + textwrap.dedent(PROGRAM)
    if replace is not None:
        assert replace[0] in text, replace
        text = text.replace(replace[0], replace[1])
    if spelling == "compat-attribute":
        for name in _COMPAT_NAMES:
            text = text.replace(f"tf.{name}", f"tf.compat.v1.{name}")
    return text


def _codes(buggy: str, fixed: str) -> list[tuple[str, str | None, str | None]]:
    b, f = extract_source(buggy, "buggy.py"), extract_source(fixed, "fixed.py")
    labels = [label_component(c) for c in diff_models(b, f)]
    return [(lab.code, lab.deepcrime, lab.reason) for lab in labels]


@pytest.mark.parametrize("spelling", sorted(HEADS))
def test_the_graph_program_is_read_into_the_program_model(spelling: str) -> None:
    model = extract_source(_program(spelling), "prog.py")
    assert (model.framework, model.era) == ("tensorflow", "tf1")
    [graph] = model.models
    assert graph.kind == "graph"
    classes = [layer.cls for layer in graph.layers]
    assert classes == ["Input", "Input", "Dense", "Activation", "Dropout", "Dense"]
    assert graph.layers[0].args["dtype"].value == "tensorflow.float32"
    assert graph.layers[2].args["units"].value == 16
    assert graph.layers[2].args["kernel_initializer"].value == "random_normal"
    assert graph.layers[4].args["rate"].value == pytest.approx(0.2)
    [comp] = model.compiles
    assert comp.loss.value == "categorical_crossentropy"
    assert (comp.optimizer.cls, comp.optimizer.args["learning_rate"].value) == ("Adam", 0.001)
    [fit] = model.fits
    assert fit.method == "session.run"
    assert (fit.args["epochs"].value, fit.args["batch_size"].value) == (30, 20)
    assert set(model.data) == {"x_train", "y_train"}
    assert [(op.op, op.args["shape"].value) for op in model.tensor_ops] == [
        ("placeholder", [None, 20]),
        ("placeholder", [None, 3]),
        ("reshape", [-1, 3]),
    ]


@pytest.mark.parametrize("spelling", sorted(HEADS))
def test_the_same_program_gives_no_component(spelling: str) -> None:
    assert _codes(_program(spelling), _program(spelling)) == []


@pytest.mark.parametrize("spelling", sorted(HEADS))
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_kind_gets_the_study_code_and_no_deepcrime_operator(fault: str, spelling: str) -> None:
    fixed_text, buggy_text, code = FAULTS[fault]
    buggy = _program(spelling, (fixed_text, buggy_text))
    assert _codes(buggy, _program(spelling)) == [(code, None, KERAS_ONLY_REASON)]


def test_a_hand_written_loss_rewritten_is_lwc() -> None:
    loss = "loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))"
    fixed = _program("tf", (loss, "loss = -tf.reduce_sum(y * tf.log(tf.nn.softmax(logits) + 1e-9))"))
    buggy = _program("tf", (loss, "loss = -tf.reduce_sum(y * tf.log(tf.nn.softmax(logits)))"))
    assert [c for c, _, _ in _codes(buggy, fixed)] == ["LWC"]


def test_an_expand_dims_the_fix_adds_is_tws() -> None:
    fixed = _program("compat", ("logits = tf.reshape(logits, [-1, 3])", "logits = tf.expand_dims(logits, 1)"))
    buggy = _program("compat", ("logits = tf.reshape(logits, [-1, 3])", ""))
    assert [c for c, _, _ in _codes(buggy, fixed)] == ["TWS"]


TENSOR_PROGRAM = """
import tensorflow as tf

a = tf.constant([1.0, 2.0, 3.0])
b = tf.constant([4.0, 5.0, 6.0])
product = tf.matmul({a}, {b})
sess = tf.Session()
print(sess.run(product))
"""


def test_a_tensor_program_without_a_model_is_read_as_graph_code() -> None:
    buggy = TENSOR_PROGRAM.format(a="a", b="b")
    fixed = TENSOR_PROGRAM.format(a="tf.expand_dims(a, 0)", b="tf.expand_dims(b, 1)")
    assert extract_source(buggy, "buggy.py").era == "tf1"
    assert [c for c, _, _ in _codes(buggy, fixed)] == ["TWS"]  # one statement edited: one component


KERAS_IN_SESSION = """
import numpy as np
import tensorflow as tf
from tensorflow.keras.layers import Dense

x_data = np.random.rand(50, 4).astype(np.float32)
y_data = np.random.rand(50, 1).astype(np.float32)
x = tf.placeholder(tf.float32, [None, 4])
y = tf.placeholder(tf.float32, [None, 1])
hidden = Dense(8, activation="{act}")(x)
out = Dense(1)(hidden)
loss = tf.reduce_mean(tf.square(out - y))
step = tf.train.GradientDescentOptimizer({lr}).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(10):
        sess.run(step, feed_dict={{x: x_data, y: y_data}})
"""


def test_keras_layers_on_placeholders_are_graph_layers_read_once() -> None:
    model = extract_source(KERAS_IN_SESSION.format(act="relu", lr=0.1), "prog.py")
    assert [m.kind for m in model.models] == ["graph"]
    assert [layer.cls for layer in model.models[0].layers] == ["Input", "Input", "Dense", "Dense"]
    assert [c.loss.value for c in model.compiles] == ["mean_squared_error"]
    assert len(model.fits) == 1
    buggy = KERAS_IN_SESSION.format(act="tanh", lr=3.0)
    fixed = KERAS_IN_SESSION.format(act="relu", lr=0.1)
    assert sorted(c for c, _, _ in _codes(buggy, fixed)) == ["ACH", "HLR"]


KERAS_PROGRAM = """
import numpy as np
import tensorflow as tf
from tensorflow import keras

x = np.random.rand(40, 3)
y = np.random.rand(40)
model = keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
model.compile(loss="mse", optimizer="adam")
model.fit(tf.reshape(x, [-1, 3]), y, epochs=5)
"""


def test_a_keras_program_is_not_read_as_graph_code() -> None:
    model = extract_source(KERAS_PROGRAM, "prog.py")
    assert (model.framework, model.era) == ("keras", "tf2")
    assert [m.kind for m in model.models] == ["sequential"]
    assert model.tensor_ops == []
    assert "tensor_ops" not in model.to_dict()


SEQUENTIAL_IN_SESSION = """
import numpy as np
import tensorflow as tf
from tensorflow import keras

x_data = np.random.rand(50, 4).astype(np.float32)
y_data = np.random.rand(50, 1).astype(np.float32)
net = keras.Sequential([keras.layers.Dense(8, activation="{act}", input_shape=(4,)), keras.layers.Dense(1)])
x = tf.placeholder(tf.float32, [None, 4])
y = tf.placeholder(tf.float32, [None, 1])
loss = tf.losses.mean_squared_error(y, net(x))
step = tf.train.AdamOptimizer({lr}).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range({epochs}):
        sess.run(step, feed_dict={{x: x_data, y: y_data}})
"""


def test_a_keras_model_trained_in_a_session_is_counted_once() -> None:
    model = extract_source(SEQUENTIAL_IN_SESSION.format(act="relu", lr=0.01, epochs=20), "prog.py")
    assert model.framework == "keras"
    kinds = [m.kind for m in model.models]
    assert "sequential" in kinds
    assert [len(m.layers) for m in model.models if m.kind == "sequential"] == [2]
    assert [c.loss.value for c in model.compiles] == ["mean_squared_error"]
    assert [f.method for f in model.fits] == ["session.run"]
    buggy = SEQUENTIAL_IN_SESSION.format(act="sigmoid", lr=2.0, epochs=2)
    fixed = SEQUENTIAL_IN_SESSION.format(act="relu", lr=0.01, epochs=20)
    assert sorted(c for c, _, _ in _codes(buggy, fixed)) == ["ACH", "HLR", "HNE"]


TUTORIAL = """
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

mnist = input_data.read_data_sets("MNIST_data/", one_hot={one_hot})
x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.float32, [None, 10])
logits = tf.layers.dense(x, 10)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
sess = tf.InteractiveSession()
tf.global_variables_initializer().run()
for step in range(100):
    batch_xs, batch_ys = mnist.train.next_batch(64)
    sess.run(train, feed_dict={{x: batch_xs, y: batch_ys}})
"""


def test_the_tutorial_mnist_loader_gives_the_training_data() -> None:
    model = extract_source(TUTORIAL.format(one_hot=True), "prog.py")
    x_train, y_train = model.data["x_train"], model.data["y_train"]
    assert (x_train.source.kind, x_train.source.name, x_train.source.origin) == (
        "keras_dataset",
        "mnist",
        "real",
    )
    # the labels' placeholder declares the shape they are fed in (decision CPP-label-placeholder)
    assert [op.op for op in y_train.preprocess] == ["one_hot", "slice", "reshape"]
    assert y_train.preprocess[-1].args["shape"].value == [None, 10]
    assert [op.role for op in model.tensor_ops] == [None, "labels"]
    assert model.fits[0].args["batch_size"].value == 64
    assert model.fits[0].args["steps"].value == 100  # one batch a turn (decision HNE-graph-epochs)
    buggy, fixed = TUTORIAL.format(one_hot=False), TUTORIAL.format(one_hot=True)
    assert [c for c, _, _ in _codes(buggy, fixed)] == ["CPP"]


def test_a_keras_model_trained_in_a_session_has_no_deepcrime_operator_for_its_training() -> None:
    buggy = SEQUENTIAL_IN_SESSION.format(act="sigmoid", lr=2.0, epochs=2)
    fixed = SEQUENTIAL_IN_SESSION.format(act="relu", lr=0.01, epochs=20)
    operators = dict((c, op) for c, op, _ in _codes(buggy, fixed))
    assert operators == {"ACH": "ACH", "HLR": None, "HNE": None}  # the Keras layer stays DeepCrime's


SNIPPET_OF_TENSORS = """
input_size = tf.shape(features)[1]
stddev = 1.0 / tf.cast(input_size, tf.float32)
shape = tf.stack([input_size, 4])
weights = tf.Variable(tf.truncated_normal(shape, stddev=stddev))
"""

COMPLETED = """
rows = np.random.rand(60, 6).astype(np.float32)
rows = rows / rows.max()
classes = np.eye(4)[np.random.randint(0, 4, 60)]
features = tf.placeholder(tf.float32, [None, 6])
truth = tf.placeholder(tf.float32, [None, 4])
weights = tf.Variable(tf.truncated_normal([6, 4], stddev=0.1))
logits = tf.matmul(features, weights)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=truth, logits=logits))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(10):
        sess.run(step, feed_dict={features: rows, truth: classes})
"""


@pytest.mark.parametrize("spelling", ["tf", "compat"])
def test_tensor_arithmetic_of_a_snippet_is_no_data_of_its_own(spelling: str) -> None:
    """Decision CPP-completion-data in graph code: ``1.0 / tf.cast(dim, tf.float32)`` of a tensor's
    dimension is no array the snippet binds, so the completion's data and their steps (the
    scaling of ``rows``) are the benchmark's, not a fix; the snippet's shape operation the
    completion drops is its TWS."""
    snippet = HEADS[spelling] + SNIPPET_OF_TENSORS
    buggy = extract_source(snippet, "buggy.py")
    assert buggy.untrained_data == {}
    assert [c for c, _, _ in _codes(snippet, HEADS[spelling] + COMPLETED)] == ["TWS"]


@pytest.mark.parametrize("spelling", sorted(HEADS))
def test_one_hot_encoding_by_comparison_is_a_step_of_the_labels(spelling: str) -> None:
    """``(np.arange(n) == y[:, None])`` one-hot encodes the labels as ``np.eye(n)[y]`` does
    (decision CPP-one-hot): the two spellings give no component, its absence is CPP."""
    by_comparison = "labels = (np.arange(3) == targets[:, None]).astype(np.float32)"
    fixed = _program(spelling, ("labels = np.eye(3)[targets]", by_comparison))
    model = extract_source(fixed, "fixed.py")
    assert "one_hot" in [op.op for op in model.data["y_train"].preprocess]
    assert _codes(_program(spelling), fixed) == []
    assert [
        c
        for c, _, _ in _codes(_program(spelling, ("labels = np.eye(3)[targets]", "labels = targets")), fixed)
    ] == ["CPP"]


RNN_FRAGMENT = """
x = tf.placeholder(tf.float32, [None, 5, 3])
cell = rnn.BasicLSTMCell(8, forget_bias=1.0)
outputs, states = rnn.static_rnn(cell, tf.unstack(x, 5, 1), dtype=tf.float32)
"""


def test_rnn_in_a_fragment_that_imports_nothing_is_tensorflow_contrib_rnn() -> None:
    """A posted fragment writes ``rnn.`` as ``tf.`` without importing it: the completed program's
    ``from tensorflow.contrib import rnn`` adds no layer."""
    fragment = extract_source(RNN_FRAGMENT, "buggy.py")
    assert [layer.cls for layer in fragment.models[0].layers] == ["Input", "LSTM"]
    completed = "import tensorflow as tf\nfrom tensorflow.contrib import rnn\n" + RNN_FRAGMENT
    assert _codes(RNN_FRAGMENT, completed) == []


def test_a_reshape_of_an_array_out_of_view_is_the_same_statement_as_its_data_step() -> None:
    """``tf.reshape(batch, [1, 3]).eval()`` where ``batch`` comes from out of view is a tensor
    operation; where the completion generates the array it is a step of its data: one statement,
    not a TWS the fix removed (decision TWS-tensor-op)."""
    loop = """
features = tf.placeholder(tf.float32, [None, 3])
truth = tf.placeholder(tf.float32, [None, 2])
out = tf.layers.dense(features, 2)
loss = tf.reduce_mean(tf.square(out - truth))
step = tf.train.AdamOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(len(samples)):
        batch = samples[i]
        batch = tf.reshape(batch, [1, 3]).eval()
        sess.run(step, feed_dict={features: batch, truth: targets[i:i + 1]})
"""
    generated = "samples = np.random.rand(20, 3)\ntargets = np.random.rand(20, 2)\n"
    buggy = extract_source(HEADS["tf"] + loop, "buggy.py")
    assert [op.op for op in buggy.tensor_ops if op.op != "placeholder"] == ["reshape"]
    assert _codes(HEADS["tf"] + loop, HEADS["tf"] + generated + loop) == []


def _spelled_out(spelling: str, fault: tuple[str, str] | None = None) -> str:
    """The program with ``minimize`` spelled out as ``apply_gradients(compute_gradients(loss))``,
    and one fault's edit (fixed text -> buggy text) when given."""
    minimize = "train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss)"
    spelled_out = (
        "opt = tf.train.AdamOptimizer(learning_rate=0.001)\n"
        "grads = opt.compute_gradients(loss)\n"
        "train_op = opt.apply_gradients(grads)"
    )
    text = HEADS[spelling] + textwrap.dedent(PROGRAM).replace(minimize, spelled_out)
    if fault is not None:
        assert fault[0] in text, fault
        text = text.replace(*fault)
    if spelling == "compat-attribute":
        for name in _COMPAT_NAMES:
            text = text.replace(f"tf.{name}", f"tf.compat.v1.{name}")
    return text


@pytest.mark.parametrize("spelling", sorted(HEADS))
@pytest.mark.parametrize("fault", ["epochs", "learning rate", "loss"])
def test_apply_gradients_of_computed_gradients_is_the_graph_training(fault: str, spelling: str) -> None:
    """``opt.apply_gradients(opt.compute_gradients(loss))`` spells ``opt.minimize(loss)`` out: the
    same compile and session training, so the same faults get the same codes."""
    fixed = _spelled_out(spelling)
    model = extract_source(fixed, "fixed.py")
    [comp] = model.compiles
    assert (comp.loss.value, comp.optimizer.cls) == ("categorical_crossentropy", "Adam")
    assert [fit.method for fit in model.fits] == ["session.run"]
    fixed_text, buggy_text, code = FAULTS[fault]
    buggy = _spelled_out(spelling, (fixed_text, buggy_text))
    assert [c for c, _, _ in _codes(buggy, fixed)] == [code]


STEP_LOOP = """
samples = np.random.rand(200, 20).astype(np.float32)
labels = np.eye(3)[np.random.randint(0, 3, 200)]
x = tf.placeholder(tf.float32, [None, 20])
y = tf.placeholder(tf.float32, [None, 3])
logits = tf.layers.dense(x, 3)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for {var} in range({bound}):
        picked = np.random.randint(0, 200, 20)
        sess.run(train_op, feed_dict={{x: samples[picked], y: labels[picked]}})
"""


@pytest.mark.parametrize("spelling", ["tf", "compat"])
def test_a_single_loop_of_training_steps_counts_steps_not_epochs(spelling: str) -> None:
    """Decision HNE-graph-epochs: ``for i in range(20000)`` around one batch's run counts steps
    (kept as ``steps``, no HNE when the fix changes it); the same loop over ``epoch`` is HNE."""

    def program(var: str, bound: str) -> str:
        return HEADS[spelling] + STEP_LOOP.format(var=var, bound=bound)

    model = extract_source(program("i", "20000"), "buggy.py")
    [fit] = model.fits
    assert fit.args["steps"].value == 20000 and "epochs" not in fit.args
    assert _codes(program("i", "20000"), program("i", "50")) == []
    assert [c for c, _, _ in _codes(program("epoch", "20000"), program("epoch", "50"))] == ["HNE"]


@pytest.mark.parametrize("spelling", ["tf", "compat"])
def test_a_completed_fragment_counts_only_the_shape_operations_it_lost(spelling: str) -> None:
    """Decision TWS-tensor-op: a fragment (no placeholder, no training) completed into a whole
    program: the completion's placeholders, variables and reshapes are set-up, not paired with
    the fragment's variable; the fragment's ``tf.stack`` the program no longer writes is the TWS."""
    completed = COMPLETED.replace(
        "logits = tf.matmul(features, weights)",
        "flat = tf.reshape(features, [-1, 6])\nlogits = tf.matmul(flat, weights)\n"
        "extra = tf.Variable(tf.zeros([4]))",
    )
    codes = _codes(HEADS[spelling] + SNIPPET_OF_TENSORS, HEADS[spelling] + completed)
    assert [c for c, _, _ in codes] == ["TWS"]


MONITORED = """
samples = np.random.rand(200, 20).astype(np.float32)
labels = np.eye(3)[np.random.randint(0, 3, 200)]
held_out = np.random.rand(50, 20).astype(np.float32)
held_labels = np.eye(3)[np.random.randint(0, 3, 50)]
x = tf.placeholder(tf.float32, [None, 20])
y = tf.placeholder(tf.float32, [None, 3])
logits = tf.layers.dense(x, 3)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1)), tf.float32))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(5):
        for i in range(0, 200, 20):
            batch_x, batch_y = samples[i:i + 20], labels[i:i + 20]
            seen = sess.run(accuracy, feed_dict={x: batch_x, y: batch_y})
            sess.run(train_op, feed_dict={x: batch_x, y: batch_y})
            again = accuracy.eval(feed_dict={x: batch_x, y: batch_y})
    print(sess.run(accuracy, feed_dict={x: held_out / 2.0, y: held_labels}))
"""


def test_a_run_monitoring_the_training_batch_feeds_no_test_data() -> None:
    """Runs that only measure the batch the training step is fed (before or after it) feed the
    training data; the test data are the arrays of the run after training (here scaled)."""
    model = extract_source(HEADS["tf"] + MONITORED, "prog.py")
    x_test = model.data["x_test"]
    assert x_test.source.text.startswith("np.random.rand(50, 20)")
    assert [op.op for op in x_test.preprocess] == ["astype", "divide"]


WEIGHTS_BY_NAME = """
images = np.random.rand(40, 8, 8, 1).astype(np.float32)
labels = np.eye(2)[np.random.randint(0, 2, 40)]
x = tf.placeholder(tf.float32, [None, 8, 8, 1])
y = tf.placeholder(tf.float32, [None, 2])
weights = {{
    'conv': tf.Variable(tf.random_normal([3, 3, 1, {filters}])),
    'out': tf.Variable(tf.random_normal([8 * 8 * {filters}, 2])),
}}
biases = {{'conv': tf.Variable(tf.zeros([{filters}])), 'out': tf.Variable(tf.zeros([2]))}}
conv = tf.nn.relu(tf.nn.conv2d(x, weights['conv'], strides=[1, 1, 1, 1], padding='SAME') + biases['conv'])
flat = tf.reshape(conv, [-1, 8 * 8 * {filters}])
logits = tf.matmul(flat, weights['out']) + biases['out']
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(3):
        sess.run(train_op, feed_dict={{x: images, y: labels}})
"""


@pytest.mark.parametrize("spelling", ["tf", "compat"])
def test_weights_kept_in_a_dict_by_name_are_the_layers_weights(spelling: str) -> None:
    """``weights = {'conv': tf.Variable(...)}`` read through ``weights['conv']`` gives the layer
    its filters, kernel size and initialiser as a variable of its own does."""
    model = extract_source(HEADS[spelling] + WEIGHTS_BY_NAME.format(filters=16), "prog.py")
    conv = next(layer for layer in model.models[0].layers if layer.cls == "Conv2D")
    assert (conv.args["filters"].value, conv.args["kernel_size"].value) == (16, [3, 3])
    assert conv.args["kernel_initializer"].value == "random_normal"
    buggy = HEADS[spelling] + WEIGHTS_BY_NAME.format(filters=4)
    fixed = HEADS[spelling] + WEIGHTS_BY_NAME.format(filters=16)
    assert sorted(c for c, _, _ in _codes(buggy, fixed)) == ["LCN", "TWS"]
