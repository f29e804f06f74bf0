"""TensorFlow 1 programs that use tf.contrib, the MNIST tutorial reader, queues and summaries train
through the ``mutreal`` entry point (slow: real trainings, one tf1 worker, seconds each).

Own programs: an iris classifier built from ``tf.contrib.layers`` and ``tf.contrib.rnn`` cells (with
``legacy_seq2seq``, ``TensorArray.pack`` and a fresh ``tf.Graph`` that has no seed of its own), an
MNIST-tutorial program over idx files written by the test with merged summaries and a ``FileWriter``,
a queue-fed program driven by a ``Supervisor`` (neither a session nor a placeholder in its text),
and the tutorial program pointed at a folder without the files (missing data, not a crash).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.cli import main

pytestmark = pytest.mark.slow

CONTRIB = """\
import numpy as np
import tensorflow as tf
from sklearn.datasets import load_iris
from tensorflow.contrib import rnn
from tensorflow.contrib.legacy_seq2seq import basic_rnn_seq2seq
from tensorflow.contrib.rnn.python.ops import rnn_cell

data = load_iris()
features = ((data.data - data.data.mean(0)) / data.data.std(0)).astype(np.float32)
labels = np.eye(3)[data.target].astype(np.float32)
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.float32, [None, 3])
    steps = tf.unstack(tf.reshape(x, [-1, 2, 2]), axis=1)
    cell = rnn.MultiRNNCell([rnn_cell.BasicLSTMCell(8), rnn.BasicLSTMCell(8)])
    outputs, _ = rnn.static_rnn(cell, steps, dtype=tf.float32)
    hidden = tf.contrib.layers.fully_connected(
        outputs[-1], 16, weights_initializer=tf.contrib.layers.xavier_initializer())
    logits = tf.contrib.layers.fully_connected(hidden, 3, activation_fn=None)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    decoded, _ = basic_rnn_seq2seq(steps, steps, tf.contrib.rnn.GRUCell(2), scope="s2s")
    packed = tf.TensorArray(tf.float32, size=2).unpack(tf.ones([2, 3])).pack()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: features, y: labels})
        for epoch in range(40):
            _, value = sess.run([train, loss], {x: features, y: labels})
        print("loss", first, value)
        assert value < first
        assert sess.run(packed).shape == (2, 3)
        assert len(sess.run(decoded, {x: features})) == 2
"""

MNIST = """\
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

mnist = input_data.read_data_sets("FOLDER", one_hot=True, validation_size=5)
x = tf.placeholder(tf.float32, [None, 784])
y_ = tf.placeholder(tf.float32, [None, 10])
W = tf.Variable(tf.zeros([784, 10]))
b = tf.Variable(tf.zeros([10]))
y = tf.nn.softmax(tf.matmul(x, W) + b)
cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y + 1e-9), reduction_indices=[1]))
tf.summary.histogram("weights", W)
tf.summary.scalar("loss", cross_entropy)
merged = tf.summary.merge_all()
train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
sess = tf.InteractiveSession()
writer = tf.summary.FileWriter("logs", sess.graph)
tf.global_variables_initializer().run()
for i in range(12):
    batch_xs, batch_ys = mnist.train.next_batch(5)
    summary, _ = sess.run([merged, train_step], feed_dict={x: batch_xs, y_: batch_ys})
    writer.add_summary(summary, i)
assert mnist.train.epochs_completed == 3  # counted when a batch starts past the end
correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
print("accuracy", sess.run(tf.reduce_mean(tf.cast(correct, tf.float32)),
                           feed_dict={x: mnist.test.images, y_: mnist.test.labels}))
"""

QUEUES = """\
import numpy as np
import tensorflow as tf
from sklearn.datasets import load_iris

data = load_iris()
feature, label = tf.train.slice_input_producer(
    [data.data.astype(np.float32), data.target.astype(np.int32)], shuffle=True)
features, labels = tf.train.batch([feature, label], batch_size=10)
logits = tf.layers.dense(features, 3)
loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
supervisor = tf.train.Supervisor(logdir="log")
with supervisor.managed_session() as sess:
    for step in range(30):
        _, value = sess.run([train, loss])
    print("loss", value)
"""


def test_tf1_programs_with_contrib_mnist_queues_and_summaries_train(tmp_path: Path, mnist_idx):
    programs = []
    for name, text in (("contrib", CONTRIB), ("mnist", MNIST.replace("FOLDER", "MNIST_data/")),
                       ("queues", QUEUES), ("absent", MNIST.replace("FOLDER", "/nonexistent/MNIST_data/"))):  # fmt: skip
        folder = tmp_path / name
        folder.mkdir()
        (folder / f"{name}.py").write_text(text)
        programs.append(str(folder / f"{name}.py"))
    mnist_idx(tmp_path / "mnist" / "MNIST_data")
    result = CliRunner().invoke(main, ["run", *programs, "--runs", "1", "--jobs", "1", "--json", "-q",
                                       "--store", str(tmp_path / "runs.sqlite")])  # fmt: skip
    runs = {Path(run["program"]).stem: run for run in json.loads(result.stdout)["runs"]}
    for name in ("contrib", "mnist", "queues"):
        assert runs[name]["outcome"] == "ok", (name, runs[name]["error_type"], runs[name]["error_message"])
        assert runs[name]["framework"] == "tf1", (name, runs[name])
    assert runs["absent"]["outcome"] == "missing-data"
    assert "train-images-idx3-ubyte.gz' is not available offline" in runs["absent"]["error_message"]
