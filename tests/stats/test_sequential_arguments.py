"""The sequential replay (``sequential_decision``) with every argument away from its default.

The default-argument tests (test_rule_boundaries.py, test_reproduction_sequential.py) stop at the
first look; here the runs are built so that no interim look stops, and the look points, the
per-look alpha and the final ordinary rule can be read by hand.

``ALT`` is ``0, -1, 1, -1, 1, ...``: every odd-length prefix has mean 0 and sample sd exactly 1
(sum of squares n - 1 over n - 1 degrees of freedom). ``a = 1 + ALT`` against ``b = ALT`` has, at
every odd look n, Cohen's d = 1 exactly ("b worse" by 1) and the GLM p-value
``2 * norm.sf(sqrt(n / 2))``: 0.114 at n = 5 ... 0.0339 at n = 9, never below alpha / L (at most
0.0125 for any split used here), and the optimistic bound of d stays far above 0.5, so every
interim look continues.
"""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from mutreal.stats.sequential import sequential_decision


def alternating(n: int) -> list[float]:
    return [0.0] + [(-1.0) ** k for k in range(1, n)]


def worse_by_one(n: int) -> tuple[list[float], list[float]]:
    """(a, b): b is a shifted down by exactly one sd at every odd prefix."""
    b = alternating(n)
    return [1.0 + x for x in b], b


def glm_p(d: float, n: int) -> float:
    return float(2 * norm.sf(abs(d) * math.sqrt(n / 2)))


def test_fewer_runs_than_planned_decide_by_the_ordinary_rule_on_all_of_them() -> None:
    # 9 pairs of a planned 20: looks at 5..9 are all interim (alpha / 15) and continue; at the end
    # of the data the ordinary rule decides: p = 0.0339 < 0.05 and d = 1 >= 0.5 -> "b worse"
    a, b = worse_by_one(9)
    decision = sequential_decision(a, b, planned_runs=20)
    assert [look.n for look in decision.looks] == [5, 6, 7, 8, 9]
    assert not any(look.stop for look in decision.looks)
    assert all(look.alpha_look == 0.05 / 15 for look in decision.looks)
    last = decision.looks[-1]
    assert last.d_target == 1.0 and last.p_value == pytest.approx(glm_p(1.0, 9), rel=1e-9)
    assert decision.decision is True
    assert decision.planned_runs == 20 and decision.used_runs == 9
    assert decision.stopped_early and decision.runs_saved == 2 * (20 - 9)


def test_the_final_rule_uses_the_given_alpha_and_effect() -> None:
    a, b = worse_by_one(9)
    # alpha 0.01: the per-look alpha is 0.01 / 15 and the final p = 0.0339 is no longer below it
    strict = sequential_decision(a, b, planned_runs=20, alpha=0.01)
    assert all(look.alpha_look == 0.01 / 15 for look in strict.looks)
    assert strict.decision is False
    # effect 1.25: d = 1 falls short; effect exactly 1: d = 1 suffices (inclusive); 1.005 is just
    # above the last look's d = 1 (the look before, n = 8, has d = 1.009: it is not the one read)
    assert sequential_decision(a, b, planned_runs=20, effect=1.25).decision is False
    assert sequential_decision(a, b, planned_runs=20, effect=1.0).decision is True
    assert sequential_decision(a, b, planned_runs=20, effect=1.005).decision is False


def test_the_final_rule_needs_p_strictly_below_alpha() -> None:
    a, b = worse_by_one(9)
    p = sequential_decision(a, b, planned_runs=20).looks[-1].p_value
    assert p == pytest.approx(glm_p(1.0, 9), rel=1e-9)
    assert sequential_decision(a, b, planned_runs=20, alpha=p).decision is False
    assert sequential_decision(a, b, planned_runs=20, alpha=math.nextafter(p, 1.0)).decision is True


def test_the_effect_reaches_the_interim_looks() -> None:
    # 40 planned and run, looks at alpha / 35 = 0.00143: at n = 21 p = 2 sf(sqrt(10.5)) = 0.0012
    # and d = 1, so efficacy stops there for the default effect 0.5; for effect 1.5 no look stops
    # early (the optimistic bound 1 + 2.98 * 1.5 / sqrt(n) stays above 1.5 up to n = 80) and the
    # planned end decides: d = 1 < 1.5
    a, b = worse_by_one(40)
    default = sequential_decision(a, b, planned_runs=40)
    assert default.used_runs == 21 and default.decision is True
    assert default.looks[-1].reason.startswith("efficacy")
    large = sequential_decision(a, b, planned_runs=40, effect=1.5)
    assert large.used_runs == 40 and not large.stopped_early and large.decision is False


def test_planned_runs_beyond_the_data_is_what_the_saving_is_counted_from() -> None:
    # perfect separation stops at the first look, n = 5; 12 pairs exist but 30 were planned
    decision = sequential_decision([0.9] * 12, [0.1] * 12, planned_runs=30)
    assert decision.used_runs == 5 and decision.planned_runs == 30
    assert decision.runs_saved == 2 * 25
    assert decision.looks[0].alpha_look == 0.05 / 25  # interim looks at 5..29


def test_a_step_puts_the_looks_every_step_runs_and_the_last_data_point_last() -> None:
    # planned 20, step 2: interim looks at 5, 7, ..., 19 -> L = 8, alpha / 8 each; the data end at 9
    a, b = worse_by_one(9)
    decision = sequential_decision(a, b, planned_runs=20, step=2)
    assert [look.n for look in decision.looks] == [5, 7, 9]
    assert all(look.alpha_look == 0.05 / 8 for look in decision.looks)
    # 10 pairs: the looks at 5, 7, 9 and then the last pair, 10, which is not on the step grid
    a, b = worse_by_one(10)
    decision = sequential_decision(a, b, planned_runs=20, step=2)
    assert [look.n for look in decision.looks] == [5, 7, 9, 10]


def test_the_planned_end_is_looked_at_even_off_the_step_grid_and_data_beyond_it_unused() -> None:
    # 11 pairs, planned 10, step 2: looks at 5, 7, 9 (alpha / 3) and the final look at 10 exactly
    a, b = worse_by_one(11)
    decision = sequential_decision(a, b, planned_runs=10, step=2)
    assert [look.n for look in decision.looks] == [5, 7, 9, 10]
    assert [look.alpha_look for look in decision.looks] == [0.05 / 3] * 3 + [0.05]
    assert decision.looks[-1].reason == "planned runs reached"
    assert decision.used_runs == 10 and not decision.stopped_early and decision.runs_saved == 0


def test_min_runs_sets_the_first_look_and_the_alpha_split() -> None:
    # min_runs 3: looks from 3; perfect separation stops there, with alpha / 17 (looks 3..19)
    decision = sequential_decision([0.9] * 20, [0.1] * 20, min_runs=3)
    assert decision.used_runs == 3 and decision.looks[0].n == 3
    assert decision.looks[0].alpha_look == 0.05 / 17
    # min_runs 1: the first look is at a single pair (no p-value yet), the second can stop
    a, b = worse_by_one(9)
    decision = sequential_decision(a, b, planned_runs=20, min_runs=1)
    assert [look.n for look in decision.looks] == list(range(1, 10))
    assert decision.looks[0].p_value is None and not decision.looks[0].stop


def test_fewer_pairs_than_min_runs_give_no_look_and_no_effect() -> None:
    decision = sequential_decision([0.9, 0.9, 0.9], [0.1, 0.1, 0.1], planned_runs=20)
    assert decision.looks == []
    assert decision.decision is False and decision.used_runs == 3


def test_crash_flags_of_both_groups_take_their_runs_out_of_the_look() -> None:
    # a = 0 0 1 2 2 | 999 (crashed), b = -1 -1 0 1 1 | -999 (crashed): without the crashed pair
    # d = 1 exactly and p = 2 sf(sqrt(2.5)) = 0.114 at the single, final look
    a = [0.0, 0.0, 1.0, 2.0, 2.0, 999.0]
    b = [-1.0, -1.0, 0.0, 1.0, 1.0, -999.0]
    flags = [False] * 5 + [True]
    decision = sequential_decision(a, b, min_runs=6, crashed_a=flags, crashed_b=flags)
    look = decision.looks[0]
    assert look.n == 6 and look.d_target == 1.0
    assert look.p_value == pytest.approx(glm_p(1.0, 5), rel=1e-9)
    # one side's flag alone leaves that side's outlier in: d is no longer 1
    only_b = sequential_decision(a, b, min_runs=6, crashed_b=flags)
    only_a = sequential_decision(a, b, min_runs=6, crashed_a=flags)
    assert only_b.looks[0].d_target != 1.0 and only_a.looks[0].d_target != 1.0


def test_direction_and_target_reach_every_look() -> None:
    # a loss: b's 0.9 against a's 0.1 is worse when lower is better, better otherwise
    lower = sequential_decision([0.1] * 20, [0.9] * 20, lower_is_better=True)
    assert lower.decision is True and lower.used_runs == 5
    higher = sequential_decision([0.1] * 20, [0.9] * 20)
    assert higher.decision is False and higher.looks[-1].reason.startswith("futility")
    better = sequential_decision([0.1] * 20, [0.9] * 20, target="b better")
    assert better.decision is True and better.target == "b better"
