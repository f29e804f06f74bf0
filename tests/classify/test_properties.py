"""Property tests: noise edits never create a component; one semantic edit gives exactly one component."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ACTIVATIONS = ["relu", "tanh", "sigmoid", "elu"]
OPTIMIZERS = ["SGD", "Adam", "RMSprop"]
LOSSES = ["binary_crossentropy", "mean_squared_error", "hinge"]


@dataclass
class Spec:
    """A small Keras program: dense layers, optional dropout, compile and fit settings."""

    units: list[int]
    activations: list[str]
    dropout: float | None
    loss: str
    optimizer: str
    lr: float
    epochs: int
    batch_size: int
    # style, never semantic
    tf_keras: bool = False
    split_activations: bool = False
    hyper_in_vars: bool = False
    reverse_kwargs: bool = False
    prints: bool = False
    names: tuple[str, str, str] = ("x_train", "y_train", "model")
    extra: list[str] = field(default_factory=list)


def render(s: Spec) -> str:
    pkg = "tensorflow.keras" if s.tf_keras else "keras"
    x, y, m = s.names
    lines = [
        f"from {pkg}.models import Sequential",
        f"from {pkg}.layers import Dense, Dropout, Activation",
        f"from {pkg}.optimizers import {s.optimizer}",
        "import numpy as np",
        f"{x} = np.random.rand(64, 6)",
        f"{y} = np.random.randint(0, 2, 64)",
    ]
    if s.hyper_in_vars:
        lines += [f"LR = {s.lr!r}", f"EPOCHS = {s.epochs}", f"BATCH = {s.batch_size}"]
    if s.prints:
        lines.append(f"print({x}.shape)")
    lines.append(f"{m} = Sequential()")
    for i, (u, a) in enumerate(zip(s.units, s.activations, strict=True)):
        kwargs = [f"units={u}"] + (["input_dim=6"] if i == 0 else [])
        if not s.split_activations:
            kwargs.append(f"activation='{a}'")
        if s.reverse_kwargs:
            kwargs.reverse()
        lines.append(f"{m}.add(Dense({', '.join(kwargs)}))")
        if s.split_activations:
            lines.append(f"{m}.add(Activation('{a}'))")
        if i == 0 and s.dropout is not None:
            lines.append(f"{m}.add(Dropout({s.dropout!r}))")
    lr = "LR" if s.hyper_in_vars else repr(s.lr)
    lines.append(f"{m}.compile(loss='{s.loss}', optimizer={s.optimizer}(learning_rate={lr}))")
    ep, bs = ("EPOCHS", "BATCH") if s.hyper_in_vars else (str(s.epochs), str(s.batch_size))
    fit_kwargs = [f"epochs={ep}", f"batch_size={bs}"]
    if s.reverse_kwargs:
        fit_kwargs.reverse()
    verbose = ", verbose=2" if s.prints else ""
    lines.append(f"{m}.fit({x}, {y}, {', '.join(fit_kwargs)}{verbose})")
    if s.prints:
        lines.append("print('finished')")
    return "\n".join(lines + s.extra) + "\n"


@st.composite
def specs(draw) -> Spec:
    n = draw(st.integers(2, 4))
    return Spec(
        units=draw(st.lists(st.sampled_from([4, 8, 16, 32, 64]), min_size=n, max_size=n)),
        activations=draw(st.lists(st.sampled_from(ACTIVATIONS), min_size=n, max_size=n)),
        dropout=draw(st.one_of(st.none(), st.sampled_from([0.1, 0.25, 0.5]))),
        loss=draw(st.sampled_from(LOSSES)),
        optimizer=draw(st.sampled_from(OPTIMIZERS)),
        lr=draw(st.sampled_from([0.1, 0.01, 0.001])),
        epochs=draw(st.integers(1, 50)),
        batch_size=draw(st.sampled_from([8, 16, 32, 128])),
        tf_keras=draw(st.booleans()),
    )


NOISE_EDITS = {
    "split_activations": lambda s: setattr(s, "split_activations", not s.split_activations),
    "hyper_in_vars": lambda s: setattr(s, "hyper_in_vars", not s.hyper_in_vars),
    "reverse_kwargs": lambda s: setattr(s, "reverse_kwargs", not s.reverse_kwargs),
    "prints": lambda s: setattr(s, "prints", not s.prints),
    "rename": lambda s: setattr(s, "names", ("features", "labels", "net")),
    "tf_keras": lambda s: setattr(s, "tf_keras", not s.tf_keras),
    "plot": lambda s: s.extra.extend(["import matplotlib.pyplot as plt", "plt.plot([1, 2])", "plt.show()"]),
}


def _other(values, current):
    return next(v for v in values if v != current)


def _semantic_edits(s: Spec):
    """(name, edit, expected code) for one semantic change of the spec."""
    last = len(s.units) - 1
    edits = [
        (
            "activation",
            lambda t: t.activations.__setitem__(last, _other(ACTIVATIONS, t.activations[last])),
            "ACH",
        ),
        ("units", lambda t: t.units.__setitem__(0, t.units[0] + 3), "LCN"),
        ("loss", lambda t: setattr(t, "loss", _other(LOSSES, t.loss)), "LCH"),
        ("optimizer", lambda t: setattr(t, "optimizer", _other(OPTIMIZERS, t.optimizer)), "OCH"),
        ("lr", lambda t: setattr(t, "lr", t.lr / 10), "HLR"),
        ("epochs", lambda t: setattr(t, "epochs", t.epochs + 7), "HNE"),
        ("batch_size", lambda t: setattr(t, "batch_size", t.batch_size * 2), "HBS"),
    ]
    if s.dropout is not None:
        edits.append(("dropout_rate", lambda t: setattr(t, "dropout", 0.75), "RCD"))
        edits.append(("dropout_removed", lambda t: setattr(t, "dropout", None), "LAD"))
    else:
        edits.append(("dropout_added", lambda t: setattr(t, "dropout", 0.3), "LRM"))
    return edits


SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(
    spec=specs(), edits=st.lists(st.sampled_from(sorted(NOISE_EDITS)), min_size=1, max_size=4, unique=True)
)
def test_noise_edits_never_create_a_component(spec, edits, classify_texts):
    noisy = copy.deepcopy(spec)
    for name in edits:
        NOISE_EDITS[name](noisy)
    result = classify_texts(render(spec), render(noisy))
    assert result.components == [], (
        edits,
        [(c.element, c.code, c.before, c.after) for c in result.components],
    )


@SETTINGS
@given(spec=specs(), choice=st.integers(0, 100), noise=st.sampled_from(sorted(NOISE_EDITS)))
def test_single_semantic_edit_yields_one_component(spec, choice, noise, classify_texts):
    edits = _semantic_edits(spec)
    name, edit, code = edits[choice % len(edits)]
    fixed = copy.deepcopy(spec)
    edit(fixed)
    NOISE_EDITS[noise](fixed)
    result = classify_texts(render(spec), render(fixed))
    assert [c.code for c in result.components] == [code], (
        name,
        noise,
        [(c.element, c.code, c.before, c.after) for c in result.components],
    )
