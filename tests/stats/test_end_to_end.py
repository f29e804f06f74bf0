"""reproduce / kill / compare end to end: real (tiny) Keras trainings through the runner. Slow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.cli import main

pytestmark = pytest.mark.slow

PROGRAM = """
import keras
from sklearn.datasets import load_digits

digits = load_digits()
x = digits.data.astype("float32") / 16.0
y = keras.utils.to_categorical(digits.target, 10)
x_train, y_train, x_test, y_test = x[:1400], y[:1400], x[1400:], y[1400:]
model = keras.Sequential([
    keras.Input(shape=(64,)),
    keras.layers.Dense(32, activation="relu"),
    keras.layers.Dense(10, activation="{last}"),
])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs={epochs}, batch_size=32, verbose=0)
model.evaluate(x_test, y_test, verbose=0)
"""

RUNS = "4"  # the smallest N at which a per-input Fisher test can reach p < 0.05 (1/70)


@pytest.fixture(scope="module")
def subjects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("subjects")
    mutants = folder / "mutants"
    mutants.mkdir()
    files = {
        "fixed": folder / "fixed.py",
        "buggy": folder / "buggy.py",
        "copy": mutants / "copy_of_fixed.py",
        "reconstruction": mutants / "reconstruction.py",
        "fewer_epochs": mutants / "fewer_epochs.py",
    }
    files["fixed"].write_text(PROGRAM.format(last="softmax", epochs=5))
    files["buggy"].write_text(PROGRAM.format(last="relu", epochs=5))
    files["copy"].write_text(PROGRAM.format(last="softmax", epochs=5) + "\n# an equivalent mutant\n")
    files["reconstruction"].write_text(PROGRAM.format(last="relu", epochs=5))
    files["fewer_epochs"].write_text(PROGRAM.format(last="softmax", epochs=1))
    files["store"] = folder / "runs.sqlite"
    files["mutants"] = mutants
    return files


def invoke(*args: str) -> dict:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_reproduce_reports_reproduced_and_stable(subjects: dict[str, Path]) -> None:
    data = invoke("reproduce", str(subjects["buggy"]), str(subjects["fixed"]), "--runs", RUNS, "--jobs", "2",
                  "--store", str(subjects["store"]), "--json")  # fmt: skip
    assert data["reproduced"] is True and data["stable"] is True
    assert data["symptom"] == "performance"
    assert data["stats"]["n_a"] == 4 and data["stats"]["verdict"] == "b better"
    assert data["fixed"]["summary"]["mean"] > 0.8


def test_kill_deepcrime_and_fisher(subjects: dict[str, Path]) -> None:
    data = invoke("kill", str(subjects["fixed"]), str(subjects["buggy"]), str(subjects["copy"]), "--runs", RUNS,
                  "--jobs", "2", "--store", str(subjects["store"]), "--json")  # fmt: skip
    buggy, copy = data["mutants"]
    assert buggy["killed"] is True and buggy["fisher_killed"] is True and buggy["killed_holm"] is True
    assert copy["killed"] is False and copy["fisher_killed"] is False
    # same seeds, same program: the equivalent copy trains to exactly the original's numbers
    assert copy["mutant"]["values"] == data["original"]["values"]


def test_kill_and_reproduce_exit_1_when_the_reference_never_trains(
    subjects: dict[str, Path], tmp_path: Path
) -> None:
    broken = tmp_path / "broken_original.py"
    broken.write_text("model.fit(\n")
    result = CliRunner().invoke(main, ["kill", str(broken), str(subjects["copy"]), "--runs", "1", "--json"])
    assert result.exit_code == 1 and "no successful run" in result.stderr
    assert json.loads(result.stdout)["original"]["summary"]["n"] == 0
    result = CliRunner().invoke(main, ["reproduce", str(subjects["copy"]), str(broken), "--runs", "1"])
    assert result.exit_code == 1 and "no completed run" in result.stderr and "reproduced:" in result.stdout


def test_compare_runs_end_to_end(subjects: dict[str, Path]) -> None:
    data = invoke("compare", "--buggy", str(subjects["buggy"]), "--fixed", str(subjects["fixed"]),
                  "--mutants", str(subjects["mutants"]), "--runs", RUNS, "--jobs", "2",
                  "--store", str(subjects["store"]), "--json")  # fmt: skip
    by_name = {Path(m["program"]).name: m for m in data["mutants"]}
    assert set(by_name) == {"copy_of_fixed.py", "reconstruction.py", "fewer_epochs.py"}
    twin = by_name["reconstruction.py"]
    assert twin["coupling_strength"] == 1.0 and twin["detectability_iou"] == 1.0
    assert twin["killing_agreement"] is True and twin["metric_vs_fault"]["verdict"] == "no difference"
    assert by_name["copy_of_fixed.py"]["killed"] is False
    assert data["fault"]["killed"] is True


def test_adaptive_kill_stops_early_and_saves_runs(subjects: dict[str, Path]) -> None:
    data = invoke("kill", str(subjects["fixed"]), str(subjects["buggy"]), "--runs", "8", "--min-runs", "4",
                  "--step", "4", "--adaptive", "--jobs", "2", "--store", str(subjects["store"]), "--json")  # fmt: skip
    (buggy,) = data["mutants"]
    assert buggy["killed"] is True
    sequential = buggy["sequential"]
    assert sequential["decision"] is True and sequential["stopped_early"] is True
    assert sequential["used_runs"] == 4 and buggy["mutant"]["runs"] == 4
    assert data["original"]["runs"] == 4
    assert data["runs_saved"] == 8  # 4 runs of the mutant and 4 of the original never trained


def test_adaptive_reproduce_counts_both_programs(subjects: dict[str, Path]) -> None:
    data = invoke("reproduce", str(subjects["buggy"]), str(subjects["fixed"]), "--runs", "8", "--min-runs", "4",
                  "--step", "4", "--adaptive", "--jobs", "2", "--store", str(subjects["store"]), "--json")  # fmt: skip
    assert data["reproduced"] is True
    assert data["sequential"]["used_runs"] == 4 and data["sequential"]["runs_saved"] == 8
