"""User-written loss functions (mutreal.extract.losses): which functions compute the loss, and when
two of their bodies are the same calculation (decision LWC-custom-loss)."""

from __future__ import annotations

import keyword
import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.extract import extract_source
from mutreal.extract.losses import find_loss_functions

COMPILED = """
import keras.backend as K
def weighted_gap(truth, guess):
    '''half the mean squared gap'''
    gap = truth - guess
    print(gap)
    return 0.5 * K.mean(gap * gap)
net.compile(loss=weighted_gap, optimizer="sgd")
"""

TAPE = """
import tensorflow as tf
def objective(batch, target):
    out = net(batch)
    return tf.reduce_mean(tf.abs(out - target))
for xb, yb in pairs:
    with tf.GradientTape() as tape:
        value = objective(xb, yb)
    grads = tape.gradient(value, net.trainable_variables)
"""


def test_compiled_and_differentiated_functions_are_losses():
    assert list(find_loss_functions(COMPILED)) == ["weighted_gap"]
    assert find_loss_functions(COMPILED)["weighted_gap"] == (3, "l0 = p0 - p1\nreturn 0.5 * K.mean(l0 * l0)")
    assert list(find_loss_functions(TAPE)) == ["objective"]
    helper = "def scale(v):\n    return v * 2\nnet.compile(loss='mse')\nx = scale(x)\n"
    assert find_loss_functions(helper) == {}
    assert find_loss_functions("print 'python 2'\nnet.compile(loss=f)\n") == {}


def test_loss_functions_are_in_the_program_model():
    pm = extract_source(textwrap.dedent(COMPILED))
    assert list(pm.loss_functions) == ["weighted_gap"]
    from mutreal.program.model import ProgramModel

    assert ProgramModel.from_dict(pm.to_dict()).loss_functions == pm.loss_functions


_TAKEN = {
    "net",
    "tf",
    "abs",
    "tape",
    "grads",
    "value",
    "pairs",
    "xb",
    "yb",
    "objective",
    "out",
    "batch",
    "target",
}
_NAMES = st.from_regex(r"[a-z]{2,6}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n) and n not in _TAKEN
)


@settings(max_examples=60, deadline=None)
@given(names=st.lists(_NAMES, min_size=3, max_size=3, unique=True))
def test_renamed_parameters_and_locals_are_the_same_calculation(names):
    a, b, c = names
    renamed = TAPE.replace("batch", a).replace("target", b).replace("out ", f"{c} ").replace("(out", f"({c}")
    assert find_loss_functions(renamed)["objective"][1] == find_loss_functions(TAPE)["objective"][1]


def test_swapped_operands_or_another_call_are_a_new_calculation():
    base = find_loss_functions(COMPILED)["weighted_gap"][1]
    assert find_loss_functions(COMPILED.replace("truth - guess", "guess - truth"))["weighted_gap"][1] != base
    assert find_loss_functions(COMPILED.replace("K.mean", "K.sum"))["weighted_gap"][1] != base
