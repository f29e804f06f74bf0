"""Mutants written away from their program (``mutate --out``) read the program's data files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mutreal.campaigns.pair import kill, mutant_data_folders
from mutreal.execution import CampaignConfig, run_campaign

READS_DATA = """
import numpy as np
import keras

data = np.load("xy.npz")  # beside the program, opened by a relative path
x, y = data["x"], data["y"]
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x[:60], y[:60], epochs=EPOCHS, batch_size=10, verbose=0)
model.evaluate(x[60:], y[60:], verbose=0)
"""


def test_mutants_elsewhere_map_to_the_original_folder(tmp_path: Path) -> None:
    original = tmp_path / "subject" / "p.py"
    beside, elsewhere = tmp_path / "subject" / "m1.py", tmp_path / "mutants" / "m2.py"
    folders = mutant_data_folders(original, [beside, elsewhere])
    assert folders == {str(elsewhere): str((tmp_path / "subject").resolve())}
    assert mutant_data_folders(original, [elsewhere], {str(elsewhere): "/data"}) == {str(elsewhere): "/data"}
    config = CampaignConfig(data_folders=folders)
    assert config.data_folder(elsewhere) == (tmp_path / "subject").resolve()
    assert config.data_folder(beside) == (tmp_path / "subject").resolve()
    assert CampaignConfig.from_yaml(config.to_yaml()).data_folders == folders  # replayable with --config


@pytest.mark.slow
def test_kill_runs_mutants_from_another_folder_on_the_original_data(tmp_path: Path) -> None:
    subject, mutants = tmp_path / "subject", tmp_path / "mutants"
    subject.mkdir()
    mutants.mkdir()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(90, 4)).astype("float32")
    np.savez(subject / "xy.npz", x=x, y=(x[:, 0] > 0).astype("int64"))
    original = subject / "p.py"
    original.write_text(READS_DATA.replace("EPOCHS", "3"))
    mutant = mutants / "p_HNE.py"
    mutant.write_text(READS_DATA.replace("EPOCHS", "1"))
    # on its own, the mutant cannot find the data
    alone = run_campaign([mutant], runs=1, jobs=1, progress=False)
    assert alone[0].outcome != "ok" and "xy.npz" in (alone[0].error_message or "")
    report = kill(str(original), [str(mutant)], runs=2, campaign={"jobs": 1, "progress": False})
    verdict = report.to_dict()
    assert verdict["original"]["outcomes"] == {"ok": 2}
    mutant_series = verdict["mutants"][0]["mutant"]
    assert mutant_series["outcomes"] == {"ok": 2}  # trained on the original's data
