"""Reproduction verdicts from records: does the buggy program fail where the fixed one does not.

Nothing here trains; :mod:`mutreal.campaigns` train and call these functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mutreal.analysis.series import MetricSeries, metric_series
from mutreal.analysis.settings import DecisionSettings
from mutreal.stats import (
    ReproductionVerdict,
    SequentialDecision,
    reproduction_verdict,
)


@dataclass
class ReproductionReport:
    """``mutreal reproduce``: the verdict with the two programs' run summaries."""

    buggy: MetricSeries
    fixed: MetricSeries
    verdict: ReproductionVerdict
    sequential: SequentialDecision | None = None
    #: which metric was compared and why, as the program that chose it says (the fixed one first)
    metric_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = self.verdict.to_dict()
        data["buggy"] = self.buggy.to_dict()
        data["fixed"] = self.fixed.to_dict()
        data["metric"] = self.fixed.metric or self.buggy.metric
        data["metric_reason"] = self.metric_reason
        data["lower_is_better"] = self.verdict.comparison.lower_is_better
        data["sequential"] = self.sequential.to_dict() if self.sequential else None
        return data


def reproduce_from_records(
    buggy: Sequence[Any],
    fixed: Sequence[Any],
    *,
    symptom: str = "auto",
    settings: DecisionSettings | Mapping[str, Any] | None = None,
    sequential: SequentialDecision | None = None,
) -> ReproductionReport:
    """The study's reproduction verdict from the runs of the buggy and the fixed program.

    Without ``metric`` the fixed program chooses the compared metric, as its model's task calls
    for (a buggy program may carry the wrong task: DeepLocalize 48221692's buggy regression ends
    in a sigmoid, so its own choice would be an accuracy that is 0.0 on both sides); the buggy
    program chooses only when the fixed one recorded no metric at all (it crashed in every run)."""
    metric, lower_is_better, test, alpha = DecisionSettings.of(settings).as_tuple()
    by_user = metric is not None
    f = metric_series(fixed, metric, lower_is_better)
    if f.metric is not None:
        b = metric_series(buggy, f.metric, f.lower_is_better, chosen_by_user=by_user)
        reason = f.metric_reason
    else:  # the fixed program recorded no metric: the buggy program's choice, in its direction
        b = metric_series(buggy, None, lower_is_better)
        f = metric_series(fixed, b.metric, b.lower_is_better, chosen_by_user=by_user)
        reason = b.metric_reason
    verdict = reproduction_verdict(
        b.values,
        f.values,
        crashed_buggy=b.aborted,
        crashed_fixed=f.aborted,
        symptom=symptom,
        lower_is_better=f.lower_is_better,
        test=test,
        alpha=alpha,
    )
    # a program that crashed before its first epoch is trained once: its other runs repeat that crash
    # (mutreal.execution.crash_repeats), which the rule above counts as the failures they are; say so
    for note in (b.repeated_note, f.repeated_note, b.scaffolding_note, f.scaffolding_note):
        if note:
            verdict.reason += f"; {note}"
    return ReproductionReport(buggy=b, fixed=f, verdict=verdict, sequential=sequential, metric_reason=reason)
