"""Who failed (:mod:`mutreal.analysis.run_failures`): a mutant run that fails where its program's run
with the same seed completes is invalid, harness or stillborn, never a kill. Fast: records built here
stand for runs; the slow end-to-end test is tests/runner/test_mutant_outcomes.py."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from mutreal.analysis.killing import kill_from_records
from mutreal.analysis.run_failures import (
    EditNames,
    classify_failure,
    edit_names,
    failure_counts,
    mutant_failure,
)
from mutreal.execution.records import EvaluateRecord, FitRecord, RunRecord

ORIGINAL = """
import keras
model = keras.Sequential([keras.layers.Dense(3, activation="relu")])
model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
model.fit(x, y, epochs=2)
"""
#: the optimizer's bare name used before its import (the edit's): NameError
LATE_IMPORT = ORIGINAL.replace("keras.optimizers.Adam(0.05)", "Adam(0.01)") + "from keras.optimizers import Adam\n"
#: a keyword the called API does not take
KEYWORD = ORIGINAL.replace('activation="relu")', 'activation="relu", kernel_regularizer="l1_l2")')


def _ok(seed: int = 0) -> RunRecord:
    fit = FitRecord(history={"loss": [0.5, 0.4]}, epochs=2)
    evaluation = EvaluateRecord(results={"accuracy": 0.9}, predictions=[0, 1], labels=[0, 1], prediction_kind="class")
    return RunRecord(f"ok{seed}", "fixed.py", seed, "ok", metric_name="accuracy", metric_value=0.9,
                     direction="higher", fits=[fit], evaluations=[evaluation])  # fmt: skip


def _failed(error_type: str, message: str, *, seed: int = 0, outcome: str = "crash", epochs: int = 0) -> RunRecord:
    fits = [FitRecord(history={"loss": [0.5] * epochs}, epochs=epochs, completed=False)] if epochs else []
    return RunRecord(f"m{seed}", "mutant.py", seed, outcome, error_type=error_type, error_message=message,
                     traceback=f"Traceback...\n{error_type}: {message}", fits=fits)  # fmt: skip


def test_a_name_error_on_a_name_the_edit_wrote_is_invalid() -> None:
    edit = edit_names(LATE_IMPORT, ORIGINAL)
    failure = classify_failure(_failed("NameError", "name 'Adam' is not defined"), _ok(), edit)
    assert failure is not None and failure.kind == "invalid" and failure.mutreal_defect
    assert "'Adam'" in failure.reason


def test_a_name_error_on_the_programs_own_name_is_no_invalid_edit() -> None:
    edit = edit_names(LATE_IMPORT, ORIGINAL)
    failure = classify_failure(_failed("NameError", "name 'model' is not defined"), _ok(), edit)
    assert failure is not None and failure.kind == "stillborn"  # before its first epoch, not the edit's name


def test_a_keyword_the_edit_added_is_invalid() -> None:
    edit = edit_names(KEYWORD, ORIGINAL)
    assert "kernel_regularizer" in edit.keywords
    message = "Dense.__init__() got an unexpected keyword argument 'kernel_regularizer'"
    failure = classify_failure(_failed("TypeError", message), _ok(), edit)
    assert failure is not None and failure.kind == "invalid" and "keyword argument" in failure.reason


def test_missing_data_is_the_harness() -> None:
    failure = classify_failure(_failed("FileNotFoundError", "data.csv", outcome="missing-data"), _ok(), EditNames())
    assert failure is not None and failure.kind == "harness" and failure.mutreal_defect


def test_a_crash_before_the_first_epoch_in_code_the_edit_did_not_write_is_stillborn() -> None:
    message = "Arguments `target` and `output` must have the same shape"
    failure = classify_failure(_failed("ValueError", message), _ok(), EditNames())
    assert failure is not None and failure.kind == "stillborn" and not failure.mutreal_defect


def test_a_crash_after_training_began_is_the_models_and_kills() -> None:
    assert classify_failure(_failed("ValueError", "nan loss", epochs=1), _ok(), EditNames()) is None


@given(st.sampled_from(["NameError", "TypeError", "ValueError", "FileNotFoundError"]),
       st.sampled_from(["crash", "missing-data"]))  # fmt: skip
def test_nothing_is_blamed_on_a_mutant_whose_program_failed_too(error_type: str, outcome: str) -> None:
    reference = _failed("ValueError", "its own failure")
    assert classify_failure(_failed(error_type, "name 'Adam'", outcome=outcome), reference, EditNames({"Adam"})) is None


@given(st.sampled_from(["ok", "timeout", "memory", "lost"]))
def test_runs_that_completed_or_hit_a_limit_are_not_classified(outcome: str) -> None:
    run = RunRecord("m0", "mutant.py", 0, outcome)
    assert classify_failure(run, _ok(), EditNames({"Adam"})) is None


def test_kill_leaves_an_invalid_mutant_out_of_the_mutation_score(tmp_path: Path) -> None:
    (tmp_path / "fixed.py").write_text(ORIGINAL, encoding="utf-8")
    broken = tmp_path / "broken.py"
    broken.write_text(LATE_IMPORT, encoding="utf-8")
    original = [_ok(0), _ok(1)]
    for run in original:
        run.program = str(tmp_path / "fixed.py")
    runs = [_failed("NameError", "name 'Adam' is not defined", seed=s) for s in (0, 1)]
    assert mutant_failure(runs, original, broken)["kind"] == "invalid"
    report = kill_from_records(original, {str(broken): runs, "same.py": [_ok(0), _ok(1)]}).to_dict()
    by_name = {Path(m["program"]).name: m for m in report["mutants"]}
    assert by_name["broken.py"]["killed"] is None and by_name["broken.py"]["failure"]["kind"] == "invalid"
    assert report["killed"] == 0 and report["mutation_score"] == 0.0  # of the one mutant judged
    assert report["failed_mutants"] == failure_counts([by_name["broken.py"]["failure"]]) == {
        "invalid": 1, "harness": 0, "stillborn": 0, "mutreal_defects": 1}  # fmt: skip


def test_a_mutant_none_of_whose_runs_completed_is_stillborn_not_a_kill(tmp_path: Path) -> None:
    original = [_ok(0), _ok(1)]
    after_training = [_failed("ValueError", "shapes (30, 2) and (30, 3)", seed=s, epochs=2) for s in (0, 1)]
    assert classify_failure(after_training[0], original[0], EditNames()) is None  # one run alone: the model's
    failure = mutant_failure(after_training, original, tmp_path / "mutant.py")
    assert failure is not None and failure["kind"] == "stillborn" and (failure["runs"], failure["of"]) == (2, 2)
    # one run that completed: the other's crash is the model's, a kill as before
    assert mutant_failure([after_training[0], _ok(1)], original, tmp_path / "mutant.py") is None


def test_the_error_shown_is_the_line_that_says_what_failed() -> None:
    message = "in user code:\n\n    File \"train.py\", line 9\n\n    ValueError: `logits` and `labels` must have the same shape"
    failure = classify_failure(_failed("ValueError", message), _ok(), EditNames())
    assert failure is not None and failure.error == "ValueError: ValueError: `logits` and `labels` must have the same shape"
