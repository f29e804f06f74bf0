"""compare_from_records takes the number of test inputs from any group that recorded it.

Why this file exists: the mutation run (``make mutation``, group "verdicts") left two mutants of
``compare_from_records`` alive that drop the buggy program, or the mutants, from the groups asked
for the input width. A run that crashed is wrong on every input, so when the fixed program
crashed in every run the width must still come from the buggy program or from a mutant, and the
per-input verdicts are computed against an all-wrong fixed program: nothing can be killed by it
(one-sided Fisher p = 1, every killing probability 0).
"""

from __future__ import annotations

from mutreal.analysis.similarity import compare_from_records


def test_the_width_comes_from_the_buggy_program_when_the_fixed_one_always_crashed(
    records, correct_matrix
) -> None:
    fixed = records("fixed.py", [None, None, None, None])
    buggy = records("buggy.py", [0.9, 0.9, 0.9, 0.9], correct_matrix(4, 3, [0]))
    report = compare_from_records(buggy, fixed, {})
    assert report.fault_fisher is not None
    assert (report.fault_fisher.n_inputs, report.fault_fisher.n_original, report.fault_fisher.n_mutant) == (3, 4, 4)
    assert report.fault_fisher.killed is False and report.fault_fisher.min_p_value == 1.0
    assert report.fault_kp is not None and report.fault_kp.kp == [0.0, 0.0, 0.0]
    assert "no per-input correctness for the fixed/buggy pair: no KP, CS, IoU" not in report.notes


def test_the_width_comes_from_a_mutant_when_fixed_and_buggy_always_crashed(records, correct_matrix) -> None:
    fixed = records("fixed.py", [None, None, None, None])
    buggy = records("buggy.py", [None, None, None, None])
    mutants = {"m.py": records("m.py", [0.9, 0.9, 0.9, 0.9], correct_matrix(4, 3, [1]))}
    report = compare_from_records(buggy, fixed, mutants)
    assert report.fault_fisher is not None and report.fault_fisher.n_inputs == 3
    assert report.fault_kp is not None and report.fault_kp.kp == [0.0, 0.0, 0.0]
    mutant = report.mutants[0]
    assert mutant.fisher is not None and mutant.fisher.n_inputs == 3
    assert mutant.fisher.killed is False and mutant.fisher.min_p_value == 1.0
    assert mutant.kp is not None and mutant.kp.kp == [0.0, 0.0, 0.0]
    # no note on missing per-input correctness; a fault that crashed with its fix kills no input
    assert report.notes == [
        "fault not reproduced here: the buggy program kills no input: no mutant has a coupling strength or an IoU"
    ]
