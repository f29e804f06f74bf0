"""Sites beyond ``fit(x_train, y_train)``: training arrays behind generators, ``Sequence``s,
``tf.data`` and several inputs; user-defined losses; layers of a subclassed model and Embedding
tables. Each kind has a subject in benchmarks/subjects_mutation; classify(original, mutant) names
the operator and agrees with the provenance at every site."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mutreal.label.classify import classify_pair
from mutreal.mutation.operators import Program, apply_edits, registry
from mutreal.mutation.operators.agreement import compare_components

from .conftest import SUBJECTS_DIR, subject_path, subject_program

TRAINING_DATA_OPS = ("TCL", "TRD", "TUD", "TCO", "TAN")
#: subject -> (how its arrays reach fit, the arrays TRD rebinds)
DATA_SUBJECTS = {
    "gen_function_iris": ("generator function", ["x_train", "y_train"]),
    "gen_class_digits": ("generator class of module digit_batches", ["train_images", "train_labels"]),
    "sequence_digits": ("Sequence", ["x_train", "y_train"]),
    "tfdata_digits": ("tf.data", ["x_train", "y_train"]),
    "two_inputs_iris": ("several inputs", ["sepal_train", "petal_train", "y_train"]),
}
NEW_SUBJECTS = (*DATA_SUBJECTS, "custom_loss_iris", "subclassed_recommender")
NEW_KIND_OPS = {
    **{s: TRAINING_DATA_OPS for s in DATA_SUBJECTS},
    "custom_loss_iris": ("LCH",),
    "subclassed_recommender": ("ACH", "ARM", "AAL", "WCI", "WAB", "WRB", "RAW", "RCW", "RRW"),
}

def _new_cases():
    # every site agrees: a training-data call is one component on the inputs' chain (the labels'
    # for TCL) wherever the arrays go next, a generator, a Sequence or a tf.data pipeline
    for name in NEW_SUBJECTS:
        program = subject_program(name)
        for op_id in NEW_KIND_OPS[name]:
            for site in registry.get(op_id).sites(program):
                yield pytest.param(name, op_id, site.index, id=f"{name}-{op_id}-{site.index}")


@pytest.mark.parametrize("name", list(DATA_SUBJECTS))
@pytest.mark.parametrize("op_id", TRAINING_DATA_OPS)
def test_training_arrays_are_found_behind_the_wrapper(name: str, op_id: str) -> None:
    program = subject_program(name)
    sites = registry.get(op_id).sites(program)
    assert len(sites) == 1, registry.get(op_id).no_site_reasons(program)
    via, arrays = DATA_SUBJECTS[name]
    assert sites[0].detail["via"] == via
    expected = {"TCL": arrays[-1:], "TAN": arrays[:-1]}.get(op_id, arrays)
    assert sites[0].detail["arrays"] == expected
    mutant = apply_edits(program, [registry.get(op_id).apply(program, sites[0])])
    ast.parse(mutant.code)
    assert {a for c in mutant.provenance.components for a in c.arrays} == set(expected)
    # rebound before the wrapper is built (or before fit when it is built in the call)
    lines = mutant.code.splitlines()
    rebind = next(i for i, line in enumerate(lines) if "= _mutreal_td." in line)
    wrapper = sites[0].detail.get("wrapper", "").split("(")[0]
    later = [
        i for i, line in enumerate(lines) if wrapper and wrapper in line and i > rebind and "def " not in line
    ]
    assert later or sites[0].detail["via"] == "several inputs"


@pytest.mark.parametrize(("name", "op_id", "site_index"), list(_new_cases()))
def test_classify_names_the_operator_of_new_sites(tmp_path, name: str, op_id: str, site_index: int) -> None:
    program = subject_program(name)
    op = registry.get(op_id)
    site = op.sites(program)[site_index]
    mutant = apply_edits(program, [op.apply(program, site, op.values(program, site)[-1])])
    path = tmp_path / mutant.name
    path.write_text(mutant.code, encoding="utf-8")
    result = classify_pair(str(subject_path(name)), str(path))
    assert op_id in {c.deepcrime for c in result.components}, [c.element for c in result.components]


@pytest.mark.parametrize(("name", "op_id", "site_index"), list(_new_cases()))
def test_classify_agrees_with_provenance_on_new_sites(
    tmp_path, name: str, op_id: str, site_index: int
) -> None:
    program = subject_program(name)
    op = registry.get(op_id)
    site = op.sites(program)[site_index]
    values = op.values(program, site)
    for value in {values[0], values[-1]}:
        mutant = apply_edits(program, [op.apply(program, site, value)])
        path = tmp_path / mutant.name
        path.write_text(mutant.code, encoding="utf-8")
        result = classify_pair(str(subject_path(name)), str(path))
        agreement = compare_components(mutant.provenance.components, result.components)
        assert agreement.ok, f"{op_id} {value}: {agreement.describe()}"


def test_custom_losses_get_a_loss_of_their_outputs_task() -> None:
    program = subject_program("custom_loss_iris")
    op = registry.get("LCH")
    by_kind = {s.detail["custom"]: s for s in op.sites(program)}
    assert set(by_kind) == {"def", "lambda", "Loss subclass"}
    assert by_kind["def"].detail["task"] == "classification"  # the softmax "species" output
    assert by_kind["lambda"].detail["task"] == "regression"  # the linear "width" output
    assert by_kind["Loss subclass"].detail["task"] == "regression"
    assert "categorical_crossentropy" in op.values(program, by_kind["def"])
    assert "mean_squared_error" not in op.values(program, by_kind["def"])
    assert set(op.values(program, by_kind["lambda"])) >= {"mean_squared_error", "huber_loss"}
    assert "binary_crossentropy" not in op.values(program, by_kind["Loss subclass"])
    # one entry of the per-output dict is replaced, the other kept
    mutant = op.mutant(program, by_kind["lambda"], "mean_absolute_error")
    assert (
        '"width": "mean_absolute_error"' in mutant.code and '"species": smoothed_crossentropy' in mutant.code
    )


def test_embedding_tables_are_weight_sites() -> None:
    program = subject_program("subclassed_recommender")
    elements = {
        op: [s.element for s in registry.get(op).sites(program)] for op in ("WCI", "RAW", "RCW", "RRW")
    }
    assert "model[0].layer[0].embeddings_initializer" in elements["WCI"]
    assert "model[0].layer[0].embeddings_regularizer" in elements["RAW"]
    assert elements["RCW"] == elements["RRW"] == ["model[0].layer[1].embeddings_regularizer"]
    mutant = registry.get("RRW").mutant(program, 0)
    assert "embeddings_regularizer" not in mutant.code.split("self.item_embedding")[1].split("self.hidden")[0]


_STREAMING = """import numpy as np
from tensorflow import keras


def clips(paths, labels, batch_size=8):
    while True:
        for i in range(0, len(paths), batch_size):
            yield np.stack([np.load(p) for p in paths[i : i + batch_size]]), labels[i : i + batch_size]


model = keras.Sequential([keras.Input(shape=(16,)), keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy")
model.fit(clips(train_paths, train_labels), steps_per_epoch=10, epochs=2)
ds = keras.utils.image_dataset_from_directory("images")
model.fit(ds, epochs=1)
"""


def test_mutate_list_says_why_there_is_no_site(tmp_path) -> None:
    program = tmp_path / "streaming.py"
    program.write_text(_STREAMING, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    out = subprocess.run(
        [sys.executable, "-m", "mutreal", "mutate", "--list", str(program)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    # the generator reads files whose paths it is given with the labels: the rows of both arrays
    # are mutated together (TCL, TRD, TUD, TCO); noise cannot be added to a path (TAN says so)
    for op_id in ("TCL", "TRD", "TUD", "TCO"):
        assert any(r[0] == op_id and r[1] == "0" and r[2].endswith(":13:1") for r in rows), out
    tan = [r[3] for r in rows if r[0] == "TAN" and r[1] == "-"]
    assert any("line 13" in why and "file paths it reads" in why for why in tan), out
    for op_id in ("TCL", "TRD", "TUD", "TCO", "TAN"):
        reasons = [r[3] for r in rows if r[0] == op_id and r[1] == "-"]
        assert any("line 15" in why and "streams its samples from files" in why for why in reasons), out
    assert not any(r[0] == "TAN" and r[1] != "-" for r in rows)


def _capture(tmp_path: Path, programs: list[Path], train: bool = False) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
        "CUDA_VISIBLE_DEVICES": "",
    }
    cmd = [sys.executable, str(Path(__file__).with_name("fit_capture.py")), str(tmp_path / "out")]
    return subprocess.run(
        [*cmd, *(["--train"] if train else []), *map(str, programs)], capture_output=True, text=True, env=env
    )


def _write_mutants(tmp_path: Path, names, ops_of, every_site: bool = True) -> list[Path]:
    """One mutant per (subject, operator, site) with the operator's middle value (the first site
    only without ``every_site``), next to the subject's own helper modules (a generator class
    imported from the program's folder)."""
    folder = tmp_path / "programs"
    folder.mkdir(exist_ok=True)
    (folder / "digit_batches.py").write_text((SUBJECTS_DIR / "digit_batches.py").read_text())
    paths = []
    for name in names:
        program = subject_program(name)
        original = folder / f"{name}.py"
        original.write_text(program.text, encoding="utf-8")
        paths.append(original)
        for op_id in ops_of(name):
            op = registry.get(op_id)
            sites = op.sites(program)
            for site in sites if every_site or op_id == "LCH" else sites[:1]:
                values = op.values(program, site)
                mutant = apply_edits(program, [op.apply(program, site, values[len(values) // 2])])
                path = folder / mutant.name
                path.write_text(mutant.code, encoding="utf-8")
                paths.append(path)
    return paths


@pytest.mark.slow
def test_training_data_mutants_train_on_changed_arrays(tmp_path) -> None:
    paths = _write_mutants(tmp_path, DATA_SUBJECTS, lambda _name: TRAINING_DATA_OPS)
    done = _capture(tmp_path, paths)
    assert done.returncode == 0, done.stderr[-2000:]
    out = tmp_path / "out"
    for name in DATA_SUBJECTS:
        base = np.load(out / f"{name}.npz")
        n_inputs = len([k for k in base.files if k.startswith("x")])
        for op_id in TRAINING_DATA_OPS:
            (got_path,) = out.glob(f"{name}__{op_id}_0_*.npz")
            got = np.load(got_path)
            xs = [got[f"x{i}"] for i in range(n_inputs)]
            assert all(len(x) == len(got["y"]) for x in xs), f"{name} {op_id}: rows not aligned"
            rows, base_rows = len(got["y"]), len(base["y"])
            labels = got["y"].argmax(1) if got["y"].ndim == 2 else got["y"]
            base_labels = base["y"].argmax(1) if base["y"].ndim == 2 else base["y"]
            counts, base_counts = np.bincount(labels, minlength=10), np.bincount(base_labels, minlength=10)
            if op_id == "TRD":
                assert rows < base_rows, name
            elif op_id == "TUD":
                assert rows < base_rows and (counts <= base_counts).all(), name
            elif op_id == "TCO":
                assert rows > base_rows, name
            elif op_id == "TCL":
                assert rows == base_rows and (counts != base_counts).any(), name
                for i in range(n_inputs):
                    assert np.allclose(np.sort(xs[i], axis=0), np.sort(base[f"x{i}"], axis=0)), name
            elif op_id == "TAN":
                assert rows == base_rows and (counts == base_counts).all(), name
                for i in range(n_inputs):
                    assert not np.allclose(np.sort(xs[i], axis=0), np.sort(base[f"x{i}"], axis=0)), (name, i)


@pytest.mark.slow
def test_mutants_of_the_new_subjects_train(tmp_path) -> None:
    # one epoch of one mutant per (subject, new-kind operator); LCH: its def, lambda and Loss subclass
    paths = _write_mutants(tmp_path, NEW_SUBJECTS, lambda name: NEW_KIND_OPS[name], every_site=False)
    paths = [p for p in paths if "__" in p.stem]
    done = _capture(tmp_path, paths, train=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert {p.stem for p in (tmp_path / "out").glob("*.ok")} == {p.stem for p in paths}


def test_multi_input_rows_stay_aligned_in_the_runtime() -> None:
    from mutreal.runtime import training_data as td

    a = np.arange(40, dtype=float).reshape(20, 2)
    b = a * 3
    y = np.repeat([0, 1, 2, 3], 5)
    for fn in (td.remove, td.unbalance, td.overlap):
        (xa, xb), ys = fn([a, b], y, pct=50.0, seed=1)
        assert np.array_equal(xb, xa * 3) and len(xa) == len(ys)
    (na, nb) = td.add_noise((a, b), pct=50.0, seed=1)
    assert isinstance(td.add_noise((a, b), pct=50.0, seed=1), tuple)
    assert np.array_equal(np.flatnonzero((na != a).any(1)), np.flatnonzero((nb != b).any(1)))


def test_program_without_wrapper_keeps_direct_sites() -> None:
    program = Program("model.fit(x_train, y_train, epochs=3)\n", "direct.py")
    site = registry.get("TRD").sites(program)[0]
    assert "via" not in site.detail and site.detail["x"] == "x_train"


_HELPER_SEQUENCE = """from keras.utils import Sequence


class Frames(Sequence):
    def __init__(self, paths, angles, training, opts):
        self.paths, self.angles, self.opts = paths, angles, opts

    def __len__(self):
        return len(self.paths) // 4

    def __getitem__(self, i):
        images, steers = [], []
        for p, a in zip(self.paths[i * 4 : i * 4 + 4], self.angles[i * 4 : i * 4 + 4]):
            image, a = shift(self.opts.folder, p, a)
            images.append(image)
            steers.append(a)
        return images, steers


def make_generators(x_tr, x_va, y_tr, y_va):
    return Frames(x_tr, y_tr, True, OPTS), Frames(x_va, y_va, False, OPTS)


def train(model, x_train, x_valid, y_train, y_valid):
    train_gen, valid_gen = make_generators(x_train, x_valid, y_train, y_valid)
    model.fit(train_gen, validation_data=valid_gen, epochs=3)
"""

_DATASET_HELPER = """import tensorflow as tf


def to_dataset(paths, labels):
    path_ds = tf.data.Dataset.from_tensor_slices(paths)
    label_ds = tf.data.Dataset.from_tensor_slices(labels)
    return tf.data.Dataset.zip((path_ds.map(read_clip), label_ds))


def datasets():
    train_paths, train_labels = list_clips("train")
    train_ds = to_dataset(train_paths, train_labels)
    train_ds = train_ds.shuffle(64).batch(8)
    train_ds = train_ds.prefetch(2)
    return train_ds, None


def main(model):
    train_ds, test_ds = datasets()
    if not done():
        model.fit(train_ds, epochs=2)
"""


@pytest.mark.parametrize(
    ("text", "arrays", "via", "rebound_before"),
    [
        (
            _HELPER_SEQUENCE,
            ["x_train", "y_train"],
            "Sequence built by make_generators",
            "train_gen, valid_gen =",
        ),
        (
            _DATASET_HELPER,
            ["train_paths", "train_labels"],
            "tf.data built by to_dataset",
            "train_ds = to_dataset(",
        ),
    ],
    ids=["sequence-from-helper", "zipped-datasets-from-helper"],
)
def test_arrays_behind_helper_functions(text: str, arrays: list[str], via: str, rebound_before: str) -> None:
    program = Program(text, "helper.py")
    site = registry.get("TRD").sites(program)[0]
    assert site.detail["arrays"] == arrays and site.detail["via"] == via
    lines = registry.get("TRD").mutant(program, site, 10.0).code.splitlines()
    rebind = next(i for i, line in enumerate(lines) if "= _mutreal_td.remove(" in line)
    assert rebound_before in lines[rebind + 1]
