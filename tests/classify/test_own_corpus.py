"""The own corpus (benchmarks/corpus) scored as a regression test of `mutreal classify`.

Same figures as the study's scoring script (mutreal.study.agree reproduces them); the thresholds are the
dev-corpus targets of issue 2, which the own corpus, labelled by its authors, must clear.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mutreal.label.classify import classify_manifest
from mutreal.study.agree import agree_files

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus"


@pytest.mark.slow  # classifies ~95 pairs: several seconds
def test_own_corpus_scores(tmp_path):
    out = tmp_path / "own.jsonl"
    with open(out, "w", encoding="utf-8") as handle:
        bugs, failed = classify_manifest(CORPUS / "manifest.csv", handle, progress=False)
    assert bugs >= 60 and failed == 0
    agreement = agree_files(out, CORPUS / "labels.csv")
    assert agreement.precision >= 0.9, agreement.precision
    assert agreement.recall >= 0.9, agreement.recall
    assert agreement.flag_agreement >= 0.9, agreement.flag_agreement
