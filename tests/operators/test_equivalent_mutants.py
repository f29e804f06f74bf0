"""Equivalent mutants are not written, and ``mutreal mutate`` says why; mutants keep the original's
line endings and encoding.

A mutant is equivalent when classify(original, mutant) would find no change: the program model
folds the edit away (a batch size that already is the sample count, a regulariser of strength 0
made another of strength 0, an activation an ``Activation`` layer right after it overrides).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.cli import main
from mutreal.label.classify import classify_pair
from mutreal.mutation.mutate import Equivalent, Failure, equivalence, generate, list_sites, mutate_file
from mutreal.mutation.operators import Program

FULL_BATCH = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense

train_data = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
train_labels = np.array([0, 1, 1, 0])
model = Sequential()
model.add(Dense(4, input_dim=2, activation='tanh'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(train_data, train_labels, batch_size=4, epochs=100)
"""

ZERO_REGULARISER = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
from keras import regularizers

lambda_ = 0
x = np.random.rand(30, 3)
y = np.random.rand(30, 1)
model = Sequential()
model.add(Dense(1, input_dim=3, kernel_regularizer=regularizers.l2(lambda_)))
model.compile(loss='mse', optimizer='sgd')
model.fit(x, y, epochs=2)
"""

RELU_TWICE = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Activation, Dense

x = np.random.rand(30, 3)
y = np.random.randint(0, 2, 30)
model = Sequential()
model.add(Dense(8, input_dim=3, activation='relu'))
model.add(Activation('relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=2)
"""


def _made(text: str, op: str) -> list:
    return [
        m
        for m in generate(Program(text, "p.py"), op, all_values=True)
        if "no site" not in getattr(m, "error", "")
    ]


def test_full_batch_hdb_is_equivalent_and_not_made() -> None:
    (only,) = _made(FULL_BATCH, "HDB")
    assert isinstance(only, Equivalent) and isinstance(only, Failure)
    assert only.error.startswith("equivalent:") and "4 -> len(train_data)" in only.error


def test_hdb_with_a_smaller_batch_is_made() -> None:
    (only,) = _made(FULL_BATCH.replace("batch_size=4", "batch_size=2"), "HDB")
    assert not isinstance(only, Failure)


def test_a_zero_strength_regulariser_made_l1_l2_is_equivalent_but_l1_is_not() -> None:
    made = _made(ZERO_REGULARISER, "RCW")
    assert [type(m).__name__ for m in made] == ["Mutant", "Equivalent"]
    assert made[0].edits[0].new == "regularizers.l1(lambda_)"
    assert made[1].value == "l1_l2"


def test_removing_an_activation_an_activation_layer_repeats_is_equivalent() -> None:
    made = _made(RELU_TWICE, "ARM")
    assert isinstance(made[0], Equivalent)  # Dense relu then Activation('relu')
    assert not any(isinstance(m, Failure) for m in made[1:])


def test_every_mutant_made_is_a_change_classify_sees(tmp_path: Path) -> None:
    """The other side of the rule: what is written differs for classify (each operator, all values)."""
    original = tmp_path / "p.py"
    original.write_text(FULL_BATCH.replace("batch_size=4", "batch_size=2"))
    program = Program.from_file(str(original))
    for op in ("HDB", "HBS", "ACH", "ARM", "OCH", "LCH", "RAW", "TRD"):
        report = mutate_file(str(original), op, out_dir=str(tmp_path / "m"), all_values=True, program=program)
        assert report.written and not report.equivalent, op
        for row in report.written[:2]:
            assert classify_pair(str(original), row["mutant"]).components, row["mutant"]


def test_equivalence_is_none_for_a_plain_change() -> None:
    program = Program(FULL_BATCH, "p.py")
    mutant = next(m for m in generate(program, "HNE") if not isinstance(m, Failure))
    assert equivalence(program, mutant) is None


def test_list_moves_equivalent_values_out_of_values() -> None:
    rows = list_sites(Program(ZERO_REGULARISER, "p.py"), ["RCW"])
    assert [r.values for r in rows] == [["l1"]]
    assert [v for v, _ in rows[0].equivalent] == ["l1_l2"]


@pytest.fixture
def full_batch(tmp_path: Path) -> Path:
    path = tmp_path / "xor.py"
    path.write_text(FULL_BATCH)
    return path


def test_mutate_list_says_why_in_text_and_json(full_batch: Path) -> None:
    runner = CliRunner()
    text = runner.invoke(main, ["mutate", str(full_batch), "--list"])
    assert text.exit_code == 0
    hdb = [line for line in text.output.splitlines() if line.startswith("HDB")]
    assert any("not written: equivalent:" in line for line in hdb), hdb
    rows = json.loads(runner.invoke(main, ["mutate", str(full_batch), "--list", "--json"]).output)
    (row,) = [r for r in rows if r["operator"] == "HDB"]
    assert row["values"] == []
    assert row["equivalent"][0]["why"].startswith("equivalent: the program model finds no change")


def test_mutate_writes_no_equivalent_mutant_and_reports_it(full_batch: Path, tmp_path: Path) -> None:
    out = tmp_path / "mutants"
    res = CliRunner().invoke(main, ["mutate", str(full_batch), "--op", "HDB", "--out", str(out), "--json"])
    assert res.exit_code == 1  # the one mutant asked for is not written
    report = json.loads(res.output[res.output.index("{") :])
    assert report["written"] == [] and report["failures"] == []
    assert report["equivalent"][0]["operator"] == "HDB"
    assert not out.exists() or not list(out.iterdir())


def test_all_values_with_an_equivalent_one_still_succeeds(tmp_path: Path) -> None:
    path = tmp_path / "reg.py"
    path.write_text(ZERO_REGULARISER)
    res = CliRunner().invoke(
        main, ["mutate", str(path), "--op", "RCW", "--all", "--out", str(tmp_path / "m")]
    )
    assert res.exit_code == 0
    assert [p.name for p in (tmp_path / "m").glob("*.py")] == ["reg__RCW_0_l1.py"]


def test_a_crlf_file_gives_crlf_mutants_changed_on_one_line_only(tmp_path: Path) -> None:
    path = tmp_path / "win.py"
    path.write_bytes(FULL_BATCH.replace("\n", "\r\n").encode())
    report = mutate_file(str(path), "HNE", out_dir=str(tmp_path / "m"))
    mutant = Path(report.written[0]["mutant"]).read_bytes()
    assert mutant.count(b"\r\n") == mutant.count(b"\n") == FULL_BATCH.count("\n")
    before, after = path.read_bytes().split(b"\r\n"), mutant.split(b"\r\n")
    assert sum(a != b for a, b in zip(before, after, strict=True)) == 1


def test_a_latin1_file_with_a_coding_line_keeps_its_encoding(tmp_path: Path) -> None:
    text = "# -*- coding: latin-1 -*-\n# Données: quatre échantillons\n" + FULL_BATCH
    path = tmp_path / "fr.py"
    path.write_bytes(text.encode("latin-1"))
    report = mutate_file(str(path), "HNE", out_dir=str(tmp_path / "m"))
    data = Path(report.written[0]["mutant"]).read_bytes()
    assert "Données: quatre échantillons".encode("latin-1") in data
    assert data.decode("latin-1").count("\n") == text.count("\n")
