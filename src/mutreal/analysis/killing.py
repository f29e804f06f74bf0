"""Killing verdicts from records: DeepCrime's GLM + effect size and Fisher per input, Holm across mutants.

Nothing here trains; :mod:`mutreal.campaigns` train and call these functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mutreal.analysis import pairing
from mutreal.analysis.run_failures import failure_counts, failure_note, mutant_failure
from mutreal.analysis.series import (
    MetricSeries,
    as_dict,
    correctness_matrices,
    fisher_verdicts,
    input_width,
    metric_series,
    per_input_mismatch,
    runs_disagree,
)
from mutreal.analysis.settings import DecisionSettings
from mutreal.stats import (
    FisherKill,
    KillVerdict,
    SequentialDecision,
    deepcrime_kill,
    fisher_kill,
    holm,
)
from mutreal.stats.two_groups import KILL_EFFECT


@dataclass
class MutantKill:
    """One mutant's verdicts: DeepCrime's rule, Kim et al.'s Fisher rule, both after Holm."""

    program: str
    series: MetricSeries
    deepcrime: KillVerdict
    fisher: FisherKill | None
    deepcrime_p_holm: float | None = None
    killed_holm: bool | None = None
    fisher_p_holm: float | None = None
    fisher_killed_holm: bool | None = None
    sequential: SequentialDecision | None = None
    #: runs that failed where the original's completed, not by the model's doing
    #: (:mod:`mutreal.analysis.run_failures`): no verdict, and out of the mutation score
    failure: dict[str, Any] | None = None

    @property
    def killed(self) -> bool | None:
        """DeepCrime's verdict; None for a mutant whose failure is not the model's."""
        return None if self.failure is not None else self.deepcrime.killed

    def to_dict(self) -> dict[str, Any]:
        return {
            "program": self.program,
            "failure": self.failure,
            "killed": self.killed,
            "killed_by": None if self.failure is not None else self.deepcrime.killed_by,
            "killed_holm": self.killed_holm,
            "p_value": self.deepcrime.comparison.p_value,
            "p_value_holm": self.deepcrime_p_holm,
            "cohen_d": self.deepcrime.to_dict()["d_worse"],
            "effect": self.deepcrime.comparison.effect,
            **fisher_verdicts(self.fisher),
            "fisher_killed_holm": self.fisher_killed_holm,
            "fisher_p_holm": self.fisher_p_holm,
            "mutant": self.series.to_dict(),
            "deepcrime": self.deepcrime.to_dict(),
            "fisher": as_dict(self.fisher),
            "sequential": as_dict(self.sequential),
        }


@dataclass
class KillReport:
    """``mutreal kill``: the original's runs and one :class:`MutantKill` per mutant."""

    original: MetricSeries
    mutants: list[MutantKill]
    test: str
    alpha: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        killed = sum(1 for m in self.mutants if m.killed)
        judged = [m for m in self.mutants if m.failure is None]
        return {
            "original": self.original.to_dict(),
            "test": self.test,
            "alpha": self.alpha,
            "kill_effect": KILL_EFFECT,
            "mutants": [m.to_dict() for m in self.mutants],
            "killed": killed,
            "killed_holm": sum(1 for m in self.mutants if m.killed_holm),
            "fisher_killed": sum(1 for m in self.mutants if m.fisher is not None and m.fisher.killed),
            "fisher_killed_pool": sum(
                1 for m in self.mutants if m.fisher is not None and m.fisher.killed_pool
            ),
            "mutation_score": killed / len(judged) if judged else None,
            "failed_mutants": failure_counts(m.failure for m in self.mutants),
            "notes": list(self.notes),
        }


def _by_content(original: Sequence[Any], records: Sequence[Any]) -> pairing.PairedCorrectness | str | None:
    """The Fisher pairing by input content (:mod:`mutreal.analysis.pairing`) where the runs evaluated
    other inputs per seed and recorded their ids; None where positions pair them or nothing does."""
    if not runs_disagree(original, records) or not pairing.content_pairable(original, records):
        return None
    return pairing.pair_by_content(original, {"mutant": records})[1]["mutant"]


def series_kill(original: MetricSeries, mutant: MetricSeries, settings: DecisionSettings) -> KillVerdict:
    """DeepCrime's verdict on ``mutant``'s runs against ``original``'s, in the original's direction.

    Every kill verdict of :mod:`mutreal.analysis` (mutants, the real fault as a mutant, sensitivity
    points) is this one call, so they cannot drift apart in which direction or crashes they use."""
    return deepcrime_kill(
        original.values, mutant.values, crashed_original=original.failed, crashed_mutant=mutant.failed,
        test=settings.test, lower_is_better=original.lower_is_better, alpha=settings.alpha,
    )  # fmt: skip


def kill_from_records(
    original: Sequence[Any],
    mutants: Mapping[str, Sequence[Any]],
    *,
    settings: DecisionSettings | Mapping[str, Any] | None = None,
    sequential: Mapping[str, SequentialDecision] | None = None,
) -> KillReport:
    """DeepCrime's verdict and the Fisher verdict for each mutant, with Holm across mutants."""
    settings = DecisionSettings.of(settings)
    metric, lower_is_better, test, alpha = settings.as_tuple()
    o = metric_series(original, metric, lower_is_better)
    direction = o.lower_is_better
    notes = [note for note in (o.repeated_note, o.scaffolding_note) if note]
    results: list[MutantKill] = []
    for name, records in mutants.items():
        m = metric_series(records, metric or o.metric, direction, chosen_by_user=metric is not None)
        notes.extend(note for note in (m.repeated_note, m.scaffolding_note) if note)
        verdict = series_kill(o, m, settings)
        failure = mutant_failure(records, original, name)
        if failure is not None:  # not the model's failure: no verdict, no Fisher, out of the score
            notes.append(f"{name}: {failure_note(failure)}")
            results.append(MutantKill(program=name, series=m, deepcrime=verdict, fisher=None, failure=failure,
                                      sequential=None if sequential is None else sequential.get(name)))  # fmt: skip
            continue
        width = input_width(original, records)
        fisher = None
        original_matrix, mutant_matrix = correctness_matrices(width, original, records)
        by_content = _by_content(original, records)
        if original_matrix is not None and mutant_matrix is not None:
            fisher = fisher_kill(original_matrix, mutant_matrix, alpha=alpha)
        elif not isinstance(by_content, str) and by_content is not None:
            fisher = fisher_kill(by_content.reference, by_content.faulty, alpha=alpha, counted=by_content.counted)
        elif isinstance(by_content, str):
            notes.append(f"{name}: {pairing.mismatch_note(m.program, by_content)}")
        else:
            mismatch = per_input_mismatch(original, records)
            notes.append(f"{name}: {mismatch}" if mismatch
                         else f"{name}: no per-input correctness (labels, class predictions), no Fisher verdict")  # fmt: skip
        results.append(
            MutantKill(
                program=name,
                series=m,
                deepcrime=verdict,
                fisher=fisher,
                sequential=None if sequential is None else sequential.get(name),
            )
        )
    judged = [r for r in results if r.failure is None]
    if judged:
        corrected = holm([r.deepcrime.comparison.p_value for r in judged], alpha)
        for r, p, rejected in zip(judged, corrected.adjusted, corrected.rejected, strict=True):
            r.deepcrime_p_holm = p
            r.killed_holm = (rejected and r.deepcrime.d_worse >= r.deepcrime.kill_effect) or (
                r.deepcrime.killed_by == "crash"
            )
        with_fisher = [r for r in judged if r.fisher is not None]
        if with_fisher:
            corrected = holm([r.fisher.min_p_value for r in with_fisher], alpha)  # type: ignore[union-attr]
            for r, p, rejected in zip(with_fisher, corrected.adjusted, corrected.rejected, strict=True):
                r.fisher_p_holm = p
                r.fisher_killed_holm = rejected
    return KillReport(original=o, mutants=results, test=test, alpha=alpha, notes=notes)
