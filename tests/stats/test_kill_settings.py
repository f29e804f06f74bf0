"""The kill rule hands its own settings and both sides' crash flags to the comparison it reads."""

from __future__ import annotations

import math

import pytest

from mutreal.stats import deepcrime_kill

NAN = math.nan


def test_a_flagged_crash_of_the_original_keeps_an_always_crashing_mutant_from_the_sure_kill() -> None:
    # the mutant fails in 4/4 runs, the original in 1/4 (flagged, with a metric): not "every run
    # while the original never does"; one-sided Fisher p = C(4,4) C(4,1) / C(8,5) = 4/56 >= 0.05
    verdict = deepcrime_kill([0.9] * 4, [NAN] * 4, crashed_original=[False, True, False, False])
    assert verdict.comparison.failed_a == 1 and verdict.comparison.failed_b == 4
    assert verdict.crash_p_value == pytest.approx(4 / 56)
    assert not verdict.killed and verdict.killed_by is None


def test_the_kill_effect_is_the_comparison_s_effect_and_power_effect() -> None:
    verdict = deepcrime_kill([0.5, 0.6, 0.7], [0.4, 0.5, 0.6], kill_effect=0.8)
    assert verdict.kill_effect == 0.8
    assert verdict.comparison.min_effect == 0.8 and verdict.comparison.power_effect == 0.8


def test_equal_groups_give_a_positive_zero_effect() -> None:
    # d = 0 must not come out as -0.0 (it is written to JSON and compared as text)
    verdict = deepcrime_kill([0.5, 0.6, 0.7], [0.5, 0.6, 0.7])
    assert verdict.d_worse == 0.0 and math.copysign(1.0, verdict.d_worse) == 1.0
