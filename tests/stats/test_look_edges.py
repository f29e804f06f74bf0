"""look_at at two edges: a p-value exactly at the look's alpha, and a target d of zero.

Why this file exists: the mutation run (``make mutation``, group "stats") left two mutants of
``look_at`` alive: ``p < alpha_look`` read as ``<=``, and the ``+ 0.0`` that keeps a negative zero
out of ``d_target``. The efficacy rule is strict, so alpha = 0 can never be met, even by
perfect separation (the GLM's p is then 0 exactly); identical groups give d = 0 for either
target, and a zero must read as +0.0 in the look.
"""

from __future__ import annotations

import math

from mutreal.stats.sequential import look_at

# Every original run at 1.0, every mutant run at 0.0: zero spread, different means, p = 0, d = inf.
SEPARATED = ([1.0] * 5, [0.0] * 5)


def test_perfect_separation_meets_the_default_alpha() -> None:
    look = look_at(*SEPARATED, planned_runs=5)
    assert look.p_value == 0.0 and look.d_target == math.inf
    assert look.stop is True and look.decision is True


def test_a_p_value_equal_to_the_final_alpha_does_not_decide() -> None:
    # final look (5 of 5 planned runs), alpha 0: p = 0 is not below 0.
    look = look_at(*SEPARATED, planned_runs=5, alpha=0.0)
    assert look.p_value == 0.0 and look.alpha_look == 0.0
    assert look.stop is True and look.decision is False
    assert look.reason == "planned runs reached"


def test_a_p_value_equal_to_an_interim_alpha_does_not_stop_for_efficacy() -> None:
    # interim look (5 of 10 planned runs): alpha_look = 0 / 5 = 0, p = 0 is not below it; d is
    # infinite, so there is no upper bound for futility either: go on.
    look = look_at(*SEPARATED, planned_runs=10, alpha=0.0)
    assert look.alpha_look == 0.0
    assert look.stop is False and look.decision is None
    assert look.reason == "verdict can still change"


def test_a_zero_target_d_is_a_positive_zero_for_either_target() -> None:
    same = [0.9, 0.8, 0.7, 0.6, 0.5]
    for target in ("b better", "b worse"):
        for lower_is_better in (False, True):
            look = look_at(same, same, planned_runs=10, target=target, lower_is_better=lower_is_better)
            assert look.d_target == 0.0
            assert math.copysign(1.0, look.d_target) == 1.0, (target, lower_is_better)
            assert str(look.d_target) == "0.0"
