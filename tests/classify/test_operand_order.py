"""A graph op handed its operands in another order (``tf.nn.conv2d(w, x)`` against
``tf.nn.conv2d(x, w)``) is a change, never "compared equal": the TensorFlow 1 pass models a
convolution by its settings (strides, padding, the filter's shape where known), not by which
tensor is its input and which its filter, so the statement would otherwise vanish from the diff."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare.statement_diff import StatementChange, operands_reordered
from mutreal.compare.statements import statements_of
from mutreal.label.classify import classify_pair

PROGRAM = """\
import numpy as np
import tensorflow as tf

signal = tf.Variable(np.linspace(0.0, 1.0, 8).reshape(1, 1, -1, 1), name="signal")
kernel = tf.Variable(np.array([0.25, 0.5, 0.25]).reshape(1, -1, 1, 1), name="kernel")
smoothed = tf.nn.conv2d({first}, {second}, strides=[1, 1, 1, 1], padding="SAME")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(smoothed))
"""


def _change(before: str, after: str) -> StatementChange:
    return StatementChange(statements_of(before, "b.py")[0], statements_of(after, "f.py")[0])


def test_swapped_input_and_filter_of_a_graph_convolution_is_a_component(tmp_path: Path):
    buggy, fixed = tmp_path / "buggy.py", tmp_path / "fixed.py"
    buggy.write_text(PROGRAM.format(first="kernel", second="signal"), encoding="utf-8")
    fixed.write_text(PROGRAM.format(first="signal", second="kernel"), encoding="utf-8")
    result = classify_pair(str(buggy), str(fixed))
    assert result.changed_statements == 1
    assert result.noise_statements.get("compared_equal", 0) == 0
    lines = {(c.buggy_line, c.fixed_line) for c in result.components}
    assert (6, 6) in lines and result.explained_statements == 1
    same = classify_pair(str(fixed), str(fixed))
    assert same.changed_statements == 0 and same.components == []


@settings(max_examples=60, deadline=None)
@given(st.permutations(["x", "w", "2", "b"]), st.sampled_from(["tf.nn.conv2d", "f", "tf.matmul"]))
def test_only_the_same_arguments_in_another_order_count(order, call):
    before = f"y = {call}(x, w, 2, b, padding='SAME')"
    after = f"y = {call}({', '.join(order)}, padding='SAME')"
    assert operands_reordered(_change(before, after)) == (list(order) != ["x", "w", "2", "b"])


def test_other_changes_are_not_reorderings():
    assert not operands_reordered(_change("y = f(x, w)", "y = f(x, v)"))  # another operand
    assert not operands_reordered(_change("y = f(x, w)", "z = f(x, w)"))  # another target
    assert not operands_reordered(_change("y = f(x)", "y = f(x, w)"))  # one more
    assert not operands_reordered(_change("y = f(a=x, b=w)", "y = f(b=w, a=x)"))  # keywords keep meaning
