"""Killing probabilities on the inputs callers really pass: 0/1 floats, no instances, another
confidence, column vectors, and the errors that name what is wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from mutreal.stats.killing_probability import (
    coupling_strength,
    killing_probabilities,
    similarity,
    wilson_interval,
)


def wilson_by_hand(successes: int, n: int, confidence: float) -> tuple[float, float]:
    z = float(norm.ppf(1 - (1 - confidence) / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_wilson_bounds_never_leave_the_unit_interval() -> None:
    # in floating point 14/14 at 90% gives centre + half = 1.0000000000000002
    assert wilson_interval(14, 14) == (pytest.approx(wilson_by_hand(14, 14, 0.90)[0]), 1.0)
    for n in range(1, 120):
        for successes in (0, n):
            low, high = wilson_interval(successes, n)
            assert 0.0 <= low <= high <= 1.0


def test_wilson_refuses_more_successes_than_trials_by_name() -> None:
    with pytest.raises(ValueError, match="^5 successes out of 4$"):
        wilson_interval(5, 4)


def test_correctness_given_as_zero_one_floats_is_read_as_booleans() -> None:
    # a JSON matrix of 1.0 / 0.0: input 0 right in the reference and wrong in the faulty program
    reference = [[1.0, 1.0], [1.0, 0.0]]
    faulty = [[0.0, 1.0], [0.0, 0.0]]
    kp = killing_probabilities(reference, faulty)
    assert kp.kp == [1.0, 0.0]
    assert kp.n_instances == 2


def test_no_paired_instances_give_zero_kp_and_uninformative_bounds() -> None:
    kp = killing_probabilities(np.zeros((0, 3), dtype=bool), np.zeros((4, 3), dtype=bool))
    assert kp.n_instances == 0
    assert kp.kp == [0.0, 0.0, 0.0]
    assert kp.low == [0.0, 0.0, 0.0] and kp.high == [1.0, 1.0, 1.0]


def test_the_confidence_reaches_the_bounds_and_the_result() -> None:
    # 3 of 4 instances kill input 0, none input 1; at 95% the bounds are wider than the 90% default
    reference = np.ones((4, 2), dtype=bool)
    faulty = np.array([[0, 1], [0, 1], [0, 1], [1, 1]], dtype=bool)
    kp = killing_probabilities(reference, faulty, confidence=0.95)
    assert kp.confidence == 0.95
    assert kp.kp == [0.75, 0.0]
    assert (kp.low[0], kp.high[0]) == pytest.approx(wilson_by_hand(3, 4, 0.95), abs=1e-12)
    assert (kp.low[1], kp.high[1]) == pytest.approx((0.0, wilson_by_hand(0, 4, 0.95)[1]), abs=1e-12)
    assert kp.high[1] > wilson_by_hand(0, 4, 0.90)[1]


@pytest.mark.parametrize(
    ("reference", "faulty"),
    [(np.ones(3, dtype=bool), np.ones((2, 3), dtype=bool)), (np.ones((2, 3), dtype=bool), np.ones(3, dtype=bool))],
)
def test_a_vector_instead_of_a_matrix_is_refused_by_name(reference, faulty) -> None:
    with pytest.raises(ValueError, match=r"^expected \(instances x inputs\) matrices$"):
        killing_probabilities(reference, faulty)


def test_different_input_counts_are_refused_with_both_counts() -> None:
    with pytest.raises(ValueError, match="^3 inputs for the reference, 2 for the faulty$"):
        killing_probabilities(np.ones((2, 3), dtype=bool), np.ones((2, 2), dtype=bool))


def test_kp_vectors_as_columns_are_flattened_and_length_errors_name_both() -> None:
    column = np.array([[0.5], [0.25]])
    assert coupling_strength(column, [0.5, 0.0]) == pytest.approx(0.5 / 0.75)
    assert coupling_strength([0.5, 0.0], column) == pytest.approx(0.5 / 0.5)
    with pytest.raises(ValueError, match="^KP vectors of different lengths: 2 and 3$"):
        similarity([0.5, 0.5], [0.5, 0.5, 0.5])


def test_an_input_killing_only_the_mutant_is_not_shared() -> None:
    # input 1 kills the mutant but never the fault (KP 0): only input 0 kills both
    s = similarity([0.5, 0.5, 0.0], [0.5, 0.0, 0.0])
    assert (s.inputs_killing_mutant, s.inputs_killing_fault, s.inputs_killing_both) == (2, 1, 1)
