"""labels.py: codes, taxonomy leaves, the most specific DeepCrime operator, and both simulable readings."""

from __future__ import annotations

import pytest

from mutreal.compare import FaultComponent
from mutreal.label.codes import KERAS_ONLY_REASON, KIND_RULES, label_component
from mutreal.label.taxonomy import load_taxonomy


def comp(kind: str, change: str = "changed", **detail) -> FaultComponent:
    return FaultComponent(element="x", kind=kind, change=change, detail=detail)


@pytest.mark.parametrize(
    ("before", "after", "operator"),
    [("relu", "linear", "ARM"), ("linear", "softmax", "AAL"), ("sigmoid", "softmax", "ACH")],
)
def test_activation_operator_by_direction(before, after, operator):
    label = label_component(comp("layer.activation", before_activation=before, after_activation=after))
    assert (label.code, label.deepcrime, label.simulable) == ("ACH", operator, True)


@pytest.mark.parametrize(
    ("detail", "operator"),
    [
        ({"after_activation": "relu"}, "AAL"),  # no activation written before: Keras' linear
        ({"before_activation": "relu"}, "ARM"),  # none written after: the fix removed it
        ({"before_activation": "linear", "after_activation": None}, "ACH"),  # linear both ways
        ({"before_activation": "Linear", "after_activation": "Softmax"}, "AAL"),
    ],
)
def test_an_absent_activation_reads_as_linear(detail, operator):
    """ARM/AAL are decided against 'linear', which is also what an absent activation means."""
    assert label_component(comp("layer.activation", **detail)).deepcrime == operator


def test_missing_softmax_activation_gets_its_leaf():
    label = label_component(
        comp(
            "layer.activation",
            "added",
            before_activation="linear",
            after_activation="softmax",
            activation="softmax",
        )
    )
    assert label.taxonomy == "Missing softmax activation function"


def test_missing_layer_leaf_by_type_and_no_operator():
    label = label_component(comp("layer.missing", "added", layer_type="Dropout"))
    assert label.code == "LRM" and label.taxonomy == "Missing dropout layer"
    assert label.deepcrime is None and not label.simulable and "adds or removes layers" in label.reason


def test_redundant_softmax_layer():
    label = label_component(comp("layer.redundant", "removed", layer_type="Activation(softmax)"))
    assert label.code == "LAD" and label.taxonomy == "Redundant softmax layer"


@pytest.mark.parametrize(
    ("change", "code", "operator"),
    [("removed", "RAW", "RRW"), ("added", "RCW", "RAW"), ("changed", "RCW", "RCW")],
)
def test_regularisation_code_and_operator_by_direction(change, code, operator):
    """The code keeps the study's meaning (a fix removing a regulariser: RAW); the operator turns the
    first program into the second (the second loses its regulariser: RRW)."""
    label = label_component(comp("layer.regularizer", change))
    assert (label.code, label.deepcrime) == (code, operator)


@pytest.mark.parametrize(("before", "code", "operator"), [(True, "WAB", "WRB"), (False, "WRB", "WAB")])
def test_bias_code_and_operator_by_direction(before, code, operator):
    """use_bias True -> False: the second program lost its bias, DeepCrime's WRB made it."""
    label = label_component(comp("layer.use_bias", before_value=before, after_value=not before))
    assert (label.code, label.deepcrime) == (code, operator)


def test_full_batch_is_hdb():
    assert label_component(comp("fit.batch_size", full_batch=True)).deepcrime == "HDB"
    assert label_component(comp("fit.batch_size", before_number=8, after_number=32)).deepcrime == "HBS"


@pytest.mark.parametrize(("before", "after", "strict"), [(5, 50, True), (50, 5, False)])
def test_strict_reading_only_lowers_epochs(before, after, strict):
    label = label_component(comp("fit.epochs", before_number=before, after_number=after))
    assert label.simulable is True and label.deepcrime_strict is strict


def test_raw_tensorflow_is_not_simulable():
    label = label_component(comp("compile.loss", raw_tensorflow=True))
    assert label.code == "LCH" and label.deepcrime is None and label.reason == KERAS_ONLY_REASON
    assert label.simulable is False and label.deepcrime_strict is False
    keras = label_component(comp("compile.loss"))
    assert keras.deepcrime == "LCH" and keras.simulable and keras.deepcrime_strict and keras.reason is None


def test_label_carries_the_leaf_id_and_the_category_of_its_code():
    """taxonomy/fault_codes.csv: LRM's category; the Dropout leaf as taxonomy/tree.yaml names it."""
    label = label_component(comp("layer.missing", "added", layer_type="Dropout"))
    assert (label.taxonomy_id, label.taxonomy) == ("L007", "Missing dropout layer")
    assert label.category == "Model > Layers > Missing/Redundant/Wrong Layer"


def test_preprocessing_missing_vs_wrong_leaf():
    assert label_component(comp("data.preprocess", "added")).taxonomy == "Missing preprocessing"
    assert label_component(comp("data.preprocess", "changed")).taxonomy == "Wrong preprocessing"


def test_every_kind_maps_to_a_known_code():
    taxonomy = load_taxonomy()
    for kind, rule in KIND_RULES.items():
        assert taxonomy.has_code(rule.code), kind
        assert (rule.operator is None) == (rule.reason is not None), kind


def test_learning_rate_of_a_string_optimizer_names_hlr_but_is_not_simulable():
    """mutreal's HLR changes it (deepcrime names HLR); DeepCrime's own HLR fails there, as the
    study's N flag for such a case says: not simulable, not strict, with the reason."""
    label = label_component(comp("compile.learning_rate", optimizer_spelling="string"))
    assert label.code == "HLR" and label.deepcrime == "HLR" and "string" in label.reason
    assert label.simulable is False and label.deepcrime_strict is False
    obj = label_component(comp("compile.learning_rate", optimizer_spelling="object"))
    assert obj.deepcrime == "HLR" and obj.simulable and obj.reason is None


@pytest.mark.parametrize(
    ("function", "code", "operator", "leaf_id", "leaf"),
    [
        ("change_labels", "TCL", "TCL", "L061", "Wrong labels for training data"),
        ("remove", "TRD", "TRD", "L064", "Not enough training data"),
        ("unbalance", "TRD", "TUD", "L063", "Unbalanced training data"),
        ("add_noise", "TAN", "TAN", "L065", "Low quality training data"),
        ("overlap", "TCL", "TCO", "L066", "Overlapping output classes in training data"),
    ],
)
def test_runtime_training_data_call_is_labelled_by_its_function(function, code, operator, leaf_id, leaf):
    """Leaves as taxonomy/tree.yaml names them; DeepCrime's TRD/TCL... do exactly this (strict)."""
    label = label_component(comp("data.training_data", "added", function=function))
    assert (label.code, label.deepcrime, label.simulable, label.deepcrime_strict) == (code, operator, True, True)
    assert (label.taxonomy_id, label.taxonomy) == (leaf_id, leaf)
    assert label.category == "Training > Training Data Quality" and label.reason is None


def test_unknown_runtime_function_is_not_an_operator():
    """Code TRD (a training-data change) in its category, but no leaf, no operator, neither reading."""
    label = label_component(comp("data.training_data", "added", function="shuffle_rows"))
    assert (label.code, label.category) == ("TRD", "Training > Training Data Quality")
    assert (label.taxonomy, label.taxonomy_id, label.deepcrime) == (None, None, None)
    assert label.simulable is False and label.deepcrime_strict is False
    assert label.reason == "mutreal.runtime.training_data.shuffle_rows is no DeepCrime operator"


def test_runtime_call_without_a_function_name_says_so_plainly():
    """A component whose detail lost the function name is no operator; the reason names nothing."""
    label = label_component(comp("data.training_data", "added"))
    assert label.deepcrime is None and label.simulable is False
    assert label.reason == "mutreal.runtime.training_data. is no DeepCrime operator"


def test_every_training_data_operator_has_a_leaf_and_a_study_code():
    """Pins the data that makes the no-leaf / no-code fallbacks of _label_runtime_call unreachable
    today (tools/mutation/equivalent.toml relies on it): each operator's catalogue entry names a
    leaf, and its code is in the taxonomy under the same category as that leaf."""
    from mutreal.label.codes import RUNTIME_FUNCTION_OPERATORS
    from mutreal.operator_catalogue import load_catalogue

    taxonomy, catalogue = load_taxonomy(), load_catalogue()
    for operator in RUNTIME_FUNCTION_OPERATORS.values():
        spec = catalogue[operator]
        code = spec.fault_code or operator
        assert spec.taxonomy_leaf_id and taxonomy.has_code(code), operator
        assert taxonomy.code(code).category == " > ".join(taxonomy.category_path(spec.taxonomy_leaf_id))


@pytest.mark.parametrize(
    ("detail", "code", "operator"),
    [
        ({}, "WAB", "WRB"),  # use_bias not written in the first program: Keras' default True
        ({"before_value": None}, "WAB", "WRB"),
        ({"before_value": 1}, "WAB", "WRB"),
        ({"before_value": "True"}, "WAB", "WRB"),
        ({"before_value": 0}, "WRB", "WAB"),
        ({"before_value": "false"}, "WRB", "WAB"),
    ],
)
def test_bias_direction_reads_every_spelling_of_true(detail, code, operator):
    """The first program has a bias when use_bias is absent (Keras' default), True, 1 or None."""
    label = label_component(comp("layer.use_bias", **detail))
    assert (label.code, label.deepcrime) == (code, operator)


@pytest.mark.parametrize("kind", ["compile.learning_rate", "fit.epochs", "fit.patience"])
@pytest.mark.parametrize(
    ("before", "after", "strict"),
    [(0.001, 0.01, True), (0.01, 0.001, False), (10, 10, False), (None, 10, False), ("5", 10, False)],
)
def test_strict_reading_of_hlr_hne_rcp_needs_the_first_value_strictly_lower(kind, before, after, strict):
    """DeepCrime's HLR/HNE/RCP only lower a value: the buggy program's must be the lower one; an
    unchanged value (equal) or one that is not a number is not DeepCrime's change."""
    label = label_component(comp(kind, before_number=before, after_number=after, optimizer_spelling="object"))
    assert label.simulable is True and label.deepcrime_strict is strict


def test_strict_reading_of_other_operators_and_of_no_operator():
    """Operators other than HLR/HNE/RCP are DeepCrime's in both readings; no operator is in neither."""
    assert label_component(comp("layer.activation", before_activation="relu", after_activation="tanh")).deepcrime_strict
    assert label_component(comp("fit.batch_size", before_number=64, after_number=8)).deepcrime_strict
    missing = label_component(comp("layer.missing", "added", layer_type="Dropout"))
    assert missing.deepcrime is None and missing.deepcrime_strict is False


def test_kind_rules_cover_exactly_the_kinds_the_comparison_emits():
    """A row per kind but the runtime call (labelled by its function), and no row for a kind never emitted."""
    from mutreal.compare.kinds import ComponentKind

    assert set(KIND_RULES) == set(ComponentKind) - {ComponentKind.DATA_TRAINING_DATA}


def test_every_kind_is_emitted_by_a_comparison_pass():
    """Each kind is named by the code of some pass (so no label row waits for a kind nobody makes)."""
    import ast
    from pathlib import Path

    import mutreal.compare
    import mutreal.label.best_code
    from mutreal.compare.kinds import ComponentKind

    named: set[str] = set()
    # the comparison passes, and the best code that makes components of what they leave unexplained
    producers = [*Path(mutreal.compare.__file__).parent.glob("*.py"), Path(mutreal.label.best_code.__file__)]
    for path in producers:
        if path.name == "kinds.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "K":
                named.add(node.attr)
    # the fit pass and the unused-variable pass emit the kind of every budget element by its value
    from mutreal.program.training_budget import BUDGET_ELEMENTS

    named |= {ComponentKind(element).name for element in BUDGET_ELEMENTS}
    assert set(ComponentKind.__members__) - named == set()


def test_an_unknown_kind_is_an_error_not_a_guess():
    with pytest.raises(ValueError, match="unknown fault component kind 'layer.other'"):
        comp("layer.other")
    with pytest.raises(ValueError, match="unknown fault component kind"):
        FaultComponent.from_dict({"element": "x", "kind": "api.usage", "change": "changed"})


def test_kind_serialises_as_its_string():
    import json

    component = comp("layer.units", before_number=4)
    assert component.kind == "layer.units" and f"{component.kind}" == "layer.units"
    assert json.loads(json.dumps(component.to_dict()))["kind"] == "layer.units"
    assert json.dumps({"kind": component.kind}) == '{"kind": "layer.units"}'
    assert FaultComponent.from_dict(component.to_dict()) == component
