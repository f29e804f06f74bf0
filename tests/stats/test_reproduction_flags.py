"""The reproduction verdict's bookkeeping with crash flags, missing metrics and other shapes: which
runs count as failed, the per-seed share the fix wins, and the reason texts a report shows.

Seed by seed, by hand: a failed run of the fix wins nothing; a failed buggy run against a fix
that ran is a win for the fix; otherwise the better metric wins.
"""

from __future__ import annotations

import math

import pytest

from mutreal.stats import reproduction_verdict

NAN = math.nan
F, T = False, True


def test_flags_and_missing_metrics_both_count_as_failed_runs() -> None:
    # seed 0: the fix crashed (flag, finite metric) -> no win; seed 1: the buggy run crashed
    # (flag) -> win; seed 2: the buggy run left no metric (NaN, no flag) -> win; seed 3: the fix
    # left no metric -> no win. Share 2/4. Flags mark one crash per side (auto: performance), but
    # failed runs are flag OR no metric: 2 a side.
    verdict = reproduction_verdict(
        [0.5, 0.5, NAN, 0.5], [0.9, 0.9, 0.9, NAN], crashed_buggy=[F, T, F, F], crashed_fixed=[T, F, F, F]
    )
    assert verdict.symptom == "performance"
    assert verdict.fixed_better_share == 0.5
    assert (verdict.failed_buggy, verdict.failed_fixed) == (2, 2)
    assert (verdict.comparison.failed_a, verdict.comparison.failed_b) == (2, 2)


def test_a_flagged_fix_run_with_a_metric_still_wins_nothing() -> None:
    # seed 0: the fix has 0.9 > 0.5 but is flagged crashed -> no win; seed 1: buggy flagged -> win;
    # seed 2: 0.9 > 0.5 -> win; seed 3: the fix has no metric -> no win. Share 2/4.
    verdict = reproduction_verdict(
        [0.5] * 4, [0.9, 0.9, 0.9, NAN], crashed_buggy=[F, T, F, F], crashed_fixed=[T, F, F, F]
    )
    assert verdict.fixed_better_share == 0.5
    assert (verdict.failed_buggy, verdict.failed_fixed) == (1, 2)


def test_a_missing_metric_given_as_none_is_a_failed_run() -> None:
    # None at seed 1 reads as no metric: the fix wins there and at the three others, 4/4
    verdict = reproduction_verdict([0.5, None, 0.5, 0.5], [0.9] * 4)
    assert verdict.fixed_better_share == 1.0
    assert verdict.failed_buggy == 1 and verdict.reproduced
    # on the fixed side: no win at seed 1, 3 of 4
    verdict = reproduction_verdict([0.5] * 4, [0.9, None, 0.9, 0.9])
    assert verdict.fixed_better_share == 0.75 and verdict.failed_fixed == 1


def test_the_share_follows_the_direction_and_ignores_the_array_shape() -> None:
    buggy, fixed = [0.5, 0.4, 0.5, 0.5], [0.9, 0.9, 0.9, 0.3]
    assert reproduction_verdict(buggy, fixed).fixed_better_share == 0.75
    # a loss: only 0.3 < 0.5 at seed 3 is better
    assert reproduction_verdict(buggy, fixed, lower_is_better=True).fixed_better_share == 0.25
    # one row of runs is the same runs
    assert reproduction_verdict([buggy], [fixed]).fixed_better_share == 0.75


def test_the_crash_reason_gives_both_counts_and_the_fisher_p() -> None:
    # 4/4 against 0/4: one-sided Fisher p = 1 / C(8, 4) = 1/70 = 0.0143
    verdict = reproduction_verdict([NAN] * 4, [0.9] * 4, symptom="crash")
    assert verdict.reason == "buggy failed in 4/4 runs, fixed in 0/4 (one-sided Fisher p = 0.0143)"
    assert reproduction_verdict([], [0.9] * 4, symptom="crash").reason == "no runs"


def test_a_significant_negligible_effect_says_so() -> None:
    # 401 runs a side, sd 0.125, shift 0.0234375: d = 0.1875 < 0.2, p = 2 sf(0.1875 sqrt(200.5))
    def spread(m: int, scale: float, shift: float) -> list[float]:
        return [shift - scale] * m + [shift] + [shift + scale] * m

    verdict = reproduction_verdict(spread(200, 0.125, 0.0), spread(200, 0.125, 0.0234375))
    assert not verdict.reproduced
    assert verdict.reason == "significant but negligible effect: |d| = 0.188 < 0.2"


def test_a_reason_without_a_test_joins_every_note() -> None:
    # the paired test finds no seed index where both runs succeeded
    verdict = reproduction_verdict([NAN, 0.5, NAN], [0.9, NAN, 0.9], test="wilcoxon", symptom="performance")
    assert verdict.comparison.p_value is None
    assert verdict.reason == (
        "paired test on the 0 seed indexes where both runs succeeded; no pair of successful runs"
    )


def test_an_unknown_symptom_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"^unknown symptom 'slow'; choose one of auto, crash, performance$"):
        reproduction_verdict([1.0], [1.0], symptom="slow")
