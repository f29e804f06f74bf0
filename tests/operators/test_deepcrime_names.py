"""DeepCrime's mutant names, both ways (:mod:`mutreal.mutation.deepcrime_names`).

Each operator's name is made into a mutant of an own program, ``classify(original, mutant)`` names
that operator, and the mutant's provenance gives the name back. DeepCrime's layer index counts
the layers of the model's config (a Sequential model with an input shape has its InputLayer at
0); a name that cannot be made is refused with its reason, also through the installed
``mutreal`` entry point (exit code 1, one ``error:`` line per name).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.label.classify import classify_pair
from mutreal.mutation.deepcrime_names import (
    DeepCrimeNameError,
    deepcrime_layers,
    format_name,
    make_mutant,
    mutate_names,
    name_formats,
    name_from_provenance,
    parse_name,
)
from mutreal.mutation.operators import Program, registry
from mutreal.operator_catalogue import load_catalogue

ROOT = Path(__file__).resolve().parents[2]

# A Keras 2 Sequential model whose first layer gives the input shape: DeepCrime's config lists
# 0 InputLayer, 1 Dense(16), 2 Dropout, 3 Activation, 4 Dense(8) (linear, no bias), 5 Dense(3).
SEQUENTIAL = """\
import numpy as np
from keras.models import Sequential
from keras.layers import Activation, Dense, Dropout
from keras.callbacks import EarlyStopping
from keras import optimizers, regularizers
from sklearn.datasets import load_iris

iris = load_iris()
x_train, y_train = iris.data.astype("float32"), iris.target
model = Sequential()
model.add(Dense(16, input_dim=4, activation="relu", kernel_regularizer=regularizers.l2(0.01)))
model.add(Dropout(0.5))
model.add(Activation("tanh"))
model.add(Dense(8, use_bias=False))
model.add(Dense(3, activation="softmax"))
model.compile(loss="sparse_categorical_crossentropy", optimizer=optimizers.SGD(lr=0.05), metrics=["accuracy"])
stop = EarlyStopping(monitor="val_loss", patience=6)
model.fit(x_train, y_train, batch_size=16, epochs=30, validation_split=0.2, callbacks=[stop], verbose=0)
"""

#: one name per operator, each a mutant of SEQUENTIAL (OCG's names carry no value: refused below)
NAMES = {
    "TCL": "change_label_mutated0_MP_25.0",
    "TRD": "delete_training_data_mutated0_MP_50.0",
    "TUD": "unbalance_train_data_mutated0_MP_75.0",
    "TAN": "add_noise_mutated0_MP_12.5",
    "TCO": "make_output_classes_overlap_mutated0_MP_30.0",
    "HBS": "change_batch_size_mutated0_MP_64_64",
    "HLR": "change_learning_rate_mutated0_MP_False_0.005",
    "HNE": "change_epochs_mutated0_MP_5",
    "HDB": "disable_batching_mutated0_MP",
    "ACH": "change_activation_function_mutated0_MP_sigmoid_1",
    "ARM": "remove_activation_function_mutated0_MP_3",
    "AAL": "add_activation_function_mutated0_MP_relu_4",
    "RAW": "add_weights_regularisation_mutated0_MP_l1_l2_4",
    "RCW": "change_weights_regularisation_mutated0_MP_l1_1",
    "RRW": "remove_weights_regularisation_mutated0_MP_1",
    "RCD": "change_dropout_rate_mutated0_MP_0.25_0.25_2",
    "RCP": "change_earlystopping_patience_mutated0_MP_2",
    "WCI": "change_weights_initialisation_mutated0_MP_he_normal_5",
    "WAB": "add_bias_mutated0_MP_4",
    "WRB": "remove_bias_mutated0_MP_5",
    "LCH": "change_loss_function_mutated0_MP_mean_squared_error",
    "OCH": "change_optimisation_function_mutated0_MP_adam",
    "VRM": "remove_validation_set_mutated0_MP",
}

FUNCTIONAL = """\
import tensorflow as tf
from sklearn.datasets import load_digits

digits = load_digits()
x, y = digits.data / 16.0, digits.target
inputs = tf.keras.Input(shape=(64,))
h = tf.keras.layers.Dense(32, activation="relu")(inputs)
h = tf.keras.layers.Dropout(0.2)(h)
outputs = tf.keras.layers.Dense(10, activation="softmax")(h)
model = tf.keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, epochs=3, batch_size=32)
"""

INPUT_IN_STACK = """\
import keras
model = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=2)
"""

NO_INPUT_SHAPE_LOOP = """\
import keras
model = keras.Sequential()
for units in (32, 16):
    model.add(keras.layers.Dense(units, activation="relu"))
model.add(keras.layers.Dense(3, activation="softmax"))
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, epochs=2)
"""

BRANCHED = """\
from tensorflow import keras
a = keras.Input(shape=(2,))
b = keras.Input(shape=(2,))
h = keras.layers.Concatenate()([keras.layers.Dense(3, activation="relu")(a), keras.layers.Dense(3)(b)])
model = keras.Model([a, b], keras.layers.Dense(1, activation="sigmoid")(h))
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit([xa, xb], y, epochs=2)
"""


FOLDED = """\
from keras.models import Sequential
from keras.layers import Activation, Dense
model = Sequential()
model.add(Dense(8, input_dim=4))
model.add(Activation("relu"))
model.add(Dense(3, activation="softmax"))
model.compile(loss="categorical_crossentropy", optimizer="adam")
model.fit(x, y, epochs=2)
"""


def _program(tmp_path: Path, text: str, name: str = "subject.py") -> Program:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return Program.from_file(str(path))


@pytest.fixture(scope="module")
def sequential(tmp_path_factory) -> Program:
    return _program(tmp_path_factory.mktemp("seq"), SEQUENTIAL)


# --- the name table --------------------------------------------------------------------------------


def test_every_catalogue_operator_has_one_name_format() -> None:
    formats = name_formats()
    assert sorted(f.operator for f in formats.values()) == sorted(load_catalogue())
    # DeepCrime's trained mutants of RCP use its mutation_class_map key, not operator_name_dict's
    assert formats["change_earlystopping_patience"].operator == "RCP"
    assert all(f.has_layer == (f.spec.scope == "layer") for f in formats.values())


# --- each operator: name -> mutant -> classify names it -> provenance gives the name back ----------


def test_each_operators_name_round_trips_through_a_mutant_and_classify(
    sequential: Program, tmp_path: Path
) -> None:
    assert set(NAMES) | {"OCG"} == set(load_catalogue())
    report = mutate_names(sequential, NAMES.values(), str(tmp_path))
    assert report.failures == []
    assert [w["operator"] for w in report.written] == list(NAMES)
    for row in report.written:
        found = [c.deepcrime for c in classify_pair(sequential.path, row["mutant"]).components]
        assert found == [row["operator"]], row
        prov = json.loads(Path(row["provenance"]).read_text())
        assert prov["deepcrime"]["name"] == NAMES[row["operator"]]
        assert name_from_provenance(sequential, prov) == NAMES[row["operator"]]


def test_the_installed_mutreal_classify_names_a_named_mutants_operator(
    sequential: Program, tmp_path: Path
) -> None:
    res = _mutreal("mutate", sequential.path, "--deepcrime-name", NAMES["RCD"], "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    (mutant,) = res.stdout.split()
    out = _mutreal("classify", sequential.path, mutant, "--json")
    assert out.returncode == 0, out.stderr
    comps = json.loads(out.stdout)["components"]
    assert [(c["deepcrime"], c["before"], c["after"]) for c in comps] == [("RCD", "0.5", "0.25")]


def test_gradient_clipping_names_carry_no_value_and_are_refused(sequential: Program) -> None:
    with pytest.raises(DeepCrimeNameError) as exc:
        make_mutant(sequential, "change_gradient_clip_mutated0_MP")
    assert exc.value.reason == "no_value" and "clip" in str(exc.value)


# --- DeepCrime's layer counting -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SEQUENTIAL, ["InputLayer", "Dense", "Dropout", "Activation", "Dense", "Dense"]),
        (FUNCTIONAL, ["Input", "Dense", "Dropout", "Dense"]),
        (INPUT_IN_STACK, ["Input", "Dense", "Dense"]),
        (NO_INPUT_SHAPE_LOOP, ["Dense", "Dense", "Dense"]),
    ],
    ids=["input-shape-on-first-layer", "functional", "input-in-stack", "no-input-shape"],
)
def test_layers_are_counted_as_deepcrimes_model_config_lists_them(
    tmp_path: Path, text: str, expected
) -> None:
    program = _program(tmp_path, text)
    slots = deepcrime_layers(program, program.model.models[0])
    assert [s.cls for s in slots] == expected
    assert [s.index for s in slots] == list(range(len(expected)))


def test_a_layer_index_on_keras_own_input_layer_says_how_else_it_could_count(sequential: Program) -> None:
    with pytest.raises(DeepCrimeNameError) as exc:
        make_mutant(sequential, "remove_bias_mutated0_MP_0")
    assert exc.value.reason == "layer_count"
    assert "InputLayer" in str(exc.value)
    assert "counting layers (--deepcrime-layers layers), layer 0 is Dense (line 11)" in str(exc.value)


def test_names_that_count_model_layers_are_made_when_asked_and_named_back_so(
    sequential: Program, tmp_path: Path
) -> None:
    """Some of Ahmed et al.'s bugs number layers from 0 at the first Dense: model.layers' count."""
    slots = deepcrime_layers(sequential, sequential.model.models[0], "layers")
    assert [s.cls for s in slots] == ["Dense", "Dropout", "Activation", "Dense", "Dense"]
    report = mutate_names(sequential, ["remove_bias_mutated0_MP_0"], str(tmp_path), counting="layers")
    (row,) = report.written
    assert row["element"] == "model[0].layer[0].use_bias"
    prov = json.loads(Path(row["provenance"]).read_text())
    assert prov["deepcrime"]["counting"] == "layers"
    assert name_from_provenance(sequential, prov) == "remove_bias_mutated0_MP_0"
    with pytest.raises(DeepCrimeNameError) as exc:
        make_mutant(sequential, "remove_bias_mutated0_MP_1", counting="layers")
    assert "counting config (--deepcrime-layers config), layer 1 is Dense" in str(exc.value)


def test_the_commands_counting_choices_are_the_translators() -> None:
    from mutreal.commands.mutate import mutate
    from mutreal.mutation.deepcrime_names import COUNTINGS

    (option,) = [p for p in mutate.params if p.name == "counting"]
    assert tuple(option.type.choices) == COUNTINGS and option.default == COUNTINGS[0]


def test_a_layer_built_by_a_loop_is_refused_and_a_single_one_is_made(tmp_path: Path) -> None:
    program = _program(tmp_path, NO_INPUT_SHAPE_LOOP)
    with pytest.raises(DeepCrimeNameError) as exc:
        make_mutant(program, "change_activation_function_mutated0_MP_tanh_1")
    assert exc.value.reason == "several_layers" and "2 layers" in str(exc.value)
    mutant, resolved = make_mutant(program, "change_activation_function_mutated0_MP_tanh_2")
    assert resolved.layer is not None and resolved.layer.cls == "Dense" and mutant.edits[0].new == '"tanh"'


def test_a_branched_functional_graph_refuses_layer_names_but_not_program_names(tmp_path: Path) -> None:
    program = _program(tmp_path, BRANCHED)
    with pytest.raises(DeepCrimeNameError) as exc:
        make_mutant(program, "remove_bias_mutated0_MP_2")
    assert exc.value.reason == "no_model" and "branched" in str(exc.value)
    mutant, _ = make_mutant(program, "change_epochs_mutated0_MP_7")
    assert mutant.edits[0].new == "7"


def test_an_activation_layer_folded_into_the_layer_before_it_is_its_own_layer(tmp_path: Path) -> None:
    """DeepCrime sees Dense(8) and Activation('relu') as layers 1 and 2; mutreal's activation
    operators edit the Activation layer, which carries the Dense layer's activation."""
    program = _program(tmp_path, FOLDED)
    mutant, resolved = make_mutant(program, "change_activation_function_mutated0_MP_tanh_2")
    assert resolved.layer is not None and resolved.layer.cls == "Activation"
    layers = Program(mutant.code, program.path).model.models[0].layers
    assert [layer.activation_of_layer.value for layer in layers[1:2]] == ["tanh"]


def _activations(code: str, path: str) -> list[tuple[str, str | None]]:
    """Each layer of the mutant's first model, unfolded: (class, its own activation argument)."""
    layers = Program(code, path).model.models[0].layers
    out = []
    for layer in layers:
        act = layer.activation_of_layer if layer.cls == "Activation" else layer.arg("activation")
        out.append((layer.cls, None if act is None else act.value))
    return out


@pytest.mark.parametrize(
    "name", ["change_activation_function_mutated0_MP_tanh_1", "add_activation_function_mutated0_MP_sigmoid_1"]
)
def test_a_linear_layer_before_an_activation_layer_gets_deepcrimes_activation(tmp_path: Path, name: str) -> None:
    """Config layer 1 of FOLDED is the linear Dense(8) before Activation('relu'): DeepCrime's ACH and
    AAL there set the Dense layer's own activation and keep the Activation layer (about 250 of Ahmed
    et al.'s mutants are such names; mutreal's operators, which fold the pair, have no site there)."""
    program = _program(tmp_path, FOLDED)
    value = name.split("_MP_")[1].rsplit("_", 1)[0]
    mutant, resolved = make_mutant(program, name)
    assert resolved.operator == "AAL" and resolved.layer is not None and resolved.layer.cls == "Dense"
    assert _activations(mutant.code, program.path) == [("Dense", value), ("Activation", "relu"), ("Dense", "softmax")]
    prov = {**mutant.provenance.to_dict(), "deepcrime": resolved.to_dict()}
    assert prov["site"] == -1 and prov["element"] == "model[0].layer[0].activation"
    assert name_from_provenance(program, prov) == f"add_activation_function_mutated0_MP_{value}_1"


def test_the_installed_command_writes_the_activation_of_the_layer_before_an_activation_layer(tmp_path: Path) -> None:
    program = _program(tmp_path, FOLDED)
    name = "change_activation_function_mutated0_MP_elu_1"
    res = _mutreal("mutate", program.path, "--deepcrime-name", name, "--out", str(tmp_path / "m"))
    assert res.returncode == 0, res.stderr
    (written,) = res.stdout.split()
    assert _activations(Path(written).read_text(), program.path)[:2] == [("Dense", "elu"), ("Activation", "relu")]
    prov = json.loads(Path(written).with_suffix(".json").read_text())
    assert (prov["operator"], prov["deepcrime"]["canonical"], prov["deepcrime"]["layer_class"]) == ("AAL", name, "Dense")


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("remove_activation_function_mutated0_MP_1", "sets linear to linear here, its mutant is the original"),
        ("add_activation_function_mutated0_MP_relu_1", "equivalent to the original"),  # relu(relu(x)) = relu(x)
    ],
)
def test_deepcrimes_equivalent_mutants_before_an_activation_layer_are_refused_so(
    tmp_path: Path, name: str, says: str
) -> None:
    with pytest.raises(DeepCrimeNameError) as exc:
        make_mutant(_program(tmp_path, FOLDED), name)
    assert exc.value.reason == "equivalent" and says in str(exc.value)


def test_a_linear_layer_before_an_activation_layer_in_a_loop_is_refused(tmp_path: Path) -> None:
    looped = FOLDED.replace(
        'model.add(Dense(8, input_dim=4))\nmodel.add(Activation("relu"))\n',
        'model.add(Dense(8, input_dim=4))\nfor units in (8, 8):\n    model.add(Dense(units))\n    model.add(Activation("relu"))\n',
    )
    program = _program(tmp_path, looped)
    with pytest.raises(DeepCrimeNameError) as exc:
        make_mutant(program, "change_activation_function_mutated0_MP_tanh_2")
    assert exc.value.reason == "several_layers"


def test_a_change_to_linear_is_made_by_arm_the_same_edit(tmp_path: Path) -> None:
    program = _program(tmp_path, FOLDED)
    report = mutate_names(program, ["change_activation_function_mutated0_MP_linear_3"], str(tmp_path / "m"))
    (row,) = report.written
    assert row["operator"] == "ARM" and row["new"] in ('"linear"', "'linear'")
    assert [c.deepcrime for c in classify_pair(program.path, row["mutant"]).components] == ["ARM"]
    prov = json.loads(Path(row["provenance"]).read_text())
    assert prov["deepcrime"]["operator"] == "ACH" and prov["deepcrime"]["made_by"] == "ARM"


def test_a_value_of_another_deepcrime_release_is_written_as_named_and_said_so(sequential: Program) -> None:
    mutant, resolved = make_mutant(sequential, "change_weights_initialisation_mutated0_MP_variance_scaling_4")
    assert mutant.edits[0].new in ('"variance_scaling"', "'variance_scaling'")
    assert resolved.notes and "not in the initializer list" in resolved.notes[0]
    assert make_mutant(sequential, NAMES["WCI"])[1].notes == []


def test_a_change_of_a_linear_layers_activation_is_made_by_aal_the_same_edit(sequential: Program) -> None:
    """Config layer 4 of SEQUENTIAL is Dense(8) without activation: DeepCrime's ACH sets one."""
    mutant, resolved = make_mutant(sequential, "change_activation_function_mutated0_MP_selu_4")
    assert resolved.operator == "AAL" and "made by AAL" in resolved.notes[0]
    assert mutant.edits[0].new in ('"selu"', "'selu'")
    prov = {**mutant.provenance.to_dict(), "deepcrime": resolved.to_dict()}
    assert name_from_provenance(sequential, prov) == "add_activation_function_mutated0_MP_selu_4"


def test_a_value_equal_to_the_original_is_refused_as_equivalent(sequential: Program) -> None:
    with pytest.raises(DeepCrimeNameError) as exc:
        make_mutant(sequential, "change_batch_size_mutated0_MP_16_16")
    assert exc.value.reason == "equivalent"


LAYER_OPS = sorted(f.operator for f in name_formats().values() if f.has_layer)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    op=st.sampled_from(LAYER_OPS),
    index=st.integers(min_value=0, max_value=9),
    counting=st.sampled_from(["config", "layers"]),
    data=st.data(),
)
def test_any_layer_index_names_the_site_of_that_layer_or_says_why(
    sequential: Program, op, index, counting, data
) -> None:
    """The oracle is the element path of the operator's sites: config layer i of SEQUENTIAL is
    layer i-1 of the program model (Keras adds the InputLayer at 0), model.layers' layer i is i."""
    fmt = next(f for f in name_formats().values() if f.operator == op)
    value = None
    if fmt.has_value:
        value = data.draw(st.sampled_from(list(fmt.spec.param.values)))
    name = format_name(op, value, index)
    layer = f"model[0].layer[{index - 1 if counting == 'config' else index}]."

    def sites_of(op_id: str) -> list:
        return [s for s in registry.get(op_id).sites(sequential) if s.element.startswith(layer)]

    made_by = "ARM" if (op, value) == ("ACH", "linear") else op  # the same edit: see the tests above
    if op == "ACH" and made_by == op and not sites_of("ACH") and sites_of("AAL"):
        made_by = "AAL"
    expected = sites_of(made_by)
    try:
        mutant, resolved = make_mutant(sequential, name, counting=counting)
    except DeepCrimeNameError as exc:
        assert exc.reason in {"no_site", "layer_count", "equivalent", "bad_value"}, exc
        if exc.reason in {"no_site", "layer_count"}:
            assert not expected, name
        assert str(exc).startswith(repr(name))
        return
    assert [resolved.site.index] == [s.index for s in expected]
    back = name if made_by == op else format_name(made_by, value if made_by == "AAL" else None, index)
    assert (
        name_from_provenance(sequential, {**mutant.provenance.to_dict(), "deepcrime": resolved.to_dict()})
        == back
    )


# --- the encodings of names ------------------------------------------------------------------------

PERCENT_OPS = ["TCL", "TRD", "TUD", "TAN", "TCO"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(op=st.sampled_from(PERCENT_OPS), hundredths=st.integers(min_value=1, max_value=9900))
def test_any_percentage_round_trips_through_a_mutant(sequential: Program, op, hundredths) -> None:
    pct = hundredths / 100
    name = format_name(op, pct)
    assert parse_name(name).value == pct
    mutant, resolved = make_mutant(sequential, name)
    assert resolved.value == pct
    assert name_from_provenance(sequential, mutant.provenance.to_dict()) == name


def _value_strategy(spec):
    """Values inside the parameter's range, with DeepCrime's few decimals (and its string lists)."""
    if spec.type == "str":
        return st.sampled_from(list(spec.values))
    if spec.type == "int":
        return st.integers(min_value=max(1, int(spec.min or 1)), max_value=5000)
    top = spec.max if spec.max is not None else 10.0
    return st.integers(min_value=1, max_value=1000).map(lambda k: float(f"{k * top / 1000:.4g}"))


@st.composite
def _names(draw):
    readable = [f for f in name_formats().values() if f.has_value or f.spec.param is None]  # not OCG
    fmt = draw(st.sampled_from(sorted(readable, key=lambda f: f.key)))
    value = draw(_value_strategy(fmt.spec.param)) if fmt.has_value else None
    layer = draw(st.integers(min_value=0, max_value=60)) if fmt.has_layer else None
    prefix = draw(st.sampled_from(["", "MM_deepfd006_", "MM_defect4ml010_", "mnist_"]))
    run = draw(st.none() | st.integers(min_value=0, max_value=19))
    return fmt, value, layer, prefix, run


@settings(max_examples=200, deadline=None)
@given(_names())
def test_any_name_parses_back_to_its_operator_value_and_layer(drawn) -> None:
    fmt, value, layer, prefix, run = drawn
    canonical = format_name(fmt.operator, value, layer)
    text = prefix + canonical + ("" if run is None else f"_{run}.h5")
    got = parse_name(text)
    assert (got.operator, got.value, got.layer, got.run) == (fmt.operator, value, layer, run)
    assert got.prefix == prefix.rstrip("_") and got.canonical == canonical


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("model_original_3.h5", "not_a_name"),
        ("change_everything_mutated0_MP_1", "unknown_operator"),
        ("change_batch_size_mutated0_MP_64_32", "encoding"),
        ("change_dropout_rate_mutated0_MP_0.25_2", "encoding"),
        ("remove_validation_set_mutated0_MP_3", "encoding"),
        ("add_activation_function_mutated0_MP_None_3", "no_value"),
        ("change_learning_rate_mutated0_MP_False_-0.1", "bad_value"),
        ("change_activation_function_mutated0_MP_elu!_1", "bad_value"),
        ("mnist_change_optimisation_function_mutated0_MP_sgd_3", "encoding"),
    ],
)
def test_names_that_cannot_be_read_say_why(name: str, reason: str) -> None:
    with pytest.raises(DeepCrimeNameError) as exc:
        parse_name(name)
    assert exc.value.reason == reason and str(exc.value).startswith(repr(name))


# --- through the installed entry point ------------------------------------------------------------


def _mutreal(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``mutreal`` command (this checkout's sources first)."""
    exe = Path(sys.executable).with_name("mutreal")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "mutreal"]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("not-a-mutant", "is not a DeepCrime mutant name"),
        ("change_batch_size_mutated0_MP_64_32", "names end _MP_{value}_{value}"),
        ("change_dropout_rate_mutated0_MP_0.25_0.25_9", "has 6 layers (config layers: 0 InputLayer, 1 Dense"),
        ("remove_bias_mutated0_MP_2", "WRB has no site at layer 2, Dropout"),
    ],
)
def test_a_bad_name_is_one_error_line_and_exit_1(
    sequential: Program, tmp_path: Path, name: str, says: str
) -> None:
    res = _mutreal("mutate", sequential.path, "--deepcrime-name", name, "--out", str(tmp_path / "m"))
    assert res.returncode == 1
    assert res.stdout == ""
    (line,) = res.stderr.splitlines()
    assert line.startswith(f"error: {name!r}") and says in line, line
    assert not (tmp_path / "m").exists() or not list((tmp_path / "m").iterdir())


def test_a_batch_of_names_writes_the_good_ones_and_reports_each_bad_one(
    sequential: Program, tmp_path: Path
) -> None:
    out = tmp_path / "m"
    names = [NAMES["ACH"], "bogus_name", NAMES["HNE"], "remove_bias_mutated0_MP_0"]
    args = [x for n in names for x in ("--deepcrime-name", n)]
    res = _mutreal("mutate", sequential.path, *args, "--out", str(out), "--json")
    assert res.returncode == 1
    report = json.loads(res.stdout)
    assert [w["name"] for w in report["written"]] == [NAMES["ACH"], NAMES["HNE"]]
    assert [(f["name"], f["reason"]) for f in report["failures"]] == [
        ("bogus_name", "not_a_name"),
        ("remove_bias_mutated0_MP_0", "layer_count"),
    ]
    assert len(res.stderr.splitlines()) == 2
    assert sorted(p.name for p in out.glob("*.py")) == ["subject__ACH_0_sigmoid.py", "subject__HNE_0_5.py"]


def test_deepcrime_name_excludes_the_other_ways_of_choosing_a_mutant(sequential: Program) -> None:
    res = _mutreal("mutate", sequential.path, "--deepcrime-name", NAMES["ACH"], "--op", "ACH")
    assert res.returncode == 2 and "--deepcrime-name" in res.stderr


def test_the_installed_command_counts_model_layers_when_asked(sequential: Program, tmp_path: Path) -> None:
    name = "remove_bias_mutated0_MP_0"
    refused = _mutreal("mutate", sequential.path, "--deepcrime-name", name, "--out", str(tmp_path))
    assert refused.returncode == 1 and "--deepcrime-layers layers" in refused.stderr
    made = _mutreal(
        "mutate",
        sequential.path,
        "--deepcrime-name",
        name,
        "--deepcrime-layers",
        "layers",
        "--out",
        str(tmp_path),
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == str(tmp_path / "subject__WRB_0_False.py")


TF2_PROGRAM = """\
import tensorflow as tf
from sklearn.datasets import load_iris

x, y = load_iris(return_X_y=True)
model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                             tf.keras.layers.Dense(3, activation="softmax")])
model.compile(loss="sparse_categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
model.fit(x, y, epochs=2, verbose=0)
"""


@pytest.mark.parametrize(("deepcrime", "keras3"), [("logcosh", "log_cosh"), ("kullback_leibler_divergence", "kl_divergence")])
def test_a_loss_keras3_renamed_is_written_as_keras3_names_it_where_the_program_runs_on_it(
    tmp_path: Path, deepcrime: str, keras3: str
) -> None:
    """A tf.keras program of TensorFlow 2 runs on Keras 3 (mutreal run's framework choice), which
    refuses DeepCrime's old loss names: the mutant would be stillborn (DeepLocalize-GH gol_nn)."""
    name = f"change_loss_function_mutated0_MP_{deepcrime}"
    mutant, resolved = make_mutant(_program(tmp_path, TF2_PROGRAM), name)
    assert f'"{keras3}"' in mutant.code and deepcrime not in mutant.code
    assert any(f"is {keras3!r} on Keras 3" in note for note in resolved.notes)
    kept, resolved = make_mutant(_program(tmp_path, SEQUENTIAL, "keras2.py"), name)  # tf_keras knows the old name
    assert f'"{deepcrime}"' in kept.code and resolved.notes == []
