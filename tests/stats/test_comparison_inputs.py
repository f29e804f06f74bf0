"""The group comparison's small rules: a tie at a seed is no win, crash flags must match the runs,
an unknown test is named, and the crash p-value of an empty group is 1."""

from __future__ import annotations

import pytest

from mutreal.stats import reproduction_verdict
from mutreal.stats.two_groups import compare_groups, crash_p_value


@pytest.mark.parametrize("lower_is_better", [False, True])
def test_a_tie_at_a_seed_is_no_win_for_either_side(lower_is_better: bool) -> None:
    # seed 0 ties (0.5 and 0.5); seed 1: 0.9 beats 0.5 when higher is better, 0.1 when lower is
    fixed = [0.5, 0.1 if lower_is_better else 0.9]
    verdict = reproduction_verdict([0.5, 0.5], fixed, lower_is_better=lower_is_better)
    assert verdict.fixed_better_share == 0.5


def test_crash_flags_of_another_length_are_refused_with_both_counts() -> None:
    with pytest.raises(ValueError, match="^3 crash flags for 4 runs$"):
        compare_groups([0.5] * 4, [0.5] * 4, crashed_a=[False] * 3)


def test_an_unknown_test_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"^unknown test 'ttest'; choose one of glm, mannwhitney, wilcoxon$"):
        compare_groups([0.5] * 4, [0.5] * 4, test="ttest")


@pytest.mark.parametrize("counts", [(0, 0, 1, 4), (2, 4, 0, 0), (0, 0, 0, 0)])
def test_the_crash_p_value_of_an_empty_group_is_one(counts: tuple[int, int, int, int]) -> None:
    assert crash_p_value(*counts) == 1.0
