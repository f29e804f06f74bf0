"""The shipped DeepCrime operator catalogue and the combinations frequency table."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mutreal.label.taxonomy import load_taxonomy
from mutreal.operator_catalogue import (
    PARAM_KINDS,
    Combination,
    OperatorSpec,
    count_combinations,
    load_catalogue,
    load_combinations,
    operators_for_code,
    read_combinations,
    value_lists,
)

ROOT = Path(__file__).parents[2]
DEV_SPLIT = Path("/work/shared/reference/dev_split.csv")
#: DeepCrime's operators in its Table 1 order (the catalogue keeps that order; the registry derives it)
ORDER = ["TCL", "TRD", "TUD", "TAN", "TCO", "HBS", "HLR", "HNE", "HDB", "ACH", "ARM", "AAL", "RAW", "RCW", "RRW", "RCD", "RCP", "WCI", "WAB", "WRB", "LCH", "OCH", "OCG", "VRM"]


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


def test_all_24_operators_in_table_order(cat):
    assert list(cat) == ORDER


def test_every_parameter_spec_is_valid(cat):
    for spec in cat.values():
        assert spec.scope in ("program", "layer")
        assert spec.elements, spec.id
        p = spec.param
        if p is None:
            assert spec.parameter_kind in ("none", "layer")
            continue
        assert p.kind in PARAM_KINDS and p.kind != "none", spec.id
        if p.kind == "categorical":
            assert p.values, spec.id
        elif p.kind in ("percentage", "continuous"):
            assert p.grid and p.min is not None, spec.id
        if p.kind == "percentage":
            assert p.min == 0 and p.max in (99, 100)
        if p.min is not None and p.max is not None:
            assert p.min < p.max
        original = 0.01 if p.grid_relative else None
        cands = p.candidates(original)
        assert cands, spec.id
        for value in cands:
            assert p.validate(value) == value, (spec.id, value)


def test_parameter_kinds(cat):
    kinds = {op: spec.parameter_kind for op, spec in cat.items()}
    assert kinds["HDB"] == "none" and kinds["VRM"] == "none"
    assert kinds["ARM"] == "layer" and kinds["WAB"] == "layer"
    assert kinds["ACH"] == "layer x categorical" and kinds["RCD"] == "layer x categorical"
    assert kinds["HBS"] == "categorical" and kinds["LCH"] == "categorical"
    assert kinds["HNE"] == "integer" and kinds["RCP"] == "integer"
    assert kinds["HLR"] == "continuous" and kinds["OCG"] == "continuous"
    assert all(kinds[t] == "percentage" for t in ("TCL", "TRD", "TUD", "TAN", "TCO"))


def test_deepcrime_value_lists(cat):
    assert cat["HBS"].param.values == (32, 64, 256, 512)
    assert cat["RCD"].param.values == (0.125, 0.25, 0.75, 1.0)
    assert len(cat["WCI"].param.values) == 13 and "glorot_uniform" in cat["WCI"].param.values
    assert len(cat["LCH"].param.values) == 13 and "categorical_crossentropy" in cat["LCH"].param.values
    assert cat["OCH"].param.values == ("sgd", "rmsprop", "adagrad", "adam", "adamax", "nadam", "adadelta")
    assert cat["RAW"].param.values == ("l1", "l2", "l1_l2")
    assert cat["RCP"].param.values == tuple(range(10, 0, -1))
    assert "softmax" in cat["ACH"].param.values and "linear" in cat["ACH"].param.values
    assert value_lists()["activations"] == list(cat["ACH"].param.values)


def test_directions_and_enabled(cat):
    assert {op for op, s in cat.items() if s.direction_deepcrime == "decrease"} == {"HLR", "HNE", "RCP"}
    assert {op for op, s in cat.items() if not s.deepcrime_enabled} == {"WAB", "RCW", "RRW", "RCP", "OCG"}
    defects = {op for op, s in cat.items() if s.deepcrime_defects}
    assert {"RCD", "OCG", "RRW", "TUD", "HLR"} <= defects


def test_elements_are_paths_of_the_shared_grammar(cat):
    from mutreal.program import model
    for spec in cat.values():
        for element in spec.elements:
            concrete = element.replace("[*]", "[0]")
            assert model.canonical_path(concrete) == concrete, element
            assert spec.matches_element(concrete)


def test_which_operators_change_an_element(cat):
    """``matches_element``: ``[*]`` is any index, ``compile``/``fit`` match every call (study/validate reads it)."""

    def changing(path: str) -> list[str]:
        return [s.id for s in cat.values() if s.matches_element(path)]

    assert changing("model[2].layer[7].activation") == ["ACH", "ARM", "AAL"]
    assert changing("compile[1].loss") == ["LCH"]
    assert changing("fit.batch_size") == ["HBS", "HDB"]
    assert changing("fit.callbacks.EarlyStopping.patience") == ["RCP"]
    assert changing("model[0].layer[1].units") == []
    assert changing("fitness.epochs") == []


def test_fault_codes_and_leaves_exist_in_the_taxonomy(cat):
    tax = load_taxonomy()
    for spec in cat.values():
        if spec.fault_code:
            assert spec.id in tax.code(spec.fault_code).operators, spec.id
        if spec.taxonomy_leaf_id:
            assert spec.taxonomy_leaf_id in tax.leaves
    assert [s.id for s in operators_for_code("ACH")] == ["ACH", "ARM", "AAL"]
    assert [s.id for s in operators_for_code("TRD")] == ["TRD", "TUD"]
    assert [s.id for s in operators_for_code("OCH")] == ["OCH", "OCG"]
    assert [s.id for s in operators_for_code("LRM")] == []
    # every operator listed by a fault code names that code back
    for fc in tax.fault_codes:
        for op in fc.operators:
            assert cat[op].fault_code == fc.code


def test_candidates_relative_grid_and_exclusion(cat):
    assert cat["HLR"].param.candidates(0.01) == [1e-05, 0.0001, 0.001, 0.1, 1.0]
    assert cat["HLR"].param.candidates(None) == []
    assert cat["HNE"].param.candidates(20) == [2, 5, 10, 40, 200]
    assert cat["HNE"].param.candidates(1) == [2, 10]  # 0.1x rounds up to 1 = the original, dropped
    assert 64 not in cat["HBS"].param.candidates(64)
    assert "relu" not in cat["ACH"].param.candidates("relu")
    assert cat["RCP"].param.candidates(3) == [10, 9, 8, 7, 6, 5, 4, 2, 1]


def test_validate_rejects_bad_values(cat):
    with pytest.raises(ValueError):
        cat["ACH"].param.validate("relux")
    with pytest.raises(ValueError):
        cat["HNE"].param.validate("2.5")
    with pytest.raises(ValueError):
        cat["TRD"].param.validate(100)
    with pytest.raises(ValueError):
        cat["HLR"].param.validate(0)
    assert cat["HBS"].param.validate("128") == 128
    assert cat["HLR"].param.validate("0.1") == 0.1


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6))
def test_percentage_range_property(x):
    p = load_catalogue()["TCL"].param
    ok = 0 < x <= 100
    if ok:
        assert p.validate(x) == x
    else:
        with pytest.raises(ValueError):
            p.validate(x)


def test_json_round_trip(cat):
    for spec in cat.values():
        assert OperatorSpec.from_dict(spec.to_dict()) == spec


# ---------------------------------------------------------------------------------- combinations


def test_count_combinations_small_example():
    bugs = [
        (["ACH", "ACH", "LCH", "LRM"], [True, True, True, False]),
        (["ACH", "LCH"], [True, True]),
        (["HNE"], [True]),
        (["CPP"], [False]),
    ]
    got = {c.codes: (c.support, c.exact, c.support_fully_simulable) for c in count_combinations(bugs)}
    assert got == {
        ("ACH",): (2, 0, 1),
        ("LCH",): (2, 0, 1),
        ("HNE",): (1, 1, 1),
        ("ACH", "ACH"): (1, 0, 0),
        ("ACH", "LCH"): (2, 1, 1),
        ("ACH", "ACH", "LCH"): (1, 1, 0),
    }
    with pytest.raises(ValueError):
        count_combinations([(["ACH"], [True, False])])


@given(
    st.lists(
        st.lists(st.tuples(st.sampled_from(["ACH", "LCH", "HNE", "HLR"]), st.booleans()), max_size=5),
        max_size=12,
    )
)
def test_support_is_anti_monotone(bugs):
    combos = count_combinations([([c for c, _ in b], [f for _, f in b]) for b in bugs])
    by_codes = {c.codes: c for c in combos}
    for c in combos:
        assert c.exact <= c.support and c.support_fully_simulable <= c.support
        for i in range(c.order):
            sub = c.codes[:i] + c.codes[i + 1 :]
            if sub:
                assert by_codes[sub].support >= c.support
    total_exact = sum(c.exact for c in combos)
    assert total_exact == sum(1 for b in bugs if any(f for _, f in b))


def test_shipped_combinations_table():
    combos = load_combinations()
    assert combos and all(isinstance(c, Combination) for c in combos)
    assert all(1 <= c.order <= 6 for c in combos)
    head = (ROOT / "operators" / "combinations.csv").read_text(encoding="utf-8")
    assert "dev split" in head.splitlines()[1]
    pairs = load_combinations(orders=[2])
    assert pairs[0].codes == ("ACH", "LCH")  # the study's most frequent pair
    assert [c.support for c in pairs] == sorted((c.support for c in pairs), reverse=True)
    ops = {s.fault_code for s in load_catalogue().values()}
    assert all(code in ops or code == "CPP" for c in combos for code in c.codes)


@pytest.mark.skipif(not DEV_SPLIT.exists(), reason="the study's dev split is not on this machine")
def test_shipped_table_regenerates_from_the_dev_split(tmp_path):
    out = tmp_path / "c.csv"
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "derive_combinations.py"), str(DEV_SPLIT), "--out", str(out)],
        check=True,
        capture_output=True,
    )
    assert read_combinations(out) == read_combinations(ROOT / "operators" / "combinations.csv")
    assert out.read_text() == (ROOT / "operators" / "combinations.csv").read_text()


def test_no_nan_in_grids(cat):
    for spec in cat.values():
        if spec.param:
            assert not any(isinstance(v, float) and math.isnan(v) for v in spec.param.grid)
