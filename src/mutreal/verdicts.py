"""Verdicts over campaign records: reproduction, killing (DeepCrime + Fisher, Holm) and similarity.

The bridge between the runner's :class:`~mutreal.runner.records.RunRecord` lists and the pure
statistics of :mod:`mutreal.stats`. Records of one program are ordered by seed, so index ``i`` of
two programs is the same seed (the pairing the study's stability rule and the per-input killing
probability need). A failed run (any outcome but ``ok``, or no finite metric) has no metric and,
for per-input statistics, counts as wrong on every input: a crash fails every test.

Nothing here trains; :mod:`mutreal.commands` run the campaigns and call these functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mutreal.stats import (
    FisherKill,
    GroupComparison,
    KillingProbabilities,
    KillVerdict,
    ReproductionVerdict,
    SequentialDecision,
    Similarity,
    Summary,
    compare_groups,
    deepcrime_kill,
    fisher_kill,
    holm,
    killing_probabilities,
    reproduction_verdict,
    similarity,
    summarise,
)
from mutreal.stats.two_groups import KILL_EFFECT


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

    @property
    def aborted(self) -> np.ndarray:
        """Runs that did not complete (any outcome but ``ok``); a completed run may lack a metric."""
        return np.asarray([outcome != "ok" for outcome in self.outcomes], dtype=bool)

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
        }


def _sorted(records: Sequence[Any]) -> list[Any]:
    return sorted(records, key=lambda r: r.seed)


class LostRuns(RuntimeError):
    """Runs whose worker was lost (not the program's doing): no verdict is drawn from a campaign
    with such runs, because a rerun trains them again and may decide otherwise."""


def metric_series(
    records: Sequence[Any], metric: str | None = None, lower_is_better: bool | None = None
) -> MetricSeries:
    """The compared metric of each run of one program, in seed order.

    Raises :class:`LostRuns` when some run was lost: a lost run is no outcome of the program.

    ``metric`` picks a metric by name (default: the campaign's, i.e. the first of the last
    ``evaluate()``); ``lower_is_better`` defaults to the metric's direction (loss-like names).
    """
    ordered = _sorted(records)
    lost = [r for r in ordered if r.outcome == "lost"]
    if lost:
        cause = lost[0].error_message or "its worker went away"
        raise LostRuns(
            f"{len(lost)} run(s) of {Path(lost[0].program).name} were lost ({cause}); "
            "run the same command again to train them"
        )
    values, failed, outcomes, names, directions = [], [], [], [], []
    for record in ordered:
        name, value, direction = record.metric(metric)
        ok = record.outcome == "ok" and value is not None and math.isfinite(float(value))
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
    return MetricSeries(
        program=program,
        seeds=[r.seed for r in ordered],
        values=np.asarray(values, dtype=float),
        failed=np.asarray(failed, dtype=bool),
        metric=chosen,
        lower_is_better=lower_is_better,
        outcomes=outcomes,
    )


def correctness_matrix(records: Sequence[Any], n_inputs: int | None = None) -> np.ndarray | None:
    """(instances x inputs) per-input correctness of the last ``evaluate()``, in seed order.

    A failed run is wrong on every input. ``None`` when no run has per-input correctness (no
    labels, regression, generators) or the runs disagree on the number of inputs.
    """
    ordered = _sorted(records)
    rows = [r.correct if r.outcome == "ok" else None for r in ordered]
    if any(r.outcome == "ok" and row is None for r, row in zip(ordered, rows, strict=True)):
        return None  # a successful run without per-input correctness: nothing to pair
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


def _input_width(*groups: Sequence[Any]) -> int | None:
    for records in groups:
        for record in records:
            if record.outcome == "ok" and record.correct is not None:
                return len(record.correct)
    return None


def _correctness_matrices(width: int | None, *groups: Sequence[Any]) -> list[np.ndarray | None]:
    """Each group's per-input correctness over ``width`` inputs (all None when no width is known)."""
    return [correctness_matrix(records, width) if width is not None else None for records in groups]


def _as_dict(value: Any) -> dict[str, Any] | None:
    """``value.to_dict()``, or None for a verdict or measure that could not be computed."""
    return None if value is None else value.to_dict()


def _fisher_verdicts(fisher: FisherKill | None) -> dict[str, bool | None]:
    """The Fisher verdict's ``fisher_killed`` and ``fisher_killed_pool`` fields (None: no verdict)."""
    return {
        "fisher_killed": None if fisher is None else fisher.killed,
        "fisher_killed_pool": None if fisher is None else fisher.killed_pool,
    }


def _seeds_and_options(
    runs: int, seeds: Sequence[int] | None, metric: str | None, campaign: Mapping[str, Any] | None
) -> tuple[list[int], dict[str, Any]]:
    """The seeds to train with (``seeds``, else 0..runs-1) and the campaign options with the metric."""
    seed_list = list(seeds) if seeds is not None else list(range(runs))
    return seed_list, {"metric": metric, **dict(campaign or {})}


# -- reproduction -------------------------------------------------------------------------------


@dataclass
class ReproductionReport:
    """``mutreal reproduce``: the verdict with the two programs' run summaries."""

    buggy: MetricSeries
    fixed: MetricSeries
    verdict: ReproductionVerdict
    sequential: SequentialDecision | None = None

    def to_dict(self) -> dict[str, Any]:
        data = self.verdict.to_dict()
        data["buggy"] = self.buggy.to_dict()
        data["fixed"] = self.fixed.to_dict()
        data["metric"] = self.buggy.metric or self.fixed.metric
        data["lower_is_better"] = self.verdict.comparison.lower_is_better
        data["sequential"] = self.sequential.to_dict() if self.sequential else None
        return data


def reproduce_from_records(
    buggy: Sequence[Any],
    fixed: Sequence[Any],
    *,
    symptom: str = "auto",
    metric: str | None = None,
    lower_is_better: bool | None = None,
    test: str = "glm",
    alpha: float = 0.05,
    sequential: SequentialDecision | None = None,
) -> ReproductionReport:
    """The study's reproduction verdict from the runs of the buggy and the fixed program."""
    b = metric_series(buggy, metric, lower_is_better)
    f = metric_series(
        fixed, metric or b.metric, b.lower_is_better if lower_is_better is None else lower_is_better
    )
    verdict = reproduction_verdict(
        b.values,
        f.values,
        crashed_buggy=b.aborted,
        crashed_fixed=f.aborted,
        symptom=symptom,
        lower_is_better=b.lower_is_better,
        test=test,
        alpha=alpha,
    )
    return ReproductionReport(buggy=b, fixed=f, verdict=verdict, sequential=sequential)


# -- killing ------------------------------------------------------------------------------------


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "program": self.program,
            "killed": self.deepcrime.killed,
            "killed_by": self.deepcrime.killed_by,
            "killed_holm": self.killed_holm,
            "p_value": self.deepcrime.comparison.p_value,
            "p_value_holm": self.deepcrime_p_holm,
            "cohen_d": self.deepcrime.to_dict()["d_worse"],
            "effect": self.deepcrime.comparison.effect,
            **_fisher_verdicts(self.fisher),
            "fisher_killed_holm": self.fisher_killed_holm,
            "fisher_p_holm": self.fisher_p_holm,
            "mutant": self.series.to_dict(),
            "deepcrime": self.deepcrime.to_dict(),
            "fisher": _as_dict(self.fisher),
            "sequential": _as_dict(self.sequential),
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
        killed = sum(1 for m in self.mutants if m.deepcrime.killed)
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
            "mutation_score": killed / len(self.mutants) if self.mutants else None,
            "notes": list(self.notes),
        }


def kill_from_records(
    original: Sequence[Any],
    mutants: Mapping[str, Sequence[Any]],
    *,
    metric: str | None = None,
    lower_is_better: bool | None = None,
    test: str = "glm",
    alpha: float = 0.05,
    sequential: Mapping[str, SequentialDecision] | None = None,
) -> KillReport:
    """DeepCrime's verdict and the Fisher verdict for each mutant, with Holm across mutants."""
    o = metric_series(original, metric, lower_is_better)
    direction = o.lower_is_better
    notes: list[str] = []
    results: list[MutantKill] = []
    for name, records in mutants.items():
        m = metric_series(records, metric or o.metric, direction)
        verdict = deepcrime_kill(
            o.values,
            m.values,
            crashed_original=o.failed,
            crashed_mutant=m.failed,
            test=test,
            lower_is_better=direction,
            alpha=alpha,
        )
        width = _input_width(original, records)
        fisher = None
        original_matrix, mutant_matrix = _correctness_matrices(width, original, records)
        if original_matrix is not None and mutant_matrix is not None:
            fisher = fisher_kill(original_matrix, mutant_matrix, alpha=alpha)
        else:
            notes.append(f"{name}: no per-input correctness (labels, class predictions), no Fisher verdict")
        results.append(
            MutantKill(
                program=name,
                series=m,
                deepcrime=verdict,
                fisher=fisher,
                sequential=None if sequential is None else sequential.get(name),
            )
        )
    if results:
        corrected = holm([r.deepcrime.comparison.p_value for r in results], alpha)
        for r, p, rejected in zip(results, corrected.adjusted, corrected.rejected, strict=True):
            r.deepcrime_p_holm = p
            r.killed_holm = (rejected and r.deepcrime.d_worse >= r.deepcrime.kill_effect) or (
                r.deepcrime.killed_by == "crash"
            )
        with_fisher = [r for r in results if r.fisher is not None]
        if with_fisher:
            corrected = holm([r.fisher.min_p_value for r in with_fisher], alpha)  # type: ignore[union-attr]
            for r, p, rejected in zip(with_fisher, corrected.adjusted, corrected.rejected, strict=True):
                r.fisher_p_holm = p
                r.fisher_killed_holm = rejected
    return KillReport(original=o, mutants=results, test=test, alpha=alpha, notes=notes)


# -- real fault vs mutants ----------------------------------------------------------------------


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
            **_fisher_verdicts(self.fisher),
            "killing_agreement": self.killing_agreement,
            "fisher_agreement": self.fisher_agreement,
            "fisher_input_jaccard": self.fisher_input_jaccard,
            "metric_vs_fault": self.versus_fault.to_dict(),
            "coupling_strength": None if self.similarity is None else self.similarity.coupling_strength,
            "detectability_iou": None if self.similarity is None else self.similarity.detectability_iou,
            "similarity": _as_dict(self.similarity),
            "kill": self.kill.to_dict(),
            "fisher": _as_dict(self.fisher),
            "kp": _as_dict(self.kp),
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
            "buggy": self.buggy.to_dict(),
            "fixed": self.fixed.to_dict(),
            "fault": {
                "killed": self.fault_kill.killed,
                **_fisher_verdicts(self.fault_fisher),
                "kill": self.fault_kill.to_dict(),
                "fisher": _as_dict(self.fault_fisher),
                "kp": _as_dict(self.fault_kp),
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
    metric: str | None = None,
    lower_is_better: bool | None = None,
    test: str = "glm",
    alpha: float = 0.05,
) -> CompareReport:
    """Compare each mutant of the fixed program with the real fault (the buggy program).

    The real fault is treated as a mutant of the fixed program: the same kill verdicts and per-input
    killing probabilities are computed for it and for each mutant; then per mutant its metric
    distribution against the buggy program's (``metric_vs_fault``: ``no difference`` means alike),
    whether both are killed or both survive (killing agreement), and coupling strength / IoU.
    """
    f = metric_series(fixed, metric, lower_is_better)
    direction = f.lower_is_better
    b = metric_series(buggy, metric or f.metric, direction)
    notes: list[str] = []
    fault_kill = deepcrime_kill(
        f.values, b.values, crashed_original=f.failed, crashed_mutant=b.failed, test=test,
        lower_is_better=direction, alpha=alpha,
    )  # fmt: skip
    width = _input_width(fixed, buggy, *mutants.values())
    fixed_matrix, buggy_matrix = _correctness_matrices(width, fixed, buggy)
    fault_fisher = fault_kp = None
    if fixed_matrix is not None and buggy_matrix is not None:
        fault_fisher = fisher_kill(fixed_matrix, buggy_matrix, alpha)
        fault_kp = killing_probabilities(fixed_matrix, buggy_matrix)
    else:
        notes.append("no per-input correctness for the fixed/buggy pair: no KP, CS, IoU")

    results: list[MutantSimilarity] = []
    for name, records in mutants.items():
        m = metric_series(records, metric or f.metric, direction)
        kill = deepcrime_kill(
            f.values, m.values, crashed_original=f.failed, crashed_mutant=m.failed, test=test,
            lower_is_better=direction, alpha=alpha,
        )  # fmt: skip
        versus = compare_groups(
            b.values, m.values, crashed_a=b.failed, crashed_b=m.failed, test=test,
            lower_is_better=direction, alpha=alpha,
        )  # fmt: skip
        mutant_matrix = correctness_matrix(records, width) if width is not None else None
        fisher = kp = sim = None
        if fixed_matrix is not None and mutant_matrix is not None:
            fisher = fisher_kill(fixed_matrix, mutant_matrix, alpha)
            kp = killing_probabilities(fixed_matrix, mutant_matrix)
            if fault_kp is not None:
                sim = similarity(kp.kp, fault_kp.kp)
        elif fixed_matrix is not None:
            notes.append(f"{name}: no per-input correctness, no KP, CS, IoU")
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


# -- campaigns for verdicts ---------------------------------------------------------------------


def split_by_program(records: Sequence[Any], n_programs: int, n_seeds: int) -> list[list[Any]]:
    """Cut ``run_campaign``'s records (programs x seeds order) into one list per program.

    Position, not ``record.program``, decides: two programs with identical text share run keys,
    so the runner returns the same record (named after the first) for both.
    """
    if len(records) == n_programs * n_seeds:
        return [list(records[i * n_seeds : (i + 1) * n_seeds]) for i in range(n_programs)]
    raise RuntimeError(
        f"the campaign returned {len(records)} runs for {n_programs} programs x {n_seeds} seeds "
        "(interrupted?); run the command again: stored runs are reused"
    )


def mutant_data_folders(
    original: str | Path, mutants: Sequence[str | Path], given: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """Mutants stored outside their original's folder read the original's data files.

    ``mutate --out mutants/`` writes mutants away from the program, whose CSVs, images or saved
    arrays sit beside it and are opened by relative paths; run from their own folder the mutants
    would all crash with a missing file (a "kill" that says nothing about the mutation)."""
    folders = {str(k): str(v) for k, v in (given or {}).items()}
    home = Path(original).resolve().parent
    for mutant in mutants:
        if str(mutant) not in folders and Path(mutant).resolve().parent != home:
            folders[str(mutant)] = str(home)
    return folders


def run_programs(
    programs: Sequence[str],
    seeds: Sequence[int],
    campaign: Mapping[str, Any] | None = None,
) -> list[list[Any]]:
    """Train each program once per seed in one campaign (shared warm workers); records per program."""
    from mutreal.runner import run_campaign

    options = dict(campaign or {})
    records = run_campaign(list(programs), seeds=list(seeds), **options)
    return split_by_program(records, len(programs), len(seeds))


class _WarmWorkers:
    """Keep local warm workers across the several campaigns of one adaptive or search run.

    Each round is its own campaign (so every finished run is stored); without this each round
    would pay interpreter and TensorFlow start-up again.
    """

    def __init__(self, options: dict[str, Any]) -> None:
        self.local = (options.get("executor") or "local") == "local"
        if self.local:
            options["keep_workers"] = True

    def __enter__(self) -> _WarmWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.local:
            from mutreal.runner.pool import shutdown_idle_workers

            shutdown_idle_workers()


@dataclass
class _Adaptive:
    """State of one compared program in an adaptive campaign."""

    target: str
    effect: float
    looks: list[Any] = field(default_factory=list)
    decided: bool = False


def run_adaptive(
    reference: str,
    others: Sequence[str],
    seeds: Sequence[int],
    *,
    target: str,
    effect: float,
    lower_is_better: bool | None,
    metric: str | None,
    alpha: float,
    min_runs: int,
    step: int,
    campaign: Mapping[str, Any] | None = None,
) -> tuple[list[Any], list[list[Any]], list[SequentialDecision]]:
    """Train in rounds of ``step`` seeds and stop each compared program once its verdict is settled.

    The reference (original / buggy) gets as many runs as the longest-running other program. Runs
    of earlier rounds come back from the store (a temporary one when the caller gave none).
    Returns (reference records, records per other program, sequential decision per other program).
    """
    import tempfile

    from mutreal.stats.sequential import RULE, look_at

    options = dict(campaign or {})
    temporary = None
    if not options.get("store"):
        temporary = tempfile.TemporaryDirectory(prefix="mutreal-adaptive-")
        options["store"] = str(Path(temporary.name) / "runs.sqlite")
    planned = len(seeds)
    states = [_Adaptive(target, effect) for _ in others]
    collected: list[list[Any]] = [[] for _ in others]
    reference_records: list[Any] = []
    n = min(min_runs, planned)
    warm = _WarmWorkers(options)
    try:
        while True:
            active = [i for i, s in enumerate(states) if not s.decided]
            batch = [reference] + [others[i] for i in active]
            groups = run_programs(batch, seeds[:n], options)
            reference_records = groups[0]
            ref = metric_series(reference_records, metric, lower_is_better)
            for slot, i in enumerate(active, start=1):
                collected[i] = groups[slot]
                other = metric_series(groups[slot], metric or ref.metric, ref.lower_is_better)
                look = look_at(
                    ref.values, other.values, planned_runs=planned, min_runs=min_runs, step=step,
                    crashed_a=ref.failed, crashed_b=other.failed, target=target, effect=effect,
                    lower_is_better=ref.lower_is_better, alpha=alpha,
                )  # fmt: skip
                states[i].looks.append(look)
                states[i].decided = look.stop
            if all(s.decided for s in states) or n >= planned:
                break
            n = min(n + step, planned)
    finally:
        warm.__exit__()
        if temporary is not None:
            temporary.cleanup()
    decisions = []
    for state, records in zip(states, collected, strict=True):
        last = state.looks[-1]
        used = min(len(records), planned)
        decisions.append(
            SequentialDecision(
                target=target,
                planned_runs=planned,
                min_runs=min_runs,
                used_runs=used,
                decision=bool(last.decision),
                stopped_early=used < planned,
                runs_saved=planned - used,  # this program's own runs; callers add the reference's
                rule=RULE,
                looks=state.looks,
            )
        )
    return reference_records, collected, decisions


def reproduce(
    buggy: str,
    fixed: str,
    *,
    runs: int = 20,
    seeds: Sequence[int] | None = None,
    symptom: str = "auto",
    metric: str | None = None,
    lower_is_better: bool | None = None,
    test: str = "glm",
    alpha: float = 0.05,
    adaptive: bool = False,
    min_runs: int = 5,
    step: int = 5,
    campaign: Mapping[str, Any] | None = None,
) -> ReproductionReport:
    """Train the buggy and the fixed program ``runs`` times each and apply the study's rule.

    ``campaign`` holds :func:`mutreal.runner.run_campaign` options (jobs, executor, timeout_s,
    store, ...). With ``adaptive`` the runs stop early once the verdict is settled (see
    :mod:`mutreal.stats.sequential`).
    """
    seed_list, options = _seeds_and_options(runs, seeds, metric, campaign)
    sequential = None
    if adaptive:
        buggy_records, (fixed_records,), (sequential,) = run_adaptive(
            buggy, [fixed], seed_list, target="b better", effect=0.2, lower_is_better=lower_is_better,
            metric=metric, alpha=alpha, min_runs=min_runs, step=step, campaign=options,
        )  # fmt: skip
        sequential.runs_saved += len(seed_list) - len(buggy_records)  # the buggy program stopped too
    else:
        buggy_records, fixed_records = run_programs([buggy, fixed], seed_list, options)
    return reproduce_from_records(
        buggy_records, fixed_records, symptom=symptom, metric=metric, lower_is_better=lower_is_better,
        test=test, alpha=alpha, sequential=sequential,
    )  # fmt: skip


def kill(
    original: str,
    mutants: Sequence[str],
    *,
    runs: int = 20,
    seeds: Sequence[int] | None = None,
    metric: str | None = None,
    lower_is_better: bool | None = None,
    test: str = "glm",
    alpha: float = 0.05,
    adaptive: bool = False,
    min_runs: int = 5,
    step: int = 5,
    campaign: Mapping[str, Any] | None = None,
) -> KillReport:
    """Train the original and each mutant ``runs`` times; DeepCrime + Fisher verdicts, Holm across mutants.

    Mutants in another folder than the original (``mutate --out``) see the original's data files."""
    seed_list, options = _seeds_and_options(runs, seeds, metric, campaign)
    options["data_folders"] = mutant_data_folders(original, mutants, options.get("data_folders"))
    decisions: dict[str, SequentialDecision] | None = None
    if adaptive:
        original_records, groups, sequential = run_adaptive(
            original, list(mutants), seed_list, target="b worse", effect=KILL_EFFECT,
            lower_is_better=lower_is_better, metric=metric, alpha=alpha, min_runs=min_runs, step=step,
            campaign=options,
        )  # fmt: skip
        decisions = dict(zip(mutants, sequential, strict=True))
    else:
        original_records, *groups = run_programs([original, *mutants], seed_list, options)
    return kill_from_records(
        original_records, dict(zip(mutants, groups, strict=True)), metric=metric,
        lower_is_better=lower_is_better, test=test, alpha=alpha, sequential=decisions,
    )  # fmt: skip


def compare(
    buggy: str,
    fixed: str,
    mutants: Sequence[str],
    *,
    runs: int = 20,
    seeds: Sequence[int] | None = None,
    metric: str | None = None,
    lower_is_better: bool | None = None,
    test: str = "glm",
    alpha: float = 0.05,
    campaign: Mapping[str, Any] | None = None,
) -> CompareReport:
    """Train the buggy, fixed and mutant programs ``runs`` times each and compare mutants with the fault.

    The mutants are mutants of the fixed program: in another folder they see the fixed program's data."""
    seed_list, options = _seeds_and_options(runs, seeds, metric, campaign)
    options["data_folders"] = mutant_data_folders(fixed, mutants, options.get("data_folders"))
    buggy_records, fixed_records, *groups = run_programs([buggy, fixed, *mutants], seed_list, options)
    return compare_from_records(
        buggy_records, fixed_records, dict(zip(mutants, groups, strict=True)), metric=metric,
        lower_is_better=lower_is_better, test=test, alpha=alpha,
    )  # fmt: skip


# -- operator sensitivity -----------------------------------------------------------------------


@dataclass
class SensitivityPoint:
    """One operator value: the mutant, its runs (mean, spread, N) and DeepCrime's verdict on it."""

    value: Any
    program: str
    series: MetricSeries
    kill: KillVerdict

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "program": self.program,
            "killed": self.kill.killed,
            "p_value": self.kill.comparison.p_value,
            "d_worse": self.kill.to_dict()["d_worse"],
            "mutant": self.series.to_dict(),
        }


@dataclass
class SensitivityReport:
    """``mutreal sensitivity``: the metric against an operator's parameter, and the killable threshold."""

    program: str
    operator: str
    site: int
    element: str
    original_value: Any
    original: MetricSeries
    points: list[SensitivityPoint]
    search: dict[str, Any] | None = None
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "program": self.program,
            "operator": self.operator,
            "site": self.site,
            "element": self.element,
            "original_value": self.original_value,
            "original": self.original.to_dict(),
            "points": [p.to_dict() for p in self.points],
            "search": self.search,
            "errors": list(self.errors),
        }


def write_mutant(program: str, operator: str, site: int, value: Any, out_dir: str | Path) -> str:
    """Write the first-order mutant of ``program`` (operator, site, value) into ``out_dir``; its path.

    The files are written by :func:`mutreal.mutation.mutate.write_mutant`, so a sensitivity mutant and a
    ``mutreal mutate`` mutant are the same bytes."""
    from mutreal.mutation.mutate import write_mutant as write_mutant_files
    from mutreal.mutation.operators import Program, registry

    mutant = registry.get(operator).mutant(Program.from_file(program), site, value)
    return write_mutant_files(mutant, str(out_dir))[0]


def mark_output_folder(folder: str | Path) -> bool:
    """Create ``folder`` and mark it as mutreal's output when it is new, empty or already marked.

    A program folder's data hash skips a marked subfolder, so mutants and plots written there
    never change the program's run keys. A folder that already holds other files is not marked:
    it may be data. True when the folder is marked.
    """
    from mutreal.runner.hashing import OUTPUT_MARKER

    path = Path(folder)
    marker = path / OUTPUT_MARKER
    if path.is_dir() and not marker.exists() and any(path.iterdir()):
        return False
    path.mkdir(parents=True, exist_ok=True)
    marker.touch()
    return True


def _numeric(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _midpoint(low: float, high: float, integer: bool) -> float:
    """Binary-search midpoint; geometric when both ends are positive and an order of magnitude apart."""
    if low > 0 and high > 0 and max(low, high) / min(low, high) >= 10:
        mid = math.sqrt(low * high)
    else:
        mid = (low + high) / 2
    return float(round(mid)) if integer else mid


def sensitivity(
    program: str,
    operator: str,
    values: Sequence[Any] | None = None,
    *,
    site: int = 0,
    runs: int = 5,
    seeds: Sequence[int] | None = None,
    search: bool = False,
    search_steps: int = 4,
    search_from: Any = None,
    out_dir: str | Path | None = None,
    metric: str | None = None,
    lower_is_better: bool | None = None,
    test: str = "glm",
    alpha: float = 0.05,
    campaign: Mapping[str, Any] | None = None,
) -> SensitivityReport:
    """Train mutants of ``program`` over operator values; optionally binary-search the killable threshold.

    ``values`` default to the operator's catalogue values at the site. Mutants are written into
    ``out_dir`` (default: the program's folder) with their provenance JSON; wherever they are, they
    run with the program's folder as their data folder (:func:`mutant_data_folders`), so they find
    its data files. ``search`` follows DeepCrime: if the most
    aggressive value (``search_from``, default the value farthest from the original) kills, halve
    the interval between it and the original value ``search_steps`` times, keeping the killing
    end; the threshold is the killing value closest to the original.
    """
    import tempfile

    from mutreal.mutation.operators import Program, registry

    op = registry.get(operator)
    source = Program.from_file(program)
    sites = op.sites(source)
    if not 0 <= site < len(sites):
        raise ValueError(f"{operator} has {len(sites)} site(s) in {program}; no site {site}")
    chosen_site = sites[site]
    candidates = list(values) if values else op.values(source, chosen_site)
    folder = Path(out_dir) if out_dir is not None else Path(program).resolve().parent
    seed_list, options = _seeds_and_options(runs, seeds, metric, campaign)
    temporary = None
    if search and not options.get("store"):
        temporary = tempfile.TemporaryDirectory(prefix="mutreal-sensitivity-")
        options["store"] = str(Path(temporary.name) / "runs.sqlite")
    errors: list[str] = []
    warm = _WarmWorkers(options) if search else None
    try:
        written: list[tuple[Any, str]] = []
        for value in candidates:
            try:
                written.append((value, write_mutant(program, operator, site, value, folder)))
            except Exception as error:  # noqa: BLE001 - one bad value never stops the sweep
                errors.append(f"{operator}={value!r}: {error}")
        paths = [path for _, path in written]
        options["data_folders"] = mutant_data_folders(program, paths, options.get("data_folders"))
        groups = run_programs([program, *paths], seed_list, options)
        original = metric_series(groups[0], metric, lower_is_better)

        def point(value: Any, path: str, records: Sequence[Any]) -> SensitivityPoint:
            series = metric_series(records, metric or original.metric, original.lower_is_better)
            verdict = deepcrime_kill(
                original.values, series.values, crashed_original=original.failed, crashed_mutant=series.failed,
                test=test, lower_is_better=original.lower_is_better, alpha=alpha,
            )  # fmt: skip
            return SensitivityPoint(value=value, program=path, series=series, kill=verdict)

        points = [point(v, p, g) for (v, p), g in zip(written, groups[1:], strict=True)]
        search_result = None
        if search:
            search_result = _binary_search(
                program, operator, site, chosen_site.original, candidates, points, point, search_steps,
                search_from, folder, seed_list, options, errors,
            )  # fmt: skip
    finally:
        if warm is not None:
            warm.__exit__()
        if temporary is not None:
            temporary.cleanup()
    points.sort(key=lambda p: (_numeric(p.value) is None, _numeric(p.value) or 0.0, str(p.value)))
    return SensitivityReport(
        program=program,
        operator=operator,
        site=site,
        element=chosen_site.element,
        original_value=chosen_site.original,
        original=original,
        points=points,
        search=search_result,
        errors=errors,
    )


def _binary_search(
    program: str,
    operator: str,
    site: int,
    original_value: Any,
    candidates: Sequence[Any],
    points: list[SensitivityPoint],
    point: Any,
    steps: int,
    search_from: Any,
    folder: Path,
    seeds: Sequence[int],
    options: Mapping[str, Any],
    errors: list[str],
) -> dict[str, Any]:
    """DeepCrime's killable-threshold search between the original value and the most aggressive one."""
    start = _numeric(original_value)
    if start is None:
        start = 0.0  # percentage operators (TRD, TCL, ...) start from "nothing changed"
    numeric = [(v, _numeric(v)) for v in candidates if _numeric(v) is not None]
    if not numeric:
        return {"searched": False, "reason": "the operator's parameter is not numeric (categorical values are "
                "swept exhaustively, as DeepCrime does)"}  # fmt: skip
    integer = all(float(n).is_integer() for _, n in numeric) and float(start).is_integer()

    def distance(n: float) -> float:
        if n > 0 and start > 0:
            return abs(math.log(n / start))
        return abs(n - start)

    extreme = (
        _numeric(search_from) if search_from is not None else max(numeric, key=lambda p: distance(p[1]))[1]
    )
    if extreme is None:
        return {"searched": False, "reason": f"--search-from {search_from!r} is not a number"}
    evaluated = {float(_numeric(p.value)): p for p in points if _numeric(p.value) is not None}

    def evaluate(value: float) -> SensitivityPoint | None:
        if value in evaluated:
            return evaluated[value]
        typed: Any = int(value) if integer else value
        try:
            path = write_mutant(program, operator, site, typed, folder)
        except Exception as error:  # noqa: BLE001
            errors.append(f"{operator}={typed!r}: {error}")
            return None
        folders = mutant_data_folders(program, [path], options.get("data_folders"))
        _, records = run_programs([program, path], seeds, {**options, "data_folders": folders})
        result = point(typed, path, records)
        points.append(result)
        evaluated[value] = result
        return result

    if integer:
        extreme, start = float(round(extreme)), float(round(start))

    def shown(value: float) -> int | float:
        return int(value) if integer else value

    trail: list[dict[str, Any]] = []
    first = evaluate(extreme)
    if first is None or not first.kill.killed:
        return {"searched": True, "killable": False, "threshold": None, "from": shown(extreme),
                "original": shown(start), "trail": [{"value": shown(extreme), "killed": False}]}  # fmt: skip
    trail.append({"value": shown(extreme), "killed": True})
    killing, surviving = extreme, start
    for _ in range(steps):
        mid = _midpoint(surviving, killing, integer)
        if mid in (killing, surviving):
            break
        result = evaluate(mid)
        if result is None:
            break
        trail.append({"value": shown(mid), "killed": result.kill.killed})
        if result.kill.killed:
            killing = mid
        else:
            surviving = mid
    return {"searched": True, "killable": True, "threshold": shown(killing), "last_surviving": shown(surviving),
            "from": shown(extreme), "original": shown(start), "trail": trail}  # fmt: skip
