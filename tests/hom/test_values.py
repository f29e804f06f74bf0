"""Values of real faults -> operator parameters (shared by hom-generate and validate-operators)."""

from __future__ import annotations

import pytest
from hom_subjects import sequential
from hypothesis import given
from hypothesis import strategies as st

from mutreal.mutation.hom import value_from_text
from mutreal.mutation.operators import Program, registry
from mutreal.operator_catalogue import value_lists

PROGRAM = Program(sequential(), "subject.py")


def _site(op_id: str, index: int = 0):
    op = registry.get(op_id)
    return op, op.sites(PROGRAM)[index]


@given(st.floats(min_value=1e-7, max_value=10.0, allow_nan=False).filter(lambda v: abs(v - 0.001) > 1e-9))
def test_any_written_learning_rate_is_read_back(value: float) -> None:
    op, site = _site("HLR")
    for text in (repr(value), f"{value:.3e}"):
        ok, got, why = value_from_text(op, site, text)
        assert ok, why
        assert got == pytest.approx(float(text))


@given(st.sampled_from([a for a in value_lists()["activations"] if a not in ("linear", "softmax")]))
def test_activation_names_in_any_spelling(name: str) -> None:
    op, site = _site("ACH", 2)  # the softmax output layer
    for text in (f"'{name}'", f'"{name}"', f"keras.activations.{name}", f"tf.keras.activations.{name}"):
        assert value_from_text(op, site, text)[:2] == (True, name)


@pytest.mark.parametrize(
    ("op_id", "text", "expected"),
    [
        ("LCH", "'mse'", "mean_squared_error"),
        ("LCH", "keras.losses.MeanAbsoluteError()", "mean_absolute_error"),
        ("OCH", "SGD(lr=0.01, momentum=0.9)", "sgd"),
        ("OCH", "'rmsprop'", "rmsprop"),
        ("HNE", "2 * 5", 10),
        ("HBS", "128", 128),
    ],
)
def test_spellings_of_real_values(op_id: str, text: str, expected) -> None:
    op, site = _site(op_id)
    ok, got, why = value_from_text(op, site, text)
    assert ok, why
    assert got == expected


@pytest.mark.parametrize(
    ("op_id", "text", "why"),
    [
        ("LCH", "'sparse_categorical_crossentropy'", "value list"),
        ("LCH", "my_loss", "value list"),
        ("HNE", "n_epochs", "not a number"),
        ("HNE", "10**10**10", "not a number"),
        ("HNE", None, "no written value"),
        ("HLR", "-0.1", "outside"),
    ],
)
def test_values_that_cannot_be_written(op_id: str, text: str | None, why: str) -> None:
    op, site = _site(op_id)
    ok, _, reason = value_from_text(op, site, text)
    assert not ok and why in reason
