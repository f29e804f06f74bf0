"""Per-program summaries of a campaign's runs: N, outcomes, and the compared metric's mean and spread.

Why a module of its own: the summary table (``mutreal run``) reads records only, never the loop.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mutreal.execution.records import Outcome, RunRecord


@dataclass
class ProgramSummary:
    """Mean, spread and N of one program's compared metric (never a single run)."""

    program: str
    n: int
    n_ok: int
    outcomes: dict[str, int]
    metric_name: str | None
    direction: str | None
    mean: float | None
    std: float | None
    minimum: float | None
    maximum: float | None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProgramSummary:
        return cls(**data)


def summarize(records: Sequence[RunRecord], metric: str | None = None) -> list[ProgramSummary]:
    """Per program (in first-seen order): N, outcome counts, and mean/std/min/max of the metric."""
    groups: dict[str, list[RunRecord]] = {}
    for record in records:
        groups.setdefault(record.program, []).append(record)
    summaries = []
    for program, group in groups.items():
        outcomes: dict[str, int] = {}
        values: list[float] = []
        name = direction = None
        for record in group:
            outcomes[record.outcome] = outcomes.get(record.outcome, 0) + 1
            if record.outcome != Outcome.OK:
                continue
            chosen, value, chosen_direction = record.metric(metric)
            if value is not None and not math.isnan(value):
                values.append(value)
                name, direction = chosen, chosen_direction
        summaries.append(
            ProgramSummary(
                program=program,
                n=len(group),
                n_ok=outcomes.get(Outcome.OK, 0),
                outcomes=outcomes,
                metric_name=name,
                direction=direction,
                mean=statistics.fmean(values) if values else None,
                std=statistics.stdev(values) if len(values) > 1 else (0.0 if values else None),
                minimum=min(values) if values else None,
                maximum=max(values) if values else None,
            )
        )
    return summaries
