"""The shipped taxonomy data: counts, fault codes, conditional leaves, stable ids."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mutreal.label.taxonomy import FaultCode, Leaf, load_taxonomy
from mutreal.operator_catalogue import load_catalogue

PINNED = Path(__file__).with_name("pinned_ids.csv")

# The 55 code spellings of the study's table (LDM twice; one entry without a code), in its order.
STUDY_CODES = [
    "HBS",
    "HLR",
    "HNE",
    "ACH",
    "RAW",
    "WCI",
    "LCH",
    "OCH",
    "LRM",
    "LAD",
    "LCN",
    "LCF",
    "BCI",
    "CPP",
    "MWS",
    "MWA",
    "LWS",
    "LIS",
    "LOS",
    "LCP",
    "LDM",
    "TWS",
    "TCL",
    "TAC",
    "PMC",
    "MWI",
    "IWF",
    "LWC",
    "ISL",
    "IDS",
    "TWP",
    "TRD",
    "APW",
    "RCD",
    "TMS",
    "IWS",
    "WAB",
    "WRB",
    "RCP",
    "LDS",
    "MTB",
    "LDM",
    "LGR",
    "WDW",
    "VRM",
    "BNE",
    "RBM",
    "RBR",
    "HBI",
    "MMR",
    "APD",
    "HES",
    "HAE",
    "?",
    "RCW",
    "VSM",
]
#: the operator ids, read from the catalogue (its owner), not a second list
DEEPCRIME_IDS = set(load_catalogue())


@pytest.fixture(scope="module")
def tax():
    return load_taxonomy()


def test_reconstruction_has_93_leaves_the_paper_92(tax):
    assert tax.leaf_count == 93
    assert tax.paper_leaf_count == 92
    assert tax.meta["reconstructed_leaf_count"] == tax.leaf_count


def test_uncertain_leaves_are_flagged_and_cover_the_extra_leaf(tax):
    uncertain = tax.uncertain_leaves()
    assert {leaf.name for leaf in uncertain} == {
        "Wrong tensor shape (other)",
        "Tensor shape mismatch",
        "Wrong shape of input data",
        "Wrong type of input data",
    }
    # dropping any one of them gives the paper's count
    assert tax.leaf_count - 1 == tax.paper_leaf_count
    assert all(leaf.uncertain and leaf.flag == "count-suspect" for leaf in uncertain)
    # the flag is visible in the data file itself, on each such leaf's line
    text = (Path(__file__).parents[2] / "taxonomy" / "tree.yaml").read_text(encoding="utf-8")
    for leaf in uncertain:
        line = next(ln for ln in text.splitlines() if f"id: {leaf.id}," in ln)
        assert "flag: count-suspect" in line


def test_five_top_level_and_eleven_second_level_categories(tax):
    roots = [c for c in tax.categories.values() if c.parent_id is None]
    assert [c.name for c in roots] == ["Model", "Tensors & Inputs", "Training", "GPU Usage", "API"]
    assert sum(len(tax.children(c.id)) for c in roots) == 11


def test_all_56_fault_code_rows_in_study_order(tax):
    assert len(tax.fault_codes) == 56
    assert [fc.code or "?" for fc in tax.fault_codes] == STUDY_CODES
    assert len(tax.code_ids()) == 54  # LDM once, the code-less entry left out


def test_ldm_has_two_meanings_and_one_entry_has_no_code(tax):
    assert [fc.description for fc in tax.meanings("LDM")] == [
        "Layers' dimensions mismatch",
        "Missing dropout layer",
    ]
    assert tax.code("LDM").leaf == "Layers' dimensions mismatch"
    codeless = [fc for fc in tax.fault_codes if fc.code is None]
    assert len(codeless) == 1 and codeless[0].description == "Suboptimal weight regularisation value"
    assert codeless[0].leaf_id is None and codeless[0].category == "Training > Hyperparameters"


def test_every_code_leaf_and_category_exists_and_agrees(tax):
    for fc in tax.fault_codes:
        assert tax.category(fc.category_id).path_text == fc.category, fc.id
        if fc.leaf_id:
            assert tax.leaf(fc.leaf_id).name == fc.leaf, fc.id
            # the leaf sits in the code's category subtree
            assert tax.category_path(fc.leaf_id)[
                : len(tax.category_path(fc.category_id))
            ] == tax.category_path(fc.category_id), fc.id
        else:
            assert fc.leaf is None


@pytest.mark.parametrize(
    "code", ["RAW", "RCD", "BNE", "WAB", "RCP", "LDS", "LGR", "RBM", "RBR", "HES", "BCI", "RCW"]
)
def test_codes_without_leaf_carry_only_a_category(tax, code):
    fc = tax.code(code)
    assert fc.leaf_id is None and not fc.rules and fc.category
    assert tax.resolve_leaf(code) is None


@pytest.mark.parametrize(
    ("code", "detail", "leaf"),
    [
        ("ACH", {"change": "added", "activation": "softmax"}, "Missing softmax activation function"),
        ("ACH", {"change": "added", "activation": "relu"}, "Missing ReLU activation function"),
        ("ACH", {"change": "changed", "activation": "softmax"}, "Wrong type of activation function"),
        (
            "ACH",
            {"change": "added", "before_activation": "linear", "after_activation": "softmax"},
            "Missing softmax activation function",
        ),
        ("ACH", {"change": "added", "after_activation": "relu"}, "Missing ReLU activation function"),
        (
            "ACH",
            {"change": "changed", "before_activation": "tanh", "after_activation": "relu"},
            "Wrong type of activation function",
        ),
        ("LRM", {"layer_type": "Dropout"}, "Missing dropout layer"),
        ("LRM", {"layer_type": "SpatialDropout2D"}, "Missing dropout layer"),
        ("LRM", {"layer_type": "BatchNormalization"}, "Missing normalisation layer"),
        ("LRM", {"layer_type": "Softmax"}, "Missing softmax layer"),
        ("LRM", {"layer_type": "Activation", "activation": "softmax"}, "Missing softmax layer"),
        ("LRM", {"layer_type": "Flatten"}, "Missing flatten layer"),
        ("LRM", {"layer_type": "Dense"}, "Missing dense layer"),
        ("LRM", {"layer_type": "AveragePooling2D"}, "Missing average pooling layer"),
        ("LRM", {"layer_type": "GlobalAveragePooling1D"}, "Missing average pooling layer"),
        ("LRM", {"layer_type": "Conv2D"}, None),
        ("LRM", {"layer_type": "MaxPooling2D"}, None),
        ("LRM", {}, None),
        ("LAD", {"layer_type": "Softmax"}, "Redundant softmax layer"),
        ("LAD", {"layer_type": "Dense"}, None),
        ("CPP", {"change": "added"}, "Missing preprocessing"),
        ("CPP", {"change": "changed"}, "Wrong preprocessing"),
        ("CPP", {"change": "removed"}, "Wrong preprocessing"),
        ("CPP", {}, None),
        ("TAC", {"change": "added"}, "Missing data augmentation"),
        ("TAC", {"change": "removed"}, "Redundant data augmentation"),
        (
            "LWS",
            {"before_layer_type": "MaxPooling2D", "after_layer_type": "AveragePooling2D"},
            "Wrong type of pooling layer",
        ),
        ("LWS", {"before_layer_type": "Dense", "after_layer_type": "Conv1D"}, "Wrong layer type"),
        ("HLR", {}, "Suboptimal learning rate"),
    ],
)
def test_resolve_leaf(tax, code, detail, leaf):
    got = tax.resolve_leaf(code, **detail)
    assert (got.name if got else None) == leaf


def test_every_rule_row_is_reachable(tax):
    """Each conditional row of fault_code_leaves.csv is exercised by the table above."""
    for fc in tax.fault_codes:
        for rule in fc.rules:
            assert rule.leaf_id in tax.leaves
            assert set(dict(rule.when)) <= set(fc.leaf_by), (fc.code, rule.when)


@given(
    code=st.sampled_from(STUDY_CODES[:-1] if STUDY_CODES[-1] == "?" else STUDY_CODES),
    layer=st.text(max_size=20),
    change=st.sampled_from(["added", "removed", "changed", "x"]),
    act=st.sampled_from(["softmax", "relu", "tanh"]),
)
def test_resolved_leaf_stays_in_the_code_category(code, layer, change, act):
    tax = load_taxonomy()
    if code == "?":
        return
    leaf = tax.resolve_leaf(code, layer_type=layer, change=change, activation=act)
    if leaf is not None:
        cat = tax.category_path(tax.code(code).category_id)
        assert tax.category_path(leaf.id)[: len(cat)] == cat


def test_deepcrime_operator_flags(tax):
    for fc in tax.fault_codes:
        assert fc.is_deepcrime_operator == (fc.code in DEEPCRIME_IDS), fc.code
        assert set(fc.operators) <= DEEPCRIME_IDS
        if fc.is_deepcrime_operator:
            assert fc.code in fc.operators
    assert set(tax.code("ACH").operators) == {"ACH", "ARM", "AAL"}
    assert tax.code("LRM").operators == ()


def test_alias_wrong_kernel_size(tax):
    assert tax.code("wrong kernel size").code == "LCF"
    assert tax.code(" lcf ").code == "LCF"
    with pytest.raises(KeyError):
        tax.code("XYZ")


def test_find_leaf_and_paths(tax):
    leaf = tax.find_leaf("missing  DROPOUT layer")
    assert leaf is not None and leaf.id == "L007"
    assert tax.category_path("L007") == ("Model", "Layers", "Missing/Redundant/Wrong Layer")
    assert tax.find_leaf("no such leaf") is None
    assert len(tax.leaves_under("C01")) == 27


def test_ids_unique(tax):
    ids = list(tax.categories) + list(tax.leaves) + [fc.id for fc in tax.fault_codes]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"C\d{2}|L\d{3}|F\d{2}", i) for i in ids)


def test_pinned_ids_never_change(tax):
    """Ids are append-only: every pinned id keeps its name; new ids number above the pinned ones."""
    current = {c.id: ("category", c.name) for c in tax.categories.values()}
    current |= {leaf.id: ("leaf", leaf.name) for leaf in tax.leaves.values()}
    current |= {fc.id: ("fault_code", f"{fc.code or ''}: {fc.description}") for fc in tax.fault_codes}
    with PINNED.open(encoding="utf-8", newline="") as fh:
        pinned = {row["id"]: (row["kind"], row["name"]) for row in csv.DictReader(fh)}
    for pid, kind_name in pinned.items():
        assert current.get(pid) == kind_name, f"pinned id {pid} changed or vanished"
    for prefix in ("C", "L", "F"):
        top = max(int(p[1:]) for p in pinned if p[0] == prefix)
        new = [i for i in current if i[0] == prefix and i not in pinned]
        assert all(int(i[1:]) > top for i in new), new


def test_json_round_trip(tax):
    for leaf in tax.leaves.values():
        assert Leaf.from_dict(leaf.to_dict()) == leaf
    for fc in tax.fault_codes:
        assert FaultCode.from_dict(fc.to_dict()) == fc


def test_decision_table_uses_known_codes_and_operators(tax):
    """Cross-check of classify's decision table against the taxonomy and the operator catalogue."""
    from mutreal.decisions import Decision, load_decisions
    from mutreal.operator_catalogue import load_catalogue

    operators = load_catalogue()
    decisions = load_decisions()
    assert decisions
    for d in decisions:
        assert all(tax.has_code(c) for c in d.codes), d.id
        assert all(op in operators for op in d.deepcrime), d.id
        assert len(d.simulable) in (0, len(d.codes)), d.id
        assert "\\n" not in d.buggy and "\\n" not in d.fixed
        assert Decision.from_dict(d.to_dict()) == d


def test_a_retired_leaf_keeps_its_id_but_stops_counting(tmp_path):
    """The README's policy for a spurious leaf: mark it retired, never delete or renumber."""
    import shutil

    from mutreal.label.taxonomy import load_taxonomy_from
    from mutreal.resources import data_dir

    folder = tmp_path / "taxonomy"
    shutil.copytree(data_dir("taxonomy"), folder)
    tree = folder / "tree.yaml"
    text = tree.read_text(encoding="utf-8")
    tree.write_text(
        text.replace("flag: count-suspect}", "flag: count-suspect, retired: true}", 1), encoding="utf-8"
    )
    tax = load_taxonomy_from(folder)
    assert tax.leaf_count == tax.paper_leaf_count == 92
    assert tax.leaf("L032").retired and tax.leaf("L032").name == "Tensor shape mismatch"
    assert len(tax.uncertain_leaves()) == 3


def test_extension_codes_are_kept_apart_from_the_study_codes(tax):
    """TAN has no study code; mutreal's extension row makes it a known code without changing the 56."""
    assert len(tax.fault_codes) == 56
    assert [fc.code for fc in tax.extension_codes] == ["TAN"]
    assert tax.has_code("TAN")
    assert tax.code("TAN").leaf == "Low quality training data"
    assert "TAN" not in tax.code_ids()
    study_ids = {fc.id for fc in tax.fault_codes}
    assert all(fc.id not in study_ids for fc in tax.extension_codes)
