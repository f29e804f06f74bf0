"""hom-generate: which HOMs are built from known combination frequencies, in which order, with
which values; orders 2 to 4 on own and shared subjects whose classify components equal their
provenance; skipped combinations; determinism; the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hom_subjects import FUNCTIONAL, component, result_row, sequential, write, write_results
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.cli import main
from mutreal.label.classify import classify_pair
from mutreal.label.mining import Combination, frequent_combinations
from mutreal.mutation.hom import (
    SHIPPED_SOURCE,
    CombinationSource,
    HomRecord,
    HomReport,
    _masks_lower_order,
    build_homs,
    hom_generate,
    mutation_operator,
    parse_orders,
)
from mutreal.mutation.operators import MutationError, Program, apply_edits, registry
from mutreal.mutation.operators.agreement import compare_components

SUBJECTS_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "subjects_mutation"

LAST = "model[0].layer[3].activation"
HIDDEN = "model[0].layer[1].activation"


def _ach_last() -> dict:
    return component("ACH", LAST, buggy="'sigmoid'", fixed="'softmax'")


def _ach_hidden() -> dict:
    return component("ACH", HIDDEN, buggy="'tanh'", fixed="'relu'")


def _lch() -> dict:
    return component("LCH", "compile.loss", buggy="'binary_crossentropy'", fixed="'categorical_crossentropy'")


def _hlr() -> dict:  # the buggy learning rate is 100 times the fixed one
    return component("HLR", "compile.optimizer.learning_rate", buggy="0.1", fixed="0.001")


def _hne() -> dict:  # the buggy program trains a tenth of the epochs
    return component("HNE", "fit.epochs", buggy="1", fixed="10")


def synthetic_rows() -> list[dict]:
    rows = []
    rows += [result_row(f"A{i}", [_ach_last(), _lch()]) for i in range(5)]
    rows += [result_row(f"B{i}", [_hlr(), _hne()]) for i in range(3)]
    rows += [result_row(f"C{i}", [_ach_last(), _ach_hidden(), _hlr(), _lch()]) for i in range(2)]
    rows += [result_row(f"I{i}", [_ach_last(), _ach_hidden(), _lch(), _hne()]) for i in range(2)]
    rows.append(
        result_row(
            "D",
            [
                component("HBS", "fit.batch_size", "8", "32"),
                component("HBS", "fit[1].batch_size", "8", "32"),
            ],
        )
    )
    rows.append(result_row("E", [_lch()]))
    rows.append(result_row("F", [_ach_last(), component("LAD", "model[0].layer[2]", None, "x", None, False)]))
    rows.append(result_row("G", [_lch(), component("CPP", "data.x_train.preprocess", None, "x")]))
    rows.append({"id": "H", "status": "error", "error": "cannot parse", "components": []})
    return rows


#: (codes, support) in the order hom-generate must build them: support, then order, then codes
EXPECTED = [
    (["ACH", "LCH"], 9),
    (["ACH", "ACH"], 4),
    (["ACH", "ACH", "LCH"], 4),
    (["HLR", "HNE"], 3),
    (["ACH", "HLR"], 2),
    (["ACH", "HNE"], 2),
    (["HLR", "LCH"], 2),
    (["HNE", "LCH"], 2),
    (["ACH", "ACH", "HLR"], 2),
    (["ACH", "ACH", "HNE"], 2),
    (["ACH", "HLR", "LCH"], 2),
    (["ACH", "HNE", "LCH"], 2),
    (["ACH", "ACH", "HLR", "LCH"], 2),
    (["ACH", "ACH", "HNE", "LCH"], 2),
]


@pytest.fixture
def results(tmp_path: Path) -> str:
    return write_results(tmp_path / "results.jsonl", synthetic_rows())


def _combos(report: HomReport) -> list[tuple[list[str], int]]:
    return [(sorted(h.codes), h.support) for h in report.homs]


def test_builds_the_mined_combinations_most_frequent_first(sequential_subject: str, results: str) -> None:
    report = hom_generate(sequential_subject, results=results, orders=[2, 3, 4], top=50)
    assert _combos(report) == EXPECTED
    assert [h.rank for h in report.homs] == list(range(1, len(EXPECTED) + 1))
    skipped = {tuple(s.codes): s.reason for s in report.skipped}
    assert list(skipped) == [("CPP", "LCH"), ("HBS", "HBS")]
    assert "no operator for CPP" in skipped[("CPP", "LCH")]
    assert "twice" in skipped[("HBS", "HBS")]  # the subject has one batch size
    assert "mined from" in report.source


def test_top_and_orders_select(sequential_subject: str, results: str) -> None:
    assert _combos(hom_generate(sequential_subject, results=results, top=3)) == EXPECTED[:3]
    only3 = hom_generate(sequential_subject, results=results, orders=[3], top=50)
    assert _combos(only3) == [c for c in EXPECTED if len(c[0]) == 3]


def test_values_come_from_the_real_faults(sequential_subject: str, results: str) -> None:
    report = hom_generate(sequential_subject, results=results, top=50)
    first = {p.operator: p for p in report.homs[0].provenance.parts}
    # softmax replaced by sigmoid on the last layer; the same loss the real faults used
    assert first["ACH"].element == LAST and first["ACH"].value == "sigmoid"
    assert first["LCH"].value == "binary_crossentropy"
    assert {o.kind for o in report.homs[0].origins} == {"real_fault"}
    second = next(h for h in report.homs if sorted(h.codes) == ["HLR", "HNE"])
    parts = {p.operator: (p, o) for p, o in zip(second.provenance.parts, second.origins, strict=True)}
    hlr, hlr_origin = parts["HLR"]
    assert hlr.value == pytest.approx(0.1) and hlr_origin.ratio == pytest.approx(100)  # 0.001 x 100
    hne, hne_origin = parts["HNE"]
    assert hne.value == 2 and hne_origin.ratio == pytest.approx(0.1)  # 20 epochs x 0.1
    # two activation faults take the two real edits, each at the layer holding its original value
    four = next(
        h
        for h in report.homs + hom_generate(sequential_subject, results=results, top=50).homs
        if h.order == 4
    )
    ach = sorted((p.element, p.value) for p in four.provenance.parts if p.operator == "ACH")
    assert ach == [(HIDDEN, "tanh"), (LAST, "sigmoid")]


def _subjects(tmp_path: Path) -> list[str]:
    own = [write(tmp_path / "own_seq.py", sequential()), write(tmp_path / "own_fun.py", FUNCTIONAL)]
    # the subjects whose arrays reach fit directly; those behind generators, Sequences, tf.data and
    # several inputs (and their helper module digit_batches.py) have their own round trip in
    # tests/operators/test_new_sites.py
    shared = [str(SUBJECTS_DIR / f"{name}.py") for name in ("cnn", "functional_tfkeras", "seq_keras2_legacy")]
    return own + shared


@pytest.mark.slow
def test_homs_of_orders_2_to_4_round_trip_through_classify(tmp_path: Path, results: str) -> None:
    for subject in _subjects(tmp_path):
        out = tmp_path / "homs" / Path(subject).stem
        report = hom_generate(subject, results=results, orders=[2, 3, 4], top=50, out_dir=str(out))
        assert {h.order for h in report.homs} == {2, 3, 4}, (subject, [s.to_dict() for s in report.skipped])
        for hom in report.homs:
            assert hom.file is not None and Path(hom.file).is_file()
            prov = json.loads(Path(hom.file).with_suffix(".json").read_text(encoding="utf-8"))
            again = HomRecord.from_dict(prov)
            assert again.provenance.to_dict() == hom.provenance.to_dict()
            assert prov["combination"]["codes"] == sorted(hom.codes)
            assert all(p["components"] and p["value_origin"]["kind"] for p in prov["parts"])
            # each part carries the provenance of its own first-order mutant
            for part in prov["parts"]:
                fom = part["first_order"]
                assert fom["order"] == 1 and fom["operator"] == part["operator"]
                assert (
                    fom["components"] == part["components"]
                    and fom["original_sha256"] == prov["original_sha256"]
                )
            found = classify_pair(subject, hom.file).components
            agreement = compare_components(again.provenance.components, found)
            assert agreement.ok, f"{hom.file}: {agreement.describe()}"


def test_a_masked_edit_is_a_lower_order(sequential_subject: str) -> None:
    # OCH rewrites the optimizer call the learning rate is an argument of: HLR's edit would vanish
    program = Program.from_file(sequential_subject)
    och, hlr = registry.get("OCH"), registry.get("HLR")
    edits = [och.apply(program, 0, "sgd"), hlr.apply(program, 0, 0.1)]
    # strict: the operators refuse overlapping edits outright
    with pytest.raises(MutationError, match="overlap"):
        apply_edits(program, edits, strict=True)
    # not strict (as hom-generate calls it): the outer edit wins and the masked one is detected
    mutant = apply_edits(program, edits)
    why = _masks_lower_order(program, edits, mutant)
    assert why is not None and "HLR" in why
    # so a HOM {HLR, OCH} realises the optimizer fault with OCG (clipping) instead
    report = build_homs(
        program, [CombinationSource(Combination(("HLR", "OCH"), 4))], source="test", top=5, orders=[2]
    )
    assert sorted(p.operator for p in report.homs[0].provenance.parts) == ["HLR", "OCG"]


def test_an_edit_undone_by_the_model_is_a_lower_order(sequential_subject: str) -> None:
    # the batch size written as the value the program already has: the file changes, the model not
    program = Program.from_file(sequential_subject)
    hbs, hne = registry.get("HBS"), registry.get("HNE")
    site = hbs.sites(program)[0]
    edit = hbs.apply(program, site, 64)
    edit.changes[0].code = "32 * 1"  # same value, different text: visible in the file only
    mutant = apply_edits(program, [edit, hne.apply(program, 0, 2)])
    why = _masks_lower_order(program, [edit, hne.apply(program, 0, 2)], mutant)
    assert why is not None and "HBS" in why


def test_deterministic_for_a_seed(sequential_subject: str, tmp_path: Path) -> None:
    a = hom_generate(sequential_subject, seed=7, out_dir=str(tmp_path / "a"))
    b = hom_generate(sequential_subject, seed=7, out_dir=str(tmp_path / "b"))
    assert a.source == SHIPPED_SOURCE
    assert [h.code for h in a.homs] == [h.code for h in b.homs] and a.homs
    assert [h.provenance.to_dict() for h in a.homs] == [h.provenance.to_dict() for h in b.homs]
    assert {o.kind for h in a.homs for o in h.origins} <= {"catalogue", "none"}
    files_a = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files_a == sorted(p.name for p in (tmp_path / "b").iterdir())


def test_report_round_trip(sequential_subject: str, results: str) -> None:
    report = hom_generate(sequential_subject, results=results, top=4)
    data = json.loads(json.dumps(report.to_dict(), default=str))
    assert HomReport.from_dict(data).to_dict() == data


def test_parse_orders() -> None:
    assert parse_orders("2..4") == [2, 3, 4]
    assert parse_orders("3") == [3]
    assert parse_orders("2,4") == [2, 4]
    for bad in ("1..3", "4..2", "x"):
        with pytest.raises(ValueError):
            parse_orders(bad)


def test_cli(sequential_subject: str, results: str, tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["hom-generate", sequential_subject, "--out", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    assert "shipped table" in res.output
    res = runner.invoke(
        main,
        ["hom-generate", sequential_subject, "--from", results, "--order", "2..3", "--top", "2", "--json",
         "--out", str(tmp_path / "m")],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [sorted(h["combination"]["codes"]) for h in data["homs"]] == [c for c, _ in EXPECTED[:2]]
    res = runner.invoke(main, ["hom-generate", sequential_subject, "--order", "1..9"])
    assert res.exit_code == 2
    labels = tmp_path / "labels.csv"
    labels.write_text("id,codes,is_mutant\nb1,ACH,Y\n")
    res = runner.invoke(
        main, ["hom-generate", sequential_subject, "--from", str(labels), "--out", str(tmp_path / "l")]
    )
    assert res.exit_code == 2 and "not a results JSONL" in res.output
    res = runner.invoke(main, ["hom-generate", sequential_subject, "--out", str(labels)])
    assert res.exit_code == 2 and "is a file" in res.output
    assert not (tmp_path / "l").exists()


def test_mutation_operator_reads_activation_faults_in_the_mutation_direction() -> None:
    # results rows are classified buggy -> fixed; the HOM turns the fixed value into the buggy one
    assert mutation_operator("ACH", fixed="'relu'", buggy="'linear'", labelled="AAL") == "ARM"
    assert mutation_operator("ACH", fixed=None, buggy="'relu'", labelled="ARM") == "AAL"
    assert mutation_operator("ACH", fixed="'relu'", buggy="tf.nn.tanh", labelled="ACH") == "ACH"
    assert mutation_operator("HLR", fixed="0.1", buggy="0.01", labelled="HLR") == "HLR"


POOL = ["ACH", "LCH", "HLR", "HNE", "HBS"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(POOL), min_size=1, max_size=4), min_size=1, max_size=8))
def test_homs_follow_support_and_never_touch_an_element_twice(
    sequential_subject: str, tmp_path: Path, bugs: list[list[str]]
) -> None:
    examples = {
        "ACH": _ach_last,
        "LCH": _lch,
        "HLR": _hlr,
        "HNE": _hne,
        "HBS": lambda: component("HBS", "fit.batch_size", "8", "32"),
    }
    rows = [result_row(f"R{i}", [examples[c]() for c in bug]) for i, bug in enumerate(bugs)]
    results = write_results(tmp_path / "r.jsonl", rows)
    report = hom_generate(sequential_subject, results=results, orders=[2, 3, 4], top=None)
    supports = [h.support for h in report.homs]
    assert supports == sorted(supports, reverse=True)
    mined = {tuple(c.codes): c.support for c in frequent_combinations(bugs, 2, 4)}
    for hom in report.homs:
        assert mined[tuple(sorted(hom.codes))] == hom.support
        elements = [e for p in hom.provenance.parts for e in [c.element for c in p.components]]
        assert len(elements) == len(set(elements))
    built = {tuple(sorted(h.codes)) for h in report.homs} | {tuple(s.codes) for s in report.skipped}
    assert built == set(mined)  # every mined combination is built or skipped with a reason
