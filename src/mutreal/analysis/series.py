"""Campaign records as series: one program's metric per seed, per-input correctness, lost runs.

The bridge between the runner's :class:`~mutreal.execution.records.RunRecord` lists and the pure
statistics of :mod:`mutreal.stats`. Records of one program are ordered by seed, so index ``i`` of
two programs is the same seed (the pairing the study's stability rule and the per-input killing
probability need). A failed run (any outcome but ``ok``, or no finite metric) has no metric and,
for per-input statistics, counts as wrong on every input: a crash fails every test.

Nothing here trains.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mutreal.execution.model_task import metric_reason
from mutreal.execution.records import Outcome, run_task
from mutreal.stats import (
    FisherKill,
    Summary,
    summarise,
)


@dataclass
class MetricSeries:
    """One program's runs in seed order: metric values (NaN where failed), failure flags, direction."""

    program: str
    seeds: list[int]
    values: np.ndarray
    failed: np.ndarray
    metric: str | None
    lower_is_better: bool
    outcomes: list[str]
    #: why ``metric`` is the compared one (the model's task, or the user's choice)
    metric_reason: str | None = None
    #: which inputs the per-input correctness is on (:func:`per_input_set`), None without any
    per_input: dict[str, Any] | None = None
    #: runs not trained because the program crashed before its first epoch in its first run
    repeated: int = 0
    #: what the series' rows say about those runs (None when every run was trained)
    repeated_note: str | None = None
    #: runs that trained and evaluated, then failed in scaffolding (timing, printing, saving): kept as
    #: completed runs, and where they failed (None when no run did)
    scaffolding_note: str | None = None

    @property
    def aborted(self) -> np.ndarray:
        """Runs that did not complete (any outcome but ``ok``); a completed run may lack a metric."""
        return np.asarray([outcome != Outcome.OK for outcome in self.outcomes], dtype=bool)

    @property
    def summary(self) -> Summary:
        return summarise(self.values[~self.failed])

    def to_dict(self) -> dict[str, Any]:
        """Summary for reports (mean, spread, N, failures): never a single run."""
        counts: dict[str, int] = {}
        for outcome in self.outcomes:
            counts[outcome] = counts.get(outcome, 0) + 1
        return {
            "program": self.program,
            "metric": self.metric,
            "lower_is_better": self.lower_is_better,
            "runs": len(self.seeds),
            "failed": int(self.failed.sum()),
            "outcomes": counts,
            "summary": self.summary.to_dict(),
            "values": [None if not math.isfinite(v) else float(v) for v in self.values],
            "metric_reason": self.metric_reason,
            "per_input": self.per_input,
            "repeated": self.repeated,
            "repeated_note": self.repeated_note,
            "scaffolding_note": self.scaffolding_note,
        }


def _sorted(records: Sequence[Any]) -> list[Any]:
    return sorted(records, key=lambda r: r.seed)


class LostRuns(RuntimeError):
    """Runs whose worker was lost (not the program's doing): no verdict is drawn from a campaign
    with such runs, because a rerun trains them again and may decide otherwise."""


def metric_series(
    records: Sequence[Any],
    metric: str | None = None,
    lower_is_better: bool | None = None,
    *,
    chosen_by_user: bool | None = None,
) -> MetricSeries:
    """The compared metric of each run of one program, in seed order.

    Raises :class:`LostRuns` when some run was lost: a lost run is no outcome of the program.

    ``metric`` picks a metric by name (default: the campaign's, i.e. the one that fits the model's
    task among the last ``evaluate()``'s results); ``lower_is_better`` defaults to the metric's
    direction (loss-like names). ``chosen_by_user`` (default: ``metric`` is given) says whether the
    metric is the user's or follows another program's series, for :attr:`MetricSeries.metric_reason`.
    """
    ordered = _sorted(records)
    lost = [r for r in ordered if r.outcome == Outcome.LOST]
    if lost:
        cause = lost[0].error_message or "its worker went away"
        raise LostRuns(
            f"{len(lost)} run(s) of {Path(lost[0].program).name} were lost ({cause}); "
            "run the same command again to train them"
        )
    values, failed, outcomes, names, directions = [], [], [], [], []
    for record in ordered:
        name, value, direction = record.metric(metric)
        ok = record.outcome == Outcome.OK and value is not None and math.isfinite(float(value))
        values.append(float(value) if ok else math.nan)
        failed.append(not ok)
        outcomes.append(record.outcome)
        if name:
            names.append(name)
        if direction:
            directions.append(direction)
    chosen = metric or (names[0] if names else None)
    if lower_is_better is None:
        lower_is_better = bool(directions) and directions[0] == "lower"
    program = ordered[0].program if ordered else ""
    repeated = [r for r in ordered if getattr(r, "repeated_from", None)]
    return MetricSeries(
        program=program,
        seeds=[r.seed for r in ordered],
        values=np.asarray(values, dtype=float),
        failed=np.asarray(failed, dtype=bool),
        metric=chosen,
        lower_is_better=lower_is_better,
        outcomes=outcomes,
        metric_reason=_metric_reason(
            ordered, chosen, metric is not None if chosen_by_user is None else chosen_by_user
        ),
        per_input=per_input_set(ordered),
        repeated=len(repeated),
        repeated_note=_repeated_note(program, ordered, repeated),
        scaffolding_note=scaffolding_note(program, ordered),
    )


def scaffolding_note(program: str, records: Sequence[Any]) -> str | None:
    """What a reader must know of runs that failed after their model's work, in scaffolding
    (:mod:`mutreal.execution.scaffolding_failure`): they count as completed, with where they failed."""
    failed = [r for r in records if getattr(r, "scaffolding_failure", None)]
    if not failed:
        return None
    where = failed[0].scaffolding_failure
    return (
        f"{Path(program).name}: {len(failed)} of {len(records)} runs trained and evaluated, then failed in "
        f"statements that touch neither the model nor its data or outputs (line {where.get('line')} "
        f"`{where.get('statement')}`: {where.get('error_type')}: {str(where.get('error_message') or '')[:160]}); "
        "their training and evaluation are kept: not a crash of the model"
    )


def _metric_reason(records: Sequence[Any], chosen: str | None, by_user: bool) -> str:
    """Why ``chosen`` is compared, from the task and the metrics of the first run that completed."""
    done = [r for r in records if r.outcome == Outcome.OK]
    if not done:
        return metric_reason(chosen, None, given=by_user) if chosen else "no run completed: no metric"
    first = done[0]
    evaluations = [e for e in first.evaluations if getattr(e, "source", "evaluate") == "evaluate"]
    if evaluations:
        available = list(evaluations[-1].results)
    else:
        history = first.fits[-1].history if first.fits else {}
        available = [name[4:] if name.startswith("val_") else name for name in history]
    return metric_reason(chosen, run_task(first.fits, evaluations), available, given=by_user)


#: what each per-input source means, for the rows
PER_INPUT_SETS = {
    "evaluate": "the data of its last evaluate() call",
    "validation": "its validation data (fit's validation_data, or the share validation_split holds out)",
    "training": "its training data (the arrays passed to fit; DeepCrime measures killability there)",
}


#: per-input sets a program makes from its own training arrays: another program's (a mutant of its
#: training data, the buggy side of a data fault) are other inputs when their labels differ
TRAINING_SETS = ("training", "validation")


def _labels_key(record: Any) -> tuple[Any, ...] | None:
    """The labels of a run's per-input record, to tell whether two runs judged the same inputs."""
    last = record.last_evaluation
    labels = last.labels if last is not None else None
    return None if labels is None else tuple(labels)


def per_input_set(records: Sequence[Any]) -> dict[str, Any] | None:
    """Which inputs the completed runs' per-input correctness is on: ``{"source", "set", "n_inputs",
    "runs"}`` (``source`` is ``mixed`` when runs disagree: other sets, or other labels, as a program
    that shuffles its arrays without a seed has), or None when no run recorded any."""
    sources: dict[str, int] = {}
    widths: set[int] = set()
    labels: set[tuple[Any, ...]] = set()
    for record in records:
        last = record.last_evaluation if record.outcome == Outcome.OK else None
        if last is None or last.predictions is None:
            continue
        source = getattr(last, "source", "evaluate")
        sources[source] = sources.get(source, 0) + 1
        widths.add(len(last.predictions))
        key = _labels_key(record)
        if key is not None:
            labels.add(key)
    if not sources:
        return None
    source = next(iter(sources)) if len(sources) == 1 and len(labels) <= 1 else "mixed"
    return {
        "source": source,
        "set": PER_INPUT_SETS.get(source, "runs disagree on their per-input data"),
        "n_inputs": widths.pop() if len(widths) == 1 else None,
        "runs": sum(sources.values()),
    }


def runs_disagree(*groups: Sequence[Any]) -> bool:
    """True when some group's completed runs evaluated other inputs from run to run (its
    :func:`per_input_set` is ``mixed``). Then an input's position is not the same input in every run,
    and the kill's Fisher verdict (:mod:`mutreal.analysis.killing`) and the fault comparison
    (:mod:`mutreal.analysis.similarity`) pair inputs by content where they can: one test, so the two
    decide alike."""
    return any((found := per_input_set(g)) is not None and found["source"] == "mixed" for g in groups)


def _repeated_note(program: str, records: Sequence[Any], repeated: Sequence[Any]) -> str | None:
    if not repeated:
        return None
    first = repeated[0]
    trained = next((r for r in records if r.key == first.repeated_from), None)
    seed = f"seed {trained.seed}" if trained is not None else "its first run"
    return (
        f"{Path(program).name} crashed before its first epoch in {seed} ({first.error_type}: "
        f"{(first.error_message or '').splitlines()[0][:200] if first.error_message else 'no message'}); "
        f"{len(repeated)} of its {len(records)} runs repeat that crash, not trained (a crash before training "
        "does not depend on the seed; --repeat-crashes trains them)"
    )


def correctness_matrix(records: Sequence[Any], n_inputs: int | None = None) -> np.ndarray | None:
    """(instances x inputs) per-input correctness of the last ``evaluate()``, in seed order.

    A failed run is wrong on every input. ``None`` when no run has per-input correctness (no
    labels, regression, generators) or the runs disagree on the number of inputs.
    """
    ordered = _sorted(records)
    rows = [r.correct if r.outcome == Outcome.OK else None for r in ordered]
    if any(r.outcome == Outcome.OK and row is None for r, row in zip(ordered, rows, strict=True)):
        return None  # a successful run without per-input correctness: nothing to pair
    chosen = per_input_set(ordered)
    if chosen is not None and chosen["source"] == "mixed":
        return None  # runs on different inputs cannot be paired input by input
    lengths = {len(row) for row in rows if row is not None}
    if n_inputs is not None:
        lengths.add(n_inputs)
    if len(lengths) != 1:
        return None
    width = lengths.pop()
    matrix = np.zeros((len(ordered), width), dtype=bool)
    for i, row in enumerate(rows):
        if row is not None:
            matrix[i] = np.asarray(row, dtype=bool)
    return matrix


def per_input_mismatch(*groups: Sequence[Any]) -> str | None:
    """Why these groups' per-input correctness cannot be paired input by input (programs measured on
    different sets: one evaluates, another only fits), or None when they can."""
    sets = [per_input_set(records) for records in groups]
    sources = {found["source"] for found in sets if found is not None}
    if "mixed" in sources:
        return (
            "per-input correctness differs between the runs of one program (other sets or labels per "
            "seed: data split or shuffled without a fixed seed): inputs cannot be paired, no per-input verdicts"
        )
    if len(sources) > 1:
        return (
            "per-input correctness is on different sets ("
            + ", ".join(sorted(sources))
            + "): inputs cannot be paired, no per-input verdicts"
        )
    if sources & set(TRAINING_SETS):
        # each program judged on its own training arrays: a change of the training data (TCL, TRD,
        # a data fault) gives other inputs or labels, and pairing them input by input means nothing
        keys = {_labels_key(first) for first in (_first_with_labels(records) for records in groups) if first}
        if len(keys) > 1:
            return (
                f"per-input correctness is on each program's own {next(iter(sources))} data, whose labels "
                "differ between the programs (the training data changed): inputs cannot be paired, no "
                "per-input verdicts"
            )
    return None


def _first_with_labels(records: Sequence[Any]) -> Any:
    return next((r for r in records if r.outcome == Outcome.OK and _labels_key(r) is not None), None)


def input_width(*groups: Sequence[Any]) -> int | None:
    """How many test inputs the per-input correctness of these runs has (None: no run recorded it, or
    the groups recorded it on different sets)."""
    if per_input_mismatch(*groups) is not None:
        return None
    for records in groups:
        for record in records:
            if record.outcome == Outcome.OK and record.correct is not None:
                return len(record.correct)
    return None


def correctness_matrices(width: int | None, *groups: Sequence[Any]) -> list[np.ndarray | None]:
    """Each group's per-input correctness over ``width`` inputs (all None when no width is known)."""
    return [correctness_matrix(records, width) if width is not None else None for records in groups]


def as_dict(value: Any) -> dict[str, Any] | None:
    """``value.to_dict()``, or None for a verdict or measure that could not be computed."""
    return None if value is None else value.to_dict()


def fisher_verdicts(fisher: FisherKill | None) -> dict[str, bool | None]:
    """The Fisher verdict's ``fisher_killed`` and ``fisher_killed_pool`` fields (None: no verdict)."""
    return {
        "fisher_killed": None if fisher is None else fisher.killed,
        "fisher_killed_pool": None if fisher is None else fisher.killed_pool,
    }
