"""Positive controls of the data, shape and training-call equalities that decide a fault component.

Each equality that makes two spellings "the same" (``input_dim=4`` and ``input_shape=(4,)``,
``kernel_regularizer=None`` and no regulariser, ``batch_size=len(x)`` read as the full batch, a
validation set added next to a callback ...) is shown twice on one tiny program of our own: the
noise spelling gives no component, and a change of the very element the equality reads, in a way
that matters, gives exactly the component the study would code. test_noise_rule_controls.py does
the same for the registered noise rules; this file covers the comparisons beneath them. Only the
public classify API is used (two source texts in, components out).
"""

from __future__ import annotations

import pytest

BASE = """\
from keras.models import Sequential
from keras.layers import Dense
from keras.regularizers import l2
from keras.callbacks import EarlyStopping
import numpy as np

x_train = np.random.rand(100, 4)
y_train = np.random.randint(0, 2, 100)
model = Sequential()
model.add(Dense(8, input_dim=4, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam', metrics=['accuracy'])
model.fit(x_train, y_train, epochs=20, batch_size=16, verbose=0)
"""

FIRST = "Dense(8, input_dim=4, activation='relu')"


def _components(result) -> list[tuple[str, str, str, str | None, str | None]]:
    return sorted((c.code, c.element, c.change, c.before, c.after) for c in result.components)


def _with_first_layer(layer: str) -> str:
    return BASE.replace(FIRST, layer)


# -- the model's declared input shape: spellings that are equal, and sizes that are not ----------


@pytest.mark.parametrize(
    "spelling",
    ["Dense(8, input_shape=(4,), activation='relu')", "Dense(8, batch_input_shape=(None, 4), activation='relu')"],
)
def test_the_same_input_size_in_another_spelling_is_no_fault(classify_texts, spelling):
    assert _components(classify_texts(BASE, _with_first_layer(spelling))) == []


@pytest.mark.parametrize(
    ("spelling", "after"),
    [
        ("Dense(8, input_dim=5, activation='relu')", "5"),
        ("Dense(8, input_shape=(5,), activation='relu')", "(5,)"),
        ("Dense(8, batch_input_shape=(None, 5), activation='relu')", "(None, 5)"),
    ],
)
def test_another_input_size_in_any_spelling_is_a_changed_input_shape(classify_texts, spelling, after):
    # the fixed program still declares an input shape (changed, not removed), read from its own key
    assert _components(classify_texts(BASE, _with_first_layer(spelling))) == [
        ("LIS", "model[0].layer[0].input_shape", "changed", "4", after)
    ]


def test_an_input_shape_given_only_as_batch_input_shape_is_read_on_the_buggy_side(classify_texts):
    buggy = _with_first_layer("Dense(8, batch_input_shape=(None, 3), activation='relu')")
    assert _components(classify_texts(buggy, BASE)) == [
        ("LIS", "model[0].layer[0].input_shape", "changed", "(None, 3)", "4")
    ]


# -- a regulariser of None is no regulariser; a real one is a change --------------------------------


def test_kernel_regularizer_none_is_the_same_as_none_written(classify_texts):
    fixed = _with_first_layer("Dense(8, input_dim=4, activation='relu', kernel_regularizer=None)")
    assert _components(classify_texts(BASE, fixed)) == []
    assert _components(classify_texts(fixed, BASE)) == []


@pytest.mark.parametrize("buggy_argument", ["", ", kernel_regularizer=None"])
def test_a_real_regulariser_next_to_none_or_nothing_is_rcw(classify_texts, buggy_argument):
    buggy = _with_first_layer(f"Dense(8, input_dim=4, activation='relu'{buggy_argument})")
    fixed = _with_first_layer("Dense(8, input_dim=4, activation='relu', kernel_regularizer=l2(0.01))")
    found = classify_texts(buggy, fixed).components
    assert [(c.code, c.element) for c in found] == [("RCW", "model[0].layer[0].kernel_regularizer")]


# -- the batch size: the whole training set is HDB, another array's length is unknown --------------


@pytest.mark.parametrize("size", ["len(x_train)", "len(y_train)", "x_train.shape[0]"])
def test_the_length_of_the_trained_data_as_batch_size_is_a_batch_size_change(classify_texts, size):
    fixed = BASE.replace("batch_size=16", f"batch_size={size}")
    assert _components(classify_texts(BASE, fixed)) == [("HBS", "fit.batch_size", "changed", "16", size)]


def test_the_length_of_an_array_the_fit_does_not_train_on_is_undecidable(classify_texts):
    fixed = BASE.replace("batch_size=16", "batch_size=len(frame)")
    assert _components(classify_texts(BASE, fixed)) == []


# -- a validation set added: VRM only where a callback already watched a validation quantity ------


@pytest.mark.parametrize("monitor", ["", "monitor='val_loss', ", "monitor='val_accuracy', "])
def test_a_validation_set_added_under_a_callback_watching_validation_is_vrm(classify_texts, monitor):
    buggy = BASE.replace("verbose=0)", f"verbose=0, callbacks=[EarlyStopping({monitor}patience=2)])")
    fixed = buggy.replace("verbose=0,", "verbose=0, validation_split=0.2,")
    assert _components(classify_texts(buggy, fixed)) == [
        ("VRM", "fit.validation", "added", None, "validation_split=0.2")
    ]


@pytest.mark.parametrize("callbacks", ["", ", callbacks=[EarlyStopping(monitor='loss', patience=2)]"])
def test_a_validation_set_added_without_a_validation_monitor_is_no_fault(classify_texts, callbacks):
    buggy = BASE.replace("verbose=0)", f"verbose=0{callbacks})")
    fixed = buggy.replace("verbose=0", "verbose=0, validation_split=0.2", 1)
    assert _components(classify_texts(buggy, fixed)) == []


# -- one sample given its batch axis ----------------------------------------------------------------

PREDICT_ROW = BASE + "print(model.predict(x_train[0]))\n"
PREDICT_ZEROS = BASE + "sample = np.zeros((4,))\nprint(model.predict(sample))\n"


@pytest.mark.parametrize("kept", ["x_train[0:1]", "x_train[[0]]"])
def test_a_row_given_its_batch_axis_is_cpp(classify_texts, kept):
    fixed = PREDICT_ROW.replace("x_train[0]", kept)
    assert _components(classify_texts(PREDICT_ROW, fixed)) == [
        ("CPP", "data.x_pred.preprocess[0]", "added", "x_train[0]", kept)
    ]


def test_another_single_row_is_no_reshape(classify_texts):
    assert _components(classify_texts(PREDICT_ROW, PREDICT_ROW.replace("x_train[0]", "x_train[1]"))) == []


def test_a_generated_sample_given_a_leading_axis_of_one_is_cpp(classify_texts):
    fixed = PREDICT_ZEROS.replace("np.zeros((4,))", "np.zeros((1, 4))")
    assert _components(classify_texts(PREDICT_ZEROS, fixed)) == [
        ("CPP", "data.x_pred.preprocess[0]", "added", "np.zeros((4,))", "np.zeros((1, 4))")
    ]


# -- a preprocessing step compared by its arguments ------------------------------------------------


@pytest.mark.parametrize(
    ("buggy_step", "fixed_step"),
    [("x_train / 255.0", "x_train / 127.5"), ("np.clip(x_train, 0, 1)", "np.clip(x_train, 0, 2)")],
)
def test_a_preprocessing_step_with_another_argument_is_a_changed_step(classify_texts, buggy_step, fixed_step):
    def program(step: str) -> str:
        return BASE.replace("model = Sequential()", f"x_train = {step}\nmodel = Sequential()")

    assert _components(classify_texts(program(buggy_step), program(fixed_step))) == [
        ("CPP", "data.x_train.preprocess[0]", "changed", buggy_step, fixed_step)
    ]


def test_a_row_kept_as_a_batch_in_any_spacing_is_cpp(classify_texts):
    fixed = PREDICT_ROW.replace("x_train[0]", "x_train[ [0] ]")
    assert _components(classify_texts(PREDICT_ROW, fixed)) == [
        ("CPP", "data.x_pred.preprocess[0]", "added", "x_train[0]", "x_train[ [0] ]")
    ]


def test_a_batch_of_two_rows_cut_to_one_keeps_its_batch_axis(classify_texts):
    buggy = PREDICT_ROW.replace("x_train[0]", "x_train[0:2]")
    assert _components(classify_texts(buggy, buggy.replace("x_train[0:2]", "x_train[0:1]"))) == []


# -- more of the elements the equalities read -------------------------------------------------------


def test_a_regulariser_held_in_a_variable_is_a_regulariser(classify_texts):
    fixed = _with_first_layer("Dense(8, input_dim=4, activation='relu', kernel_regularizer=reg)")
    assert _components(classify_texts(BASE, fixed)) == [
        ("RCW", "model[0].layer[0].kernel_regularizer", "added", None, "reg")
    ]


def test_a_monitor_built_from_a_validation_prefix_watches_validation(classify_texts):
    # the monitor is an expression, read by its text once the quotes are stripped: 'val_' + metric
    buggy = BASE.replace("verbose=0)", "verbose=0, callbacks=[EarlyStopping(monitor='val_' + metric)])")
    fixed = buggy.replace("verbose=0,", "verbose=0, validation_split=0.2,")
    assert _components(classify_texts(buggy, fixed)) == [
        ("VRM", "fit.validation", "added", None, "validation_split=0.2")
    ]


def _reshaped(target: str) -> str:
    return BASE.replace("model = Sequential()", f"x_train = x_train.reshape({target})\nmodel = Sequential()")


@pytest.mark.parametrize("fixed_target", ["50, x_test.shape[1]", "100, 2, 2"])
def test_a_reshape_whose_sample_shape_changes_is_a_changed_step(classify_texts, fixed_target):
    # another rank, or another sample count together with a feature axis that cannot be shown equal
    assert _components(classify_texts(_reshaped("100, 4"), _reshaped(fixed_target))) == [
        ("CPP", "data.x_train.preprocess[0]", "changed", "x_train.reshape(100, 4)", f"x_train.reshape({fixed_target})")
    ]


@pytest.mark.parametrize(("buggy_target", "fixed_target"), [("100, 4", "new_shape"), ("new_shape", "100, 4")])
def test_a_reshape_to_an_unknown_shape_is_undecidable(classify_texts, buggy_target, fixed_target):
    assert _components(classify_texts(_reshaped(buggy_target), _reshaped(fixed_target))) == []


@pytest.mark.parametrize("monitor", ["watched", "Xval_loss"])
def test_a_monitor_named_by_a_variable_is_not_read_as_a_validation_quantity(classify_texts, monitor):
    # only quotes and spaces are stripped from a monitor's text: a name is not a 'val_' string
    buggy = BASE.replace("verbose=0)", f"verbose=0, callbacks=[EarlyStopping(monitor={monitor})])")
    fixed = buggy.replace("verbose=0,", "verbose=0, validation_split=0.2,")
    assert _components(classify_texts(buggy, fixed)) == []


# -- argument values: a shape moved into a variable, an unfolded name, a list against a tuple ------


def test_a_shape_moved_into_a_variable_is_compared_by_its_items(classify_texts):
    buggy = _with_first_layer("Dense(8, input_shape=(4,), activation='relu')")
    moved = BASE.replace("model = Sequential()", "SHAPE = (4,)\nmodel = Sequential()").replace(
        "input_dim=4", "input_shape=SHAPE"
    )
    assert _components(classify_texts(buggy, moved)) == []
    other = moved.replace("SHAPE = (4,)", "SHAPE = (5,)")
    assert _components(classify_texts(buggy, other)) == [
        ("LIS", "model[0].layer[0].input_shape", "changed", "(4,)", "SHAPE")
    ]


def test_an_input_size_the_program_never_binds_is_undecidable(classify_texts):
    buggy = _with_first_layer("Dense(8, input_dim=n_features, activation='relu')")
    assert _components(classify_texts(buggy, BASE)) == []


@pytest.mark.parametrize(("fixed_shape", "expected"), [("[4, 1]", []), ("[4, 2]", ["LIS"])])
def test_a_list_shape_against_a_tuple_shape_is_compared_item_by_item(classify_texts, fixed_shape, expected):
    buggy = _with_first_layer("Dense(8, input_shape=(4, 1), activation='relu')")
    fixed = _with_first_layer(f"Dense(8, input_shape={fixed_shape}, activation='relu')")
    assert [c.code for c in classify_texts(buggy, fixed).components] == expected


# -- the data reshaped to the model's new input shape is one fix action with it (LIS) --------------


def _new_input(step: str, shape: str = "(4, 1)", before: str = "") -> str:
    return BASE.replace("model = Sequential()", f"{before}x_train = {step}\nmodel = Sequential()").replace(
        "input_dim=4", f"input_shape={shape}"
    )


@pytest.mark.parametrize(
    "fixed",
    [
        _new_input("x_train.reshape(100, 4, 1)"),
        _new_input("x_train.reshape((100, 4, 1))"),
        _new_input("np.reshape(x_train, (100, 4, 1))"),
        _new_input("numpy.reshape(x_train, (100, 4, 1))"),
        _new_input("tf.reshape(x_train, (100, 4, 1))"),
        _new_input("np.reshape(x_train, newshape=(100, 4, 1))"),
        _new_input("np.expand_dims(x_train, -1)"),
        _new_input("np.expand_dims(x_train, axis=-1)"),
        _new_input("x_train.reshape(100, STEPS, 1)", "(STEPS, 1)", "STEPS = 4\n"),
        _new_input("x_train.reshape(100, STEPS, 1)", "(4, 1)", "STEPS = 4\n"),
        _new_input("x_train.reshape(100, 1, 4)", "(1, 4)"),
    ],
)
def test_data_reshaped_to_exactly_the_new_input_shape_is_only_the_input_shape_change(classify_texts, fixed):
    assert [(c.code, c.change) for c in classify_texts(BASE, fixed).components] == [("LIS", "changed")]


@pytest.mark.parametrize(
    "fixed",
    [
        _new_input("x_train.reshape(100, 2, 2)"),  # another shape than the model's (4, 1)
        _new_input("np.expand_dims(x_train, 1)"),  # a new axis, but not the last one
        _new_input("np.expand_dims(x_train, -1)", "(1, 4)"),  # a last axis of 1, for a shape ending in 4
    ],
)
def test_data_reshaped_to_another_shape_is_a_fix_action_of_its_own(classify_texts, fixed):
    assert sorted((c.code, c.change) for c in classify_texts(BASE, fixed).components) == [
        ("CPP", "added"), ("LIS", "changed")
    ]
