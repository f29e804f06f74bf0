"""``compare --mutants reconstruct`` on a real fault only some of whose components an operator makes.

The researcher still wants the closest mutant: the mutants of the simulable components (each
first-order, and their higher-order mutant when there are several), marked ``partial`` with the
components left out (code, element, reason), and a note on the bug's row. No training here: the
mutants are checked by classifying them against the buggy program, where exactly the components
no operator simulates must be left.

The programs are mutreal's own (benchmarks/campaign_pairs); the faults of the exhaustive test are
injected into the own fixed program by text edits: two an operator makes (Adam's learning rate
far too high: HLR; the last activation relu instead of softmax: ACH) and two none makes (the
pixels not scaled: CPP; the hidden layer missing: LRM, which also shifts the last layer's index).
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from mutreal.campaigns.mutants import reconstruct_mutants
from mutreal.label.classify import classify_safely
from mutreal.manifest import ManifestRow
from mutreal.study.validate import validate_bug

PAIRS = Path(__file__).resolve().parents[2] / "benchmarks" / "campaign_pairs"
PARTIAL = PAIRS / "learning_rate_too_high_missing_layer"
#: fault -> (text in the fixed program, text in the buggy one, the operator that makes it or None)
FAULTS = {
    "high_lr": ("learning_rate=0.001", "learning_rate=2.0", "HLR"),
    "last_relu": ('Dense(10, activation="softmax")', 'Dense(10, activation="relu")', "ACH"),
    "no_scaling": ('.astype("float32") / 16.0', '.astype("float32")', None),
    "no_hidden": ('        keras.layers.Dense(32, activation="relu"),\n', "", None),
}
#: the classify codes of the faults an operator makes (what a mutant must remove from the diff)
FAULTS_CODES = {"HLR", "ACH"}
SUBSETS = [s for k in range(1, len(FAULTS) + 1) for s in itertools.combinations(FAULTS, k)]


def left_between(mutant: str, buggy: str) -> list[tuple[str, str]]:
    """(code, element) of what classify still finds between a mutant and the buggy program."""
    ast.parse(Path(mutant).read_text(encoding="utf-8"))  # a mutant is a program
    result = classify_safely([mutant], [buggy], bug_id="m", benchmark=None)
    assert result.status == "ok", result.error
    return [(c.code, c.element) for c in result.components]


def test_the_simulable_fault_is_built_and_marked_partial(tmp_path: Path):
    buggy, fixed = str(PARTIAL / "buggy.py"), str(PARTIAL / "fixed.py")
    made = reconstruct_mutants("p", "own", [buggy], [fixed], fixed, tmp_path / "m")
    assert made.reason is None and made.failures == []
    (mutant,) = made.mutants
    assert (mutant.operator, mutant.value) == ("HLR", 2.0)
    prov = mutant.provenance
    assert prov["exact"] is False and prov["partial"] is True
    assert prov["reconstructed"] == [
        {"code": "HLR", "element": "compile.optimizer.learning_rate", "operator": "HLR"}
    ]
    (left,) = prov["not_reconstructed"]
    # the classify row's code (buggy to fixed: a layer missing), and its reason
    assert (left["code"], left["element"], left["status"]) == ("LRM", "model[0].layer[1]", "not_simulable")
    assert "layers" in left["reason"]
    (note,) = made.notes
    assert note.startswith("partial reconstruction: the mutants reconstruct 1 of 2") and "LRM" in note
    # the learning rate is gone from the diff with the buggy program; only the layer is left
    assert [code for code, _ in left_between(mutant.file, buggy)] == ["LAD"]


def test_validate_operators_still_skips_a_partly_simulable_bug(tmp_path: Path):
    row = ManifestRow("p", "own", [str(PARTIAL / "buggy.py")], [str(PARTIAL / "fixed.py")])
    assert validate_bug(row).status == "not_simulable"  # its per-operator figures are unchanged
    attempted = validate_bug(row, workdir=str(tmp_path), partial=True)
    assert attempted.status == "partial"
    assert sorted((o.code, o.status) for o in attempted.components) == [
        ("HLR", "reconstructed"), ("LAD", "not_simulable"),
    ]  # fmt: skip


@pytest.mark.parametrize("faults", SUBSETS, ids=["+".join(s) for s in SUBSETS])
def test_any_mix_of_faults_gets_the_mutants_of_its_simulable_part(faults: tuple[str, ...], tmp_path: Path):
    fixed_text = (PARTIAL / "fixed.py").read_text(encoding="utf-8")
    buggy_text = fixed_text
    for name in faults:
        before, after, _ = FAULTS[name]
        assert before in buggy_text
        buggy_text = buggy_text.replace(before, after)
    fixed, buggy = tmp_path / "fixed.py", tmp_path / "buggy.py"
    fixed.write_text(fixed_text, encoding="utf-8")
    buggy.write_text(buggy_text, encoding="utf-8")
    made = reconstruct_mutants("mix", "own", [str(buggy)], [str(fixed)], str(fixed), tmp_path / "m")
    operators = sorted(FAULTS[f][2] for f in faults if FAULTS[f][2])
    others = len(faults) - len(operators)
    if not operators:  # nothing simulable: no mutant, and why
        assert made.mutants == [] and made.notes == [] and "no operator simulates" in made.reason
        assert f"{others} of {others} component(s)" in made.reason
        return
    assert made.reason is None and made.failures == []
    # each operator's first-order mutant, plus the higher-order one when there are several
    expected = operators if len(operators) == 1 else [*operators, "+".join(operators)]
    assert sorted(m.operator for m in made.mutants) == sorted(expected)
    assert all(m.provenance["partial"] is bool(others) for m in made.mutants)
    assert all(m.provenance["exact"] is (not others and m.operator == expected[-1]) for m in made.mutants)
    assert len(made.notes) == (1 if others else 0)
    for m in made.mutants:
        prov = m.provenance
        assert sorted(c["operator"] for c in prov["reconstructed"]) == operators
        assert len(prov["not_reconstructed"]) == others
        assert all(c["status"] == "not_simulable" and c["reason"] for c in prov["not_reconstructed"])
        left = left_between(m.file, str(buggy))
        made_here = set(m.operator.split("+"))
        # what the mutant makes is gone; the other operator's fault and the unsimulable ones are left
        assert sorted(code for code, _ in left if code in FAULTS_CODES) == sorted(set(operators) - made_here)
        assert len([code for code, _ in left if code not in FAULTS_CODES]) == others

