"""The verdict layer over RunRecords (no training): reproduction, kill with Holm and Fisher, compare."""

from __future__ import annotations

import json

import pytest

from mutreal.analysis.killing import kill_from_records
from mutreal.analysis.reproduction import reproduce_from_records
from mutreal.analysis.series import correctness_matrix, metric_series
from mutreal.analysis.similarity import compare_from_records
from mutreal.campaigns.pair import split_by_program

ORIGINAL = [0.95, 0.96, 0.94, 0.97, 0.95, 0.96]
WORSE = [0.60, 0.62, 0.58, 0.61, 0.63, 0.60]
SAME = [0.95, 0.95, 0.96, 0.96, 0.94, 0.96]


def test_metric_series_orders_by_seed_and_marks_crashes(records) -> None:
    runs = records("p.py", [0.5, None, 0.7])
    series = metric_series(list(reversed(runs)))
    assert series.seeds == [0, 1, 2]
    assert series.failed.tolist() == [False, True, False]
    assert series.metric == "accuracy" and not series.lower_is_better
    loss = metric_series(runs, metric="loss")
    assert loss.lower_is_better and loss.metric == "loss"
    assert loss.values[0] == pytest.approx(0.5)


def test_reproduce_from_records(records) -> None:
    report = reproduce_from_records(records("buggy.py", WORSE), records("fixed.py", ORIGINAL))
    data = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert data["reproduced"] is True and data["stable"] is True
    assert data["symptom"] == "performance"
    assert data["stats"]["verdict"] == "b better"
    assert data["buggy"]["summary"]["n"] == 6


def test_reproduce_crash_from_records(records) -> None:
    report = reproduce_from_records(records("buggy.py", [None] * 4), records("fixed.py", ORIGINAL[:4]))
    assert report.verdict.symptom == "crash" and report.verdict.reproduced and report.verdict.stable


def test_kill_report_with_fisher_and_holm(records, correct_matrix) -> None:
    n, inputs = 6, 10
    original = records("orig.py", ORIGINAL, correct_matrix(n, inputs, []))
    mutants = {
        "killed.py": records("killed.py", WORSE, correct_matrix(n, inputs, [0, 1, 2])),
        "equivalent.py": records("equivalent.py", SAME, correct_matrix(n, inputs, [])),
        "crashing.py": records("crashing.py", [None] * n),
    }
    report = kill_from_records(original, mutants)
    by_name = {m.program: m for m in report.mutants}
    assert by_name["killed.py"].deepcrime.killed and by_name["killed.py"].killed_holm
    assert by_name["killed.py"].fisher.killed and by_name["killed.py"].fisher.killing_inputs == [0, 1, 2]
    assert not by_name["equivalent.py"].deepcrime.killed and not by_name["equivalent.py"].fisher.killed
    # no run of it completed where every run of the original did: stillborn, no verdict, out of the score
    crashing = by_name["crashing.py"]
    assert crashing.failure["kind"] == "stillborn" and crashing.killed is None and crashing.fisher is None
    # Holm: adjusted p is at least the raw p
    killed = by_name["killed.py"]
    assert killed.deepcrime_p_holm >= killed.deepcrime.comparison.p_value
    data = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert data["killed"] == 1 and data["fisher_killed"] == 1
    assert data["mutation_score"] == pytest.approx(1 / 2)
    assert data["failed_mutants"]["stillborn"] == 1


def test_kill_without_labels_has_no_fisher_verdict(records) -> None:
    report = kill_from_records(records("o.py", ORIGINAL), {"m.py": records("m.py", WORSE)})
    assert report.mutants[0].fisher is None
    assert report.notes


def test_compare_mutant_like_the_fault_and_one_unlike(records, correct_matrix) -> None:
    n, inputs = 6, 8
    fixed = records("fixed.py", ORIGINAL, correct_matrix(n, inputs, []))
    buggy = records("buggy.py", WORSE, correct_matrix(n, inputs, [0, 1, 2, 3]))
    mutants = {
        "reconstruction.py": records("reconstruction.py", WORSE, correct_matrix(n, inputs, [0, 1, 2, 3])),
        "other.py": records("other.py", SAME, correct_matrix(n, inputs, [7], seed_wrong_share=0.5)),
    }
    report = compare_from_records(buggy, fixed, mutants)
    by_name = {m.program: m for m in report.mutants}
    twin = by_name["reconstruction.py"]
    assert twin.similarity.coupling_strength == 1.0 and twin.similarity.detectability_iou == 1.0
    assert twin.killing_agreement and twin.versus_fault.verdict == "no difference"
    other = by_name["other.py"]
    assert other.similarity.coupling_strength == 0.0 and other.similarity.detectability_iou == 0.0
    assert not other.killing_agreement
    assert other.versus_fault.verdict == "b better"  # the mutant is far better than the real fault
    data = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert data["fault"]["killed"] is True
    assert data["mutants"][0]["kp"]["kp"][:4] == [1.0, 1.0, 1.0, 1.0]


def test_correctness_matrix_refuses_mixed_input_counts(records, correct_matrix) -> None:
    a = records("a.py", [0.9, 0.9], correct_matrix(2, 3, []))
    b = records("b.py", [0.9, 0.9], correct_matrix(2, 4, []))
    assert correctness_matrix(a + b) is None
    assert correctness_matrix(records("c.py", [0.9, 0.9])) is None  # no labels


def test_split_by_program_keeps_duplicates_apart(records) -> None:
    runs = records("same.py", [0.9, 0.8]) * 2  # two identical programs share records
    groups = split_by_program(runs, 2, 2)
    assert [len(g) for g in groups] == [2, 2]
    with pytest.raises(RuntimeError):
        split_by_program(runs[:3], 2, 2)


def test_decision_settings_come_from_a_commands_mapping_and_refuse_unknown_keys(records) -> None:
    """The ``statistics`` mapping of the commands (None: the default) and the settings type decide alike;
    a misspelt key is an error, not a setting silently ignored."""
    from mutreal.analysis.settings import DecisionSettings

    command = {"metric": None, "lower_is_better": None, "test": "mannwhitney", "alpha": 0.01}
    settings = DecisionSettings.of(command)
    assert settings == DecisionSettings(test="mannwhitney", alpha=0.01) and DecisionSettings.of(settings) is settings
    assert DecisionSettings.of(None) == DecisionSettings() == DecisionSettings.of({"test": None})
    with pytest.raises(ValueError, match="unknown statistics settings: aplha"):
        DecisionSettings.of({"aplha": 0.01})
    assert settings.for_bug("loss", None) == DecisionSettings("loss", None, "mannwhitney", 0.01)
    assert DecisionSettings("accuracy", False).for_bug(None, True) == DecisionSettings("accuracy", True)
    buggy, fixed = records("buggy.py", WORSE), records("fixed.py", ORIGINAL)
    by_mapping = reproduce_from_records(buggy, fixed, settings=command).to_dict()
    assert by_mapping == reproduce_from_records(buggy, fixed, settings=settings).to_dict()
    assert by_mapping["stats"] != reproduce_from_records(buggy, fixed).to_dict()["stats"]  # the test was used
