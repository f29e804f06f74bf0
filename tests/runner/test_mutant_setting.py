"""A mutant runs in its program's setting, from its provenance (issue 35 item 3): the provenance
``mutate`` writes beside a mutant names its original, whose folder, framework and sibling modules the
mutant's runs get; a provenance whose original is not there is a clear error before anything
trains. The end-to-end case (``mutate --out`` + ``compare --mutants DIR`` of a program that writes
``fixed/result.json``) is tests/runner/test_mutant_outcomes.py."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.campaigns.pair import mutant_data_folders
from mutreal.execution.mutant_origin import ProvenanceError, original_of
from mutreal.execution.plan import prepare_program

ROOT = Path(__file__).parents[2]

KERAS1 = """\
from keras.models import Sequential
from keras.layers import Dense
model = Sequential()
model.add(Dense(1, input_dim=2, init='uniform', activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='sgd')
model.fit([[0.0, 1.0]] * 8, [1.0] * 8, nb_epoch=2)
"""

KERAS3 = """\
import keras
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
model.compile(optimizer="adam", loss="mse")
"""


def _provenance(mutant: Path, original: str, text: str) -> None:
    sha = hashlib.sha256(text.encode()).hexdigest()
    data = {"mutant": mutant.name, "original": original, "original_sha256": sha, "operator": "HLR", "parts": []}
    mutant.with_suffix(".json").write_text(json.dumps(data), encoding="utf-8")


def _layout(tmp_path: Path, original_text: str = KERAS1) -> tuple[Path, Path]:
    home = tmp_path / "bug" / "fixed"
    home.mkdir(parents=True)
    original = home / "program.py"
    original.write_text(original_text, encoding="utf-8")
    (tmp_path / "mutants").mkdir()
    return original, tmp_path / "mutants" / "program__HLR_0_0.1.py"


def test_a_mutant_runs_on_its_originals_framework(tmp_path: Path) -> None:
    original, mutant = _layout(tmp_path)
    mutant.write_text(KERAS3, encoding="utf-8")  # text that alone would run on Keras 3
    assert prepare_program(mutant, False).framework == "keras3"
    _provenance(mutant, str(original), KERAS1)
    prepared = prepare_program(mutant, False)
    assert prepared.framework == "tf_keras" and "from its provenance" in prepared.framework_reason


def test_a_relative_original_is_found_as_the_program_the_command_names(tmp_path: Path) -> None:
    original, mutant = _layout(tmp_path)
    mutant.write_text(KERAS1, encoding="utf-8")
    _provenance(mutant, "somewhere/else/program.py", KERAS1)  # relative to where mutate ran
    assert original_of(mutant, original) == original
    assert mutant_data_folders(original, [str(mutant)]) == {str(mutant): str(original.parent.resolve())}


def test_a_provenance_whose_original_is_not_there_is_an_error(tmp_path: Path) -> None:
    original, mutant = _layout(tmp_path)
    mutant.write_text(KERAS1, encoding="utf-8")
    _provenance(mutant, str(tmp_path / "gone" / "program.py"), "another text")
    with pytest.raises(ProvenanceError, match="not there"):
        mutant_data_folders(original, [str(mutant)])


def test_a_mutant_of_another_program_is_an_error(tmp_path: Path) -> None:
    original, mutant = _layout(tmp_path)
    other = tmp_path / "other.py"
    other.write_text(KERAS3, encoding="utf-8")
    mutant.write_text(KERAS3, encoding="utf-8")
    _provenance(mutant, str(other), KERAS3)
    with pytest.raises(ProvenanceError, match="another program"):
        original_of(mutant, original)


def test_compare_refuses_a_mutant_whose_original_is_gone_before_training(tmp_path: Path) -> None:
    original, mutant = _layout(tmp_path)
    mutant.write_text(KERAS1, encoding="utf-8")
    _provenance(mutant, str(tmp_path / "gone.py"), "another text")
    buggy = tmp_path / "bug" / "buggy.py"
    buggy.write_text(KERAS1, encoding="utf-8")
    command = shutil.which("mutreal", path=str(Path(sys.executable).parent)) or "mutreal"
    done = subprocess.run([command, "compare", "--buggy", str(buggy), "--fixed", str(original), "--mutants",
                           "mutants", "--runs", "1", "--store", "runs.sqlite", "-q"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))  # fmt: skip
    assert done.returncode == 1 and "error:" in done.stderr and "not there" in done.stderr, done.stderr
    assert not (tmp_path / "runs.sqlite").exists()  # nothing trained, nothing stored


HELPER_PROGRAM = """
import numpy as np
import keras
from settings import EPOCHS

x = np.random.default_rng(0).normal(size=(40, 3)).astype("float32")
y = (x[:, 0] > 0).astype("int64")
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=EPOCHS, verbose=0)
"""


@pytest.mark.slow
def test_a_mutant_of_several_files_runs_with_its_own_mutated_module(tmp_path: Path) -> None:
    """A reconstructed fault whose edit sits in a helper module: mirrored beside the mutant, it
    replaces its original's in the run (before, the run imported the fixed helper)."""
    from mutreal.execution import execute_campaign

    home, mirror = tmp_path / "fixed", tmp_path / "mutant"
    for folder, epochs in ((home, 1), (mirror, 3)):
        folder.mkdir()
        (folder / "program.py").write_text(HELPER_PROGRAM, encoding="utf-8")
        (folder / "settings.py").write_text(f"EPOCHS = {epochs}\n", encoding="utf-8")
    folders = mutant_data_folders(home / "program.py", [str(mirror / "program.py")])
    result = execute_campaign([home / "program.py", mirror / "program.py"], seeds=[0], jobs=1, progress=False,
                              data_folders=folders)  # fmt: skip
    epochs = {Path(r.program).parent.name: r.fits[0].epochs for r in result.records}
    assert epochs == {"fixed": 1, "mutant": 3}


DATA_BESIDE = """
import numpy as np
import keras

data = np.load("points.npy")  # beside the program: its folder is where it runs
x, y = data[:, :3].astype("float32"), (data[:, 3] > 0).astype("int64")
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
model.evaluate(x, y, verbose=0)
"""


@pytest.mark.slow
def test_run_trains_a_mutant_written_elsewhere_in_its_originals_folder(tmp_path: Path, mutreal_command: str) -> None:
    """``mutreal run MUTANT`` of a mutant from ``mutate --out``: its provenance puts it in its
    original's folder, where its data is (before, only its framework came from the provenance and
    the run failed on the missing file); a mutant whose original is gone is refused before training."""
    import numpy as np

    home = tmp_path / "bug" / "fixed"
    home.mkdir(parents=True)
    (home / "program.py").write_text(DATA_BESIDE, encoding="utf-8")
    rng = np.random.default_rng(0)
    np.save(home / "points.npy", rng.normal(size=(40, 4)))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    made = subprocess.run([mutreal_command, "mutate", str(home / "program.py"), "--op", "HLR", "--param", "0.1",
                           "--out", str(tmp_path / "mutants")], capture_output=True, text=True, timeout=300,
                          env=env)  # fmt: skip
    assert made.returncode == 0, made.stderr
    (mutant,) = sorted((tmp_path / "mutants").glob("*.py"))
    run = [mutreal_command, "run", str(mutant), "--runs", "1", "--jobs", "1", "--json", "-q"]
    done = subprocess.run([*run, "--store", str(tmp_path / "runs.sqlite")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (record,) = json.loads(done.stdout)["runs"]
    assert record["outcome"] == "ok", record
    (home / "program.py").rename(home / "moved.py")  # its original gone: a clear error, nothing trained
    refused = subprocess.run([*run, "--store", str(tmp_path / "other.sqlite")], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300, env=env)  # fmt: skip
    assert refused.returncode != 0 and "not there" in refused.stderr, refused.stderr
    assert not (tmp_path / "other.sqlite").exists()
