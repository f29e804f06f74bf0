"""Reading Ahmed et al.'s published per-mutant figures, and naming their bugs in a runtime manifest.

The files here are written by the tests in their published format (a row per mutant, one fault
column, cells ``value (reliable)``); nothing of theirs is copied."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mutreal.study.published_realism import (
    PublishedError,
    PublishedMutant,
    Snapshot,
    first_present,
    numbered_rows,
    parse_cell,
    published_bugs,
    read_bug,
    runtime_ids,
)

CS = ",FM_deepfd006_faulty\nMM_deepfd006_change_epochs_mutated0_MP_5,0.6781 (reliable)\nMM_deepfd006_add_noise_mutated0_MP_50.0,1.0000 (unreliable)\n"
CS_CLEAN = ",FM_deepfd006_faulty\nMM_deepfd006_change_epochs_mutated0_MP_5,0.6781\nMM_deepfd006_add_noise_mutated0_MP_50.0,1.0\n"
IOU_CLEAN = ",FM_deepfd006_faulty\nMM_deepfd006_change_epochs_mutated0_MP_5,0.25\nMM_deepfd006_add_noise_mutated0_MP_50.0,nan\n"


def _layout(root: Path) -> Path:
    (root / "results/coupling_strength").mkdir(parents=True)
    (root / "results/detectability_overlap").mkdir(parents=True)
    (root / "results/coupling_strength/coupling_strength_deepfd006_pre_training.csv").write_text(CS)
    (root / "results/coupling_strength/coupling_strength_deepfd006_pre_training_clean.csv").write_text(CS_CLEAN)
    (root / "results/detectability_overlap/detectability_overlap_deepfd006_pre_training_clean.csv").write_text(IOU_CLEAN)
    (root / "results/coupling_strength/coupling_strength_deepfd006_post_training_scenario1_mutants.csv").write_text(CS)
    return root


EXPECTED = [
    PublishedMutant("deepfd006", "add_noise_mutated0_MP_50.0", cs=1.0, iou=None, cs_reliable=False, iou_reliable=None),
    PublishedMutant("deepfd006", "change_epochs_mutated0_MP_5", cs=0.6781, iou=0.25, cs_reliable=True, iou_reliable=None),
]


def test_a_checkout_folder_is_read_with_reliability_where_the_file_says_it(tmp_path: Path) -> None:
    snapshot = Snapshot(_layout(tmp_path / "repo"))
    assert published_bugs(snapshot) == ["deepfd006"]  # post-training files are another stage
    assert read_bug(snapshot, "deepfd006") == EXPECTED


def test_a_bare_repository_as_fetch_brings_it_reads_the_same(tmp_path: Path) -> None:
    work = _layout(tmp_path / "work")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "."], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "figures"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(tmp_path / "bare")], check=True)
    snapshot = Snapshot(tmp_path / "bare")
    assert snapshot.bare and read_bug(snapshot, "deepfd006") == EXPECTED


@given(st.floats(min_value=0, max_value=1, allow_nan=False), st.sampled_from(["", " (reliable)", " (unreliable)"]))
def test_a_cell_gives_its_value_and_verdict(value: float, verdict: str) -> None:
    parsed, reliable = parse_cell(f"{value:.4f}{verdict}")
    assert parsed == pytest.approx(round(value, 4)) and reliable == {"": None, " (reliable)": True, " (unreliable)": False}[verdict]


@pytest.mark.parametrize("bad", ["high", "0.5 (maybe)"])
def test_a_cell_of_another_format_is_a_clear_error(bad: str) -> None:
    with pytest.raises(PublishedError, match="not a number"):
        parse_cell(bad)


def test_a_path_that_is_no_snapshot_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PublishedError, match="neither a folder nor a bare git repository"):
        Snapshot(tmp_path / "absent")


def test_their_ids_name_every_spelling_of_the_bug_in_the_runtime_corpus() -> None:
    deepfd = numbered_rows([{"No": 6.0, "Post #": 38648195.0}, {"No": None, "Post #": "x"}, {"No": 48, "Post #": "gol_nn"}], "No", "Post #")
    deeplocalize = numbered_rows([{"No": "6", "Post #": "38648195"}], "No", "Post #")
    github = numbered_rows([{"NO": 1.0, "GH Repo": "Jacobvs/DDOS-ML-Detection"}], "NO", "GH Repo")
    assert deepfd == {6: "38648195", 48: "gol_nn"} and github == {1: "Jacobvs/DDOS-ML-Detection"}
    assert runtime_ids("deepfd006", deepfd, deeplocalize, github)[:2] == ["DeepFD:38648195", "DeepLocalize-SO:38648195"]
    assert runtime_ids("deepfd048", deepfd, deeplocalize, github)[:2] == ["DeepFD:gol_nn", "DeepLocalize-GH:gol_nn"]
    assert runtime_ids("deeplocalize006", deepfd, deeplocalize, github)[0] == "DeepLocalize-SO:38648195"
    assert runtime_ids("deeplocalize031", deepfd, deeplocalize, github)[0] == "DeepLocalize-GH:DDOS-ML-Detection"
    assert runtime_ids("defect4ml052", {}, {}, {})[:2] == ["Defects4ML:052", "Defects4ML@61f3b06:052"]
    assert runtime_ids("cleanml001", deepfd, deeplocalize, github) == []  # no runtime layout of CleanML
    assert runtime_ids("deepfd999", deepfd, deeplocalize, github) == []  # a row the table does not have


def test_the_first_spelling_a_manifest_holds_is_taken_configurations_included() -> None:
    ids = ["DeepLocalize-SO:38648195", "DeepFD:59282996/lr_0.1", "DeepFD:59282996/lr_1"]
    assert first_present(["DeepFD:38648195", "DeepLocalize-SO:38648195"], ids) == "DeepLocalize-SO:38648195"
    assert first_present(["DeepFD:59282996"], ids) == "DeepFD:59282996/lr_0.1"
    assert first_present(["DeepFD:1"], ids) is None
