"""One fault, one component, whatever the edit looks like (issue 22, item 1): a learning rate chosen
with a new optimizer or rewritten in a schedule is an HLR (decisions HLR-with-OCH, HLR-schedule), a
model whose layers were mostly replaced is one MWA (decision MWA-replaced-layers), a step on data
from a loader the walker cannot follow is still a step (CPP), and a training-data call on inputs and
labels has no second component on the labels' source. Each rule has its positive and negative
controls; the general ones are properties over generated programs."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.program.model_value import implicit_default

_SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# ------------------------------------------------------------------------------ HLR with OCH

_OPTIMISED = """\
from keras.models import Sequential
from keras.layers import Dense
from keras.optimizers import SGD, Adam, RMSprop, Adagrad, Nadam
import numpy as np
rows = np.random.rand(90, 3)
marks = np.random.rand(90)
est = Sequential()
est.add(Dense(5, input_dim=3, activation='relu'))
est.add(Dense(1))
est.compile(loss='mse', optimizer={opt})
est.fit(rows, marks, epochs=4, batch_size=9)
"""
_CLASSES = ("SGD", "Adam", "RMSprop", "Adagrad", "Nadam")


def _codes(result) -> list[str]:
    return sorted(c.code for c in result.components)


@_SETTINGS
@given(
    before=st.sampled_from(_CLASSES),
    after=st.sampled_from(_CLASSES),
    written=st.booleans(),
    rate=st.sampled_from([0.3, 0.05, 0.002, 1e-4]),
)
def test_a_new_optimizer_writing_its_own_rate_carries_an_hlr(classify_texts, before, after, written, rate):
    """OCH, plus HLR exactly when the new optimizer writes a rate that differs from the first
    program's (its written rate, else its class's default in the era)."""
    if before == after:
        return
    first = f"{before}(lr={rate})" if written else f"'{before.lower()}'"
    first_rate = rate if written else implicit_default(before, "learning_rate", "keras2").value
    new_rate = 0.0123
    result = classify_texts(_OPTIMISED.format(opt=first), _OPTIMISED.format(opt=f"{after}(lr={new_rate})"))
    assert _codes(result) == sorted(["OCH", "HLR"] if first_rate != new_rate else ["OCH"])
    hlr = [c for c in result.components if c.code == "HLR"]
    assert all(c.element == "compile.optimizer.learning_rate" and c.after == str(new_rate) for c in hlr)


@pytest.mark.parametrize(
    ("first", "second", "codes"),
    [
        ("'rmsprop'", "Adam(lr=1e-1)", ["HLR", "OCH"]),  # the default 0.001 against a written 0.1
        ("SGD(lr=0.2)", "Adam()", ["OCH"]),  # bare: the class's defaults (DeepCrime's OCH)
        ("SGD(lr=0.2)", "Adam(beta_1=0.8)", ["OCH"]),  # no rate written
        ("SGD(lr=0.01)", "Adam(lr=0.01)", ["OCH"]),  # the rate kept (OCH keep_learning_rate)
        ("'rmsprop'", "Adam(lr=0.001)", ["OCH"]),  # written equal to RMSprop's default
        ("SGD(lr=step)", "Adam(lr=0.1)", ["OCH"]),  # the first rate unknown: undecidable
        ("Adam(lr=0.1)", "'sgd'", ["OCH"]),  # the fix writes none (a bare string)
    ],
)
def test_hlr_with_och_controls(classify_texts, first, second, codes):
    buggy = _OPTIMISED.format(opt=first).replace("est = Sequential()", "step = float(input())\nest = Sequential()")
    assert _codes(classify_texts(buggy, _OPTIMISED.format(opt=second))) == codes


# ------------------------------------------------------------------------------ HLR schedule

_SCHEDULED = """\
from keras.models import Sequential
from keras.layers import Dense
from keras.callbacks import LearningRateScheduler
from keras.optimizers import SGD
import numpy as np
wave = np.random.rand(80, 4)
peak = np.random.rand(80)
{schedule}
net = Sequential()
net.add(Dense(6, input_dim=4, activation='relu'))
net.add(Dense(1))
net.compile(loss='mse', optimizer=SGD(lr={first_rate}))
net.fit(wave, peak, epochs=10, callbacks=[LearningRateScheduler({callback})])
"""


def _scheduled(schedule: str, first_rate: str = "0.1", callback: str = "rate_at") -> str:
    return _SCHEDULED.format(schedule=schedule, first_rate=first_rate, callback=callback)


@pytest.mark.parametrize(
    ("first", "second", "codes"),
    [
        # the schedule's values rewritten: HLR, once, though every argument names the same function
        ("def rate_at(epoch):\n    return 0.1 * 0.5 ** epoch", "def rate_at(epoch):\n    return 0.1 * 0.9 ** epoch", ["HLR"]),
        ("rate_at = lambda e: 0.01 if e < 5 else 0.001", "def rate_at(e):\n    return 0.01 if e < 3 else 0.001", ["HLR"]),
        # the same schedule: a lambda and the function returning its expression, locals renamed,
        # a docstring and a print added
        ("rate_at = lambda e: 0.1 / (1 + e)", "def rate_at(epoch):\n    return 0.1 / (1 + epoch)", []),
        (
            "def rate_at(epoch):\n    lr = 0.1 / (1 + epoch)\n    return lr",
            'def rate_at(n):\n    """Decay."""\n    value = 0.1 / (1 + n)\n    print(value)\n    return value',
            [],
        ),
    ],
)  # fmt: skip
def test_schedule_controls(classify_texts, first, second, codes):
    assert _codes(classify_texts(_scheduled(first), _scheduled(second))) == codes


def test_schedule_the_optimizer_calls_is_read_too(classify_texts):
    """Without a callback: the optimizer's rate computed by a user function whose body changed."""
    first = _scheduled("def start():\n    return 0.1", first_rate="start()").replace(
        ", callbacks=[LearningRateScheduler(rate_at)]", ""
    )
    assert _codes(classify_texts(first, first.replace("return 0.1", "return 0.01"))) == ["HLR"]


def test_a_rate_variable_named_like_a_schedule_is_no_function(classify_texts):
    program = _scheduled("lr = 0.05\ndef rate_at(e):\n    return lr", first_rate="lr")
    assert _codes(classify_texts(program, program.replace("lr = 0.05", "lr = 0.05  # tuned"))) == []


# ------------------------------------------------------------------------------ MWA: layers replaced

_HEAD = """\
from keras.models import Sequential
from keras.layers import Dense
from keras.regularizers import l2
import numpy as np
probe = np.random.rand(100, 4)
kind = np.eye(2)[np.random.randint(0, 2, 100)]
m = Sequential()
"""
_TAIL = "m.compile(loss='categorical_crossentropy', optimizer='adam')\nm.fit(probe, kind, epochs=3)\n"


def _stack(layers: list[str]) -> str:
    return _HEAD + "".join(f"m.add({layer})\n" for layer in layers) + _TAIL


def _dense(units: int, first: bool, last: bool, extra: str = "") -> str:
    act = "softmax" if last else "relu"
    shape = ", input_dim=4" if first else ""
    return f"Dense({2 if last else units}{shape}, activation='{act}'{extra})"


#: edits of one layer, each one respect (one component)
_EDITS = {
    "init": ", kernel_initializer='he_normal'",
    "reg": ", kernel_regularizer=l2(0.01)",
    "bias": ", use_bias=False",
}


@_SETTINGS
@given(n=st.integers(2, 6), data=st.data())
def test_one_respect_per_layer_is_never_mwa(classify_texts, n, data):
    """An edit of one respect on any number of layers, every layer included (all initialisers),
    stays one component per layer: each layer was tuned, not replaced."""
    edit = data.draw(st.sampled_from(sorted(_EDITS)))
    changed = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    plain = [_dense(8, i == 0, i == n - 1) for i in range(n)]
    edited = [_dense(8, i == 0, i == n - 1, _EDITS[edit] if i in changed else "") for i in range(n)]
    codes = _codes(classify_texts(_stack(plain), _stack(edited)))
    assert "MWA" not in codes and len(codes) == len(changed)


@_SETTINGS
@given(n=st.integers(2, 6), respects=st.integers(2, 3))
def test_every_layer_replaced_is_one_mwa(classify_texts, n, respects):
    """Every layer differing in two or more respects (at least four components): one MWA."""
    plain = [_dense(8, i == 0, i == n - 1) for i in range(n)]
    extra = "".join(_EDITS[k] for k in sorted(_EDITS)[:respects])
    edited = [_dense(8, i == 0, i == n - 1, extra) for i in range(n)]
    result = classify_texts(_stack(plain), _stack(edited))
    assert [(c.code, c.element) for c in result.components] == [("MWA", "model[0]")]


@pytest.mark.parametrize(
    ("edited", "codes"),
    [
        # half the places changed (not a majority): the layers' own codes
        ([(0, "init", "reg"), (1, "init", "reg")], ["RCW", "RCW", "WCI", "WCI"]),
        # a majority changed, one respect each on average (a tuned model): the layers' own codes
        ([(0, "init"), (1, "reg"), (2, "init")], ["RCW", "WCI", "WCI"]),
        # a majority changed in two respects each: rebuilt
        ([(0, "init", "reg"), (1, "init", "reg"), (2, "init", "bias")], ["MWA"]),
    ],
)
def test_mwa_share_controls(classify_texts, edited, codes):
    """Four places; which are edited and in how many respects."""
    plain = [_dense(8, i == 0, i == 3) for i in range(4)]
    layers = list(plain)
    for index, *edits in edited:
        layers[index] = _dense(8, index == 0, index == 3, "".join(_EDITS[e] for e in edits))
    assert _codes(classify_texts(_stack(plain), _stack(layers))) == codes


def test_two_changes_in_one_layer_of_a_small_model_are_no_mwa(classify_texts):
    """Three components on a two-layer model: below the four components a rebuilt model needs."""
    plain = [_dense(8, True, False), _dense(8, False, True)]
    edited = [_dense(8, True, False, _EDITS["init"] + _EDITS["reg"]), _dense(8, False, True, _EDITS["bias"])]
    assert _codes(classify_texts(_stack(plain), _stack(edited))) == ["RCW", "WAB", "WCI"]


# ------------------------------------------------------------------------------ CPP on unfollowed data

_LOADED = """\
from keras.models import Sequential
from keras.layers import Flatten, Dense
import camera_rig
{load}
{step}
model = Sequential()
model.add(Flatten(input_shape=(4, 4, 1)))
model.add(Dense(2, activation='softmax'))
model.compile(loss='sparse_categorical_crossentropy', optimizer='adam')
model.fit(frames, tags, epochs={epochs})
"""
_LOADS = (
    "frames, tags = camera_rig.capture(64)",
    "frames = camera_rig.frames(64)\ntags = camera_rig.tags(64)",
    "rig = camera_rig.Rig()\nframes, tags = rig.next_batch(64)",
)


@pytest.mark.parametrize("load", _LOADS)
@pytest.mark.parametrize("epochs", [5, 20])
@pytest.mark.parametrize(
    "step", ["frames = frames.reshape(64, 4, 4, 1)", "frames = frames / 255.0", "frames = frames - 0.5"]
)
def test_a_step_on_data_from_an_unknown_loader_is_cpp(classify_texts, load, epochs, step):
    """The step was missed because the walker could not follow the loader, not because of the
    epochs: an array method, or arithmetic with a number, on the loaded arrays starts an opaque chain."""
    buggy = _LOADED.format(load=load, step="", epochs=5)
    fixed = _LOADED.format(load=load, step=step, epochs=epochs)
    result = classify_texts(buggy, fixed)
    assert _codes(result) == sorted(["CPP"] + (["HNE"] if epochs != 5 else []))
    assert [c.after for c in result.components if c.code == "CPP"] == [step.split(" = ")[1]]


def test_a_number_from_an_unknown_call_scaled_is_no_data(classify_texts):
    """Negative control: a learning rate read from a settings call and scaled is no data step; a
    change of its scaling stays an unknown rate on both sides (undecidable), as before."""
    program = _OPTIMISED.format(opt="Adam(lr=rate)").replace(
        "est = Sequential()", "import settings\nrate = settings.rate()\nrate = rate / 10\nest = Sequential()"
    )
    assert _codes(classify_texts(program, program.replace("rate / 10", "rate / 100"))) == []


@pytest.mark.parametrize("load", _LOADS)
def test_the_same_step_on_both_sides_is_no_component(classify_texts, load):
    step = "frames = frames.astype('float32').reshape(64, 4, 4, 1)\nframes = frames / 255.0"
    program = _LOADED.format(load=load, step=step, epochs=5)
    assert _codes(classify_texts(program, program.replace("epochs=5", "epochs=5, verbose=0"))) == []


def test_a_method_of_a_name_that_is_no_array_stays_unknown(classify_texts):
    """``text.replace`` of a loaded string is no array step (replace is not an array-only method)."""
    load = "frames, tags = camera_rig.capture(64)\nname = camera_rig.label()"
    buggy = _LOADED.format(load=load, step="", epochs=5)
    fixed = _LOADED.format(load=load, step="name = name.replace('a', 'b')", epochs=5)
    assert _codes(classify_texts(buggy, fixed)) == []


# ------------------------------------------------------------------------------ training data: one component

_FILES = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense
inputs = np.load('{x}')
targets = np.load('{y}')
{call}
net = Sequential([Dense(1, input_dim=3)])
net.compile(loss='mse', optimizer='sgd')
net.fit(inputs, targets, epochs=2)
"""
_REMOVE = (
    "from mutreal.runtime import training_data as td\n"
    "inputs, targets = td.remove(inputs, targets, pct=10.0, seed=0)"
)


def test_a_runtime_call_on_arrays_read_from_files_is_one_component(classify_texts):
    """The labels' chain follows the inputs through the call: it has no source of its own to
    compare, so no TRD-data-file component besides the call's."""
    plain = _FILES.format(x="in.npy", y="out.npy", call="")
    result = classify_texts(plain, _FILES.format(x="in.npy", y="out.npy", call=_REMOVE))
    assert [(c.code, c.deepcrime, c.element) for c in result.components] == [
        ("TRD", "TRD", "data.x_train.preprocess[0]")
    ]


def test_other_label_files_are_still_a_data_file_change(classify_texts):
    """Positive control: without a runtime call, other files for the labels are TRD-data-file."""
    result = classify_texts(_FILES.format(x="in.npy", y="out.npy", call=""), _FILES.format(x="in.npy", y="out2.npy", call=""))
    assert [(c.code, c.element) for c in result.components] == [("TRD", "data.y_train.source")]


@pytest.mark.parametrize(
    "call",
    [
        "from sklearn.utils import shuffle\ninputs, targets = shuffle(inputs, targets, random_state=1)",
        "from sklearn.model_selection import train_test_split\ninputs, _i, targets, _t = train_test_split(inputs, targets)",
        "order = np.random.permutation(len(inputs))\ninputs, targets = inputs[order], targets[order]",
    ],
)
def test_a_program_shuffling_or_splitting_both_arrays_is_no_two_components(classify_texts, call):
    """A program's own ``x, y = f(x, y)`` shuffle or split: set-up (decision data-split-noise), never
    one component per array."""
    plain = _FILES.format(x="in.npy", y="out.npy", call="")
    assert _codes(classify_texts(plain, _FILES.format(x="in.npy", y="out.npy", call=call))) == []
