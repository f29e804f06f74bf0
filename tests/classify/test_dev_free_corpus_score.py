"""The repository's own corpus (benchmarks/corpus) scored as a regression test, needing no dev corpus.

Scored twice: with :func:`mutreal.study.agree.agree_files` (the same figures as the study's scoring
script) and, where the shared tools folder sits beside the clone (CI), with
``../shared/tools/score_classify.py`` itself, so the two cannot drift apart unnoticed. The noise-only
pairs (labels with no codes) must come back ``ok`` with order 0: every difference in them is noise.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.label.classify import classify_manifest
from mutreal.study.agree import agree_files

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "benchmarks" / "corpus"
SHARED_SCORER = ROOT.parent / "shared" / "tools" / "score_classify.py"
THRESHOLD = 0.95


@pytest.fixture(scope="module")
def own_results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("own") / "own.jsonl"
    with open(out, "w", encoding="utf-8") as handle:
        bugs, failed = classify_manifest(CORPUS / "manifest.csv", handle, progress=False)
    assert bugs >= 60 and failed == 0
    return out


def _noise_only_ids() -> list[str]:
    with open(CORPUS / "labels.csv", newline="", encoding="utf-8") as handle:
        return [row["id"] for row in csv.DictReader(handle) if not row["codes"].strip()]


@pytest.mark.slow  # classifies ~95 pairs: several seconds
def test_own_corpus_scores_with_agree(own_results):
    agreement = agree_files(own_results, CORPUS / "labels.csv")
    assert agreement.precision >= THRESHOLD, agreement.precision
    assert agreement.recall >= THRESHOLD, agreement.recall
    assert agreement.flag_agreement >= 0.9, agreement.flag_agreement


@pytest.mark.slow
@pytest.mark.skipif(
    not SHARED_SCORER.exists(), reason="../shared/tools/score_classify.py not beside the clone"
)
def test_own_corpus_scores_with_shared_scorer(own_results):
    done = subprocess.run(
        [sys.executable, str(SHARED_SCORER), str(own_results), str(CORPUS / "labels.csv")],
        capture_output=True,
        text=True,
        check=True,
    )
    score = json.loads(done.stdout.strip().splitlines()[-1])
    assert score["not_ok"] == 0, score
    assert score["precision"] >= THRESHOLD and score["recall"] >= THRESHOLD, score
    assert score["flag_agreement"] >= 0.9, score
    agreement = agree_files(own_results, CORPUS / "labels.csv")
    assert round(agreement.precision, 3) == score["precision"]
    assert round(agreement.recall, 3) == score["recall"]


@pytest.mark.slow
def test_noise_only_pairs_are_ok_with_order_zero(own_results):
    noise = _noise_only_ids()
    assert len(noise) >= 8
    rows = {}
    for line in own_results.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows[row["id"]] = row
    for bug_id in noise:
        row = rows[bug_id]
        assert row["status"] == "ok", (bug_id, row["error"])
        assert row["order"] == 0, (bug_id, [(c["element"], c["code"]) for c in row["components"]])
