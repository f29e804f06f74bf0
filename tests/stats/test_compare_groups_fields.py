"""The fields of compare_groups that no verdict test read: the leader's stable share when there is
no difference, the notes, signed zeros, the boundary of "a better", and alpha in power and MDE.

Why this file exists: the mutation run (``make mutation``, group "stats") left 21 mutants of
``compare_groups`` alive. ``stable_share`` is reported for the leading side even when the verdict
is "no difference" (the leader is then the side with the higher effect, ``a`` on a tie), but only
"stable" was checked, which is False for every "no difference". The other survivors: the note for
a significant but too small effect, the paired-test note when every pair succeeded, a ``d`` of
exactly ``min_effect`` towards ``a``, the "no negative zero" of ``cohen_d`` and ``d_b_better``,
``lower_is_better`` in the stability count, and ``alpha`` handed to the power and detectable
effect. Expected values are worked by hand; p-values, power and the detectable effect come from
scipy (normal, noncentral t, Mann-Whitney) computed here as independent oracles.
"""

from __future__ import annotations

import math

import pytest
from scipy import optimize, stats

from mutreal.stats import compare_groups

# [1, 2, 3] against [-1, 0, 1]: both sample variances 1, pooled sd 1, d = (2 - 0) / 1 = 2 exactly;
# the GLM's Wald z is the pooled t = d * sqrt(3 * 3 / 6), p = 2 * norm.sf(z) ~ 0.0143.
HIGH = [1.0, 2.0, 3.0]
LOW = [-1.0, 0.0, 1.0]
P_HIGH_LOW = 2 * float(stats.norm.sf(2.0 * math.sqrt(1.5)))


def test_the_oracle_p_of_the_crafted_groups() -> None:
    result = compare_groups(HIGH, LOW)
    assert result.cohen_d == 2.0
    assert result.p_value == pytest.approx(P_HIGH_LOW, rel=1e-9)
    assert P_HIGH_LOW < 0.05


def test_an_effect_of_exactly_min_effect_towards_a_is_a_better() -> None:
    # d = 2 towards a (a higher, higher is better) with min_effect 2: at least min_effect.
    result = compare_groups(HIGH, LOW, min_effect=2.0)
    assert result.d_b_better == -2.0
    assert result.verdict == "a better"
    assert result.stable is True and result.stable_share == 1.0
    # the mirror: exactly min_effect towards b
    assert compare_groups(LOW, HIGH, min_effect=2.0).verdict == "b better"


def test_significant_but_too_small_an_effect_says_so() -> None:
    result = compare_groups(HIGH, LOW, min_effect=5.0)
    assert result.significant is True and result.verdict == "no difference"
    assert result.notes == ["significant but |d| < 5.0: effect too small for a verdict"]


def test_with_no_difference_the_share_is_that_of_the_side_ahead_when_a_is_ahead() -> None:
    # a is ahead (d_b_better = -2): a beats b at each of the 3 seeds, share 1; b would have 0.
    result = compare_groups(HIGH, LOW, min_effect=5.0)
    assert result.verdict == "no difference" and result.stable is False
    assert result.stable_share == 1.0


def test_with_no_difference_the_share_is_that_of_the_side_ahead_when_b_is_ahead() -> None:
    # b is ahead (d_b_better = 2): b beats a at each seed, share 1; a would have 0.
    result = compare_groups(LOW, HIGH, min_effect=5.0)
    assert result.verdict == "no difference" and result.stable is False
    assert result.d_b_better == 2.0
    assert result.stable_share == 1.0


def test_with_no_difference_a_small_lead_of_b_still_makes_b_the_leader() -> None:
    # b = a + 0.5: pooled sd 1, d_b_better = 0.5 (not significant: p = 2 * norm.sf(0.5 * sqrt(1.5)));
    # b leads at every seed, so the share is 1 (a's share would be 0).
    result = compare_groups([1.0, 2.0, 3.0], [1.5, 2.5, 3.5])
    assert result.p_value == pytest.approx(2 * float(stats.norm.sf(0.5 * math.sqrt(1.5))), rel=1e-9)
    assert result.verdict == "no difference"
    assert result.d_b_better == pytest.approx(0.5)
    assert result.stable_share == 1.0


def test_with_no_difference_and_equal_means_a_is_the_leader() -> None:
    # a = [1, 1, 4] and b = [2, 2, 2] both have mean 2: d = 0, the tie goes to a. a beats b at
    # seed 2 only (share 1/3); b beats a at seeds 0 and 1 (2/3).
    result = compare_groups([1.0, 1.0, 4.0], [2.0, 2.0, 2.0])
    assert result.cohen_d == 0.0 and result.verdict == "no difference"
    assert result.stable_share == pytest.approx(1 / 3)


def test_with_min_effect_zero_a_significant_difference_at_equal_means_is_b_better() -> None:
    # a = nine 0s and a 10 (mean 1), b = ten 1s (mean 1): d = 0, yet the ranks differ
    # (Mann-Whitney p from scipy below 0.05). With min_effect 0, d_b_better = 0 >= 0: "b better";
    # b beats a at the nine seeds where a is 0: share 0.9 (a's share would be 0.1).
    a = [0.0] * 9 + [10.0]
    b = [1.0] * 10
    oracle = float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    assert oracle < 0.05
    result = compare_groups(a, b, test="mannwhitney", min_effect=0.0)
    assert result.p_value == pytest.approx(oracle)
    assert result.cohen_d == 0.0
    assert result.verdict == "b better"
    assert result.stable_share == pytest.approx(0.9) and result.stable is False


def test_lower_is_better_decides_who_wins_at_each_seed() -> None:
    # Loss-like metric: b's losses [-1, 0, 1] are lower than a's [1, 2, 3] at every seed.
    result = compare_groups(HIGH, LOW, lower_is_better=True)
    assert result.verdict == "b better"
    assert result.stable_share == 1.0 and result.stable is True


def test_a_zero_d_is_never_a_negative_zero() -> None:
    # Identical groups: d = 0, and b's d (-d for a higher-is-better metric) is +0.0, not -0.0.
    result = compare_groups([0.9, 0.8, 0.7], [0.9, 0.8, 0.7])
    assert result.d_b_better == 0.0 and math.copysign(1.0, result.d_b_better) == 1.0
    assert math.copysign(1.0, result.cohen_d) == 1.0
    assert str(result.d_b_better) == "0.0"


def test_a_negative_zero_mean_difference_gives_a_positive_zero_d() -> None:
    # The mean of [-5e-324, 0] rounds to -0.0; against b's mean +0.0 (spread 1) the difference is
    # -0.0, so d would be -0.0: the result holds +0.0.
    result = compare_groups([-5e-324, 0.0], [-1.0, 1.0])
    assert result.cohen_d == 0.0 and math.copysign(1.0, result.cohen_d) == 1.0
    assert str(result.cohen_d) == "0.0"


def test_the_paired_test_notes_nothing_when_every_pair_succeeded() -> None:
    result = compare_groups([1.0, 2.0, 3.0], [2.0, 3.0, 5.0], test="wilcoxon")
    assert result.notes == []
    # with a failed run the note says how many pairs took part
    failed = compare_groups([1.0, 2.0, 3.0], [2.0, math.nan, 5.0], test="wilcoxon")
    assert "paired test on the 2 seed indexes where both runs succeeded" in failed.notes


def oracle_power(n_a: int, n_b: int, effect: float, alpha: float) -> float:
    """Two-sided two-sample t test power from the noncentral t distribution."""
    df = n_a + n_b - 2
    shift = effect * math.sqrt(n_a * n_b / (n_a + n_b))
    critical = float(stats.t.ppf(1 - alpha / 2, df))
    return float(stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift))


def test_power_and_detectable_effect_use_the_given_alpha() -> None:
    a = [1.0, 2.0, 3.0, 4.0, 5.0]
    b = [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    result = compare_groups(a, b, alpha=0.01)
    assert result.power == pytest.approx(oracle_power(5, 7, 0.5, 0.01), rel=1e-6)
    # (bracket up to d = 3.5, power 0.99: further out scipy's nct.cdf of the far tail is NaN)
    mde = optimize.brentq(lambda d: oracle_power(5, 7, d, 0.01) - 0.8, 0.1, 3.5, xtol=1e-12)
    assert result.detectable_effect == pytest.approx(mde, rel=1e-5)
    # and at the default 0.05 both differ from the 0.01 ones
    default = compare_groups(a, b)
    assert default.power == pytest.approx(oracle_power(5, 7, 0.5, 0.05), rel=1e-6)
    assert default.power > result.power * 2
    assert default.detectable_effect < mde - 0.3
