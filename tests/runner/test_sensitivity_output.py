"""sensitivity writes under the current directory, and its mutants still see the program's data files."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mutreal.campaigns.sensitivity import mark_output_folder, write_mutant
from mutreal.execution.hashing import OUTPUT_MARKER, data_hash

#: Reads its data from a subfolder beside it: a mutant that cannot see that folder fails.
DATA_PROGRAM = """
import numpy as np
import keras

data = np.load("data/xy.npz")
x, y = data["x"], data["y"]
model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
model.fit(x[:150], y[:150], epochs=1, batch_size=32, verbose=0)
model.evaluate(x[150:], y[150:], verbose=0)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A program folder: the program, its data in data/, a local helper module and a CSV."""
    folder = tmp_path / "project"
    (folder / "data").mkdir(parents=True)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 8)).astype("float32")
    np.savez(folder / "data" / "xy.npz", x=x, y=(x[:, 0] > 0).astype("int64"))
    (folder / "prog.py").write_text(textwrap.dedent(DATA_PROGRAM), encoding="utf-8")
    (folder / "helpers.py").write_text("SCALE = 2\n", encoding="utf-8")
    (folder / "labels.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    return folder


def test_a_marked_output_folder_leaves_the_program_data_hash_alone(project: Path) -> None:
    before = data_hash(project)
    out = project / "sensitivity-prog-HLR"
    assert mark_output_folder(out)
    Path(write_mutant(str(project / "prog.py"), "HLR", 0, 0.5, out / "mutants"))
    (out / "plot.png").write_bytes(b"\x89PNG not data")
    assert data_hash(project) == before


def test_a_folder_with_other_files_is_not_marked(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "train.csv").write_text("x\n1\n", encoding="utf-8")
    assert not mark_output_folder(folder) and not (folder / OUTPUT_MARKER).exists()
    assert mark_output_folder(tmp_path / "new") and mark_output_folder(tmp_path / "new")


@pytest.mark.slow
def test_sensitivity_writes_under_the_current_directory_and_mutants_find_the_data(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mutreal.cli import main

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before = sorted(p.name for p in project.iterdir())
    result = CliRunner().invoke(
        main,
        ["sensitivity", str(project / "prog.py"), "--op", "HLR", "--values", "0.5", "--runs", "2", "--jobs", "1",
         "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    (point,) = data["points"]
    assert point["mutant"]["summary"]["n"] == 2, point  # both runs found data/xy.npz
    out = work / "sensitivity-prog-HLR"
    assert Path(point["program"]).resolve().parent == (out / "mutants").resolve()
    assert (out / "sensitivity_prog_HLR.png").is_file() and Path(
        data["plot"]
    ).resolve().parent == out.resolve()
    assert sorted(p.name for p in project.iterdir()) == before  # nothing written beside the program
