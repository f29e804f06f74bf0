"""`mutreal classify`: pairs, directories, manifests, errors and exit codes."""

from __future__ import annotations

import json

from click.testing import CliRunner

from mutreal.commands.classify import classify
from mutreal.label.classify import pair_files

BUGGY = """\
from keras.models import Sequential
from keras.layers import Dense
import numpy as np
x = np.random.rand(10, 3)
y = np.random.randint(0, 2, 10)
model = Sequential()
model.add(Dense(4, input_dim=3, activation='relu'))
model.add(Dense(1, activation='relu'))
model.compile(loss='mse', optimizer='adam')
model.fit(x, y, epochs=3)
"""
FIXED = BUGGY.replace("activation='relu'))\nmodel.compile", "activation='sigmoid'))\nmodel.compile").replace(
    "loss='mse'", "loss='binary_crossentropy'"
)


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_pair_table_and_json(tmp_path):
    b, f = _write(tmp_path, "b/prog.py", BUGGY), _write(tmp_path, "f/other_name.py", FIXED)
    result = CliRunner().invoke(classify, [str(b), str(f)])
    assert result.exit_code == 0, result.output
    assert "ACH" in result.output and "LCH" in result.output
    result = CliRunner().invoke(classify, [str(b), str(f), "--json"])
    data = json.loads(result.output)
    assert data["order"] == 2 and data["simulable"] is True
    assert sorted(c["code"] for c in data["components"]) == ["ACH", "LCH"]
    ach = next(c for c in data["components"] if c["code"] == "ACH")
    assert (
        ach["element"] == "model[0].layer[1].activation" and ach["buggy_line"] == 8 and ach["fixed_line"] == 8
    )


def test_directories_pair_by_relative_path(tmp_path):
    _write(tmp_path, "b/pkg/model.py", BUGGY)
    _write(tmp_path, "b/pkg/util.py", "X = 1\n")
    _write(tmp_path, "f/pkg/model.py", FIXED)
    _write(tmp_path, "f/pkg/util.py", "X = 1\n")
    result = CliRunner().invoke(classify, [str(tmp_path / "b"), str(tmp_path / "f"), "--json"])
    data = json.loads(result.output)
    assert data["order"] == 2
    assert all(p["buggy"].endswith(p["fixed"].split("/f/")[1]) for p in data["files"])


def test_pair_files_rules():
    assert pair_files(["a/x_context.py"], ["b/x_ground_truth.py"]) == [
        ("a/x_context.py", "b/x_ground_truth.py")
    ]
    assert pair_files(["a/m.py", "a/u.py"], ["b/u.py", "b/m.py"]) == [
        ("a/m.py", "b/m.py"),
        ("a/u.py", "b/u.py"),
    ]
    assert pair_files(["a/p.py", "a/q.py"], ["b/r.py", "b/s.py", "b/t.py"]) == [
        ("a/p.py", "b/r.py"),
        ("a/q.py", "b/s.py"),
        (None, "b/t.py"),
    ]


def test_manifest_run_keeps_going_and_exits_1(tmp_path):
    _write(tmp_path, "ok/b.py", BUGGY)
    _write(tmp_path, "ok/f.py", FIXED)
    _write(tmp_path, "two/b/m.py", BUGGY)
    _write(tmp_path, "two/b/n.py", BUGGY)
    _write(tmp_path, "two/f/m.py", FIXED)
    _write(tmp_path, "two/f/n.py", FIXED)
    _write(tmp_path, "bad/b.py", "this is not python at all (\n")
    _write(tmp_path, "bad/f.py", FIXED)
    _write(tmp_path, "bytes/b.py", "")
    (tmp_path / "bytes/b.py").write_bytes(b"x = '\xff'\n")
    _write(tmp_path, "bytes/f.py", FIXED)
    manifest = _write(
        tmp_path,
        "m.csv",
        "id,benchmark,buggy,fixed\n"
        "one,own,ok/b.py,ok/f.py\n"
        "two,own,missing/b.py,ok/f.py\n"
        "three,own,bytes/b.py,bytes/f.py\n"
        "four,own,two/b/m.py;two/b/n.py,two/f/n.py;two/f/m.py\n",
    )
    out = tmp_path / "results.jsonl"
    result = CliRunner().invoke(classify, ["--manifest", str(manifest), "--out", str(out)])
    assert result.exit_code == 1
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["one", "two", "three", "four"]
    assert rows[0]["status"] == "ok" and rows[0]["order"] == 2
    assert rows[1]["status"] == "error" and "not found" in rows[1]["error"]
    assert rows[1]["order"] == 0 and rows[1]["simulable"] is False and rows[1]["components"] == []
    assert rows[2]["status"] == "error" and "undecodable" in rows[2]["error"]
    assert rows[3]["status"] == "ok" and rows[3]["order"] == 4


def test_manifest_with_jobs_gives_same_rows(tmp_path):
    _write(tmp_path, "b.py", BUGGY)
    _write(tmp_path, "f.py", FIXED)
    lines = "".join(f"bug{i},own,b.py,f.py\n" for i in range(4))
    manifest = _write(tmp_path, "m.csv", "id,benchmark,buggy,fixed\n" + lines)
    result = CliRunner().invoke(classify, ["--manifest", str(manifest), "--jobs", "2"])
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert [r["id"] for r in rows] == [f"bug{i}" for i in range(4)]
    assert all(r["order"] == 2 for r in rows)


def test_usage_errors_exit_2(tmp_path):
    assert CliRunner().invoke(classify, []).exit_code == 2
    assert CliRunner().invoke(classify, ["a.py"]).exit_code == 2


def test_not_a_keras_program_is_a_clear_error(tmp_path):
    b, f = _write(tmp_path, "b.py", "x = 1\n"), _write(tmp_path, "f.py", "x = 2\n")
    result = CliRunner().invoke(classify, [str(b), str(f), "--json"])
    assert result.exit_code == 1
    assert "not a Keras program" in json.loads(result.output)["error"]


def test_unusable_manifest_exits_2_and_keeps_the_out_file(tmp_path):
    out = _write(tmp_path, "results.jsonl", '{"id": "earlier run"}\n')
    latin1 = tmp_path / "latin1.csv"
    latin1.write_bytes(b"id,benchmark,buggy,fixed\nb\xe9,x,a.py,b.py\n")
    for manifest in (tmp_path / "missing.csv", _write(tmp_path, "empty.csv", ""), latin1):
        result = CliRunner().invoke(classify, ["--manifest", str(manifest), "--out", str(out)])
        assert result.exit_code == 2, result.output
        assert "manifest" in result.output
        assert out.read_text() == '{"id": "earlier run"}\n'


def test_repeated_manifest_ids_are_warned_about(tmp_path):
    _write(tmp_path, "b.py", "x = 1\n")
    manifest = _write(
        tmp_path, "m.csv", "id,benchmark,buggy,fixed\ndup,B,b.py,b.py\ndup,B,b.py,b.py\nok,B,b.py,b.py\n"
    )
    result = CliRunner().invoke(classify, ["--manifest", str(manifest)])
    assert "id(s) on several rows: dup" in result.stderr
    assert len(result.stdout.splitlines()) == 3


def test_order_0_pair_says_so_instead_of_an_empty_table(tmp_path):
    program = _write(tmp_path, "p.py", BUGGY)
    result = CliRunner().invoke(classify, [str(program), str(program)])
    assert result.exit_code == 0, result.output
    assert "order 0" in result.output and "no fault component" in result.output
    assert "deepcrime" not in result.output
