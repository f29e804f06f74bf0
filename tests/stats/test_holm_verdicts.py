"""Holm's correction across mutants removes kills: the raw and the corrected verdicts differ.

Four mutants of one original, 41 runs each. Accuracies are ``shift + 0.125 * spread`` with a sample
sd of exactly 0.125 (see test_rule_boundaries), so Cohen's d and the GLM p are known by hand:

- ``strong``: d = 4, p ~ 1e-70: killed before and after Holm;
- ``borderline``: d = 0.5, p = 2 sf(0.5 sqrt(20.5)) = 0.0236 < 0.05: a raw kill, but Holm compares the
  second smallest of 4 p-values with 0.05 / 3 = 0.0167: not killed after Holm (adjusted p = 3 x 0.0236);
- ``same_1``, ``same_2``: the original's accuracies, p = 1.

Per-input correctness (Fisher): every original instance gets all 4 inputs right; ``strong`` is wrong
on input 0 in 30 of 41 instances, ``borderline`` in 5: its one-sided Fisher p is
C(41,5) / C(82,5) = 0.0275 < 0.05 (killed), again above 0.05 / 3 after Holm.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from mutreal.analysis.killing import kill_from_records

N = 41


def _accuracies(shift: float) -> list[float]:
    return [shift - 0.125] * 20 + [shift] + [shift + 0.125] * 20


def _correct(wrong_instances: int) -> np.ndarray:
    matrix = np.ones((N, 4), dtype=bool)
    matrix[:wrong_instances, 0] = False
    return matrix


@pytest.fixture
def report(records):
    original = records("orig.py", _accuracies(0.75), _correct(0))
    mutants = {
        "strong.py": records("strong.py", _accuracies(0.25), _correct(30)),
        "borderline.py": records("borderline.py", _accuracies(0.6875), _correct(5)),
        "same_1.py": records("same_1.py", _accuracies(0.75), _correct(0)),
        "same_2.py": records("same_2.py", _accuracies(0.75), _correct(0)),
    }
    return kill_from_records(original, mutants)


def test_holm_removes_a_raw_deepcrime_kill(report) -> None:
    by_name = {m.program: m for m in report.mutants}
    borderline = by_name["borderline.py"]
    raw_p = float(2 * norm.sf(0.5 * math.sqrt(N / 2)))
    assert borderline.deepcrime.comparison.p_value == pytest.approx(raw_p, rel=1e-9)
    assert borderline.deepcrime.killed and borderline.deepcrime.killed_by == "metric"
    assert borderline.deepcrime_p_holm == pytest.approx(3 * raw_p, rel=1e-9)
    assert borderline.killed_holm is False
    assert by_name["strong.py"].killed_holm is True
    assert by_name["same_1.py"].killed_holm is False and by_name["same_2.py"].deepcrime_p_holm == 1.0
    data = report.to_dict()
    assert data["killed"] == 2 and data["killed_holm"] == 1


def test_holm_removes_a_raw_fisher_kill(report) -> None:
    by_name = {m.program: m for m in report.mutants}
    borderline = by_name["borderline.py"]
    raw_p = math.comb(41, 5) / math.comb(82, 5)
    assert borderline.fisher.min_p_value == pytest.approx(raw_p, rel=1e-9)
    assert borderline.fisher.killed and borderline.fisher.killing_inputs == [0]
    assert borderline.fisher_p_holm == pytest.approx(3 * raw_p, rel=1e-9)
    assert borderline.fisher_killed_holm is False
    assert by_name["strong.py"].fisher_killed_holm is True
    assert by_name["same_1.py"].fisher_killed_holm is False
    data = {m["program"]: m for m in report.to_dict()["mutants"]}
    assert data["borderline.py"]["fisher_killed"] is True and data["borderline.py"]["fisher_killed_holm"] is False


def test_a_crash_kill_survives_holm(records) -> None:
    # the crash rule has its own test; Holm corrects the metric p-values only
    original = records("orig.py", _accuracies(0.75))
    mutants = {
        "crash.py": records("crash.py", [None] * 6 + _accuracies(0.75)[6:]),
        "same.py": records("same.py", _accuracies(0.75)),
    }
    by_name = {m.program: m for m in kill_from_records(original, mutants).mutants}
    assert by_name["crash.py"].deepcrime.killed_by == "crash"
    assert by_name["crash.py"].killed_holm is True
    assert by_name["same.py"].killed_holm is False


def test_a_single_mutant_is_its_own_family(records) -> None:
    original = records("orig.py", _accuracies(0.75), _correct(0))
    report = kill_from_records(original, {"b.py": records("b.py", _accuracies(0.6875), _correct(5))})
    (only,) = report.mutants
    assert only.killed_holm is True and only.deepcrime_p_holm == only.deepcrime.comparison.p_value
    assert only.fisher_killed_holm is True
