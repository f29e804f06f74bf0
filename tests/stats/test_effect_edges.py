"""Cohen's d and the pooled sd at their edges: empty and one-run groups, and the rounding-noise rule.

Why this file exists: the mutation run (``make mutation``, group "stats") left mutants of
``effect.py`` alive because no test gave ``pooled_sd`` a group with fewer than two runs beside a
group with several, ``cohen_d`` an empty group, or values whose pooled sd or mean difference sits
exactly at, or just around, the "rounding noise" bound ``1e-12 * max(|x|, |y|, 1)``. Expected
values are worked by hand from DeepCrime's formula
``sqrt(((n_a-1) s_a^2 + (n_b-1) s_b^2) / (n_a + n_b - 2))``.

It also pins a fix: with one group empty, ``pooled_sd`` used ``n_a + n_b - 2`` degrees of freedom,
subtracting one for the mean of a group that has no runs (``pooled_sd([], [1, 2, 3])`` was
``sqrt(2)``, not the sample sd 1 of the only group).
"""

from __future__ import annotations

import math

import pytest

from mutreal.stats import cohen_d, pooled_sd


def test_pooled_sd_of_two_single_runs_cannot_be_estimated() -> None:
    # n_a + n_b - 2 = 0 degrees of freedom: 0 by definition.
    assert pooled_sd([1.0], [2.0]) == 0.0
    assert pooled_sd([], [5.0]) == 0.0
    assert pooled_sd([], []) == 0.0


def test_pooled_sd_with_one_degree_of_freedom() -> None:
    # [1, 3] has s^2 = 2, the single run adds nothing: sqrt((1 * 2 + 0) / (2 + 1 - 2)) = sqrt(2).
    assert pooled_sd([1.0, 3.0], [5.0]) == pytest.approx(math.sqrt(2.0))
    assert pooled_sd([5.0], [1.0, 3.0]) == pytest.approx(math.sqrt(2.0))
    # [2, 4] likewise: s^2 = 2 over 1 degree of freedom.
    assert pooled_sd([1.0], [2.0, 4.0]) == pytest.approx(math.sqrt(2.0))


def test_pooled_sd_of_a_single_run_and_a_group_of_three() -> None:
    # [2, 4, 6]: s^2 = 4 with 2 degrees of freedom, the single run none: sqrt(2 * 4 / 2) = 2.
    assert pooled_sd([7.0], [2.0, 4.0, 6.0]) == pytest.approx(2.0)
    assert pooled_sd([2.0, 4.0, 6.0], [7.0]) == pytest.approx(2.0)


def test_pooled_sd_with_an_empty_group_is_the_other_groups_sample_sd() -> None:
    # [1, 2, 3] has s = 1; [1, 2] has s = sqrt(1/2). An empty group adds no run and no mean.
    assert pooled_sd([], [1.0, 2.0, 3.0]) == pytest.approx(1.0)
    assert pooled_sd([1.0, 2.0, 3.0], []) == pytest.approx(1.0)
    assert pooled_sd([], [1.0, 2.0]) == pytest.approx(math.sqrt(0.5))
    assert pooled_sd([1.0, 2.0], []) == pytest.approx(math.sqrt(0.5))


def test_cohen_d_of_an_empty_group_is_zero() -> None:
    assert cohen_d([], [1.0, 2.0, 3.0]) == 0.0
    assert cohen_d([1.0, 2.0, 3.0], []) == 0.0
    assert cohen_d([], []) == 0.0


def test_a_pooled_sd_exactly_at_the_bound_counts_as_zero() -> None:
    # [0, 2e-12] against [0, 0]: s_a^2 = 2e-24, pooled sd = sqrt(2e-24 / 2) = 1e-12, exactly the
    # bound 1e-12 * 1; the mean difference is 1e-12, also at the bound: equal means, d = 0.
    assert pooled_sd([0.0, 2e-12], [0.0, 0.0]) == 1e-12
    assert cohen_d([0.0, 2e-12], [0.0, 0.0]) == 0.0
    assert cohen_d([0.0, 0.0], [0.0, 2e-12]) == 0.0


def test_a_mean_difference_exactly_at_the_bound_counts_as_equal_means() -> None:
    # No spread, means 1e-12 apart (the bound): equal, d = 0, not infinite.
    assert cohen_d([1e-12, 1e-12], [0.0, 0.0]) == 0.0
    assert cohen_d([0.0, 0.0], [1e-12, 1e-12]) == 0.0


def test_a_pooled_sd_just_above_the_bound_gives_a_finite_d() -> None:
    # [0, 0] against [0, 3e-12]: pooled sd sqrt((3e-12)^2 / 2 / 2) = 1.5e-12 > 1e-12, the
    # difference -1.5e-12: d = -1 (the bound is 1e-12 * 1, not 2e-12, for values below 1).
    assert pooled_sd([0.0, 0.0], [0.0, 3e-12]) == pytest.approx(1.5e-12)
    assert cohen_d([0.0, 0.0], [0.0, 3e-12]) == pytest.approx(-1.0)


def test_the_bound_does_not_shrink_below_one_for_small_values() -> None:
    # Values near 0.001 that differ by 1e-12: sd 5e-13 and difference -5e-13, both under 1e-12
    # (the floor 1 of the scale), so noise: d = 0 (against a scale of 0.001 it would be d = -1).
    assert cohen_d([0.001, 0.001], [0.001, 0.001 + 1e-12]) == 0.0
    assert cohen_d([0.001, 0.001 + 1e-12], [0.001, 0.001]) == 0.0


def test_the_bound_grows_with_the_largest_value_of_either_group() -> None:
    # a = [1e6, 1e6 + 1e-7]: pooled sd ~ 5e-8, below 1e-12 * 1e6 = 1e-6, so zero spread;
    # means 1e6 apart: perfect separation, d = +/-inf, whichever group holds the large values.
    assert cohen_d([1e6, 1e6 + 1e-7], [0.0, 0.0]) == math.inf
    assert cohen_d([0.0, 0.0], [1e6, 1e6 + 1e-7]) == -math.inf


def test_means_equal_to_rounding_at_a_large_scale_give_zero() -> None:
    # No spread, means ~1e-7 apart at values 1e6: below 1e-12 * 1e6, equal means, d = 0.
    assert cohen_d([1e6, 1e6], [1e6 + 1e-7, 1e6 + 1e-7]) == 0.0
    assert cohen_d([1e6 + 1e-7, 1e6 + 1e-7], [1e6, 1e6]) == 0.0
