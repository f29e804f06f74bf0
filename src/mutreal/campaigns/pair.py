"""Pair campaigns: train a buggy/fixed pair or a program and its mutants, then decide.

Training goes through :mod:`mutreal.execution`, deciding through :mod:`mutreal.analysis`; this
module only chains them (fixed or adaptive, with warm workers kept across rounds).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from mutreal.analysis.killing import KillReport, kill_from_records
from mutreal.analysis.reproduction import ReproductionReport, reproduce_from_records
from mutreal.analysis.series import metric_series
from mutreal.analysis.settings import DecisionSettings
from mutreal.analysis.similarity import CompareReport, compare_from_records
from mutreal.stats import (
    SequentialDecision,
)
from mutreal.stats.two_groups import KILL_EFFECT

if TYPE_CHECKING:
    from mutreal.execution.benchmark import BenchmarkCampaign


class _Bug(Protocol):
    """A bug of a benchmark manifest, as far as walking the manifest needs it."""

    id: str


T = TypeVar("T", bound=_Bug)


def seeds_and_options(
    runs: int, seeds: Sequence[int] | None, settings: DecisionSettings, campaign: Mapping[str, Any] | None
) -> tuple[list[int], dict[str, Any]]:
    """The seeds to train with (``seeds``, else 0..runs-1) and the campaign options with the metric."""
    seed_list = list(seeds) if seeds is not None else list(range(runs))
    return seed_list, {"metric": settings.metric, **dict(campaign or {})}


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
    """Mutants stored outside their original's folder run in it: they read its data files and see
    it under its own name.

    ``mutate --out mutants/`` writes mutants away from the program, whose CSVs, images or saved
    arrays sit beside it and are opened by relative paths; run from their own folder the mutants
    would all crash with a missing file (a "kill" that says nothing about the mutation). A mutant's
    original is the one its provenance names (:func:`mutreal.execution.mutant_origin.original_of`),
    else ``original``; a provenance whose original is not there raises
    :class:`~mutreal.execution.mutant_origin.ProvenanceError` before anything trains."""
    from mutreal.execution.mutant_origin import run_folder

    folders = {str(k): str(v) for k, v in (given or {}).items()}
    for mutant in mutants:
        home = run_folder(mutant, original) or Path(original).resolve().parent
        if str(mutant) not in folders and Path(mutant).resolve().parent != home:
            folders[str(mutant)] = str(home)
    return folders


def run_programs(
    programs: Sequence[str],
    seeds: Sequence[int],
    campaign: Mapping[str, Any] | None = None,
) -> list[list[Any]]:
    """Train each program once per seed in one campaign (shared warm workers); records per program."""
    from mutreal.execution import run_campaign

    options = dict(campaign or {})
    records = run_campaign(list(programs), seeds=list(seeds), **options)
    return split_by_program(records, len(programs), len(seeds))


class WarmWorkers:
    """Keep local warm workers across the several campaigns of one adaptive or search run, or a benchmark.

    Each round is its own campaign (so every finished run is stored); without this each round
    would pay interpreter and TensorFlow start-up again.
    """

    def __init__(self, options: dict[str, Any]) -> None:
        self.local = (options.get("executor") or "local") == "local"
        if self.local:
            options["keep_workers"] = True

    def __enter__(self) -> WarmWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.local:
            from mutreal.execution.pool import shutdown_idle_workers

            shutdown_idle_workers()


def bugs_to_decide(
    tasks: Iterable[T], skip: Container[str] | None, on_start: Callable[[T], None] | None
) -> Iterator[T]:
    """The bugs of a benchmark still to decide (those in ``skip`` are in the output already), in
    manifest order.

    ``reproduce --manifest`` and ``compare --manifest`` walk a benchmark this one way, so resuming
    and the progress callback (``on_start``, before a bug trains) behave the same in both."""
    for task in tasks:
        if skip and task.id in skip:
            continue
        if on_start is not None:
            on_start(task)
        yield task


@contextmanager
def benchmark_campaign(seeds: Sequence[int], options: dict[str, Any]) -> Iterator[BenchmarkCampaign]:
    """The one campaign of a benchmark (:class:`mutreal.execution.benchmark.BenchmarkCampaign`),
    with the local workers kept warm from the first bug to the last."""
    from mutreal.execution.benchmark import BenchmarkCampaign

    with WarmWorkers(options), BenchmarkCampaign(seeds, options) as campaign:
        yield campaign


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
    settings: DecisionSettings,
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

    metric, lower_is_better, _test, alpha = settings.as_tuple()
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
    warm = WarmWorkers(options)
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
    statistics: DecisionSettings | Mapping[str, Any] | None = None,
    adaptive: bool = False,
    min_runs: int = 5,
    step: int = 5,
    campaign: Mapping[str, Any] | None = None,
) -> ReproductionReport:
    """Train the buggy and the fixed program ``runs`` times each and apply the study's rule.

    ``statistics`` are the :class:`DecisionSettings` (or a command's mapping of them); ``campaign``
    holds :func:`mutreal.execution.run_campaign` options (jobs, executor, timeout_s, store, ...).
    With ``adaptive`` the runs stop early once the verdict is settled (see :mod:`mutreal.stats.sequential`).
    """
    settings = DecisionSettings.of(statistics)
    seed_list, options = seeds_and_options(runs, seeds, settings, campaign)
    sequential = None
    if adaptive:
        buggy_records, (fixed_records,), (sequential,) = run_adaptive(
            buggy, [fixed], seed_list, target="b better", effect=0.2, settings=settings,
            min_runs=min_runs, step=step, campaign=options,
        )  # fmt: skip
        sequential.runs_saved += len(seed_list) - len(buggy_records)  # the buggy program stopped too
    else:
        buggy_records, fixed_records = run_programs([buggy, fixed], seed_list, options)
    return reproduce_from_records(
        buggy_records, fixed_records, symptom=symptom, settings=settings, sequential=sequential
    )


def kill(
    original: str,
    mutants: Sequence[str],
    *,
    runs: int = 20,
    seeds: Sequence[int] | None = None,
    statistics: DecisionSettings | Mapping[str, Any] | None = None,
    adaptive: bool = False,
    min_runs: int = 5,
    step: int = 5,
    campaign: Mapping[str, Any] | None = None,
) -> KillReport:
    """Train the original and each mutant ``runs`` times; DeepCrime + Fisher verdicts, Holm across mutants.

    Mutants in another folder than the original (``mutate --out``) see the original's data files."""
    settings = DecisionSettings.of(statistics)
    seed_list, options = seeds_and_options(runs, seeds, settings, campaign)
    options["data_folders"] = mutant_data_folders(original, mutants, options.get("data_folders"))
    decisions: dict[str, SequentialDecision] | None = None
    if adaptive:
        original_records, groups, sequential = run_adaptive(
            original, list(mutants), seed_list, target="b worse", effect=KILL_EFFECT, settings=settings,
            min_runs=min_runs, step=step, campaign=options,
        )  # fmt: skip
        decisions = dict(zip(mutants, sequential, strict=True))
    else:
        original_records, *groups = run_programs([original, *mutants], seed_list, options)
    return kill_from_records(
        original_records, dict(zip(mutants, groups, strict=True)), settings=settings, sequential=decisions
    )


def compare(
    buggy: str,
    fixed: str,
    mutants: Sequence[str],
    *,
    runs: int = 20,
    seeds: Sequence[int] | None = None,
    statistics: DecisionSettings | Mapping[str, Any] | None = None,
    campaign: Mapping[str, Any] | None = None,
) -> CompareReport:
    """Train the buggy, fixed and mutant programs ``runs`` times each and compare mutants with the fault.

    The mutants are mutants of the fixed program: in another folder they see the fixed program's data."""
    settings = DecisionSettings.of(statistics)
    seed_list, options = seeds_and_options(runs, seeds, settings, campaign)
    options["data_folders"] = mutant_data_folders(fixed, mutants, options.get("data_folders"))
    buggy_records, fixed_records, *groups = run_programs([buggy, fixed, *mutants], seed_list, options)
    return compare_from_records(
        buggy_records, fixed_records, dict(zip(mutants, groups, strict=True)), settings=settings
    )
