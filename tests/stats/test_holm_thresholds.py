"""Holm's step-down thresholds by hand: the k-th smallest p-value (k from 1) is compared with
alpha / (m - k + 1), inclusive, and the family's alpha is kept on the result.

Random p-values in [0, 1] (the property tests in test_fisher_holm.py) almost never reach these
boundaries, so each is pinned here on both sides.
"""

from __future__ import annotations

from mutreal.stats import HolmResult, holm


def test_the_second_threshold_is_alpha_over_m_minus_one() -> None:
    # m = 2: thresholds 0.05 / 2 = 0.025 for the smallest, 0.05 / 1 for the next
    assert holm([0.01, 0.04]).rejected == [True, True]
    # m = 3: 0.0167, 0.025, 0.05 -> 0.01, 0.02, 0.04 all pass
    assert holm([0.04, 0.01, 0.02]).rejected == [True, True, True]
    # the next p-value above its own threshold stops the rejections
    assert holm([0.01, 0.026, 0.04]).rejected == [True, False, False]


def test_a_p_value_equal_to_its_threshold_is_rejected() -> None:
    # 0.025 is exactly 0.05 / 2 in floating point
    assert holm([0.025, 0.5]).rejected == [True, False]
    assert holm([0.025, 0.5], alpha=0.04).rejected == [False, False]


def test_the_family_alpha_is_kept_on_the_result() -> None:
    result = holm([0.003, 0.5], alpha=0.01)
    assert result.alpha == 0.01 and result.rejected == [True, False]
    assert result.adjusted == [0.006, 0.5]
    assert holm([], alpha=0.01) == HolmResult(alpha=0.01, p_values=[], adjusted=[], rejected=[])
