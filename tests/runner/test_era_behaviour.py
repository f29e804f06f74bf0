"""Library behaviours of the Keras 2 era restored in tf_keras/tf1 workers, and the era's removed or
private APIs rewritten (own programs and data; no benchmark code).

The fast tests pin each rule on its own (pandas <= 1.4 setting a 2-D array into one column, standalone
Keras' cast of ``object`` arrays at the feed and its HDF5 saves, the inert tracker, TensorFlow's
private ``tensorflow.python.keras``, ``multi_gpu_model``); the slow one runs a standalone Keras
program that needs all of pandas' and Keras' old behaviours through ``mutreal run``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compat import era_behaviour
from mutreal.compat.era_behaviour import as_placeholder_feed, first_column_of_2d, recorded, save_format_of
from mutreal.compat.framework_choice import prepare_runtime
from mutreal.compat.removed_apis import rewrite_removed_apis
from mutreal.compat.scaffolding import strip_instrumentation
from mutreal.program.training_observers import TRACKER_PACKAGES


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.integers(1, 5), st.integers(2, 4))
def test_a_2d_array_into_one_existing_column_keeps_its_first_column(rows, columns, width):
    frame = pd.DataFrame(np.zeros((rows, columns)))
    value = np.arange(rows * width, dtype=float).reshape(rows, width)
    with pytest.warns(UserWarning, match="pandas <= 1.4"):
        kept = first_column_of_2d(frame, 0, value)
    assert np.array_equal(kept, value[:, 0])
    # a new column, several columns, a 1-D value, a wrong length: pandas' own behaviour, unchanged
    assert first_column_of_2d(frame, "new", value) is value
    assert first_column_of_2d(frame, [0], value) is value
    one = value[:, 0]
    assert first_column_of_2d(frame, 0, one) is one
    if rows > 1:
        assert first_column_of_2d(frame, 0, value[:-1]).ndim == 2


def test_object_arrays_of_numbers_are_fed_as_floats_and_strings_are_not():
    labels = np.array(["R", "M", "R"], dtype=object)
    labels[labels == "R"] = 0
    labels[labels == "M"] = 1
    fed = as_placeholder_feed(labels)
    assert fed.dtype == np.float32 and fed.tolist() == [0.0, 1.0, 0.0]
    text = np.array(["a", 1], dtype=object)
    assert as_placeholder_feed(text) is text  # does not convert: Keras reports it, as it did
    pair = as_placeholder_feed((np.zeros(2), labels))
    assert isinstance(pair, tuple) and pair[1].dtype == np.float32 and pair[0].dtype == np.float64
    numbers = np.arange(3)
    assert as_placeholder_feed(numbers) is numbers and as_placeholder_feed([1, 2]) == [1, 2]
    assert as_placeholder_feed({"a": labels})["a"].dtype == np.float32


def test_graph_mode_keras_saves_hdf5_whatever_the_extension():
    era_behaviour.begin_run([era_behaviour.SAVE_LINE])  # what the worker does with the run's rewrites
    try:
        assert save_format_of("model.bin", None) == "h5"
        assert save_format_of(Path("weights/model"), None) == "h5"
        assert save_format_of("model.h5", None) is None and save_format_of("m.keras", None) is None
        assert save_format_of("model.bin", "tf") == "tf"  # the program's own choice stands
        era_behaviour.begin_run(["line 3: argument: lr= -> learning_rate="])  # not listed: tf_keras' default
        assert save_format_of("model.bin", None) is None
    finally:
        era_behaviour.begin_run(None)


def test_the_behaviours_a_program_can_meet_are_listed_with_its_rewrites():
    program = "import pandas as pd\nfrom keras.models import Sequential\nm = Sequential()\nm.fit(x, y)\nm.save('m')\n"
    assert len(recorded(program, "keras2", "tf_keras")) == 3
    assert recorded(program, "tf2", "tf_keras") == [era_behaviour.PANDAS_LINE]  # tf.keras 2.x was eager
    assert len(recorded(program, "tf2", "tf_keras", tf1_api=True)) == 3  # TensorFlow 1's tf.keras was not
    assert recorded(program, "keras2", "keras3") == []
    arrays = "from keras.models import Sequential\nm.fit(x, y)\nnp.save('x.npy', x)\nsaver.save(sess, 'ckpt')\n"
    assert recorded(arrays, "keras2", "tf_keras") == [era_behaviour.FEED_LINE]  # no model.save: not listed
    contrib = prepare_runtime("from tensorflow.contrib import keras\nm = keras.models.Sequential()\nm.fit(x, y)\n")
    assert era_behaviour.FEED_LINE in contrib.rewrites
    runtime = prepare_runtime(program)
    assert runtime.framework == "tf_keras" and any("pandas < 3" in line for line in runtime.rewrites)


def test_a_tracker_import_gets_an_inert_stand_in_that_runs():
    assert "hyperdash" in TRACKER_PACKAGES
    program = (
        "from hyperdash import Experiment, monitor\nimport hyperdash as hd\n"
        "exp = Experiment('run')\nrate = exp.param('rate', 0.25)\n"
        "@monitor('job')\ndef double(v):\n    return 2 * v\n"
        "exp.metric('loss', 1.5)\nexp.end()\nresult = (rate, double(3), hd.Experiment('x').metric('m', 7))\n"
    )
    new, changes = strip_instrumentation(program)
    assert "hyperdash" not in new.replace("as hd", "") and [c.kind for c in changes] == ["experiment tracker"] * 2
    scope: dict = {}
    exec(compile(new, "tracked.py", "exec"), scope)
    assert scope["result"] == (0.25, 6, 7)


def test_tensorflows_private_keras_becomes_the_public_one_and_multi_gpu_model_its_model():
    program = (
        "from tensorflow.python.keras.optimizers import Adam\n"
        "from tensorflow.python.keras.layers.core import Dense\n"
        "from tensorflow.python.keras.utils import multi_gpu_model, Sequence\n"
        "from tensorflow.python.keras.utils import multi_gpu_model\n"
        "from tensorflow.python.keras import backend as K\n"
        "import tensorflow.python.keras.backend as B\n"
        "parallel = multi_gpu_model(model, 4)\n"
        "other = utils.multi_gpu_model(model, gpus=2)\n"
    )
    new, changes = rewrite_removed_apis(program)
    assert new.splitlines() == [
        "from keras.optimizers import Adam",
        "from keras.layers import Dense",
        "from keras.utils import Sequence",
        "from keras import backend as K",
        "import keras.backend as B",
        "parallel = model",
        "other = model",
    ]
    assert len(changes) == 10
    runtime = prepare_runtime("import tensorflow as tf\nfrom tensorflow.python.keras.models import Sequential\n"
                              "model = Sequential()\n")  # fmt: skip
    assert runtime.framework == "tf_keras" and "from keras.models import Sequential" in runtime.source


ERA_PROGRAM = """\
import io
import numpy as np
import pandas as pd
from keras.layers import Dense
from keras.models import Sequential, load_model
from keras.utils import to_categorical
from sklearn.datasets import load_iris

data = load_iris()
names = "\\n".join("flower" if t == 0 else "" for t in data.target)
frame = pd.read_csv(io.StringIO("kind\\n" + names + "\\n"), skip_blank_lines=False)
frame.loc[frame["kind"].isna(), "kind"] = 0  # pandas 3: a str column refuses 0
frame["group"] = 0
frame["group"] = to_categorical(data.target)  # pandas >= 1.5: a 2-D array into one column raises
table = frame.values  # mixed columns: one object array
labels = table[:, 0]
labels[labels == "flower"] = 1  # an object array of ints: eager Keras refuses it
x = np.hstack([data.data, table[:, 1:].astype("float32")]).astype("float32")
model = Sequential()
model.add(Dense(8, input_dim=5, activation="relu"))
model.add(Dense(1, activation="sigmoid"))
model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
model.fit(x, labels, epochs=2, batch_size=16, verbose=0)
model.save("model.bin")  # standalone Keras: HDF5, whatever the extension
print(load_model("model.bin").predict(x[:2]).shape)
"""


@pytest.mark.slow
def test_a_standalone_keras_program_of_the_pandas_1_era_runs(tmp_path: Path):
    from mutreal.cli import main

    program = tmp_path / "era.py"
    program.write_text(ERA_PROGRAM)
    (tmp_path / "model.bin").write_bytes(b"an old model file the program overwrites")
    result = CliRunner().invoke(main, ["run", str(program), "--runs", "1", "--jobs", "1", "--json", "-q"])
    data = json.loads(result.stdout)
    (run,) = data["runs"]
    assert run["outcome"] == "ok", run
    assert (run["era"], run["framework"]) == ("keras2", "tf_keras") and run["metric_name"] == "accuracy"
    # as it is, on Keras 3 and pandas 3, it does not get past its data
    result = CliRunner().invoke(main, ["run", str(program), "--runs", "1", "--jobs", "1", "--json", "-q",
                                       "--framework", "as-is"])  # fmt: skip
    assert json.loads(result.stdout)["runs"][0]["error_type"] == "TypeError"


def test_pandas_here_reads_text_as_str_which_the_workers_restore():  # why the program above needs them
    frame = pd.read_csv(io.StringIO("kind\nflower\n\n"), skip_blank_lines=False)
    assert str(frame["kind"].dtype) != "object"


def test_a_step_count_given_as_a_float_is_keras_2_code():
    base = "import tensorflow as tf\nmodel = tf.keras.Sequential()\nmodel.fit(x, y, STEPS)\n"
    floats = ["steps_per_epoch=len(x)/32", "validation_steps = n / 8", "steps_per_epoch=len(x) / 32, epochs=2"]
    for steps in floats:  # Keras 2 took a float step count, Keras 3 raises on it
        runtime = prepare_runtime(base.replace("STEPS", steps))
        assert runtime.framework == "tf_keras" and "true division" in runtime.reason, steps
    floats += ["validation_steps=np.ceil(len(v) / 8)", "steps_per_epoch=len(x) / 32 + 1"]  # still floats
    for steps in floats[3:]:
        assert prepare_runtime(base.replace("STEPS", steps)).framework == "tf_keras", steps
    assigned = "import tensorflow as tf\nsteps_per_epoch = len(x) / 32\nmodel = tf.keras.Sequential()\n"
    assert prepare_runtime(assigned + "model.fit(x, y, steps_per_epoch=steps_per_epoch)\n").framework == "tf_keras"
    ints = ["steps_per_epoch=len(x)//32", "steps_per_epoch=10, epochs=int(a/2)", "steps_per_epoch=n)  # n/2",
            "steps_per_epoch=int(len(x) / 32)", "steps_per_epoch=math.ceil(n / 32)", "validation_steps=round(n / 8)"]
    for steps in ints:  # an int however it was computed: Keras 3 takes it
        assert prepare_runtime(base.replace("STEPS", steps)).framework == "keras3", steps


@pytest.mark.filterwarnings("ignore:A value is being set on a copy")  # the left-alone line, as pandas 3 says
@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["low", "high"]), st.integers(0, 9)), min_size=1, max_size=10),
       st.integers(-5, 5))  # fmt: skip
def test_a_chained_inplace_call_on_one_column_changes_the_frame_as_before_pandas_3(cells, fill):
    program = (
        "frame['a'].fillna(FILL, inplace=True)\nframe['a'].replace('low', 0, inplace=True)\n"
        "frame[['b']].fillna(FILL, inplace=True)\n"  # several columns: a copy in every pandas, left alone
        "frame[frame['b'].isnull()].fillna(FILL, inplace=True)\n"  # rows by a condition: a copy too
        "frame[frame['b'] == 'low'].replace('low', 0, inplace=True)\n"
    ).replace("FILL", repr(fill))
    new, changes = rewrite_removed_apis(program)
    assert len(changes) == 2 and "frame[['b']].fillna" in new and "frame[frame['b'] == 'low'].replace" in new
    frame = pd.DataFrame({"a": pd.Series(cells, dtype=object), "b": pd.Series(cells, dtype=object)})
    exec(compile(new, "cleaning.py", "exec"), {"frame": frame})
    expected = [0 if v == "low" else (fill if v is None else v) for v in cells]
    assert frame["a"].tolist() == expected
    assert frame["b"].tolist() == cells  # unchanged, as it was


def test_scipy_misc_image_functions_come_back_over_pillow(tmp_path: Path):
    from mutreal.compat import scipy_misc

    scipy_misc.install()
    from scipy.misc import imread, imresize, imsave  # removed in SciPy 1.2/1.3, given back

    ramp = np.linspace(0.0, 1.0, 24, dtype=np.float64).reshape(4, 6)  # not uint8: byte-scaled, as SciPy did
    imsave(tmp_path / "ramp.png", ramp)
    back = imread(tmp_path / "ramp.png")
    assert back.dtype == np.uint8 and back.shape == (4, 6) and (back[0, 0], back[-1, -1]) == (0, 255)
    assert imread(tmp_path / "ramp.png", flatten=True).dtype == np.float32
    colour = np.zeros((8, 10, 3), dtype=np.uint8)
    colour[..., 0] = 200
    assert imresize(colour, (4, 5)).shape == (4, 5, 3)  # (rows, columns)
    assert imresize(colour, 50).shape == (4, 5, 3) and imresize(colour, 0.5).shape == (4, 5, 3)  # percent, fraction
    assert (imresize(colour, (4, 5), interp="nearest")[..., 0] == 200).all()
    assert era_behaviour.SCIPY_MISC_LINE in recorded("from scipy.misc import imread\n", "keras2", "tf_keras")
    assert era_behaviour.SCIPY_MISC_LINE in recorded("from scipy import ndimage, misc\n", "keras2", "tf_keras")
