"""The analysis rows say which inputs per-input correctness is on, and pair only runs on the same inputs.

A program that never evaluates is judged on its validation or training data (recorded by the
runner with a ``source``); KP, coupling and IoU are made from the fixed program's inputs, so the
buggy program or a mutant measured on other inputs gets a note, never a KP over unrelated inputs.
The compared metric of a regression model is its loss, and the row says why. No training.
"""

from __future__ import annotations

from mutreal.analysis.series import metric_series, per_input_mismatch, per_input_set
from mutreal.analysis.similarity import compare_from_records
from mutreal.execution.records import EvaluateRecord, FitRecord, RunRecord

REGRESSION_TASK = {"kind": "regression", "loss": "mse", "activation": "linear"}


def _runs(program: str, source: str, rows: list[list[bool]], accuracy: float = 0.9) -> list[RunRecord]:
    """Completed runs of a fit-only program whose per-input record is on ``source``."""
    runs = []
    for seed, row in enumerate(rows):
        fit = FitRecord(history={"loss": [0.5], "accuracy": [accuracy]}, epochs=1,
                        task={"kind": "classification", "loss": "sparse_categorical_crossentropy"})  # fmt: skip
        after = EvaluateRecord(source=source, n_inputs=len(row), predictions=[1 if ok else 0 for ok in row],
                               labels=[1] * len(row), prediction_kind="class")  # fmt: skip
        runs.append(RunRecord(f"{program}-{seed}", program, seed, "ok", metric_name="accuracy",
                              metric_value=accuracy, fits=[fit], evaluations=[after]))  # fmt: skip
    return runs


def test_a_series_says_which_set_and_how_many_inputs() -> None:
    runs = _runs("fixed.py", "training", [[True, True, False]] * 3)
    found = per_input_set(runs)
    assert found == {"source": "training", "n_inputs": 3, "runs": 3,
                     "set": "its training data (the arrays passed to fit; DeepCrime measures killability there)"}  # fmt: skip
    series = metric_series(runs).to_dict()
    assert series["per_input"]["source"] == "training" and series["repeated"] == 0
    assert series["metric"] == "accuracy" and "accuracy-like" in series["metric_reason"]


def test_fault_and_mutants_are_paired_with_the_fixed_program_on_its_inputs_only() -> None:
    fixed = _runs("fixed.py", "training", [[True] * 4] * 5)
    buggy = _runs("buggy.py", "training", [[False, True, True, True]] * 5, accuracy=0.5)
    same = _runs("m_same.py", "training", [[False, True, True, True]] * 5, accuracy=0.5)
    other = _runs("m_vrm.py", "validation", [[False, True, True, True]] * 5, accuracy=0.5)  # VRM-like: no split
    assert per_input_mismatch(fixed, buggy) is None
    assert "different sets (training, validation)" in per_input_mismatch(fixed, other)
    report = compare_from_records(buggy, fixed, {"m_same.py": same, "m_vrm.py": other})
    paired, unpaired = report.mutants
    assert report.fault_kp is not None and report.fault_kp.kp[0] == 1.0
    assert paired.similarity is not None and paired.similarity.coupling_strength == 1.0
    assert unpaired.kp is None and unpaired.similarity is None
    assert any(note.startswith("m_vrm.py: per-input correctness is on different sets") for note in report.notes)
    data = report.to_dict()
    assert data["per_input"]["source"] == "training" and data["metric"] == "accuracy"


def test_a_regression_series_compares_its_loss_and_says_why() -> None:
    runs = []
    for seed, loss in enumerate([2.0, 2.2, 1.9]):
        evaluation = EvaluateRecord(results={"loss": loss, "accuracy": 0.0}, task=REGRESSION_TASK)
        record = RunRecord(f"r-{seed}", "reg.py", seed, "ok", evaluations=[evaluation])
        record.metric_name = None  # as a stored run: chosen again from its results
        runs.append(record)
    series = metric_series(runs)
    assert series.metric == "loss" and series.lower_is_better is True
    assert list(series.values) == [2.0, 2.2, 1.9]
    assert series.metric_reason.startswith("loss: a regression model (loss mse, last activation linear)")
    given = metric_series(runs, "accuracy")
    assert given.metric_reason.startswith("accuracy: chosen by the user")


def test_kill_notes_say_why_a_mutant_has_no_fisher_verdict_and_that_the_original_crashes_untrained() -> None:
    from mutreal.analysis.killing import kill_from_records

    original = _runs("orig.py", "training", [[True] * 4] * 3)
    other = _runs("m_vrm.py", "validation", [[False, True, True, True]] * 3, accuracy=0.5)
    report = kill_from_records(original, {"m_vrm.py": other})
    assert report.mutants[0].fisher is None
    assert any(n.startswith("m_vrm.py: per-input correctness is on different sets") for n in report.notes)
    # an original that crashed before its first epoch: its repeated runs are said, as compare says them
    crash = RunRecord("broken-0", "broken.py", 0, "crash", error_type="ImportError", error_message="no module x",
                      traceback="Traceback ...\nImportError: no module x")  # fmt: skip
    repeated = [RunRecord(f"broken-{s}", "broken.py", s, "crash", error_type="ImportError",
                          error_message="no module x", repeated_from="broken-0") for s in (1, 2)]  # fmt: skip
    report = kill_from_records([crash, *repeated], {"m_vrm.py": other})
    assert any("broken.py crashed before its first epoch in seed 0" in n for n in report.notes)


def _relabelled(runs: list[RunRecord], labels: list[int]) -> list[RunRecord]:
    for run in runs:
        run.evaluations[-1].labels = list(labels)
    return runs


def test_runs_on_training_data_with_other_labels_are_not_paired() -> None:
    """A TCL-like mutant (or a data fault) judged on its own training arrays has other labels: its
    correctness is against them, so pairing it with the fixed program's inputs would be wrong."""
    fixed = _runs("fixed.py", "training", [[True] * 4] * 3)
    relabelled = _relabelled(_runs("m_tcl.py", "training", [[True] * 4] * 3), [0, 1, 1, 1])
    same = _runs("m_hlr.py", "training", [[False, True, True, True]] * 3, accuracy=0.5)
    assert per_input_mismatch(fixed, same) is None
    assert "labels differ between the programs" in per_input_mismatch(fixed, relabelled)
    report = compare_from_records(same, fixed, {"m_tcl.py": relabelled})
    (tcl,) = report.mutants
    assert report.fault_kp is not None and tcl.kp is None and tcl.similarity is None
    assert any(n.startswith("m_tcl.py: per-input correctness is on each program's own training data")
               for n in report.notes)  # fmt: skip
    # one program whose runs judged other labels (arrays shuffled without a seed): no pairing either
    shuffled = _runs("fixed.py", "training", [[True] * 4] * 2)
    _relabelled(shuffled[1:], [0, 1, 1, 1])
    assert per_input_set(shuffled)["source"] == "mixed"


def test_a_fixed_program_that_always_crashed_pairs_the_others_with_the_buggy_inputs() -> None:
    """With no fixed inputs to pair with (every fixed run failed: wrong on every input), the buggy
    program's inputs are the reference: a mutant judged on other inputs gets no KP against them."""
    fixed = [RunRecord(f"f-{seed}", "fixed.py", seed, "crash", error_type="ValueError") for seed in range(3)]
    buggy = _runs("buggy.py", "training", [[True, True, False, True]] * 3)
    same = _runs("m_same.py", "training", [[True, False, False, True]] * 3)
    other = _runs("m_vrm.py", "validation", [[True, True, False, True]] * 3)
    report = compare_from_records(buggy, fixed, {"m_same.py": same, "m_vrm.py": other})
    paired, unpaired = report.mutants
    assert report.fault_kp is not None and paired.kp is not None
    assert unpaired.kp is None and unpaired.similarity is None
    assert any(n.startswith("m_vrm.py: per-input correctness is on different sets") for n in report.notes)


def test_a_program_whose_runs_judged_other_data_says_so() -> None:
    """A test set split without a fixed seed differs per run: no KP, and the note says why."""
    fixed = _runs("fixed.py", "evaluate", [[True] * 4] * 3)
    _relabelled(fixed[1:2], [0, 1, 1, 1])
    buggy = _runs("buggy.py", "evaluate", [[False, True, True, True]] * 3)
    report = compare_from_records(buggy, fixed, {})
    assert report.fault_kp is None
    assert any("differs between the runs of one program" in n for n in report.notes), report.notes


def _evaluating_runs(program: str, rows: list[list[bool]], validation: list[list[bool]] | None) -> list[RunRecord]:
    """Completed runs of a program that evaluates a test set (and, recorded after it, its validation data)."""
    runs = []
    for seed, row in enumerate(rows):
        fit = FitRecord(history={"loss": [0.5], "accuracy": [0.8]}, epochs=1)
        own = EvaluateRecord(results={"loss": 0.4, "accuracy": sum(row) / len(row)}, n_inputs=len(row),
                             predictions=[1 if ok else 0 for ok in row], labels=[1] * len(row), prediction_kind="class")  # fmt: skip
        evaluations = [own]
        if validation is not None:
            evaluations.append(EvaluateRecord(source="validation", n_inputs=len(validation[seed]),
                                              predictions=[1 if ok else 0 for ok in validation[seed]],
                                              labels=[1] * len(validation[seed]), prediction_kind="class"))  # fmt: skip
        runs.append(RunRecord(f"{program}-{seed}", program, seed, "ok", fits=[fit], evaluations=evaluations))
    return runs


def test_a_run_that_evaluated_is_judged_on_its_test_set_even_with_its_validation_data_recorded_after() -> None:
    (run,) = _evaluating_runs("fixed.py", [[True, False, True]], [[True, True]])
    assert run.last_evaluation.source == "evaluate" and run.correct == [True, False, True]
    assert run.metric()[0] == "accuracy"  # the metric still comes from the program's own evaluate


def test_a_fault_that_removes_the_evaluate_call_is_compared_on_the_validation_data_every_program_has() -> None:
    fixed = _evaluating_runs("fixed.py", [[True] * 6] * 5, [[True, True, True, True]] * 5)
    mutant = _evaluating_runs("m_hlr.py", [[False] * 6] * 5, [[False, True, True, True]] * 5)
    buggy = _runs("buggy.py", "validation", [[False, True, True, True]] * 5, accuracy=0.5)  # never evaluates
    assert "different sets (evaluate, validation)" in per_input_mismatch(fixed, buggy)
    report = compare_from_records(buggy, fixed, {"m_hlr.py": mutant})
    assert report.fault_kp is not None and report.fault_kp.kp == [1.0, 0.0, 0.0, 0.0]
    (row,) = report.mutants
    assert row.similarity is not None and row.similarity.coupling_strength == 1.0
    assert row.similarity.detectability_iou == 1.0
    assert any(n.startswith("per-input correctness on every program's validation data") for n in report.notes)
    assert report.to_dict()["per_input"]["source"] == "validation"


def test_without_a_set_every_program_recorded_the_pair_keeps_its_note() -> None:
    fixed = _evaluating_runs("fixed.py", [[True] * 6] * 3, None)  # evaluates, no validation data
    buggy = _runs("buggy.py", "training", [[False, True, True, True]] * 3, accuracy=0.5)
    report = compare_from_records(buggy, fixed, {})
    assert report.fault_kp is None
    assert any("different sets (evaluate, training)" in n for n in report.notes)
