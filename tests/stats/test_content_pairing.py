"""Per-input correctness paired by the input's content id, for programs whose data differ per seed.

Runs of seed k of the fixed, buggy and mutant programs see the same inputs; seeds k and k' see other
ones (data made or split without a seed). Input t is then its id: it counts in instance k when both
paired runs evaluated it, and its KP, Wilson interval and Fisher table use its own n. Where every run
evaluated the same inputs, the result is the positional one, value for value (property test). No
training: records built from correctness rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.analysis import pairing
from mutreal.analysis.similarity import compare_from_records
from mutreal.execution.records import EvaluateRecord, FitRecord, RunRecord
from mutreal.stats import (
    fisher_kill,
    killing_probabilities,
    similarity,
    wilson_interval,
)
from mutreal.stats.killing_probability import counted_on_both

TASK = {"kind": "classification", "loss": "sparse_categorical_crossentropy"}


def _run(program: str, seed: int, cases: list[tuple[str, int]] | None, right: list[bool] | None = None,
         with_ids: bool = True) -> RunRecord:
    """A run of ``program`` with ``seed`` that evaluated ``cases`` (id, label), right where ``right``
    says (default: everywhere); ``cases=None`` is a crashed run."""
    if cases is None:
        return RunRecord(f"{program}-{seed}", program, seed, "crash", error_type="ValueError")
    right = [True] * len(cases) if right is None else right
    labels = [label for _, label in cases]
    evaluation = EvaluateRecord(
        results={"loss": 0.5, "accuracy": sum(right) / max(len(right), 1)}, n_inputs=len(cases),
        predictions=[y if ok else 1 - y for y, ok in zip(labels, right, strict=True)], labels=labels,
        prediction_kind="class", input_ids=[f"{name}:{label}" for name, label in cases] if with_ids else None,
        task=TASK,
    )  # fmt: skip
    fit = FitRecord(history={"loss": [0.5]}, epochs=1, task=TASK)
    return RunRecord(f"{program}-{seed}", program, seed, "ok", metric_name="accuracy",
                     metric_value=evaluation.results["accuracy"], fits=[fit], evaluations=[evaluation])  # fmt: skip


#: the test cases of each seed: a split without a seed draws other inputs each time
SPLITS = {
    0: [("a", 0), ("b", 1), ("c", 0)],
    1: [("b", 1), ("d", 1), ("e", 0)],
    2: [("c", 0), ("b", 1), ("f", 1)],
}


def _program(name: str, wrong: dict[int, set[str]], crashed: frozenset[int] = frozenset()) -> list[RunRecord]:
    runs = []
    for seed, cases in SPLITS.items():
        if seed in crashed:
            runs.append(_run(name, seed, None))
        else:
            runs.append(_run(name, seed, cases, [case not in wrong.get(seed, set()) for case, _ in cases]))
    return runs


def test_inputs_of_other_splits_are_paired_by_id_each_with_its_own_n() -> None:
    fixed = _program("fixed.py", {})
    buggy = _program("buggy.py", {0: {"b"}, 1: {"b", "e"}, 2: {"f"}})
    mutant = _program("m.py", {0: {"b"}, 1: {"d"}})
    report = compare_from_records(buggy, fixed, {"m.py": mutant})
    assert not any("differs between the runs" in note for note in report.notes), report.notes
    kp = report.fault_kp
    # inputs in the order first seen: a b c (seed 0), d e (seed 1), f (seed 2)
    assert kp.n == [1, 3, 2, 1, 1, 1]
    assert kp.kp == [0.0, 2 / 3, 0.0, 0.0, 1.0, 1.0]
    assert (kp.low[1], kp.high[1]) == wilson_interval(2, 3) and (kp.low[4], kp.high[4]) == wilson_interval(1, 1)
    (m,) = report.mutants
    assert m.kp.kp == [0.0, 1 / 3, 0.0, 1.0, 0.0, 0.0]
    # CS = sum min / sum KP_M = (1/3) / (4/3); IoU = sum min / sum max = (1/3) / (2/3 + 1 + 1 + 1)
    assert m.similarity.coupling_strength == pytest.approx(0.25)
    assert m.similarity.detectability_iou == pytest.approx((1 / 3) / (2 / 3 + 3))
    data = report.to_dict()
    assert data["per_input"]["pairing"].startswith("by input content: the runs evaluated other inputs")
    assert "6 distinct inputs, median n per input 1" in data["per_input"]["pairing"]
    assert data["fault"]["kp"]["n"] == [1, 3, 2, 1, 1, 1]
    # the Fisher verdict per input on its own instances: b is right 3/3 for fixed, 1/3 for buggy
    assert report.fault_fisher.n_original == 3 and report.fault_fisher.pool_size == 6
    assert report.fault_fisher.min_p_value == pytest.approx(0.2)


def test_a_crashed_run_is_wrong_on_every_input_of_its_paired_run() -> None:
    fixed = _program("fixed.py", {})
    buggy = _program("buggy.py", {}, crashed=frozenset({1}))
    report = compare_from_records(buggy, fixed, {})
    kp = report.fault_kp
    assert kp.n == [1, 3, 2, 1, 1, 1]
    assert kp.kp == [0.0, 1 / 3, 0.0, 1.0, 1.0, 0.0]  # b, d, e were in seed 1's split
    # a fixed run that crashed counts its paired buggy run's inputs, none of them killing
    report = compare_from_records(_program("buggy.py", {0: {"a"}}), _program("fixed.py", {}, frozenset({2})), {})
    assert report.fault_kp.n == [1, 3, 2, 1, 1, 1] and report.fault_kp.kp[0] == 1.0 and report.fault_kp.kp[5] == 0.0


def test_a_program_with_other_labels_on_the_same_rows_is_judged_on_the_fixed_programs_labels() -> None:
    """A TCL-like mutant (the fixed program's rows, other labels, as a program that evaluates on its
    training data shows a label fault): paired row by row and judged on the fixed program's labels,
    so a model that learned the wrong labels is wrong, not "right on its own labels"."""
    fixed = _program("fixed.py", {})
    buggy = _program("buggy.py", {0: {"a"}})
    relabelled = [_run("m_tcl.py", seed, [(name, 1 - label) for name, label in cases]) for seed, cases in SPLITS.items()]
    report = compare_from_records(buggy, fixed, {"m_tcl.py": relabelled})
    (tcl,) = report.mutants
    assert report.fault_kp.kp == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert tcl.kp.kp == [1.0] * 6 and tcl.kp.n == [1, 3, 2, 1, 1, 1]  # it predicts its own labels: all wrong
    assert "m_tcl.py evaluated the fixed program's inputs with other labels" in report.pairing
    # where it predicts what the fixed program's labels say, it kills nothing
    learned = [_run("m_ok.py", seed, [(name, 1 - label) for name, label in cases], [False] * len(cases))
               for seed, cases in SPLITS.items()]  # fmt: skip
    (ok,) = compare_from_records(buggy, fixed, {"m_ok.py": learned}).mutants
    assert ok.kp.kp == [0.0] * 6


def test_a_program_with_other_rows_in_the_same_seed_stays_unpaired() -> None:
    """Other rows (a fault of the training data that changes the inputs): not the same test cases."""
    fixed = _program("fixed.py", {})
    buggy = _program("buggy.py", {0: {"a"}})
    other = [_run("m_rows.py", seed, [(name + "'", 1 - label) for name, label in cases]) for seed, cases in SPLITS.items()]
    report = compare_from_records(buggy, fixed, {"m_rows.py": other})
    (rows,) = report.mutants
    assert report.fault_kp is not None and rows.kp is None and rows.similarity is None
    assert any(n.startswith("m_rows.py: per-input correctness of m_rows.py is on other inputs than the fixed")
               for n in report.notes), report.notes  # fmt: skip
    assert "0 of 3 inputs shared" in next(n for n in report.notes if n.startswith("m_rows.py"))


def test_rows_transformed_otherwise_with_the_same_labels_are_paired_by_position_within_the_seed() -> None:
    """A buggy program that scales its inputs otherwise: other bytes, the same split and labels."""
    fixed = _program("fixed.py", {})
    scaled = [_run("buggy.py", seed, [(f"{name}-raw", label) for name, label in cases],
                   [name != "b" for name, _ in cases]) for seed, cases in SPLITS.items()]  # fmt: skip
    report = compare_from_records(scaled, fixed, {})
    assert report.fault_kp.kp == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0] and report.fault_kp.n == [1, 3, 2, 1, 1, 1]


def test_runs_without_ids_keep_todays_note() -> None:
    """Stored records of an older mutreal have no ids: runs on other inputs stay unpaired, as before."""
    fixed = [_run("fixed.py", seed, cases, with_ids=False) for seed, cases in SPLITS.items()]
    buggy = [_run("buggy.py", seed, cases, with_ids=False) for seed, cases in SPLITS.items()]
    report = compare_from_records(buggy, fixed, {})
    assert report.fault_kp is None and report.pairing is None
    assert any("differs between the runs of one program" in n for n in report.notes)


def test_a_fixed_test_set_is_still_paired_by_position_and_says_so() -> None:
    cases = SPLITS[0]
    fixed = [_run("fixed.py", seed, cases) for seed in range(3)]
    buggy = [_run("buggy.py", seed, cases, [True, False, True]) for seed in range(3)]
    report = compare_from_records(buggy, fixed, {})
    assert report.fault_kp.kp == [0.0, 1.0, 0.0] and report.fault_kp.n is None
    data = report.to_dict()
    assert data["per_input"]["pairing"] == pairing.BY_POSITION and "n" not in data["fault"]["kp"]


def test_duplicated_test_cases_pair_copy_by_copy() -> None:
    fixed = [_run("fixed.py", 0, [("a", 0), ("a", 0), ("b", 1)]), _run("fixed.py", 1, [("a", 0), ("c", 1)])]
    buggy = [_run("buggy.py", 0, [("a", 0), ("a", 0), ("b", 1)], [False, False, True]),
             _run("buggy.py", 1, [("a", 0), ("c", 1)], [False, True])]  # fmt: skip
    inputs, paired = pairing.pair_by_content(fixed, {"b": buggy})
    assert inputs == ["a:0", "a:0#1", "b:1", "c:1"]
    kp = killing_probabilities(paired["b"].reference, paired["b"].faulty, counted=paired["b"].counted)
    assert kp.kp == [1.0, 1.0, 0.0, 0.0] and kp.n == [2, 1, 1, 1]


# -- the positional case, value for value -------------------------------------------------------


@st.composite
def _instances(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[bool], list[bool]]:
    """Correctness of a fixed program, a fault and a mutant on one test set, with crashed runs (never
    both runs of one instance of a pair: two crashes are no information about which inputs)."""
    n = draw(st.integers(1, 6))
    inputs = draw(st.integers(1, 8))
    cells = st.lists(st.booleans(), min_size=n * inputs, max_size=n * inputs)
    matrices = [np.asarray(draw(cells), dtype=bool).reshape(n, inputs) for _ in range(3)]
    fixed_crash = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    other_crash = [draw(st.booleans()) and not f for f in fixed_crash]
    return (*matrices, fixed_crash, other_crash)


def _records(name: str, matrix: np.ndarray, crashed: list[bool]) -> list[RunRecord]:
    cases = [(f"x{t}", 0) for t in range(matrix.shape[1])]
    return [_run(name, k, None if crashed[k] else cases, list(map(bool, row))) for k, row in enumerate(matrix)]


@settings(max_examples=150, deadline=None)
@given(_instances())
def test_with_the_same_inputs_in_every_run_content_pairing_gives_the_positional_kp_cs_iou(case) -> None:
    fixed_m, fault_m, mutant_m, fixed_crash, other_crash = case
    fixed = _records("fixed.py", fixed_m, fixed_crash)
    fault = _records("buggy.py", fault_m, other_crash)
    mutant = _records("m.py", mutant_m, other_crash)
    # today's matrices: a crashed run is wrong on every input
    old = [np.where(np.asarray(c)[:, None], False, m) for m, c in
           ((fixed_m, fixed_crash), (fault_m, other_crash), (mutant_m, other_crash))]  # fmt: skip
    old_fault, old_mutant = killing_probabilities(old[0], old[1]), killing_probabilities(old[0], old[2])
    inputs, paired = pairing.pair_by_content(fixed, {"f": fault, "m": mutant})
    assert inputs == [f"x{t}:0" for t in range(fixed_m.shape[1])]
    f, m = paired["f"], paired["m"]
    new_fault = killing_probabilities(f.reference, f.faulty, counted=f.counted)
    new_mutant = killing_probabilities(m.reference, m.faulty, counted=m.counted)
    assert new_fault.to_dict() == old_fault.to_dict() and new_mutant.to_dict() == old_mutant.to_dict()
    assert similarity(new_mutant.kp, new_fault.kp, include=counted_on_both(new_mutant, new_fault)) == similarity(
        old_mutant.kp, old_fault.kp
    )
    assert fisher_kill(f.reference, f.faulty, counted=f.counted) == fisher_kill(old[0], old[1])
    # and compare_from_records, which pairs these by position, gives the same numbers
    report = compare_from_records(fault, fixed, {"m.py": mutant})
    assert report.fault_kp.to_dict() == old_fault.to_dict()
    if report.mutants[0].failure is not None:  # not the model's failure: not compared
        assert report.mutants[0].similarity is None and report.mutants[0].kp is None
    elif report.not_reproduced is not None:  # a fault that kills nothing, or is not worse: nothing to couple to
        assert report.mutants[0].similarity is None
    else:
        assert report.mutants[0].similarity == similarity(old_mutant.kp, old_fault.kp)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 5), st.integers(1, 6), st.data())
def test_kp_with_counted_inputs_is_kills_over_own_n(n: int, inputs: int, data: st.DataObject) -> None:
    def matrix() -> np.ndarray:
        cells = data.draw(st.lists(st.booleans(), min_size=n * inputs, max_size=n * inputs))
        return np.asarray(cells, dtype=bool).reshape(n, inputs)

    reference, faulty, counted = matrix(), matrix(), matrix()
    kp = killing_probabilities(reference, faulty, counted=counted)
    for t in range(inputs):
        own = int(counted[:, t].sum())
        kills = int((reference[:, t] & ~faulty[:, t] & counted[:, t]).sum())
        assert kp.counts[t] == own
        assert kp.kp[t] == (kills / own if own else 0.0)
        assert (kp.low[t], kp.high[t]) == wilson_interval(kills, own)
    verdict = fisher_kill(reference, faulty, counted=counted)
    assert verdict.pool_size == max(int((counted.sum(axis=0) > 0).sum()), 1)
    assert all(counted[:, t].any() for t in verdict.killing_inputs)


def test_kp_with_own_n_reads_back_and_averages_over_inputs_counted() -> None:
    from mutreal.stats import KillingProbabilities

    counted = np.array([[1, 1, 0], [1, 0, 0]], dtype=bool)
    kp = killing_probabilities(np.ones((2, 3), bool), np.zeros((2, 3), bool), counted=counted)
    data = kp.to_dict()
    assert data["n"] == [2, 1, 0] and data["mean_kp"] == 1.0 and data["inputs_killing"] == 2
    assert (data["low"][2], data["high"][2]) == (0.0, 1.0)  # never counted: no information
    assert KillingProbabilities.from_dict(data) == kp
    positional = killing_probabilities(np.ones((2, 3), bool), np.zeros((2, 3), bool))
    assert "n" not in positional.to_dict() and KillingProbabilities.from_dict(positional.to_dict()) == positional


def test_kill_gives_the_fisher_verdict_by_input_content_too() -> None:
    from mutreal.analysis.killing import kill_from_records

    original = _program("orig.py", {})
    mutant = _program("m.py", {0: {"b"}, 1: {"b"}, 2: {"b"}})
    other_rows = [_run("m_rows.py", seed, [(name + "'", 1 - label) for name, label in cases]) for seed, cases in SPLITS.items()]
    relabelled = [_run("m_tcl.py", seed, [(name, 1 - label) for name, label in cases]) for seed, cases in SPLITS.items()]
    report = kill_from_records(original, {"m.py": mutant, "m_rows.py": other_rows, "m_tcl.py": relabelled})
    paired, unpaired, tcl = report.mutants
    assert paired.fisher is not None and paired.fisher.pool_size == 6 and paired.fisher.n_original == 3
    assert paired.fisher.min_p_value == pytest.approx(0.05)  # b: 3/3 right against 0/3, one-sided Fisher
    assert unpaired.fisher is None
    assert any(n.startswith("m_rows.py: per-input correctness of m_rows.py is on other inputs") for n in report.notes)
    assert tcl.fisher is not None and tcl.fisher.min_p_value == pytest.approx(0.05)  # wrong on every original label


def test_a_program_judged_on_another_set_is_named_so_when_pairing_by_content() -> None:
    """A buggy program whose evaluate gave no correctness is judged on its validation data: other
    test cases than the fixed program's evaluate data, whatever their ids."""
    fixed = _program("fixed.py", {})
    buggy = _program("buggy.py", {0: {"a"}})
    for run in buggy:
        run.evaluations[-1].source = "validation"
    mutant = _program("m.py", {0: {"a"}})
    report = compare_from_records(buggy, fixed, {"m.py": mutant})
    assert report.fault_kp is None and report.mutants[0].kp is not None and report.mutants[0].similarity is None
    assert any(n.startswith("fixed/buggy: per-input correctness is on different sets (evaluate, validation)")
               for n in report.notes), report.notes  # fmt: skip


def test_a_mutant_on_other_inputs_does_not_change_the_fault_pair_on_a_fixed_test_set() -> None:
    """The fixed program evaluates one test set in every run; one mutant shuffles it without a seed
    (so the comparison pairs by content). Both fixed and buggy crashed in seed 3: positionally both
    are wrong on every input there (n = 4); pairing by content must give the same KP, Fisher and IoU,
    not drop that seed because an unrelated mutant was compared too."""
    cases = [("a", 0), ("b", 1), ("c", 0), ("d", 1)]

    def program(name: str, wrong: dict[int, set[str]], crashed: frozenset[int] = frozenset(), shuffle: bool = False):
        runs = []
        for seed in range(4):
            mine = [cases[(i + seed) % 4] for i in range(4)] if shuffle else cases
            runs.append(_run(name, seed, None) if seed in crashed
                        else _run(name, seed, mine, [c not in wrong.get(seed, set()) for c, _ in mine]))  # fmt: skip
        return runs

    fixed = program("fixed.py", {}, crashed={3})
    buggy = program("buggy.py", {0: {"a"}, 1: {"a"}, 2: {"a"}}, crashed={3})
    mutant = program("m.py", {0: {"a"}})
    shuffled = program("s.py", {}, shuffle=True)
    alone = compare_from_records(buggy, fixed, {"m.py": mutant})
    together = compare_from_records(buggy, fixed, {"m.py": mutant, "s.py": shuffled})
    assert alone.fault_kp.kp == [0.75, 0.0, 0.0, 0.0]
    assert together.fault_kp.kp == alone.fault_kp.kp and together.fault_kp.counts == [4] * 4
    assert together.fault_fisher.min_p_value == pytest.approx(alone.fault_fisher.min_p_value)
    assert together.mutants[0].similarity == alone.mutants[0].similarity


def test_a_run_that_evaluated_no_input_beside_a_crashed_one_pairs_nothing_and_does_not_crash() -> None:
    """Seed 0 of the fixed program evaluated an empty test set while the buggy run crashed: there is
    no input to count in that instance (an empty id list is an answer, not a missing one)."""
    fixed = [_run("fixed.py", 0, []), *_program("fixed.py", {})[1:]]
    buggy = [_run("buggy.py", 0, None), *_program("buggy.py", {1: {"b"}})[1:]]
    report = compare_from_records(buggy, fixed, {})
    assert report.fault_kp is not None and report.fault_kp.n_instances == 3
    assert report.fault_kp.kp[report.fault_kp.kp.index(0.5)] == 0.5  # b: killed in 1 of its 2 seeds
