"""When the noise rule ``completed_snippet`` drops the layers a benchmark appended to a posted model.

The rule (4.2.1, decisions COMPLETED-snippet, COMPLETED-head, MWA-appended) applies to a buggy
model that is never compiled, or whose last layer is not one a model ends with (a bare Conv1D:
the post was cut short); two or three layers appended after its last layer are the completion,
four or more rebuild the model (MWA). test_noise_rule_controls.py counts the appended layers on
an uncompiled snippet; this file shows the other side of the condition on whole programs (a
compiled model ending in Dense keeps its appended layers, one ending in Conv1D does not) and pins
the alignment with no buggy layer at all on the function itself.
"""

from __future__ import annotations

import pytest

from mutreal.compare.context import CompareContext
from mutreal.compare.layers import drop_completed_snippet
from mutreal.program.model import Compile, FoldedLayer, Layer, ProgramModel, Value

HEAD = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Dense, Conv1D, Flatten, Dropout
model = Sequential()
"""
TAIL = (
    "model.compile(loss='binary_crossentropy', optimizer='adam')\n"
    "model.fit(np.random.rand(10, 20, 1), np.random.randint(0, 2, 10), epochs=1)\n"
)
DENSE_BODY = (
    "model.add(Dense(64, input_shape=(20, 1), activation='relu'))\nmodel.add(Dense(32, activation='relu'))\n"
)
CONV_BODY = "model.add(Conv1D(16, 3, activation='relu', input_shape=(20, 1)))\nmodel.add(Conv1D(8, 3, activation='relu'))\n"
DROPOUT = "model.add(Dropout(0.5))\n"
FLATTEN = "model.add(Flatten())\n"
HIDDEN = "model.add(Dense(16, activation='relu'))\n"
OUTPUT = "model.add(Dense(1, activation='sigmoid'))\n"


def _codes(result) -> list[tuple[str, str]]:
    return sorted((c.code, c.element) for c in result.components)


def test_layers_appended_to_a_compiled_model_ending_in_dense_are_missing_layers(classify_texts):
    # compiled and ending in a layer a model can end with: not a cut-short post, so the two layers
    # the fix appends are two missing layers (LRM), as they would be anywhere else in the model
    buggy = HEAD + DENSE_BODY + TAIL
    fixed = HEAD + DENSE_BODY + DROPOUT + OUTPUT + TAIL
    assert _codes(classify_texts(buggy, fixed)) == [
        ("LRM", "model[0].layer[2]"),
        ("LRM", "model[0].layer[3]"),
    ]


@pytest.mark.parametrize("appended", [[FLATTEN, OUTPUT], [FLATTEN, HIDDEN, OUTPUT]])
def test_a_head_appended_to_a_compiled_model_ending_in_conv1d_is_its_completion(classify_texts, appended):
    # compiled, but a Conv1D output: the post was cut short, the appended head is the benchmark's
    buggy = HEAD + CONV_BODY + TAIL
    fixed = HEAD + CONV_BODY + "".join(appended) + TAIL
    assert _codes(classify_texts(buggy, fixed)) == []


def test_four_layers_appended_to_a_model_ending_in_conv1d_rebuild_it(classify_texts):
    buggy = HEAD + CONV_BODY + TAIL
    fixed = HEAD + CONV_BODY + FLATTEN + HIDDEN + HIDDEN + OUTPUT + TAIL
    assert _codes(classify_texts(buggy, fixed)) == [("MWA", "model[0]")]


def test_a_single_layer_appended_to_a_model_ending_in_conv1d_is_a_missing_layer(classify_texts):
    buggy = HEAD + CONV_BODY + TAIL
    fixed = HEAD + CONV_BODY + OUTPUT + TAIL
    assert _codes(classify_texts(buggy, fixed)) == [("LRM", "model[0].layer[2]")]


# -- on the function: an alignment in which the buggy model has no layer ------------------------------


def _ctx(compiled: bool) -> CompareContext:
    buggy = ProgramModel(compiles=[Compile(index=0, model=0)] if compiled else [])
    return CompareContext(buggy=buggy, fixed=ProgramModel())


def _dense(units: int) -> FoldedLayer:
    return FoldedLayer(Layer("Dense", {"units": Value.const(units)}), [0], None)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("added", [0, 2, 3, 4])
def test_no_buggy_layer_means_nothing_was_completed(compiled, added):
    # no last buggy layer to append after: every fixed layer stays in the alignment
    pairs: list[tuple[int | None, int | None]] = [(None, j) for j in range(added)]
    assert drop_completed_snippet(list(pairs), _ctx(compiled), []) == pairs


def test_without_the_buggy_layers_a_compiled_model_is_kept():
    # a compiled model is a completion only when its last layer can be read and is not an output
    # layer; without the buggy layers there is nothing to read
    pairs: list[tuple[int | None, int | None]] = [(0, 0), (None, 1), (None, 2)]
    assert drop_completed_snippet(list(pairs), _ctx(True), None) == pairs


@pytest.mark.parametrize(
    ("compiled", "expected"), [(False, [(0, 0)]), (True, [(0, 0), (None, 1), (None, 2)])]
)
def test_two_layers_after_a_dense_layer_are_dropped_only_when_never_compiled(compiled, expected):
    pairs: list[tuple[int | None, int | None]] = [(0, 0), (None, 1), (None, 2)]
    assert drop_completed_snippet(list(pairs), _ctx(compiled), [_dense(8)]) == expected
