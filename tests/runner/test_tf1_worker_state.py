"""What one TensorFlow 1 program leaves in a warm graph-mode worker, and the program's own modules.

A TensorFlow 1 program ran in a process of its own; mutreal's workers run many in one. Own programs:
flags defined by a finished program (its ``__main__`` or a helper module) are forgotten after its
run (:func:`mutreal.execution.worker.forget_program_flags`), and a helper module beside the entry is converted as the entry is (its version pin
removed, its TF1 names renamed). Fast tests call :mod:`mutreal.compat.tf1_worker_patches` directly; the
slow one runs two programs in one worker through the ``mutreal`` entry point.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from absl import flags
from click.testing import CliRunner

from mutreal.cli import main
from mutreal.compat import tf1_worker_patches
from mutreal.execution.store import RunStore
from mutreal.execution.worker import forget_program_flags


def _define_from(module_name: str, flag: str, *, stays: bool = False, short_name: str | None = None) -> None:
    """Define ``flag`` from a module named ``module_name`` (absl names the defining module after the
    caller's module in ``sys.modules``); the module is dropped afterwards unless it ``stays``, as the
    worker drops a finished program's own modules."""
    module = types.ModuleType(module_name)
    module.flags = flags  # type: ignore[attr-defined]
    saved = sys.modules.get(module_name)
    sys.modules[module_name] = module
    try:
        exec(f"flags.DEFINE_string({flag!r}, 'x', 'a folder', short_name={short_name!r})", module.__dict__)
    finally:
        if saved is not None:
            sys.modules[module_name] = saved
        elif not stays:
            del sys.modules[module_name]


def test_flags_of_a_finished_program_are_forgotten_and_library_flags_stay():
    name = "mutreal_test_data_dir"
    _define_from("mutreal_finished_helper", name, short_name="mutreal_d")
    _define_from("json", "mutreal_test_library_flag")  # a module still imported: a library's flag
    try:
        with pytest.raises(flags.DuplicateFlagError):  # what the next program hit before the repair
            _define_from("mutreal_next_program", name)
        flags.FLAGS(["prog", "--mutreal_test_library_flag=set by the program"])
        assert flags.FLAGS.is_parsed()
        assert forget_program_flags() == [name]
        assert name not in flags.FLAGS and "mutreal_d" not in flags.FLAGS  # its short name too
        assert "mutreal_test_library_flag" in flags.FLAGS
        assert flags.FLAGS["mutreal_test_library_flag"].value == "x"  # back at its default
        assert not flags.FLAGS.is_parsed()  # the next program parses its own command line
        _define_from("mutreal_next_program", name, short_name="mutreal_d")  # as in a fresh process
        assert flags.FLAGS[name].default == "x"
    finally:
        for leftover in (name, "mutreal_d", "mutreal_test_library_flag"):
            if leftover in flags.FLAGS:
                delattr(flags.FLAGS, leftover)


HELPER = """\
import tensorflow as tf

assert tf.__version__ == "1.8.0"


def total(x):
    return tf.reduce_sum(x, reduction_indices=[1])
"""


@pytest.fixture
def program_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run as the worker sets it up: ``__main__`` is the entry of ``tmp_path``, first on sys.path."""
    entry = types.ModuleType("__main__")
    entry.__file__ = str(tmp_path / "entry.py")
    monkeypatch.setitem(sys.modules, "__main__", entry)
    monkeypatch.syspath_prepend(str(tmp_path))
    converter = tf1_worker_patches.HelperConverter("tf1")
    monkeypatch.setattr(sys, "meta_path", [converter, *sys.meta_path])
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("mutreal_helper_")]:
        del sys.modules[name]


def test_a_helper_module_beside_the_entry_is_converted_like_the_entry(program_folder: Path):
    (program_folder / "mutreal_helper_pinned.py").write_text(HELPER)
    tf1_worker_patches.new_run(0)
    import mutreal_helper_pinned  # type: ignore[import-not-found]

    text = Path(mutreal_helper_pinned.__file__).read_text()
    assert "assert tf.__version__" in text  # the file itself is untouched
    rewrites = tf1_worker_patches.helper_rewrites()
    assert any(line.startswith("mutreal_helper_pinned: line 3: version pin") for line in rewrites), rewrites
    assert any("reduction_indices" in line for line in rewrites), rewrites
    tf1_worker_patches.new_run(1)
    assert tf1_worker_patches.helper_rewrites() == []  # listed per run


def test_modules_outside_the_programs_folder_are_left_to_python(program_folder: Path, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("library")
    (elsewhere / "mutreal_helper_library.py").write_text(HELPER)
    converter = tf1_worker_patches.HelperConverter("tf1")
    assert converter.find_spec("mutreal_helper_library", [str(elsewhere)]) is None
    (program_folder / "mutreal_helper_own.py").write_text(HELPER)
    assert converter.find_spec("mutreal_helper_own", None) is not None
    sys.path.insert(0, str(elsewhere))  # the worker's folder is no longer first: no run is going on
    try:
        assert converter.find_spec("mutreal_helper_own", None) is None
    finally:
        sys.path.remove(str(elsewhere))


# --- two programs in one worker, through the entry point -----------------------------------------

FLAGS_IN_HELPER = """\
import numpy as np
import tensorflow as tf
import settings

FLAGS = tf.app.flags.FLAGS
x = tf.placeholder(tf.float32, [None, 2])
w = tf.Variable(tf.zeros([2, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(FLAGS.steps):
        sess.run(train, {x: np.ones((4, 2), np.float32)})
    print("loss", sess.run(loss, {x: np.ones((4, 2), np.float32)}), FLAGS.data_dir)
"""
SETTINGS = """\
import tensorflow as tf

tf.app.flags.DEFINE_string("data_dir", "/tmp/data", "where the data is")
tf.app.flags.DEFINE_integer("steps", 5, "training steps")
"""
FLAGS_IN_ENTRY_PINNED_HELPER = """\
import numpy as np
import tensorflow as tf
from tensorflow.python.platform import flags
from model import logits_of

flags.DEFINE_string("data_dir", "data", "where the data is")
FLAGS = flags.FLAGS


def main(_):
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.int64, [None])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits_of(x)))
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    data = np.eye(3, dtype=np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(10):
            sess.run(train, {x: data, y: [0, 1, 2]})
        print("loss", sess.run(loss, {x: data, y: [0, 1, 2]}), FLAGS.data_dir)


if __name__ == "__main__":
    tf.app.run()
"""
MODEL = """\
import tensorflow as tf

assert tf.__version__.startswith("1.")


def logits_of(x):
    w = tf.get_variable("w", [3, 3], initializer=tf.random_normal_initializer(stddev=0.1))
    return tf.matmul(x, w) * tf.reduce_sum(tf.ones_like(x), reduction_indices=[1], keep_dims=True)
"""
@pytest.mark.slow
def test_programs_defining_the_same_flag_and_a_pinned_helper_run_in_one_worker(tmp_path: Path):
    programs = []
    for name, files in (("first", {"first.py": FLAGS_IN_HELPER, "settings.py": SETTINGS}),
                        ("second", {"second.py": FLAGS_IN_ENTRY_PINNED_HELPER, "model.py": MODEL})):  # fmt: skip
        folder = tmp_path / name
        folder.mkdir()
        for file, text in files.items():
            (folder / file).write_text(text)
        programs.append(str(folder / f"{name}.py"))
    result = CliRunner().invoke(main, ["run", *programs, "--runs", "2", "--jobs", "1", "--json", "-q",
                                       "--store", str(tmp_path / "runs.sqlite")])  # fmt: skip
    runs = json.loads(result.stdout)["runs"]
    assert len(runs) == 4
    for run in runs:
        assert run["outcome"] == "ok", (run["program"], run["error_type"], run["error_message"])
        assert run["framework"] == "tf1"
    with RunStore(tmp_path / "runs.sqlite") as store:
        records = store.records()
    assert len(records) == 4
    for record in records:  # a helper's conversion is in the record of its program's runs, no other's
        helpers = [line for line in record.rewrites if line.startswith(("model: ", "settings: "))]
        if record.program.endswith("second.py"):
            assert any(line.startswith("model: line 3: version pin") for line in helpers), record.rewrites
        assert not any(line.startswith("model: ") for line in helpers if not record.program.endswith("second.py"))
