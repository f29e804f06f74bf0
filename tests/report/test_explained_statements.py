"""The "changed statements explained" figure in the report: a table per benchmark (unexplained
changes counted by kind), a column of the bug list, and every unexplained change on its bug's page."""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

from mutreal.report.tables import Bug, explained_statements_table

PROGRAM = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
x = np.random.rand(20, 3)
y = np.random.randint(0, 2, 20)
threshold = 0.5
model = Sequential()
model.add(Dense(4, input_dim=3, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=3, batch_size=4)
predictions = model.predict(x) > threshold
"""


def test_report_shows_the_figure_and_lists_every_unexplained_change(tmp_path: Path, mutreal_command: str):
    b, f = tmp_path / "b.py", tmp_path / "f.py"
    b.write_text(PROGRAM)
    f.write_text(PROGRAM.replace("threshold = 0.5", "threshold = 0.75").replace("'relu'", "'tanh'"))
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"id,benchmark,buggy,fixed\nbug1,demo,{b},{f}\n")
    results, out = tmp_path / "r.jsonl", tmp_path / "report"
    for cmd in (
        [mutreal_command, "classify", "--manifest", str(manifest), "--out", str(results)],
        [mutreal_command, "report", str(results), "--out", str(out)],
    ):
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader((out / "tables" / "explained_statements.csv").read_text().splitlines()))
    assert [(r["benchmark"], r["changed"], r["explained"], r["explained %"]) for r in rows] == [
        ("demo", "2", "1", "50"),
        ("ALL", "2", "1", "50"),
    ]
    assert rows[0]["unexplained by kind"] == "other 1"
    page = next((out / "bugs").glob("*.html")).read_text()
    assert "Changed statements explained" in page and "1 of 2 changed statements" in page
    assert "threshold = 0.75" in page
    assert "Changed statements explained" in (out / "report.md").read_text()


def test_no_table_without_measured_rows():
    assert explained_statements_table([Bug(id="a", benchmark="b", codes=["ACH"])]) is None
    table = explained_statements_table(
        [
            Bug(id="a", benchmark="b", changed_statements=4, explained_statements=4),
            Bug(id="c", benchmark="b", changed_statements=0, explained_statements=0),
            Bug(id="d", benchmark="e", changed_statements=2, explained_statements=1, unexplained={"loss": 1}),
        ]
    )
    assert table is not None
    assert table.rows[-1][:6] == ["ALL", 3, 2, 6, 5, 83]
