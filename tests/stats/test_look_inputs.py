"""One interim look (``look_at``) on the inputs a live campaign hands it: crash flags next to lost
metrics, flags as 0/1 integers, runs as a row, a lost metric as None, a plan that allows no
interim look, the defaults, and a clear error for an unknown target.

The runs are ``a = 0 0 1 2 2`` and ``b = -1 -1 0 1 1`` (means 1 and 0, sample sd exactly 1: d = 1,
p = 2 sf(sqrt(5 / 2)) = 0.114) plus runs that must be left out: a crashed pair with wild metrics
and a pair with no metric. Any of them left in moves d off 1.
"""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from mutreal.stats.sequential import interim_look_count, look_at

NAN = math.nan
A = [0.0, 0.0, 1.0, 2.0, 2.0, 999.0, NAN]
B = [-1.0, -1.0, 0.0, 1.0, 1.0, -999.0, NAN]
FLAGS = [False] * 5 + [True, False]  # the NaN pair is not flagged: it is lost all the same
P_FIVE = float(2 * norm.sf(math.sqrt(5 / 2)))


def test_flagged_runs_and_runs_without_a_metric_are_both_left_out() -> None:
    look = look_at(A, B, planned_runs=7, min_runs=5, crashed_a=FLAGS, crashed_b=FLAGS)
    assert look.n == 7 and look.d_target == 1.0
    assert look.p_value == pytest.approx(P_FIVE, rel=1e-9)


@pytest.mark.parametrize("side", ["a", "b"])
def test_each_side_s_flags_are_read(side: str) -> None:
    flags = {"crashed_a": FLAGS, "crashed_b": FLAGS}
    del flags[f"crashed_{side}"]
    assert look_at(A, B, planned_runs=7, min_runs=5, **flags).d_target != 1.0


def test_flags_as_integers_and_runs_as_a_row_read_the_same() -> None:
    ints = [int(flag) for flag in FLAGS]
    assert look_at(A, B, planned_runs=7, min_runs=5, crashed_a=ints, crashed_b=ints).d_target == 1.0
    row = look_at([A], [B], planned_runs=7, min_runs=5, crashed_a=[FLAGS], crashed_b=[FLAGS])
    assert row.n == 7 and row.d_target == 1.0


def test_a_lost_metric_given_as_none_is_left_out() -> None:
    look = look_at(A[:5] + [None], B[:5] + [None], planned_runs=6, min_runs=5)
    assert look.d_target == 1.0 and look.p_value == pytest.approx(P_FIVE, rel=1e-9)


def test_a_plan_with_no_interim_look_uses_the_full_alpha_before_its_end() -> None:
    # planned 5 = min_runs 5: no interim look at all; 3 runs in, nothing is decided yet
    assert interim_look_count(5, 5) == 0
    look = look_at([0.9] * 3, [0.1] * 3, planned_runs=5, min_runs=5)
    assert look.alpha_look == 0.05 and not look.stop and look.reason == "fewer than 5 runs"


def test_the_defaults_are_five_runs_and_a_look_after_every_run() -> None:
    assert interim_look_count(20, 5) == 15
    assert look_at([0.9] * 4, [0.1] * 4, planned_runs=20).reason == "fewer than 5 runs"
    look = look_at([0.9] * 5, [0.1] * 5, planned_runs=20)
    assert look.stop and look.decision is True and look.alpha_look == 0.05 / 15


def test_an_unknown_target_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"^unknown target 'b faster'; choose one of b better, b worse$"):
        look_at([1.0], [1.0], planned_runs=5, target="b faster")
