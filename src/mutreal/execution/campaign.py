"""Campaigns: train programs N times each, store every run, and describe how it was done.

:func:`run_campaign` is the runner's Python API (``mutreal run``, ``reproduce``, ``kill``, ``compare``
and ``sensitivity`` all go through it). It reads each program, computes each run's key, skips runs the
store already has, runs the rest on warm local workers or Ray, writes each record as it finishes, and
writes the campaign's manifest (versions, Python, OS, CPU/GPU, seeds) and full configuration as YAML
(which ``mutreal run --config`` accepts again). This module is the loop; the configuration
(:mod:`.campaign_config`), the written files (:mod:`.campaign_files`), records made from results
(:mod:`.run_results`), the executor choice (:mod:`.executor_choice`) and the summaries
(:mod:`.summaries`) are their own modules.
"""

from __future__ import annotations

import datetime as _dt
import sys
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mutreal.execution import environment
from mutreal.execution.campaign_config import CampaignConfig, campaign_config
from mutreal.execution.campaign_files import build_manifest, utc_now, write_campaign_files
from mutreal.execution.crash_repeats import after_probes, crashed_before_first_epoch, phases, program_identity
from mutreal.execution.executor import map_probes_first
from mutreal.execution.executor_choice import (
    describe_isolation,
    end_kept_workers,
    make_executor,
    setup_errors,
)
from mutreal.execution.plan import (
    CampaignPlan,
    PlannedRun,
    PlanStatus,
    PreparedProgram,
    plan_campaign,
    prepare_program,
)
from mutreal.execution.records import Outcome, RunRecord
from mutreal.execution.run_results import decided_without_training, record_from_result, record_lost
from mutreal.execution.store import RunStore


def _progress(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc="runs", unit="run", file=sys.stderr, disable=None if enabled else True)


@dataclass
class CampaignResult:
    """What one campaign gives back: its records (programs x seeds order) and the facts about it.

    Returned by :func:`execute_campaign` instead of being left in module state, so two campaigns of
    one process (threads, rounds of ``--adaptive``, a benchmark) never read each other's facts.
    ``config``/``manifest`` are the paths of the written YAML files (``None`` for a campaign that
    keeps nothing on disk); ``trained`` counts runs trained now, ``reused`` runs taken from the store.
    """

    records: list[RunRecord]
    id: str
    config: str | None
    manifest: str | None
    worker_startup_s: float | None
    gpu: dict[str, float] | None
    wall_time_s: float
    trained: int
    reused: int

    def facts(self) -> dict[str, Any]:
        """The campaign's facts without the records (what ``mutreal run --json`` prints as ``campaign``)."""
        return {name: getattr(self, name) for name in _FACTS}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: the facts and every record (``RunRecord.to_dict``)."""
        return {**self.facts(), "records": [record.to_dict() for record in self.records]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CampaignResult:
        return cls(records=[RunRecord.from_dict(r) for r in data.get("records", [])],
                   **{name: data.get(name) for name in _FACTS})  # fmt: skip


#: The facts of :class:`CampaignResult` in the order ``mutreal run --json`` has always printed them.
_FACTS = ("id", "config", "manifest", "worker_startup_s", "gpu", "wall_time_s", "trained", "reused")


def run_campaign(
    programs: Sequence[str | Path] | None = None,
    runs: int | None = None,
    **options: Any,
) -> list[RunRecord]:
    """Train every program once per seed and return one record per run (programs x seeds order).

    The records of :func:`execute_campaign` (same arguments), for callers that need only them."""
    return execute_campaign(programs, runs, **options).records


def execute_campaign(
    programs: Sequence[str | Path] | None = None,
    runs: int | None = None,
    *,
    jobs: int | None = None,
    executor: str | None = None,
    address: str | None = None,
    timeout_s: float | None = None,
    memory_limit_mb: float | None = None,
    store: str | Path | RunStore | None = None,
    seeds: Sequence[int] | None = None,
    metric: str | None = None,
    modernize: bool | None = None,
    framework: str | None = None,
    keep_workers: bool | None = None,
    sandbox_mode: str | None = None,
    env: Sequence[str] | None = None,
    data_folders: Mapping[str | Path, str | Path] | None = None,
    repeat_crashes: bool | None = None,
    args: Sequence[str] | None = None,
    program_args: Mapping[str | Path, Sequence[str]] | None = None,
    config: CampaignConfig | None = None,
    progress: bool = True,
    on_record: Callable[[RunRecord], None] | None = None,
    manifest_dir: str | Path | None = None,
) -> CampaignResult:
    """Train every program once per seed in sandboxed warm workers; the records and the campaign's facts.

    Arguments given here override those of ``config`` (a :class:`CampaignConfig`, e.g. loaded from a
    campaign's ``.config.yaml``). ``store`` is a SQLite path (or an open :class:`RunStore`): runs
    already in it are reused, not retrained (their records have ``reused=True``), and every new run is
    committed the moment it finishes. Without a store nothing is kept on disk.

    The result's records are in the order programs x seeds. A program that fails (crash, timeout, memory,
    missing data) gives records with that outcome; the campaign always goes on. The campaign's
    configuration and manifest are written next to the store (or into ``manifest_dir``) as
    ``<store stem>.<campaign id>.config.yaml`` / ``.manifest.yaml``; the paths are in the
    :class:`CampaignResult`. ``data_folders`` maps a program to the folder whose data files it sees
    when that is not its own (mutants written elsewhere read their original's data); ``args`` are the
    command-line arguments every program is given, ``program_args`` a program's own instead (a
    manifest's ``args`` column; they enter its run key). ``keep_workers=True`` keeps the warm local workers for the next campaign
    of this process (several rounds or commands in one process pay TensorFlow's start-up once).
    A program whose first run crashes before its first epoch is not trained again: its other seeds
    get records that repeat that crash (``repeated_from``); ``repeat_crashes=True`` trains them all.
    """
    cfg = campaign_config(config, {
        "programs": programs, "runs": runs, "jobs": jobs, "executor": executor, "address": address,
        "timeout_s": timeout_s, "memory_limit_mb": memory_limit_mb, "seeds": seeds, "metric": metric,
        "modernize": modernize, "framework": framework, "keep_workers": keep_workers, "sandbox_mode": sandbox_mode,
        "env": env, "store": store, "data_folders": data_folders, "repeat_crashes": repeat_crashes,
        "args": args, "program_args": program_args,
    })  # fmt: skip
    if not cfg.programs:
        raise ValueError("no programs to run")
    prepared = [prepare_program(Path(p), cfg.modernize, cfg.data_folder(p), cfg.framework, cfg.args_for(p))
                for p in cfg.programs]  # fmt: skip
    opened = open_campaign(cfg, store, prepared, manifest_dir)
    try:
        plan = plan_campaign(cfg, prepared, opened.store, opened.id, env_hash=environment.environment_hash(),
                             memory_limit_mb=opened.memory_limit_mb)  # fmt: skip
        bar = _progress(len(plan.to_train()), progress)
        try:
            done = execute_plan(plan, plan.runs, cfg, opened.store, opened.id, bar=bar, on_record=on_record)
        finally:
            bar.close()
    finally:
        opened.close()
    return CampaignResult(
        records=[done.records[run.key] for run in plan.runs if run.key in done.records],
        id=opened.id,
        config=opened.files[0],
        manifest=opened.files[1],
        worker_startup_s=done.worker_startup_s,
        gpu=done.gpu,
        wall_time_s=done.wall_time_s,
        trained=done.trained,
        reused=sum(1 for r in done.records.values() if r.reused),
    )


@dataclass
class OpenCampaign:
    """A campaign started: its id, its store (closed with it when it opened it), the paths of its
    written configuration and manifest, and the memory limit its runs get."""

    id: str
    store: RunStore
    own_store: bool
    files: tuple[str | None, str | None]
    memory_limit_mb: float

    def close(self) -> None:
        if self.own_store:
            self.store.close()


def open_campaign(
    cfg: CampaignConfig,
    store: str | Path | RunStore | None,
    prepared: Sequence[PreparedProgram],
    manifest_dir: str | Path | None = None,
    campaign_id: str | None = None,
) -> OpenCampaign:
    """Give the campaign an id, open its store, record it there and write its configuration and
    manifest files (next to the store, or into ``manifest_dir``)."""
    isolation = describe_isolation(cfg)
    campaign_id = campaign_id or (
        _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    )
    started_at = utc_now()
    memory_limit = cfg.resolved_memory_limit_mb()
    own_store = not isinstance(store, RunStore)
    run_store = store if isinstance(store, RunStore) else RunStore(cfg.store or ":memory:")
    try:
        manifest = build_manifest(cfg, campaign_id, list(prepared), isolation)
        run_store.put_campaign(campaign_id, started_at, cfg.to_yaml(), manifest)
        files: tuple[str | None, str | None] = (None, None)
        if manifest_dir is not None or run_store.path != ":memory:":
            folder = Path(manifest_dir) if manifest_dir is not None else Path(run_store.path).parent
            stem = Path(run_store.path).stem if run_store.path != ":memory:" else "campaign"
            config_path, manifest_path = write_campaign_files(cfg, manifest, folder, f"{stem}.{campaign_id}")
            files = (str(config_path), str(manifest_path))
    except BaseException:
        if own_store:
            run_store.close()
        raise
    return OpenCampaign(campaign_id, run_store, own_store, files, memory_limit)


@dataclass
class PlanExecution:
    """What executing rows of a plan gave: the records by run key and the executor's facts."""

    records: dict[str, RunRecord]
    trained: int
    worker_startup_s: float | None
    gpu: dict[str, float] | None
    wall_time_s: float


def execute_plan(
    plan: CampaignPlan,
    runs: Sequence[PlannedRun],
    cfg: CampaignConfig,
    run_store: RunStore,
    campaign_id: str,
    *,
    bar: Any,
    on_record: Callable[[RunRecord], None] | None = None,
) -> PlanExecution:
    """Train the rows among ``runs`` (rows of ``plan``) that are not ``done``, storing each run with
    its row's new status in one transaction; the records of every row of ``runs`` by key.

    Unless ``cfg.repeat_crashes``, a program with several rows to train is trained with one seed
    first: when that run crashes before its first epoch (:func:`crashed_before_first_epoch`), its
    other rows are not trained but get records repeating that crash, stored as trained runs are
    (``repeat_crashes`` trains them again); the others train next, on the same warm workers.

    ``bar`` (a tqdm bar) advances by one per trained or repeated run. On Ctrl-C/SIGTERM, or an executor
    gone mid-way, every run without a result is stored as ``lost`` (the next start trains it again)."""
    records: dict[str, RunRecord] = {}
    for run in runs:
        if run.status == PlanStatus.DONE:
            records[run.key] = decided_without_training(run, cfg, campaign_id)
    first, later = phases(plan, runs, records, cfg.repeat_crashes)
    every = [plan.task(run, cfg) for run in [*first, *later]]
    trained: set[str] = set()

    def keep(record: RunRecord) -> None:
        run_store.put(record, plan_id=plan.id, plan_status=PlanStatus.of(record).value)
        records[record.key] = record
        _announce(record, bar, on_record)

    def finished(task: dict[str, Any], result: dict[str, Any]) -> None:
        record = record_from_result(task, result, cfg, campaign_id)
        trained.add(record.key)
        keep(record)

    started = time.monotonic()
    monitor = environment.GpuMonitor()
    executor_used = None
    if every:
        phased = bool(later) and bool(first)
        executor_used = make_executor(cfg, plan.memory_limit_mb, keep_workers=cfg.keep_workers or phased)
        startups: list[float | None] = []

        def train(phase: Sequence[PlannedRun]) -> None:
            if phase:
                executor_used.map([plan.task(run, cfg) for run in phase], finished)
                startups.append(getattr(executor_used, "startup_s", None))

        def train_probes_first() -> None:
            """The local pool trains the other seeds on the workers the probes leave idle, holding
            their results until the probe says its program trains (:func:`map_probes_first`): the
            records are those of two phases in a row, without the second phase's wait for the first."""
            probed = {program_identity(plan, run) for run in first}
            rest = [run for run in later if program_identity(plan, run) in probed]
            rest += after_probes(plan, [r for r in later if program_identity(plan, r) not in probed],
                                 records, campaign_id, bar, keep)  # fmt: skip
            identity = {run.key: program_identity(plan, run) for run in [*first, *rest]}

            def probe_done(task: dict[str, Any], result: dict[str, Any]) -> bool:
                finished(task, result)
                return not crashed_before_first_epoch(records[task["key"]])

            map_probes_first(executor_used, [plan.task(run, cfg) for run in first],
                             [plan.task(run, cfg) for run in rest], group=lambda task: identity[task["key"]],
                             on_probe=probe_done, on_result=finished)  # fmt: skip
            startups.append(getattr(executor_used, "startup_s", None))
            train(after_probes(plan, [run for run in rest if run.key not in records], records, campaign_id, bar, keep))

        with monitor:
            try:
                if phased and cfg.executor == "local":
                    train_probes_first()
                else:
                    train(first)
                    train(after_probes(plan, later, records, campaign_id, bar, keep))
            except setup_errors():
                raise
            except RuntimeError as error:  # the service or the cluster went away mid-campaign
                record_lost(every, records, finished, f"the executor lost the run: {error}")
            except BaseException as error:  # interrupted (Ctrl-C, SIGTERM): keep what is known
                record_lost(every, records, finished, f"the runner was interrupted ({type(error).__name__})")
                raise
            finally:
                if phased and not cfg.keep_workers:
                    end_kept_workers(executor_used)
    return PlanExecution(
        records=records,
        trained=len(trained),
        worker_startup_s=_startup(startups) if every else None,
        gpu=monitor.summary(),
        wall_time_s=time.monotonic() - started,
    )


def _startup(phases: Sequence[float | None]) -> float | None:
    """Worker start-up seconds over a campaign's phases (None when no executor measured it)."""
    measured = [seconds for seconds in phases if seconds is not None]
    return sum(measured) if measured else None


def _announce(record: RunRecord, bar: Any, on_record: Callable[[RunRecord], None] | None) -> None:
    bar.update(1)
    if record.outcome != Outcome.OK and record.repeated_from is None:
        bar.write(
            f"{Path(record.program).name} seed {record.seed}: {record.outcome}: {record.error_message}",
            file=sys.stderr,
        )
    if on_record is not None:
        on_record(record)
