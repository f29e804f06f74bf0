"""Agreement figures: parity with the study's scoring script, kappa, per-code scores, two labellers."""

from __future__ import annotations

import contextlib
import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.commands.agree import agree
from mutreal.study.agree import Annotation, agree_files, cohen_kappa, compare, format_agreement
from mutreal.study.labelsfile import LabelledBug

CODES = ["ACH", "HLR", "HNE", "LCH", "CPP", "LRM", "OCH"]
SIMULABLE = {"ACH", "HLR", "HNE", "LCH", "OCH"}


def write_labels(path: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    import csv

    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "benchmark", "codes", "is_mutant"])
        w.writerows(rows)
    return path


def write_results(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def result(bug_id: str, codes: list[str], status: str = "ok", flags: list[bool] | None = None) -> dict:
    comps = []
    for i, code in enumerate(codes):
        comp = {"code": code, "deepcrime": code if code in SIMULABLE else None}
        if flags is not None:
            comp["simulable"] = flags[i]
        comps.append(comp)
    return {"id": bug_id, "benchmark": "B", "status": status, "order": len(comps), "components": comps}


def synthetic(seed: int, n: int = 40) -> tuple[list[tuple[str, str, str, str]], list[dict]]:
    """Labels in the study's sloppy format and results that partly agree with them."""
    rng = random.Random(seed)
    labels, results = [], []
    for i in range(n):
        bug = f"b{i}"
        codes = [rng.choice(CODES) for _ in range(rng.randint(0, 4))]
        notes = [f"{c} (note {j})" if rng.random() < 0.2 else c for j, c in enumerate(codes)]
        sep = rng.choice([", ", ",", " ,"])
        flags = [rng.choice("YN") for _ in codes]
        flag_text = "".join(f + rng.choice([",", ".", ", ", ";"]) for f in flags).rstrip(",.; ")
        if rng.random() < 0.1:
            flag_text = "Y"  # wrong count: flags unusable for that bug
        labels.append((bug, rng.choice(["B1", "B2"]), sep.join(notes), flag_text))
        r = rng.random()
        if r < 0.1:
            continue  # no result at all
        if r < 0.2:
            results.append(result(bug, [], status="error"))
            continue
        pred = [c for c in codes if rng.random() < 0.8] + [
            rng.choice(CODES) for _ in range(rng.randint(0, 1))
        ]
        rng.shuffle(pred)
        pflags = [rng.random() < 0.6 for _ in pred] if rng.random() < 0.5 else None
        results.append(result(bug, pred, flags=pflags))
    results.append(result("unlabelled", ["ACH"]))
    return labels, results


def run_script(script: Path, results: Path, labels: Path) -> dict:
    out = subprocess.run(
        [sys.executable, str(script), str(results), str(labels)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_same_numbers_as_the_scoring_script(score_script: Path, tmp_path: Path) -> None:
    labels, results = synthetic(seed=3)
    lp = write_labels(tmp_path / "labels.csv", labels)
    rp = write_results(tmp_path / "results.jsonl", results)
    theirs = run_script(score_script, rp, lp)
    ours = agree_files(rp, lp)
    assert ours.score_line() == theirs
    assert theirs["bugs"] > 20 and 0 < theirs["precision"] < 1 and theirs["not_ok"] > 0  # not degenerate
    cli = CliRunner().invoke(agree, [str(rp), str(lp), "--json"])
    assert cli.exit_code == 0
    summary = json.loads(cli.stdout)["summary"]
    assert {k: summary[k] for k in theirs} == theirs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), n=st.integers(1, 25))
def test_same_numbers_as_the_scoring_script_property(score_module, tmp_path: Path, seed: int, n: int) -> None:
    labels, results = synthetic(seed, n)
    lp = write_labels(tmp_path / "labels.csv", labels)
    rp = write_results(tmp_path / "results.jsonl", results)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        score_module.main(str(rp), str(lp))
    assert agree_files(rp, lp).score_line() == json.loads(buffer.getvalue())


def test_per_bug_per_code_confusion_and_disagreements(tmp_path: Path) -> None:
    lp = write_labels(
        tmp_path / "l.csv",
        [
            ("a", "B", "ACH, ACH, LRM (flatten layer)", "Y, Y, N"),
            ("b", "B", "HLR", "Y"),
            ("c", "B", "HNE", "Y"),
            ("d", "B", "CPP", "N"),
            ("e", "B", "", ""),  # no code: not scored
        ],
    )
    rp = write_results(
        tmp_path / "r.jsonl",
        [result("a", ["ACH", "HLR"]), result("b", ["HNE"]), result("c", ["HNE"]), result("d", [], "error")],
    )
    ag = agree_files(rp, lp)
    a = ag.bugs[0]
    assert (a.matched, a.missing, a.extra, a.exact) == (1, ["ACH", "LRM"], ["HLR"], False)
    assert a.multiset_f1 == pytest.approx(2 / 5)
    assert a.labelled_text == "ACH, ACH, LRM (flatten layer)"
    scores = {c.code: c for c in ag.codes}
    assert (scores["ACH"].precision, scores["ACH"].recall) == (1.0, 0.5)
    assert scores["HNE"].precision == 0.5 and scores["HNE"].recall == 1.0
    assert scores["HLR"].matched == 0 and scores["HLR"].f1 == 0.0
    assert ag.confusion == {"HLR": {"HNE": 1}, "HNE": {"HNE": 1}}  # d has no ok prediction
    assert [b.id for b in ag.disagreeing] == ["a", "b", "d"] and ag.not_ok == ["d"]
    assert ag.exact == pytest.approx(1 / 4)
    text = format_agreement(ag)
    assert "a: ACH, ACH, LRM (flatten layer) | ACH, HLR" in text and "d: CPP | [error" in text


def test_kappa_matches_sklearn() -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(7)
    a = [rng.random() < 0.3 for _ in range(200)]
    b = [x if rng.random() < 0.8 else not x for x in a]
    ours, n = cohen_kappa(zip(a, b, strict=True))
    assert n == 200
    assert ours == pytest.approx(sklearn_metrics.cohen_kappa_score(a, b))
    assert cohen_kappa([(True, True)] * 5) == (None, 5)  # chance agreement 1: undefined
    assert cohen_kappa([]) == (None, 0)


def test_kappa_over_bug_code_presence() -> None:
    ref = [LabelledBug("x", ["ACH"], [True]), LabelledBug("y", ["HLR"], [True])]
    same = compare(ref, [Annotation("x", ["ACH"], [True]), Annotation("y", ["HLR"], [True])])
    assert same.kappa == pytest.approx(1.0) and same.kappa_decisions == 4
    swapped = compare(ref, [Annotation("x", ["HLR"], [True]), Annotation("y", ["ACH"], [True])])
    assert swapped.kappa == pytest.approx(-1.0)


def test_two_labellers(tmp_path: Path) -> None:
    first = write_labels(
        tmp_path / "a.csv", [("p", "B", "ACH, HNE", "Y,Y"), ("q", "B", "LRM (flatten)", "N")]
    )
    second = write_labels(
        tmp_path / "b.csv", [("p", "B", "ACH,HNE", "Y.N"), ("q", "B", "LCN", "N"), ("r", "B", "X", "N")]
    )
    ag = agree_files(second, first)
    assert ag.mode == "labels"
    assert ag.score_line()["precision"] == round(2 / 3, 3) and ag.exact == 0.5
    assert ag.flag_agreement == 0.5 and ag.unlabelled == ["r"] and ag.unknown == {"X": ["r"]}
    assert [b.predicted_text for b in ag.bugs] == ["ACH, HNE", "LCN"]
    assert "labeller B" in CliRunner().invoke(agree, [str(second), str(first)]).stdout


def test_unreadable_result_lines_are_listed_and_exit_1(tmp_path: Path) -> None:
    lp = write_labels(tmp_path / "l.csv", [("a", "B", "ACH", "Y")])
    rp = tmp_path / "r.jsonl"
    rp.write_text(json.dumps(result("a", ["ACH"])) + "\n{broken\n")
    out = CliRunner().invoke(agree, [str(rp), str(lp), "--json"])
    assert out.exit_code == 1
    data = json.loads(out.stdout)
    assert data["summary"]["exact"] == 1.0 and data["problems"][0]["line"] == 2
    roundtrip = type(agree_files(rp, lp)).from_dict(data)
    assert roundtrip.score_line() == agree_files(rp, lp).score_line()


def test_bad_labels_file_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("id,benchmark\nx,y\n")
    rp = write_results(tmp_path / "r.jsonl", [result("x", ["ACH"])])
    out = CliRunner().invoke(agree, [str(rp), str(bad)])
    assert out.exit_code == 2 and "codes" in out.output


def test_disjoint_ids_warn_on_stderr(tmp_path: Path) -> None:
    lp = write_labels(tmp_path / "l.csv", [("a", "B", "ACH", "Y")])
    rp = write_results(tmp_path / "r.jsonl", [result("Other:1", ["ACH"])])
    out = CliRunner().invoke(agree, [str(rp), str(lp), "--json"])
    assert out.exit_code == 0
    assert "no id of" in out.stderr and "'Other:1'" in out.stderr
    json.loads(out.stdout)
    matching = CliRunner().invoke(
        agree, [str(write_results(tmp_path / "m.jsonl", [result("a", ["ACH"])])), str(lp)]
    )
    assert "warning" not in matching.stderr
