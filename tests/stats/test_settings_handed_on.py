"""reproduce_from_records and kill_from_records hand every setting on: each test changes one setting away from its default
in a way that changes the verdict, so a setting dropped on the way to the rule is seen (the other
tests use the defaults, where a dropped setting falls back to the same value)."""

from __future__ import annotations

from collections.abc import Sequence

from mutreal.analysis.killing import kill_from_records
from mutreal.analysis.reproduction import reproduce_from_records
from mutreal.analysis.settings import DecisionSettings
from mutreal.analysis.similarity import compare_from_records
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


def test_a_buggy_program_that_ends_without_evaluate_did_not_crash() -> None:
    """No metric but outcome ok on the buggy side: no crash (the flags say so), and with no metric to
    compare the fault is not reproduced, rather than read as a buggy program failing every run."""
    verdict = reproduce_from_records(_ok_without_metric("b.py", 5), _runs("f.py", [{"accuracy": 0.8}] * 5)).verdict
    assert verdict.symptom == "performance" and not verdict.reproduced
    assert verdict.reason == "a group has no successful runs"


def test_the_buggy_side_is_read_with_the_fixed_side_s_metric_and_direction() -> None:
    """The two programs' runs name different default metrics and directions: the buggy one is read
    the fixed one's way (the fixed program's model has the task the program is for), so both series
    compare the same quantity in the same direction."""
    buggy = [RunRecord(key=f"b-{s}", program="b.py", seed=s, outcome="ok", metric_name="accuracy",
                       metric_value=0.9, direction="higher",
                       evaluations=[EvaluateRecord(results={"error": 0.50 + 0.01 * (s % 3), "accuracy": 0.9})])
             for s in range(6)]  # fmt: skip
    fixed = [RunRecord(key=f"f-{s}", program="f.py", seed=s, outcome="ok", metric_name="error",
                       metric_value=0.1, direction="lower",
                       evaluations=[EvaluateRecord(results={"accuracy": 0.9, "error": 0.10 + 0.01 * (s % 3)})])
             for s in range(6)]  # fmt: skip
    report = reproduce_from_records(buggy, fixed)
    assert report.buggy.metric == report.fixed.metric == "error"
    assert report.buggy.lower_is_better is True and report.fixed.lower_is_better is True
    assert report.verdict.reproduced  # the fixed program's error is far lower
    # without any metric on the fixed side (it crashed in every run) the buggy side's is used
    crashed = [RunRecord(key=f"c-{s}", program="f.py", seed=s, outcome="crash", error_type="ValueError",
                         traceback="Traceback", error_message="boom") for s in range(6)]  # fmt: skip
    assert reproduce_from_records(buggy, crashed).to_dict()["metric"] == "accuracy"


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


# --------------------------------------------------------------------------------------- compare


def test_jaccard_of_killing_inputs_by_hand() -> None:
    from mutreal.analysis.similarity import _jaccard

    assert _jaccard([0, 1], [1, 2]) == 1 / 3
    assert _jaccard([0, 1], [0, 1]) == 1.0
    assert _jaccard([0], []) == 0.0 and _jaccard([], [3]) == 0.0
    assert _jaccard([], []) is None  # neither kills anywhere: nothing to compare


def test_compare_uses_the_named_metric_and_direction_for_fault_and_mutants() -> None:
    fixed = _runs("f.py", SAME_ACCURACY_FIXED)
    buggy = _runs("b.py", SAME_ACCURACY_BUGGY)
    mutant = _runs("m.py", SAME_ACCURACY_BUGGY)
    plain = compare_from_records(buggy, fixed, {"m.py": mutant})
    assert not plain.fault_kill.killed and not plain.mutants[0].kill.killed
    named = compare_from_records(buggy, fixed, {"m.py": mutant}, settings={"metric": "auc"})
    assert named.fixed.metric == named.buggy.metric == named.mutants[0].series.metric == "auc"
    assert named.fault_kill.killed and named.mutants[0].kill.killed and named.mutants[0].killing_agreement
    told = compare_from_records(buggy, fixed, {"m.py": mutant}, settings={"metric": "auc", "lower_is_better": True})
    assert told.buggy.lower_is_better and told.mutants[0].series.lower_is_better
    assert told.mutants[0].versus_fault.lower_is_better is True
    assert not told.fault_kill.killed  # a lower auc is now the better one


def test_compare_fisher_agreement_jaccard_alpha_and_test_by_hand() -> None:
    """Fault wrong on inputs 0 and 1 in every run, one mutant on 1 and 2, one nowhere: Fisher kills
    the fault and the first mutant (p = 1/924 < 0.05 on each killing input), not the second."""
    n, inputs = 6, 4
    fixed = make_records("f.py", [0.90, 0.91, 0.92, 0.90, 0.91, 0.92], correctness(n, inputs, []))
    buggy = make_records("b.py", [0.80, 0.81, 0.82, 0.80, 0.81, 0.82], correctness(n, inputs, [0, 1]))
    mutants = {
        "like.py": make_records("like.py", [0.80, 0.81, 0.82, 0.80, 0.81, 0.82], correctness(n, inputs, [1, 2])),
        "unlike.py": make_records("unlike.py", [0.90, 0.91, 0.92, 0.90, 0.91, 0.92], correctness(n, inputs, [])),
    }
    report = compare_from_records(buggy, fixed, mutants)
    like, unlike = report.mutants
    assert report.fault_fisher.killed and report.fault_fisher.killing_inputs == [0, 1]
    assert like.fisher.killed and like.fisher_agreement is True and like.fisher_input_jaccard == 1 / 3
    assert not unlike.fisher.killed and unlike.fisher_agreement is False and unlike.fisher_input_jaccard == 0.0
    assert report.fault_kp is not None and like.similarity is not None and report.notes == []
    strict = compare_from_records(buggy, fixed, mutants, settings={"alpha": 1e-4, "test": "mannwhitney"})
    assert strict.fault_fisher.alpha == 1e-4 and not strict.fault_fisher.killed
    assert strict.mutants[0].fisher.alpha == 1e-4 and not strict.mutants[0].fisher.killed
    assert strict.mutants[0].fisher_agreement is True  # neither is killed at that level
    assert strict.mutants[0].versus_fault.test == "mannwhitney" and strict.mutants[0].versus_fault.alpha == 1e-4


def test_compare_notes_what_has_no_per_input_correctness() -> None:
    n, inputs = 6, 4
    fixed = make_records("f.py", [0.9] * n, correctness(n, inputs, []))
    buggy = make_records("b.py", [0.8] * n, correctness(n, inputs, [0]))
    bare = make_records("bare.py", [0.8] * n)
    report = compare_from_records(buggy, fixed, {"bare.py": bare})
    assert report.notes == ["bare.py: no per-input correctness, no KP, CS, IoU"]
    only = report.mutants[0]
    assert only.fisher is None and only.kp is None and only.similarity is None and only.fisher_agreement is None
    no_pair = compare_from_records(make_records("b.py", [0.8] * n), fixed, {"bare.py": bare})
    assert no_pair.notes[0] == "no per-input correctness for the fixed/buggy pair: no KP, CS, IoU"
    assert no_pair.fault_fisher is None and no_pair.fault_kp is None


def _named(program: str, name: str, direction: str, values: Sequence[dict[str, float]],
           correct: Sequence[Sequence[bool]] | None = None) -> list[RunRecord]:
    """Runs whose own default metric is ``name`` (what their last evaluate() named first)."""
    runs = []
    for seed, results in enumerate(values):
        evaluation = EvaluateRecord(results=dict(results))
        if correct is not None:
            evaluation.labels = [1] * len(correct[seed])
            evaluation.predictions = [1 if ok else 0 for ok in correct[seed]]
            evaluation.prediction_kind = "class"
            evaluation.n_inputs = len(correct[seed])
        runs.append(RunRecord(key=f"{program}-{seed}", program=program, seed=seed, outcome="ok", metric_name=name,
                              metric_value=results[name], direction=direction, evaluations=[evaluation]))  # fmt: skip
    return runs


def test_mutants_are_read_with_the_original_s_metric_not_their_own_default() -> None:
    original = _named("o.py", "auc", "higher", [{"auc": 0.90 + 0.01 * (s % 3), "accuracy": 0.8} for s in range(8)])
    mutant = _named("m.py", "accuracy", "higher", [{"auc": 0.50 + 0.01 * (s % 3), "accuracy": 0.8} for s in range(8)])
    kill = kill_from_records(original, {"m.py": mutant})
    assert kill.mutants[0].series.metric == "auc" and kill.mutants[0].deepcrime.killed
    fixed, buggy = original, _named("b.py", "accuracy", "higher", [{"auc": 0.5 + 0.01 * (s % 3), "accuracy": 0.8} for s in range(8)])
    compared = compare_from_records(buggy, fixed, {"m.py": mutant})
    assert compared.buggy.metric == compared.mutants[0].series.metric == "auc"
    assert compared.fault_kill.killed and compared.mutants[0].kill.killed


def test_an_original_that_always_crashed_still_gets_a_fisher_verdict_from_the_mutant_s_inputs() -> None:
    """Every original run wrong everywhere (crashed): the input count comes from the mutant's runs,
    and no mutant can be worse than that."""
    original = make_records("o.py", [None] * 6)
    mutant = make_records("m.py", [0.9] * 6, correctness(6, 4, [0]))
    only = kill_from_records(original, {"m.py": mutant}).mutants[0]
    assert only.fisher is not None and only.fisher.n_inputs == 4 and not only.fisher.killed


def test_inputs_are_counted_from_the_fixed_program_first() -> None:
    """Fixed and mutant evaluate 4 inputs, the buggy program 5: the fault has no per-input pairing
    (no Fisher verdict, a note), the mutant is still paired with the fixed program."""
    n = 6
    fixed = make_records("f.py", [0.9] * n, correctness(n, 4, []))
    buggy = make_records("b.py", [0.8] * n, correctness(n, 5, [0]))
    mutant = make_records("m.py", [0.8] * n, correctness(n, 4, [0]))
    report = compare_from_records(buggy, fixed, {"m.py": mutant})
    assert report.fault_fisher is None and report.notes == ["no per-input correctness for the fixed/buggy pair: no KP, CS, IoU"]
    assert report.mutants[0].fisher is not None and report.mutants[0].fisher.killed


def test_a_mutant_with_another_input_count_is_not_paired() -> None:
    n = 6
    fixed = make_records("f.py", [0.9] * n, correctness(n, 4, []))
    buggy = make_records("b.py", [0.8] * n, correctness(n, 4, [0]))
    other = make_records("other.py", [0.8] * n, correctness(n, 5, [0]))
    report = compare_from_records(buggy, fixed, {"other.py": other})
    assert report.fault_fisher is not None and report.mutants[0].fisher is None
    assert report.notes == ["other.py: no per-input correctness, no KP, CS, IoU"]


def test_the_buggy_side_takes_the_fixed_side_s_direction_when_none_is_given() -> None:
    """Both sides name the metric ``score`` (no direction in its name) but record opposite
    directions: the buggy side is read the fixed side's way, not its own."""
    buggy = _named("b.py", "score", "higher", [{"score": 0.50 + 0.01 * (s % 3)} for s in range(6)])
    fixed = _named("f.py", "score", "lower", [{"score": 0.10 + 0.01 * (s % 3)} for s in range(6)])
    report = reproduce_from_records(buggy, fixed)
    assert report.buggy.lower_is_better is True and report.fixed.lower_is_better is True
    assert report.verdict.reproduced  # a lower score is better, and the fixed one is far lower
