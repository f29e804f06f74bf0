"""Real fault vs mutants from records: per-input killing probabilities, coupling and IoU.

Inputs are paired by position when every run evaluated the same inputs (a fixed test set), and by
content (:mod:`mutreal.analysis.pairing`) when a program's runs evaluated other inputs per seed
(data made or split without a seed) and every completed run recorded its inputs' ids; the report
says which (``per_input.pairing``).

Nothing here trains; :mod:`mutreal.campaigns` train and call these functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mutreal.analysis import pairing
from mutreal.analysis.common_set import on_common_set
from mutreal.analysis.killing import series_kill
from mutreal.analysis.run_failures import failure_counts, failure_note, mutant_failure
from mutreal.analysis.series import (
    MetricSeries,
    as_dict,
    correctness_matrix,
    fisher_verdicts,
    input_width,
    metric_series,
    per_input_mismatch,
    runs_disagree,
)
from mutreal.analysis.settings import DecisionSettings
from mutreal.stats import (
    FisherKill,
    GroupComparison,
    KillingProbabilities,
    KillVerdict,
    Similarity,
    compare_groups,
    counted_on_both,
    fisher_kill,
    killing_probabilities,
    similarity,
)


@dataclass
class MutantSimilarity:
    """How close one mutant is to the real fault (both against the fixed program)."""

    program: str
    series: MetricSeries
    #: None for a mutant whose runs failed in a way that is not the model's (``failure``)
    versus_fault: GroupComparison | None
    kill: KillVerdict | None
    fisher: FisherKill | None
    kp: KillingProbabilities | None
    similarity: Similarity | None
    killing_agreement: bool | None
    fisher_agreement: bool | None
    fisher_input_jaccard: float | None
    #: runs that failed where the fixed program's completed, not by the model's doing
    #: (:mod:`mutreal.analysis.run_failures`): no kill, no KP, coupling or IoU
    failure: dict[str, Any] | None = None
    #: why the mutant has no coupling strength or IoU although it has a KP (the fault not reproduced)
    similarity_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "program": self.program,
            "mutant": self.series.to_dict(),
            "failure": self.failure,
            "killed": None if self.kill is None else self.kill.killed,
            **fisher_verdicts(self.fisher),
            "killing_agreement": self.killing_agreement,
            "fisher_agreement": self.fisher_agreement,
            "fisher_input_jaccard": self.fisher_input_jaccard,
            "metric_vs_fault": as_dict(self.versus_fault),
            "coupling_strength": None if self.similarity is None else self.similarity.coupling_strength,
            "detectability_iou": None if self.similarity is None else self.similarity.detectability_iou,
            "similarity_reason": self.similarity_reason,
            "similarity": as_dict(self.similarity),
            "kill": as_dict(self.kill),
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
    #: how inputs were paired (:data:`mutreal.analysis.pairing.BY_POSITION`, or by content with the
    #: number of inputs and the median n per input); None without per-input correctness
    pairing: str | None = None
    #: None where the fault reproduces here; else why not, with both programs' means and runs
    #: (:func:`fault_not_reproduced`): no mutant then has a coupling strength or an IoU
    not_reproduced: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        per_input = self.fixed.per_input
        if per_input is not None and self.pairing is not None:
            per_input = {**per_input, "pairing": self.pairing}
        return {
            "metric": self.fixed.metric,
            "metric_reason": self.fixed.metric_reason,
            "per_input": per_input,
            "buggy": self.buggy.to_dict(),
            "fixed": self.fixed.to_dict(),
            "fault": {
                "killed": self.fault_kill.killed,
                **fisher_verdicts(self.fault_fisher),
                "kill": self.fault_kill.to_dict(),
                "fisher": as_dict(self.fault_fisher),
                "kp": as_dict(self.fault_kp),
                "reproduced": self.not_reproduced is None,
                "not_reproduced": self.not_reproduced,
            },
            "mutants": [m.to_dict() for m in self.mutants],
            "failed_mutants": failure_counts(m.failure for m in self.mutants),
            "notes": list(self.notes),
        }


#: what a row says of a fault that does not reproduce (one wording for compare, its rows and the report)
NOT_REPRODUCED = "fault not reproduced here"


def fault_not_reproduced(
    buggy: MetricSeries, fixed: MetricSeries, fault_kp: KillingProbabilities | None
) -> dict[str, Any] | None:
    """Why the fault does not reproduce here (None when it does): the buggy program kills no input,
    or is not worse than the fixed one (its mean no worse and no more failed runs). Coupling strength
    and IoU then say nothing (a mutant is "unlike" a fault that is not there), so they are null with
    this reason, not 0.0."""
    reasons = []
    if fault_kp is not None and not any(v > 0 for v in fault_kp.kp):
        reasons.append("the buggy program kills no input")
    b, f = buggy.summary, fixed.summary
    if f.n and b.n and int(buggy.failed.sum()) <= int(fixed.failed.sum()):
        worse = b.mean > f.mean if fixed.lower_is_better else b.mean < f.mean
        if not worse:
            reasons.append(f"the buggy program is not worse at {fixed.metric or 'the metric'} "
                           f"({'lower' if fixed.lower_is_better else 'higher'} is better)")  # fmt: skip
    if not reasons:
        return None

    def side(series: MetricSeries) -> dict[str, Any]:
        summary = series.summary
        return {"mean": None if not summary.n else round(float(summary.mean), 6), "n": int(summary.n),
                "runs": len(series.seeds), "failed": int(series.failed.sum())}  # fmt: skip

    return {"reason": f"{NOT_REPRODUCED}: " + "; ".join(reasons), "buggy": side(buggy), "fixed": side(fixed)}


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
    data with other labels, gets a note instead of a KP. Where some program's runs evaluated other
    inputs per seed (data made or split without a seed), inputs are paired by their content ids
    instead, each with its own n (:mod:`mutreal.analysis.pairing`); the report's ``pairing`` says
    which pairing was used. Where the programs' last per-input sets differ (a fault that removes the
    evaluate call), all are judged on the best set every run recorded
    (:mod:`mutreal.analysis.common_set`).
    """
    settings = DecisionSettings.of(settings)
    metric, lower_is_better, test, alpha = settings.as_tuple()
    buggy, fixed, mutants, set_note = on_common_set(buggy, fixed, mutants)
    f = metric_series(fixed, metric, lower_is_better)
    direction = f.lower_is_better
    b = metric_series(buggy, metric or f.metric, direction, chosen_by_user=metric is not None)
    notes = [note for note in (set_note, b.repeated_note, f.repeated_note, b.scaffolding_note, f.scaffolding_note)
             if note]  # fmt: skip
    fault_kill = series_kill(f, b, settings)  # the real fault judged as a mutant of the fixed program
    failures = {name: mutant_failure(records, fixed, name) for name, records in mutants.items()}
    pairs, pairing_note = _pairs(fixed, buggy, mutants)
    fault_fisher = fault_kp = None
    fault_pair = pairs.pop(_FAULT, None)
    if isinstance(fault_pair, tuple):
        fault_fisher = fisher_kill(fault_pair[0], fault_pair[1], alpha, counted=fault_pair[2])
        fault_kp = killing_probabilities(fault_pair[0], fault_pair[1], counted=fault_pair[2])
    elif fault_pair is not None:
        notes.append(fault_pair)
    not_reproduced = fault_not_reproduced(b, f, fault_kp)
    if not_reproduced is not None:
        notes.append(f"{not_reproduced['reason']}: no mutant has a coupling strength or an IoU")

    results: list[MutantSimilarity] = []
    for name, records in mutants.items():
        m = metric_series(records, metric or f.metric, direction, chosen_by_user=metric is not None)
        for note in (m.repeated_note, m.scaffolding_note):  # mutants of one program share its file name
            if note:
                notes.append(f"mutant {name}: {note}")
        if failures[name] is not None:  # not the model's failure: no kill, no KP, coupling or IoU
            failure = failures[name]
            notes.append(f"mutant {name}: {failure_note(failure)}")
            results.append(MutantSimilarity(name, m, None, None, None, None, None, None, None, None, failure))
            continue
        kill = series_kill(f, m, settings)
        versus = compare_groups(
            b.values, m.values, crashed_a=b.failed, crashed_b=m.failed, test=test,
            lower_is_better=direction, alpha=alpha,
        )  # fmt: skip
        pair = pairs.get(name)
        fisher = kp = sim = None
        if isinstance(pair, tuple):
            fisher = fisher_kill(pair[0], pair[1], alpha, counted=pair[2])
            kp = killing_probabilities(pair[0], pair[1], counted=pair[2])
            if fault_kp is not None and not_reproduced is None:
                both = None if pair[2] is None else counted_on_both(kp, fault_kp)
                sim = similarity(kp.kp, fault_kp.kp, include=both)
        elif pair is not None:
            notes.append(f"{name}: {pair}")
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
                similarity_reason=None if not_reproduced is None or kp is None else not_reproduced["reason"],
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
        pairing=pairing_note if fault_kp is not None or any(m.kp is not None for m in results) else None,
        not_reproduced=not_reproduced,
    )


#: the key of the fixed/buggy pair among the pairs (no mutant file is named so)
_FAULT = ""

#: per program: (reference correctness, its own, counted or None) or the note why it is not paired
Pair = tuple[np.ndarray, np.ndarray, np.ndarray | None] | str


def _pairs(
    fixed: Sequence[Any], buggy: Sequence[Any], mutants: Mapping[str, Sequence[Any]]
) -> tuple[dict[str, Pair], str | None]:
    """The buggy program (key :data:`_FAULT`) and each mutant paired with the fixed program input by
    input, and how (by position, or by content where some program's runs evaluated other inputs
    per seed and the fixed program's runs recorded their inputs' ids). A program without a pair
    maps to its note; a mutant that cannot be paired because no fixed input is known is left out."""
    groups = {_FAULT: buggy, **mutants}
    if runs_disagree(fixed, *groups.values()) and pairing.content_pairable(fixed):
        return _pairs_by_content(fixed, groups)
    return _pairs_by_position(fixed, buggy, mutants), pairing.BY_POSITION


def _pairs_by_content(fixed: Sequence[Any], groups: Mapping[str, Sequence[Any]]) -> tuple[dict[str, Pair], str]:
    pairable = {name: records for name, records in groups.items() if pairing.content_pairable(fixed, records)}
    inputs, paired = pairing.pair_by_content(fixed, pairable)
    pairs: dict[str, Pair] = {}
    relabelled: list[str] = []
    for name, records in groups.items():
        found = paired.get(name)
        if found is None:
            pairs[name] = pairing.unpairable_note(fixed, records)
        elif isinstance(found, str):
            pairs[name] = pairing.mismatch_note(records[0].program if records else name, found)
        else:
            pairs[name] = (found.reference, found.faulty, found.counted)
            if found.relabelled:
                relabelled.append("the buggy program" if name == _FAULT else "/".join(Path(name).parts[-2:]))
    if isinstance(pairs.get(_FAULT), str):
        pairs[_FAULT] = f"fixed/buggy: {pairs[_FAULT]}"
    fault = pairs.get(_FAULT)
    counts = fault[2].sum(axis=0) if isinstance(fault, tuple) else np.zeros(0)
    if not isinstance(fault, tuple):  # no fault pair: how often the fixed program saw each input
        seen = [set(pairing.run_ids(r) or ()) for r in fixed]
        counts = np.asarray([sum(1 for ids in seen if i in ids) for i in inputs])
    note = pairing.content_note(len(inputs), [int(c) for c in counts])
    return pairs, note + (f"; {pairing.relabelled_note(relabelled)}" if relabelled else "")


def _pairs_by_position(
    fixed: Sequence[Any], buggy: Sequence[Any], mutants: Mapping[str, Sequence[Any]]
) -> dict[str, Pair]:
    """Today's pairing: input ``t`` is position ``t``, the same input in every run."""
    # the fixed program's inputs; where it crashed in every run (wrong on every input), another's:
    # the program whose inputs they are is the reference every other one is paired with
    reference, width = next(
        ((group, w) for group, w in ((g, input_width(g)) for g in (fixed, buggy, *mutants.values())) if w is not None),
        (fixed, None),
    )
    fixed_matrix = correctness_matrix(fixed, width) if width is not None else None
    buggy_matrix = _paired_matrix(reference, buggy, width)
    pairs: dict[str, Pair] = {}
    if fixed_matrix is not None and buggy_matrix is not None:
        pairs[_FAULT] = (fixed_matrix, buggy_matrix, None)
    else:
        mismatch = per_input_mismatch(fixed, buggy) or per_input_mismatch(reference, buggy)
        pairs[_FAULT] = (f"fixed/buggy: {mismatch}" if mismatch
                         else "no per-input correctness for the fixed/buggy pair: no KP, CS, IoU")  # fmt: skip
    for name, records in mutants.items():
        mutant_matrix = _paired_matrix(reference, records, width)
        if fixed_matrix is not None and mutant_matrix is not None:
            pairs[name] = (fixed_matrix, mutant_matrix, None)
        elif fixed_matrix is not None:
            mismatch = per_input_mismatch(reference, records)
            pairs[name] = mismatch or "no per-input correctness, no KP, CS, IoU"
    return pairs


def _paired_matrix(reference: Sequence[Any], records: Sequence[Any], width: int | None) -> Any:
    """``records``' correctness matrix over the reference program's inputs (the fixed program's, or
    where it recorded none the first that did), or None when they were measured on other inputs (or
    not at all)."""
    if width is None or per_input_mismatch(reference, records) is not None:
        return None
    return correctness_matrix(records, width)
