"""Property: on generated Keras programs of several styles, every operator's mutants parse, change
only the edited region, and (for the operators classify already covers) agree with classify."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.label.classify import classify_pair
from mutreal.mutation.operators import Program, apply_edits, registry
from mutreal.mutation.operators.agreement import compare_components

from .test_subjects import CLASSIFY_GAPS, _changed_original_lines

ACTS = ["relu", "tanh", "sigmoid", "softmax", "linear", None]


@st.composite
def programs(draw) -> str:
    style = draw(st.sampled_from(["keras", "tf.keras", "keras1"]))
    q = draw(st.sampled_from(["'", '"']))
    n = draw(st.integers(1, 4))
    if style == "tf.keras":
        head = (
            "import tensorflow as tf\nfrom tensorflow.keras import layers\n\nmodel = tf.keras.Sequential()\n"
        )
        dense, drop = "layers.Dense", "layers.Dropout"
    else:
        head = "from keras.layers import Dense, Dropout\nfrom keras.models import Sequential\n\nmodel = Sequential()\n"
        dense, drop = "Dense", "Dropout"
    lines = [head]
    for i in range(n):
        args = [str(draw(st.integers(1, 64)))]
        if i == 0:
            args.append("input_dim=8")
        act = draw(st.sampled_from(ACTS))
        if act is not None:
            args.append(f"activation={q}{act}{q}")
        if draw(st.booleans()):
            init = draw(st.sampled_from(["he_normal", "zeros", "glorot_uniform"]))
            args.append(f"{'init' if style == 'keras1' else 'kernel_initializer'}={q}{init}{q}")
        if draw(st.booleans()):
            args.append(f"{'bias' if style == 'keras1' else 'use_bias'}={draw(st.booleans())}")
        lines.append(f"model.add({dense}({', '.join(args)}))\n")
        if draw(st.booleans()):
            lines.append(f"model.add({drop}({draw(st.sampled_from(['0.1', '0.5', 'rate=0.3']))}))\n")
    loss = draw(st.sampled_from(["mse", "categorical_crossentropy", "binary_crossentropy"]))
    opt = draw(st.sampled_from(["adam", "sgd", "rmsprop"]))
    lines.append(f"model.compile(loss={q}{loss}{q}, optimizer={q}{opt}{q}, metrics=[{q}accuracy{q}])\n")
    fit = ["x_train", "y_train"]
    if draw(st.booleans()):
        fit.append(f"{'nb_epoch' if style == 'keras1' else 'epochs'}={draw(st.integers(1, 50))}")
    if draw(st.booleans()):
        fit.append(f"batch_size={draw(st.sampled_from([16, 32, 128]))}")
    if draw(st.booleans()):
        fit.append("validation_split=0.2")
    lines.append(f"model.fit({', '.join(fit)})\n")
    return "".join(lines)


@pytest.mark.slow
@given(programs())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_generated_programs(tmp_path_factory, text: str) -> None:
    tmp = tmp_path_factory.mktemp("gen")
    original = tmp / "original.py"
    original.write_text(text)
    program = Program(text, str(original))
    for op_id, op in registry.operators().items():
        for site in op.sites(program):
            values = op.values(program, site)
            for value in values[:1] + values[-1:]:
                mutant = apply_edits(program, [op.apply(program, site, value)])
                ast.parse(mutant.code)
                allowed = {line for lo, hi in mutant.regions for line in range(lo, hi + 1)}
                assert _changed_original_lines(text, mutant.code) <= allowed, (op_id, value)
                if op_id in CLASSIFY_GAPS or (op_id == "HLR" and site.detail.get("spelling") == "string"):
                    continue
                path = tmp / mutant.name
                path.write_text(mutant.code)
                result = classify_pair(str(original), str(path))
                agreement = compare_components(mutant.provenance.components, result.components)
                assert agreement.ok, f"{op_id} {value}: {agreement.describe()}\n{text}"
