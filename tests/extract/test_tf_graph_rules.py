"""Rules of what TensorFlow 1 graph programs mean, beyond reading them (session 9): a data function
mapped over an array's rows (decision CPP-row-map), a hand-written metric whose computation the
fix changes (decision PMC-graph-metric), the input and the filter of a graph layer swapped (decision
LIS-swapped-operands). Each on own programs, in the ``tf`` and the ``tf.compat.v1`` spelling.
"""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare import diff_models
from mutreal.extract import extract_source
from mutreal.label.codes import label_component

HEADS = {
    "tf": "import numpy as np\nimport tensorflow as tf\n",
    "compat": "import numpy as np\nimport tensorflow.compat.v1 as tf\n\ntf.disable_v2_behavior()\n",
}


def _codes(buggy: str, fixed: str) -> list[str]:
    b, f = extract_source(buggy, "buggy.py"), extract_source(fixed, "fixed.py")
    return sorted(label_component(c).code for c in diff_models(b, f))


# -- decision CPP-row-map --------------------------------------------------------------------------
SENSORS = """
readings = np.random.rand(90, 5).astype(np.float32)
classes = np.eye(3)[np.random.randint(0, 3, 90)]
inputs = tf.placeholder(tf.float32, [None, 5])
target = tf.placeholder(tf.int64, [None])
logits = tf.layers.dense(inputs, 3)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logits))
step = tf.train.AdamOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(8):
        for start in range(0, 90, 15):
            wanted = classes[start:start + 15]
            sess.run(step, feed_dict={inputs: readings[start:start + 15], target: wanted})
"""
DECODED = "wanted = [np.argmax(one) for one in classes[start:start + 15]]"


@pytest.mark.parametrize("spelling", sorted(HEADS))
def test_a_function_mapped_over_the_rows_is_a_step_of_the_array(spelling: str) -> None:
    buggy = HEADS[spelling] + textwrap.dedent(SENSORS)
    fixed = buggy.replace("wanted = classes[start:start + 15]", DECODED)
    model = extract_source(fixed, "fixed.py")
    steps = [(op.op, op.text) for op in model.data["y_train"].preprocess]
    assert ("argmax", "[np.argmax(one) for one in classes[start:start + 15]]") in steps
    assert _codes(buggy, fixed) == ["CPP"]
    assert _codes(fixed, fixed) == []


@pytest.mark.parametrize("spelling", sorted(HEADS))
def test_a_comprehension_that_is_no_mapped_data_function_stays_as_before(spelling: str) -> None:
    """A filtered comprehension, or one whose element is no data function, adds no counted step."""
    buggy = HEADS[spelling] + textwrap.dedent(SENSORS)
    for other in (
        "wanted = [one for one in classes[start:start + 15] if one.sum() > 0]",
        "wanted = [list(one) for one in classes[start:start + 15]]",
    ):
        fixed = buggy.replace("wanted = classes[start:start + 15]", other)
        assert "argmax" not in [op.op for op in extract_source(fixed, "f.py").data["y_train"].preprocess]
        assert _codes(buggy, fixed) == [], other


_ROW_FUNCTIONS = ("argmax", "sqrt", "log", "exp", "abs")


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(_ROW_FUNCTIONS),
    st.sampled_from(("row", "item", "sample", "v")),
    st.sampled_from(sorted(HEADS)),
)
def test_mapping_over_rows_gives_the_steps_of_the_function_on_the_array(
    function: str, row: str, spelling: str
) -> None:
    """Decision CPP-row-map as a property: ``[np.f(r) for r in a]`` adds to the array's chain the
    step ``np.f(a)`` adds, whatever the function and the row's name."""
    program = HEADS[spelling] + textwrap.dedent(SENSORS)
    mapped = program.replace(
        "wanted = classes[start:start + 15]",
        f"wanted = [np.{function}({row}) for {row} in classes[start:start + 15]]",
    )
    direct = program.replace(
        "wanted = classes[start:start + 15]", f"wanted = np.{function}(classes[start:start + 15])"
    )

    def kinds(text: str) -> list[str]:
        return [op.op for op in extract_source(text, "p.py").data["y_train"].preprocess]

    assert kinds(mapped) == kinds(direct) != kinds(program)


# -- decision PMC-graph-metric ---------------------------------------------------------------------
SCORER = """
points = np.random.rand(48, 4).astype(np.float32)
marks = (points[:, :1] > 0.5).astype(np.float32)
inputs = tf.placeholder(tf.float32, [None, 4])
truth = tf.placeholder(tf.float32, [None, 1])
out = tf.layers.dense(inputs, 1, activation=tf.nn.sigmoid)
loss = tf.reduce_mean(tf.square(out - truth))
step = tf.train.AdamOptimizer(0.05).minimize(loss)
hits = tf.equal(tf.argmax(out, 1), tf.argmax(truth, 1))
score = tf.reduce_mean(tf.cast(hits, tf.float32))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(20):
        sess.run(step, feed_dict={inputs: points, truth: marks})
    print(sess.run(score, feed_dict={inputs: points, truth: marks}))
"""
METRIC = "hits = tf.equal(tf.argmax(out, 1), tf.argmax(truth, 1))"


def _scorer(spelling: str, metric: str = METRIC) -> str:
    return HEADS[spelling] + textwrap.dedent(SCORER).replace(METRIC, metric)


@pytest.mark.parametrize("spelling", sorted(HEADS))
def test_a_metric_that_derives_both_operands_otherwise_is_pmc(spelling: str) -> None:
    fixed = _scorer(spelling, "hits = tf.equal(tf.greater(out, 0.5), tf.greater(truth, 0.5))")
    b, f = extract_source(_scorer(spelling), "buggy.py"), extract_source(fixed, "fixed.py")
    labels = [label_component(c) for c in diff_models(b, f)]
    assert [(lab.code, lab.deepcrime) for lab in labels] == [("PMC", None)]
    assert "DeepCrime" in (labels[0].reason or "")


@pytest.mark.parametrize("spelling", sorted(HEADS))
@pytest.mark.parametrize(
    "metric",
    [
        "hits = tf.equal(tf.argmax(truth, 1), tf.argmax(out, 1))",  # operands swapped
        "hits = tf.equal(tf.cast(tf.argmax(out, 1), tf.int64), tf.argmax(truth, 1))",  # one operand
        "hits = tf.equal(tf.argmax(out, 1), tf.cast(truth, tf.int64))",  # the labels' format
    ],
)
def test_a_metric_renamed_or_changed_on_one_side_is_no_pmc(spelling: str, metric: str) -> None:
    assert _codes(_scorer(spelling), _scorer(spelling, metric)) == []


@pytest.mark.parametrize("spelling", sorted(HEADS))
def test_a_metric_dropped_or_added_is_evaluation_code(spelling: str) -> None:
    without = _scorer(spelling).replace(METRIC + "\n", "").replace("tf.cast(hits, tf.float32)", "loss")
    assert _codes(_scorer(spelling), without) == []
    assert _codes(without, _scorer(spelling)) == []


_DERIVATIONS = ("tf.argmax({}, 1)", "tf.greater({}, 0.5)", "tf.round({})", "tf.cast({} > 0.5, tf.float32)")


@settings(max_examples=30, deadline=None)
@given(
    st.tuples(st.sampled_from(_DERIVATIONS), st.sampled_from(_DERIVATIONS)),
    st.tuples(st.sampled_from(_DERIVATIONS), st.sampled_from(_DERIVATIONS)),
    st.sampled_from(sorted(HEADS)),
)
def test_pmc_exactly_when_every_operand_is_derived_otherwise(
    buggy: tuple[str, str], fixed: tuple[str, str], spelling: str
) -> None:
    """Decision PMC-graph-metric as a property over the ways a metric derives its operands."""

    def program(derive: tuple[str, str]) -> str:
        metric = f"hits = tf.equal({derive[0].format('out')}, {derive[1].format('truth')})"
        return _scorer(spelling, metric)

    expected = ["PMC"] if buggy[0] != fixed[0] and buggy[1] != fixed[1] else []
    assert _codes(program(buggy), program(fixed)) == expected
