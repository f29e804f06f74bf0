"""Rule ``learning_rate_after_compile``: a learning rate set on a compiled model's optimizer."""

from __future__ import annotations

import pytest

from mutreal.compare import diff_models
from mutreal.program.model import ProgramModel

_PROGRAM = """
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras.layers import Dense
from tensorflow.keras.models import Sequential

feats = np.random.rand(64, 5)
target = np.random.rand(64)
reg = Sequential([Dense(8, activation="tanh", input_shape=(5,)), Dense(1)])
reg.compile(optimizer="rmsprop", loss="mse")
reg.fit(feats, target, epochs=3)
{setting}
reg.fit(feats, target, epochs=3)
reg.fit(feats, target, epochs=2)
"""

SPELLINGS = [
    "K.set_value(reg.optimizer.lr, {v})",
    "tf.keras.backend.set_value(reg.optimizer.learning_rate, {v})",
    "reg.optimizer.lr = {v}",
    "reg.optimizer.learning_rate.assign({v})",
]


def _program(ex, setting: str) -> ProgramModel:
    return ex(_PROGRAM.format(setting=setting))


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_sets_the_rate_of_the_later_training_calls(ex, spelling):
    pm = _program(ex, spelling.format(v="0.02"))
    assert pm.fits[0].learning_rate is None
    assert [f.learning_rate.value for f in pm.fits[1:]] == [0.02, 0.02]
    assert ProgramModel.from_dict(pm.to_dict()).fits[2].learning_rate.value == 0.02


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_same_rate_in_another_spelling_is_no_component(ex, spelling):
    buggy = _program(ex, SPELLINGS[0].format(v="0.02"))
    fixed = _program(ex, spelling.format(v="0.02"))
    assert diff_models(buggy, fixed) == []


def test_changed_rate_is_one_learning_rate_component(ex):
    buggy = _program(ex, "K.set_value(reg.optimizer.lr, 0.02)")
    fixed = _program(ex, "K.set_value(reg.optimizer.lr, 0.0002)")
    [component] = diff_models(buggy, fixed)
    assert (component.kind, component.element, component.change) == (
        "compile.learning_rate",
        "fit[1].learning_rate",
        "changed",
    )
    assert (component.before, component.after) == ("0.02", "0.0002")
    assert component.buggy_line == component.fixed_line == 13


def test_other_set_value_targets_are_not_learning_rates(ex):
    pm = _program(ex, "K.set_value(reg.layers[0].kernel, np.zeros((5, 8)))\nunrelated_lr = 0.3")
    assert all(f.learning_rate is None for f in pm.fits)
