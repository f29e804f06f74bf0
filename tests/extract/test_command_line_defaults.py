"""Rule ``command_line_defaults``: argparse options fold to their written defaults."""

from __future__ import annotations

from mutreal.compare import diff_models

_PROGRAM = """
import argparse
import numpy as np
from keras.layers import Dense
from keras.models import Sequential
from keras.optimizers import SGD


def cli():
    parser = argparse.ArgumentParser(description="toy regressor")
    parser.add_argument("-n", "--n-epochs", type=int, default={epochs})
    group = parser.add_argument_group("optimiser")
    group.add_argument("--batch", type=int, default="{batch}")
    group.add_argument("-r", dest="step", type=float, default=0.05)
    parser.add_argument("--deep", action="store_true")
    return parser.{parse}


opts = cli(){unpack}
xs = np.random.rand(90, 3)
ys = np.random.rand(90)
reg = Sequential()
reg.add(Dense(6, input_dim=3, activation="relu"))
if opts.deep:
    reg.add(Dense(6, activation="relu"))
reg.add(Dense(1))
reg.compile(loss="mse", optimizer=SGD(lr=opts.step))
reg.fit(xs, ys, epochs=opts.n_epochs, batch_size=opts.batch)
"""


def _program(ex, epochs: int = 7, batch: int = 12, known: bool = False):
    parse, unpack = ("parse_known_args()", "[0]") if known else ("parse_args()", "")
    return ex(_PROGRAM.format(epochs=epochs, batch=batch, parse=parse, unpack=unpack))


def test_options_fold_to_their_defaults(ex):
    for known in (False, True):
        pm = _program(ex, known=known)
        fit = pm.fits[0]
        assert (fit.args["epochs"].value, fit.args["batch_size"].value) == (7, 12)  # "12" read as int
        assert pm.compiles[0].optimizer.args["learning_rate"].value == 0.05


def test_flags_stay_unknown_so_the_code_they_guard_is_read(ex):
    assert [layer.cls for layer in _program(ex).models[0].layers] == ["Dense", "Dense", "Dense"]


def test_changed_default_is_a_changed_hyperparameter(ex):
    [component] = diff_models(_program(ex, epochs=7), _program(ex, epochs=70))
    assert (component.kind, component.detail["before_number"], component.detail["after_number"]) == (
        "fit.epochs",
        7,
        70,
    )
    assert diff_models(_program(ex), _program(ex, known=True)) == []
