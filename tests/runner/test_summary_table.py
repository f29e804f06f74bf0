"""The people's table of `mutreal run`: what a summary without a mean says."""

from __future__ import annotations

from mutreal.commands.run import _summary_table
from mutreal.execution.summaries import ProgramSummary


def _summary(n_ok: int, outcomes: dict[str, int], mean: float | None) -> ProgramSummary:
    return ProgramSummary(
        "p.py", 2, n_ok, outcomes, "accuracy" if mean else None, None, mean, 0.0, mean, mean
    )


def test_finished_runs_without_a_metric_are_not_called_unsuccessful():
    table = _summary_table([_summary(2, {"ok": 2}, None)])
    assert "no metric reported" in table and "no successful run" not in table


def test_failed_runs_say_no_successful_run():
    assert "no successful run" in _summary_table([_summary(0, {"crash": 2}, None)])
    assert "0.9000 ± 0.0000" in _summary_table([_summary(2, {"ok": 2}, 0.9)])
