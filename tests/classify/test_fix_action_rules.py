"""Rules that code one fix action once, or read a training budget the calls do not use (see
taxonomy/decisions.csv rows LIS-reshape-once, HNE-unused-variable, HBS-evaluate, LCN-embedding-size)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare.data import reshapes_to as _reshapes_to
from mutreal.extract import extract_source
from mutreal.program.model import DataOp

_DIM = st.sampled_from(["rows", "cols", "1", "3", "28", "img_h", "img_w", "64"])


def _op(text: str, kind: str) -> DataOp:
    return DataOp(op=kind, text=text)


@settings(max_examples=60, deadline=None)
@given(dims=st.lists(_DIM, min_size=1, max_size=4), style=st.sampled_from(["args", "tuple", "np"]))
def test_reshape_to_the_new_input_shape_is_the_same_fix(dims, style):
    """x reshaped to (n, *dims) matches input_shape=dims in every spelling of reshape."""
    inner = ", ".join(dims)
    text = {
        "args": f"x.reshape(x.shape[0], {inner})",
        "tuple": f"x.reshape((len(x), {inner}))",
        "np": f"np.reshape(x, (-1, {inner}))",
    }[style]
    assert _reshapes_to(_op(text, "reshape"), [tuple(dims)])


@settings(max_examples=60, deadline=None)
@given(dims=st.lists(_DIM, min_size=1, max_size=4), other=st.lists(_DIM, min_size=1, max_size=4))
def test_reshape_to_another_shape_is_its_own_fix(dims, other):
    text = f"x.reshape(x.shape[0], {', '.join(other)})"
    assert _reshapes_to(_op(text, "reshape"), [tuple(dims)]) == (tuple(other) == tuple(dims))


def test_expand_dims_matches_a_trailing_channel_only():
    assert _reshapes_to(_op("np.expand_dims(x, -1)", "expand_dims"), [("30", "1")])
    assert _reshapes_to(_op("np.expand_dims(x, axis=-1)", "expand_dims"), [("30", "1")])
    assert not _reshapes_to(_op("np.expand_dims(x, 0)", "expand_dims"), [("30", "1")])
    assert not _reshapes_to(_op("np.expand_dims(x, -1)", "expand_dims"), [("1", "30")])
    assert not _reshapes_to(_op("np.expand_dims(x, -1)", "expand_dims"), [])


def test_hyperparameter_variables_by_name_and_literal():
    source = (
        "nb_epoch = 5\nEPOCHS = 2.0\nbatch_size = 64\nnum_batches = 3\nepochs = n\n"
        "learning_rate = 0.1\nif True:\n    epochs_inner = 7\n"
    )
    found = extract_source(source).hyperparameter_literals
    assert {k: (v.kind, v.value, v.line) for k, v in found.items()} == {
        "nb_epoch": ("fit.epochs", 5.0, 1),
        "EPOCHS": ("fit.epochs", 2.0, 2),
        "batch_size": ("fit.batch_size", 64.0, 3),
    }


_PROGRAM = """import numpy as np
from tensorflow import keras
x = np.random.rand(50, 4)
y = np.random.randint(0, 2, 50)
{extra}net = keras.Sequential([keras.layers.Dense(3, activation='relu', input_shape=(4,)), keras.layers.Dense(1)])
net.compile(loss='mse', optimizer='sgd')
net.fit(x, y, epochs={epochs}, batch_size=10)
"""


@settings(max_examples=15, deadline=None)
@given(before=st.integers(0, 50), after=st.integers(0, 50))
def test_unused_epochs_variable_yields_one_hne_when_changed(tmp_path_factory, before, after):
    from mutreal.label.classify import classify_pair

    folder = tmp_path_factory.mktemp("pair")
    b, f = folder / "b.py", folder / "f.py"
    b.write_text(_PROGRAM.format(extra=f"n_epochs = {before}\n", epochs=3))
    f.write_text(_PROGRAM.format(extra=f"n_epochs = {after}\n", epochs=3))
    codes = [c.code for c in classify_pair(str(b), str(f)).components]
    assert codes == (["HNE"] if before != after else [])


def test_changed_epochs_literal_is_not_counted_twice(classify_texts):
    """The call's epochs changed and the unused variable too: one HNE, as the fix's one action."""
    result = classify_texts(
        _PROGRAM.format(extra="epochs = 1\n", epochs=3), _PROGRAM.format(extra="epochs = 9\n", epochs=30)
    )
    assert [c.code for c in result.components] == ["HNE"]
    assert result.components[0].element == "fit.epochs"


def test_embedding_resize_is_one_lcn_and_no_input_shape(classify_texts):
    head = "from keras.models import Sequential\nfrom keras.layers import Embedding, Flatten, Dense\n"
    body = "m = Sequential()\nm.add({emb})\nm.add(Flatten())\nm.add(Dense(1))\nm.compile(loss='mse', optimizer='adam')\n"
    result = classify_texts(
        head + body.format(emb="Embedding(100, 8, input_length=5)"),
        head + body.format(emb="Embedding(300, 8, input_length=5)"),
    )
    assert [c.code for c in result.components] == ["LCN"]
    same = classify_texts(
        head + body.format(emb="Embedding(100, 8, input_length=5)"),
        head + body.format(emb="Embedding(input_dim=100, output_dim=8, input_length=5)"),
    )
    assert same.components == []


@settings(max_examples=60, deadline=None)
@given(
    dims=st.lists(_DIM, min_size=1, max_size=3),
    ctor=st.sampled_from(["np.zeros({})", "np.ones(shape={})", "np.random.random({})", "np.empty({})"]),
    lead=st.sampled_from(["1", "2", "n"]),
)
def test_batch_axis_is_a_leading_one_in_front_of_the_same_shape(dims, ctor, lead):
    """Decision CPP-batch-axis: (d...) -> (1, d...) with the same constructor, nothing else."""
    from mutreal.compare.data import gains_batch_axis as _gains_batch_axis
    from mutreal.program.model import DataSource

    def src(shape: list[str]) -> DataSource:
        text = ctor.format("(" + ", ".join(shape) + ("," if len(shape) == 1 else "") + ")")
        return DataSource("generated", name="numpy.x", text=text)

    assert _gains_batch_axis(src(dims), src([lead, *dims])) == (lead == "1")
    assert not _gains_batch_axis(src([lead, *dims]), src(dims))  # dropping an axis is not this rule
    assert not _gains_batch_axis(src(dims), src(dims))


_IMAGES = """from tensorflow.keras.preprocessing.image import ImageDataGenerator
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Flatten, Dense
flow = ImageDataGenerator().flow_from_directory("pics", target_size=(32, 32){mode})
m = Sequential([Flatten(input_shape=(32, 32, 3)), Dense(2, activation="softmax")])
m.compile(loss="categorical_crossentropy", optimizer="adam")
m.fit(flow, epochs=3)
"""


def test_colour_mode_default_is_rgb_and_a_changed_mode_is_iws(classify_texts):
    """Decision IWS-color-mode: 'rgb' written out equals the default; another mode is one IWS."""
    same = classify_texts(_IMAGES.format(mode=""), _IMAGES.format(mode=", color_mode='rgb'"))
    assert same.components == []
    changed = classify_texts(
        _IMAGES.format(mode=", color_mode='rgba'"), _IMAGES.format(mode=", color_mode='grayscale'")
    )
    assert [(c.code, c.element, c.before, c.after) for c in changed.components] == [
        ("IWS", "data.x_train.source", "'rgba'", "'grayscale'")
    ]


_RNN = """from keras.models import Sequential
from keras.layers import GRU, Dense
import numpy as np
seq, target = np.random.rand(16, 4, 3), np.random.rand(16)
m = Sequential([GRU(8, input_shape=(4, 3){args}), Dense(1)])
m.compile(loss="mae", optimizer="rmsprop")
m.fit(seq, target, {epochs}=2)
"""


@pytest.mark.parametrize(
    "before, after, expected",
    [
        ("", ", dropout=0.0", []),
        (", dropout_W=0.2, dropout_U=0.1", ", dropout=0.2, recurrent_dropout=0.1", []),
        ("", ", dropout=0.3", [("RCD", "model[0].layer[0].dropout", "RCD")]),
        (", recurrent_dropout=0.4", "", [("RCD", "model[0].layer[0].recurrent_dropout", "RCD")]),
    ],
)
def test_recurrent_dropout_is_a_dropout_rate(classify_texts, before, after, expected):
    """Decision RCD-recurrent-dropout, with Keras 1 spellings and written defaults as noise."""
    epochs_b = "nb_epoch" if "_W" in before else "epochs"
    result = classify_texts(
        _RNN.format(args=before, epochs=epochs_b), _RNN.format(args=after, epochs="epochs")
    )
    assert [(c.code, c.element, c.deepcrime) for c in result.components] == expected


_FULL_BATCH_PROGRAM = """\
from keras.models import Sequential
from keras.layers import Dense
import numpy as np
x_train = np.random.rand(64, 4)
y_train = np.random.randint(0, 2, 64)
model = Sequential()
model.add(Dense(8, input_dim=4, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x_train, y_train, epochs=3, batch_size={batch})
"""


@pytest.mark.parametrize(
    ("before", "after", "operator"),
    [
        ("16", "len(x_train)", "HDB"),  # the whole training set in one batch: DeepCrime's HDB
        ("16", "len( x_train )", "HDB"),  # however it is spaced
        ("x_train.shape[0]", "16", "HDB"),  # either side
        ("x_train.shape[ 0 ]", "16", "HDB"),
        ("16", "32", "HBS"),  # two fixed sizes: HBS
    ],
)
def test_a_batch_of_the_whole_training_set_is_hdb(classify_texts, before, after, operator):
    result = classify_texts(_FULL_BATCH_PROGRAM.format(batch=before), _FULL_BATCH_PROGRAM.format(batch=after))
    assert [(c.kind, c.deepcrime) for c in result.components] == [("fit.batch_size", operator)]


_SHAPE_PROGRAM = """\
from keras.models import Sequential
from keras.layers import Dense, Embedding, Flatten
import numpy as np
x_train = np.random.rand(64, 4)
y_train = np.random.randint(0, 2, 64)
model = Sequential()
model.add({first})
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x_train, y_train, epochs=3)
"""


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Dense(8, input_shape=(4,))", "Dense(8, input_shape=(6,))"),
        ("Dense(8, batch_input_shape=(None, 4))", "Dense(8, batch_input_shape=(None, 6))"),
        ("Dense(8, input_dim=4)", "Dense(8, input_dim=6)"),
    ],
)
def test_every_spelling_of_a_first_layer_input_shape_is_lis(classify_texts, before, after):
    """input_shape, batch_input_shape and input_dim all declare the model's input: a change is LIS."""
    result = classify_texts(_SHAPE_PROGRAM.format(first=before), _SHAPE_PROGRAM.format(first=after))
    assert [c.code for c in result.components] == ["LIS"]


def test_an_embedding_input_dim_is_its_vocabulary_not_an_input_shape(classify_texts):
    """Decision LCN-embedding-size: Embedding(input_dim=...) resized is no input-shape change,
    while its input_shape changed is one."""
    base = "Embedding(input_dim=100, output_dim=8, input_shape=(4,))"
    vocabulary = classify_texts(_SHAPE_PROGRAM.format(first=base),
                                _SHAPE_PROGRAM.format(first=base.replace("100", "200")))
    assert "LIS" not in [c.code for c in vocabulary.components]
    shape = classify_texts(_SHAPE_PROGRAM.format(first=base),
                           _SHAPE_PROGRAM.format(first=base.replace("(4,)", "(6,)")))
    assert "LIS" in [c.code for c in shape.components]
