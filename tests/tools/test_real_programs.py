"""benchmarks/real_programs.py: one run of every program of a runtime manifest, figures per benchmark.

The script is a benchmark, not part of the package, so it is loaded from its path. The fast tests pin
how it reads a manifest (the entry of a multi-file side, missing data per side) and how it names a
run's verdict and a failure's cause; the slow one runs it through the installed ``mutreal`` on two
programs of our own (one trains, one crashes on its first batch), the same two in other folders, and a
pair whose data is missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "real_programs.py"
SRC = Path(__file__).resolve().parents[2] / "src"

#: the cause SFData 45212271's fixed program gets (a convolution on an empty batch)
ONEDNN = (
    "TensorFlow 2's oneDNN convolution fails on an empty batch (the program feeds empty slices; "
    "TF_ENABLE_ONEDNN_OPTS=0 runs it)"
)


@pytest.fixture(scope="module")
def real():
    spec = importlib.util.spec_from_file_location("real_programs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["real_programs"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def put(root: Path, rel: str, text: str = "print('hi')\n") -> str:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return rel


def write_manifest(root: Path, rows: list[dict[str, str]]) -> Path:
    columns = ("id", "benchmark", "buggy", "fixed", "entry", "symptom", "data_missing")
    lines = [",".join(columns)] + [",".join(row.get(c, "") for c in columns) for row in rows]
    path = root / "manifest.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_manifest_entries_and_missing_data_per_side(real, tmp_path: Path) -> None:
    b = ";".join([put(tmp_path, "B/1/buggy/util.py"), put(tmp_path, "B/1/buggy/src/train.py")])
    f = ";".join([put(tmp_path, "B/1/fixed/util.py"), put(tmp_path, "B/1/fixed/src/train.py")])
    b2 = ";".join([put(tmp_path, "B/2/buggy/a.py"), put(tmp_path, "B/2/buggy/b.py", "m.fit(x, y)\n")])
    f2 = put(tmp_path, "B/2/fixed/a.py")
    rows = [
        # the entry names the side-relative file to run; the missing file is the fixed side's only
        {"id": "B:1", "benchmark": "B", "buggy": b, "fixed": f, "entry": "src/train.py",
         "data_missing": "B/1/fixed/data.csv"},
        # no entry: the file that trains; missing data beside both sides concerns both
        {"id": "B:2", "benchmark": "B", "buggy": b2, "fixed": f2, "data_missing": "B/2/data/x.gz"},
        {"id": "C:3", "benchmark": "C", "buggy": b2, "fixed": f2, "entry": "nope.py"},
    ]  # fmt: skip
    manifest = write_manifest(tmp_path, rows)
    programs = real.read_manifest(manifest, ["fixed", "buggy"], None, None)
    got = [(p.id, p.side, Path(p.path).relative_to(tmp_path).as_posix() if p.path else "", p.data_missing)
           for p in programs]  # fmt: skip
    assert got == [
        ("B:1", "fixed", "B/1/fixed/src/train.py", True),
        ("B:2", "fixed", "B/2/fixed/a.py", True),
        ("C:3", "fixed", "", False),
        ("B:1", "buggy", "B/1/buggy/src/train.py", False),
        ("B:2", "buggy", "B/2/buggy/b.py", True),
        ("C:3", "buggy", "", False),
    ]
    assert "ran the one that trains" in programs[4].note and "not one of the side's files" in programs[2].note
    only_c = real.read_manifest(manifest, ["buggy"], "c", None)
    assert [p.id for p in only_c] == ["C:3"]
    assert [p.id for p in real.read_manifest(manifest, ["fixed"], None, 1)] == ["B:1"]


def test_a_write_into_a_missing_folder_is_no_missing_data(real) -> None:
    """FileNotFoundError from a write (the program ran from another working directory than it was
    written for) is a crash with its own cause; the same error from a read is missing data."""
    program = real.Program("X:1", "X", "fixed", "/x.py")
    error = {"outcome": "missing-data", "error_type": "FileNotFoundError",
             "error_message": "[Errno 2] No such file or directory: 'fixed/result.json'"}  # fmt: skip
    for line in ('file = open(file="fixed/result.json", mode="w")', "out = open('fixed/r.txt', 'a')",
                 "frame.to_csv('out/x.csv')", "plt.savefig('plots/a.png')"):  # fmt: skip
        trace = f'  File "/tmp/run/fixed/script.py", line 30, in <module>\n    {line}\nFileNotFoundError: x'
        wrote = real.classify(program, error, {"traceback": trace})
        assert (wrote.status, wrote.cause) == (real.CRASH, real.causes.WRITES_MISSING_FOLDER), line
    for line in ("data = open('fixed/data.csv')", "x = open('a.txt', 'r').read()", "df = pd.read_csv('d.csv')"):
        trace = f'  File "/tmp/run/fixed/script.py", line 3, in <module>\n    {line}\nFileNotFoundError: x'
        read = real.classify(program, error, {"traceback": trace})
        assert (read.status, read.cause) == (real.MISSING, "missing data"), line


def test_a_missing_package_in_a_program_without_its_keras_data_set_is_missing_data(real, tmp_path, monkeypatch):
    """The import fails first, but the program loads a Keras data set the workers cannot serve: it
    could not run here with the package either, so its data is not present."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    (tmp_path / "keras" / "datasets").mkdir(parents=True)
    error = {"outcome": "crash", "error_type": "ModuleNotFoundError", "error_message": "No module named 'mlflow'"}
    program = tmp_path / "train.py"
    program.write_text("import mlflow\nfrom keras.datasets import mnist\n(x, y), _ = mnist.load_data()\n")
    verdict = real.classify(real.Program("X:1", "X", "fixed", str(program)), error, {})
    assert (verdict.status, verdict.cause) == (real.MISSING, "missing data")
    assert "mlflow" in verdict.error_message and "mnist" in verdict.error_message
    (tmp_path / "keras" / "datasets" / "mnist.npz").write_bytes(b"")  # present: the package is the cause
    verdict = real.classify(real.Program("X:1", "X", "fixed", str(program)), error, {})
    assert (verdict.status, verdict.cause) == (real.CRASH, "missing package: mlflow (experiment tracker, not installed)")


def test_verdicts_from_run_records(real) -> None:
    program = real.Program("X:1", "X", "fixed", "/x.py")
    cut = real.classify(
        program,
        {"outcome": "timeout", "error_type": "TimeoutError"},
        {"output_tail": "Epoch 1/5\n..Epoch 3/5\n"},
    )
    assert (cut.status, cut.epochs) == (real.TRAINS_CUT, 2)
    stuck = real.classify(program, {"outcome": "timeout"}, {"output_tail": "Epoch 1/5\n"})
    assert stuck.status == real.TIMEOUT and stuck.cause is not None
    for line in ("6/6 [==============================] - 1s 60ms/step - loss: 1.4188 - accuracy: 0.6667",
                 "50/50 - 6s - loss: 92.0912 - accuracy: 0.0900"):  # fmt: skip
        ended = real.classify(program, {"outcome": "timeout"}, {"output_tail": f"{line}\n1/6 [==>....] - ETA: 1s"})
        assert (ended.status, ended.epochs) == (real.TRAINS_CUT, 1), line
    for tail in ("4/6 [=========>....] - ETA: 0s - loss: 1.8", "13/13 [==============================] - 0s 9ms/step"):
        running = real.classify(program, {"outcome": "timeout"}, {"output_tail": tail})  # mid-epoch; a predict bar
        assert running.status == real.TIMEOUT, tail
    fitted = real.classify(program, {"outcome": "timeout"}, {"fits": [{"epochs": 4}]})
    assert fitted.status == real.TRAINS_CUT and fitted.cause is None
    ok = real.classify(program, {"outcome": "ok", "metric_name": "accuracy", "metric": 0.9}, {})
    assert ok.status == real.COMPLETES and not ok.touched
    rewritten = real.classify(
        program,
        {"outcome": "crash", "error_type": "AttributeError", "error_message": "module 'time' has no attribute 'clock'"},
        {"modernize_changes": ["nb_epoch -> epochs"], "era": "keras1", "framework": "tf_keras"},
    )  # fmt: skip
    assert rewritten.status == real.CRASH and rewritten.touched and rewritten.era == "keras1"
    assert rewritten.cause == "instrumentation (benchmark scaffolding)"
    # a crash that is a missing file counts as missing data, not as a crash
    missing = real.classify(
        program,
        {"outcome": "crash", "error_type": "FileNotFoundError", "error_message": "[Errno 2] x.csv"},
        {},
    )
    assert missing.status == real.MISSING
    # a crash once the model has trained is told apart from one before training
    late = real.classify(
        program, {"outcome": "crash", "error_type": "KeyError", "error_message": "'val_loss'"},
        {"fits": [{"epochs": 5}], "traceback": "plt.plot(history.history['val_loss'])\nKeyError: 'val_loss'"},
    )  # fmt: skip
    assert (late.status, late.epochs) == (real.CRASH, 5)
    assert late.cause == "after training: reads a fit history key its fit did not record (no validation data)"
    assert "history.history" in late.traceback_tail
    argv = real.classify(
        program, {"outcome": "crash", "error_type": "IndexError", "error_message": "list index out of range"},
        {"traceback": "    height = int(sys.argv[1])\nIndexError: list index out of range"},
    )  # fmt: skip
    assert argv.cause == "needs command-line arguments"
    pin = real.classify(
        program, {"outcome": "crash", "error_type": "AssertionError", "error_message": ""},
        {"traceback": '    assert tf.__version__ == "1.8.0"\nAssertionError'},
    )  # fmt: skip
    assert pin.cause == "version pin (assert on tf.__version__)"
    strict = real.classify(
        program, {"outcome": "crash", "error_type": "TypeError",
                  "error_message": "'float' object cannot be interpreted as an integer"},
        {"traceback": 'File "/v/site-packages/keras/src/trainers/epoch_iterator.py", line 113\nTypeError: ...'},
    )  # fmt: skip
    assert strict.cause == "Keras 3 stricter check (raised inside Keras 3)"


@pytest.mark.parametrize(
    ("error_type", "message", "cause"),
    [
        ("AttributeError", "module 'tensorflow' has no attribute 'placeholder'", "TensorFlow 1 API"),
        ("ModuleNotFoundError", "No module named 'keras.layers.core'", "Keras 3 removal/change"),
        (
            "ValueError",
            "Unrecognized keyword arguments passed to Dense: {'init': 'normal'}",
            "Keras 3 removal/change",
        ),
        (
            "AttributeError",
            "module 'numpy' has no attribute 'float'.",
            "removed Python/numpy/scipy/sklearn API",
        ),
        ("ModuleNotFoundError", "No module named 'cv2'", "missing package: cv2 (install mutreal[benchmarks])"),
            ("ModuleNotFoundError", "No module named 'keras_contrib'",
             "missing package: keras_contrib (published on GitHub only, not on PyPI)"),
            ("ModuleNotFoundError", "No module named 'somepkg.sub'", "missing package: somepkg"),
            ("ValueError", "Failed to convert a NumPy array to a Tensor (Unsupported object type int).",
             "shape/dtype error"),
            ("ValueError", "\nAll the 10 fits failed.\n...\n  File \"/v/site-packages/scikeras/wrappers.py\", line 559, "
             "in _check_model_compatibility\n    if self.n_outputs_expected_ != len(self.model_.outputs):\n"
             "TypeError: object of type 'NoneType' has no len()",
             "SciKeras on tf_keras: a model without an input shape before fit"),
            ("TBNotInstalledError", "TensorBoard is not installed, missing implementation for tf.summary.image",
             "missing package: tensorboard"),
            ("ImportError", "cannot import name 'X' from 'tf_keras.src.layers.normalization' (/x.py)",
             "module moved or removed in an installed library"),
        (
            "AttributeError",
            "module 'keras.callbacks' has no attribute 'backpropagation'",
            "instrumentation (benchmark scaffolding)",
        ),
        (
            "ValueError",
            "Received an invalid value for `units`, expected a positive integer. Received: units=150",
            "Keras 3 removal/change",
        ),
        (
            "AttributeError",
            "'_RepeatDataset' object has no attribute 'make_initializable_iterator'",
            "TensorFlow 1 API",
        ),
        (
            "ValueError",
            "A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic "
            "placeholder",
            "Keras 3 removal/change",
        ),
        (
            "TypeError",
            "OneHotEncoder.__init__() got an unexpected keyword argument 'categorical_features'",
            "removed Python/numpy/scipy/sklearn API",
        ),
        ("KeyError", "'acc'", "Keras 3 removal/change"),
        ("SyntaxError", "Missing parentheses in call to 'print'", "syntax (Python 2 or broken file)"),
        ("ValueError", "Input 0 of layer is incompatible: expected shape=(None, 5)", "shape/dtype error"),
        ("DuplicateFlagError", "The flag 'data_dir' is defined twice. First from cifar10, second from x.py",
         "absl flag defined twice (one left by an earlier program of the warm worker)"),
        ("KeyError", "'val_loss'", "reads a fit history key its fit did not record (no validation data)"),
        ("FailedPreconditionError", "model.h67 is not a directory",
         "save() to a name without .h5: old Keras wrote HDF5, tf_keras a SavedModel folder"),
        ("InvalidArgumentError", "Graph execution error at node 'Relu_1': input depth must be evenly divisible "
         "by filter depth: 3 vs 32", ONEDNN),
        ("TypeError", "only 0-dimensional arrays can be converted to Python scalars",
         "NumPy 2: an array of one element with ndim > 0 is no Python scalar (deprecated since NumPy 1.25)"),
        ("ValueError", "Dimensions must be equal, but are 32 and 54 for '{{node compile_loss/mae/sub}} = Sub'",
         "Keras 3 stricter: a loss on targets of another rank (Keras 2 expanded rank-1 targets)"),
        ("ValueError", "Dimensions must be equal, but are 32 and 54 for 'sub'", "shape/dtype error"),
        ("RuntimeError", "something else", "other"),
    ],
)
def test_causes(real, error_type: str, message: str, cause: str) -> None:
    assert real.causes.cause_of(error_type, message) == cause


def test_a_program_that_exits_for_its_missing_options_needs_arguments_and_an_empty_fit_misses_data(
    real, tmp_path: Path
) -> None:
    cli = tmp_path / "cli.py"
    cli.write_text("import argparse, sys\np = argparse.ArgumentParser()\np.add_argument('--train', action='store_true')\n"
                   "if not p.parse_args().train:\n    p.print_help()\n    sys.exit(1)\n")  # fmt: skip
    plain = tmp_path / "plain.py"
    plain.write_text("import sys\nsys.exit(1)\n")
    verdicts = {
        name: real.classify(real.Program("S:1", "S", "fixed", str(path)),
                            {"outcome": "crash", "error_type": "SystemExit",
                             "error_message": "the program exited with status 1"}, {})
        for name, path in (("cli", cli), ("plain", plain))
    }  # fmt: skip
    assert verdicts["cli"].cause.startswith("needs command-line arguments")
    assert verdicts["plain"].cause == "instrumentation (benchmark scaffolding)"
    empty = real.classify(real.Program("S:2", "S", "fixed", str(plain)),
                          {"outcome": "crash", "error_type": "ValueError",
                           "error_message": "Expected input data to be non-empty."}, {})  # fmt: skip
    assert (empty.status, empty.cause) == ("missing data", "missing data")


def test_markdown_groups_failures_by_cause_and_message(real, tmp_path: Path, capsys) -> None:
    def result(rid: str, status: str, error: str | None = None, message: str | None = None, **extra):
        cause = real.causes.cause_of(error, message) if status == real.CRASH else None
        return real.Result(rid, "B", "fixed", f"/{rid}.py", status, error_type=error, error_message=message,
                           cause=cause, **extra)  # fmt: skip

    core = "No module named 'keras.layers.core' (this looks like a Keras 1/2-era program: try --modernize)"
    results = [
        result("B:1", real.CRASH, "ModuleNotFoundError", core),
        result("B:2", real.CRASH, "ModuleNotFoundError", core, modernize_changes=["Dense(init=) -> kernel_initializer"]),
        result("B:3", real.COMPLETES),
        result("B:4", real.TRAINS_CUT, epochs=3),
    ]  # fmt: skip
    text = real.markdown(results, {"manifest": "m.csv", "complete": False, "json": "r.json"})
    assert "PARTIAL" in text and "--from-json r.json" in text
    assert "| B/fixed | 4 | 1 | 0 | 2 | 0 | 1 | 0 | 0 | 0 | 50% |" in text
    assert "### Keras 3 removal/change (2)" in text
    assert (
        "- `ModuleNotFoundError: No module named 'keras.layers.core'` (2): B:1 fixed, B:2 fixed (rewritten)"
        in text
    )
    saved = tmp_path / "r.json"
    saved.write_text(json.dumps({"results": [vars(r) for r in results], "elapsed_s": 5}))
    assert real.main(["--from-json", str(saved), "--markdown", str(tmp_path / "r.md")]) == 0
    printed = capsys.readouterr().out
    assert "B/fixed" in printed and "B:2 fixed: ModuleNotFoundError" in printed and "[rewritten]" in printed
    assert (tmp_path / "r.md").read_text().startswith("# Real programs")


TRAINS = """\
import numpy as np
import keras
x = np.random.default_rng(0).normal(size=(64, 4)).astype("float32")
y = (x[:, 0] > 0).astype("int32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(2, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=2, batch_size=16, verbose=0)
model.evaluate(x, y, verbose=0)
"""
CRASHES = TRAINS.replace("keras.Input((4,))", "keras.Input((5,))")  # the data has 4 features


@pytest.mark.slow
def test_runs_a_tiny_manifest_through_mutreal(tmp_path: Path) -> None:
    rows = [
        {"id": "Own:1", "benchmark": "Own", "buggy": put(tmp_path, "own/1/buggy/train.py", CRASHES),
         "fixed": put(tmp_path, "own/1/fixed/train.py", TRAINS)},
        {"id": "Own:2", "benchmark": "Own", "buggy": put(tmp_path, "own/2/buggy/m.py", TRAINS),
         "fixed": put(tmp_path, "own/2/fixed/m.py", TRAINS), "data_missing": "own/2/data/absent.csv"},
        # the same texts in other folders: mutreal trains them once and returns that run under one path
        {"id": "Own:3", "benchmark": "Own", "buggy": put(tmp_path, "own/3/buggy/train.py", CRASHES),
         "fixed": put(tmp_path, "own/3/fixed/train.py", TRAINS)},
    ]  # fmt: skip
    manifest = write_manifest(tmp_path, rows)
    out = tmp_path / "out" / "real.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(manifest), "--time-limit", "120", "--json", str(out)],
        capture_output=True, text=True, timeout=600, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    payload = json.loads(out.read_text())
    verdicts = {(r["id"], r["side"]): (r["status"], r["cause"]) for r in payload["results"]}
    assert verdicts == {
        ("Own:1", "fixed"): ("completes", None),
        ("Own:1", "buggy"): ("crash", "shape/dtype error"),
        ("Own:2", "fixed"): ("missing data", "missing data"),
        ("Own:2", "buggy"): ("missing data", "missing data"),
        ("Own:3", "fixed"): ("completes", None),
        ("Own:3", "buggy"): ("crash", "shape/dtype error"),
    }
    assert payload["complete"] is True
    fixed = payload["summary"]["Own/fixed"]
    assert (fixed["programs"], fixed["completes"], fixed["missing data"], fixed["share_runs_of_present"]) == (
        3, 2, 1, 1.0,
    )  # fmt: skip
    assert payload["summary"]["Own/buggy"]["crash_classes"] == {"ValueError": 2}
    assert "Own/fixed" in done.stdout and "shape/dtype error (2):" in done.stdout
    assert "Own:1 buggy: ValueError:" in done.stdout


def test_a_graph_error_is_named_by_the_reason_its_traceback_ends_with(real) -> None:
    """TensorFlow's graph errors start with the op's whole stack; the reason comes after it, past
    the characters of a message the worker keeps, and is read from the traceback."""
    head = "Graph execution error:\n\nDetected at node 'Relu_1' defined at (most recent call last):\n" + "  File x\n" * 200
    trace = (head + "Node: 'Relu_1'\ninput depth must be evenly divisible by filter depth: 3 vs 32\n\t [[{{node Relu_1}}]]"
             "\n\nOriginal stack trace for 'Relu_1':\n" + "  File y\n" * 100)  # fmt: skip
    row = {"outcome": "crash", "error_type": "InvalidArgumentError", "error_message": head[:2000]}
    verdict = real.classify(real.Program("S:1", "S", "fixed", "/s.py"), row, {"traceback": trace})
    assert verdict.error_message == (
        "Graph execution error at node 'Relu_1': input depth must be evenly divisible by filter depth: 3 vs 32"
    )
    assert verdict.cause == ONEDNN
    assert real.causes.graph_detail("Graph execution error: x", "no node line") == "Graph execution error: x"


def test_a_program_that_downloads_its_data_set_through_tensorflow_datasets_misses_its_data(real, tmp_path) -> None:
    program = tmp_path / "train.py"
    program.write_text("import tensorflow_datasets as tfds\nmnist = tfds.load('mnist')\n")
    error = {"outcome": "crash", "error_type": "ModuleNotFoundError",
             "error_message": "No module named 'tensorflow_datasets'"}  # fmt: skip
    verdict = real.classify(real.Program("X:1", "X", "fixed", str(program)), error, {})
    assert (verdict.status, verdict.cause) == (real.MISSING, "missing data")
    assert "downloads its data set when the program runs" in verdict.error_message
    other = {**error, "error_message": "No module named 'hyperdash'"}  # a missing package of another kind
    assert real.classify(real.Program("X:1", "X", "fixed", str(program)), other, {}).status == real.CRASH


def test_arguments_from_the_manifest_or_the_command_the_benchmark_records(real, tmp_path: Path) -> None:
    put(tmp_path, "D/074/buggy/gol.py")
    put(tmp_path, "D/074/fixed/gol.py")
    put(tmp_path, "D/074/test_suite.py", "import os\nos.system('cd fixed;python gol.py 20 30')\n")
    put(tmp_path, "D/075/buggy/gol.py")
    put(tmp_path, "D/075/fixed/gol.py")
    rows = [{"id": "D:074", "benchmark": "D", "buggy": "D/074/buggy/gol.py", "fixed": "D/074/fixed/gol.py"},
            {"id": "D:075", "benchmark": "D", "buggy": "D/075/buggy/gol.py", "fixed": "D/075/fixed/gol.py"}]  # fmt: skip
    manifest = write_manifest(tmp_path, rows)
    got = {(p.id, p.side): p.args for p in real.read_manifest(manifest, ["fixed", "buggy"], None, None)}
    # the suite records the fixed side's command only; D:075 has no suite
    assert got == {("D:074", "fixed"): ["20", "30"], ("D:074", "buggy"): None,
                   ("D:075", "fixed"): None, ("D:075", "buggy"): None}  # fmt: skip
    text = manifest.read_text().splitlines()  # a manifest's own args column comes first
    text[0] += ",args"
    text[1] += ",7 8"
    manifest.write_text("\n".join(text) + "\n")
    got = {(p.id, p.side): p.args for p in real.read_manifest(manifest, ["fixed", "buggy"], None, None)}
    assert got[("D:074", "fixed")] == got[("D:074", "buggy")] == ["7", "8"]


def test_the_second_pass_reruns_only_programs_stopped_at_a_limit(real, tmp_path: Path, monkeypatch) -> None:
    """Programs cut at the time limit, timed out or stopped at the memory limit run again at the
    longer limits, in the second pass's store; both passes' figures are kept."""
    def result(rid: str, status: str, wall: float) -> object:
        return real.Result(rid, "B", "fixed", f"/{rid}.py", status, wall_time_s=wall,
                           cause={real.TIMEOUT: "time limit", real.MEMORY: "memory limit"}.get(status))  # fmt: skip

    results = [result("B:ok", real.COMPLETES, 10), result("B:cut", real.TRAINS_CUT, 75),
               result("B:slow", real.TIMEOUT, 75), result("B:big", real.MEMORY, 12),
               result("B:crash", real.CRASH, 3)]  # fmt: skip
    asked: list[tuple[list[str], float, float, Path]] = []
    second = {"B:cut": (real.COMPLETES, 130.0), "B:slow": (real.TIMEOUT, 600.0), "B:big": (real.COMPLETES, 40.0)}

    def fake_chunk(chunk, args, store):
        asked.append(([p.id for p in chunk], args.time_limit, args.memory_limit, store))
        return [result(p.id, *second[p.id]) for p in chunk]

    monkeypatch.setattr(real, "run_chunk", fake_chunk)
    args = real.argparse.Namespace(time_limit=75.0, memory_limit=10240.0, retry_time_limit=600.0,
                                   retry_memory_limit=20000.0, jobs=1, chunk=12)  # fmt: skip
    store = tmp_path / "runs.retry.sqlite"
    out = real.second_pass(results, args, store)
    assert asked == [(["B:cut", "B:slow", "B:big"], 600.0, 20000.0, store)]
    got = {r.id: (r.status, r.first_status, r.cause, r.at_longer_limit) for r in out}
    assert got == {
        "B:ok": (real.COMPLETES, None, None, False),
        "B:cut": (real.COMPLETES, real.TRAINS_CUT, None, True),
        "B:slow": (real.TIMEOUT, real.TIMEOUT, "time limit (also at 600 s)", False),
        "B:big": (real.COMPLETES, real.MEMORY, None, True),
        "B:crash": (real.CRASH, None, None, False),
    }
    first = {r.id: (r.status, r.wall_time_s) for r in real.first_pass(out)}
    assert first == {"B:ok": (real.COMPLETES, 10), "B:cut": (real.TRAINS_CUT, 75), "B:slow": (real.TIMEOUT, 75),
                     "B:big": (real.MEMORY, 12), "B:crash": (real.CRASH, 3)}  # fmt: skip
    assert real.summary(out)["B/fixed"]["completes_at_longer_limit"] == 2
    text = real.markdown(out, {"manifest": "m.csv", "complete": True, "retry": args.retry_text})
    assert "**First pass**" in text and "**After the second pass**" in text
    assert "| B/fixed | 5 | 1 | 0 | 1 | 0 | 1 | 1 | 1 | 0 | 40% | 175 |" in text  # the first pass, as it was
    assert "| B/fixed | 5 | 3 | 2 | 1 | 0 | 0 | 1 | 0 | 0 | 60% | 783 |" in text
    assert "- B:cut fixed: trains (cut at limit) at 75 s -> completes in 130 s (time limit 600 s" in text
    assert "### time limit (also at 600 s) (1)" in text
    # the same limits as the first pass: nothing to run again
    asked.clear()
    same = real.argparse.Namespace(**{**vars(args), "retry_time_limit": 75.0, "retry_memory_limit": 10240.0})
    assert real.second_pass(results, same, store) == results and asked == []


SLEEPS = "import time\ntime.sleep(float(open('seconds.txt').read()))\nprint('slept')\n"
GOL = "import sys\nprint('board', int(sys.argv[1]) * int(sys.argv[2]))\n"


@pytest.mark.slow
def test_second_pass_and_recorded_arguments_through_mutreal(tmp_path: Path) -> None:
    """Through the installed mutreal: a program cut at a 6 s limit completes at the longer limit
    (and is listed so), a program given the arguments its benchmark's test_suite.py records runs."""
    put(tmp_path, "S/1/fixed/seconds.txt", "14")
    rows = [
        {"id": "S:1", "benchmark": "S", "buggy": put(tmp_path, "S/1/buggy/sleep.py", SLEEPS),
         "fixed": put(tmp_path, "S/1/fixed/sleep.py", SLEEPS)},
        {"id": "D:074", "benchmark": "D", "buggy": put(tmp_path, "D/074/buggy/gol.py", GOL),
         "fixed": put(tmp_path, "D/074/fixed/gol.py", GOL)},
    ]  # fmt: skip
    put(tmp_path, "D/074/test_suite.py", "import os\nos.system('cd fixed;python gol.py 20 30')\n")
    manifest = write_manifest(tmp_path, rows)
    out = tmp_path / "out" / "real.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(manifest), "--sides", "fixed", "--time-limit", "6",
         "--retry-time-limit", "120", "--json", str(out), "--markdown", str(tmp_path / "out" / "real.md")],
        capture_output=True, text=True, timeout=900, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    payload = json.loads(out.read_text())
    verdicts = {r["id"]: (r["status"], r["first_status"], r["args"]) for r in payload["results"]}
    assert verdicts == {"S:1": ("completes", "timeout", None), "D:074": ("completes", None, ["20", "30"])}
    assert payload["first_pass_summary"]["ALL/fixed"]["timeout"] == 1
    assert payload["summary"]["ALL/fixed"]["completes_at_longer_limit"] == 1
    assert (tmp_path / "out" / "real.retry.sqlite").exists()  # the second pass's own store
    assert "S:1 fixed: timeout at" in done.stdout and "-> completes in" in done.stdout
