"""Property: any program assembled from Keras-style fragments extracts without error, with sane lines.

Real benchmark programs mix styles freely (imports, spellings, loops, helpers, odd values); the
extractor must never raise and must keep every element's line inside the file.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.extract import extract_model, extract_source
from mutreal.program.model import ProgramModel

IMPORTS = [
    "from keras.models import Sequential, Model\nfrom keras.layers import *\n",
    "import tensorflow as tf\nfrom tensorflow.keras import layers, models\n",
    "from tensorflow import keras\n",
    "import keras\nfrom keras.layers import Dense, Conv2D, Dropout\n",
    "",
]

VALUES = st.sampled_from(
    [
        "3",
        "64",
        "0.5",
        "'relu'",
        "None",
        "(3, 3)",
        "n",
        "f(2)",
        "2 * 8",
        "-1",
        "'same'",
        "x.shape[1:]",
        "[1, 2]",
    ]
)
LAYERS = st.sampled_from(
    ["Dense", "Conv2D", "Convolution2D", "Dropout", "Activation", "LSTM", "MaxPool2D", "Flatten", "Custom"]
)
KWARGS = st.sampled_from(
    [
        "activation",
        "units",
        "output_dim",
        "init",
        "padding",
        "border_mode",
        "input_shape",
        "input_dim",
        "rate",
        "nb_epoch",
    ]
)


@st.composite
def layer_call(draw) -> str:
    cls = draw(LAYERS)
    args = draw(st.lists(VALUES, max_size=3))
    kwargs = draw(st.dictionaries(KWARGS, VALUES, max_size=3))
    parts = [*args, *(f"{k}={v}" for k, v in kwargs.items())]
    return f"{cls}({', '.join(parts)})"


@st.composite
def statement(draw) -> str:
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return f"model.add({draw(layer_call())})"
    if kind == 1:
        return f"x = {draw(layer_call())}(x)"
    if kind == 2:
        return f"for _ in range({draw(st.integers(0, 5))}):\n    model.add({draw(layer_call())})"
    if kind == 3:
        return f"model.compile(loss={draw(VALUES)}, optimizer={draw(st.sampled_from(['sgd', 'Adam(lr=0.1)', 'opt', 3]))})"
    if kind == 4:
        return f"model.fit(x, y, epochs={draw(VALUES)}, batch_size={draw(VALUES)}, callbacks=[EarlyStopping({draw(VALUES)})])"
    if kind == 5:
        return f"x = x {draw(st.sampled_from(['/', '*', '-', '+']))} {draw(VALUES)}"
    if kind == 6:
        return f"def build(a={draw(VALUES)}):\n    m = Sequential([{draw(layer_call())}])\n    return m\nmodel = build()"
    if kind == 7:
        return f"if {draw(VALUES)}:\n    model.add({draw(layer_call())})\nelse:\n    pass"
    if kind == 8:
        return "x = np.random.rand(10, 4).reshape(-1, 2)\ny = x[:, 0]"
    if kind == 9:
        return f"model = Model(inputs={draw(st.sampled_from(['inp', 'x', '[x, x]']))}, outputs=x)"
    if kind == 10:
        return f"inp = Input(shape={draw(VALUES)})\nx = inp"
    return "model = Sequential()"


@st.composite
def program(draw) -> str:
    body = "\n".join(draw(st.lists(statement(), min_size=1, max_size=12)))
    return draw(st.sampled_from(IMPORTS)) + "import numpy as np\n" + body + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program())
def test_generated_programs_extract_with_lines_in_range(code):
    pm = extract_source(code, "gen.py")
    n_lines = code.count("\n") + 1
    for m in pm.models:
        for layer in m.layers:
            assert layer.line is None or 1 <= layer.line <= n_lines
            assert layer.file == "gen.py"
    for c in [*pm.compiles, *pm.fits]:
        assert c.line is None or 1 <= c.line <= n_lines
    d = pm.to_dict()
    assert ProgramModel.from_dict(json.loads(json.dumps(d))).to_dict() == json.loads(json.dumps(d))
    assert 0.0 <= pm.opaque_share() <= 1.0


def test_odd_programs_do_not_crash():
    import libcst as cst

    odd = [
        "",
        "x = (" + "1 + " * 3000 + "1)\n",
        "def f():\n    return f()\nf()\n",
        "class A(A):\n    pass\nA()\n",
        "model = Sequential()\nwhile True:\n    model.add(Dense(1))\n",
        "for i in range(10**9):\n    model.add(Dense(i))\n",
        "from keras.layers import Dense\nDense(*args, **kwargs)\n",
        "import keras\nmodel.fit(**params)\nmodel.compile(*opts)\n",
        "lambda: Dense(3)\n",
        "x: int = Dense(3)\n",
        "async def g():\n    await model.fit(x)\n",
        "match x:\n    case 1:\n        model.add(Dense(1))\n",
        "with open('f') as fh, tf.Session() as s:\n    pass\n",
        "try:\n    import keras\nexcept* ImportError:\n    pass\n",
    ]
    for code in odd:
        pm = extract_model(cst.parse_module(code), "odd.py")
        assert isinstance(pm, ProgramModel)


_ARG_VALUES = {
    "units": st.integers(1, 512).map(str),
    "activation": st.sampled_from(["'relu'", "'tanh'", "'sigmoid'", "None"]),
    "use_bias": st.sampled_from(["True", "False"]),
    "kernel_initializer": st.sampled_from(["'he_normal'", "'glorot_uniform'", "'zeros'"]),
}


@st.composite
def dense_layers(draw) -> list[dict[str, str]]:
    out = []
    for _ in range(draw(st.integers(1, 5))):
        keys = draw(st.lists(st.sampled_from(sorted(_ARG_VALUES)), unique=True, min_size=1))
        if "units" not in keys:
            keys.insert(0, "units")
        out.append({k: draw(_ARG_VALUES[k]) for k in keys})
    return out


def _render(
    layers: list[dict[str, str]], hoist: bool, reverse: bool, model_var: str, lr: str, epochs: str
) -> str:
    lines = [
        "from keras.models import Sequential",
        "from keras.layers import Dense",
        "from keras.optimizers import SGD",
    ]
    calls = []
    for i, args in enumerate(layers):
        items = list(args.items())
        if reverse:
            items.reverse()
        rendered = []
        for k, v in items:
            if hoist:
                lines.append(f"{k.upper()}_{i} = {v}")
                v = f"{k.upper()}_{i}"
            rendered.append(f"{k}={v}")
        calls.append(f"Dense({', '.join(rendered)})")
    if hoist:
        lines += [f"LR = {lr}", f"EPOCHS = {epochs}"]
        lr, epochs = "LR", "EPOCHS"
    lines.append(f"{model_var} = Sequential()")
    lines += [f"{model_var}.add({c})" for c in calls]
    lines.append(f"{model_var}.compile(loss='mse', optimizer=SGD(lr={lr}))")
    lines.append(f"{model_var}.fit(x, y, epochs={epochs})")
    return "\n".join(lines) + "\n"


def _semantic(pm: ProgramModel) -> tuple:
    layers = tuple(
        (layer.cls, tuple(sorted((k, v.key()) for k, v in layer.args.items())))
        for layer in pm.models[0].layers
    )
    opt = pm.compiles[0].optimizer
    return layers, opt.cls, opt.arg("learning_rate").key(), pm.fits[0].arg("epochs").key()


@settings(max_examples=60, deadline=None)
@given(dense_layers(), st.sampled_from(["0.1", "1e-3", "0.05"]), st.sampled_from(["1", "20", "5 * 4"]))
def test_spelling_only_changes_give_the_same_semantic_model(layers, lr, epochs):
    """Hoisting values into variables, reordering keywords and renaming the model change nothing."""
    plain = extract_source(_render(layers, False, False, "model", lr, epochs))
    noisy = extract_source(_render(layers, True, True, "net", lr, epochs))
    assert _semantic(plain) == _semantic(noisy)
