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
    ("function", "code", "operator"),
    [
        ("change_labels", "TCL", "TCL"),
        ("remove", "TRD", "TRD"),
        ("unbalance", "TRD", "TUD"),
        ("add_noise", "TAN", "TAN"),
        ("overlap", "TCL", "TCO"),
    ],
)
def test_runtime_training_data_call_is_labelled_by_its_function(function, code, operator):
    label = label_component(comp("data.training_data", "added", function=function))
    assert (label.code, label.deepcrime, label.simulable) == (code, operator, True)
    assert label.taxonomy_id is not None and label.category.startswith("Training")


def test_unknown_runtime_function_is_not_an_operator():
    label = label_component(comp("data.training_data", "added", function="shuffle_rows"))
    assert label.deepcrime is None and label.simulable is False and label.reason


def test_kind_rules_cover_exactly_the_kinds_the_comparison_emits():
    """A row per kind but the runtime call (labelled by its function), and no row for a kind never emitted."""
    from mutreal.compare.kinds import ComponentKind

    assert set(KIND_RULES) == set(ComponentKind) - {ComponentKind.DATA_TRAINING_DATA}


def test_every_kind_is_emitted_by_a_comparison_pass():
    """Each kind is named by the code of some pass (so no label row waits for a kind nobody makes)."""
    import ast
    from pathlib import Path

    import mutreal.compare
    from mutreal.compare.kinds import ComponentKind

    named: set[str] = set()
    for path in Path(mutreal.compare.__file__).parent.glob("*.py"):
        if path.name == "kinds.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "K":
                named.add(node.attr)
    # the unused-variable pass emits the kind its source fact names ("fit.epochs" / "fit.batch_size")
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
