"""Run records: metric choice and direction, JSON round trip, per-input correctness."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mutreal.execution import (
    EvaluateRecord,
    FitRecord,
    Outcome,
    RunRecord,
    UnknownOutcome,
    default_metric_name,
    metric_direction,
)
from mutreal.execution.records import select_metric


def test_loss_like_metrics_are_lower_is_better():
    for name in ("loss", "val_loss", "mse", "mean_absolute_error", "categorical_crossentropy", "mae"):
        assert metric_direction(name) == "lower", name
    for name in ("accuracy", "acc", "auc", "precision", "recall", "sparse_categorical_accuracy"):
        assert metric_direction(name) == "higher", name


def test_default_metric_prefers_accuracy_then_first_non_loss():
    assert default_metric_name({"loss": 0.3, "compile_metrics": 1.0, "accuracy": 0.9}) == "accuracy"
    assert default_metric_name({"loss": 0.3, "mae": 0.2}) == "mae"
    assert default_metric_name({"loss": 0.3}) == "loss"
    assert default_metric_name({}) is None


def test_select_metric_uses_last_evaluate_then_fit_history():
    fits = [
        FitRecord(history={"loss": [1.0, 0.5], "accuracy": [0.5, 0.7], "val_accuracy": [0.4, 0.6]}, epochs=2)
    ]
    evaluations = [
        EvaluateRecord(results={"loss": 0.9, "accuracy": 0.1}),
        EvaluateRecord(results={"loss": 0.4, "accuracy": 0.8}),
    ]
    assert select_metric(fits, evaluations) == ("accuracy", 0.8, "evaluate")
    assert select_metric(fits, evaluations, "loss") == ("loss", 0.4, "evaluate")
    assert select_metric(fits, []) == ("accuracy", 0.6, "fit")  # validation value preferred
    assert select_metric(fits, [], "loss") == ("loss", 0.5, "fit")
    assert select_metric([], [], None) == (None, None, None)


def test_correct_compares_predictions_with_labels():
    evaluation = EvaluateRecord(predictions=[1, 0, 2], labels=[1, 1, 2], prediction_kind="class")
    record = RunRecord(key="k", program="p.py", seed=0, outcome="ok", evaluations=[evaluation])
    assert record.correct == [True, False, True]
    assert EvaluateRecord(predictions=[0.3], labels=[0.2], prediction_kind="value").correct is None


def test_correct_refuses_predictions_and_labels_of_different_lengths():
    # Pairing the first two would call input 3 of the labels unknown and inputs 1-2 "correct" by chance.
    evaluation = EvaluateRecord(predictions=[1, 0, 2], labels=[1, 0], prediction_kind="class")
    assert evaluation.correct is None


def test_metric_reselects_from_stored_results():
    record = RunRecord(
        key="k",
        program="p.py",
        seed=1,
        outcome="ok",
        metric_name="accuracy",
        metric_value=0.8,
        direction="higher",
        evaluations=[EvaluateRecord(results={"loss": 0.4, "accuracy": 0.8})],
    )
    assert record.metric() == ("accuracy", 0.8, "higher")
    assert record.metric("loss") == ("loss", 0.4, "lower")


finite = st.floats(allow_nan=False, allow_infinity=False, width=32)


@given(
    seed=st.integers(0, 2**31),
    outcome=st.sampled_from(["ok", "crash", "timeout", "memory", "missing-data", "lost"]),
    history=st.dictionaries(st.sampled_from(["loss", "accuracy", "val_loss"]), st.lists(finite, max_size=4)),
    results=st.dictionaries(st.sampled_from(["loss", "accuracy", "mae"]), finite),
    predictions=st.one_of(st.none(), st.lists(st.integers(0, 9), max_size=6)),
)
def test_json_round_trip(seed, outcome, history, results, predictions):
    record = RunRecord(
        key="abc",
        program="x.py",
        seed=seed,
        outcome=outcome,
        fits=[FitRecord(history=history, epochs=2, time_s=1.5)],
        evaluations=[
            EvaluateRecord(
                results=results, predictions=predictions, labels=predictions, prediction_kind="class"
            )
        ],
        versions={"keras": "3"},
        error_message="m" if outcome != "ok" else None,
    )
    again = RunRecord.from_dict(json.loads(json.dumps(record.to_dict())))
    assert again == record
    assert again.crashed == (outcome not in ("ok", "lost"))


#: The words the store, JSON lines and CSV exports have held for each outcome since the first store.
STORED_WORDS = ["ok", "crash", "timeout", "memory", "missing-data", "lost"]


def test_outcomes_are_a_type_whose_values_are_the_stored_words():
    assert [o.value for o in Outcome] == STORED_WORDS
    for word in STORED_WORDS:
        outcome = Outcome.parse(word)
        assert outcome == word and str(outcome) == word and f"{outcome}" == word and hash(outcome) == hash(word)
        assert json.dumps({outcome: outcome}) == json.dumps({word: word})
    assert {Outcome.OK: 2} == {"ok": 2}  # outcome counts compare with plain-word dictionaries
    assert Outcome.TIMEOUT.is_limit and Outcome.MEMORY.is_limit and not Outcome.CRASH.is_limit


@given(word=st.text(max_size=12).filter(lambda w: w not in STORED_WORDS))
def test_an_unknown_outcome_word_is_refused_by_name(word):
    with pytest.raises(UnknownOutcome, match=r"unknown run outcome .*\(this mutreal knows: ok, crash"):
        RunRecord.from_dict({"key": "k", "program": "p.py", "seed": 0, "outcome": word})


@given(outcome=st.sampled_from(STORED_WORDS), seed=st.integers(0, 2**31))
def test_a_record_serialises_byte_identically_to_the_plain_word_record(outcome, seed):
    """What a record of the string era serialised to is what the typed record serialises to."""
    record = RunRecord(key="k", program="p.py", seed=seed, outcome=outcome)
    assert isinstance(record.outcome, Outcome)
    data = record.to_dict()
    assert type(data["outcome"]) is str
    plain = {**data, "outcome": outcome}
    assert json.dumps(data) == json.dumps(plain)
    assert RunRecord.from_dict(json.loads(json.dumps(data))) == record
