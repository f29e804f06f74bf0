"""A fault that does not reproduce is said (issue 35 item 5): where the buggy program kills no input,
or is not worse than the fixed one, compare gives no coupling strength or IoU (null with the reason
"fault not reproduced here" and both programs' means and runs), not 0.0 ("unlike the fault").
Fast: records built by hand; the end-to-end case is tests/runner/test_mutant_outcomes.py."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.analysis.similarity import NOT_REPRODUCED, compare_from_records


def test_a_buggy_program_better_than_its_fix_has_null_figures_with_the_reason(records, correct_matrix) -> None:
    make_records, correctness = records, correct_matrix
    fixed = make_records("fixed.py", [0.76, 0.75, 0.77], correctness(3, 6, [4, 5]))
    buggy = make_records("buggy.py", [0.99, 0.99, 0.98], correctness(3, 6, []))
    mutant = make_records("m.py", [0.5, 0.5, 0.5], correctness(3, 6, [0, 1, 2]))
    report = compare_from_records(buggy, fixed, {"m.py": mutant})
    data = report.to_dict()
    missing = data["fault"]["not_reproduced"]
    assert data["fault"]["reproduced"] is False and missing["reason"].startswith(f"{NOT_REPRODUCED}: ")
    assert "kills no input" in missing["reason"] and "not worse at accuracy" in missing["reason"]
    assert missing["buggy"] == {"mean": 0.986667, "n": 3, "runs": 3, "failed": 0}
    assert missing["fixed"]["mean"] == 0.76 and missing["fixed"]["runs"] == 3
    (row,) = data["mutants"]
    assert row["kp"] is not None and row["killed"] is not None  # the mutant is still measured and judged
    assert row["coupling_strength"] is None and row["detectability_iou"] is None
    assert row["similarity_reason"] == missing["reason"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 5), max_size=6, unique=True), st.floats(0.5, 0.95), st.floats(0.5, 0.95))
def test_figures_exist_only_for_a_fault_that_kills_an_input_and_is_worse(
    records, correct_matrix, wrong, buggy_mean, fixed_mean
) -> None:
    make_records, correctness = records, correct_matrix  # pure builders: nothing kept between examples
    spread = [0.0, 0.02, -0.01]  # runs that vary, as trainings do (DeepCrime's GLM needs a variance)
    fixed = make_records("fixed.py", [fixed_mean + d for d in spread], correctness(3, 6, []))
    buggy = make_records("buggy.py", [buggy_mean + d for d in spread], correctness(3, 6, wrong))
    mutant = make_records("m.py", [0.5 + d for d in spread], correctness(3, 6, [0, 1]))
    report = compare_from_records(buggy, fixed, {"m.py": mutant})
    reproduces = bool(wrong) and report.buggy.summary.mean < report.fixed.summary.mean  # the runs' own means
    assert (report.not_reproduced is None) is reproduces
    assert (report.mutants[0].similarity is not None) is reproduces
