"""The framework a program runs on, decided from its source, and the rewrites that get it there.

Own programs in the shapes of the real benchmarks: a Keras 1 program with DeepLocalize-style
instrumentation (its callback, ``time.clock`` timing, ``sys.exit`` after training), a TensorFlow 1
graph program, a ``tf.keras`` program, a Keras 3 program and a plain numpy one. Nothing here trains
(the slow tests in test_runtime_framework_runs.py do); TensorFlow's converter is imported once.
"""

from __future__ import annotations

import libcst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compat.framework_choice import CHOICES, prepare_runtime
from mutreal.compat.removed_apis import rewrite_removed_apis
from mutreal.compat.scaffolding import strip_instrumentation
from mutreal.execution import hashing
from mutreal.execution.plan import PreparedProgram, prepare_program, run_key
from mutreal.execution.records import RunRecord
from mutreal.program.training_observers import BENCHMARK_CALLBACKS, TRAINING_CALLBACKS

KERAS1_INSTRUMENTED = """\
import sys
import time
import keras
from keras.models import Sequential
from keras.layers.core import Dense
x = [[0.0, 1.0]] * 8
y = [1.0] * 8
model = Sequential()
model.add(Dense(1, input_dim=2, init='uniform', activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='sgd')
start_time = time.clock()
model.fit(x, y, nb_epoch=2, callbacks=[keras.callbacks.EarlyStopping(monitor='loss'),
                                       keras.callbacks.DeepLocalize(x, y, 2, 32, start_time)])
print("time", time.clock() - start_time)
sys.exit(1)
"""

TF1_GRAPH = """\
import numpy as np
import tensorflow as tf
x = tf.placeholder(tf.float32, shape=[None, 4])
w = tf.Variable(tf.random_normal([4, 3]))
loss = tf.reduce_sum(tf.log(tf.nn.softmax(tf.matmul(x, w))), reduction_indices=[1])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(loss, feed_dict={x: np.ones((2, 4))}))
"""

TF_KERAS = """\
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
model.compile(optimizer="adam", loss="mse")
"""

KERAS3 = """\
import keras
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
model.compile(optimizer="adam", loss="mse")
"""

NUMPY_ONLY = "import numpy as np\nx = np.zeros(3, dtype=np.float)\nprint(x.sum())\n"


def test_a_keras1_program_runs_on_tf_keras_without_its_instrumentation():
    prepared = prepare_runtime(KERAS1_INSTRUMENTED)
    assert (prepared.era, prepared.framework) == ("keras1", "tf_keras")
    text = prepared.source
    assert "DeepLocalize" not in text and "sys.exit" not in text and "time.clock" not in text
    assert "EarlyStopping" in text  # a callback that changes training stays
    assert "time.perf_counter()" in text and "epochs=2" in text and "kernel_initializer='uniform'" in text
    kinds = " | ".join(prepared.rewrites)
    assert "benchmark instrumentation: keras.callbacks.DeepLocalize(...)" in kinds
    assert "exit scaffolding: sys.exit(1)" in kinds and "removed API: time.clock -> time.perf_counter" in kinds
    assert "nb_epoch= -> epochs=" in kinds
    compile(text, "<rewritten>", "exec")


def test_a_tf1_graph_program_is_converted_by_tensorflow_and_runs_in_graph_mode():
    prepared = prepare_runtime(TF1_GRAPH)
    assert (prepared.era, prepared.framework) == ("tf1", "tf1")
    assert "tf.compat.v1.placeholder" in prepared.source and "tf.compat.v1.Session" in prepared.source
    assert "tf.math.log" in prepared.source and "axis=[1]" in prepared.source
    assert any("tf_upgrade_v2" in line and "tf.placeholder" in line for line in prepared.rewrites)


def test_tf_keras_and_keras3_and_plain_programs():
    # tf.keras without any Keras 1/2-only API: Keras 3, what tf.keras is today, runs it as it is
    plain_tf_keras = prepare_runtime(TF_KERAS)
    assert plain_tf_keras.framework == "keras3" and plain_tf_keras.era == "tf2" and plain_tf_keras.source == TF_KERAS
    legacy = TF_KERAS.replace('optimizer="adam"', "optimizer=tf.keras.optimizers.Adam(lr=0.1)")
    tf_keras = prepare_runtime(legacy)  # lr=: Keras 2 API that Keras 3 removed
    assert tf_keras.framework == "tf_keras" and tf_keras.era == "tf2"
    assert "learning_rate=0.1" in tf_keras.source and "optimizers.legacy.Adam" in tf_keras.source
    functional = "import tensorflow as tf\nx = tf.keras.Input((3,))\ny = tf.concat([x, x], 1)\nm = tf.keras.Model(x, y)\nm.compile(optimizer=tf.keras.optimizers.SGD(lr=1))\n"
    on_keras2 = prepare_runtime(functional)  # Keras 2 applies TF ops to its tensors: not rewritten for Keras 3
    assert on_keras2.framework == "tf_keras" and "tf.concat" in on_keras2.source and "ops" not in on_keras2.source
    keras3 = prepare_runtime(KERAS3)
    assert keras3.framework == "keras3" and keras3.source == KERAS3 and keras3.rewrites == []
    numpy_only = prepare_runtime(NUMPY_ONLY)  # nothing Keras: the default worker, np.float rewritten
    assert numpy_only.framework == "keras3" and "np.float" not in numpy_only.source


def test_the_override_decides_and_as_is_leaves_the_text_alone():
    assert prepare_runtime(KERAS1_INSTRUMENTED, "as-is").source == KERAS1_INSTRUMENTED
    assert prepare_runtime(KERAS1_INSTRUMENTED, "as-is").framework == "keras3"
    assert prepare_runtime(KERAS1_INSTRUMENTED, "as-is", modernize=True).rewrites  # --modernize still rewrites
    assert prepare_runtime(KERAS3, "tf_keras").framework == "tf_keras"
    forced = prepare_runtime(KERAS1_INSTRUMENTED, "keras3")
    assert forced.framework == "keras3" and "DeepLocalize" not in forced.source
    with pytest.raises(ValueError, match="unknown framework"):
        prepare_runtime(KERAS3, "keras2")
    assert set(CHOICES) == {"auto", "keras3", "tf_keras", "tf1", "as-is"}


def test_a_python2_program_is_upgraded_and_a_broken_one_runs_as_written():
    py2 = "import keras\nfrom keras.models import Sequential\nprint 'hello'\n"
    prepared = prepare_runtime(py2)
    assert "print('hello')" in prepared.source and prepared.rewrites[0].startswith("Python 2 syntax")
    broken = "from keras.models import Sequential\nmodel = (\n"
    assert prepare_runtime(broken).source == broken  # fails at run time with its own SyntaxError


def test_removed_apis_and_scikit_learn_wrappers():
    text = (
        "from time import clock\nimport time\nfrom sklearn.cross_validation import train_test_split\n"
        "from keras.wrappers.scikit_learn import KerasClassifier as KC\nimport matplotlib.pyplot as plt\n"
        "t = clock() + time.clock()\nclf = KC(build_fn=make, epochs=2)\nplt.hold(True)\n"
    )
    new, changes = rewrite_removed_apis(text)
    assert "from time import perf_counter as clock" in new and "time.perf_counter()" in new
    assert "from sklearn.model_selection import" in new and "from scikeras.wrappers import KerasClassifier as KC" in new
    assert "KC(model=make, epochs=2)" in new and "plt.hold" not in new
    assert len(changes) == 6


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(TRAINING_CALLBACKS | {"TensorBoard", "CSVLogger"})), max_size=3),
    st.integers(0, 3),
    st.sampled_from(sorted(BENCHMARK_CALLBACKS)),
)
def test_instrumentation_removal_keeps_every_keras_callback(kept, benchmark_position, benchmark):
    """Whatever the mix, only the benchmark's callbacks go and every Keras callback stays in order."""
    names = [f"keras.callbacks.{name}()" for name in kept]
    with_benchmark = list(names)
    with_benchmark.insert(min(benchmark_position, len(names)), f"keras.callbacks.{benchmark}(x, y)")
    text = f"model.fit(x, y, callbacks=[{', '.join(with_benchmark)}])\nprint('done')\n"
    new, changes = strip_instrumentation(text)
    assert new == f"model.fit(x, y, callbacks=[{', '.join(names)}])\nprint('done')\n"
    assert len(changes) == 1 and {"DeepLocalize", "backpropagation", "generator"} == BENCHMARK_CALLBACKS
    assert strip_instrumentation(new) == (new, [])


def test_a_users_own_callback_named_like_the_benchmarks_stays():
    text = "model.fit(x, y, callbacks=[generator(x), mine.backpropagation()])\n"
    assert strip_instrumentation(text) == (text, [])


def test_only_a_trailing_exit_is_scaffolding():
    middle = "import sys\nif bad:\n    sys.exit(1)\nsys.exit(2)\nprint('after')\n"
    assert strip_instrumentation(middle)[0] == middle  # code follows: the exit is the program's
    trailing = "import sys\nmodel.fit(x, y)\nsys.exit(1)\n\n'''notes'''\n"
    assert strip_instrumentation(trailing)[0] == "import sys\nmodel.fit(x, y)\n"  # and what follows does nothing
    exits = "import sys\nprint('x')\nsys.exit(3)\n"
    assert strip_instrumentation(exits)[0] == exits  # no training: the exit status is the program's
    with pytest.raises(libcst.ParserSyntaxError):
        strip_instrumentation("def (:\n")


def test_an_exit_after_training_with_code_after_it_is_scaffolding():
    """DeepLocalize cut its programs short after training; the evaluation after the exit is the program's."""
    guarded = (
        "import sys\n\ndef train(m):\n    m.fit(x, y)\n\nif __name__ == '__main__':\n    train(model)\n"
        "    print('time', 3)\n\n    sys.exit(1)\n\n    model.evaluate(x, y)\n"
    )
    new, changes = strip_instrumentation(guarded)
    assert new == guarded.replace("    sys.exit(1)\n", "    pass\n")  # line numbers kept
    assert [(c.kind, c.line) for c in changes] == [("exit scaffolding", 10)]
    flat = "import sys\nscores = cross_val_score(est, x, y)\nsys.exit(1)\nprint(scores)\n"
    assert strip_instrumentation(flat)[0] == flat.replace("sys.exit(1)", "pass")
    in_function = "def main():\n    model.fit(x, y)\n    sys.exit(1)\n    model.save('m.h5')\n"
    assert strip_instrumentation(in_function)[0] == in_function.replace("sys.exit(1)", "pass")


@pytest.mark.parametrize(
    "text",
    [
        "model.fit(x, y)\nif acc < 0.5:\n    sys.exit(1)\nprint(acc)\n",  # a condition: the program's logic
        "model.fit(x, y)\nfor f in files:\n    if not f:\n        exit(-1)\nprint(1)\n",
        "model.fit(x, y)\ntry:\n    run()\nexcept E:\n    sys.exit(2)\nprint(1)\n",
        "sys.exit(main())\nmodel.fit(x, y)\n",  # before any training
        "if __name__ == '__main__':\n    sys.exit(1)\n    model.fit(x, y)\n",
        "model.fit(x, y)\n\ndef usage():\n    print('usage: train.py N')\n    sys.exit(1)\n",  # a helper, not training
    ],
)
def test_an_exit_under_a_condition_or_before_training_stays(text):
    assert strip_instrumentation(text) == (text, [])


def test_a_version_pin_is_scaffolding():
    text = 'import tensorflow as tf\n\nassert tf.__version__ == "1.8.0"\nassert x > 0\nif tf:\n    assert tf.__version__[:5] == "0.12."\n'
    new, changes = strip_instrumentation(text)
    assert new == "import tensorflow as tf\n\npass\nassert x > 0\nif tf:\n    pass\n"  # line numbers kept
    assert [c.kind for c in changes] == ["version pin", "version pin"] and changes[0].line == 3


def test_the_framework_enters_the_run_key_but_keras3_keys_are_unchanged(tmp_path):
    program = tmp_path / "p.py"
    program.write_text(KERAS1_INSTRUMENTED)
    prepared = prepare_program(program, False)
    assert prepared.framework == "tf_keras" and prepared.era == "keras1" and prepared.rewrites
    assert prepared.program_hash == hashing.program_hash(prepared.source)
    keras3 = PreparedProgram(program, "x", "p", "d")
    assert run_key(keras3, 0, "c", "e") == hashing.sha256_text("p|d|c|0|e")  # stores written before
    on_tf_keras = PreparedProgram(program, "x", "p", "d", framework="tf_keras")
    assert run_key(on_tf_keras, 0, "c", "e") != run_key(keras3, 0, "c", "e")
    as_is = prepare_program(program, False, framework="as-is")
    assert as_is.framework == "keras3" and as_is.source == KERAS1_INSTRUMENTED and as_is.rewrites == []


def test_records_of_old_stores_read_without_era_or_framework():
    old = RunRecord.from_dict({"key": "k", "program": "p.py", "seed": 0, "outcome": "ok",
                               "modernize_changes": ["line 1: argument: lr= -> learning_rate="]})  # fmt: skip
    assert old.era == "" and old.framework == "" and old.rewrites == []
    assert old.modernize_changes == ["line 1: argument: lr= -> learning_rate="]
    new = RunRecord(key="k", program="p.py", seed=0, outcome="ok", era="tf1", framework="tf1", rewrites=["r"])
    again = RunRecord.from_dict(new.to_dict())
    assert (again.era, again.framework, again.rewrites) == ("tf1", "tf1", ["r"])


def test_a_worker_takes_tasks_of_its_framework_first():
    """Workers switch framework (a fresh process) as rarely as the queue allows."""
    from mutreal.execution.pool import _Pending

    tasks = [{"key": "a", "framework": "tf_keras"}, {"key": "b"}, {"key": "c", "framework": "tf1"},
             {"key": "d", "framework": "tf_keras"}]  # fmt: skip
    pending = _Pending(tasks)
    assert pending.take("keras3")["key"] == "b"  # no framework: Keras 3
    assert pending.take("tf_keras")["key"] == "a" and pending.take("tf_keras")["key"] == "d"
    assert pending.take("keras3")["key"] == "c"  # none of its own left: the first, it restarts for it
    assert pending.take("tf1") is None


def test_a_worker_environment_per_framework():
    from mutreal.execution import frameworks

    caller = {"PATH": "/bin", "TF_USE_LEGACY_KERAS": "1"}
    assert frameworks.environment_for("keras3", caller) == {"PATH": "/bin"}  # never the caller's tf_keras
    assert frameworks.environment_for("tf_keras", {"PATH": "/bin"})["TF_USE_LEGACY_KERAS"] == "1"
    assert frameworks.environment_for("tf1", {})["TF_USE_LEGACY_KERAS"] == "1"
