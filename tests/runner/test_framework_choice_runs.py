"""Programs of older eras train on the framework of their era by default (slow: real trainings).

Own programs, scikit-learn data, seconds each: a Keras 1 pair instrumented the way DeepLocalize
instrumented its buggy programs, a TensorFlow 1 graph pair whose buggy side feeds labels of the
wrong shape, and a ``tf.keras`` program that needs Keras 2. Through the ``mutreal`` entry point and
the Python API, in the bubblewrap sandbox where this machine has one.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from mutreal.cli import main
from mutreal.execution import fit_capture

pytestmark = pytest.mark.slow

KERAS1_FIXED = """\
import sys
import time
import keras
import numpy as np
from keras.layers.core import Dense
from keras.models import Sequential
from keras.optimizers import SGD
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

data = load_breast_cancer()
x = StandardScaler().fit_transform(data.data).astype(np.float32)
y = data.target.astype(np.float32)
model = Sequential()
model.add(Dense(16, input_dim=30, init="uniform", activation="relu"))
model.add(Dense(1, init="uniform", activation="ACTIVATION"))
model.compile(loss="binary_crossentropy", optimizer=SGD(lr=0.05), metrics=["accuracy"])
start_time = time.clock()
model.fit(x[:400], y[:400], nb_epoch=3, batch_size=32, verbose=0,
          callbacks=[keras.callbacks.DeepLocalize(x[:400], y[:400], len(model.layers), 32, start_time)])
end_time = time.clock()
print("time", end_time - start_time)
model.evaluate(x[400:], y[400:], verbose=0)
sys.exit(1)
"""

TF1_FIXED = """\
import numpy as np
import tensorflow as tf
from sklearn.datasets import load_iris

data = load_iris()
features = data.data.astype(np.float32)
labels = np.eye(3)[data.target].astype(np.float32)
x = tf.placeholder(tf.float32, shape=[None, 4])
y = tf.placeholder(tf.float32, shape=[None, 3])
w = tf.Variable(tf.random_normal([4, 3], stddev=0.1))
b = tf.Variable(tf.zeros([3]))
logits = tf.matmul(x, w) + b
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(30):
        sess.run(step, feed_dict={x: features, y: LABELS})
    print("loss", sess.run(loss, feed_dict={x: features, y: labels}))
"""

TF_KERAS2 = """\
import keras
import numpy as np
import tensorflow as tf
from sklearn.datasets import load_iris

assert keras.__version__.startswith("2."), keras.__version__  # `import keras` is Keras 2
assert tf.keras.layers.Dense is keras.layers.Dense  # and tf.keras the same Keras 2
data = load_iris()
model = tf.keras.models.Sequential([
    tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
    tf.keras.layers.Dense(3, activation="softmax"),
])
model.compile(optimizer=tf.keras.optimizers.Adam(lr=0.01), loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
model.fit(data.data, data.target, epochs=2, verbose=0)
print(model.predict_classes(data.data[:5]))  # Keras 2 API, gone from Keras 3
"""


def _run(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["run", *args, "--runs", "1", "--jobs", "1", "--json", "-q"])
    return result.exit_code, json.loads(result.stdout)


def test_a_keras1_pair_with_benchmark_instrumentation_trains(tmp_path: Path):
    fixed = tmp_path / "fixed.py"
    fixed.write_text(KERAS1_FIXED.replace("ACTIVATION", "sigmoid"))
    buggy = tmp_path / "buggy.py"
    buggy.write_text(KERAS1_FIXED.replace("ACTIVATION", "softmax"))  # the fault: softmax on one unit
    store = tmp_path / "runs.sqlite"
    code, data = _run(str(buggy), str(fixed), "--store", str(store))
    assert code == 0, data
    for run in data["runs"]:
        assert run["outcome"] == "ok", run
        assert (run["era"], run["framework"]) == ("keras1", "tf_keras") and run["rewrites"] >= 6
    if "framework" in inspect.signature(fit_capture.install).parameters:  # tf_keras' Model instrumented
        assert all(run["metric_name"] == "accuracy" and run["metric"] is not None for run in data["runs"])
    manifest = yaml.safe_load(Path(data["campaign"]["manifest"]).read_text())
    entry = manifest["programs"][0]
    assert entry["framework"] == "tf_keras" and entry["era"] == "keras1"
    assert any("DeepLocalize" in line for line in entry["rewrites"])
    assert any("sys.exit(1)" in line for line in entry["rewrites"])
    assert manifest["configuration"]["framework"] == "auto"
    # as written, on Keras 3, the program never reaches its fault: the override says so
    code, plain = _run(str(fixed), "--framework", "as-is")
    assert code == 1 and plain["runs"][0]["outcome"] == "crash"
    assert "--framework tf_keras" in plain["runs"][0]["error_message"]
    assert plain["runs"][0]["framework"] == "keras3" and plain["runs"][0]["rewrites"] == 0


def test_a_tf1_graph_pair_shows_its_shape_fault(tmp_path: Path):
    fixed = tmp_path / "fixed.py"
    fixed.write_text(TF1_FIXED.replace("LABELS", "labels"))
    buggy = tmp_path / "buggy.py"
    buggy.write_text(TF1_FIXED.replace("LABELS", "labels[:, :2]"))  # the fault: labels of 2 classes
    code, data = _run(str(buggy), str(fixed))
    broken, working = data["runs"]
    assert code == 1  # the buggy side crashes: that is its fault
    assert broken["outcome"] == "crash" and broken["error_type"] == "ValueError"
    assert "Cannot feed value of shape (150, 2)" in broken["error_message"]
    assert working["outcome"] == "ok", working
    assert working["era"] == working["framework"] == "tf1"


def test_tf_keras_programs_need_keras2_and_workers_switch_framework(tmp_path: Path, tiny_program, bwrap):
    from mutreal.execution import run_campaign

    legacy = tmp_path / "legacy.py"
    legacy.write_text(TF_KERAS2)
    modern = tmp_path / "modern.py"
    modern.write_text(tiny_program(epochs=1))
    # one worker, in the sandbox: Keras 3, then Keras 2 (a fresh process), then Keras 3 again
    records = run_campaign([modern, legacy, modern], seeds=[0], jobs=1, sandbox_mode="bwrap",
                           progress=False, framework="auto")  # fmt: skip
    assert [r.outcome for r in records] == ["ok", "ok", "ok"], [r.error_message for r in records]
    assert [r.framework for r in records] == ["keras3", "tf_keras", "keras3"]
    assert records[0].versions["keras"].startswith("3.") and records[1].versions["keras"].startswith("2.")
    assert records[0].key != records[1].key and records[0].sandbox == "bwrap"
    # forced onto Keras 3 (its rewrites applied), the Keras 2 program does not run: Keras 3 is no Keras 2
    forced = run_campaign([legacy], seeds=[0], jobs=1, progress=False, framework="keras3")
    assert forced[0].outcome == "crash" and forced[0].framework == "keras3"
