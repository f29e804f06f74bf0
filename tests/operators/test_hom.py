"""Several first-order edits combined into one file (the building block of hom-generate)."""

from __future__ import annotations

import pytest

from mutreal.label.classify import classify_pair
from mutreal.mutation.operators import MutationError, Program, Provenance, apply_edits, registry
from mutreal.mutation.operators.agreement import compare_components

from .conftest import subject_path, subject_program


def _edit(program: Program, op_id: str, site: int, value=None, **opts):
    return registry.get(op_id).apply(program, site, value, **opts)


def test_two_edits_on_the_same_call_merge() -> None:
    program = Program(
        "from keras.optimizers import SGD\nmodel.compile(loss='mse', optimizer=SGD(lr=0.01))\n", "p.py"
    )
    mutant = apply_edits(program, [_edit(program, "HLR", 0, 1.0), _edit(program, "OCG", 0, 0.5)])
    assert mutant.code.endswith("optimizer=SGD(lr=1.0, clipvalue=0.5))\n")
    assert mutant.provenance.order == 2 and mutant.provenance.operator == "HLR+OCG"
    assert mutant.name == "p__HLR_0_1__OCG_0_0.5.py"


def test_activation_and_bias_of_one_layer() -> None:
    program = Program("from keras.layers import Dense\nmodel.add(Dense(3, activation='relu'))\n", "p.py")
    mutant = apply_edits(program, [_edit(program, "ACH", 0, "tanh"), _edit(program, "WRB", 0)])
    assert mutant.code.endswith("model.add(Dense(3, activation='tanh', use_bias=False))\n")


def test_shared_import_is_added_once() -> None:
    program = Program(
        "from keras.models import Sequential\nmodel.compile(loss='mse', optimizer='adam')\n", "p.py"
    )
    mutant = apply_edits(program, [_edit(program, "HLR", 0, 0.1)])
    assert mutant.code.count("from keras.optimizers import Adam") == 1


def test_hom_of_subject_agrees_with_classify(tmp_path) -> None:
    name = "cnn"
    program = subject_program(name)
    edits = [
        _edit(program, "ACH", 4, "sigmoid"),  # last layer's activation
        _edit(program, "LCH", 0, "binary_crossentropy"),
        _edit(program, "HLR", 0, 0.1),
        _edit(program, "HNE", 0, 2),
    ]
    mutant = apply_edits(program, edits)
    prov = Provenance.from_dict(mutant.provenance.to_dict())
    assert prov.order == 4 and [p.operator for p in prov.parts] == ["ACH", "LCH", "HLR", "HNE"]
    path = tmp_path / mutant.name
    path.write_text(mutant.code)
    result = classify_pair(str(subject_path(name)), str(path))
    agreement = compare_components(prov.components, result.components)
    assert agreement.ok, agreement.describe()


def test_no_edit_is_an_error() -> None:
    with pytest.raises(MutationError):
        apply_edits(subject_program("cnn"), [])


def test_an_edit_that_does_not_parse_is_an_error() -> None:
    from mutreal.mutation.operators.base import Change

    program = Program("model.fit(x, y, epochs=3)\n", "p.py")
    edit = registry.get("HNE").apply(program, 0, 6)
    edit.changes = [Change("replace", edit.changes[0].target, code="6 +")]
    with pytest.raises(MutationError, match="does not parse"):
        apply_edits(program, [edit])


def test_parenthesised_layer_call_is_a_site() -> None:
    program = Program("from keras.layers import Dense\nmodel.add((Dense(1)))\n", "p.py")
    mutant = registry.get("AAL").mutant(program, 0, "sigmoid")
    assert mutant.code.endswith('model.add((Dense(1, activation="sigmoid")))\n')


def test_overlapping_edits_are_an_error() -> None:
    program = Program(
        "from keras import optimizers\nmodel.compile(loss='mse', optimizer=optimizers.SGD(lr=0.1))\n", "p.py"
    )
    with pytest.raises(MutationError, match="overlap"):
        apply_edits(program, [_edit(program, "OCH", 0, "adam"), _edit(program, "HLR", 0, 1.0)], strict=True)
    # OCG adds an argument to the call OCH replaces: also refused rather than silently dropped
    with pytest.raises(MutationError, match="overlap"):
        apply_edits(program, [_edit(program, "OCG", 0, 0.5), _edit(program, "OCH", 0, "adam")], strict=True)
    # without strict the outer edit wins (the masked HLR leaves no trace)
    masked = apply_edits(program, [_edit(program, "OCH", 0, "adam"), _edit(program, "HLR", 0, 1.0)])
    assert "optimizer=optimizers.Adam()" in masked.code


def test_any_value_admits_values_outside_deepcrime_s_list() -> None:
    program = Program("model.compile(loss='mse', optimizer='adam')\n", "p.py")
    lch = registry.get("LCH")
    with pytest.raises(MutationError, match="must be one of"):
        lch.apply(program, 0, "sparse_categorical_crossentropy")
    edit = lch.apply(program, 0, "sparse_categorical_crossentropy", any_value=True)
    assert (
        apply_edits(program, [edit]).code
        == "model.compile(loss='sparse_categorical_crossentropy', optimizer='adam')\n"
    )
    with pytest.raises(MutationError, match="does not apply"):
        lch.apply(program, 0, "mse", any_value=True)


WRAPPED = """from keras.layers import LSTM, Bidirectional, Dense, TimeDistributed
from keras.models import Sequential

model = Sequential()
model.add(Bidirectional(LSTM(32, activation="tanh", return_sequences=True), input_shape=(5, 3)))
model.add(TimeDistributed(Dense(1, activation="sigmoid")))
model.compile(loss="mse", optimizer="adam")
"""


@pytest.mark.parametrize("op_id", ["ACH", "ARM", "WCI"])
def test_layers_inside_wrappers_are_sites_classify_agrees(tmp_path, op_id: str) -> None:
    original = tmp_path / "wrapped.py"
    original.write_text(WRAPPED)
    program = Program(WRAPPED, str(original))
    op = registry.get(op_id)
    sites = op.sites(program)
    assert [s.element.rsplit(".", 1)[0] for s in sites] == ["model[0].layer[0]", "model[0].layer[1]"]
    for site in sites:
        mutant = apply_edits(program, [op.apply(program, site, op.values(program, site)[0])])
        path = tmp_path / mutant.name
        path.write_text(mutant.code)
        result = classify_pair(str(original), str(path))
        agreement = compare_components(mutant.provenance.components, result.components)
        assert agreement.ok, agreement.describe()


def test_two_training_data_edits_share_one_import() -> None:
    program = Program("model.fit(x_train, y_train, epochs=3)\n", "p.py")
    edits = [_edit(program, "TRD", 0, 10), _edit(program, "TAN", 0, 5)]
    assert apply_edits(program, edits).code == (
        "from mutreal.runtime import training_data as _mutreal_td\n"
        "x_train, y_train = _mutreal_td.remove(x_train, y_train, pct=10.0, seed=0)\n"
        "x_train = _mutreal_td.add_noise(x_train, pct=5.0, seed=0)\n"
        "model.fit(x_train, y_train, epochs=3)\n"
    )
