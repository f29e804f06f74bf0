"""TensorFlow 1 programs prepared to run: tf.contrib served from its successors, graph mode for
queues, summaries and supervisors, and the TF1 meaning of names TensorFlow 2 kept.

Own programs. The import hook's table and its errors are read without TensorFlow; the framework
decision imports TensorFlow's converter once (as test_runtime_framework.py does). That the served
modules train is shown by the slow test_tf1_programs_run.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compat import tf1_contrib
from mutreal.compat.framework_choice import prepare_runtime
from mutreal.compat.tf_upgrade import V1_MEANINGS, graph_mode_v1_names, upgrade_tf1

CONTRIB_KERAS = """\
import numpy as np
from tensorflow.contrib import keras
model = keras.models.Sequential([keras.layers.Dense(2, input_shape=(3,))])
model.compile(optimizer="adam", loss="mse")
model.fit(np.zeros((4, 3)), np.zeros((4, 2)), epochs=1)
"""

CONTRIB_GRAPH = """\
import tensorflow as tf
from tensorflow.contrib import rnn
from tensorflow.contrib.layers.python import layers as tf_layers
x = tf.placeholder(tf.float32, [None, 4])
h = tf.contrib.layers.fully_connected(x, 3, weights_initializer=tf.contrib.layers.xavier_initializer())
cell = rnn.BasicLSTMCell(4)
regressor = tf.contrib.learn.LinearRegressor(feature_columns=[])
"""

QUEUE_ONLY = """\
import tensorflow as tf
name = tf.train.string_input_producer(["a.png"])
key, value = tf.WholeFileReader().read(name)
coord = tf.train.Coordinator()
threads = tf.train.start_queue_runners(coord=coord)
"""

SUMMARY_ONLY = "import tensorflow as tf\nx = tf.constant(1.0)\ntf.summary.scalar('x', x)\nmerged = tf.summary.merge_all()\n"
#: TF1's queue name, which the converter renames to ``tf.queue.FIFOQueue`` (eager in TensorFlow 2:
#: this enqueue past the capacity would block for ever instead of building an op)
FIFO_ONLY = "import numpy as np\nimport tensorflow as tf\nq = tf.FIFOQueue(4, [tf.float32], shapes=[[2]])\nop = q.enqueue_many(np.zeros((8, 2), np.float32))\n"
SUPERVISOR_ONLY = "import tensorflow as tf\nsv = tf.train.Supervisor(logdir='log')\n"
EAGER_ONLY = "import tensorflow as tf\nx = tf.constant(1.0)\nprint(tf.math.log(x))\n"


def test_the_contrib_uses_of_a_program_are_listed_with_their_successors():
    lines = tf1_contrib.contrib_uses(CONTRIB_GRAPH)
    assert any(line.startswith("tf.contrib.rnn: served at run time from tensorflow.compat.v1.nn.rnn_cell") and
               "static_rnn=tensorflow.compat.v1.nn.static_rnn" in line for line in lines)  # fmt: skip
    assert any(line.startswith("tf.contrib.layers.python.layers: served at run time from tf_slim.layers") for line in lines)
    assert any(line.startswith("tf.contrib.layers: served at run time from tf_slim ") for line in lines)
    assert "tf.contrib.learn: not served (tf.contrib.learn's Estimators left with tf.estimator" in " | ".join(lines)
    assert len(lines) == len(set(lines)) == 4
    mnist = "from tensorflow.examples.tutorials.mnist import input_data\n"
    assert tf1_contrib.contrib_uses(mnist) == [
        "tensorflow.examples.tutorials.mnist: served at run time by mutreal.compat.tf1_mnist"
    ]
    assert tf1_contrib.uses_removed_modules(mnist) and not tf1_contrib.uses_removed_modules(EAGER_ONLY)
    # a star import of the package lists every served module
    assert len(tf1_contrib.contrib_uses("from tensorflow.contrib import *\n")) == len({k.split(".")[0] for k in tf1_contrib.MODULES})


def test_what_the_table_does_not_serve_is_an_import_error_that_says_why():
    with pytest.raises(ModuleNotFoundError, match=r"tensorflow\.contrib\.learn.*removed in TensorFlow 2\.16"):
        tf1_contrib.build("tensorflow.contrib.learn")
    with pytest.raises(ModuleNotFoundError, match=r"tensorflow\.contrib\.quantize.*serves only"):
        tf1_contrib.build("tensorflow.contrib.quantize")
    # packages on the way to a served module exist (``from tensorflow.contrib.rnn.python.ops import rnn``)
    assert tf1_contrib.build("tensorflow.contrib.rnn.python.ops").__path__ == []
    assert tf1_contrib.build("tensorflow.examples.tutorials").__path__ == []
    seq2seq = tf1_contrib.build("tensorflow.contrib.legacy_seq2seq")  # written here: no TensorFlow import
    assert seq2seq.basic_rnn_seq2seq is tf1_contrib.basic_rnn_seq2seq
    assert tf1_contrib.build("tensorflow.contrib.eager").Iterator is iter
    finder = tf1_contrib.ContribFinder()
    assert finder.find_spec("tensorflow.contribution", None) is None and finder.find_spec("tensorflow", None) is None
    assert finder.find_spec("tensorflow.contrib.rnn", None).submodule_search_locations == []


def test_graph_mode_names_mean_tensorflow_1s():
    text = (
        "import tensorflow as tf\n"
        "v = tf.Variable(1.0)  # tf.Variable(2)\n"
        "ok = isinstance(v, tf.Variable)\n"
        "s = 'tf.summary.histogram(x)'\n"
        "tf.summary.histogram('w', v)\n"
        "tf.summary.create_file_writer('x')\n"
        "losses = tf.losses\n"
        "l = tf.losses.mean_squared_error(v, v)\n"
        "y = tf.layers.dense(v, 2)\n"
        "z = obj.tf.Variable(3)\n"
    )
    new, changes = graph_mode_v1_names(text)
    assert new.splitlines() == [
        "import tensorflow as tf",
        "v = tf.compat.v1.Variable(1.0)  # tf.Variable(2)",
        "ok = isinstance(v, tf.Variable)",
        "s = 'tf.summary.histogram(x)'",
        "tf.compat.v1.summary.histogram('w', v)",
        "tf.summary.create_file_writer('x')",
        "losses = tf.compat.v1.losses",
        "l = tf.losses.mean_squared_error(v, v)",
        "y = tf.compat.v1.layers.dense(v, 2)",
        "z = obj.tf.Variable(3)",
    ]
    assert [c.line for c in changes] == [2, 5, 7, 9]
    assert changes[0].describe().startswith("line 2: tf1 graph mode: tf.Variable -> tf.compat.v1.Variable")
    # any alias of ``import tensorflow``; a text that does not tokenize stays as it is
    assert graph_mode_v1_names("import tensorflow\nx = tensorflow.Variable(0)\n")[0].endswith("tensorflow.compat.v1.Variable(0)\n")
    assert graph_mode_v1_names("import tensorflow as tf\nx = (tf.Variable(0)\n") == ("import tensorflow as tf\nx = (tf.Variable(0)\n", [])
    assert graph_mode_v1_names("x = tf.Variable(0)\n") == ("x = tf.Variable(0)\n", [])  # tf is not TensorFlow here


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(V1_MEANINGS)), st.sampled_from(["tf", "tensorflow", "T"]), st.integers(0, 3))
def test_a_v1_rewrite_is_idempotent_and_only_inserts_compat_v1(name: str, alias: str, indent: int):
    head = "import tensorflow" + ("" if alias == "tensorflow" else f" as {alias}")
    member = ".histogram('x', 1)" if name == "summary" else "(0)"
    text = f"{head}\nif True:\n{' ' * (indent + 1)}y = {alias}.{name}{member}\n"
    once, changes = graph_mode_v1_names(text)
    assert graph_mode_v1_names(once) == (once, [])
    assert once.replace("compat.v1.", "") == text
    assert len(changes) == once.count("compat.v1.") == 1


@pytest.mark.parametrize("text", [QUEUE_ONLY, SUMMARY_ONLY, SUPERVISOR_ONLY, FIFO_ONLY])
def test_queues_summaries_and_supervisors_need_graph_mode(text: str):
    prepared = prepare_runtime(text)
    assert prepared.framework == "tf1", prepared.reason
    assert upgrade_tf1(text).graph_mode
    assert not upgrade_tf1(EAGER_ONLY).graph_mode
    if text is SUMMARY_ONLY:
        assert "tf.compat.v1.summary.scalar('x', x)" in prepared.source
    if text is FIFO_ONLY:  # graph mode though the converted text names only tf.queue.FIFOQueue
        assert "tf.queue.FIFOQueue(" in prepared.source and "Session" not in prepared.source


def test_a_contrib_program_read_as_keras3_runs_on_keras2_with_its_contrib_listed():
    prepared = prepare_runtime(CONTRIB_KERAS)
    assert prepared.framework == "tf_keras", prepared.reason
    assert "tf.contrib.keras: served at run time from tensorflow.keras (mutreal.compat.tf1_contrib)" in prepared.rewrites
    graph = prepare_runtime(CONTRIB_GRAPH)
    assert graph.framework == "tf1" and any(line.startswith("tf.contrib.rnn: served") for line in graph.rewrites)
    # Keras 3 workers have no import hook: nothing is said to be served there
    assert not any("tf.contrib" in line for line in prepare_runtime(CONTRIB_GRAPH, "keras3").rewrites)
    assert not any("tf.contrib" in line for line in prepare_runtime(CONTRIB_GRAPH, "as-is").rewrites)


def test_tf_layers_means_tensorflow_1s_also_in_eager_code():
    text = "import tensorflow as tf\nx = tf.zeros([2, 3])\ny = tf.layers.dense(x, 2)\nloss = tf.losses\n"
    upgraded = upgrade_tf1(text)
    assert not upgraded.graph_mode
    # tf.layers has no TensorFlow 2 module: TF1's; tf.losses has one, and eager code means it
    assert upgraded.source == text.replace("tf.layers", "tf.compat.v1.layers")
    assert [c.line for c in upgraded.changes if c.kind == "tf1 graph mode"] == [3]
    assert prepare_runtime(text).framework == "tf_keras"
