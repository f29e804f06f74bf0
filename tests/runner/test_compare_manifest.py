"""``mutreal compare --manifest``: the mutants set against each real fault, and the decided rows.

Own pairs (benchmarks/campaign_pairs, digits MLPs written for mutreal): a fault an operator
reconstructs exactly must give that operator's mutant, with the fault's value, and (trained, slow)
couple strongly with the fault; a missing layer, which no operator makes, gives no mutant and a
reason; a fault of both kinds gives the mutant of its simulable part, marked partial. Regression inputs are judged by a tolerance (a property over any predictions).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.campaigns.compare import JudgedRecord, resolve_tolerance
from mutreal.campaigns.mutants import all_mutants, given_mutants, reconstruct_mutants
from mutreal.execution.records import EvaluateRecord, RunRecord

PAIRS = Path(__file__).resolve().parents[2] / "benchmarks" / "campaign_pairs"
#: pair -> (operator, value) that reconstructs its fault
RECONSTRUCTED = {
    "wrong_last_activation": ("ACH", "relu"),
    "learning_rate_too_high": ("HLR", 2.0),
    "too_few_epochs": ("HNE", 1),
}


def pair(name: str) -> tuple[str, str]:
    return str(PAIRS / name / "buggy.py"), str(PAIRS / name / "fixed.py")


@pytest.mark.parametrize("name", sorted(RECONSTRUCTED))
def test_reconstruct_finds_the_operator_with_the_fault_value(name: str, tmp_path: Path):
    buggy, fixed = pair(name)
    made = reconstruct_mutants(name, "own", [buggy], [fixed], fixed, tmp_path / "m")
    operator, value = RECONSTRUCTED[name]
    assert made.reason is None and len(made.mutants) == 1
    mutant = made.mutants[0]
    assert (mutant.operator, mutant.value, mutant.provenance["exact"]) == (operator, value, True)
    assert Path(mutant.file).is_relative_to(
        tmp_path
    )  # written in the output's folder, not beside the programs
    # the mutant differs from the buggy program only in its docstring
    strip = lambda text: text.split('"""', 2)[2]  # noqa: E731
    assert strip(Path(mutant.file).read_text()) == strip(Path(buggy).read_text())


@pytest.mark.parametrize("name, code", [("missing_layer", "LRM"), ("missing_preprocessing", "CPP")])
def test_fault_no_operator_makes_has_a_reason(name: str, code: str, tmp_path: Path):
    buggy, fixed = pair(name)
    made = reconstruct_mutants(name, "own", [buggy], [fixed], fixed, tmp_path / "m")
    assert made.mutants == [] and code in made.reason and "no operator simulates" in made.reason
    assert not (tmp_path / "m").exists()


def test_all_mutants_cover_the_operators_and_given_folders_keep_provenance(tmp_path: Path):
    _, fixed = pair("too_few_epochs")
    made = all_mutants(fixed, tmp_path / "all")
    operators = {m.operator for m in made.mutants}
    assert {"ACH", "HLR", "HNE", "HBS", "LCH", "OCH"} <= operators
    assert len({m.file for m in made.mutants}) == len(made.mutants) > 20
    assert all(Path(m.file).with_suffix(".json").is_file() for m in made.mutants)
    # the same files as a folder of given mutants: DIR/<bug id>/*.py, provenance read beside them
    given = tmp_path / "given" / "too_few_epochs"
    given.parent.mkdir()
    (tmp_path / "all").rename(given)
    again = given_mutants(tmp_path / "given", "too_few_epochs")
    assert sorted((m.operator, json.dumps(m.value)) for m in again.mutants) == sorted(
        (m.operator, json.dumps(m.value)) for m in made.mutants
    )
    assert "no folder" in given_mutants(tmp_path / "given", "other").reason


def regression_record(predictions: list[float], labels: list[float]) -> RunRecord:
    evaluation = EvaluateRecord({"loss": 1.0}, predictions=predictions, labels=labels, prediction_kind="value",
                                n_inputs=len(labels))  # fmt: skip
    return RunRecord(key="k", program="p.py", seed=0, outcome="ok", evaluations=[evaluation])


finite = st.floats(-1e3, 1e3, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=30), st.floats(0, 100))
def test_regression_input_is_correct_within_the_tolerance(pairs, tolerance):
    record = regression_record([p for p, _ in pairs], [y for _, y in pairs])
    assert record.correct is None  # the runner has no per-input correctness for regression
    judged = JudgedRecord(record, tolerance)
    assert judged.correct == [abs(p - y) <= tolerance for p, y in pairs]
    assert judged.seed == 0 and judged.metric()[0] == "loss"  # everything else is the record's own


def test_default_tolerance_is_a_tenth_of_the_target_range():
    records = [regression_record([0.0, 1.0], [2.0, 12.0])]
    assert resolve_tolerance([records], None) == (True, pytest.approx(1.0))
    assert resolve_tolerance([records], 0.25) == (True, 0.25)
    classified = RunRecord(key="k", program="p.py", seed=0, outcome="ok", evaluations=[
        EvaluateRecord({"accuracy": 1.0}, predictions=[1], labels=[1], prediction_kind="class")])  # fmt: skip
    assert resolve_tolerance([[classified]], None) == (False, None)


def mutreal(*args: str, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mutreal", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


def manifest(tmp_path: Path, names: list[str]) -> Path:
    lines = ["id,benchmark,buggy,fixed"]
    lines += [f"{n},own,{PAIRS / n / 'buggy.py'},{PAIRS / n / 'fixed.py'}" for n in names]
    path = tmp_path / "m.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_refuses_mixed_or_unknown_modes(tmp_path: Path):
    m = manifest(tmp_path, ["missing_layer"])
    buggy, fixed = pair("missing_layer")
    done = mutreal("compare", "--manifest", str(m), "--buggy", buggy, "--fixed", fixed, cwd=tmp_path)
    assert done.returncode == 2 and "not both" in done.stderr
    done = mutreal("compare", "--manifest", str(m), "--mutants", "nonsense", cwd=tmp_path)
    assert done.returncode == 2 and "neither reconstruct nor all nor a folder" in done.stderr
    done = mutreal("compare", "--buggy", buggy, "--fixed", fixed, "--tolerance", "1", "--mutants", str(tmp_path),
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2 and "--tolerance goes with --manifest" in done.stderr
    # a bug no operator simulates is decided without training: no-mutants and the reason, exit 0
    done = mutreal("compare", "--manifest", str(m), "--runs", "2", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert (row["status"], row["mutants"], row["trainings"]) == ("no-mutants", [], 0) and "LRM" in row[
        "reason"
    ]


@pytest.mark.slow
def test_compare_manifest_reconstructs_couples_and_resumes(tmp_path: Path):
    m = manifest(tmp_path, ["too_few_epochs", "missing_layer", "not_there"])  # not_there: no such program
    # a fault of two components, one HLR makes, one none makes (a missing layer); its fixed program is
    # too_few_epochs' (the same MLP), so its fixed runs are the ones trained for that bug
    partial = PAIRS / "learning_rate_too_high_missing_layer"
    with m.open("a") as handle:
        handle.write(f"partial,own,{partial / 'buggy.py'},{PAIRS / 'too_few_epochs' / 'fixed.py'}\n")
    out = tmp_path / "c.jsonl"
    done = mutreal("compare", "--manifest", str(m), "--runs", "3", "--jobs", "2", "--out", str(out), "-q",
                   cwd=tmp_path, timeout=1200)  # fmt: skip
    assert done.returncode == 1 and "1 bug(s) not decided" in done.stderr  # the absent program's row
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["not_there"]["status"] == "error" and "not_there/buggy.py" in rows["not_there"]["error"]
    epochs = rows["too_few_epochs"]
    assert epochs["status"] == "ok" and epochs["correctness"].startswith("class")
    assert epochs["fault"]["killed"] is True and epochs["trainings"] == 9  # buggy, fixed, mutant x 3 seeds
    (best,) = epochs["mutants"]
    assert (best["operator"], best["value"], best["killed"]) == ("HNE", 1, True)
    assert best["coupling"] >= 0.8 and best["iou"] >= 0.8
    assert best["reliable"] is False  # 3 runs: fewer than the 5 a reliable coupling needs
    kp = best["kp"]
    assert len(kp["kp"]) == len(kp["low"]) == len(kp["high"]) == kp["n_inputs"] > 100
    assert all(lo <= k <= hi for lo, k, hi in zip(kp["low"], kp["kp"], kp["high"], strict=True))
    assert epochs["best"]["operator"] == "HNE" and Path(epochs["best"]["file"]).is_relative_to(
        tmp_path / "c.jsonl.work"
    )
    assert rows["missing_layer"]["status"] == "no-mutants" and "LRM" in rows["missing_layer"]["reason"]
    part = rows["partial"]
    assert part["status"] == "ok" and part["trainings"] == 6  # buggy and the mutant; fixed runs reused
    (mutant,) = part["mutants"]
    assert (mutant["operator"], mutant["value"], mutant["provenance"]["partial"]) == ("HLR", 2.0, True)
    assert mutant["provenance"]["exact"] is False and mutant["provenance"]["not_reconstructed"][0]["code"] == "LRM"
    assert part["notes"][0].startswith("partial reconstruction: the mutants reconstruct 1 of 2")
    assert not any(n.startswith("partial") for n in epochs["notes"])
    # resume: every bug has a row (the error row too, as reproduce --manifest keeps it), nothing runs again
    before = out.read_text().splitlines()
    again = mutreal("compare", "--manifest", str(m), "--runs", "3", "--out", str(out), "-q", cwd=tmp_path)
    assert again.returncode == 1  # the kept error row still counts
    assert out.read_text().splitlines() == before


def test_runs_stopped_at_a_limit_are_named_in_the_row():
    """A mutant cut at the time limit counts as failing every input; the row must say so."""
    from mutreal.campaigns.compare import decide
    from mutreal.campaigns.mutants import MutantSet, MutantSpec
    from mutreal.campaigns.reproduce import ReproduceTask

    def runs(program, outcomes):
        evaluation = EvaluateRecord(results={"loss": 0.5, "accuracy": 0.8}, predictions=[1, 0, 1], labels=[1, 0, 0],
                                    prediction_kind="class")  # fmt: skip
        return [RunRecord(key=f"{program}{i}", program=program, seed=i, outcome=o,
                          evaluations=[evaluation] if o == "ok" else [])
                for i, o in enumerate(outcomes)]  # fmt: skip

    task = ReproduceTask(id="b", benchmark=None, buggy=["b.py"], fixed=["f.py"], symptom="auto")
    made = MutantSet(mutants=[MutantSpec(file="/m/slow.py", operator="HNE")])
    groups = [runs("b.py", ["ok"] * 3), runs("f.py", ["ok"] * 3), runs("/m/slow.py", ["ok", "timeout", "timeout"])]
    row = decide(task, "b.py", "f.py", made, groups, mode="reconstruct")
    stopped = [n for n in row.notes if n.startswith("slow.py")]
    assert stopped == [
        # a mutant's stopped runs are its failure's kind (issue 35), not runs wrong on every input
        "slow.py: 2 of 3 runs stopped at mutreal's time limit are classified as the mutant's failure "
        "(outgrown or harness), not a kill; rerun with a higher limit (stored runs are reused)",
    ]


def test_reliable_reads_the_median_n_the_row_prints():
    """Inputs paired by content, n per input 1, 1, 5, 5: the row's pairing note prints median n 3, so
    the coupling is not reliable (fewer than 5), not reliable by the upper median 5."""
    from mutreal.analysis.pairing import content_note
    from mutreal.campaigns.compare import MIN_RELIABLE_RUNS, _reliable

    n = [1, 1, MIN_RELIABLE_RUNS, MIN_RELIABLE_RUNS]
    kp = {"n_instances": MIN_RELIABLE_RUNS, "n": n, "inputs_killing": 1}
    assert "median n per input 3" in content_note(len(n), n)
    assert _reliable({"coupling_strength": 0.5, "kp": kp}, kp) is False
    fixed = {**kp, "n": [MIN_RELIABLE_RUNS - 1, MIN_RELIABLE_RUNS, MIN_RELIABLE_RUNS]}
    assert _reliable({"coupling_strength": 0.5, "kp": fixed}, fixed) is True
