"""The instrumentation on the other frameworks a worker can run: tf_keras (Keras 2) and TF1 graph code.

Run for real in a fresh interpreter with ``TF_USE_LEGACY_KERAS=1`` (what a worker for Keras 2-era
programs has): ``install(framework="tf_keras")`` patches tf_keras' Model without importing Keras 3,
so a Keras 2 program's fit, evaluate and per-input correctness after fit are recorded, its
``get_file`` is the offline one, and a fit that fails in its first batch is recorded with 0 epochs;
``install(framework="tf1")`` counts a graph program's ``Session.run`` calls as its training steps.
Slow: it imports TensorFlow and trains.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from mutreal.execution import fit_capture

    fit_capture.install(block_network=False, framework="tf_keras")
    import numpy as np
    import tensorflow as tf
    from sklearn.datasets import load_iris

    out = {"keras3_imported": "keras.src" in sys.modules}
    keras = tf.keras  # tf_keras under TF_USE_LEGACY_KERAS=1
    out["keras_module"] = keras.__name__ if hasattr(keras, "__name__") else str(keras)
    x, y = load_iris(return_X_y=True)
    x = x.astype("float32")
    capture = fit_capture.start_capture()
    model = keras.Sequential([keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                              keras.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, epochs=2, batch_size=32, verbose=0, validation_split=0.2)
    model.predict(x[:1], verbose=0)
    out["finish"] = fit_capture.finish_capture(completed=True)
    out["fits"] = [f.to_dict() for f in capture.fits]
    out["evaluations"] = [{k: v for k, v in e.to_dict().items() if k != "predictions"} for e in capture.evaluations]
    out["predict_calls"] = capture.predict_calls
    out["get_file_patched"] = keras.utils.get_file is fit_capture._patched_tf_keras_get_file

    capture = fit_capture.start_capture()
    try:
        model.fit(x[:, :3], y, epochs=2, verbose=0)
    except Exception as error:
        out["bad_fit"] = type(error).__name__
    out["bad_fits"] = [(f.epochs, f.completed) for f in capture.fits]

    fit_capture.install(block_network=False, framework="tf1")
    capture = fit_capture.start_capture()
    graph = tf.Graph()
    with graph.as_default():
        v1 = tf.compat.v1
        inputs = v1.placeholder(tf.float32, shape=(None, 4))
        weights = tf.Variable(tf.zeros((4, 3)))
        loss = tf.reduce_mean(tf.square(tf.matmul(inputs, weights)))
        step = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            for _ in range(5):
                session.run(step, feed_dict={inputs: x})
    out["tf1_steps"] = fit_capture.finish_capture(completed=True)["steps_outside_fit"]
    print("RESULT" + json.dumps(out))
    """
)


@pytest.mark.slow
def test_tf_keras_fit_and_tf1_sessions_are_instrumented(tmp_path: Path) -> None:
    script = tmp_path / "probe.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.split("RESULT", 1)[1])
    assert out["keras3_imported"] is False  # tf_keras patched without importing Keras 3
    assert out["get_file_patched"] is True
    (fit,) = out["fits"]
    assert fit["epochs"] == 2 and fit["completed"] is True and set(fit["history"]) >= {"loss", "val_accuracy"}
    assert fit["task"] == {"kind": "classification", "loss": "sparse_categorical_crossentropy",
                           "activation": "softmax", "from_logits": False}  # fmt: skip
    (after_fit,) = out["evaluations"]  # no evaluate: the validation share, predicted after the program
    assert (after_fit["source"], after_fit["n_inputs"], after_fit["prediction_kind"]) == ("validation", 30, "class")
    assert len(after_fit["labels"]) == 30 and after_fit["results"] == {}
    assert out["predict_calls"] == 1
    assert out["bad_fit"] in ("ValueError", "InvalidArgumentError")  # a shape error in its first batch
    assert out["bad_fits"] == [[0, False]]  # recorded, with no completed epoch
    assert out["tf1_steps"] == 6  # the initialiser and five training steps
