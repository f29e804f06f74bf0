"""The report counts apart what compare no longer calls a figure: a fault that does not reproduce
here (null coupling and IoU with the reason, both programs' means and runs) and mutants whose runs
failed, not by the model (invalid, harness, stillborn: listed with their error, mutreal's defects
said). Fast: the saved rows of tests/report/data/realism, one fault and one mutant changed as
``compare`` now writes them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from mutreal.report.campaigns import (
    CampaignRows,
    coupling_best_table,
    coupling_html,
    coupling_operators_table,
)
from mutreal.report.realism import best_reconstruction, no_figure_reason, realism_bugs_table

COMPARE = Path(__file__).resolve().parent / "data" / "realism" / "compare.jsonl"

NOT_REPRODUCED = {
    "reason": "fault not reproduced here: the buggy program is not worse at accuracy (higher is better)",
    "buggy": {"mean": 0.99, "n": 3, "runs": 3, "failed": 0}, "fixed": {"mean": 0.76, "n": 3, "runs": 3, "failed": 0},
}  # fmt: skip
INVALID = {"kind": "invalid", "error": "NameError: name 'Adam' is not defined", "mutreal_defect": True, "runs": 3,
           "of": 3, "reason": "NameError on the name 'Adam', which the edit wrote"}  # fmt: skip


def _rows() -> list[dict]:
    rows = {r["id"]: r for r in map(json.loads, COMPARE.read_text(encoding="utf-8").splitlines()) if r}
    fault = copy.deepcopy(rows["wrong_last_activation"])
    fault["fault"]["not_reproduced"] = NOT_REPRODUCED
    fault["reason"] = NOT_REPRODUCED["reason"]
    for mutant in fault["mutants"]:
        mutant["coupling"] = mutant["iou"] = None
    fault["best"] = None
    broken = copy.deepcopy(rows["lr_and_epochs"])
    hom = best_reconstruction(broken)
    for mutant in broken["mutants"]:
        if mutant["file"] == hom["file"]:
            mutant.update(failure=INVALID, killed=None, coupling=None, iou=None, kp=None)
    return [fault, broken]


def test_a_fault_not_reproduced_is_counted_apart_with_both_means() -> None:
    fault, broken = _rows()
    why = no_figure_reason(fault, best_reconstruction(fault))
    assert why.startswith("fault not reproduced here: the buggy program is not worse")
    assert "buggy mean 0.9900 over 3 of 3 runs, fixed mean 0.7600 over 3 of 3 runs" in why
    table = realism_bugs_table([fault, broken], "rows.jsonl")
    assert "0 with a coupling and an IoU; 1 whose fault is not reproduced here" in table.note
    best = {r[0]: dict(zip(coupling_best_table(CampaignRows("rows", [fault, broken])).columns, r, strict=True))
            for r in coupling_best_table(CampaignRows("rows", [fault, broken])).rows}  # fmt: skip
    assert best["wrong_last_activation"]["reason"] == NOT_REPRODUCED["reason"]


def test_a_failed_mutant_is_listed_with_its_error_and_counted_as_a_mutreal_defect() -> None:
    fault, broken = _rows()
    hom = best_reconstruction(broken)
    assert hom["failure"] == INVALID
    why = no_figure_reason(broken, hom)
    assert why.startswith("the mutant is invalid (3 of 3 runs: NameError: name 'Adam' is not defined; a mutreal defect)")
    table = realism_bugs_table([fault, broken], "rows.jsonl")
    # every kind of the analysis is counted, outgrown (a limit the edit itself explains) included
    assert "invalid 1, harness 0, stillborn 0, outgrown 0 (1 mutreal defects: invalid and harness)" in table.note
    (shown,) = [r for r in table.rows if r[0] == "lr_and_epochs"]
    assert shown[5].endswith("/ invalid")  # killed (fault / mutant): the mutant's kind, not a kill
    operators = {r[0]: dict(zip(coupling_operators_table(CampaignRows("rows", [fault, broken])).columns, r,
                                strict=True))
                 for r in coupling_operators_table(CampaignRows("rows", [fault, broken])).rows}  # fmt: skip
    assert operators["HLR+HNE"]["failed"] == "invalid 1"
    assert "invalid (not a kill, a mutreal defect): NameError" in coupling_html(broken)
