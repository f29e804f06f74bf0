"""`mutreal classify --manifest` and `mutreal report` on TensorFlow 1 graph programs: every bug ok,
era tf1 in the results, DeepCrime's field none with the reason, a TFBugs2018 row in Tables 3 and 4."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mutreal.cli import main
from mutreal.label.codes import KERAS_ONLY_REASON

GRAPH = """import numpy as np
import tensorflow as tf

inputs = np.random.rand(64, 8).astype(np.float32)
targets = np.random.rand(64, 1).astype(np.float32)
x = tf.placeholder(tf.float32, [None, 8])
y = tf.placeholder(tf.float32, [None, 1])
hidden = tf.layers.dense(x, 4, activation=tf.nn.{act})
pred = tf.layers.dense(hidden, 1)
loss = tf.reduce_mean(tf.square(pred - y))
step = tf.train.GradientDescentOptimizer({lr}).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(10):
        sess.run(step, feed_dict={{x: inputs, y: targets}})
"""

TENSORS = """import tensorflow as tf

v = tf.constant([[1.0, 2.0], [3.0, 4.0]])
w = tf.constant([5.0, 6.0])
out = tf.matmul(v, {w})
print(tf.Session().run(out))
"""


def _write(folder: Path, name: str, text: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_classify_and_report_a_tf1_manifest(tmp_path: Path) -> None:
    rows = [
        ("TFBugs2018:lr", GRAPH.format(act="relu", lr=4.0), GRAPH.format(act="relu", lr=0.01)),
        ("TFBugs2018:act", GRAPH.format(act="sigmoid", lr=0.01), GRAPH.format(act="relu", lr=0.01)),
        ("TFBugs2018:shape", TENSORS.format(w="w"), TENSORS.format(w="tf.expand_dims(w, 1)")),
    ]
    lines = ["id,benchmark,buggy,fixed"]
    for bug, buggy, fixed in rows:
        folder = tmp_path / bug.replace(":", "_")
        b = _write(folder / "buggy", "prog.py", buggy)
        f = _write(folder / "fixed", "prog.py", fixed)
        lines.append(f"{bug},TFBugs2018,{b},{f}")
    manifest = tmp_path / "manifest.csv"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(main, ["classify", "--manifest", str(manifest), "--out", str(out)])
    assert result.exit_code == 0, result.output
    results = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert {r["status"] for r in results.values()} == {"ok"}
    assert {r["era"]["buggy"] for r in results.values()} == {"tf1"}
    codes = {bug: [c["code"] for c in r["components"]] for bug, r in results.items()}
    assert codes == {"TFBugs2018:lr": ["HLR"], "TFBugs2018:act": ["ACH"], "TFBugs2018:shape": ["TWS"]}
    for r in results.values():
        assert all(c["deepcrime"] is None and c["reason"] == KERAS_ONLY_REASON for c in r["components"])
    report = CliRunner().invoke(main, ["report", str(out), "--no-plots"])
    assert report.exit_code == 0, report.output
    assert "| TFBugs2018 | 3 | 1 | 1.0 | 3 | 3 |" in report.output  # Table 3
    assert "| TFBugs2018 | 0/3 | 0 | 0/3 | 0 |" in report.output  # Table 4
    assert "| TFBugs2018 | all | RSB | 0/22 (0%) | 0/3 (0%) |" in report.output  # beside the study's
