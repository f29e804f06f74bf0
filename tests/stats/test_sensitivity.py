"""``mutreal sensitivity``: operator sweep with a plot and DeepCrime's binary search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.campaigns.sensitivity import _midpoint
from mutreal.cli import main

PROGRAM = """
import keras
from sklearn.datasets import load_digits

digits = load_digits()
x = digits.data.astype("float32") / 16.0
y = keras.utils.to_categorical(digits.target, 10)
model = keras.Sequential([keras.Input(shape=(64,)), keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x[:1400], y[:1400], epochs=6, batch_size=32, verbose=0)
model.evaluate(x[1400:], y[1400:], verbose=0)
"""


def test_midpoint_is_geometric_across_orders_of_magnitude() -> None:
    assert _midpoint(1e-3, 1e-5, integer=False) == pytest.approx(1e-4)
    assert _midpoint(0.0, 50.0, integer=False) == 25.0
    assert _midpoint(20.0, 1.0, integer=True) == 4.0  # sqrt(20) rounded
    assert _midpoint(8.0, 4.0, integer=True) == 6.0


def test_unknown_operator_and_bad_site_fail_clearly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default output folder is under the current directory
    program = tmp_path / "p.py"
    program.write_text(PROGRAM)
    result = CliRunner().invoke(main, ["sensitivity", str(program), "--op", "NOPE", "--values", "1"])
    assert result.exit_code == 2 and "unknown operator" in result.output
    result = CliRunner().invoke(
        main, ["sensitivity", str(program), "--op", "HNE", "--site", "5", "--values", "1"]
    )
    assert result.exit_code == 1 and "no site 5" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.py"]  # no empty output folder left behind


@pytest.mark.slow
def test_sweep_plot_and_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default output folder is under the current directory
    program = tmp_path / "p.py"
    program.write_text(PROGRAM)
    result = CliRunner().invoke(
        main,
        ["sensitivity", str(program), "--op", "HNE", "--values", "1", "--runs", "3", "--jobs", "2", "--search",
         "--search-steps", "1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["original_value"] == 6 and data["element"] == "fit.epochs"
    values = [p["value"] for p in data["points"]]
    assert values[0] == 1 and len(values) == 2  # the swept value and the search's midpoint
    one_epoch = data["points"][0]
    assert one_epoch["mutant"]["summary"]["n"] == 3 and one_epoch["killed"] is True
    assert "epochs=1" in Path(one_epoch["program"]).read_text()
    assert data["search"]["killable"] is True and data["search"]["from"] == 1
    assert Path(data["plot"]).stat().st_size > 1000
