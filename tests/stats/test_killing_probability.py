"""Wilson intervals, per-input killing probabilities, coupling strength and IoU on hand examples."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from mutreal.stats import (
    KillingProbabilities,
    coupling_strength,
    detectability_iou,
    killing_probabilities,
    similarity,
    wilson_interval,
)

Z90 = 1.6448536269514722  # standard normal 95th percentile


def test_wilson_zero_successes_closed_form() -> None:
    # x = 0: lower 0, upper z^2 / (n + z^2)
    low, high = wilson_interval(0, 20)
    assert low == 0.0
    assert high == pytest.approx(Z90**2 / (20 + Z90**2))


def test_wilson_all_successes_closed_form() -> None:
    low, high = wilson_interval(20, 20)
    assert low == pytest.approx(20 / (20 + Z90**2))
    assert high == 1.0


def test_wilson_half_closed_form() -> None:
    # p = 1/2: centre 1/2, half width z sqrt(1/(4n) + z^2/(4n^2)) / (1 + z^2/n)
    n = 20
    half = Z90 * math.sqrt(1 / (4 * n) + Z90**2 / (4 * n * n)) / (1 + Z90**2 / n)
    low, high = wilson_interval(10, n)
    assert low == pytest.approx(0.5 - half) and high == pytest.approx(0.5 + half)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_agrees_with_statsmodels(case: tuple[int, int]) -> None:
    successes, n = case
    expected = proportion_confint(successes, n, alpha=0.10, method="wilson")
    assert wilson_interval(successes, n) == pytest.approx(expected, abs=1e-9)


def test_wilson_without_trials_is_uninformative() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_killing_probability_pairs_instances_by_index() -> None:
    reference = np.array([[1, 1, 0], [1, 1, 1], [1, 0, 1], [1, 1, 1]], dtype=bool)
    faulty = np.array([[0, 1, 0], [0, 1, 1], [1, 1, 0], [1, 0, 1]], dtype=bool)
    # kill = reference right and faulty wrong: input 0 at k=0,1; input 1 at k=3; input 2 at k=2
    kp = killing_probabilities(reference, faulty)
    assert kp.kp == [0.5, 0.25, 0.25]
    assert kp.n_instances == 4
    assert (kp.low[0], kp.high[0]) == pytest.approx(wilson_interval(2, 4))
    again = KillingProbabilities.from_dict(json.loads(json.dumps(kp.to_dict())))
    assert again == kp


def test_coupling_strength_and_iou_hand_example() -> None:
    kp_m = [1.0, 0.5, 0.0, 0.0]
    kp_f = [0.5, 0.5, 0.5, 0.0]
    # sum min = 0.5 + 0.5 = 1.0; sum KP_M = 1.5; sum max = 1 + 0.5 + 0.5 = 2.0
    assert coupling_strength(kp_m, kp_f) == pytest.approx(2 / 3)
    assert detectability_iou(kp_m, kp_f) == pytest.approx(0.5)
    sim = similarity(kp_m, kp_f)
    assert (sim.inputs_killing_mutant, sim.inputs_killing_fault, sim.inputs_killing_both) == (2, 3, 2)


def test_identical_fault_and_mutant_are_fully_coupled() -> None:
    kp = [0.2, 0.0, 0.9]
    assert coupling_strength(kp, kp) == 1.0
    assert detectability_iou(kp, kp) == 1.0


def test_undefined_ratios_are_none() -> None:
    assert coupling_strength([0, 0], [0.5, 0]) is None  # nothing kills the mutant
    assert detectability_iou([0, 0], [0, 0]) is None  # nothing kills either
    assert detectability_iou([0, 0], [0.5, 0]) == 0.0


def test_lengths_must_match() -> None:
    with pytest.raises(ValueError):
        coupling_strength([0.1], [0.1, 0.2])
