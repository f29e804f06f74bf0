"""reproduce_from_records hands every setting on: each test changes one setting away from its default
in a way that changes the verdict, so a setting dropped on the way to the rule is seen (the other
tests use the defaults, where a dropped setting falls back to the same value)."""

from __future__ import annotations

from collections.abc import Sequence

from mutreal.analysis.reproduction import reproduce_from_records
from mutreal.analysis.settings import DecisionSettings
from mutreal.execution.records import EvaluateRecord, RunRecord
from mutreal.stats.sequential import RULE, SequentialDecision


def _runs(program: str, metrics: Sequence[dict[str, float]], *, outcome: str = "ok") -> list[RunRecord]:
    """One run per seed; each evaluates to ``metrics[seed]`` (accuracy is the default metric)."""
    return [
        RunRecord(key=f"{program}-{seed}", program=program, seed=seed, outcome=outcome,
                  metric_name="accuracy", metric_value=values.get("accuracy"), direction="higher",
                  evaluations=[EvaluateRecord(results=dict(values))],
                  error_type=None if outcome == "ok" else "ValueError",
                  error_message=None if outcome == "ok" else "boom")
        for seed, values in enumerate(metrics)
    ]  # fmt: skip


def _ok_without_metric(program: str, n: int) -> list[RunRecord]:
    """Runs that ended normally without an evaluate() call: no metric, not a crash."""
    return [RunRecord(key=f"{program}-{s}", program=program, seed=s, outcome="ok") for s in range(n)]


def _crashed(program: str, n: int) -> list[RunRecord]:
    return [
        RunRecord(key=f"{program}-{s}", program=program, seed=s, outcome="crash", error_type="ValueError",
                  error_message="boom")
        for s in range(n)
    ]  # fmt: skip


# accuracy is the same on both sides (no difference); auc is far worse in the buggy program
SAME_ACCURACY_BUGGY = [{"accuracy": 0.80 + 0.01 * (s % 3), "auc": 0.50 + 0.01 * (s % 3)} for s in range(8)]
SAME_ACCURACY_FIXED = [{"accuracy": 0.80 + 0.01 * ((s + 1) % 3), "auc": 0.90 + 0.01 * (s % 3)} for s in range(8)]


def test_the_named_metric_decides_on_both_sides() -> None:
    buggy, fixed = _runs("b.py", SAME_ACCURACY_BUGGY), _runs("f.py", SAME_ACCURACY_FIXED)
    assert not reproduce_from_records(buggy, fixed).verdict.reproduced  # accuracy: no difference
    report = reproduce_from_records(buggy, fixed, settings={"metric": "auc"})
    assert report.buggy.metric == "auc" and report.fixed.metric == "auc"
    assert report.verdict.reproduced


def test_a_given_direction_overrides_the_metric_name_on_both_sides() -> None:
    """``error`` reads as lower-is-better by its name; told higher-is-better, the fixed program's
    higher values are the better ones and the fault reproduces."""
    buggy = _runs("b.py", [{"accuracy": 0.8, "error": 0.10 + 0.01 * (s % 3)} for s in range(8)])
    fixed = _runs("f.py", [{"accuracy": 0.8, "error": 0.60 + 0.01 * (s % 3)} for s in range(8)])
    by_name = reproduce_from_records(buggy, fixed, settings={"metric": "error"})
    assert by_name.buggy.lower_is_better and not by_name.verdict.reproduced
    told = reproduce_from_records(buggy, fixed, settings={"metric": "error", "lower_is_better": False})
    assert told.buggy.lower_is_better is False and told.fixed.lower_is_better is False
    assert told.verdict.reproduced and told.verdict.comparison.lower_is_better is False


def test_a_fixed_program_that_ends_without_evaluate_did_not_fail() -> None:
    """The crash flags reach the rule: a fixed run with no metric but outcome ok is no failure, so
    a buggy program that crashes every time is a reproduced crash."""
    verdict = reproduce_from_records(_crashed("b.py", 5), _ok_without_metric("f.py", 5)).verdict
    assert verdict.symptom == "crash" and verdict.reproduced and verdict.stable
    assert verdict.failed_buggy == 5 and verdict.failed_fixed == 0


def test_a_buggy_run_that_crashed_after_evaluating_counts_as_failed() -> None:
    """A buggy run that left a metric and then crashed is flagged by its outcome, not by its metric."""
    buggy = _runs("b.py", [{"accuracy": 0.8}] * 5, outcome="crash")
    verdict = reproduce_from_records(buggy, _runs("f.py", [{"accuracy": 0.8}] * 5)).verdict
    assert verdict.symptom == "crash" and verdict.failed_buggy == 5 and verdict.reproduced


def test_the_symptom_asked_for_is_the_rule_applied() -> None:
    """Asked for the performance rule, a buggy program that always crashes has no metric to compare."""
    buggy, fixed = _crashed("b.py", 5), _runs("f.py", [{"accuracy": 0.8 + 0.01 * s} for s in range(5)])
    assert reproduce_from_records(buggy, fixed).verdict.symptom == "crash"
    asked = reproduce_from_records(buggy, fixed, symptom="performance").verdict
    assert asked.symptom == "performance" and not asked.reproduced


def test_test_and_alpha_reach_the_comparison() -> None:
    buggy = _runs("b.py", [{"accuracy": 0.70 + 0.02 * (s % 4)} for s in range(6)])
    fixed = _runs("f.py", [{"accuracy": 0.74 + 0.02 * (s % 4)} for s in range(6)])
    default = reproduce_from_records(buggy, fixed).verdict
    assert default.reproduced and default.comparison.p_value > 1e-6
    strict = reproduce_from_records(buggy, fixed, settings=DecisionSettings(alpha=1e-6)).verdict
    assert strict.comparison.alpha == 1e-6 and not strict.reproduced
    mann_whitney = reproduce_from_records(buggy, fixed, settings={"test": "mannwhitney"}).verdict
    assert mann_whitney.comparison.test == "mannwhitney"


def test_the_sequential_decision_is_kept_on_the_report() -> None:
    decision = SequentialDecision(target="b better", planned_runs=20, min_runs=5, used_runs=5, decision=True,
                                  stopped_early=True, runs_saved=15, rule=RULE)  # fmt: skip
    report = reproduce_from_records(_crashed("b.py", 5), _ok_without_metric("f.py", 5), sequential=decision)
    assert report.sequential is decision
    assert report.to_dict()["sequential"]["runs_saved"] == 15
