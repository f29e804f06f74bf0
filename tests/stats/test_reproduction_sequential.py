"""The study's reproduction rule (crash and performance symptoms, stability) and sequential stopping."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mutreal.stats import ReproductionVerdict, SequentialDecision, reproduction_verdict, sequential_decision
from mutreal.stats.sequential import look_at

FIXED = [0.95, 0.96, 0.94, 0.97, 0.95, 0.96]


def test_performance_fault_reproduced_and_stable() -> None:
    verdict = reproduction_verdict([0.80, 0.82, 0.79, 0.81, 0.83, 0.80], FIXED)
    assert verdict.symptom == "performance"
    assert verdict.reproduced and verdict.stable
    again = ReproductionVerdict.from_dict(json.loads(json.dumps(verdict.to_dict(), allow_nan=False)))
    assert again == verdict


def test_buggy_at_chance_in_every_run_is_reproduced() -> None:
    # zero variance on the buggy side (every run predicts one class of ten)
    verdict = reproduction_verdict([0.1] * 6, FIXED)
    assert verdict.reproduced and verdict.stable
    assert verdict.comparison.effect == "large"


def test_reproduced_but_not_stable_when_one_seed_is_better_buggy() -> None:
    buggy = [0.80, 0.82, 0.79, 0.81, 0.83, 0.80, 0.97]  # seed 6: buggy beats fixed
    fixed = [0.95, 0.96, 0.94, 0.97, 0.95, 0.96, 0.93]
    verdict = reproduction_verdict(buggy, fixed)
    assert verdict.reproduced
    assert not verdict.stable
    assert verdict.comparison.stable_share == pytest.approx(6 / 7)


def test_small_but_non_negligible_effect_reproduces() -> None:
    # the study asks |d| >= 0.2 (not DeepCrime's 0.5): d ~ 0.3 with many runs reproduces
    fixed = [0.0, 1.0] * 500
    buggy = [x - 0.15 for x in fixed]
    verdict = reproduction_verdict(buggy, fixed)
    assert 0.2 <= verdict.comparison.d_b_better < 0.5
    assert verdict.reproduced
    assert verdict.stable  # the shift is the same at every seed index
    # power is reported for the rule's own threshold, |d| = 0.2: 1 - Phi(1.96 - 0.2 sqrt(500)) = 0.994
    assert verdict.comparison.power_effect == 0.2
    assert verdict.comparison.power == pytest.approx(0.994, abs=0.002)


def test_fixed_worse_is_not_reproduced() -> None:
    verdict = reproduction_verdict(FIXED, [0.80, 0.82, 0.79, 0.81, 0.83, 0.80])
    assert not verdict.reproduced and not verdict.stable
    assert "buggy better" in verdict.reason


def test_lower_is_better_metric() -> None:
    buggy_loss, fixed_loss = [0.9, 0.95, 0.92, 0.91], [0.3, 0.31, 0.29, 0.33]
    assert reproduction_verdict(buggy_loss, fixed_loss, lower_is_better=True).reproduced
    assert not reproduction_verdict(buggy_loss, fixed_loss).reproduced


def test_crash_symptom_reproduced_and_stable() -> None:
    nan = math.nan
    verdict = reproduction_verdict([nan] * 5, [0.9] * 5, crashed_buggy=[True] * 5)
    assert verdict.symptom == "crash"
    assert verdict.reproduced and verdict.stable
    # hypergeometric one-sided p for 5/5 vs 0/5 failures: 1 / C(10, 5)
    assert verdict.crash_p_value == pytest.approx(1 / 252)


def test_fixed_better_share_counts_the_crashes_the_fix_removes() -> None:
    # no test is possible (the buggy side never has a metric), so the comparison's leader is the
    # buggy side; the share the reproduce command prints must still be the fixed side's
    verdict = reproduction_verdict([math.nan] * 2, [0.9, 0.95], crashed_buggy=[True] * 2)
    assert verdict.stable and verdict.fixed_better_share == 1.0
    flaky = reproduction_verdict([math.nan] * 3 + [0.99], [0.9] * 4, crashed_buggy=[True] * 3 + [False])
    assert flaky.fixed_better_share == 0.75
    assert ReproductionVerdict.from_dict(json.loads(json.dumps(flaky.to_dict()))) == flaky


def test_crash_in_every_run_of_one_run_campaign_still_reproduces() -> None:
    verdict = reproduction_verdict([math.nan], [0.9], crashed_buggy=[True])
    assert verdict.symptom == "crash" and verdict.reproduced and verdict.stable


def test_flaky_crash_is_reproduced_but_not_stable() -> None:
    crashed = [True] * 8 + [False] * 2
    buggy = [math.nan] * 8 + [0.9, 0.9]
    verdict = reproduction_verdict(buggy, [0.9] * 10, crashed_buggy=crashed)
    assert verdict.symptom == "crash"
    assert verdict.reproduced and not verdict.stable


def test_crash_that_the_fix_does_not_remove_is_not_reproduced() -> None:
    verdict = reproduction_verdict(
        [math.nan] * 4, [math.nan] * 4, crashed_buggy=[True] * 4, crashed_fixed=[True] * 4
    )
    assert verdict.symptom == "performance"
    assert not verdict.reproduced
    json.dumps(verdict.to_dict(), allow_nan=False)


def test_unknown_symptom_is_an_error() -> None:
    with pytest.raises(ValueError):
        reproduction_verdict([1.0], [1.0], symptom="slow")


# -- sequential ---------------------------------------------------------------------------------


def test_clear_kill_stops_early_and_saves_runs() -> None:
    rng = np.random.default_rng(1)
    original, mutant = rng.normal(0.95, 0.01, 20), rng.normal(0.60, 0.05, 20)
    decision = sequential_decision(original, mutant, planned_runs=20, target="b worse", effect=0.5)
    assert decision.decision and decision.stopped_early
    assert decision.used_runs == 5
    assert decision.runs_saved == 30
    again = SequentialDecision.from_dict(json.loads(json.dumps(decision.to_dict(), allow_nan=False)))
    assert again == decision


def test_perfect_separation_stops_at_the_first_look() -> None:
    decision = sequential_decision([1.0] * 20, [0.1] * 20, target="b worse")
    assert decision.decision and decision.used_runs == 5


def test_equivalent_programs_never_declare_an_effect() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.9, 0.01, 20), rng.normal(0.9, 0.01, 20)
    decision = sequential_decision(a, b, target="b worse", effect=0.5)
    assert not decision.decision


def test_mutant_better_than_original_stops_for_futility() -> None:
    rng = np.random.default_rng(3)
    original, mutant = rng.normal(0.80, 0.01, 20), rng.normal(0.95, 0.01, 20)
    decision = sequential_decision(original, mutant, target="b worse", effect=0.5)
    assert not decision.decision and decision.stopped_early
    assert "futility" in decision.looks[-1].reason


def test_early_decisions_agree_with_the_full_rule_on_simulated_campaigns() -> None:
    """Over many simulated campaigns the sequential decision rarely differs from the fixed-N rule."""
    from mutreal.stats import deepcrime_kill

    rng = np.random.default_rng(4)
    disagreements = saved = 0
    for shift in np.linspace(0.0, 0.03, 40):
        original, mutant = rng.normal(0.9, 0.01, 20), rng.normal(0.9 - shift, 0.01, 20)
        decision = sequential_decision(original, mutant, target="b worse", effect=0.5)
        disagreements += decision.decision != deepcrime_kill(original, mutant).killed
        saved += decision.runs_saved
    assert disagreements <= 2
    assert saved > 0


def test_look_before_min_runs_never_stops() -> None:
    look = look_at([1.0, 1.0], [0.0, 0.0], planned_runs=20, min_runs=5)
    assert not look.stop


def test_looks_every_step_runs_split_alpha_over_the_interim_looks() -> None:
    from mutreal.stats.sequential import interim_look_count

    assert interim_look_count(20, 5, 5) == 3  # looks at 5, 10, 15; 20 is the final analysis
    assert interim_look_count(20, 5, 1) == 15
    assert interim_look_count(5, 5, 1) == 0
    look = look_at(
        [0.9, 0.91, 0.92, 0.9, 0.91], [0.9, 0.9, 0.91, 0.92, 0.9], planned_runs=20, min_runs=5, step=5
    )
    assert look.alpha_look == pytest.approx(0.05 / 3)
    decision = sequential_decision(np.full(20, 1.0), np.full(20, 0.1), step=5)
    assert [lk.n for lk in decision.looks] == [5]
