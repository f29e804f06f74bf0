"""The data-step decisions one branch per row: LIS-reshape-once, the step equality, CPP-batch-axis,
the reshape-sample-count noise rule and the completed-snippet alignment.

Whole-program controls are in test_noise_positive_controls.py and test_data_rules.py; here each
spelling the rules read (``x.reshape`` against ``np.reshape`` / ``numpy.reshape`` / ``tf.reshape``,
``newshape=`` and ``shape=`` keywords, ``expand_dims`` axes, a folded target) and each guard (a
step of another kind, an unparsable text, a missing side) is one row with its answer worked out from
the decision's text, so a flipped condition or a renamed spelling changes a row.
"""

from __future__ import annotations

import pytest

from mutreal.compare.context import CompareContext
from mutreal.compare.data import _ops_equal, gains_batch_axis, reshapes_to, same_sample_shape
from mutreal.compare.layers import drop_completed_snippet
from mutreal.extract import extract_source
from mutreal.program.model import DataOp, DataSource, Value

C = Value.const
IMAGE = ("28", "28", "1")  # a new input_shape=(28, 28, 1), as item texts


def _op(op: str, text: str, **args: Value) -> DataOp:
    return DataOp(op, args=dict(args), text=text)


@pytest.mark.parametrize(
    ("step", "shapes", "expected"),
    [
        (_op("reshape", "x.reshape(100, 28, 28, 1)"), [IMAGE], True),
        (_op("reshape", "x.reshape((100, 28, 28, 1))"), [IMAGE], True),  # the target as one tuple
        (_op("reshape", "x.reshape([100, 28, 28, 1])"), [IMAGE], True),
        (_op("reshape", "x.reshape(100, 1, 28, 28)"), [IMAGE], False),  # another shape: its own fix
        (_op("reshape", "np.reshape(x, (100, 28, 28, 1))"), [IMAGE], True),
        (_op("reshape", "numpy.reshape(x, (100, 28, 28, 1))"), [IMAGE], True),
        (_op("reshape", "tf.reshape(x, (100, 28, 28, 1))"), [IMAGE], True),
        (_op("reshape", "np.reshape(x, newshape=(100, 28, 28, 1))"), [IMAGE], True),
        (_op("reshape", "np.reshape(x, shape=(100, 28, 28, 1))"), [IMAGE], True),
        (_op("reshape", "np.reshape(x, (100, 28, 28, 1), order='F')"), [IMAGE], True),  # order ignored
        (_op("reshape", "x.reshape(100, 28, 28, 1)"), [None, IMAGE], True),  # an unknown shape skipped
        (_op("reshape", "x.reshape(100, 28, 28, 1)"), [], False),  # no new input shape
        (_op("reshape", "x.reshape(100, 28, 28, 1)"), [None], False),
        (_op("reshape", "x.reshape(-1)"), [("784",)], False),  # a flat target has no sample shape
        (_op("reshape", "x.reshape()"), [IMAGE], False),
        (_op("reshape", "x.reshape(100, 28, 28, 1"), [IMAGE], False),  # text that does not parse
        (_op("reshape", ""), [IMAGE], False),
        (_op("resize", "np.resize(x, (100, 28, 28, 1))"), [IMAGE], False),  # not a reshape step
        (_op("expand_dims", "np.expand_dims(x, -1)"), [IMAGE], True),
        (_op("expand_dims", "np.expand_dims(x, axis=-1)"), [IMAGE], True),
        (_op("expand_dims", "x.expand_dims(-1)"), [IMAGE], True),
        (_op("expand_dims", "x.expand_dims()"), [IMAGE], False),  # no axis given
        (_op("expand_dims", "np.expand_dims(x, 1)"), [IMAGE], False),  # a middle axis
        (_op("expand_dims", "np.expand_dims(x, -1)"), [("28", "1", "28")], False),  # shape ends in 28
        (_op("expand_dims", "np.expand_dims(x, -1)"), [("1", "28", "28")], False),
    ],
)
def test_reshape_to_the_new_input_shape(step, shapes, expected):
    assert reshapes_to(step, shapes) is expected


def test_a_folded_target_is_read_before_the_text():
    # reshape(n, steps) with n = 100 and steps = 10 folded: the target's sample shape is (10,)
    step = _op("reshape", "x.reshape(n, steps)", shape=C((100, 10)))
    assert reshapes_to(step, [("10",)]) is True
    assert reshapes_to(step, [("20",)]) is False
    # the folded target without a sample shape falls back to the text
    flat = _op("reshape", "x.reshape(n, 10)", shape=C((100,)))
    assert reshapes_to(flat, [("10",)]) is True


def test_step_equality():
    scale = _op("divide", "x / 255", divisor=C(255))
    assert _ops_equal(scale, _op("divide", "x / 255.0", divisor=C(255.0))) is True
    assert _ops_equal(scale, _op("divide", "x / 127", divisor=C(127))) is False
    assert _ops_equal(scale, _op("multiply", "x * 255", divisor=C(255))) is False  # another step
    named = DataOp("call", name="preprocess", args={"mode": C("tf")})
    assert _ops_equal(named, DataOp("call", name="preprocess", args={"mode": C("tf")})) is True
    assert _ops_equal(named, DataOp("call", name="normalise", args={"mode": C("tf")})) is False
    # an argument only one side writes is a change, even when the shared ones agree
    extra = DataOp("call", name="preprocess", args={"mode": C("tf"), "axis": C(1)})
    assert _ops_equal(named, extra) is False
    assert _ops_equal(extra, named) is False


def test_reshape_steps_that_differ_in_the_sample_count_only_are_equal():
    a = _op("reshape", "x.reshape(1746, 4096)", shape=C((1746, 4096)))
    assert _ops_equal(a, _op("reshape", "x.reshape(-1, 4096)", shape=C((-1, 4096)))) is True
    assert _ops_equal(a, _op("reshape", "x.reshape(1746, 64, 64)", shape=C((1746, 64, 64)))) is False


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (C((1746, 4096)), C((6, 4096)), True),
        (C((100, 784)), C((-1, 784)), True),
        (C((100, 28, 28, 1)), C((-1, 28, 28, 1)), True),
        (C((100, 28, 28, 1)), C((100, 1, 28, 28)), False),  # the sample shape changed
        (C((100, 784)), C((100, 28, 28)), False),  # another rank
        (C((100, 784)), C((100, 28, 28, 1)), False),
        (C((100,)), C((50,)), False),  # no sample shape at all: the length itself changed
        (C((100,)), C((100,)), False),  # nothing but a count: not this rule's case
        (C(100), C(50), False),  # not a shape
        (None, C((100, 784)), False),
        (C((100, 784)), None, False),
        (None, None, False),
    ],
)
def test_same_sample_shape(a, b, expected):
    assert same_sample_shape(a, b) is expected


def _source(kind: str, name: str, text: str) -> DataSource:
    return DataSource(kind, name=name, text=text)


ZEROS = _source("generated", "numpy.zeros", "np.zeros((64, 64, 3))")
ZEROS_BATCH = _source("generated", "numpy.zeros", "np.zeros((1, 64, 64, 3))")


@pytest.mark.parametrize(
    ("b", "f", "expected"),
    [
        (ZEROS, ZEROS_BATCH, True),
        (ZEROS_BATCH, ZEROS, False),  # the axis dropped, not gained
        (ZEROS, ZEROS, False),
        (ZEROS, _source("generated", "numpy.zeros", "np.zeros((2, 64, 64, 3))"), False),  # two samples
        (ZEROS, _source("generated", "numpy.ones", "np.ones((1, 64, 64, 3))"), False),  # other constructor
        (ZEROS, _source("random", "numpy.zeros", "np.zeros((1, 64, 64, 3))"), False),  # other kind
        (_source("random", "numpy.random.rand", "np.random.rand(64, 3)"),
         _source("random", "numpy.random.rand", "np.random.rand(1, 64, 3)"), True),
        (_source("random", "numpy.random.randint", "np.random.randint(0, 2, (8,))"),
         _source("random", "numpy.random.randint", "np.random.randint(0, 2, (1, 8))"), True),
        (ZEROS, None, False),
        (None, ZEROS_BATCH, False),
        (None, None, False),
    ],
)
def test_gains_batch_axis(b, f, expected):
    assert gains_batch_axis(b, f) is expected


def _context(compiles: bool) -> CompareContext:
    head = "from keras.models import Sequential\nfrom keras.layers import Dense\nmodel = Sequential()\n"
    tail = "model.compile(loss='mse', optimizer='adam')\n" if compiles else ""
    buggy = extract_source(head + "model.add(Dense(8, input_dim=4))\n" + tail)
    fixed = extract_source(head + "model.add(Dense(8, input_dim=4))\nmodel.compile(loss='mse', optimizer='adam')\n")
    assert bool(buggy.compiles) is compiles
    return CompareContext(buggy, fixed)


def test_completed_snippet_drops_an_appended_head_of_an_uncompiled_model():
    pairs = [(0, 0), (None, 1), (None, 2)]
    assert drop_completed_snippet(pairs, _context(compiles=False)) == [(0, 0)]
    # a compiled model is no snippet: the appended layers stay
    assert drop_completed_snippet(pairs, _context(compiles=True)) == pairs
    assert drop_completed_snippet(pairs, _context(compiles=True), None) == pairs


def test_completed_snippet_needs_a_buggy_layer():
    only_fixed = [(None, 0), (None, 1)]  # no layer of the buggy model at all: nothing was appended
    assert drop_completed_snippet(only_fixed, _context(compiles=False)) == only_fixed
    assert drop_completed_snippet([], _context(compiles=False)) == []
    # however many layers the fixed model has, none of them was appended to a buggy layer
    four = [(None, 0), (None, 1), (None, 2), (None, 3)]
    assert drop_completed_snippet(four, _context(compiles=False)) == four
