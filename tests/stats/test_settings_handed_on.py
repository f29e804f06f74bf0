"""reproduce_from_records and kill_from_records hand every setting on: each test changes one setting away from its default
in a way that changes the verdict, so a setting dropped on the way to the rule is seen (the other
tests use the defaults, where a dropped setting falls back to the same value)."""

from __future__ import annotations

from collections.abc import Sequence

from mutreal.analysis.killing import kill_from_records
from mutreal.analysis.reproduction import reproduce_from_records
from mutreal.analysis.settings import DecisionSettings
from mutreal.execution.records import EvaluateRecord, RunRecord
from mutreal.stats.sequential import RULE, SequentialDecision

from .conftest import correctness, make_records


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


# ------------------------------------------------------------------------------------------ kill


def _decision(runs_saved: int) -> SequentialDecision:
    return SequentialDecision(target="b worse", planned_runs=20, min_runs=5, used_runs=20 - runs_saved,
                              decision=True, stopped_early=runs_saved > 0, runs_saved=runs_saved, rule=RULE)  # fmt: skip


def test_kill_compares_the_named_metric_of_original_and_mutants() -> None:
    original = _runs("o.py", SAME_ACCURACY_FIXED)
    mutant = _runs("m.py", SAME_ACCURACY_BUGGY)
    assert not kill_from_records(original, {"m.py": mutant}).mutants[0].deepcrime.killed
    report = kill_from_records(original, {"m.py": mutant}, settings={"metric": "auc"})
    assert report.original.metric == "auc" and report.mutants[0].series.metric == "auc"
    assert report.mutants[0].deepcrime.killed


def test_kill_takes_the_given_direction_for_original_and_mutants() -> None:
    original = _runs("o.py", [{"accuracy": 0.8, "error": 0.60 + 0.01 * (s % 3)} for s in range(8)])
    mutant = _runs("m.py", [{"accuracy": 0.8, "error": 0.10 + 0.01 * (s % 3)} for s in range(8)])
    by_name = kill_from_records(original, {"m.py": mutant}, settings={"metric": "error"})
    assert not by_name.mutants[0].deepcrime.killed  # a lower error is better: the mutant is no worse
    told = kill_from_records(original, {"m.py": mutant}, settings={"metric": "error", "lower_is_better": False})
    assert told.original.lower_is_better is False and told.mutants[0].series.lower_is_better is False
    assert told.mutants[0].deepcrime.killed


def test_kill_alpha_reaches_deepcrime_fisher_holm_and_the_report() -> None:
    """6 right runs against 6 wrong ones on an input: Fisher's one-sided p is 1 / C(12, 6) = 1/924."""
    n, inputs = 6, 4
    original = make_records("o.py", [0.90, 0.91, 0.92, 0.90, 0.91, 0.92], correctness(n, inputs, []))
    mutant = make_records("m.py", [0.80, 0.81, 0.82, 0.80, 0.81, 0.82], correctness(n, inputs, [0]))
    loose = kill_from_records(original, {"m.py": mutant}).mutants[0]
    assert loose.fisher.killed and loose.fisher.min_p_value == 1 / 924
    assert loose.deepcrime.killed and loose.killed_holm and loose.fisher_killed_holm
    strict = kill_from_records(original, {"m.py": mutant}, settings={"alpha": 1e-4, "test": "mannwhitney"})
    assert strict.alpha == 1e-4 and strict.test == "mannwhitney"
    only = strict.mutants[0]
    assert only.fisher.alpha == 1e-4 and not only.fisher.killed and not only.fisher_killed_holm
    assert only.deepcrime.comparison.test == "mannwhitney" and not only.deepcrime.killed and not only.killed_holm


def test_kill_keeps_each_mutant_s_own_sequential_decision_and_notes_missing_correctness() -> None:
    n, inputs = 6, 4
    original = make_records("o.py", [0.9] * n, correctness(n, inputs, []))
    mutants = {
        "a.py": make_records("a.py", [0.9] * n, correctness(n, inputs, [])),
        "b.py": make_records("b.py", [0.9] * n),  # no per-input correctness
    }
    decisions = {"a.py": _decision(5), "b.py": _decision(10)}
    report = kill_from_records(original, mutants, sequential=decisions)
    by_name = {m.program: m for m in report.mutants}
    assert by_name["a.py"].sequential is decisions["a.py"] and by_name["b.py"].sequential is decisions["b.py"]
    assert report.notes == ["b.py: no per-input correctness (labels, class predictions), no Fisher verdict"]
    assert by_name["a.py"].fisher is not None and by_name["b.py"].fisher is None
    assert kill_from_records(original, mutants).mutants[0].sequential is None
