"""Decision value-origins: a value followed through names reaches the element a pass compares, and
the component points at the lines the value was written on, so a value changed where it is
written (a variable, a parameter's default, a command-line default, a loop's bound) is that
component's statement, not a change left unexplained. Each rule is pinned both ways."""

from __future__ import annotations

from mutreal.compare.components import make_component, origin_lines
from mutreal.compare.kinds import ComponentKind
from mutreal.program.model import Value

HEAD = """import argparse
import numpy as np
from keras.layers import Dense
from keras.models import Sequential
xs = np.random.rand(64, 3)
ys = (xs.sum(axis=1) > 1.5).astype('float32')
"""

NET = """net = Sequential()
net.add(Dense(8, input_dim=3, activation='relu'))
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='adam')
"""


def _codes(result) -> list[str]:
    return sorted(c.code for c in result.components)


def _open(result) -> list[str]:
    return [(u["before"] or u["after"]).strip() for u in result.unexplained]


def test_a_value_keeps_the_lines_it_was_written_on():
    folded = Value("const", [64, 64, 1], line=9, origins=(3,))
    held = Value("seq", None, args=[Value("const", 3, line=9, origins=(5,)), folded], line=9)
    assert origin_lines(held) == (5, 3)
    assert Value.from_dict(folded.to_dict()).origins == (3,)
    assert folded.same(Value("const", [64, 64, 1], line=2))  # where it was written is not what it is


def test_a_component_points_at_its_values_origins_unless_told():
    before, after = Value("const", 2, line=9, origins=(4,)), Value("const", 40, line=9, origins=(4,))
    c = make_component("fit[0].epochs", ComponentKind("fit.epochs"), "changed", before, after, ("b", 9), ("f", 9))
    assert (c.detail["buggy_lines"], c.detail["fixed_lines"]) == ([4], [4])
    plain = make_component(
        "fit[0].epochs", ComponentKind("fit.epochs"), "changed", Value("const", 2, line=9), after, ("b", 9), ("f", 9)
    )
    assert "buggy_lines" not in plain.detail


def test_command_line_default_through_a_helper_is_the_epochs_change(classify_texts):
    program = HEAD + (
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--rounds', type=int, default={n})\n"
        "opts = parser.parse_args()\n"
        "def train(net, rounds):\n"
        "    net.fit(xs, ys, epochs=rounds, batch_size=8)\n"
    ) + NET + "train(net, opts.rounds)\n"
    result = classify_texts(program.format(n=2), program.format(n=40))
    assert _codes(result) == ["HNE"]
    assert (result.changed_statements, result.explained_statements) == (1, 1)


def test_a_command_line_default_folded_into_an_equal_element_is_compared_equal(classify_texts):
    program = HEAD + (
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--rounds', type=int, default=5)\n"
        "parser.add_argument('--width', type=int, default={n})\n"
        "opts = parser.parse_args()\n"
    ) + NET.replace("Dense(8,", "Dense(opts.width * 0 + 8,") + (
        "net.fit(xs, ys, epochs={e}, batch_size=8)\n"
    )
    result = classify_texts(program.format(n=2, e=3), program.format(n=40, e=30))
    assert _codes(result) == ["HNE"]
    # the --width default folds into Dense's units (0 * width + 8): no component points at it, and
    # the pass that followed it found the layer equal (decision value-origins): compared equal
    assert (result.changed_statements, result.explained_statements) == (1, 1)
    assert _open(result) == []
    assert result.noise_statements.get("compared_equal", 0) >= 1


def test_a_parameter_default_the_call_uses_is_the_layer_change(classify_texts):
    program = HEAD + (
        "def build(hidden=16):\n"
        "    net = Sequential()\n"
        "    net.add(Dense(hidden * 2, input_dim=3, activation='relu'))\n"
        "    net.add(Dense(1, activation='sigmoid'))\n"
        "    net.compile(loss='binary_crossentropy', optimizer='adam')\n"
        "    return net\n"
        "net = build({call})\n"
        "net.fit(xs, ys, epochs=5, batch_size=8)\n"
    )
    # the layer shows ``hidden * 2``: only the value's origin points at the def line
    result = classify_texts(program.format(call=""), program.replace("hidden=16", "hidden=64").format(call=""))
    assert _codes(result) == ["LCN"]
    assert (result.changed_statements, result.explained_statements) == (1, 1)


def test_a_parameter_default_every_call_overrides_is_no_change_of_the_layer(classify_texts):
    program = HEAD + (
        "def build(hidden=16):\n"
        "    net = Sequential()\n"
        "    net.add(Dense(hidden, input_dim=3, activation='relu'))\n"
        "    net.add(Dense(1, activation='sigmoid'))\n"
        "    net.compile(loss='binary_crossentropy', optimizer='adam')\n"
        "    return net\n"
        "net = build(32)\n"
        "net.fit(xs, ys, epochs=5, batch_size=8)\n"
    )
    result = classify_texts(program, program.replace("hidden=16", "hidden=64"))
    assert _codes(result) == []
    assert result.explained_statements == 0


def test_a_training_loops_bound_written_above_is_the_epochs_change(classify_texts):
    program = HEAD + "passes = {n}\n" + NET + (
        "for turn in range(passes):\n"
        "    net.fit(xs, ys, epochs=1, batch_size=8)\n"
    )
    result = classify_texts(program.format(n=3), program.format(n=30))
    assert _codes(result) == ["HNE"]
    assert (result.changed_statements, result.explained_statements) == (1, 1)


def test_a_loop_bound_no_training_reads_stays_with_no_component(classify_texts):
    program = HEAD + "passes = {n}\n" + NET + (
        "net.fit(xs, ys, epochs=4, batch_size=8)\n"
        "for turn in range(passes):\n"
        "    print(net.predict(xs[:1]))\n"
    )
    result = classify_texts(program.format(n=3), program.format(n=30))
    assert _codes(result) == []
    assert result.explained_statements == 0


def test_a_data_steps_operand_written_above_is_the_preprocessing_change(classify_texts):
    program = HEAD + "scale = {s}\nxs = xs / scale\n" + NET + "net.fit(xs, ys, epochs=4, batch_size=8)\n"
    result = classify_texts(program.format(s="1.0"), program.format(s="255.0"))
    assert _codes(result) == ["CPP"]
    assert (result.changed_statements, result.explained_statements) == (1, 1)


CNN = """import numpy as np
from keras.layers import Conv2D, Dense, Flatten, MaxPooling2D, Dropout
from keras.models import Sequential
side = {side}
steps = {steps}
xs = np.random.rand(32, side, side, 1)
ys = np.random.rand(32, 1)
net = Sequential()
"""


def test_a_rebuilt_models_mwa_points_at_its_input_size_written_above(classify_texts):
    buggy = CNN.format(side=32, steps=2) + (
        "net.add(Conv2D(8, (3, 3), input_shape=(side, side, 1), activation='relu'))\n"
        "net.add(Dropout(0.5))\n"
        "net.add(Conv2D(8, (3, 3), activation='relu'))\n"
        "net.add(Dropout(0.5))\n"
        "net.add(Flatten())\n"
        "net.add(Dense(1))\n"
    )
    fixed = CNN.format(side=64, steps=2) + (
        "net.add(Conv2D(16, (5, 5), input_shape=(side, side, 1), strides=(2, 2), activation='elu'))\n"
        "net.add(MaxPooling2D((2, 2)))\n"
        "net.add(Conv2D(32, (5, 5), strides=(2, 2), activation='elu'))\n"
        "net.add(MaxPooling2D((2, 2)))\n"
        "net.add(Flatten())\n"
        "net.add(Dense(64, activation='elu'))\n"
        "net.add(Dense(1))\n"
    )
    tail = "net.compile(loss='mse', optimizer='adam')\nnet.fit(xs, ys, epochs=steps, batch_size=8)\n"
    result = classify_texts(buggy + tail, fixed + tail)
    assert _codes(result) == ["MWA"]
    # the input size (read by the data too) and every layer statement are MWA's, none "compared equal"
    assert (result.changed_statements, result.explained_statements) == (8, 8)
    assert "compared_equal" not in result.noise_statements
    near = classify_texts(buggy + "seen = side\n" + tail, fixed + "seen = side * 2\n" + tail)
    assert _codes(near) == ["MWA"]
    # no element reads ``seen``: not MWA's (left outside the training)
    assert near.explained_statements == 8 and near.noise_statements.get("outside_training") == 1


def test_value_origins_lists_only_folded_values_of_compared_elements():
    from mutreal.program.model import Fit, KerasModel, Layer, ProgramModel

    program = ProgramModel(path="p.py")
    program.models.append(
        KerasModel(
            index=0,
            kind="sequential",
            layers=[
                Layer("Dense", {"units": Value("const", 8, line=9, origins=(3,))}),
                Layer("Dense", {"units": Value("opaque", None, text="len(vocab) + 1", line=10, origins=(4,))}),
            ],
        )
    )
    program.fits.append(Fit(index=0, args={"epochs": Value("const", 5, line=12, origins=(5,))}, repeat_lines=[11]))
    assert program.value_origins() == {("p.py", 3), ("p.py", 5), ("p.py", 11)}


def test_one_cpp_for_several_steps_points_at_each_step(classify_texts):
    base = HEAD + NET + "net.fit(xs, ys, epochs=4, batch_size=8)\n"
    fixed = base.replace(
        "ys = (xs.sum(axis=1) > 1.5).astype('float32')\n",
        "ys = (xs.sum(axis=1) > 1.5).astype('float32')\nxs = xs - xs.mean(axis=0)\nys = ys.reshape(-1, 1)\n",
    )
    result = classify_texts(base, fixed)
    assert _codes(result) == ["CPP"]  # decision CPP-once: one component for both steps
    assert (result.changed_statements, result.explained_statements) == (2, 2)
    assert "compared_equal" not in result.noise_statements


def test_a_component_standing_for_others_points_at_their_lines():
    from mutreal.compare.components import FaultComponent, stands_for

    first = FaultComponent("data.x_train.preprocess[0]", "data.preprocess", "added", fixed_file="f", fixed_line=5)
    other = FaultComponent("data.y_train.preprocess[0]", "data.preprocess", "added", fixed_file="f", fixed_line=7)
    assert stands_for(first, [other]).detail == {"fixed_lines": [7]}
    alone = FaultComponent("data.x_train.preprocess[0]", "data.preprocess", "added", fixed_file="f", fixed_line=5)
    assert stands_for(alone, []).detail == {}


ESTIMATOR = """import numpy as np
import tensorflow as tf
from tensorflow import keras
xs = np.random.rand(64, 3).astype('float32')
ys = (xs.sum(axis=1) > 1.5).astype('float32')
net = keras.Sequential([keras.layers.Dense(8, activation='relu', input_shape=(3,)),
                        keras.layers.Dense(1, activation='sigmoid')])
net.compile(loss='binary_crossentropy', optimizer='adam')
estimator = keras.estimator.model_to_estimator(keras_model=net)
def feed(features, labels, shuffle, rounds, size):
    return tf.compat.v1.estimator.inputs.numpy_input_fn(
        x={"dense_input": features}, y=labels, shuffle=shuffle, num_epochs=rounds, batch_size=size)
"""


def test_an_estimators_training_budget_is_its_input_functions(classify_texts):
    def program(shuffle: bool, rounds: int) -> str:
        return ESTIMATOR + f"estimator.train(input_fn=feed(xs, ys, {shuffle}, {rounds}, 16))\n"

    result = classify_texts(program(True, 20), program(True, 2))
    assert _codes(result) == ["HNE"]
    assert (result.changed_statements, result.explained_statements) == (1, 1)
    # the same epochs and batch size, only the shuffling changed: no budget component
    near = classify_texts(program(True, 20), program(False, 20))
    assert _codes(near) == []


LOSS = HEAD + """import keras.backend as K
def gap(truth, guess):
{body}
def report(values):
{report}
""" + NET.replace("loss='binary_crossentropy'", "loss=gap") + "net.fit(xs, ys, epochs=4, batch_size=8)\nreport(xs)\n"


def test_a_rewritten_loss_functions_statements_are_its_component(classify_texts):
    plain = "    return K.mean(K.square(truth - guess))"
    weighted = "    scale = 2.0\n    return K.mean(scale * K.square(truth - guess))"
    shown = "    print(values.mean())"
    result = classify_texts(LOSS.format(body=plain, report=shown), LOSS.format(body=weighted, report=shown))
    assert _codes(result) == ["LWC"]
    assert result.changed_statements == result.explained_statements == 2
    # a function that is no loss, rewritten: no component, its statement no LWC's
    near = classify_texts(
        LOSS.format(body=plain, report=shown),
        LOSS.format(body=plain, report="    total = values.sum()\n    print(total)"),
    )
    assert _codes(near) == [] and near.explained_statements == 0


def test_a_layer_added_in_a_block_points_at_the_blocks_header(classify_texts):
    base = HEAD + NET + "net.fit(xs, ys, epochs=4, batch_size=8)\n"
    deeper = base.replace(
        "net.add(Dense(1, activation='sigmoid'))\n",
        "deep = True\nif deep:\n    net.add(Dense(6, activation='relu'))\nnet.add(Dense(1, activation='sigmoid'))\n",
    )
    result = classify_texts(base, deeper)
    assert _codes(result) == ["LRM"]
    # the if header (and the flag it reads) and its layer
    assert result.changed_statements == result.explained_statements == 3
    # a block that builds no layer is no layer component's
    near = classify_texts(base, base + "deep = True\nif deep:\n    print(deep)\n")
    assert _codes(near) == [] and near.explained_statements == 0


def test_a_lambda_layers_function_body_is_the_layers(classify_texts):
    base = HEAD + "from keras.layers import Lambda\n" + NET + "net.fit(xs, ys, epochs=4, batch_size=8)\n"
    halve = "def halve(t):\n    scale = 0.5\n    return t * scale\n"
    added = base.replace("net = Sequential()\n", halve + "net = Sequential()\n").replace(
        "net.add(Dense(1, activation='sigmoid'))\n", "net.add(Lambda(halve))\nnet.add(Dense(1, activation='sigmoid'))\n"
    )
    result = classify_texts(base, added)
    assert _codes(result) == ["LRM"]
    assert result.changed_statements == result.explained_statements == 4  # the def, its body, the layer
    # the layer computes a lambda: a function of the file it does not call is not its body
    other = base.replace("net = Sequential()\n", halve + "net = Sequential()\n").replace(
        "net.add(Dense(1, activation='sigmoid'))\n",
        "net.add(Lambda(lambda v: v * 0.5))\nnet.add(Dense(1, activation='sigmoid'))\n",
    )
    near = classify_texts(base, other)
    assert _codes(near) == ["LRM"] and near.explained_statements == 1


AUTOENCODER = """import numpy as np
from keras.layers import Dense, Input
from keras.models import Model
xs = np.random.rand(64, 16)
seen = Input(shape=(16,))
inner = Dense(4, activation='relu')(seen)
middle = Dense(8, activation='relu')(inner)
back = Dense(16, activation='sigmoid')(middle)
whole = Model(seen, back)
whole.compile(loss='mse', optimizer='adam')
whole.fit(xs, xs, epochs=2, batch_size=8)
code = Input(shape=(4,))
{decoder}
"""


def test_a_layer_applied_again_points_at_where_it_is_applied(classify_texts):
    short = "decoder = Model(code, whole.layers[-1](code))"
    full = "out = whole.layers[-2](code)\nout = whole.layers[-1](out)\ndecoder = Model(code, out)"
    result = classify_texts(AUTOENCODER.format(decoder=short), AUTOENCODER.format(decoder=full))
    assert _codes(result) == ["LRM"]  # the decoder gains the middle layer, applied on the added line
    assert not any("whole.layers[-2]" in text for text in _open(result))
    assert result.explained_statements >= 1
    # a layer called where it is built is pointed at on its own line only: nothing else changes
    near = classify_texts(AUTOENCODER.format(decoder=short), AUTOENCODER.format(decoder=short + "\nprint(1)"))
    assert _codes(near) == []
