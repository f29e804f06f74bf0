"""Every field of a sequential look on each way out (too few runs, efficacy, futility, continue,
planned end), by hand, with the ``spread`` runs of test_rule_boundaries.py: d and p closed forms,
the optimistic bound d + z(1 - alpha_look) * sqrt((n_a + n_b) / (n_a n_b) + d^2 / (2 (n_a + n_b)))."""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from mutreal.stats import deepcrime_kill, reproduction_verdict
from mutreal.stats.sequential import RULE, look_at, sequential_decision


def spread(m: int, scale: float = 1.0, shift: float = 0.0) -> list[float]:
    return [shift - scale] * m + [shift] + [shift + scale] * m


def bound(d: float, n: int, alpha_look: float) -> float:
    return d + float(norm.ppf(1 - alpha_look)) * math.sqrt(2 / n + d * d / (4 * n))


def glm_p(d: float, n: int) -> float:
    return float(2 * norm.sf(abs(d) * math.sqrt(n / 2)))


def fields(look) -> tuple:
    return look.n, look.p_value, look.d_target, look.upper_bound, look.alpha_look, look.stop, look.decision


@pytest.mark.parametrize(
    ("shift", "min_runs", "planned", "effect", "alpha_look", "stop", "decision", "reason"),
    [
        (1.0, 10, 20, 0.5, 0.05 / 10, False, None, "fewer than 10 runs"),
        (1.0, 5, 20, 0.5, 0.05 / 15, False, None, "verdict can still change"),
        (1.5, 5, 20, 0.5, 0.05 / 15, True, True, "efficacy"),
        (1.0, 5, 20, 2.5, 0.05 / 15, True, False, "futility"),
        (1.0, 5, 9, 0.5, 0.05, True, True, "planned runs reached"),
    ],
)
def test_every_field_of_each_kind_of_look(shift, min_runs, planned, effect, alpha_look, stop, decision, reason):
    look = look_at(spread(4, 1.0, shift), spread(4), planned_runs=planned, min_runs=min_runs, effect=effect)
    expected = (9, glm_p(shift, 9), shift, bound(shift, 9, alpha_look), alpha_look)
    # the numbers approximately, the stop and the decision (None on a look that goes on) exactly:
    # pytest >= 9.1 refuses None inside an approx sequence
    assert fields(look)[:5] == pytest.approx(expected, rel=1e-9)
    assert (look.stop, look.decision) == (stop, decision)
    assert look.reason.startswith(reason)


def test_two_runs_a_side_already_give_a_bound() -> None:
    look = look_at([1.0, 2.0], [0.0, 1.0], planned_runs=20, min_runs=2)  # d = 1 / sqrt(1/2)
    assert look.upper_bound == pytest.approx(bound(math.sqrt(2), 2, 0.05 / 18), rel=1e-9)


def test_equal_groups_give_a_positive_zero_target_effect() -> None:
    look = look_at(spread(4), spread(4), planned_runs=20, min_runs=5)
    assert look.d_target == 0.0 and math.copysign(1.0, look.d_target) == 1.0


def test_the_replay_reports_its_min_runs_and_rule() -> None:
    decision = sequential_decision([0.9] * 20, [0.1] * 20, min_runs=3)
    assert decision.min_runs == 3 and decision.rule == RULE


def test_no_mutant_runs_is_no_crash_kill() -> None:
    assert not deepcrime_kill([0.9] * 4, []).killed


def test_a_flagged_buggy_run_with_a_better_metric_is_still_a_win_for_the_fix() -> None:
    # seed 1: the buggy run crashed (flag) although its metric 0.95 beats the fix's 0.9
    verdict = reproduction_verdict([0.5, 0.95, 0.5, 0.5], [0.9] * 4, crashed_buggy=[False, True, False, False])
    assert verdict.fixed_better_share == 1.0
