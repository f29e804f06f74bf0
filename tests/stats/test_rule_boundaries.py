"""Both sides of every threshold of the kill, reproduction and sequential rules.

The data are built so that the decisive figures are known by hand, exactly, in floating point:
``spread(m)`` is ``m`` values -1, one 0 and ``m`` values +1, whose sample standard deviation is
exactly 1 (sum of squares 2m over n - 1 = 2m degrees of freedom). Two groups ``shift + s * spread``
therefore have a pooled sd of exactly ``s`` and Cohen's d of exactly ``shift / s``; the GLM's
p-value is the closed form ``2 * norm.sf(d * sqrt(n / 2))`` (pooled t with n per group, read on the
normal as statsmodels' Wald test does). Fisher exact p-values are hypergeometric tails by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from mutreal.stats import deepcrime_kill, reproduction_verdict
from mutreal.stats.sequential import look_at, sequential_decision
from mutreal.stats.two_groups import compare_groups, crash_p_value


def spread(m: int, scale: float = 1.0, shift: float = 0.0) -> list[float]:
    """2m + 1 values with mean ``shift`` and sample sd exactly ``scale`` (for dyadic scale/shift)."""
    return [shift - scale] * m + [shift] + [shift + scale] * m


def glm_p(d: float, n: int) -> float:
    """Closed-form two-sided p of the pooled two-sample statistic, n runs per group, unit sd."""
    return float(2 * norm.sf(abs(d) * math.sqrt(n / 2)))


# -- the kill rule: metric path --------------------------------------------------------------------


def test_metric_kill_at_exactly_the_kill_effect() -> None:
    # n = 41, d = 0.5 exactly: p = 2 sf(0.5 sqrt(20.5)) = 0.0236 < 0.05, d >= 0.5 -> killed
    verdict = deepcrime_kill(spread(20, 0.125, 0.75), spread(20, 0.125, 0.6875))
    assert verdict.d_worse == 0.5
    assert verdict.comparison.p_value == pytest.approx(glm_p(0.5, 41), rel=1e-9)
    assert verdict.killed and verdict.killed_by == "metric"


def test_metric_kill_just_below_the_kill_effect_is_not_a_kill() -> None:
    # d = 0.46875 (= 0.0585938 / 0.125), still significant: p = 2 sf(0.46875 sqrt(20.5)) = 0.034
    verdict = deepcrime_kill(spread(20, 0.125, 0.75), spread(20, 0.125, 0.69140625))
    assert verdict.d_worse == 0.46875
    assert verdict.comparison.significant and verdict.comparison.p_value == pytest.approx(glm_p(0.46875, 41))
    assert not verdict.killed and verdict.killed_by is None


def test_a_large_effect_without_significance_is_not_a_kill() -> None:
    # n = 9, d = 0.5: p = 2 sf(0.5 sqrt(4.5)) = 0.289
    verdict = deepcrime_kill(spread(4, 0.25, 0.5), spread(4, 0.25, 0.375))
    assert verdict.d_worse == 0.5 and verdict.comparison.p_value == pytest.approx(glm_p(0.5, 9))
    assert not verdict.killed


def test_a_better_mutant_is_never_killed_however_significant() -> None:
    verdict = deepcrime_kill(spread(20, 0.125, 0.5), spread(20, 0.125, 0.75))
    assert verdict.d_worse == -2.0 and verdict.comparison.p_value < 1e-6
    assert not verdict.killed


def test_the_kill_effect_threshold_is_inclusive_for_any_chosen_effect() -> None:
    original, mutant = spread(20, 0.125, 0.75), spread(20, 0.125, 0.5)  # d = 2 exactly
    assert deepcrime_kill(original, mutant, kill_effect=2.0).killed
    assert not deepcrime_kill(original, mutant, kill_effect=math.nextafter(2.0, 3.0)).killed


def test_significance_is_strictly_below_alpha() -> None:
    # zero spread, different means: p = 0 by definition; alpha = 0 admits nothing
    original, mutant = [0.9] * 5, [0.1] * 5
    assert deepcrime_kill(original, mutant, alpha=1e-300).killed_by == "metric"
    assert not deepcrime_kill(original, mutant, alpha=0.0).killed
    assert not compare_groups(original, mutant, alpha=0.0).significant


def test_lower_is_better_metric_kills_when_the_mutant_loss_rises() -> None:
    original, mutant = spread(20, 0.125, 0.25), spread(20, 0.125, 0.3125)  # loss up by d = 0.5
    assert deepcrime_kill(original, mutant, lower_is_better=True).killed
    assert not deepcrime_kill(mutant, original, lower_is_better=True).killed


# -- the kill rule: crash path ---------------------------------------------------------------------


def test_a_mutant_that_crashes_in_some_runs_but_not_all_is_killed_by_crash() -> None:
    # 6 of 10 mutant runs crash, none of the original's; the 4 that run equal the original.
    # One-sided Fisher p = C(10,6) C(10,0) / C(20,6) = 210 / 38760 = 0.00542.
    original = [0.8] * 10
    mutant = [math.nan] * 6 + [0.8] * 4
    verdict = deepcrime_kill(original, mutant)
    assert verdict.crash_p_value == pytest.approx(210 / 38760)
    assert verdict.comparison.p_value == 1.0  # the metric alone kills nothing
    assert verdict.killed and verdict.killed_by == "crash"


def test_a_few_crashes_are_not_enough_to_kill() -> None:
    # 2 of 10: p = C(10,2) / C(20,2) = 45 / 190 = 0.237
    verdict = deepcrime_kill([0.8] * 10, [math.nan] * 2 + [0.8] * 8)
    assert verdict.crash_p_value == pytest.approx(45 / 190)
    assert not verdict.killed


def test_crash_kill_is_strictly_below_alpha() -> None:
    # 3 of 4 mutant runs crash, none of the original's: p = C(4,3) C(4,0) / C(8,3) = 4/56 = 1/14
    original, mutant = [0.8] * 4, [math.nan] * 3 + [0.8]
    assert crash_p_value(3, 4, 0, 4) == 1 / 14
    assert not deepcrime_kill(original, mutant, alpha=1 / 14).killed
    assert deepcrime_kill(original, mutant, alpha=0.0715).killed_by == "crash"
    assert not deepcrime_kill(original, mutant, alpha=0.0714).killed


def test_equal_crash_counts_never_kill_even_at_a_lax_alpha() -> None:
    # both crash in 5 of 10: one-sided p = P(X >= 5) > 0.5, below alpha = 0.99
    original = [math.nan] * 5 + [0.8] * 5
    verdict = deepcrime_kill(original, list(original), alpha=0.99)
    assert verdict.crash_p_value < 0.99
    assert not verdict.killed


def test_crashing_in_every_run_kills_even_with_one_run_each() -> None:
    verdict = deepcrime_kill([0.8], [math.nan])
    assert verdict.crash_p_value == 0.5  # C(1,1) C(1,0) / C(2,1): Fisher alone would not kill
    assert verdict.killed_by == "crash"


def test_crashing_in_every_run_does_not_kill_when_the_original_also_crashes() -> None:
    # mutant 3/3, original 1/3: p = C(3,3) C(3,1) / C(6,4) = 3/15 = 0.2
    verdict = deepcrime_kill([math.nan, 0.8, 0.8], [math.nan] * 3)
    assert verdict.crash_p_value == pytest.approx(0.2)
    assert not verdict.killed


def test_crash_flags_count_like_missing_metrics() -> None:
    verdict = deepcrime_kill([0.8] * 10, [0.8] * 10, crashed_mutant=[True] * 6 + [False] * 4)
    assert verdict.comparison.failed_b == 6 and verdict.killed_by == "crash"


# -- the reproduction rule -------------------------------------------------------------------------


def test_performance_fault_reproduced_at_exactly_the_reproduction_effect() -> None:
    # n = 201, sd 5, fixed higher by 1: d = 0.2 exactly, p = 2 sf(0.2 sqrt(100.5)) = 0.045
    verdict = reproduction_verdict(spread(100, 5.0, 0.0), spread(100, 5.0, 1.0))
    assert verdict.symptom == "performance"
    assert verdict.comparison.d_b_better == 0.2
    assert verdict.comparison.p_value == pytest.approx(glm_p(0.2, 201), rel=1e-9) and glm_p(0.2, 201) < 0.05
    assert verdict.reproduced


def test_performance_fault_just_below_the_reproduction_effect_is_not_reproduced() -> None:
    # d = 0.75 / 5 = 0.15, p = 0.13
    verdict = reproduction_verdict(spread(100, 5.0, 0.0), spread(100, 5.0, 0.75))
    assert verdict.comparison.d_b_better == 0.15
    assert not verdict.reproduced and "no significant difference" in verdict.reason


def test_reproduction_needs_p_strictly_below_alpha() -> None:
    buggy, fixed = [0.1] * 5, [0.9] * 5  # perfect separation: p = 0
    assert reproduction_verdict(buggy, fixed, alpha=1e-300).reproduced
    assert not reproduction_verdict(buggy, fixed, alpha=0.0).reproduced


@pytest.mark.parametrize(
    ("buggy_failures", "fixed_failures", "symptom"),
    [(2, 0, "crash"), (1, 0, "performance"), (3, 1, "crash"), (2, 2, "performance"), (4, 0, "crash")],
)
def test_auto_symptom_is_a_crash_from_half_the_buggy_runs_failing(
    buggy_failures: int, fixed_failures: int, symptom: str
) -> None:
    buggy = [math.nan] * buggy_failures + [0.5] * (4 - buggy_failures)
    fixed = [math.nan] * fixed_failures + [0.9] * (4 - fixed_failures)
    assert reproduction_verdict(buggy, fixed).symptom == symptom


def test_crash_reproduction_by_fisher_is_strictly_below_alpha() -> None:
    # buggy 3/4 failures, fixed 0/4: p = 1/14 = 0.0714
    buggy, fixed = [math.nan] * 3 + [0.5], [0.9] * 4
    at = reproduction_verdict(buggy, fixed, symptom="crash", alpha=1 / 14)
    assert at.crash_p_value == 1 / 14 and not at.reproduced
    assert reproduction_verdict(buggy, fixed, symptom="crash", alpha=0.0715).reproduced
    assert not reproduction_verdict(buggy, fixed, symptom="crash").reproduced  # alpha 0.05


def test_crash_reproduction_when_buggy_fails_every_run_and_fixed_never() -> None:
    verdict = reproduction_verdict([math.nan], [0.9], symptom="crash")
    assert verdict.crash_p_value == 0.5 and verdict.reproduced and verdict.stable


def test_crash_reproduction_needs_more_buggy_failures_than_fixed_ones() -> None:
    # equal failure counts are never a reproduced crash, even at alpha = 0.99
    buggy, fixed = [math.nan] * 2 + [0.5] * 2, [math.nan] * 2 + [0.9] * 2
    verdict = reproduction_verdict(buggy, fixed, symptom="crash", alpha=0.99)
    assert verdict.crash_p_value < 0.99 and not verdict.reproduced
    # the fixed program failing once breaks "always": 4/4 against 1/4 is p = C(4,4)C(4,1)/C(8,5) = 4/56
    verdict = reproduction_verdict([math.nan] * 4, [math.nan, 0.9, 0.9, 0.9], symptom="crash")
    assert verdict.crash_p_value == pytest.approx(4 / 56) and not verdict.reproduced


def test_crash_stability_is_per_seed() -> None:
    stable = reproduction_verdict([math.nan] * 4, [0.9] * 4, symptom="crash")
    assert stable.reproduced and stable.stable
    # 7 of 8 buggy failures against none: p = C(8,7)/C(16,7) = 8/11440, reproduced; seed 7 ran fine
    flaky = reproduction_verdict([math.nan] * 7 + [0.5], [0.9] * 8, symptom="crash")
    assert flaky.crash_p_value == pytest.approx(8 / 11440)
    assert flaky.reproduced and not flaky.stable


# -- the sequential rule ---------------------------------------------------------------------------

#: planned 20 runs, looks at 5..19: L = 15 interim looks, each at alpha / 15.
ALPHA_LOOK = 0.05 / 15


def test_interim_looks_split_alpha_and_the_final_look_uses_all_of_it() -> None:
    a, b = spread(4, 1.0, 1.0), spread(4, 1.0, 0.0)
    assert look_at(a, b, planned_runs=20, min_runs=5).alpha_look == ALPHA_LOOK
    assert look_at(a, b, planned_runs=9, min_runs=5).alpha_look == 0.05
    assert look_at(a, b, planned_runs=21, min_runs=5, step=4).alpha_look == 0.05 / 4


def test_efficacy_needs_the_per_look_alpha_not_the_full_alpha() -> None:
    # n = 9, d = 1: p = 2 sf(sqrt(4.5)) = 0.0339, between alpha / 15 and alpha
    a, b = spread(4, 1.0, 1.0), spread(4, 1.0, 0.0)
    look = look_at(a, b, planned_runs=20, min_runs=5)
    assert look.d_target == 1.0 and look.p_value == pytest.approx(glm_p(1.0, 9))
    assert ALPHA_LOOK < look.p_value < 0.05
    assert not look.stop and look.decision is None
    # the same runs at the planned end decide with the full alpha
    final = look_at(a, b, planned_runs=9, min_runs=5)
    assert final.stop and final.decision is True


def test_efficacy_stops_once_p_is_below_the_per_look_alpha() -> None:
    # d = 1.5: p = 2 sf(1.5 sqrt(4.5)) = 0.00146 < 0.00333
    look = look_at(spread(4, 1.0, 1.5), spread(4, 1.0, 0.0), planned_runs=20, min_runs=5)
    assert look.p_value == pytest.approx(glm_p(1.5, 9)) and look.p_value < ALPHA_LOOK
    assert look.stop and look.decision is True and look.reason.startswith("efficacy")


def test_efficacy_needs_the_effect_as_well() -> None:
    look = look_at(spread(4, 1.0, 1.5), spread(4, 1.0, 0.0), planned_runs=20, min_runs=5, effect=1.5)
    assert look.stop and look.decision is True  # d = 1.5 >= 1.5
    look = look_at(spread(4, 1.0, 1.5), spread(4, 1.0, 0.0), planned_runs=20, min_runs=5, effect=1.625)
    assert not (look.stop and look.decision)


def test_upper_bound_uses_the_hedges_olkin_standard_error() -> None:
    # n_a = n_b = 9, d = 1: se = sqrt(18/81 + 1/36) = sqrt(1/4) = 0.5 exactly
    look = look_at(spread(4, 1.0, 1.0), spread(4, 1.0, 0.0), planned_runs=20, min_runs=5)
    z = float(norm.ppf(1 - ALPHA_LOOK))
    assert look.upper_bound == pytest.approx(1.0 + z * 0.5, rel=1e-12)
    # an effect between the bound without the d^2 term (1 + z sqrt(2/9)) and with it continues
    effect = 1.0 + z * (0.5 + math.sqrt(2 / 9)) / 2
    look = look_at(spread(4, 1.0, 1.0), spread(4, 1.0, 0.0), planned_runs=20, min_runs=5, effect=effect)
    assert not look.stop


def test_futility_stops_strictly_below_the_effect() -> None:
    # equal groups: d = 0, p = 1, upper bound = z * sqrt(2/9)
    a = spread(4)
    upper = 0.0 + float(norm.ppf(1 - ALPHA_LOOK)) * math.sqrt((9 + 9) / (9 * 9) + 0.0**2 / (2 * (9 + 9)))
    at = look_at(a, list(a), planned_runs=20, min_runs=5, effect=upper)
    assert at.upper_bound == upper and not at.stop
    above = look_at(a, list(a), planned_runs=20, min_runs=5, effect=math.nextafter(upper, 2.0))
    assert above.stop and above.decision is False and above.reason.startswith("futility")


def test_futility_uses_the_per_look_alpha_in_the_bound() -> None:
    # with the full alpha the bound would be z(0.95) sqrt(2/9) = 0.775; at alpha/15 it is 1.279
    a = spread(4)
    look = look_at(a, list(a), planned_runs=20, min_runs=5, effect=1.0)
    assert look.upper_bound == pytest.approx(float(norm.ppf(1 - ALPHA_LOOK)) * math.sqrt(2 / 9))
    assert not look.stop


def test_no_stop_before_min_runs_even_on_perfect_separation() -> None:
    look = look_at([0.9] * 4, [0.1] * 4, planned_runs=20, min_runs=5)
    assert not look.stop and look.decision is None
    assert look_at([0.9] * 5, [0.1] * 5, planned_runs=20, min_runs=5).stop


def test_sequential_decision_at_the_planned_end_uses_the_ordinary_rule() -> None:
    # never stops early (d = 1, p between alpha/L and alpha at every look would need more care):
    # 9 runs planned, so the only look at n = 9 is final: p = 0.0339 < 0.05, d = 1 >= 0.5
    decision = sequential_decision(spread(4, 1.0, 1.0), spread(4, 1.0, 0.0), min_runs=9)
    assert decision.used_runs == 9 and decision.decision and not decision.stopped_early
    assert decision.runs_saved == 0
    # with d = 0.5 at the same n the final p is 0.289: no effect
    decision = sequential_decision(spread(4, 1.0, 0.5), spread(4, 1.0, 0.0), min_runs=9)
    assert not decision.decision


def test_early_stop_reports_the_saving_of_both_groups() -> None:
    a = [0.9] * 20
    b = [0.1] * 20
    decision = sequential_decision(a, b, planned_runs=20, min_runs=5)
    assert decision.used_runs == 5 and decision.stopped_early and decision.runs_saved == 2 * 15


# -- the sequential rule's guarantees on simulated campaigns ---------------------------------------


def _simulate(shift: float, campaigns: int, seed: int) -> float:
    """Share of simulated campaigns (12 planned runs, looks from 4) whose decision is "b worse"."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(campaigns):
        a = rng.normal(0.0, 1.0, 12)
        b = rng.normal(-shift, 1.0, 12)
        hits += sequential_decision(a, b, planned_runs=12, min_runs=4).decision
    return hits / campaigns


@pytest.mark.slow
def test_type_one_error_on_equal_groups_is_within_alpha() -> None:
    # Equal groups: the rule declares "b worse with d >= 0.5" in at most alpha of the campaigns
    # (the interim looks spend alpha/L each, the final look at most alpha/2 one-sided). 400
    # campaigns: a true rate of 0.05 would be seen above 0.05 + 3 se = 0.083 with p < 0.002.
    rate = _simulate(0.0, 400, seed=11)
    assert rate <= 0.05


@pytest.mark.slow
def test_power_on_a_known_effect_is_that_of_the_fixed_rule_less_alpha() -> None:
    # True d = 1.5 with 12 runs each: the fixed-N test's power (closed form, normal approximation)
    # is 1 - sf(1.96 - 1.5 sqrt(6)) = 0.97; futility stops can lose at most alpha of it.
    fixed_power = float(norm.sf(norm.ppf(0.975) - 1.5 * math.sqrt(6)))
    rate = _simulate(1.5, 200, seed=12)
    assert rate >= fixed_power - 0.05 - 3 * math.sqrt(fixed_power * (1 - fixed_power) / 200)


# -- the reproduction rule: crash symptom and its bookkeeping ---------------------------------------

NAN = float("nan")


def test_a_crash_is_not_reproduced_without_any_fixed_run() -> None:
    """The buggy program crashing in every run shows nothing when the fixed one never ran."""
    verdict = reproduction_verdict([NAN] * 5, [], crashed_buggy=[True] * 5, crashed_fixed=[])
    assert verdict.symptom == "crash" and not verdict.reproduced and not verdict.stable
    assert verdict.reason == "no runs"


@pytest.mark.parametrize(("failed", "symptom"), [(4, "performance"), (5, "crash")])
def test_auto_symptom_is_crash_from_half_of_the_buggy_runs(failed: int, symptom: str) -> None:
    """auto: crash when the buggy program fails more often than the fixed one in at least half (5/10)."""
    buggy = [NAN] * failed + [0.5] * (10 - failed)
    crashed = [True] * failed + [False] * (10 - failed)
    verdict = reproduction_verdict(buggy, [0.5] * 10, crashed_buggy=crashed, crashed_fixed=[False] * 10)
    assert verdict.symptom == symptom


def test_crash_counts_read_the_crash_flags_and_the_metric_counts_the_missing_metrics() -> None:
    """Crash symptom: a run counts as failed when it ended abnormally (its flag), not when it left no
    metric; the fixed run without a metric that ended normally did not fail. Under the metric rule
    (the comparison) both runs without a metric count as failed."""
    buggy = [NAN] * 5
    fixed = [NAN, 0.8, 0.8, 0.8, 0.8]
    verdict = reproduction_verdict(
        buggy, fixed, crashed_buggy=[True, True, True, True, False], crashed_fixed=[False] * 5, symptom="crash"
    )
    assert (verdict.failed_buggy, verdict.failed_fixed) == (4, 0)
    assert (verdict.comparison.failed_a, verdict.comparison.failed_b) == (5, 1)
    # 4/5 against 0/5: one-sided Fisher p = C(4,4) C(6,1) / C(10,5) ... = 6/252 + 0 = 0.0238
    assert verdict.crash_p_value == pytest.approx(6 / 252)
    assert verdict.reproduced and not verdict.stable  # seed 4: the buggy run did not crash


def test_a_flagged_crash_with_a_metric_is_a_failed_run_under_the_metric_rule() -> None:
    """A run that logged a metric and then crashed is failed for the performance rule too."""
    buggy, fixed = spread(4, 0.125, 0.5), spread(4, 0.125, 0.75)
    verdict = reproduction_verdict(buggy, fixed, crashed_buggy=[True] + [False] * 8, symptom="performance")
    assert verdict.comparison.failed_a == 1 and verdict.failed_buggy == 1
    assert verdict.comparison.runs_a == 9


def test_reproduction_uses_its_own_effect_threshold_in_the_comparison() -> None:
    # d = 0.25 exactly (shift 0.03125 over sd 0.125), n = 201: p = 2 sf(0.25 sqrt(100.5)) = 0.0122
    buggy, fixed = spread(100, 0.125, 0.5), spread(100, 0.125, 0.53125)
    verdict = reproduction_verdict(buggy, fixed)
    assert verdict.comparison.d_b_better == 0.25
    assert verdict.comparison.p_value == pytest.approx(glm_p(0.25, 201), rel=1e-6)
    assert verdict.reproduced  # 0.25 >= 0.2 (the reproduction effect), though below the kill's 0.5
    assert not reproduction_verdict(buggy, fixed, min_effect=0.3).reproduced


def test_p_equal_to_alpha_reads_as_no_significant_difference() -> None:
    buggy, fixed = spread(4, 0.25, 0.5), spread(4, 0.25, 0.625)  # d = 0.5, p = glm_p(0.5, 9)
    p = reproduction_verdict(buggy, fixed).comparison.p_value
    verdict = reproduction_verdict(buggy, fixed, alpha=p)
    assert not verdict.reproduced and verdict.reason.startswith("no significant difference")


def test_reproduced_but_unstable_says_where_the_fixed_run_was_better() -> None:
    """Seed 0's buggy run (0.9) beats its fixed run (0.625): fixed better at 8 of 9 seed indexes."""
    worse = [0.9] + spread(4, 0.125, 0.5)[1:]
    verdict = reproduction_verdict(worse, spread(4, 0.125, 0.75))
    assert verdict.reproduced and not verdict.stable
    assert verdict.reason.startswith("fixed better: p = ")
    assert verdict.reason.endswith("; fixed better at 89% of seed indexes")
    stable = reproduction_verdict(spread(4, 0.125, 0.25), [0.9] * 9)
    assert stable.stable and "seed indexes" not in stable.reason


def test_a_column_of_metrics_reads_like_a_flat_list() -> None:
    buggy, fixed = spread(4, 0.125, 0.5), spread(4, 0.125, 0.75)
    flat = reproduction_verdict(buggy, fixed, crashed_buggy=[False] * 9)
    column = reproduction_verdict([[v] for v in buggy], [[v] for v in fixed], crashed_buggy=[[False]] * 9)
    assert (column.reproduced, column.stable, column.fixed_better_share) == (
        flat.reproduced, flat.stable, flat.fixed_better_share)
