"""GLM p-values, Cohen's d, the other tests and power against numbers computed independently here.

Expected values come from closed forms written out in the test (pooled-variance t statistic, its
normal tail with math.erfc, exact rank-test counts), never from the functions under test.
"""

from __future__ import annotations

import json
import math
import statistics

import pytest

from mutreal.stats import (
    GroupComparison,
    KillVerdict,
    compare_groups,
    deepcrime_kill,
    effect_label,
    power_for,
)
from mutreal.stats.effect import cohen_d

A = [0.90, 0.92, 0.94, 0.91, 0.93]
B = [0.85, 0.88, 0.86, 0.87, 0.84]


def pooled_t_and_d(a: list[float], b: list[float]) -> tuple[float, float]:
    """Closed form: pooled sd, Cohen's d = (mean a - mean b) / sp and t = d / sqrt(1/na + 1/nb)."""
    na, nb = len(a), len(b)
    sp = math.sqrt(((na - 1) * statistics.variance(a) + (nb - 1) * statistics.variance(b)) / (na + nb - 2))
    d = (statistics.mean(a) - statistics.mean(b)) / sp
    return d / math.sqrt(1 / na + 1 / nb), d


def normal_two_sided(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def test_glm_p_value_and_cohen_d_match_the_pooled_t_closed_form() -> None:
    t, d = pooled_t_and_d(A, B)
    result = compare_groups(A, B)
    assert result.cohen_d == pytest.approx(d, rel=1e-9)
    # statsmodels' Gaussian GLM reports the Wald z = pooled t with a normal tail (DeepCrime's p).
    assert result.p_value == pytest.approx(normal_two_sided(t), rel=1e-6)
    assert result.statistic == pytest.approx(-t, rel=1e-9)  # coefficient of group b: b - a


def test_glm_on_a_fully_hand_computed_example() -> None:
    # a = 1,2,3 and b = 4,5,6: means 2 and 5, variances 1, pooled sd 1, d = -3,
    # t = -3 / sqrt(2/3) = -3.6742346..., p = erfc(3.6742346 / sqrt 2) = 2.3856e-4.
    result = compare_groups([1, 2, 3], [4, 5, 6])
    assert result.cohen_d == pytest.approx(-3.0)
    assert result.p_value == pytest.approx(2.3856e-4, rel=1e-3)
    assert result.verdict == "b better"
    assert result.effect == "large"


def test_direction_higher_is_better() -> None:
    result = compare_groups(B, A)  # b has the higher accuracy
    assert result.verdict == "b better"
    assert result.d_b_better > 0
    assert result.stable and result.stable_share == 1.0


def test_direction_lower_is_better_flips_the_verdict() -> None:
    loss_a, loss_b = [0.30, 0.32, 0.31, 0.35, 0.33], [0.20, 0.22, 0.21, 0.19, 0.23]
    result = compare_groups(loss_a, loss_b, lower_is_better=True)
    assert result.verdict == "b better"
    assert result.d_b_better > 0
    same_as_accuracy = compare_groups(loss_a, loss_b)
    assert same_as_accuracy.verdict == "a better"
    assert same_as_accuracy.p_value == pytest.approx(result.p_value)


def test_significant_but_negligible_effect_is_no_difference() -> None:
    a = [0.0, 1.0] * 2000
    b = [x + 0.1 for x in a]  # d ~ 0.17, N large: p tiny but effect negligible
    result = compare_groups(a, b)
    assert result.significant
    assert effect_label(result.cohen_d) == "negligible"
    assert result.verdict == "no difference"
    assert not result.stable


def test_zero_variance_equal_groups() -> None:
    result = compare_groups([1.0] * 10, [1.0] * 10)
    assert result.p_value == 1.0
    assert result.cohen_d == 0.0
    assert result.effect == "negligible"
    assert result.verdict == "no difference"
    assert not result.stable


def test_zero_variance_perfect_separation_is_defined_and_serialisable() -> None:
    # every original run at 1.00, every mutant run at chance (0.1 for ten classes)
    result = compare_groups([1.0] * 20, [0.1] * 20)
    assert result.p_value == 0.0
    assert result.cohen_d == math.inf
    assert result.effect == "large"
    assert result.verdict == "a better"
    assert result.stable
    text = json.dumps(result.to_dict(), allow_nan=False)
    again = GroupComparison.from_dict(json.loads(text))
    assert again.cohen_d == math.inf and again.p_value == 0.0


def test_zero_variance_in_one_group_only_uses_the_other_groups_spread() -> None:
    a, b = [0.1] * 5, [0.9, 0.95, 0.92, 0.97, 0.93]
    t, d = pooled_t_and_d(a, b)
    result = compare_groups(a, b)
    assert result.cohen_d == pytest.approx(d)
    assert result.p_value == pytest.approx(normal_two_sided(t), rel=1e-6)


def test_too_few_runs_give_no_p_value_and_no_verdict() -> None:
    result = compare_groups([0.9], [0.5])
    assert result.p_value is None
    assert result.verdict == "no difference"
    assert result.notes
    empty = compare_groups([math.nan, math.nan], [0.5, 0.6], crashed_a=[True, True])
    assert empty.p_value is None and empty.a.n == 0 and empty.failed_a == 2
    json.dumps(empty.to_dict(), allow_nan=False)


def test_mann_whitney_exact_p_for_complete_separation() -> None:
    # 5 vs 5 without ties, every b above every a: exact two-sided p = 2 / C(10, 5) = 2 / 252
    result = compare_groups([1, 2, 3, 4, 5], [6, 7, 8, 9, 10], test="mannwhitney")
    assert result.p_value == pytest.approx(2 / math.comb(10, 5))
    assert result.statistic == 0.0
    assert result.verdict == "b better"


def test_mann_whitney_all_tied_gives_p_one() -> None:
    assert compare_groups([0.5] * 6, [0.5] * 6, test="mannwhitney").p_value == 1.0


def test_paired_wilcoxon_exact_p() -> None:
    # six pairs, all differences positive and distinct: exact two-sided p = 2 / 2^6
    a = [0.9, 0.8, 0.85, 0.95, 0.7, 0.75]
    b = [x - 0.01 * (i + 1) for i, x in enumerate(a)]
    result = compare_groups(a, b, test="wilcoxon")
    assert result.p_value == pytest.approx(2 / 2**6)
    tied = compare_groups(a, a, test="wilcoxon")
    assert tied.p_value == 1.0


def test_crashed_runs_are_left_out_of_the_metric_but_count_for_stability() -> None:
    a = [0.5, 0.52, math.nan, 0.51, 0.49]
    b = [0.9, 0.91, 0.92, 0.93, 0.90]
    result = compare_groups(a, b, crashed_a=[False, False, True, False, False])
    t, d = pooled_t_and_d([0.5, 0.52, 0.51, 0.49], b)
    assert result.a.n == 4 and result.failed_a == 1
    assert result.cohen_d == pytest.approx(d)
    assert result.stable  # at index 2 the crash of a is gone in b
    crashed_b = compare_groups(a, b, crashed_b=[False, True, False, False, False])
    assert not crashed_b.stable and crashed_b.stable_share == pytest.approx(4 / 5)


def test_power_matches_the_textbook_value() -> None:
    # two-sided two-sample t test, d = 0.5, n = 20 per group, alpha 0.05: power 0.338 (G*Power)
    assert power_for(20, 20, 0.5) == pytest.approx(0.338, abs=0.002)
    # n = 64 per group is the classic sample size for 80% power at d = 0.5
    assert power_for(64, 64, 0.5) == pytest.approx(0.80, abs=0.005)
    assert power_for(1, 20, 0.5) is None
    # large N: the noncentral t underflows in statsmodels (NaN); the answer must still be a number
    assert power_for(1000, 1000, 0.5) == pytest.approx(1.0)
    # normal approximation by hand: shift 0.05 * sqrt(500) = 1.118, 1 - Phi(1.960 - 1.118) = 0.200
    assert power_for(1000, 1000, 0.05) == pytest.approx(0.200, abs=0.005)


def test_detectable_effect_shrinks_with_more_runs() -> None:
    small = compare_groups(A, B).detectable_effect
    large = compare_groups(A * 8, B * 8).detectable_effect
    assert small is not None and large is not None and large < small


@pytest.mark.parametrize(
    ("d", "label"),
    [(0.0, "negligible"), (0.19, "negligible"), (-0.2, "small"), (0.49, "small"), (0.5, "medium"),
     (-0.79, "medium"), (0.8, "large"), (math.inf, "large")],
)  # fmt: skip
def test_effect_labels(d: float, label: str) -> None:
    assert effect_label(d) == label


def test_cohen_d_sign_convention_is_deepcrimes() -> None:
    assert cohen_d([2, 3, 4], [1, 2, 3]) == pytest.approx(1.0)


class TestDeepCrimeKill:
    def test_worse_mutant_with_large_effect_is_killed(self) -> None:
        verdict = deepcrime_kill(A, B)
        assert verdict.killed and verdict.killed_by == "metric"
        _, d = pooled_t_and_d(A, B)
        assert verdict.d_worse == pytest.approx(d)

    def test_better_mutant_is_never_killed(self) -> None:
        verdict = deepcrime_kill(B, A)
        assert verdict.comparison.significant
        assert not verdict.killed

    def test_loss_metric_direction(self) -> None:
        original_loss, mutant_loss = [0.2, 0.21, 0.19, 0.22, 0.2], [0.4, 0.45, 0.42, 0.41, 0.43]
        assert deepcrime_kill(original_loss, mutant_loss, lower_is_better=True).killed
        assert not deepcrime_kill(mutant_loss, original_loss, lower_is_better=True).killed

    def test_medium_effect_threshold(self) -> None:
        # the sd of a is ~0.5: a shift of 0.35 gives d ~ 0.7 (killed), 0.15 gives d ~ 0.3
        # (significant with N = 1000, but below DeepCrime's 0.5: not killed)
        a = [0.0, 1.0] * 500
        b = [x - 0.35 for x in a]
        assert deepcrime_kill(a, b).killed
        c = [x - 0.15 for x in a]
        verdict = deepcrime_kill(a, c)
        assert verdict.comparison.significant and not verdict.killed

    def test_crashing_mutant_is_killed_by_crash(self) -> None:
        verdict = deepcrime_kill(A, [math.nan] * 5, crashed_mutant=[True] * 5)
        assert verdict.killed and verdict.killed_by == "crash"
        assert verdict.comparison.p_value is None

    def test_round_trip(self) -> None:
        verdict = deepcrime_kill([1.0] * 5, [0.1] * 5)
        again = KillVerdict.from_dict(json.loads(json.dumps(verdict.to_dict(), allow_nan=False)))
        assert again == verdict


def test_wilcoxon_pairs_by_seed_index_around_failures() -> None:
    # a failed run at index 1 must drop the pair, not shift b's runs against a's
    a = [0.9, float("nan"), 0.8, 0.85, 0.95, 0.7, 0.75]
    b = [0.89, 0.1, 0.78, 0.82, 0.91, 0.65, 0.69]
    result = compare_groups(a, b, test="wilcoxon", crashed_a=[False, True, False, False, False, False, False])
    # six remaining pairs, every difference positive and distinct: exact p = 2 / 2^6
    assert result.p_value == pytest.approx(2 / 2**6)
    assert any("both runs succeeded" in note for note in result.notes)
