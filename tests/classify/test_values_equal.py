"""The value equality beneath every noise rule, case by case: ``values_equal`` and ``shape_equal``.

Each row is one branch of the rule with its expected answer worked out from the rule's own text
(its docstring): a None, an implicit default, an unresolved variable, a sequence against a folded
constant (both orders, equal and not, longer and shorter), a renamed opaque expression, an opaque
expression against a constant (lenient and ``strict_opaque``), and calls (name, positional and
keyword arguments). The program-level controls are in test_noise_positive_controls.py; this table
pins the branches one at a time, so a flipped condition or a swapped kind name changes a row.
"""

from __future__ import annotations

import pytest

from mutreal.compare.values import none_is_absent, shape_equal, values_equal
from mutreal.program.model import Value

C = Value.const


def seq(*items: Value) -> Value:
    return Value("seq", None, args=list(items), text="(...)")


def call(name: str, *args: Value, **kwargs: Value) -> Value:
    return Value("call", name, args=list(args), kwargs=dict(kwargs), text=f"{name}(...)")


def opaque(text: str) -> Value:
    return Value.opaque(text)


def implicit(value) -> Value:
    v = C(value)
    v.implicit = True
    return v


LEN_X, LEN_Y = opaque("len(x_list[0])"), opaque("len(xs[0])")  # the same expression, renamed
NAME = Value("name", "units")

CASES = [
    # (a, b, strict_opaque, expected, why)
    (None, None, False, True, "both absent"),
    (None, C(1), False, False, "absent against written"),
    (C(1), None, False, False, "written against absent"),
    (C(1), C(1), False, True, "the same constant"),
    (C(1), C(1.0), False, True, "1 and 1.0 fold to the same key"),
    (C(1), C(2), False, False, "two different constants"),
    (implicit(1), implicit(2), False, True, "both unwritten: only the era's default differs"),
    (implicit(1), C(2), False, False, "one side written: a real change"),
    (C(2), implicit(1), False, False, "one side written, other order"),
    (NAME, C(3), False, True, "an unfolded variable is undecidable"),
    (C(3), NAME, False, True, "an unfolded variable is undecidable, other order"),
    (NAME, C(3), True, True, "undecidable even for shapes"),
    (Value("ref", "data:y.nunique()"), C(3), False, True, "a value computed from the data"),
    (Value("ref", "keras.layers.Dense"), C(3), False, False, "a known reference is not a data value"),
    (seq(C(1), C(2)), C((1, 2)), False, True, "a written sequence equals its folded constant"),
    (C((1, 2)), seq(C(1), C(2)), False, True, "folded constant against a written sequence"),
    (seq(C(1), C(2)), C([1, 2]), False, True, "a list folds like a tuple"),
    (seq(C(1), C(2)), C((1, 3)), False, False, "one item differs"),
    (C((1, 3)), seq(C(1), C(2)), False, False, "one item differs, other order"),
    (seq(C(1), C(2)), C((1, 2, 3)), False, False, "the constant is longer"),
    (C((1, 2, 3)), seq(C(1), C(2)), False, False, "the sequence is shorter"),
    (seq(C(1), C(2)), C(5), False, False, "a sequence against a scalar"),
    (C(5), seq(C(5)), False, False, "a scalar against a one-item sequence"),
    (seq(LEN_X, C(1)), C((7, 1)), False, True, "an opaque item against a number: undecidable"),
    (seq(LEN_X, C(1)), C((7, 2)), False, False, "the decidable item differs"),
    (seq(LEN_X, C(1)), seq(LEN_Y, C(1)), False, True, "two sequences, items renamed"),
    (seq(LEN_X, C(1)), seq(LEN_Y, C(2)), False, False, "two sequences, one item differs"),
    (seq(LEN_X), seq(LEN_Y, C(1)), False, False, "two sequences of different lengths"),
    (LEN_X, LEN_Y, False, True, "renamed variables: the same expression"),
    (LEN_X, LEN_Y, True, True, "renamed variables, strict too"),
    (opaque("len(x) + 1"), opaque("len(x) * 2"), False, False, "two different expressions"),
    (opaque("x.shape"), C((30, 1)), False, True, "a runtime value against a constant: undecidable"),
    (C((30, 1)), opaque("x.shape"), False, True, "undecidable, other order"),
    (opaque("x.shape"), C((30, 1)), True, False, "strict: a shape changed from X.shape to (30, 1)"),
    (C((30, 1)), opaque("x.shape"), True, False, "strict, other order"),
    (C(3, text="len(xs)"), opaque("len(ys)"), True, True, "strict, the same text resolved on one side"),
    (opaque("len(xs)"), C(3, text="len(ys)"), True, True, "strict, resolved on one side, other order"),
    (C(3, text=""), opaque(""), True, False, "no text to compare: strict decides"),
    (call("Adam", LEN_X), call("Adam", LEN_Y), False, True, "a call, positional arguments renamed"),
    (call("Adam", LEN_X), call("SGD", LEN_Y), False, False, "two different callables"),
    (call("Adam", C(1)), call("Adam", C(2)), False, False, "a positional argument differs"),
    (call("Adam", LEN_X), call("Adam", LEN_Y, C(1)), False, False, "an extra positional argument"),
    (call("Adam", lr=LEN_X), call("Adam", lr=LEN_Y), False, True, "a call, keyword arguments renamed"),
    (call("Adam", lr=LEN_X), call("Adam", rate=LEN_Y), False, False, "a different keyword"),
    (call("Adam", lr=LEN_X), call("Adam", lr=LEN_X, decay=C(0)), False, False, "an extra keyword"),
    (call("Adam", lr=LEN_X, decay=C(0)), call("Adam", lr=LEN_Y, decay=C(1)), False, False,
     "a keyword value differs"),
    (call("Adam", lr=C(1), decay=LEN_X), call("Adam", lr=C(2), decay=LEN_Y), False, False,
     "the first keyword value differs"),
    (call("Adam", LEN_X), C(1), True, False, "a call against a constant"),
]


@pytest.mark.parametrize(("a", "b", "strict", "expected", "why"), CASES, ids=[c[4] for c in CASES])
def test_values_equal(a, b, strict, expected, why):
    assert values_equal(a, b, strict_opaque=strict) is expected, why


def test_values_equal_is_lenient_by_default():
    # an opaque expression against a constant is undecidable unless the caller asks for strictness
    assert values_equal(opaque("x.shape"), C((30, 1))) is True


SHAPES = [
    (C(4), C((4,)), True, "input_dim=4 equals input_shape=(4,)"),
    (C(4.0), C([4]), True, "a float dim and a list shape"),
    (C((4,)), C(4), True, "other order"),
    (C(4), C((5,)), False, "a different width"),
    (C((28, 28)), C([28, 28]), True, "tuple and list"),
    (C((28, 28)), C((28, 1)), False, "a different shape"),
    (None, None, True, "both absent"),
    (None, C(4), False, "absent against written"),
    (C(4), None, False, "written against absent"),
    (opaque("x.shape[1:]"), opaque("x.shape[1:]"), True, "the same expression"),
    (opaque("x.shape[1:]"), C((4,)), False, "an expression against a shape"),
    (C("4"), C(("4",)), False, "a string is neither a number nor a sequence"),
]


@pytest.mark.parametrize(("a", "b", "expected", "why"), SHAPES, ids=[s[3] for s in SHAPES])
def test_shape_equal(a, b, expected, why):
    assert shape_equal(a, b) is expected, why


def test_none_is_absent():
    assert none_is_absent(C(None)) is None  # kernel_regularizer=None: no regulariser
    written = C(0.01)
    assert none_is_absent(written) is written
    assert none_is_absent(None) is None
    named = Value("name", None)  # a variable whose value is unknown is not None
    assert none_is_absent(named) is named
