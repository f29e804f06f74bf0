"""The arithmetic of benchmarks/classify_ceiling.py on a hand-made three-bug results/labels pair."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "classify_ceiling.py"


@pytest.fixture(scope="module")
def ceiling_mod():
    spec = importlib.util.spec_from_file_location("classify_ceiling", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script runs
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def _comp(code: str, element: str, change: str, before: str | None, after: str | None) -> dict:
    return {
        "code": code,
        "simulable": False,
        "element": element,
        "change": change,
        "before": before,
        "after": after,
    }


@pytest.fixture
def files(tmp_path):
    rows = [
        {
            "id": "a",
            "benchmark": "X",
            "status": "ok",
            "components": [
                _comp("HNE", "fit.epochs", "changed", "100", "1"),
                _comp("CPP", "data.x_train.preprocess[0]", "added", None, "x / 255.0"),
                _comp("LCN", "model[0].layer[2].units", "changed", "8", "16"),
            ],
        },
        {
            "id": "b",
            "benchmark": "X",
            "status": "ok",
            "components": [
                _comp("ACH", "model[0].layer[1].activation", "changed", "'relu'", "'softmax'"),
                _comp("HNE", "fit.epochs", "changed", "20", "1"),
            ],
        },
        {
            "id": "c",
            "benchmark": "Y",
            "status": "ok",
            "components": [
                _comp("LCN", "model[0].layer[0].units", "changed", "4", "2"),
                _comp("LCN", "model[0].layer[1].units", "changed", "3", "1"),
                _comp("LCN", "model[1].layer[0].units", "changed", "5", "9"),
            ],
        },
        {
            "id": "unlabelled",
            "benchmark": "Y",
            "status": "ok",
            "components": [
                _comp("HBS", "fit.batch_size", "changed", "32", "1"),
            ],
        },
    ]
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "id,benchmark,codes,is_mutant\n"
        'a,X,"HNE, CPP","Y,N"\n'
        "b,X,ACH,Y\n"
        'c,Y,"LCN, LCN (two layers)","N,N"\n'
        "unlabelled,Y,,\n"
    )
    return str(results), str(labels)


def test_signatures_drop_indices_and_name_the_change(ceiling_mod):
    assert ceiling_mod.element_kind("model[0].layer[3].units") == "model.layer.units"
    assert ceiling_mod.element_kind("data.y_train.preprocess[2]") == "data.y_train.preprocess"
    kind = ceiling_mod.change_kind
    assert [kind("changed", "100", "1"), kind("changed", "2", "8"), kind("changed", "0.1", "0.01")] == [
        "set-to-1",
        "increased",
        "decreased",
    ]
    assert kind("added", None, "x") == "added" and kind("removed", "x", None) == "removed"
    assert kind("changed", "epochs", "epochs") == "other" and kind("changed", "1", "1") == "other"


def test_matched_and_extra_per_signature_follow_the_multiset_score(ceiling_mod, files):
    bugs = ceiling_mod.load(*files)
    assert [b.id for b in bugs] == ["a", "b", "c"]  # a bug with no labelled code is not scored
    assert ceiling_mod.score(bugs) == (5, 8, 5)
    table = {str(s): v for s, v in ceiling_mod.attribute(bugs).items()}
    assert table["HNE fit.epochs set-to-1"] == [1.0, 1.0]
    assert table["CPP data.x_train.preprocess added"] == [1.0, 0.0]
    matched, extra = table["LCN model.layer.units increased"]  # bug a: extra; bug c: 2 of 3 LCN match
    assert matched == pytest.approx(2 / 3) and extra == pytest.approx(4 / 3)
    total = sum(m + x for m, x in table.values())
    assert total == pytest.approx(8) and sum(m for m, _ in table.values()) == pytest.approx(5)


def test_ceiling_drops_whole_signatures_within_the_recall_floor(ceiling_mod, files):
    bugs = ceiling_mod.load(*files)
    top = ceiling_mod.ceiling(bugs, 0.85)
    assert (top.baseline_precision, top.baseline_recall) == (0.625, 1.0)
    assert top.precision == pytest.approx(5 / 6) and top.recall == 1.0 and top.exact
    assert [str(s) for s in top.dropped] == ["LCN model.layer.units increased"]
    low = ceiling_mod.ceiling(bugs, 0.8)  # dropping the epochs-to-1 signature costs one match
    assert (low.precision, low.recall) == (1.0, 0.8)
    assert {str(s) for s in low.dropped} >= {"HNE fit.epochs set-to-1", "LCN model.layer.units increased"}
    greedy = ceiling_mod.ceiling(bugs, 0.8, exact_limit=0)
    assert not greedy.exact and (greedy.precision, greedy.recall) == (1.0, 0.8)


def test_per_benchmark_ceilings_and_cli(ceiling_mod, files, capsys):
    rep = ceiling_mod.report(ceiling_mod.load(*files), 0.85)
    assert rep["benchmarks"]["X"]["precision"] == 0.75 and rep["benchmarks"]["X"]["recall"] == 1.0
    assert rep["benchmarks"]["Y"]["precision"] == 1.0 and len(rep["benchmarks"]["Y"]["dropped"]) == 1
    assert ceiling_mod.main([*files, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["precision"] == 0.833
    assert ceiling_mod.main(list(files)) == 0
    assert "ceiling P=0.833 R=1.000" in capsys.readouterr().out
