"""Checks of the own corpus in benchmarks/corpus: files, labels and the coverage it promises.

The corpus is the regression set that `mutreal classify` is scored on; a broken path, a pair whose
sides are identical, a label row that drifts from the manifest or a fault pattern that silently loses
its second code style would make that score meaningless, so these are checked on the files alone
(no classification, no TensorFlow).
"""

from __future__ import annotations

import ast
import csv
import re
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus"


def _words(text: str) -> list[str]:
    return text.split()


# The study's reading of which fault components a DeepCrime operator can inject (RQ4).
DEEPCRIME_Y = set(_words("HLR HNE HBS ACH LCH OCH WCI RAW RCW RCD RCP VRM WAB WRB TRD TCL"))
DEEPCRIME_N = set(_words("LRM LAD LCN LCF LIS CPP MWA IWF LWS ISL IWS TWS LDM"))

# Fault patterns the corpus promises, each in at least two code styles (benchmark groups).
PROMISED_PATTERNS = _words(
    "ACH LCH HLR HNE HBS CPP LRM LAD LCN LCF LIS OCH RAW RCW WCI RCD RCP VRM WAB WRB TRD"
)
STYLES = {"own-keras1", "own-keras2", "own-tfkeras", "own-functional"}


def _codes(cell: str) -> list[str]:
    """'CPP (labels no encoding), HNE' -> ['CPP', 'HNE'] (the study's notes in parentheses dropped)."""
    return [p.strip().upper() for p in re.sub(r"\([^)]*\)", "", cell or "").split(",") if p.strip()]


def _flags(cell: str) -> list[str]:
    return [p.strip().upper() for p in (cell or "").split(",") if p.strip()]


def _read(name: str) -> list[dict[str, str]]:
    with open(CORPUS / name, newline="") as fh:
        return list(csv.DictReader(fh))


MANIFEST = _read("manifest.csv")
LABELS = {row["id"]: row for row in _read("labels.csv")}


def _side_files(row: dict[str, str], side: str) -> list[Path]:
    return [CORPUS / p for p in row[side].split(";")]


def test_manifest_has_header_and_unique_ids() -> None:
    assert list(MANIFEST[0].keys()) == ["id", "benchmark", "buggy", "fixed"]
    ids = [row["id"] for row in MANIFEST]
    assert len(ids) == len(set(ids))


def test_manifest_paths_exist_and_stay_inside_the_corpus() -> None:
    for row in MANIFEST:
        for side in ("buggy", "fixed"):
            for path in _side_files(row, side):
                assert path.is_file(), f"{row['id']}: missing {path}"
                assert CORPUS in path.resolve().parents
                assert f"/{side}/" in path.as_posix(), f"{row['id']}: {side} file outside its side folder"


def test_every_pair_differs_between_sides() -> None:
    for row in MANIFEST:
        buggy = [p.read_text() for p in _side_files(row, "buggy")]
        fixed = [p.read_text() for p in _side_files(row, "fixed")]
        assert buggy != fixed, f"{row['id']}: buggy and fixed are identical"


def test_every_program_parses_as_python3() -> None:
    files = sorted(CORPUS.rglob("*.py"))
    assert len(files) >= 132
    for path in files:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            ast.parse(path.read_text(), filename=str(path))


def test_no_program_file_is_left_out_of_the_manifest() -> None:
    listed = {
        (CORPUS / p).resolve()
        for row in MANIFEST
        for side in ("buggy", "fixed")
        for p in row[side].split(";")
    }
    on_disk = {p.resolve() for p in CORPUS.rglob("*.py")}
    assert on_disk == listed


def test_labels_cover_exactly_the_manifest() -> None:
    assert set(LABELS) == {row["id"] for row in MANIFEST}
    for row in MANIFEST:
        assert LABELS[row["id"]]["benchmark"] == row["benchmark"]


def test_flags_match_codes_and_the_study_reading() -> None:
    for pid, row in LABELS.items():
        codes, flags = _codes(row["codes"]), _flags(row["is_mutant"])
        assert len(codes) == len(flags), f"{pid}: {len(codes)} codes but {len(flags)} flags"
        for code, flag in zip(codes, flags, strict=True):
            assert flag in {"Y", "N"}, pid
            if code in DEEPCRIME_Y:
                assert flag == "Y", f"{pid}: {code} is simulable in the study's reading"
            elif code in DEEPCRIME_N:
                assert flag == "N", f"{pid}: {code} has no DeepCrime operator"


def test_size_and_base_programs() -> None:
    assert len(MANIFEST) >= 66
    # ids are <style>-<base program>-<fault>; style and base together name the base program
    bases = {"-".join(row["id"].split("-")[:2]) for row in MANIFEST}
    assert len(bases) >= 22
    assert {row["benchmark"] for row in MANIFEST} == STYLES


@pytest.mark.parametrize("code", PROMISED_PATTERNS)
def test_each_fault_pattern_appears_in_at_least_two_styles(code: str) -> None:
    styles = {row["benchmark"] for row in LABELS.values() if code in _codes(row["codes"])}
    assert len(styles) >= 2, f"{code} only in {sorted(styles)}"


def test_orders_zero_to_six_are_present() -> None:
    orders = Counter(len(_codes(row["codes"])) for row in LABELS.values())
    assert orders[0] >= 6, "at least 6 noise-only pairs"
    for order in range(1, 7):
        assert orders[order] >= 1, f"no pair of order {order}"


def test_noise_only_pairs_span_several_styles() -> None:
    styles = defaultdict(int)
    for pid, row in LABELS.items():
        if not _codes(row["codes"]):
            assert not _flags(row["is_mutant"])
            styles[row["benchmark"]] += 1
        assert ("-noise" in pid) == (not _codes(row["codes"])), f"{pid}: noise-only ids are named *-noise*"
    assert len(styles) >= 3


def test_layout_variants_are_present() -> None:
    multi_file = [row for row in MANIFEST if ";" in row["buggy"]]
    assert len(multi_file) >= 2
    for row in multi_file:
        buggy, fixed = _side_files(row, "buggy"), _side_files(row, "fixed")
        assert len(buggy) == len(fixed)
        changed = [b.name for b, f in zip(buggy, fixed, strict=True) if b.read_text() != f.read_text()]
        assert len(changed) == 1, f"{row['id']}: exactly one file of a multi-file pair differs"
    renamed = [
        row
        for row in MANIFEST
        if [p.name for p in _side_files(row, "buggy")] != [p.name for p in _side_files(row, "fixed")]
    ]
    assert len(renamed) >= 2
