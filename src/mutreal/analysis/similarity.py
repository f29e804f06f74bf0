"""Real fault vs mutants from records: per-input killing probabilities, coupling and IoU.

Nothing here trains; :mod:`mutreal.campaigns` train and call these functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mutreal.analysis.killing import series_kill
from mutreal.analysis.series import (
    MetricSeries,
    as_dict,
    correctness_matrix,
    fisher_verdicts,
    input_width,
    metric_series,
    per_input_mismatch,
)
from mutreal.analysis.settings import DecisionSettings
from mutreal.stats import (
    FisherKill,
    GroupComparison,
    KillingProbabilities,
    KillVerdict,
    Similarity,
    compare_groups,
    fisher_kill,
    killing_probabilities,
    similarity,
)


@dataclass
class MutantSimilarity:
    """How close one mutant is to the real fault (both against the fixed program)."""

    program: str
    series: MetricSeries
    versus_fault: GroupComparison
    kill: KillVerdict
    fisher: FisherKill | None
    kp: KillingProbabilities | None
    similarity: Similarity | None
    killing_agreement: bool
    fisher_agreement: bool | None
    fisher_input_jaccard: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "program": self.program,
            "mutant": self.series.to_dict(),
            "killed": self.kill.killed,
            **fisher_verdicts(self.fisher),
            "killing_agreement": self.killing_agreement,
            "fisher_agreement": self.fisher_agreement,
            "fisher_input_jaccard": self.fisher_input_jaccard,
            "metric_vs_fault": self.versus_fault.to_dict(),
            "coupling_strength": None if self.similarity is None else self.similarity.coupling_strength,
            "detectability_iou": None if self.similarity is None else self.similarity.detectability_iou,
            "similarity": as_dict(self.similarity),
            "kill": self.kill.to_dict(),
            "fisher": as_dict(self.fisher),
            "kp": as_dict(self.kp),
        }


@dataclass
class CompareReport:
    """``mutreal compare``: the real fault (buggy vs fixed) and each mutant of the fixed program."""

    buggy: MetricSeries
    fixed: MetricSeries
    fault_kill: KillVerdict
    fault_fisher: FisherKill | None
    fault_kp: KillingProbabilities | None
    mutants: list[MutantSimilarity]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.fixed.metric,
            "metric_reason": self.fixed.metric_reason,
            "per_input": self.fixed.per_input,
            "buggy": self.buggy.to_dict(),
            "fixed": self.fixed.to_dict(),
            "fault": {
                "killed": self.fault_kill.killed,
                **fisher_verdicts(self.fault_fisher),
                "kill": self.fault_kill.to_dict(),
                "fisher": as_dict(self.fault_fisher),
                "kp": as_dict(self.fault_kp),
            },
            "mutants": [m.to_dict() for m in self.mutants],
            "notes": list(self.notes),
        }


def _jaccard(first: Sequence[int], second: Sequence[int]) -> float | None:
    a, b = set(first), set(second)
    if not a and not b:
        return None
    return len(a & b) / len(a | b)


def compare_from_records(
    buggy: Sequence[Any],
    fixed: Sequence[Any],
    mutants: Mapping[str, Sequence[Any]],
    *,
    settings: DecisionSettings | Mapping[str, Any] | None = None,
) -> CompareReport:
    """Compare each mutant of the fixed program with the real fault (the buggy program).

    The real fault is treated as a mutant of the fixed program: the same kill verdicts and per-input
    killing probabilities are computed for it and for each mutant; then per mutant its metric
    distribution against the buggy program's (``metric_vs_fault``: ``no difference`` means alike),
    whether both are killed or both survive (killing agreement), and coupling strength / IoU.

    The fixed program sets the compared metric (the one that fits its model's task) and the inputs
    of per-input correctness (its last evaluate's, else its validation or training data): the buggy
    program and each mutant are paired with it on those inputs (where every fixed run failed, with
    the first program that recorded any), and one measured on other inputs, or on its own training
    data with other labels, gets a note instead of a KP.
    """
    settings = DecisionSettings.of(settings)
    metric, lower_is_better, test, alpha = settings.as_tuple()
    f = metric_series(fixed, metric, lower_is_better)
    direction = f.lower_is_better
    b = metric_series(buggy, metric or f.metric, direction, chosen_by_user=metric is not None)
    notes = [note for note in (b.repeated_note, f.repeated_note) if note]
    fault_kill = series_kill(f, b, settings)  # the real fault judged as a mutant of the fixed program
    # the fixed program's inputs; where it crashed in every run (wrong on every input), another's:
    # the program whose inputs they are is the reference every other one is paired with
    reference, width = next(
        ((group, w) for group, w in ((g, input_width(g)) for g in (fixed, buggy, *mutants.values())) if w is not None),
        (fixed, None),
    )
    fixed_matrix = correctness_matrix(fixed, width) if width is not None else None
    buggy_matrix = _paired_matrix(reference, buggy, width)
    fault_fisher = fault_kp = None
    if fixed_matrix is not None and buggy_matrix is not None:
        fault_fisher = fisher_kill(fixed_matrix, buggy_matrix, alpha)
        fault_kp = killing_probabilities(fixed_matrix, buggy_matrix)
    else:
        mismatch = per_input_mismatch(fixed, buggy) or per_input_mismatch(reference, buggy)
        notes.append(f"fixed/buggy: {mismatch}" if mismatch
                     else "no per-input correctness for the fixed/buggy pair: no KP, CS, IoU")  # fmt: skip

    results: list[MutantSimilarity] = []
    for name, records in mutants.items():
        m = metric_series(records, metric or f.metric, direction, chosen_by_user=metric is not None)
        if m.repeated_note:
            notes.append(m.repeated_note)
        kill = series_kill(f, m, settings)
        versus = compare_groups(
            b.values, m.values, crashed_a=b.failed, crashed_b=m.failed, test=test,
            lower_is_better=direction, alpha=alpha,
        )  # fmt: skip
        mutant_matrix = _paired_matrix(reference, records, width)
        fisher = kp = sim = None
        if fixed_matrix is not None and mutant_matrix is not None:
            fisher = fisher_kill(fixed_matrix, mutant_matrix, alpha)
            kp = killing_probabilities(fixed_matrix, mutant_matrix)
            if fault_kp is not None:
                sim = similarity(kp.kp, fault_kp.kp)
        elif fixed_matrix is not None:
            mismatch = per_input_mismatch(reference, records)
            notes.append(f"{name}: {mismatch}" if mismatch else f"{name}: no per-input correctness, no KP, CS, IoU")
        results.append(
            MutantSimilarity(
                program=name,
                series=m,
                versus_fault=versus,
                kill=kill,
                fisher=fisher,
                kp=kp,
                similarity=sim,
                killing_agreement=kill.killed == fault_kill.killed,
                fisher_agreement=None
                if fisher is None or fault_fisher is None
                else fisher.killed == fault_fisher.killed,
                fisher_input_jaccard=None
                if fisher is None or fault_fisher is None
                else _jaccard(fisher.killing_inputs, fault_fisher.killing_inputs),
            )
        )
    return CompareReport(
        buggy=b,
        fixed=f,
        fault_kill=fault_kill,
        fault_fisher=fault_fisher,
        fault_kp=fault_kp,
        mutants=results,
        notes=notes,
    )


def _paired_matrix(reference: Sequence[Any], records: Sequence[Any], width: int | None) -> Any:
    """``records``' correctness matrix over the reference program's inputs (the fixed program's, or
    where it recorded none the first that did), or None when they were measured on other inputs (or
    not at all)."""
    if width is None or per_input_mismatch(reference, records) is not None:
        return None
    return correctness_matrix(records, width)
