"""NumPy 1's one-element arrays as numbers, given back to programs written before NumPy 2.

A TensorFlow 1 program that prints a fetched ``(1,)`` variable with ``"w %g" % w`` stops on NumPy 2
in its training loop. The rewrite must give exactly what NumPy 1 printed (the element's value) and
change nothing anywhere else: every format and value that works on NumPy 2 formats the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compat.framework_choice import prepare_runtime
from mutreal.compat.numpy1_scalars import as_scalar, format_args
from mutreal.compat.removed_apis import rewrite_removed_apis

#: conversions drawn by the property tests, and whether each makes its argument a number
CONVERSIONS = {"%g": True, "%d": True, "%5.2f": True, "%e": True, "%s": False, "%r": False}


def _value(numeric: bool):
    numbers = st.one_of(st.integers(-50, 50), st.floats(-1e3, 1e3, allow_nan=False).map(lambda f: round(f, 3)))
    shapes = st.sampled_from([(), (1,), (1, 1), (1, 1, 1)])
    arrays = st.tuples(numbers, shapes, st.sampled_from(["int64", "float32", "float64"])).map(
        lambda t: np.full(t[1], t[0], dtype=t[2])
    )
    anything = st.one_of(numbers, arrays, st.text(max_size=3), st.just(np.arange(3.0)))
    return st.one_of(numbers, arrays) if numeric else anything


@st.composite
def _conversions_and_values(draw):
    chosen = draw(st.lists(st.sampled_from(sorted(CONVERSIONS)), min_size=1, max_size=4))
    return chosen, [draw(_value(CONVERSIONS[c])) for c in chosen]


@settings(max_examples=60, deadline=None)
@given(_conversions_and_values())
def test_a_rewritten_format_prints_what_numpy_1_printed_and_nothing_else_changes(case):
    chosen, values = case
    fmt = " | ".join(chosen) + " %%"
    numeric = [CONVERSIONS[c] for c in chosen]
    new, changes = rewrite_removed_apis(f"text = {fmt!r} % tuple(VALUES)\n")
    assert len(changes) == any(numeric) and ("format_args" in new) == any(numeric)
    scope: dict = {"VALUES": values}
    exec(compile(new, "rewritten.py", "exec"), scope)
    # NumPy 1: an array made a number by a numeric conversion is its one element
    numpy1 = tuple(v.item() if n and isinstance(v, np.ndarray) else v for v, n in zip(values, numeric, strict=True))
    assert scope["text"] == fmt % numpy1
    try:
        as_written = fmt % tuple(values)
    except TypeError:  # only what NumPy 2 refuses: a one-element array of 1+ dimensions made a number
        assert any(n and isinstance(v, np.ndarray) and v.ndim > 0 for v, n in zip(values, numeric, strict=True))
    else:
        assert scope["text"] == as_written


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.integers(-9, 9), st.floats(-9, 9, allow_nan=False), st.text(max_size=2),
                 st.just(np.arange(4)), st.just(np.array([[2.5]])), st.just(np.float32(1.25))))  # fmt: skip
def test_as_scalar_changes_only_one_element_arrays_of_one_or_more_dimensions(value):
    converted = as_scalar(value)
    if isinstance(value, np.ndarray) and value.ndim > 0 and value.size == 1:
        assert converted.shape == () and float(converted) == value.item()
    else:
        assert converted is value
    assert format_args(value, "s") is value  # %s prints any object as it is


def test_a_single_argument_and_a_tuple_are_told_apart_as_percent_does():
    w = np.array([0.5])
    assert "%g" % format_args(w, "g") == "0.5"  # noqa: UP031 - %-formatting is what is tested
    assert "%g %g" % format_args((w, np.array([[2]])), "gg") == "0.5 2"  # noqa: UP031 - %-formatting is what is tested
    assert "%s" % format_args(w, "s") == "[0.5]"  # noqa: UP031 - %-formatting is what is tested
    with pytest.raises(TypeError, match="not enough arguments"):  # the program's own error, still reported
        _ = "%g %g" % format_args(w, "gg")  # noqa: UP031 - %-formatting is what is tested


def test_what_the_rewrite_leaves_alone_and_where_it_puts_its_import():
    text = (
        '"""A program."""\nfrom __future__ import print_function\nimport numpy as np\n'
        'a = "%(n)d" % {"n": 1}\nb = b"%d" % 3\nc = f"{w}"\nd = "%s and %r" % (w, w)\ne = "100%%" % ()\n'
        "f = x % 2\ng = int(x, 2)\nh = float(*xs)\n"
    )
    new, changes = rewrite_removed_apis(text)
    assert (new, changes) == (text, [])
    rewritten, changes = rewrite_removed_apis(text + 'print("w %g" % w, float(w))\n')
    lines = rewritten.splitlines()
    assert len(lines) == len(text.splitlines()) + 1  # the import shares a line: errors keep their line numbers
    assert lines[2] == "import mutreal.compat.numpy1_scalars as _mutreal_numpy1; import numpy as np"
    assert lines[-1] == (
        "print(\"w %g\" % _mutreal_numpy1.format_args(w, 'g'), float(_mutreal_numpy1.as_scalar(w)))"
    )
    assert [c.line for c in changes] == [len(lines)] * 2


def test_only_programs_of_the_numpy_1_era_are_rewritten():
    tf1 = "import tensorflow as tf\nw = tf.Variable(tf.zeros([1]))\nsess = tf.Session()\nprint('%g' % sess.run(w))\n"
    runtime = prepare_runtime(tf1)
    assert runtime.framework == "tf1" and any("NumPy 1" in r for r in runtime.rewrites)
    keras3 = "import keras\nimport numpy as np\nprint('%g' % np.float32(1))\nmodel = keras.Sequential()\n"
    assert "numpy1" not in prepare_runtime(keras3).source


TF1_PROGRAM = """\
import numpy as np
import tensorflow as tf
from sklearn.datasets import load_diabetes

data = load_diabetes()
X = data.data[:, 2].astype("float32")
Y = data.target.astype("float32") / 100.0
x = tf.placeholder(tf.float32, [None])
y = tf.placeholder(tf.float32, [None])
W = tf.Variable(tf.zeros([1]))
B = tf.Variable(tf.zeros([1]))
loss = tf.reduce_mean(tf.square(x * W + B - y))
train = tf.train.AdamOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(30):
        _, los, w, b = sess.run([train, loss, W, B], feed_dict={x: X, y: Y})
        print("loss %g, w %g, b %g" % (los, w, b))
    print("final weight", float(w))
"""


@pytest.mark.slow
def test_a_tensorflow_1_program_printing_its_variables_trains_through_mutreal_run(tmp_path: Path):
    from mutreal.cli import main

    program = tmp_path / "regression.py"
    program.write_text(TF1_PROGRAM)
    store = str(tmp_path / "runs.sqlite")
    result = CliRunner().invoke(main, ["run", str(program), "--runs", "1", "--jobs", "1", "--json", "-q", "--store", store])
    (run,) = json.loads(result.stdout)["runs"]
    assert run["outcome"] == "ok", run
    assert run["framework"] == "tf1" and run["rewrites"] >= 2
    (entry,) = yaml.safe_load(Path(json.loads(result.stdout)["campaign"]["manifest"]).read_text())["programs"]
    assert sum("NumPy 1" in line for line in entry["rewrites"]) == 2  # the print and the float(), listed
    assert program.read_text() == TF1_PROGRAM  # the user's file is never changed
