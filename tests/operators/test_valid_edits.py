"""Mutants are valid for the API they touch: names they add are bound before use, keywords they
add are taken by the call in the program's framework, and TensorFlow 1 graph code gets graph edits
(or the operator says why it has no site). The programs here are written for these tests."""

from __future__ import annotations

import ast
import json
import os
import subprocess
from pathlib import Path

import pytest

from mutreal.mutation.mutate import Failure, Invalid, generate
from mutreal.mutation.operators import Program, registry
from mutreal.mutation.static_check import SignatureOracle, check_code, check_mutant

#: a Keras program whose result block imports after training (as Defects4ML's programs do): a
#: name a mutant adds must be imported above the compile, and ``keras`` (imported only at the end)
#: must not be reused there
LATE_IMPORTS = '''"""Iris with a result block that imports after training."""
from __future__ import print_function
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
from sklearn.datasets import load_iris
from keras.models import Sequential
from keras.layers import Dense

data = load_iris()
x, y = data.data, data.target
model = Sequential()
model.add(Dense(8, activation="relu", input_dim=4))
model.add(Dense(3, activation="softmax"))
model.compile(loss="sparse_categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=16, verbose=0)

import json
import keras
print(json.dumps({"accuracy": float(model.evaluate(x, y, verbose=0)[1]), "keras": keras.__version__}))
'''

#: the same with an optimizer object named by its import: OCH writes another class, imported
LATE_IMPORTS_OBJECT = LATE_IMPORTS.replace(
    "from keras.layers import Dense\n", "from keras.layers import Dense\nfrom keras.optimizers import Adam\n"
).replace('optimizer="adam"', "optimizer=Adam(learning_rate=0.01)")

#: TensorFlow 1 graph code: a convolution and a dense product on tf.Variables, a session loop
#: feeding slices of scikit-learn's digits
TF1_GRAPH = """import numpy as np
import tensorflow as tf
from sklearn.datasets import load_digits

digits = load_digits()
X = (digits.images / 16.0).reshape(-1, 8, 8, 1).astype(np.float32)
Y = np.eye(10)[digits.target].astype(np.float32)
x_train, y_train = X[:1400], Y[:1400]
x_test, y_test = X[1400:], Y[1400:]

x = tf.placeholder(tf.float32, [None, 8, 8, 1])
y = tf.placeholder(tf.float32, [None, 10])


def conv2d(inp, W):
    return tf.nn.conv2d(inp, W, strides=[1, 1, 1, 1], padding='SAME')


W1 = tf.Variable(tf.truncated_normal([3, 3, 1, 8], stddev=0.1))
b1 = tf.Variable(tf.constant(0.1, shape=[8]))
h1 = tf.nn.relu(conv2d(x, W1) + b1)
flat = tf.reshape(h1, [-1, 8 * 8 * 8])
W2 = tf.Variable(tf.truncated_normal([8 * 8 * 8, 10], stddev=0.1))
b2 = tf.Variable(tf.constant(0.1, shape=[10]))
logits = tf.matmul(flat, W2) + b2

loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
train_step = tf.train.AdamOptimizer(0.01).minimize(loss)
correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

epochs = 2
batch_size = 200
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(epochs):
        for i in range(0, len(x_train), batch_size):
            sess.run(train_step, feed_dict={x: x_train[i:i + batch_size], y: y_train[i:i + batch_size]})
    print('test accuracy', sess.run(accuracy, feed_dict={x: x_test, y: y_test}))
"""

#: the operators with a graph-code meaning that must offer a site in TF1_GRAPH
TF1_OFFERED = {"ACH", "ARM", "WCI", "HLR", "OCH", "HNE", "HBS", "TCL", "TRD", "TUD", "TAN", "TCO"}


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> SignatureOracle:
    """One signature oracle for the module, cached in a folder of its own."""
    return SignatureOracle(str(tmp_path_factory.mktemp("signatures")))


def _mutants(program: Program, op_id: str) -> list:
    return [m for m in generate(program, op_id, all_values=True) if not isinstance(m, Failure)]


def _first_line(code: str, text: str) -> int:
    return next(i for i, line in enumerate(code.splitlines(), 1) if text in line)


# -- imports in scope -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op_id", "text"), [("HLR", LATE_IMPORTS), ("OCG", LATE_IMPORTS), ("OCH", LATE_IMPORTS_OBJECT)]
)
def test_added_import_lands_above_its_first_use_when_imports_follow_training(op_id: str, text: str) -> None:
    program = Program(text, "late.py")
    mutants = _mutants(program, op_id)
    added = [m for m in mutants if m.code.count("from keras.optimizers import") > text.count("from keras.optimizers")]
    assert added, f"{op_id} adds an import to this program"
    for m in added:
        new = next(line for line in m.code.splitlines() if line.startswith("from keras.optimizers") and line not in text)
        imported = _first_line(m.code, new)
        assert imported < _first_line(m.code, "model.compile("), m.name
        # with the module's leading imports: after the last one above the use, below the os.environ line
        assert imported > _first_line(m.code, "os.environ"), m.name
        assert "keras.optimizers." not in m.code.split("model.compile(", 1)[1].split("\n", 1)[0], (
            "keras is imported only after training: its alias is unbound at the compile"
        )
        assert check_mutant(program, m, keywords=False) == []


def test_an_import_keeps_future_and_docstring_first() -> None:
    program = Program('"""Doc."""\nfrom __future__ import annotations\nmodel.compile(optimizer="sgd", loss="mse")\n')
    (m, *_) = _mutants(program, "HLR")
    lines = m.code.splitlines()
    assert lines[0] == '"""Doc."""' and lines[1].startswith("from __future__")
    assert lines[2].startswith("from keras.optimizers import SGD")


def test_static_check_finds_a_name_imported_after_its_use() -> None:
    original = "import json\nx = 1\n"
    late = "x = Adam(learning_rate=0.1)\nimport json\nfrom keras.optimizers import Adam\n"
    found = check_code(original, late, None)
    assert [v.kind for v in found] == ["unbound-name"] and "Adam" in found[0].message
    bound = "import json\nfrom keras.optimizers import Adam\nx = Adam(learning_rate=0.1)\n"
    assert check_code(original, bound, None) == []


def test_static_check_blames_the_mutant_not_the_program() -> None:
    # a helper reading a global assigned below it is the program's own: not a violation of its mutant
    original = "def f():\n    return later\nlater = 1\nprint(f())\n"
    assert check_code(original, original.replace("1", "2"), None) == []


@pytest.mark.slow
def test_a_mutant_of_a_program_importing_after_training_trains(tmp_path: Path, mutreal_command: str) -> None:
    program = Program(LATE_IMPORTS, "late.py")
    mutant = next(m for m in _mutants(program, "HLR") if "from keras.optimizers import" in m.code)
    path = tmp_path / "late_hlr.py"
    path.write_text(mutant.code)
    out = subprocess.run(
        [mutreal_command, "run", str(path), "--runs", "1", "--json", "-q", "--framework", "auto", "--timeout", "300"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    runs = json.loads(out.stdout)["runs"]
    assert runs[0]["outcome"] == "ok", (runs[0]["error_type"], runs[0]["error_message"])


# -- keywords the API takes -----------------------------------------------------------------------


def test_static_check_finds_a_keyword_a_graph_op_does_not_take(oracle: SignatureOracle) -> None:
    original = "import tensorflow as tf\nh = tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='SAME')\n"
    bad = original.replace("padding='SAME')", "padding='SAME', kernel_regularizer='l2')")
    found = check_code(original, bad, "tf1", oracle)
    assert [v.kind for v in found] == ["keyword"] and "kernel_regularizer" in found[0].message
    keras = "from keras.layers import Dense\nd = Dense(3)\n"
    assert check_code(keras, keras.replace("Dense(3)", "Dense(3, use_bias=False)"), "tf_keras", oracle) == []
    assert check_code(keras, keras.replace("Dense(3)", "Dense(3, use_bais=False)"), "tf_keras", oracle) != []


# -- TensorFlow 1 graph code ----------------------------------------------------------------------


def test_tf1_graph_mutants_are_graph_edits_and_pass_the_static_check(oracle: SignatureOracle) -> None:
    program = Program(TF1_GRAPH, "graph.py")
    offered = set()
    for op_id in registry.operators():
        made = list(generate(program, op_id, all_values=True))
        assert not [m for m in made if isinstance(m, Invalid)], op_id
        for m in made:
            if isinstance(m, Failure):
                continue
            offered.add(op_id)
            assert check_mutant(program, m, oracle) == [], (op_id, m.name)
            ast.parse(m.code)
    assert offered >= TF1_OFFERED, TF1_OFFERED - offered
    assert not offered & {"RAW", "WAB", "WRB", "AAL", "OCG"}, "graph ops take no Keras keywords"
    ach = next(m for m in _mutants(program, "ACH") if m.edits[0].value == "elu")
    assert "h1 = tf.nn.elu(conv2d(x, W1) + b1)" in ach.code  # the function, never its input
    wci = next(m for m in _mutants(program, "WCI") if m.edits[0].value == "zeros")
    assert "W1 = tf.Variable(tf.zeros([3, 3, 1, 8]))" in wci.code
    hlr = _mutants(program, "HLR")[0]
    assert "tf.train.AdamOptimizer(1e-05).minimize(loss)" in hlr.code


def test_tf1_operators_without_a_site_say_why(tmp_path: Path, mutreal_command: str) -> None:
    path = tmp_path / "graph.py"
    path.write_text(TF1_GRAPH)
    out = subprocess.run([mutreal_command, "mutate", str(path), "--list"], capture_output=True, text=True, check=True)
    listed = {line.split("\t")[0] for line in out.stdout.splitlines() if "\tno site: " not in line}
    reasons = {line.split("\t")[0] for line in out.stdout.splitlines() if "\tno site: " in line}
    for op_id in registry.operators():
        assert op_id in listed | reasons, f"{op_id}: neither a site nor a reason"
    assert "takes no kernel_regularizer" in out.stdout and "takes no use_bias" in out.stdout


@pytest.mark.slow
def test_every_tf1_graph_mutant_trains(tmp_path: Path, mutreal_command: str) -> None:
    """One mutant per operator that offers a site (and every WCI initializer), each trained once."""
    program = Program(TF1_GRAPH, "graph.py")
    paths = []
    for op_id in sorted(TF1_OFFERED | {"HDB"}):
        mutants = _mutants(program, op_id)
        chosen = mutants if op_id == "WCI" else mutants[:1]
        for m in chosen:
            p = tmp_path / m.name
            p.write_text(m.code)
            paths.append(str(p))
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    out = subprocess.run(
        [mutreal_command, "run", *paths, "--runs", "1", "--json", "-q", "--framework", "auto", "--timeout", "300"],
        capture_output=True, text=True, timeout=1500, env=env, check=False,
    )
    runs = json.loads(out.stdout)["runs"]
    assert len(runs) == len(paths)
    failed = [(r["program"], r["error_type"], r["error_message"]) for r in runs if r["outcome"] != "ok"]
    assert not failed
    assert {r["framework"] for r in runs} == {"tf1"}


def test_a_mutant_failing_the_static_check_is_refused_and_listed(monkeypatch) -> None:
    """The refusal is the safety net under every operator: with the old alias choice (``keras``
    reused though it is imported only after training) the HLR mutant is not written, and the
    site's listing says why."""
    from mutreal.mutation.mutate import list_sites
    from mutreal.mutation.operators.program import Program as ProgramClass

    real_spell = ProgramClass.spell
    monkeypatch.setattr(ProgramClass, "spell", lambda self, module, name, before=None: real_spell(self, module, name))
    program = Program(LATE_IMPORTS, "late.py")
    made = list(generate(program, "HLR", all_values=True))
    assert made and all(isinstance(m, Invalid) for m in made)
    assert "keras is used before anything binds it" in made[0].error
    (row,) = list_sites(program, ["HLR"])
    assert not row.values and row.invalid and "static check" in row.invalid[0][1]


def test_static_check_finds_a_global_made_local_by_an_assignment_before_its_read() -> None:
    original = "data = [1, 2]\n\n\ndef train():\n    for i in range(2):\n        print(data)\n\n\ntrain()\n"
    rebound = original.replace("    for i", "    data = list(data)\n    for i")
    found = check_code(original, rebound, None)
    assert [v.kind for v in found] == ["unbound-name"] and "data" in found[0].message
    as_parameter = original.replace("def train():\n", "def train(data):\n    data = list(data)\n")
    assert check_code(original, as_parameter, None) == []


@pytest.mark.parametrize(
    "text",
    [
        TF1_GRAPH.replace("with tf.Session() as sess:\n", "def train():\n    with tf.Session() as sess:\n")
        .replace("\n    sess.run(tf.global", "\n        sess.run(tf.global")
        .replace("\n    for epoch", "\n        for epoch")
        .replace("\n        for i in", "\n            for i in")
        .replace("\n            sess.run(train_step", "\n                sess.run(train_step")
        .replace("\n    print('test", "\n        print('test")
        + "\n\ntrain()\n",
        "import numpy as np\nfrom keras.models import Sequential\nfrom keras.layers import Dense\n"
        "x_train = np.random.rand(20, 4)\ny_train = np.random.rand(20, 1)\n"
        "model = Sequential([Dense(1, input_dim=4)])\nmodel.compile(loss='mse', optimizer='sgd')\n\n\n"
        "def train():\n    model.fit(x_train, y_train, epochs=1)\n\n\ntrain()\n",
    ],
    ids=["tf1 session loop", "keras fit"],
)
def test_training_data_arrays_global_to_the_training_function_are_no_site(text: str) -> None:
    ast.parse(text)
    program = Program(text, "prog.py")
    for op_id in ("TCL", "TRD", "TUD", "TAN", "TCO"):
        op = registry.get(op_id)
        assert op.sites(program) == [], op_id
        assert any("UnboundLocalError" in why for why in op.no_site_reasons(program)), op_id


def test_hdb_writes_the_fed_array_s_length_only_below_its_binding() -> None:
    early = TF1_GRAPH.replace("batch_size = 200\n", "").replace(
        "from sklearn.datasets import load_digits\n", "from sklearn.datasets import load_digits\nbatch_size = 200\n"
    )
    program = Program(early, "graph.py")
    assert registry.get("HBS").sites(program), "the batch size is still a site of HBS"
    assert registry.get("HDB").sites(program) == []
    (m,) = _mutants(Program(TF1_GRAPH, "graph.py"), "HDB") or [None]
    assert m is None or "batch_size = len(x_train)" in m.code


#: graph code whose samples are the columns of its arrays, fed whole to placeholders of fixed shape
#: (``tf.matmul(W, X)``): rows are features, so removing or adding rows cannot be fed
FIXED_ROWS_GRAPH = """import numpy as np
import tensorflow as tf
from sklearn.datasets import load_diabetes

data = load_diabetes()
n = 300
inputs = np.vstack([data.data[:n, 2], np.ones(n)]).astype(np.float32)
targets = data.target[:n].reshape(1, n).astype(np.float32) / 100.0
X = tf.placeholder(tf.float32, [2, n])
Y = tf.placeholder(tf.float32, shape=(1, n))
W = tf.Variable(tf.zeros([1, 2]))
loss = tf.reduce_mean(tf.square(Y - tf.matmul(W, X)))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(50):
        sess.run(step, feed_dict={X: inputs, Y: targets})
    print(sess.run(loss, feed_dict={X: inputs, Y: targets}))
"""


@pytest.mark.parametrize("op_id", ["TRD", "TUD", "TCO"])
def test_rows_are_not_removed_or_added_where_a_fixed_placeholder_takes_the_whole_array(op_id: str) -> None:
    program = Program(FIXED_ROWS_GRAPH, "columns.py")
    op = registry.operators()[op_id]
    assert op.sites(program) == []
    assert any("placeholder X of fixed shape [2, n]" in why for why in op.no_site_reasons(program))
    # where the placeholder takes any number of rows (None), the same loop is a site
    any_rows = Program(FIXED_ROWS_GRAPH.replace("[2, n]", "[None, n]").replace("(1, n)", "(None, n)"), "rows.py")
    assert len(op.sites(any_rows)) == 1
    # slices of the array fed to a fixed batch placeholder: rows of any number are fed in turn
    sliced = FIXED_ROWS_GRAPH.replace("{X: inputs, Y: targets})\n    print", "{X: inputs[:2], Y: targets[:1]})\n    print")
    assert len(op.sites(Program(sliced, "sliced.py"))) == 1


@pytest.mark.slow
def test_row_keeping_training_data_mutants_of_a_fixed_placeholder_graph_train(tmp_path: Path, mutreal_command: str) -> None:
    """TCL and TAN keep the rows: they still have a site there, and their mutants train."""
    program = Program(FIXED_ROWS_GRAPH, "columns.py")
    paths = []
    for op_id in ("TCL", "TAN"):
        mutant = _mutants(program, op_id)[0]
        (tmp_path / mutant.name).write_text(mutant.code)
        paths.append(str(tmp_path / mutant.name))
    out = subprocess.run(
        [mutreal_command, "run", *paths, "--runs", "1", "--json", "-q", "--framework", "auto", "--timeout", "300"],
        capture_output=True, text=True, timeout=900, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""}, check=False,
    )
    runs = json.loads(out.stdout)["runs"]
    assert [r["outcome"] for r in runs] == ["ok", "ok"], [(r["error_type"], r["error_message"]) for r in runs]


def test_no_other_optimizer_where_the_variables_are_initialised_before_it_is_built() -> None:
    # the initialiser op covers only the variables that exist when it is built: Adam's or Adagrad's
    # slot variables, made by minimize below it, would stay uninitialised
    early = FIXED_ROWS_GRAPH.replace(
        "step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\nwith tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n",
        "sess = tf.InteractiveSession()\ntf.global_variables_initializer().run()\n"
        "step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\nif True:\n",
    )
    assert early != FIXED_ROWS_GRAPH
    och = registry.operators()["OCH"]
    assert och.sites(Program(early, "early.py")) == []
    (why,) = och.no_site_reasons(Program(early, "early.py"))
    assert "initialised at line 14, before it is built" in why
    assert len(och.sites(Program(FIXED_ROWS_GRAPH, "late.py"))) == 1  # initialised after minimize: a site
    hlr = registry.operators()["HLR"]  # another rate makes no slot: still a site
    assert len(hlr.sites(Program(early, "early.py"))) == 1
