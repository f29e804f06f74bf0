"""Who failed (:mod:`mutreal.analysis.run_failures`): a mutant run that fails where its program's run
with the same seed completes is invalid, harness, stillborn or outgrown, never a kill. Fast: records built here
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


@given(st.sampled_from(["ok", "lost"]))
def test_runs_that_completed_or_were_lost_are_not_classified(outcome: str) -> None:
    run = RunRecord("m0", "mutant.py", 0, outcome)
    assert classify_failure(run, _ok(), EditNames({"Adam"})) is None


def _provenance(operator: str, old: str, value: object) -> dict:
    return {"parts": [{"operator": operator, "old": old, "new": str(value), "value": value}]}


def _stopped(outcome: str, *, timeout_s: float = 100.0, memory_mb: float = 4000.0) -> RunRecord:
    return RunRecord("m0", "mutant.py", 0, outcome, timeout_s=timeout_s, memory_limit_mb=memory_mb)


def _program(wall_s: float, peak_mb: float = 1000.0) -> RunRecord:
    run = _ok()
    run.wall_time_s, run.peak_rss_mb = wall_s, peak_mb
    return run


@given(old=st.integers(1, 50), times=st.floats(1.01, 20.0), wall=st.floats(1.0, 200.0))
def test_a_time_limit_is_the_operators_effect_only_when_its_epochs_carry_the_program_past_it(old, times, wall) -> None:
    new = max(old + 1, round(old * times))
    edit = edit_names(ORIGINAL, ORIGINAL, _provenance("HNE", str(old), new))
    failure = classify_failure(_stopped("timeout"), _program(wall), edit)
    assert failure is not None and failure.kind != "stillborn"
    assert failure.kind == ("outgrown" if wall * (new / old) >= 100.0 else "harness")
    assert failure.mutreal_defect == (failure.kind == "harness")
    assert "--timeout" in failure.reason


@given(st.sampled_from([("HNE", "50", 5), ("HLR", "0.01", 0.001), ("ACH", "'relu'", "elu"), ("HBS", "32", 256)]))
def test_a_time_limit_on_an_edit_that_does_not_lengthen_training_is_the_setting(part) -> None:
    # fewer epochs, another learning rate or activation, larger batches: a hang is not the edit's
    edit = edit_names(ORIGINAL, ORIGINAL, _provenance(*part))
    failure = classify_failure(_stopped("timeout"), _program(90.0), edit)
    assert failure is not None and failure.kind == "harness" and "does not grow it" in failure.reason


def test_a_memory_limit_is_the_operators_effect_when_the_edit_grows_the_batch() -> None:
    whole = edit_names(ORIGINAL, ORIGINAL, _provenance("HDB", "32", None))
    assert classify_failure(_stopped("memory"), _program(10.0, 500.0), whole).kind == "outgrown"
    larger = edit_names(ORIGINAL, ORIGINAL, _provenance("HBS", "32", 256))
    assert classify_failure(_stopped("memory"), _program(10.0, 600.0), larger).kind == "outgrown"
    assert classify_failure(_stopped("memory"), _program(10.0, 100.0), larger).kind == "harness"  # 8 x 100 MB < 4 GB
    # more epochs take longer, not more memory
    epochs = edit_names(ORIGINAL, ORIGINAL, _provenance("HNE", "2", 20))
    assert classify_failure(_stopped("memory"), _program(10.0, 3000.0), epochs).kind == "harness"


def test_a_limit_stop_of_a_mutant_whose_program_failed_too_says_nothing() -> None:
    edit = edit_names(ORIGINAL, ORIGINAL, _provenance("HNE", "2", 20))
    assert classify_failure(_stopped("timeout"), _failed("ValueError", "its own"), edit) is None
    assert classify_failure(_stopped("timeout"), None, edit) is None


def test_a_mutant_its_limit_stopped_is_no_kill(tmp_path: Path) -> None:
    (tmp_path / "fixed.py").write_text(ORIGINAL, encoding="utf-8")
    longer = tmp_path / "longer.py"
    longer.write_text(ORIGINAL.replace("epochs=2", "epochs=20"), encoding="utf-8")
    (tmp_path / "longer.json").write_text(
        '{"original": "fixed.py", "original_sha256": "", "parts": [{"operator": "HNE", "old": "2", "new": "20", '
        '"value": 20}]}', encoding="utf-8")  # fmt: skip
    original = [_program(30.0), _program(30.0)]
    for seed, run in enumerate(original):
        run.program, run.seed = str(tmp_path / "fixed.py"), seed
    runs = [_stopped("timeout"), _stopped("timeout")]
    runs[1].seed = 1
    report = kill_from_records(original, {str(longer): runs}).to_dict()
    (mutant,) = report["mutants"]
    assert mutant["killed"] is None and mutant["failure"]["kind"] == "outgrown"
    assert report["failed_mutants"]["outgrown"] == 1 and report["failed_mutants"]["mutreal_defects"] == 0


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
        "invalid": 1, "harness": 0, "stillborn": 0, "outgrown": 0, "mutreal_defects": 1}  # fmt: skip


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
