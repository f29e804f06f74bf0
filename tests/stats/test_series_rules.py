"""The metric series and the correctness matrix every verdict reads: which runs count, which metric
and direction, what a lost run says, and the shape and type of the per-input matrix."""

from __future__ import annotations

import numpy as np
import pytest

from mutreal.analysis.series import (
    LostRuns,
    correctness_matrices,
    correctness_matrix,
    fisher_verdicts,
    metric_series,
)
from mutreal.execution.records import EvaluateRecord, RunRecord
from mutreal.stats.fisher import fisher_kill

from .conftest import correctness, make_records


def _lost(program: str, seed: int, message: str | None) -> RunRecord:
    return RunRecord(key=f"{program}-{seed}", program=program, seed=seed, outcome="lost",
                     error_type="ChannelError" if message else None, error_message=message)  # fmt: skip


def test_lost_runs_are_refused_naming_the_count_the_program_and_the_first_cause() -> None:
    runs = make_records("/bench/bug7/fixed.py", [0.9, 0.8, 0.7])
    runs += [_lost("/bench/bug7/fixed.py", 4, "the service went away"), _lost("/bench/bug7/fixed.py", 3, None)]
    with pytest.raises(LostRuns) as raised:
        metric_series(runs)
    # seed order: the run of seed 3 is the first lost one, and it has no message of its own
    assert str(raised.value) == (
        "2 run(s) of fixed.py were lost (its worker went away); run the same command again to train them"
    )
    with pytest.raises(LostRuns, match=r"^1 run\(s\) of fixed.py were lost \(the service went away\)"):
        metric_series(make_records("/bench/bug7/fixed.py", [0.9]) + [_lost("/bench/bug7/fixed.py", 4, "the service went away")])


def test_a_crashed_run_that_left_a_metric_counts_as_failed_with_no_value() -> None:
    crashed = RunRecord(key="c", program="p.py", seed=1, outcome="crash", metric_name="accuracy", metric_value=0.5,
                        direction="higher", evaluations=[EvaluateRecord(results={"accuracy": 0.5})])  # fmt: skip
    series = metric_series(make_records("p.py", [0.9]) + [crashed])
    assert series.failed.tolist() == [False, True]
    assert series.values[0] == 0.9 and np.isnan(series.values[1])
    assert series.values.dtype == np.float64 and series.failed.dtype == np.bool_


def test_the_first_run_s_metric_and_direction_are_the_series_and_its_program_is_named() -> None:
    first = RunRecord(key="a", program="q.py", seed=0, outcome="ok", metric_name="val_loss", metric_value=0.3,
                      direction="lower", evaluations=[EvaluateRecord(results={"val_loss": 0.3, "accuracy": 0.8})])  # fmt: skip
    second = RunRecord(key="b", program="q.py", seed=1, outcome="ok", metric_name="accuracy", metric_value=0.7,
                       direction="higher", evaluations=[EvaluateRecord(results={"accuracy": 0.7})])  # fmt: skip
    series = metric_series([second, first])
    assert series.program == "q.py" and series.seeds == [0, 1]
    assert series.metric == "val_loss" and series.lower_is_better is True
    assert metric_series([]).program == "" and metric_series([]).metric is None


def test_the_correctness_matrix_is_boolean_runs_by_inputs_and_a_crash_is_wrong_everywhere() -> None:
    runs = make_records("p.py", [0.9, None, 0.8], [[True, False, True], [True, True, True], [False, True, True]])
    matrix = correctness_matrix(runs)
    assert matrix.dtype == np.bool_ and matrix.shape == (3, 3)
    assert matrix.tolist() == [[True, False, True], [False, False, False], [False, True, True]]
    assert correctness_matrix(runs, 4) is None  # the runs have 3 inputs, not 4
    assert correctness_matrix(make_records("p.py", [0.9, 0.8])) is None  # a successful run without it
    assert correctness_matrices(None, runs, runs) == [None, None]
    assert [m.shape for m in correctness_matrices(3, runs, runs)] == [(3, 3), (3, 3)]


def test_fisher_verdicts_read_both_fields_of_a_verdict() -> None:
    """One input wrong in all 6 mutant runs: p = 1/924 kills it (< 0.05) but not over a pool of 100
    inputs (Bonferroni: 0.05 / 100 = 0.0005 < 1/924), so the two fields differ."""
    assert fisher_verdicts(None) == {"fisher_killed": None, "fisher_killed_pool": None}
    verdict = fisher_kill(correctness(6, 100, []), correctness(6, 100, [0]))
    assert fisher_verdicts(verdict) == {"fisher_killed": True, "fisher_killed_pool": False}


def test_a_single_run_names_its_program_and_no_run_gives_boolean_flags() -> None:
    assert metric_series(make_records("solo.py", [0.9])).program == "solo.py"
    empty = metric_series([])
    assert empty.failed.dtype == np.bool_ and empty.values.dtype == np.float64


def test_a_run_that_crashed_after_evaluating_is_wrong_on_every_input() -> None:
    """Its last evaluate() left per-input correctness, but a crash counts as wrong everywhere."""
    crashed = make_records("p.py", [0.9], [[True, True, True]])[0]
    crashed.outcome = "crash"
    crashed.seed, crashed.key = 1, "p-1"
    runs = make_records("p.py", [0.9], [[True, False, True]]) + [crashed]
    assert correctness_matrix(runs).tolist() == [[True, False, True], [False, False, False]]
