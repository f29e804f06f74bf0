"""Rules found auditing classify on real benchmark programs (own small programs, no third-party code)."""

from __future__ import annotations

import libcst as cst

from mutreal.extract.names import ImportTable


def _imports(code: str) -> ImportTable:
    table = ImportTable()
    for stmt in cst.parse_module(code).body:
        for small in getattr(stmt, "body", []):
            if isinstance(small, cst.Import | cst.ImportFrom):
                table.add(small)
    return table


_RESHAPE = """\
import numpy as np
from tensorflow.keras.layers import Dense
from tensorflow.keras.models import Sequential

N_SAMPLES = {n}
feats = np.zeros(shape=(N_SAMPLES, 4, 4, 8))
feats = np.reshape(feats, {target})
labels = np.zeros(shape=(N_SAMPLES, 3))
head = Sequential([Dense(32, activation="relu", input_dim=4 * 4 * 8), Dense(3, activation="softmax")])
head.compile(optimizer="adam", loss="categorical_crossentropy")
head.fit(feats, labels, epochs=2, batch_size=8)
"""


def test_reshape_reading_a_changed_sample_count_is_no_preprocessing_change(classify_texts):
    """Rule reshape_sample_count: the same reshape, only the number of samples it keeps changed."""
    buggy = _RESHAPE.format(n=900, target="(N_SAMPLES, 4 * 4 * 8)")
    fixed = _RESHAPE.format(n=12, target="(N_SAMPLES, 4 * 4 * 8)")
    assert classify_texts(buggy, fixed).components == []


def test_reshape_to_another_sample_shape_is_still_preprocessing(classify_texts):
    buggy = _RESHAPE.format(n=900, target="(N_SAMPLES, 4 * 4 * 8)")
    fixed = _RESHAPE.format(n=900, target="(N_SAMPLES, 16, 8)")
    assert [c.code for c in classify_texts(buggy, fixed).components] == ["CPP"]


_POSTED = """\
model = Sequential()
model.add({conv}(4, kernel_size=3, activation='relu', input_shape=(40, 1)))
model.add(Flatten())
model.add(Dense(3, activation='softmax'))
model.compile(loss='categorical_crossentropy', optimizer='adam')
model.fit(X, Y, epochs=5, batch_size=10)
"""


def test_unimported_layer_name_in_other_letter_case_is_that_layer(classify_texts):
    """Rule api_spelling: a posted snippet typing ``Conv1d`` for ``Conv1D`` (never imported) builds
    the same layer; the fix's correct spelling is no layer removed and added."""
    imported = "from tensorflow.keras.models import Sequential\n" + (
        "from tensorflow.keras.layers import Conv1D, Dense, Flatten\n"
    )
    buggy = _POSTED.format(conv="Conv1d")
    fixed = imported + _POSTED.format(conv="Conv1D").replace("(40, 1)", "(60, 1)")
    result = classify_texts(buggy, fixed)
    assert [(c.code, c.element) for c in result.components] == [("LIS", "model[0].layer[0].input_shape")]


def test_bound_name_in_other_letter_case_is_not_renamed():
    assert _imports("from torch.nn import Conv1d\n").resolve_name("Conv1d") == "torch.nn.Conv1d"
    assert _imports("").resolve_name("Maxpooling2D") == "keras.layers.MaxPooling2D"
    assert _imports("").resolve_name("conv1d") == "conv1d"  # lower case: a function, not a class


_PREDICT_ONE = """\
import numpy as np
from keras.layers import Dense
from keras.models import Sequential

grid = np.random.rand(50, 6)
marks = np.random.randint(0, 2, 50)
net = Sequential([Dense(8, activation="relu", input_dim=6), Dense(1, activation="sigmoid")])
net.compile(loss="binary_crossentropy", optimizer="sgd")
net.fit(grid, marks, epochs=2)
print(net.predict(grid[{index}]))
"""


def test_one_row_given_its_batch_axis_is_cpp(classify_texts):
    """Decision CPP-single-row-batch, in each spelling of a batch of one."""
    for kept in ("0:1", ":1", "[0]"):
        result = classify_texts(_PREDICT_ONE.format(index="0"), _PREDICT_ONE.format(index=kept))
        assert [(c.code, c.change) for c in result.components] == [("CPP", "added")], kept


def test_other_row_or_column_selection_is_no_component(classify_texts):
    for before, after in (("0", "1"), ("0:1", "3:4"), ("k", "k + 1")):
        before_text = _PREDICT_ONE.format(index=before).replace("grid = ", "k = 2\ngrid = ")
        after_text = _PREDICT_ONE.format(index=after).replace("grid = ", "k = 2\ngrid = ")
        assert classify_texts(before_text, after_text).components == [], (before, after)


_BRANCH = """\
from tensorflow.keras.layers import Conv2D, Dense, Flatten, Input, MaxPooling2D
from tensorflow.keras.models import Model

picture = Input(shape=(16, 16, 1))
unused = Input(shape=(3,))
trunk = Conv2D(8, 3, activation="relu")(picture)
side = MaxPooling2D(2)(trunk)
side = Conv2D(16, 3, activation="relu")(side)
head = Flatten()({feeds})
score = Dense(1, activation="sigmoid")(head)
net = Model(picture, score)
net.compile(optimizer="adam", loss="binary_crossentropy")
"""


def test_branch_wired_in_by_the_fix_is_counted_once(classify_texts):
    """Rule wired_loose_layers: the buggy model leaves a computed branch unconnected; the fix wires it
    in. The layers appear in the fixed model (two missing layers), not also as a loose model."""
    result = classify_texts(_BRANCH.format(feeds="trunk"), _BRANCH.format(feeds="side"))
    assert sorted(c.code for c in result.components) == ["LRM", "LRM"]
    assert all(c.element.startswith("model[0]") for c in result.components)


def test_layers_loose_on_both_sides_are_still_compared(classify_texts):
    loose = "from keras.layers import Dense\nfirst = Dense({n}, activation='relu')\nsecond = Dense(1)\n"
    result = classify_texts(loose.format(n=4), loose.format(n=8))
    assert [c.code for c in result.components] == ["LCN"]


def test_preprocessing_step_text_leaves_out_comments(classify_texts):
    base = _PREDICT_ONE.format(index="0:1")
    fixed = base.replace(
        "marks = ", "grid = np.clip(grid,  # lower bound\n    0.0, 1.0)  # bounded\nmarks = "
    )
    [component] = classify_texts(base, fixed).components
    assert (component.code, component.after) == ("CPP", "np.clip(grid, 0.0, 1.0)")


_SEQUENCE = """\
import numpy as np
from keras.layers import LSTM, Dense
from keras.models import Sequential

series = np.arange(12.0)
target = series * 3
steps, width = {steps}, 1
{reshape}
rnn = Sequential()
rnn.add(LSTM(16, input_shape=(steps, width)))
rnn.add(Dense(1))
rnn.compile(loss="mse", optimizer="adam")
rnn.fit(series, target, epochs=3)
"""


def test_data_reshaped_to_the_new_named_input_shape_is_one_lis(classify_texts):
    """Decision LIS-reshape-once with the new shape written through names: the folded values match."""
    buggy = _SEQUENCE.format(steps=6, reshape="")
    fixed = _SEQUENCE.format(steps=12, reshape="series = series.reshape(1, 12, 1)")
    assert [c.code for c in classify_texts(buggy, fixed).components] == ["LIS"]
    other = _SEQUENCE.format(steps=12, reshape="series = series.reshape(1, 6, 2)")
    assert sorted(c.code for c in classify_texts(buggy, other).components) == ["CPP", "LIS"]


def test_empty_program_is_compared_with_nothing(classify_texts):
    """Rule empty_program: a fixed file with no Keras element and no data names no removed step,
    layer or call (a side with no statement at all is refused by classify, see test_bad_input)."""
    program = _PREDICT_ONE.format(index="0:1").replace("marks = ", "grid = grid / 2.0\nmarks = ")
    placeholder = "import os\nprint(os.getcwd())\n"
    assert classify_texts(program, placeholder).components == []
    assert classify_texts(placeholder, program).components == []


_SEARCH = """\
import numpy as np
from keras.layers import Dense
from keras.models import Sequential

xs = np.random.rand(40, 2)
ys = np.random.rand(40)
for width in {widths}:
    probe = Sequential([Dense(width, activation="relu", input_dim=2), Dense(1)])
    probe.compile(loss="mse", optimizer="adam")
    probe.fit(xs, ys, epochs=5)
"""


def test_search_loop_building_a_model_per_item_is_not_more_epochs(classify_texts):
    """Decision HNE-loop-passes applies to one model trained in passes, not to a loop that builds a
    new model per configuration (a grid search trains each once)."""
    result = classify_texts(_SEARCH.format(widths="[4]"), _SEARCH.format(widths="[4, 8]"))
    assert [c.code for c in result.components if c.code == "HNE"] == []


_POSTED_MODEL = """\
from keras.models import Sequential
from keras.layers import Dense

clf = Sequential()
clf.add(Dense(10, input_dim=3, activation="relu"))
clf.add(Dense(2, activation="softmax"))
"""

_COMPLETED = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense

pts = np.random.random((30, 3))
cls = np.random.randint(0, 2, 30)
cls = np.eye(2)[cls]
{extra}clf = Sequential()
clf.add(Dense(10, input_dim=3, activation="relu"))
clf.add(Dense(2, activation="softmax"))
clf.compile(loss="categorical_crossentropy", optimizer="sgd")
clf.fit(pts, cls, epochs=1)
"""


def _classify_cli(tmp_path, buggy: str, fixed: str) -> list[str]:
    import json
    import subprocess
    import sys

    (tmp_path / "b.py").write_text(buggy, encoding="utf-8")
    (tmp_path / "f.py").write_text(fixed, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "mutreal", "classify", "--json", str(tmp_path / "b.py"), str(tmp_path / "f.py")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return sorted(c["code"] for c in json.loads(out.stdout)["components"])


def test_data_a_fix_adds_to_a_posted_model_definition_is_completion(tmp_path):
    """Decision CPP-completion-data: the buggy program never trains and binds no arrays, so the
    generated arrays of the fix and their one-hot encoding are no preprocessing fault."""
    assert _classify_cli(tmp_path, _POSTED_MODEL, _COMPLETED.format(extra="")) == []


def test_a_program_that_trains_on_its_own_data_still_gets_added_steps(tmp_path):
    """Control: the same added encoding against a buggy program that trains on the same generated
    labels without it is a preprocessing fix (CPP)."""
    buggy = _COMPLETED.format(extra="").replace("cls = np.eye(2)[cls]\n", "")
    assert _classify_cli(tmp_path, buggy, _COMPLETED.format(extra="")) == ["CPP"]


_FIT_WITH = """\
import numpy as np
from keras.callbacks import EarlyStopping
from keras.models import Sequential
from keras.layers import Dense

pts = np.random.random((48, 4))
tgt = np.random.randint(0, 2, 48)
from trainer_tools import Watch  # a helper module classify cannot read


m = Sequential([Dense(6, input_dim=4, activation="relu"), Dense(1, activation="sigmoid")])
m.compile(loss="binary_crossentropy", optimizer="adam")
m.fit(pts, tgt, epochs=20, validation_split=0.2{callbacks})
"""


def test_an_added_or_removed_early_stopping_is_a_patience_change(tmp_path):
    """Decision RCP-early-stopping, both directions."""
    with_es = _FIT_WITH.format(callbacks=", callbacks=[EarlyStopping(patience=2)]")
    without = _FIT_WITH.format(callbacks="")
    assert _classify_cli(tmp_path, without, with_es) == ["RCP"]
    assert _classify_cli(tmp_path, with_es, without) == ["RCP"]


def test_early_stopping_against_a_callback_classify_cannot_read_is_no_component(tmp_path):
    """Control: the other side passes a user callback in its place, which may stop training itself."""
    with_es = _FIT_WITH.format(callbacks=", callbacks=[EarlyStopping(patience=2)]")
    opaque = _FIT_WITH.format(callbacks=", callbacks=[Watch()]")
    assert _classify_cli(tmp_path, opaque, with_es) == []
