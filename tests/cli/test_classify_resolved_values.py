"""The classify table shows what a changed named constant resolves to; the JSON keeps the source text."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mutreal.commands.classify import classify
from mutreal.label.classify import BugResult, classify_pair

PROGRAM = """
import keras

LEARNING_RATE = {lr}
ACTIVATION = {act!r}
EPOCHS = {epochs}
model = keras.Sequential([keras.layers.Dense(8, activation=ACTIVATION), keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=LEARNING_RATE), loss="categorical_crossentropy")
model.fit(x, y, epochs=EPOCHS, batch_size=32)
"""


def _pair(tmp_path: Path, buggy: dict, fixed: dict) -> tuple[str, str]:
    paths = []
    for name, values in (("buggy.py", buggy), ("fixed.py", fixed)):
        path = tmp_path / name
        path.write_text(textwrap.dedent(PROGRAM).format(**values), encoding="utf-8")
        paths.append(str(path))
    return paths[0], paths[1]


def _row(output: str, element: str) -> list[str]:
    return next(line.split() for line in output.splitlines() if element in line.split())


def test_table_shows_the_values_of_changed_named_constants(tmp_path: Path) -> None:
    buggy, fixed = _pair(
        tmp_path, {"lr": 0.01, "act": "sigmoid", "epochs": 5}, {"lr": 0.1, "act": "relu", "epochs": 50}
    )
    result = CliRunner().invoke(classify, [buggy, fixed])
    assert result.exit_code == 0, result.output
    row = _row(result.output, "compile.optimizer.learning_rate")
    assert row[3:5] == ["LEARNING_RATE=0.01", "LEARNING_RATE=0.1"]
    assert _row(result.output, "fit.epochs")[3:5] == ["EPOCHS=5", "EPOCHS=50"]
    assert _row(result.output, "model[0].layer[0].activation")[3:5] == [
        "ACTIVATION='sigmoid'",
        "ACTIVATION='relu'",
    ]


def test_json_keeps_the_short_source_text_and_adds_the_resolved_values(tmp_path: Path) -> None:
    buggy, fixed = _pair(
        tmp_path, {"lr": 0.01, "act": "relu", "epochs": 5}, {"lr": 0.1, "act": "relu", "epochs": 5}
    )
    result = CliRunner().invoke(classify, ["--json", buggy, fixed])
    assert result.exit_code == 0, result.output
    (component,) = json.loads(result.output)["components"]
    assert (component["before"], component["after"]) == ("LEARNING_RATE", "LEARNING_RATE")
    assert component["resolved"] == {"before": 0.01, "after": 0.1}  # the values, beside the text
    bug = classify_pair(buggy, fixed)
    assert bug.components[0].resolved == {"before": 0.01, "after": 0.1}
    assert BugResult.from_dict(bug.to_dict()).to_dict() == bug.to_dict()
    assert BugResult.from_dict(bug.to_dict()).components[0].resolved == {"before": 0.01, "after": 0.1}


def test_a_literal_is_shown_as_it_is(tmp_path: Path) -> None:
    sides = []
    for name, lr in (("buggy.py", "0.01"), ("fixed.py", "0.1")):
        path = tmp_path / name
        path.write_text(textwrap.dedent(PROGRAM).replace("=LEARNING_RATE", "=" + lr).format(
            lr=lr, act="relu", epochs=5), encoding="utf-8")  # fmt: skip
        sides.append(str(path))
    result = CliRunner().invoke(classify, sides)
    assert _row(result.output, "compile.optimizer.learning_rate")[3:5] == ["0.01", "0.1"]


@settings(max_examples=15, deadline=None)
@given(
    before=st.integers(1, 10_000),
    after=st.integers(1, 10_000),
)
def test_any_changed_epoch_constant_shows_both_values(tmp_path_factory, before: int, after: int) -> None:
    assume(before != after)
    folder = tmp_path_factory.mktemp("pair")
    buggy, fixed = _pair(
        folder, {"lr": 0.01, "act": "relu", "epochs": before}, {"lr": 0.01, "act": "relu", "epochs": after}
    )
    result = CliRunner().invoke(classify, [buggy, fixed])
    assert _row(result.output, "fit.epochs")[3:5] == [f"EPOCHS={before}", f"EPOCHS={after}"]
