"""Property: for random Keras programs of a small grammar (three import styles, optimizer strings or
objects, layers with and without their arguments, a result block that imports after training),
every mutant every operator makes passes the static check: the names it adds are bound before use
and the keywords it adds are taken by the called API in the program's framework."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mutreal.mutation.operators import Program, apply_edits, registry
from mutreal.mutation.operators.base import MutationError
from mutreal.mutation.static_check import SignatureOracle, check_mutant

#: (import lines, how a layer class is spelled, how an optimizer class is spelled)
STYLES = {
    "keras": (
        "from keras.models import Sequential\nfrom keras.layers import Dense, Dropout, Activation\n"
        "from keras.callbacks import EarlyStopping\n",
        "{}",
        None,
    ),
    "tf.keras": ("import tensorflow as tf\n", "tf.keras.layers.{}", "tf.keras.optimizers.{}"),
    "keras module": (
        "from tensorflow import keras\n",
        "keras.layers.{}",
        "keras.optimizers.{}",
    ),
}
ACTIVATIONS = ["relu", "tanh", "sigmoid", "linear", None]


@st.composite
def programs(draw) -> str:
    style = draw(st.sampled_from(sorted(STYLES)))
    imports, layer, optimizer = STYLES[style]
    lines = ["import numpy as np", *imports.splitlines()]
    lines += ["x = np.random.rand(32, 4)", "y = (np.random.rand(32, 1) > 0.5).astype('float32')"]
    seq = "Sequential" if style == "keras" else layer.format("Sequential").replace("layers.", "")
    if style != "keras":
        seq = f"{layer.split('.layers')[0]}.Sequential" if style == "tf.keras" else "keras.Sequential"
    lines.append(f"model = {seq}()")
    first = True
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["Dense", "Dense", "Dropout", "Activation"]))
        if kind == "Dense" or first:
            args = [str(draw(st.sampled_from([4, 8])))]
            act = draw(st.sampled_from(ACTIVATIONS))
            if act:
                args.append(f"activation='{act}'")
            if draw(st.booleans()):
                args.append(f"use_bias={draw(st.booleans())}")
            if draw(st.booleans()):
                args.append("kernel_initializer='he_normal'")
            if first:
                args.append("input_shape=(4,)")
            lines.append(f"model.add({layer.format('Dense')}({', '.join(args)}))")
            first = False
        elif kind == "Dropout":
            lines.append(f"model.add({layer.format('Dropout')}({draw(st.sampled_from([0.1, 0.5]))}))")
        else:
            lines.append(f"model.add({layer.format('Activation')}('{draw(st.sampled_from(['relu', 'tanh']))}'))")
    lines.append(f"model.add({layer.format('Dense')}(1, activation='sigmoid'))")
    opt_name = draw(st.sampled_from(["adam", "sgd", "rmsprop"]))
    if optimizer is not None and draw(st.booleans()):
        cls = {"adam": "Adam", "sgd": "SGD", "rmsprop": "RMSprop"}[opt_name]
        opt = f"{optimizer.format(cls)}(learning_rate=0.01)"
    else:
        opt = repr(opt_name)
    loss = draw(st.sampled_from(["'binary_crossentropy'", "'mse'"]))
    lines.append(f"model.compile(loss={loss}, optimizer={opt}, metrics=['accuracy'])")
    fit = ["x", "y", f"epochs={draw(st.sampled_from([1, 2]))}", f"batch_size={draw(st.sampled_from([8, 16]))}"]
    if draw(st.booleans()):
        fit.append("validation_split=0.2")
    if style == "keras" and draw(st.booleans()):
        fit.append("callbacks=[EarlyStopping(patience=2)]")
    lines.append(f"model.fit({', '.join(fit)}, verbose=0)")
    if draw(st.booleans()):  # a result block importing after training
        lines += ["import json", "import keras", "print(json.dumps({'loss': float(model.evaluate(x, y)[0])}))"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> SignatureOracle:
    return SignatureOracle(str(tmp_path_factory.mktemp("signatures")))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(programs())
@example(
    "import numpy as np\nfrom keras.models import Sequential\nfrom keras.layers import Dense\n"
    "x = np.random.rand(32, 4)\ny = np.random.rand(32, 1)\nmodel = Sequential()\n"
    "model.add(Dense(1, input_shape=(4,)))\nmodel.compile(loss='mse', optimizer='sgd')\n"
    "model.fit(x, y, epochs=1)\nimport json\nimport keras\nprint(json.dumps(keras.__version__))\n"
)
def test_every_mutant_of_every_operator_passes_the_static_check(oracle: SignatureOracle, text: str) -> None:
    program = Program(text, "prog.py")
    checked = 0
    for op in registry.operators().values():
        opts = {"seed": 0} if "seed" in op.options else {}
        for site in op.sites(program):
            for value in op.values(program, site):
                try:
                    mutant = apply_edits(program, [op.apply(program, site, value, **opts)])
                except MutationError:
                    continue
                found = check_mutant(program, mutant, oracle)
                assert found == [], (op.id, mutant.name, [str(v) for v in found], mutant.code)
                checked += 1
    assert checked > 0
