"""Diff coverage: every changed statement is explained by a component, taken out by a noise rule,
or listed as an unexplained change (file, line, text, what it touches), never dropped."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare.coverage import cover
from mutreal.compare.statement_diff import statement_changes
from mutreal.compare.statements import statements_of, touches
from mutreal.results import BugResult, read_results

KERAS = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
x = np.random.rand(20, 3)
y = np.random.randint(0, 2, 20)
threshold = 0.5
model = Sequential()
model.add(Dense(4, input_dim=3, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=3, batch_size=4)
predictions = model.predict(x) > threshold
"""

GRAPH = """\
import numpy as np
import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 4])
y = tf.placeholder(tf.float32, [None, 2])
w = tf.Variable(tf.zeros([4, 2]))
logits = tf.matmul(x, w)
pred = tf.nn.softmax(logits)
cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred), axis=1))
train = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(10):
        sess.run(train, feed_dict={x: np.random.rand(8, 4), y: np.eye(2)[np.random.randint(0, 2, 8)]})
"""


def test_a_change_a_component_explains(classify_texts):
    result = classify_texts(KERAS, KERAS.replace("activation='relu'", "activation='tanh'"))
    assert result.codes == ["ACH"]
    assert (result.changed_statements, result.explained_statements) == (1, 1)
    assert result.unexplained == []


def test_noise_changes_are_no_changed_statements(classify_texts):
    noisy = (
        KERAS.replace("import numpy as np\n", "import numpy as np\nimport os\n# a comment\n")
        .replace(
            "model.fit(x, y, epochs=3, batch_size=4)", "model.fit(x, y, batch_size=4, epochs=3, verbose=0)"
        )
        .replace("model = Sequential()", "model = Sequential()\nprint('built')")
        .replace("'adam'", '"adam"')
    )
    noisy += (
        "model.summary()\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\nmodel.save('out/model.h5')\n"
    )
    result = classify_texts(KERAS, noisy)
    assert result.codes == []
    assert result.changed_statements == 0 and result.unexplained == []


def test_a_change_no_component_explains_is_listed_with_what_it_touches(classify_texts, tmp_path):
    result = classify_texts(KERAS, KERAS.replace("threshold = 0.5", "threshold = 0.7"))
    assert result.codes == []
    assert (result.changed_statements, result.explained_statements) == (1, 0)
    [change] = result.unexplained
    assert change["change"] == "changed" and change["line"] == 6 and change["file"].endswith(".py")
    assert change["before"] == "threshold = 0.5" and change["after"] == "threshold = 0.7"
    assert change["touches"] == "other"
    # the row keeps it when written and read back
    again = read_results([result.to_json_line()])[0]
    assert again.unexplained == result.unexplained and again.explained_share == 0.0


def test_a_graph_loss_change_is_listed_as_touching_the_loss(classify_texts):
    fixed = GRAPH.replace("tf.log(pred)", "tf.log(tf.clip_by_value(pred, 1e-10, 1.0))")
    result = classify_texts(GRAPH, fixed)
    explained_or_listed = (result.explained_statements or 0) + len(result.unexplained)
    assert result.changed_statements == 1 == explained_or_listed
    if result.unexplained:
        assert result.unexplained[0]["touches"] == "loss"


def test_a_consistent_rename_is_noise(tmp_path):
    buggy = statements_of(KERAS, "b.py")
    fixed = statements_of(KERAS.replace("threshold", "cutoff"), "f.py")
    coverage = cover(buggy, fixed, [])
    assert coverage.changed == 0 and coverage.noise.get("renamed_variables") == 2


def test_module_paths_and_older_api_names_are_the_same_statement():
    a = statements_of("import tensorflow as tf\ninit = tf.initialize_all_variables()\n", "a.py")
    b = statements_of("import tensorflow as tf\ninit = tf.compat.v1.global_variables_initializer()\n", "b.py")
    assert statement_changes(a, b) == []


def test_completing_a_snippet_is_noise():
    snippet = "model.fit(x_train, y_train, epochs=5)\n"
    completed = "import numpy as np\nx_train = np.zeros((4, 3))\ny_train = np.zeros(4)\n" + snippet
    coverage = cover(statements_of(snippet, "b.py"), statements_of(completed, "f.py"), [])
    assert coverage.changed == 0 and coverage.noise.get("completed_snippet") == 2


def test_touches_reads_what_a_statement_touches():
    assert touches("opt = tf.train.AdamOptimizer(0.001, epsilon=1e-08)") == "optimiser"
    assert touches("x = tf.reshape(x, [-1, 784])") == "tensor shape"
    assert (
        touches("loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=z))")
        == "loss"
    )
    assert touches("acc = model.evaluate(x, y, steps=10)") == "evaluation"


_SIMPLE = st.sampled_from(
    [
        "a = 1",
        "b = a + 2",
        "c = [a, b]",
        "d = sum(c)",
        "e = d * 3",
        "f = str(e)",
        "g = len(f)",
        "h = g - a",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_SIMPLE, min_size=1, max_size=8), st.lists(_SIMPLE, min_size=1, max_size=8))
def test_every_changed_statement_is_explained_or_listed(a, b):
    """Whatever two programs are, the changed statements split into explained and unexplained,
    and a program against itself has none."""
    buggy, fixed = statements_of("\n".join(a) + "\n", "b.py"), statements_of("\n".join(b) + "\n", "f.py")
    coverage = cover(buggy, fixed, [])
    assert coverage.explained + len(coverage.unexplained) == coverage.changed
    assert cover(buggy, statements_of("\n".join(a) + "\n", "b.py"), []).changed == 0
    for u in coverage.unexplained:
        assert u.line is not None and (u.before or u.after)


def test_the_installed_command_shows_the_figure_and_every_unexplained_change(tmp_path, mutreal_command):
    b, f = tmp_path / "b.py", tmp_path / "f.py"
    b.write_text(KERAS)
    f.write_text(KERAS.replace("threshold = 0.5", "threshold = 0.7").replace("'relu'", "'tanh'"))
    run = subprocess.run([mutreal_command, "classify", str(b), str(f)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "changed statements explained: 1/2 (50%)" in run.stdout
    assert "unexplained changed (other)" in run.stdout and "threshold = 0.7" in run.stdout
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"id,benchmark,buggy,fixed\nbug1,demo,{b},{f}\n")
    out = tmp_path / "r.jsonl"
    run = subprocess.run(
        [mutreal_command, "classify", "--manifest", str(manifest), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "changed statements explained: 1/2 (50%)" in run.stderr
    row = json.loads(out.read_text())
    assert row["changed_statements"] == 2 and row["explained_statements"] == 1
    assert [u["after"] for u in row["unexplained"]] == ["threshold = 0.7"]


def test_older_rows_without_the_figures_read_as_not_measured():
    row = BugResult.from_dict({"id": "x", "status": "ok", "components": []})
    assert row.changed_statements is None and row.explained_share is None and row.unexplained == []
    _ = sys  # the module is used by subprocess calls above


def test_what_training_does_not_depend_on_is_no_change(classify_texts):
    """Results after training, random seeds, and data a benchmark makes up in place of the posted
    loading (with the loading it replaces) change neither the model nor its training."""
    after = KERAS + "scores = [p * 2 for p in predictions]\nnp.random.seed(1)\n"
    fixed = KERAS + "scores = [p * 3 for p in predictions]\nnp.random.seed(2)\n"
    result = classify_texts(after, fixed)
    assert result.changed_statements == 0
    assert result.noise_statements == {"outside_training": 1, "random_seeds": 1}
    loading = KERAS.replace(
        "x = np.random.rand(20, 3)", "import pandas as pd\nframe = pd.read_csv('d.csv')\nx = frame.values"
    )
    made_up = KERAS.replace(
        "x = np.random.rand(20, 3)", "x = np.array(np.random.random((20, 3)), dtype=np.float32)"
    )
    result = classify_texts(loading, made_up)
    assert result.changed_statements == 0 and "synthetic_data_source" in result.noise_statements


def test_a_literal_moved_into_a_variable_is_the_comparison_of_what_reads_it(classify_texts):
    fixed = KERAS.replace(
        "model.fit(x, y, epochs=3, batch_size=4)", "size = 4\nmodel.fit(x, y, epochs=3, batch_size=size)"
    )
    result = classify_texts(KERAS, fixed)
    assert result.codes == [] and result.changed_statements == 0
    # the literal written in its place is the statement of the other side (rule value_moved_into_variable)
    assert result.noise_statements == {"value_moved_into_variable": 2}
    # a changed literal stays a change, though a compared element reads it
    moved = classify_texts(fixed, fixed.replace("size = 4", "size = 8"))
    assert moved.codes == ["HBS"] and moved.changed_statements == moved.explained_statements == 1


def test_a_rewritten_program_s_additions_complete_it():
    """Over four added statements making up over half of the fixed program: a completion."""
    head = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 3])\n"
    tail = "train = tf.train.AdamOptimizer(0.01).minimize(loss)\n"
    short = head + "loss = tf.reduce_sum(x)\n" + tail
    chain = "h0 = x\n" + "".join(f"h{i + 1} = h{i} * 2.0\n" for i in range(5))
    rewrite = head + chain + "loss = tf.reduce_sum(h5)\n" + tail
    coverage = cover(statements_of(short, "b.py"), statements_of(rewrite, "f.py"), [])
    assert coverage.noise.get("completed_snippet") == 6
    assert coverage.changed == 0  # the loss reads h5 for x: a rename


def test_regrouping_headers_are_noise_and_other_headers_changes(classify_texts):
    """Decision regrouped-block-noise: a called wrapper, the main guard and a session block
    regroup the same statements; a new function, or a with that sets what its body builds, stays
    a change."""
    body = "x = tf.placeholder(tf.float32, [None, 4])\ny = tf.reduce_sum(x)\n"
    flat = "import tensorflow as tf\n" + body + "sess = tf.Session()\nprint(sess.run(y))\n"
    indented = "".join("    " + line + "\n" for line in body.splitlines())
    wrapped = (
        "import tensorflow as tf\ndef main():\n" + indented
        + "    with tf.Session() as sess:\n        print(sess.run(y))\n"
        + "if __name__ == '__main__':\n    main()\n"
    )
    coverage = cover(statements_of(flat, "b.py"), statements_of(wrapped, "f.py"), [])
    assert coverage.changed == 0 and coverage.noise.get("regrouped_block") == 3
    # a function nobody calls, and a device block: changes
    uncalled = wrapped.replace("if __name__ == '__main__':\n    main()\n", "")
    coverage = cover(statements_of(flat, "b.py"), statements_of(uncalled, "f.py"), [])
    assert [c.change for c in coverage.changes] == ["added"]
    device = "import tensorflow as tf\nwith tf.device('/cpu:0'):\n" + indented + "sess = tf.Session()\nprint(sess.run(y))\n"
    coverage = cover(statements_of(flat, "b.py"), statements_of(device, "f.py"), [])
    assert coverage.changed == 1 and "regrouped_block" not in coverage.noise


def test_a_value_moved_into_a_variable_and_a_renamed_function_are_no_change():
    moved = cover(
        statements_of("import tensorflow as tf\ninit = tf.global_variables_initializer()\ns.run(init)\n", "b.py"),
        statements_of("import tensorflow as tf\ns.run(tf.initialize_all_variables())\n", "f.py"),
        [],
    )
    assert moved.changed == 0 and moved.noise == {"value_moved_into_variable": 2}
    # another value in its place is a change
    other = cover(
        statements_of("import tensorflow as tf\ninit = tf.global_variables_initializer()\ns.run(init)\n", "b.py"),
        statements_of("import tensorflow as tf\ns.run(tf.local_variables_initializer())\n", "f.py"),
        [],
    )
    assert "value_moved_into_variable" not in other.noise and other.changed >= 1
    renamed = cover(
        statements_of("def train():\n    fit(self.cell)\ntrain()\n", "b.py"),
        statements_of("def main():\n    fit(cell)\nmain()\n", "f.py"),
        [],
    )
    assert renamed.changed == 0 and renamed.noise.get("renamed_variables") == 3


def test_paths_and_saved_results_are_noise_a_module_call_binds_no_module():
    coverage = cover(
        statements_of("import os\nx = 1\n", "b.py"),
        statements_of(
            "import os\ntrain_dir = os.path.join(os.path.dirname(__file__), 'data')\nx = 1\n"
            "os.makedirs(train_dir)\npath = saver.save(sess, 'model.ckpt')\n",
            "f.py",
        ),
        [],
    )
    assert coverage.changed == 0
    [made] = statements_of("import os\nos.makedirs(d)\n", "a.py")[1:]
    assert "os" not in made.binds
    # TensorFlow's functions change the default graph later statements read
    [added] = statements_of("import tensorflow as tf\ntf.losses.add_loss(l)\n", "a.py")[1:]
    assert "tf" in added.binds


def test_a_replaced_program_is_counted_as_a_rewrite():
    """Decision rewritten-program: over half of each side new or gone."""
    posted = "p0 = open_table('t')\n" + "".join(
        f"p{i + 1} = p{i}.join(fetch_record({i}))\n" for i in range(7)
    ) + "model.fit(p7, labels)\n"
    own = "q0 = 1.0\n" + "".join(f"q{i + 1} = np.tanh(q{i}) * {i + 2}.5\n" for i in range(7))
    own += "model.fit(q7, labels)\n"
    coverage = cover(statements_of(posted, "b.py"), statements_of(own, "f.py"), [])
    assert coverage.noise.get("rewritten_program") == 15 and coverage.changed == 0
    # a fix that keeps most of the posted program is no rewrite
    kept = posted + "".join(f"r{i} = make_row({i})\n" for i in range(5))
    coverage = cover(statements_of(posted, "b.py"), statements_of(kept, "f.py"), [])
    assert "rewritten_program" not in coverage.noise


def test_the_loading_a_benchmark_replaced_with_made_up_data_is_set_up(classify_texts):
    """Rule synthetic_data_source: where the fixed program makes its data up, the buggy program's
    loading (the reading calls, what is moved along from them, the input pipeline's machinery)
    is what the benchmark replaced; an operation of the model on the data is not loading."""
    head = "import numpy as np\nimport tensorflow as tf\n"
    model = (
        "x = tf.placeholder(tf.float32, [None, 4])\nw = tf.Variable(tf.zeros([4, 1]))\n"
        "cost = tf.reduce_mean(tf.square(tf.matmul(x, w)))\n"
        "step = tf.train.AdamOptimizer(0.01).minimize(cost)\n"
    )
    loading = (
        "names = tf.train.string_input_producer(['a.csv'])\nreader = tf.TextLineReader()\n"
        "key, line = reader.read(names)\nrows = tf.decode_csv(line, [[0.0]] * 4)\n"
        "batch = tf.train.batch([rows], batch_size=8)\n"
    )
    train = "sess = tf.Session()\nfor i in range(3):\n    sess.run(step, feed_dict={x: data})\n"
    buggy = head + loading + model + train.replace("data}", "sess.run(batch)}")
    fixed = head + "data = np.random.random((8, 4))\n" + model + train
    result = classify_texts(buggy, fixed)
    assert result.unexplained == [] and result.noise_statements.get("synthetic_data_source", 0) >= 5
    # the same loading with the posted data kept is a change
    kept = classify_texts(buggy, buggy.replace("batch_size=8", "batch_size=8, num_threads=4"))
    assert kept.changed_statements == 1


_VALUES = st.sampled_from(["tf.zeros([3, 2])", "np.ones(4) * 2", "make(7, depth=2)", "0.25", "[1, 2, 3]"])
_READERS = st.sampled_from(["out = f({})", "sess.run({})", "y = {} + x", "w = tf.Variable({}, trainable=True)"])


@settings(max_examples=40, deadline=None)
@given(_VALUES, _VALUES, _READERS, st.booleans())
def test_a_value_written_in_place_of_its_variable_is_no_change_another_value_is(value, other, reader, flip):
    """Rule value_moved_into_variable on statements, either direction: ``v = E; R(v)`` against
    ``R(E)`` is no change; against ``R(E')`` with another value it stays one."""
    head = "import numpy as np\nimport tensorflow as tf\n"
    named = head + f"v = {value}\n" + reader.format("v") + "\n"
    inline = head + reader.format(value) + "\n"
    a, b = (named, inline) if flip else (inline, named)
    same = cover(statements_of(a, "a.py"), statements_of(b, "b.py"), [])
    assert same.changed == 0 and same.noise.get("value_moved_into_variable") == 2
    changed = head + reader.format(other) + "\n"
    if statements_of(changed, "c.py")[-1].text != statements_of(inline, "i.py")[-1].text:
        a, b = (named, changed) if flip else (changed, named)
        differs = cover(statements_of(a, "a.py"), statements_of(b, "b.py"), [])
        assert "value_moved_into_variable" not in differs.noise
