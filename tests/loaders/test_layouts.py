"""Manifests from benchmark folder layouts, each built here as a small tree of our own files."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.commands.manifest import manifest
from mutreal.study.layouts import LayoutError, detect_layout, manifest_text, scan_layout

KERAS_BUGGY = "from keras.models import Sequential\nfrom keras.layers import Dense\nm = Sequential()\nm.add(Dense(2, activation='relu'))\n"
KERAS_FIXED = KERAS_BUGGY.replace("'relu'", "'softmax'")
HELPER = "def helper():\n    return 1\n"
RAW_TF = "import tensorflow as tf\nx = tf.constant(1.0)\n"


def put(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def ids(scan) -> list[str]:
    return [p.id for p in scan.pairs]


def test_deeplocalize(tmp_path: Path) -> None:
    so = "Benchmark/StackOverflow"
    put(tmp_path, f"{so}/111/Buggy Code/111.py", KERAS_BUGGY)
    put(tmp_path, f"{so}/111/Correct Code/111.py", KERAS_FIXED)
    put(tmp_path, f"{so}/222/Buggy Model/net.py", KERAS_BUGGY)
    put(tmp_path, f"{so}/222/Correct Model/net.py", KERAS_FIXED)
    put(tmp_path, f"{so}/333/Buggy Code/a.py", KERAS_BUGGY)  # fixed side identical: skipped
    put(tmp_path, f"{so}/333/Correct Code/a.py", KERAS_BUGGY)
    gh = "Benchmark/GitHub"
    put(tmp_path, f"{gh}/Buggy Model/proj/train.py", KERAS_BUGGY)
    put(tmp_path, f"{gh}/Buggy Model/proj/util.py", HELPER)
    put(tmp_path, f"{gh}/Correct Model/proj/train.py", KERAS_FIXED)
    put(tmp_path, f"{gh}/Correct Model/proj/util.py", HELPER)
    put(tmp_path, f"{gh}/Correct Model/proj/extra.py", HELPER)  # only on one side: counts as changed
    scan = scan_layout("DeepLocalize", tmp_path)
    assert ids(scan) == ["DeepLocalize-GH:proj", "DeepLocalize-SO:111", "DeepLocalize-SO:222"]
    gh_pair = scan.pairs[0]
    assert [p.name for p in gh_pair.buggy] == ["train.py"]
    assert [p.name for p in gh_pair.fixed] == ["extra.py", "train.py"]
    assert scan.pairs[1].source == "https://stackoverflow.com/questions/111"
    assert [(s.id, s.reason) for s in scan.skipped] == [
        ("DeepLocalize-SO:333", "no changed .py file on the buggy side")
    ]
    every = scan_layout("deeplocalize", tmp_path, all_files=True)
    assert [p.name for p in every.pairs[0].buggy] == ["train.py", "util.py"]
    assert detect_layout(tmp_path) == "deeplocalize"


def test_deepfd(tmp_path: Path) -> None:
    subjects = "Benchmark/Subjects"
    put(tmp_path, f"{subjects}/100/epoch_3/origin.py", KERAS_BUGGY)
    put(tmp_path, f"{subjects}/100/epoch_3/repair.py", KERAS_FIXED)
    put(tmp_path, f"{subjects}/100/epoch_3/dataset.pkl", "not really a pickle")
    put(tmp_path, f"{subjects}/200/lr_1/origin.py", KERAS_BUGGY)
    put(tmp_path, f"{subjects}/200/lr_1/repair.py", KERAS_FIXED)
    put(tmp_path, f"{subjects}/200/act_x/origin.py", KERAS_BUGGY)
    put(tmp_path, f"{subjects}/200/act_x/repair.py", KERAS_FIXED)
    scan = scan_layout("deepfd", tmp_path)
    assert ids(scan) == ["DeepFD:100", "DeepFD:200/act_x", "DeepFD:200/lr_1"]
    first = scan.pairs[0]
    assert first.buggy[0].name == "origin.py" and first.fixed[0].name == "repair.py"
    assert first.dataset and first.dataset.endswith("dataset.pkl")
    assert scan.pairs[1].dataset is None
    assert detect_layout(tmp_path) == "deepfd"


def test_defects4ml(tmp_path: Path) -> None:
    put(tmp_path, "bugs/001/buggy/src/model.py", KERAS_BUGGY)
    put(tmp_path, "bugs/001/buggy/src/util.py", HELPER)
    put(tmp_path, "bugs/001/fixed/src/model.py", KERAS_FIXED)
    put(tmp_path, "bugs/001/fixed/src/util.py", HELPER)
    put(
        tmp_path,
        "bugs/001/conf.ini",
        "[DEFAULT]\nurl = https://example.org/commit/abc\nsymptom = Bad performance\n"
        "bug_type = Wrong activation %% function\n\n[RUN]\nentry_point = pytest\n",
    )
    (tmp_path / "bugs/001/data").mkdir()
    put(tmp_path, "bugs/002/buggy/a.py", RAW_TF)
    put(tmp_path, "bugs/002/fixed/a.py", RAW_TF + "y = x\n")
    put(tmp_path, "bugs/003/buggy/a.py", "def broken(:\n")
    put(tmp_path, "bugs/003/fixed/a.py", KERAS_FIXED)
    scan = scan_layout("defects4ml", tmp_path)
    assert ids(scan) == ["Defects4ML:001", "Defects4ML:002", "Defects4ML:003"]
    one = scan.pairs[0]
    assert [p.name for p in one.buggy] == ["model.py"]
    assert (one.source, one.symptom, one.bug_type) == (
        "https://example.org/commit/abc",
        "Bad performance",
        "Wrong activation %% function",
    )
    assert one.dataset and one.dataset.endswith("data")
    strict = scan_layout("defects4ml", tmp_path, keras_only=True, parsable_only=True)
    assert ids(strict) == ["Defects4ML:001"]
    assert {s.id: s.reason for s in strict.skipped} == {
        "Defects4ML:002": "changed files do not import Keras",
        "Defects4ML:003": "not Python 3: a.py",
    }


def test_sfdata(tmp_path: Path) -> None:
    put(tmp_path, "SFData/StackOverflow/s123_original.py", "model.fit(x, y, epochs=100)\n")
    put(tmp_path, "SFData/StackOverflow/s123_context.py", KERAS_BUGGY)
    put(tmp_path, "SFData/StackOverflow/s123_ground_truth.py", KERAS_FIXED)
    put(tmp_path, "SFData/ICSE2020/s456_context.py", KERAS_BUGGY)  # no posted program
    put(tmp_path, "SFData/ICSE2020/s456_ground_truth.py", KERAS_FIXED)
    put(tmp_path, "SFData/ISSTA2018/NotTensorShapeFault/s789_context.py", RAW_TF)  # no fix
    posted = scan_layout("sfdata", tmp_path)
    assert ids(posted) == ["SFData-StackOverflow:123"]
    assert posted.pairs[0].buggy[0].name == "s123_original.py"
    assert posted.pairs[0].fixed[0].name == "s123_ground_truth.py"
    assert {s.id: s.reason for s in posted.skipped} == {
        "SFData-ICSE2020:456": "no s<id>_original.py (the program as posted)",
        "SFData-ISSTA2018:789": "no changed .py file on the fixed side",
    }
    completed = scan_layout("sfdata", tmp_path, buggy="context")
    assert ids(completed) == ["SFData-ICSE2020:456", "SFData-StackOverflow:123"]
    assert completed.pairs[1].buggy[0].name == "s123_context.py"
    assert [p.name for p in completed.pairs[1].source_buggy] == ["s123_original.py"]
    assert completed.pairs[0].source_buggy == []
    header, first, second = manifest_text(completed.pairs, relative_to=tmp_path).splitlines()
    assert header == "id,benchmark,buggy,fixed,source,source_buggy"
    assert second.endswith(",SFData/StackOverflow/s123_original.py") and first.endswith(",")


def test_tfbugs2018(tmp_path: Path) -> None:
    put(tmp_path, "StackOverflow/APIC-2/4321-buggy/sample.py", RAW_TF)
    put(tmp_path, "StackOverflow/APIC-2/4321-fix/sample.py", RAW_TF + "y = x + 1\n")
    put(tmp_path, "Github/IPS-1/proj-buggy/pkg/net.py", RAW_TF)
    put(tmp_path, "Github/IPS-1/proj-buggy/pkg/same.py", HELPER)
    put(tmp_path, "Github/IPS-1/proj-fix/pkg/net.py", RAW_TF.replace("1.0", "2.0"))
    put(tmp_path, "Github/IPS-1/proj-fix/pkg/same.py", HELPER)
    put(tmp_path, "Github/IPS-1/readme.md", "Reference: https://example.org/proj/commit/1\n")
    scan = scan_layout("tfbugs2018", tmp_path)
    assert ids(scan) == ["TFBugs2018-GH:IPS-1/proj", "TFBugs2018-SO:APIC-2/4321"]
    assert [p.name for p in scan.pairs[0].buggy] == ["net.py"]
    assert scan.pairs[0].source == "https://example.org/proj/commit/1"
    assert scan.pairs[1].source == "https://stackoverflow.com/questions/4321"
    assert ids(scan_layout("tfbugs2018", tmp_path, keras_only=True)) == []  # raw TensorFlow


def test_wrong_layout_is_a_clear_error(tmp_path: Path) -> None:
    put(tmp_path, "bugs/001/buggy/a.py", KERAS_BUGGY)
    with pytest.raises(LayoutError, match="DeepFD"):
        scan_layout("deepfd", tmp_path)
    with pytest.raises(LayoutError, match="unknown layout"):
        scan_layout("nope", tmp_path)
    result = CliRunner().invoke(manifest, ["--layout", "deepfd", str(tmp_path)])
    assert result.exit_code == 2 and "looks like --layout defects4ml" in result.output
    for option in (["--benchmark", "X"], ["--buggy", "context"]):  # options of another layout
        result = CliRunner().invoke(manifest, ["--layout", "defects4ml", str(tmp_path), *option])
        assert result.exit_code == 2 and f"{option[0]} applies to --layout" in result.output


def test_cli_paths_relative_to_the_output_file(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    put(bench, "bugs/007/buggy/m.py", KERAS_BUGGY)
    put(bench, "bugs/007/fixed/m.py", KERAS_FIXED)
    out = tmp_path / "out" / "m.csv"
    result = CliRunner().invoke(manifest, ["--layout", "defects4ml", str(bench), "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open()))
    assert rows == [
        {
            "id": "Defects4ML:007",
            "benchmark": "Defects4ML",
            "buggy": "../bench/bugs/007/buggy/m.py",
            "fixed": "../bench/bugs/007/fixed/m.py",
        }
    ]
    assert (out.parent / rows[0]["buggy"]).read_text() == KERAS_BUGGY
    stdout = CliRunner().invoke(manifest, ["--layout", "defects4ml", str(bench)])
    absolute = list(csv.DictReader(stdout.stdout.splitlines()))[0]
    assert Path(absolute["buggy"]).is_absolute() and Path(absolute["buggy"]).read_text() == KERAS_BUGGY
    as_json = CliRunner().invoke(manifest, ["--layout", "defects4ml", str(bench), "--json"])
    assert json.loads(as_json.stdout)["pairs"][0]["id"] == "Defects4ML:007"
    scan = scan_layout("defects4ml", bench)
    assert manifest_text(scan.pairs).splitlines()[0] == "id,benchmark,buggy,fixed"


def test_pairs(tmp_path: Path) -> None:
    put(tmp_path, "corpus/SetA-x/12/buggy/p.py", KERAS_BUGGY)
    put(tmp_path, "corpus/SetA-x/12/fixed/p.py", KERAS_FIXED)
    put(tmp_path, "corpus/SetA-x/12/context/p.py", KERAS_BUGGY)  # a third folder is ignored
    put(tmp_path, "corpus/SetB/7/buggy/p.py", KERAS_BUGGY)
    put(tmp_path, "corpus/SetB/7/fixed/p.py", KERAS_FIXED)
    scan = scan_layout("pairs", tmp_path / "corpus")
    assert ids(scan) == ["SetA-x:12", "SetB:7"]
    assert [p.benchmark for p in scan.pairs] == ["SetA", "SetB"]
    own = tmp_path / "own"
    put(own, "bug-one/buggy/a.py", KERAS_BUGGY)
    put(own, "bug-one/fixed/a.py", KERAS_FIXED)
    flat = scan_layout("pairs", own, benchmark="mine")
    assert ids(flat) == ["bug-one"] and flat.pairs[0].benchmark == "mine"


def _benchdl4real_tree(base: Path, flattened: bool = False) -> None:
    """A small BenchDL4Real-shaped tree of our own programs (``flattened``: runtime-corpus folders)."""
    part = (lambda name: f"BenchDL4Real-{name}") if flattened else (lambda name: f"BenchDL4Real/{name}")
    put(base, f"{part('DeepFD')}/101/origin.py", KERAS_BUGGY)
    put(base, f"{part('DeepFD')}/101/repair.py", KERAS_FIXED)
    put(base, f"{part('DeepFD')}/101/dataset/points.csv", "x,y\n1,2\n")
    put(base, f"{part('DeepLocalize')}/202/BuggyCode/origin.py", KERAS_BUGGY)
    put(base, f"{part('DeepLocalize')}/202/BuggyCode/points.csv", "x,y\n1,2\n")
    put(base, f"{part('DeepLocalize')}/202/CorrectCode/repair.py", KERAS_FIXED)
    put(base, f"{part('DeepLocalize')}/toyproj/BuggyCode/origin.py", KERAS_BUGGY)
    put(base, f"{part('DeepLocalize')}/toyproj/CorrectCode/repair.py", KERAS_BUGGY)  # no change: skipped
    put(base, f"{part('Defects4ML')}/009/buggy/script.py", KERAS_BUGGY)
    put(base, f"{part('Defects4ML')}/009/fixed/script.py", KERAS_FIXED)
    put(
        base,
        f"{part('Defects4ML')}/009/conf.ini",
        "[DEFAULT]\nurl = https://example.org/q/9\nsymptom = crash\n",
    )
    if not flattened:
        put(base, "BenchDL4Real/SFData/s303_context.py", KERAS_BUGGY)
        put(base, "BenchDL4Real/SFData/s303_ground_truth.py", KERAS_FIXED)


def test_benchdl4real_as_published(tmp_path: Path) -> None:
    _benchdl4real_tree(tmp_path)
    put(tmp_path, "labels/outcomes.csv", "not read\n")  # the rest of the study's repository is ignored
    scan = scan_layout("benchdl4real", tmp_path)
    assert ids(scan) == [
        "BenchDL4Real-DeepFD:101",
        "BenchDL4Real-DeepLocalize:202",
        "BenchDL4Real-Defects4ML:009",
        "BenchDL4Real-SFData:303",
    ]
    assert {p.benchmark for p in scan.pairs} == {"BenchDL4Real"}
    deepfd, deeplocalize, defects4ml, sfdata = scan.pairs
    assert (deepfd.buggy[0].name, deepfd.fixed[0].name) == ("origin.py", "repair.py")
    assert deepfd.dataset and Path(deepfd.dataset).name == "dataset"
    assert deepfd.source == "https://stackoverflow.com/questions/101"
    assert [p.parent.name for p in (*deeplocalize.buggy, *deeplocalize.fixed)] == ["BuggyCode", "CorrectCode"]
    assert (defects4ml.source, defects4ml.symptom) == ("https://example.org/q/9", "crash")
    assert (sfdata.buggy[0].name, sfdata.fixed[0].name) == ("s303_context.py", "s303_ground_truth.py")
    assert [(s.id, s.reason) for s in scan.skipped] == [
        ("BenchDL4Real-DeepLocalize:toyproj", "no changed .py file on the buggy side")
    ]
    # the folder itself may be given, and the layout is recognised
    assert ids(scan_layout("benchdl4real", tmp_path / "BenchDL4Real")) == ids(scan)
    assert detect_layout(tmp_path) == "benchdl4real"


def test_benchdl4real_flattened_beside_other_benchmarks(tmp_path: Path) -> None:
    """mutreal's runtime corpus: ``BenchDL4Real-<part>`` folders beside the original benchmarks'
    own ``DeepFD``/``SFData`` folders, which are not BenchDL4Real's and must not be read as such."""
    _benchdl4real_tree(tmp_path, flattened=True)
    put(tmp_path, "DeepFD/555/origin.py", KERAS_BUGGY)
    put(tmp_path, "DeepFD/555/repair.py", KERAS_FIXED)
    put(tmp_path, "SFData/StackOverflow/s606_context.py", KERAS_BUGGY)
    put(tmp_path, "SFData/StackOverflow/s606_ground_truth.py", KERAS_FIXED)
    scan = scan_layout("benchdl4real", tmp_path)
    assert ids(scan) == [
        "BenchDL4Real-DeepFD:101",
        "BenchDL4Real-DeepLocalize:202",
        "BenchDL4Real-Defects4ML:009",
    ]
    result = CliRunner().invoke(
        manifest, ["--layout", "benchdl4real", str(tmp_path), "--out", str(tmp_path / "m.csv")]
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader((tmp_path / "m.csv").open()))
    assert rows[0]["buggy"] == "BenchDL4Real-DeepFD/101/origin.py"
    assert rows[0]["dataset"] == "BenchDL4Real-DeepFD/101/dataset"


def test_benchdl4real_absent_is_a_clear_error(tmp_path: Path) -> None:
    put(tmp_path, "bugs/001/buggy/a.py", KERAS_BUGGY)
    with pytest.raises(LayoutError, match="BenchDL4Real"):
        scan_layout("benchdl4real", tmp_path)


SUITE = """\
import os

def run_buggy():
    os.system('cd buggy;python gol.py 20 30')

def run_fixed():
    os.system("cd fixed && python gol.py 20 30")
"""


def test_defects4ml_args_from_the_command_its_test_suite_runs(tmp_path: Path) -> None:
    """Defects4ML records how a bug's programs run in its test_suite.py; a command that passes
    arguments fills the args column (args_<side> when the sides differ); none, no column."""
    put(tmp_path, "bugs/074/buggy/gol.py", KERAS_BUGGY + "import sys\nh = int(sys.argv[1])\n")
    put(tmp_path, "bugs/074/fixed/gol.py", KERAS_FIXED + "import sys\nh = int(sys.argv[1])\n")
    put(tmp_path, "bugs/074/test_suite.py", SUITE)
    put(tmp_path, "bugs/075/buggy/src/train.py", KERAS_BUGGY)
    put(tmp_path, "bugs/075/fixed/src/train.py", KERAS_FIXED)
    put(tmp_path, "bugs/075/test_suite.py", "import os\nos.system('python buggy/src/train.py --input \"my images/\"')\n"
        "os.system('python fixed/src/train.py --input b')\nos.system('python script.py')\n")  # fmt: skip
    put(tmp_path, "bugs/076/buggy/a.py", KERAS_BUGGY)
    put(tmp_path, "bugs/076/fixed/a.py", KERAS_FIXED)
    put(tmp_path, "bugs/076/test_suite.py", "def broken(:\n")  # unreadable: no arguments, the pair stays
    scan = scan_layout("defects4ml", tmp_path)
    args = {p.id: (p.args, p.args_buggy, p.args_fixed) for p in scan.pairs}
    assert args == {
        "Defects4ML:074": ("20 30", None, None),
        "Defects4ML:075": (None, "--input 'my images/'", "--input b"),
        "Defects4ML:076": (None, None, None),
    }
    out = tmp_path / "m.csv"
    done = subprocess.run([sys.executable, "-m", "mutreal", "manifest", "--layout", "defects4ml", str(tmp_path),
                           "--out", str(out)], capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open()))
    assert [(r["args"], r["args_buggy"], r["args_fixed"]) for r in rows] == [
        ("20 30", "", ""), ("", "--input 'my images/'", "--input b"), ("", "", ""),
    ]  # fmt: skip
    from mutreal.manifest import load_manifest

    read = {row.id: (row.args("buggy"), row.args("fixed")) for row in load_manifest(out).rows}
    assert read["Defects4ML:074"] == (["20", "30"], ["20", "30"])
    assert read["Defects4ML:075"] == (["--input", "my images/"], ["--input", "b"])
    assert read["Defects4ML:076"] == (None, None)
