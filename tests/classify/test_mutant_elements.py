"""Elements only mutants change: calls of mutreal.runtime.training_data (TCL, TRD, TUD, TAN, TCO) and
the validation set (VRM). classify(original, mutant) must name the operator the mutant applied."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.compare import NOISE_RULES

HEAD = """\
from keras.models import Sequential
from keras.layers import Dense
from keras.callbacks import EarlyStopping, ReduceLROnPlateau
import numpy as np
{imports}
x_train = np.random.rand(120, 6)
y_train = np.random.randint(0, 3, 120)
y_train = np.eye(3)[y_train]
model = Sequential()
model.add(Dense(12, input_dim=6, activation='relu'))
model.add(Dense(3, activation='softmax'))
model.compile(loss='categorical_crossentropy', optimizer='adam')
{before_fit}model.fit(x_train, y_train, epochs=4{fit_args})
"""


def program(imports: str = "", before_fit: str = "", fit_args: str = "") -> str:
    return HEAD.format(imports=imports, before_fit=before_fit, fit_args=fit_args)


#: function -> (arrays it rebinds, study code, operator)
FUNCTIONS = {
    "change_labels": ("y", "TCL", "TCL"),
    "remove": ("xy", "TRD", "TRD"),
    "unbalance": ("xy", "TRD", "TUD"),
    "add_noise": ("x", "TAN", "TAN"),
    "overlap": ("xy", "TCL", "TCO"),
}
IMPORT_STYLES = {
    "alias": ("from mutreal.runtime import training_data as _mutreal_td", "_mutreal_td.{fn}"),
    "module": ("import mutreal.runtime.training_data", "mutreal.runtime.training_data.{fn}"),
    "function": ("from mutreal.runtime.training_data import {fn}", "{fn}"),
}


def runtime_call(fn: str, style: str, pct: float, seed: int) -> tuple[str, str]:
    imp, callee = IMPORT_STYLES[style]
    arrays = FUNCTIONS[fn][0]
    targets = {"xy": "x_train, y_train", "x": "x_train", "y": "y_train"}[arrays]
    return imp.format(fn=fn), f"{targets} = {callee.format(fn=fn)}({targets}, pct={pct}, seed={seed})\n"


@settings(max_examples=25, deadline=None)
@given(
    fn=st.sampled_from(sorted(FUNCTIONS)),
    style=st.sampled_from(sorted(IMPORT_STYLES)),
    pct=st.sampled_from([5.0, 10.0, 25.0, 50.0]),
    seed=st.integers(0, 9),
)
def test_runtime_call_is_one_component_whatever_it_rebinds(tmp_path_factory, fn, style, pct, seed):
    """A call rebinding inputs and labels together is one fault of the training data: one
    component, on the inputs' chain (the labels' for TCL), listing every rebound array."""
    from mutreal.label.classify import classify_pair

    imp, line = runtime_call(fn, style, pct, seed)
    folder = tmp_path_factory.mktemp("rt")
    (folder / "a.py").write_text(program())
    (folder / "b.py").write_text(program(imports=imp, before_fit=line))
    result = classify_pair(str(folder / "a.py"), str(folder / "b.py"))
    arrays, code, operator = FUNCTIONS[fn]
    roles = [f"{a}_train" for a in arrays]
    got = [(c.element.split(".")[1], c.code, c.deepcrime, c.simulable) for c in result.components]
    assert got == [(roles[0], code, operator, True)], [
        (c.element, c.code, c.before, c.after) for c in result.components
    ]
    assert all(c.after and f"pct={pct}" in c.after and c.before is None for c in result.components)


def test_runtime_call_lists_the_arrays_it_rebinds():
    from mutreal.compare import diff_models
    from mutreal.extract import extract_model
    from mutreal.program.source import parse_source

    imp, line = runtime_call("remove", "alias", 10.0, 0)
    models = [
        extract_model(p.module, name, source=p.text)
        for name, text in (("a.py", program()), ("b.py", program(imports=imp, before_fit=line)))
        for p in [parse_source(text, name)]
    ]
    (comp,) = diff_models(*models)
    assert comp.detail["roles"] == ["x_train", "y_train"] and comp.detail["function"] == "remove"


def test_runtime_call_on_arrays_defined_elsewhere(classify_texts):
    """The arrays come from outside the program: the call is still found (read from the source)."""
    base = "from keras.models import Sequential\nfrom keras.layers import Dense\nmodel = Sequential()\n"
    base += "model.add(Dense(1, input_dim=4))\nmodel.compile(loss='mse', optimizer='sgd')\n"
    fit = "model.fit(features, targets)\n"
    mutant = base + (
        "from mutreal.runtime import training_data as td\n"
        "features, targets = td.remove(features, targets, pct=10.0, seed=0)\n"
    )
    result = classify_texts(base + fit, mutant + fit)
    assert [(c.element, c.deepcrime) for c in result.components] == [("data.x_train.preprocess[0]", "TRD")]


def test_runtime_call_removed_is_reported_from_the_first_program(classify_texts):
    imp, line = runtime_call("overlap", "alias", 10.0, 1)
    buggy = program(imports=imp, before_fit=line)
    result = classify_texts(buggy, program())
    assert {(c.change, c.deepcrime, c.after) for c in result.components} == {("removed", "TCO", None)}
    call_line = buggy.splitlines().index(line.rstrip("\n")) + 1
    assert [c.buggy_line for c in result.components] == [call_line]


def test_other_calls_named_like_runtime_functions_are_not_operators(classify_texts):
    own = "def remove(x, y, pct, seed):\n    return x, y\n"
    result = classify_texts(
        program(imports=own),
        program(imports=own, before_fit="x_train, y_train = remove(x_train, y_train, pct=10.0, seed=0)\n"),
    )
    assert [c.deepcrime for c in result.components] == []


def test_rule_is_named():
    assert "training_data_runtime_calls" in NOISE_RULES


@pytest.mark.parametrize(
    ("before_fit", "buggy_args", "fixed_args", "expected"),
    [
        # a program losing its validation set, its data kept: VRM (decision VRM-removed)
        ("", ", validation_split=0.1", "", [("removed", "VRM")]),
        (
            "x_val = x_train[:20]\ny_val = y_train[:20]\n",
            ", validation_data=(x_val, y_val)",
            "",
            [("removed", "VRM")],
        ),
        # added with nothing monitoring it: not counted (decision validation-added-noise)
        ("", "", ", validation_split=0.2", []),
        (
            "stop = EarlyStopping(monitor='loss')\n",
            ", callbacks=[stop]",
            ", validation_split=0.2, callbacks=[stop]",
            [],
        ),
        # added where a training callback watched a validation quantity: VRM (VRM-added-monitored)
        (
            "stop = EarlyStopping()\n",
            ", callbacks=[stop]",
            ", validation_split=0.2, callbacks=[stop]",
            [("added", "VRM")],
        ),
        (
            "lr = ReduceLROnPlateau(monitor='val_accuracy')\n",
            ", callbacks=[lr]",
            ", validation_split=0.2, callbacks=[lr]",
            [("added", "VRM")],
        ),
        # the monitored name held in a variable (the model folds it): its value decides, not its text
        (
            "watched = 'val_loss'\nstop = EarlyStopping(monitor=watched)\n",
            ", callbacks=[stop]",
            ", validation_split=0.2, callbacks=[stop]",
            [("added", "VRM")],
        ),
        # a callback that only saves or logs does not change training, whatever it monitors;
        # the training callback after it still counts
        (
            "from keras.callbacks import ModelCheckpoint\nsave = ModelCheckpoint('m.h5', monitor='val_loss')\n",
            ", callbacks=[save]",
            ", validation_split=0.2, callbacks=[save]",
            [],
        ),
        (
            "from keras.callbacks import ModelCheckpoint\nsave = ModelCheckpoint('m.h5', monitor='loss')\n"
            "stop = EarlyStopping(monitor='val_loss')\n",
            ", callbacks=[save, stop]",
            ", validation_split=0.2, callbacks=[save, stop]",
            [("added", "VRM")],
        ),
        # only how the validation set is used changes: not a component
        ("", ", validation_split=0.1", ", validation_split=0.1, validation_freq=2", []),
    ],
)
def test_validation_set(classify_texts, before_fit, buggy_args, fixed_args, expected):
    result = classify_texts(
        program(before_fit=before_fit, fit_args=buggy_args),
        program(before_fit=before_fit, fit_args=fixed_args),
    )
    assert [(c.change, c.deepcrime) for c in result.components] == expected
    assert all(c.element == "fit[0].validation" or c.element == "fit.validation" for c in result.components)
    assert all(c.code == "VRM" and c.simulable for c in result.components)
