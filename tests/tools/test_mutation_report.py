"""The `make mutation` report (tools/mutation/run.py): the score counts equivalent mutants apart, and
an equivalent.toml entry is only trusted while the mutant survives with the listed change.

run.py is a tool script, not part of the package, so it is loaded from its path; the report is
written into a temporary folder.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

RUN_PY = Path(__file__).resolve().parents[2] / "tools" / "mutation" / "run.py"


@pytest.fixture
def run(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("mutation_run", RUN_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "OUT", tmp_path)
    return module


def _row(mutant, status, equivalent=False, stale=False, refuted=False):
    return {"group": "g", "file": "src/m.py", "mutant": mutant, "status": status, "line": 3,
            "change": "- a  + b", "equivalent": equivalent, "reason": "why" if equivalent else None,
            "stale_equivalent": stale, "killed_equivalent": refuted}


def test_score_leaves_equivalent_mutants_out(run):
    rows = [_row("m1", "killed"), _row("m2", "killed"), _row("m3", "survived"),
            _row("m4", "survived", equivalent=True), _row("m5", "timeout")]
    # 5 mutants, 1 equivalent, 3 killed (a timeout counts killed): 3 of 4
    assert run.score_rows(rows) == [("src/m.py", 5, 1, 3, 0.75)]


def test_report_lists_survivors_stale_and_refuted_entries(run, tmp_path, capsys):
    rows = [_row("m1", "killed", refuted=True), _row("m2", "survived", stale=True),
            _row("m3", "survived", equivalent=True), _row("m4", "timeout")]
    run.write_report(rows, 60.0, [("g", 4, 60.0)])
    report = (tmp_path / "report.md").read_text()
    survivors = report.split("## Surviving mutants")[1].split("##")[0]
    assert "`m2`" in survivors and "the change no longer matches" in survivors
    assert "`m3`" not in survivors  # equivalent, with its reason further down
    refuted = report.split("## Listed as equivalent but killed")[1].split("##")[0]
    assert "`m1`" in refuted and "`m2`" not in refuted
    assert "score 66.7%" in report  # m1 and m4 killed of 3 non-equivalent
    out = capsys.readouterr().out
    assert "1 mutants listed in equivalent.toml were killed" in out


def test_no_refuted_section_when_every_entry_survives(run, tmp_path):
    run.write_report([_row("m1", "survived", equivalent=True), _row("m2", "killed")], 1.0, [])
    assert "Listed as equivalent but killed" not in (tmp_path / "report.md").read_text()
