"""Campaigns: train programs N times each, store every run, and describe how it was done.

:func:`run_campaign` is the runner's Python API (``mutreal run``, ``reproduce``, ``kill``, ``compare``
and ``sensitivity`` all go through it). It reads each program, computes each run's key, skips runs the
store already has, runs the rest on warm local workers or Ray, writes each record as it finishes, and
writes the campaign's manifest (versions, Python, OS, CPU/GPU, seeds) and full configuration as YAML
(which ``mutreal run --config`` accepts again).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mutreal.execution import environment, sandbox
from mutreal.execution.crash_repeats import after_probes, crashed_before_first_epoch, phases, program_identity
from mutreal.execution.executor import map_probes_first
from mutreal.execution.plan import (
    CampaignPlan,
    PlannedRun,
    PlanStatus,
    PreparedProgram,
    plan_campaign,
    prepare_program,
)
from mutreal.execution.records import Outcome, RunRecord, metric_direction, select_metric
from mutreal.execution.store import RunStore

EXECUTORS = ("local", "ray", "pool")


def _default_jobs() -> int:
    return max(1, (os.cpu_count() or 2) // 2)


@dataclass
class CampaignConfig:
    """Everything that defines a campaign; saved as YAML and accepted again by ``run --config``.

    Only ``modernize``, ``args``, ``deterministic`` and the TensorFlow threads per worker (by default
    cores / jobs) can change a run's numbers, so only they enter run keys (:meth:`result_affecting`);
    limits, executor and ``repeat_crashes`` do not. A run that hit a limit is
    retried when the limit is raised.
    """

    programs: list[str] = field(default_factory=list)
    runs: int = 10
    seeds: list[int] | None = None
    jobs: int = field(default_factory=_default_jobs)
    executor: str = "local"
    address: str | None = None
    timeout_s: float | None = 3600.0
    memory_limit_mb: float | None = None
    metric: str | None = None
    modernize: bool = False
    #: The framework each program runs on: ``auto`` (its era's, :mod:`mutreal.compat.framework_choice`),
    #: ``keras3``, ``tf_keras``, ``tf1`` or ``as-is``; each run's framework enters its key.
    framework: str = "auto"
    args: list[str] = field(default_factory=list)
    store: str | None = None
    threads_per_worker: int | None = None
    gpus_per_run: float = 0.0
    max_runs_per_worker: int = 200
    max_retries: int = 2
    keep_workers: bool = False
    deterministic: bool = True
    block_network: bool = True
    #: ``auto`` (bubblewrap where it works, else the basic isolation, said once), ``bwrap``, ``none``.
    sandbox: str = "auto"
    #: Variables passed into the sandbox: ``NAME`` (the caller's value) or ``NAME=VALUE``.
    env: list[str] = field(default_factory=list)
    #: Train every seed of a program whose first run crashed before its first epoch (by default
    #: such a crash is taken as deterministic: its other seeds repeat it without training).
    repeat_crashes: bool = False
    #: program path -> the folder whose data files it sees (default: its own folder). ``kill`` and
    #: ``compare`` point mutants written elsewhere (``mutate --out``) at their original's folder.
    data_folders: dict[str, str] = field(default_factory=dict)
    #: program path -> its own command-line arguments (a manifest's ``args`` column), given to it
    #: instead of ``args``; they enter its run key.
    program_args: dict[str, list[str]] = field(default_factory=dict)

    def args_for(self, program: str | Path) -> list[str] | None:
        """The program's own arguments (``program_args``), or None when it takes the campaign's ``args``."""
        resolved = Path(program).resolve()
        for name, args in self.program_args.items():
            if Path(name).resolve() == resolved:
                return [str(a) for a in args]
        return None

    def data_folder(self, program: str | Path) -> Path:
        """The folder whose data files ``program`` sees when it runs (and whose contents enter its key)."""
        resolved = Path(program).resolve()
        for name, folder in self.data_folders.items():
            if Path(name).resolve() == resolved:
                return Path(folder).resolve()
        return resolved.parent

    def seed_list(self) -> list[int]:
        """The seeds to run: ``seeds`` when given, else ``0 .. runs-1``."""
        return list(self.seeds) if self.seeds is not None else list(range(int(self.runs)))

    def resolved_memory_limit_mb(self) -> float:
        """The memory limit per worker: as set, else 80% of this machine's memory shared by the jobs."""
        if self.memory_limit_mb is not None:
            return float(self.memory_limit_mb)
        import psutil

        total = psutil.virtual_memory().total / (1024 * 1024)
        return float(max(2048.0, min(32768.0, 0.8 * total / max(1, self.jobs))))

    def resolved_threads(self) -> int:
        """TensorFlow threads per worker: as set, else the cores shared evenly by the jobs."""
        if self.threads_per_worker:
            return int(self.threads_per_worker)
        return max(1, (os.cpu_count() or 1) // max(1, self.jobs))

    def result_affecting(self) -> dict[str, Any]:
        """The settings that can change a run's numbers (they enter run keys).

        TensorFlow's CPU thread count is one: it changes the order of float sums, so the same seed
        gives other numbers with 1 thread than with 2 (seen on the digits CNN).
        """
        return {
            "modernize": self.modernize,
            "args": list(self.args),
            "deterministic": self.deterministic,
            "threads": self.resolved_threads(),
        }

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CampaignConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown campaign configuration keys: {', '.join(sorted(unknown))}")
        return cls(**data)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    @classmethod
    def from_yaml(cls, text: str) -> CampaignConfig:
        data = yaml.safe_load(text) or {}
        if not isinstance(data, dict):
            raise ValueError("a campaign configuration is a YAML mapping")
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> CampaignConfig:
        return cls.from_yaml(Path(path).read_text(encoding="utf-8"))


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


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def build_manifest(
    config: CampaignConfig,
    campaign_id: str,
    programs: list[PreparedProgram],
    isolation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The reproducibility manifest: environment, isolation, seeds, programs with their hashes, configuration."""
    return {
        "campaign_id": campaign_id,
        "created_at": _now(),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else "",
        "environment": environment.describe_environment(),
        "sandbox": isolation or {},
        "seeds": config.seed_list(),
        "programs": [
            {
                "path": str(p.path),
                "program_hash": p.program_hash,
                "data_hash": p.data_hash,
                "era": p.era,
                "framework": p.framework,
                "framework_reason": p.framework_reason,
                "rewrites": p.rewrites,
                "args": p.args,
                "error": p.error,
            }
            for p in programs
        ],
        "configuration": config.to_dict(),
    }


def write_campaign_files(
    config: CampaignConfig, manifest: dict[str, Any], folder: Path, stem: str
) -> tuple[Path, Path]:
    """Write ``<stem>.config.yaml`` (re-runnable) and ``<stem>.manifest.yaml`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    config_path = folder / f"{stem}.config.yaml"
    manifest_path = folder / f"{stem}.manifest.yaml"
    config_path.write_text(config.to_yaml(), encoding="utf-8")
    manifest_path.write_text(
        yaml.safe_dump(manifest, sort_keys=False, default_flow_style=False), encoding="utf-8"
    )
    return config_path, manifest_path


def record_from_result(
    task: dict[str, Any], result: dict[str, Any], config: CampaignConfig, campaign_id: str
) -> RunRecord:
    """Turn a worker's raw result into a :class:`RunRecord`, choosing the compared metric."""
    record = RunRecord.from_dict(
        {
            **{k: v for k, v in result.items() if k not in ("versions", "capture_warnings")},
            "key": task["key"],
            "program": task["program"],
            "label": task.get("label", ""),
            "seed": task["seed"],
            "program_hash": task["program_hash"],
            "data_hash": task["data_hash"],
            "config_hash": task["config_hash"],
            "env_hash": task["env_hash"],
            "timeout_s": config.timeout_s,
            "memory_limit_mb": task.get("memory_limit_mb"),
            "campaign_id": campaign_id,
            "finished_at": _now(),
            "versions": {k: str(v) for k, v in (result.get("versions") or {}).items()},
            "era": task.get("era", ""),
            "framework": task.get("framework", ""),
            # the entry's rewrites, then those of its own modules converted as they were imported (tf1)
            "rewrites": [*task.get("rewrites", []), *result.get("helper_rewrites", [])],
            "args": list(task.get("args") or []),
        }
    )
    if record.framework == "keras3" and record.error_message and _looks_legacy(record.error_message):
        record.error_message += " (this looks like a Keras 1/2-era program: try --framework tf_keras)"
    if config.deterministic and record.error_message and "deterministic" in record.error_message.lower():
        record.error_message += " (an op without a deterministic kernel: try --no-deterministic)"
    name, value, source = select_metric(record.fits, record.evaluations, config.metric)
    record.metric_name, record.metric_value, record.metric_source = name, value, source
    record.direction = metric_direction(name) if name else None
    return record


_LEGACY_HINTS = (
    "No module named 'keras.layers.",
    "No module named 'keras.utils.np_utils'",
    "No module named 'keras.wrappers",
    "unexpected keyword argument 'lr'",
    "'nb_epoch'",
    "'init'",
    "'border_mode'",
    "'output_dim'",
    "has no attribute 'fit_generator'",
    "Argument(s) not recognized",
    "Unrecognized keyword arguments",
)


def _looks_legacy(message: str) -> bool:
    return any(hint in message for hint in _LEGACY_HINTS)


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


def campaign_config(config: CampaignConfig | None, options: Mapping[str, Any]) -> CampaignConfig:
    """``config`` (or the defaults) with ``options`` applied: :func:`execute_campaign`'s keyword
    arguments, ``None`` meaning not given. Checks the executor and ``--env``; a benchmark
    (:mod:`mutreal.execution.benchmark`) builds its one configuration the same way."""
    cfg = dataclasses.replace(config) if config is not None else CampaignConfig()
    programs, seeds, env, store, folders = (options.get(name) for name in ("programs", "seeds", "env", "store",
                                                                           "data_folders"))  # fmt: skip
    overrides = {
        **{name: options.get(name) for name in ("runs", "jobs", "executor", "address", "timeout_s",
                                                "memory_limit_mb", "metric", "modernize", "framework",
                                                "keep_workers", "repeat_crashes")},
        "programs": [str(p) for p in programs] if programs is not None else None,
        "seeds": list(seeds) if seeds is not None else None,
        "sandbox": options.get("sandbox_mode"),
        "env": list(env) if env else None,
        "store": str(store) if isinstance(store, (str, Path)) else None,
        "data_folders": {str(k): str(v) for k, v in folders.items()} if folders else None,
        "args": [str(a) for a in options["args"]] if options.get("args") is not None else None,
        "program_args": {str(k): [str(a) for a in v] for k, v in options["program_args"].items()}
        if options.get("program_args") else None,
    }  # fmt: skip
    for name, value in overrides.items():
        if value is not None:
            setattr(cfg, name, value)
    if seeds is None and options.get("runs") is not None and config is not None and config.seeds is not None:
        cfg.seeds = None  # an explicit --runs replaces the configuration's seed list
    if cfg.executor not in EXECUTORS:
        raise ValueError(f"unknown executor {cfg.executor!r}: choose one of {', '.join(EXECUTORS)}")
    jobs_chosen = options.get("jobs") is not None or cfg.threads_per_worker is not None
    if cfg.executor == "pool" and not jobs_chosen and (config is None or config.jobs == _default_jobs()):
        # no --jobs: use the service's workers as they are (their thread count enters run keys)
        from mutreal.execution.service import service_layout

        cfg.jobs, cfg.threads_per_worker = service_layout(cfg.address)
    sandbox.passed_variables(cfg.env)  # a malformed --env is an error before anything runs
    return cfg


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
    isolation = _isolation(cfg)
    campaign_id = campaign_id or (
        _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    )
    started_at = _now()
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
            records[run.key] = _decided_without_training(run, cfg, campaign_id)
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
        executor_used = _executor(cfg, plan.memory_limit_mb, keep_workers=cfg.keep_workers or phased)
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
            except _setup_errors():
                raise
            except RuntimeError as error:  # the service or the cluster went away mid-campaign
                _record_lost(every, records, finished, f"the executor lost the run: {error}")
            except BaseException as error:  # interrupted (Ctrl-C, SIGTERM): keep what is known
                _record_lost(every, records, finished, f"the runner was interrupted ({type(error).__name__})")
                raise
            finally:
                if phased and not cfg.keep_workers:
                    _end_kept_workers(executor_used)
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


def _end_kept_workers(executor: Any) -> None:
    """Kill the local workers a phased campaign kept warm between its phases only."""
    kept = getattr(executor, "kept", None)
    if kept:
        from mutreal.execution.pool import kill_idle

        kill_idle(kept)


def _decided_without_training(run: PlannedRun, cfg: CampaignConfig, campaign_id: str) -> RunRecord:
    """The record of a ``done`` plan row: its stored run (the compared metric chosen again when
    ``--metric`` changed), or the ``missing-data`` verdict of a program that cannot be read."""
    if run.program.error is not None:
        return RunRecord(key=run.key, program=str(run.program.path), seed=run.seed, outcome=Outcome.MISSING_DATA,
                         error_type="ProgramNotReadable", error_message=run.program.error, campaign_id=campaign_id,
                         finished_at=_now())  # fmt: skip
    record = run.stored
    assert record is not None  # a done row of a readable program carries its stored run
    record.reused = True
    if cfg.metric is not None and record.metric_name != cfg.metric:
        name, value, source = select_metric(record.fits, record.evaluations, cfg.metric)
        record.metric_name, record.metric_value, record.metric_source = name, value, source
        record.direction = metric_direction(name) if name else None
    return record


def _lost_result(cause: str) -> dict[str, Any]:
    from mutreal.execution.worker_process import _failure

    return _failure(Outcome.LOST, "RunLost", f"{cause}; not a verdict: a rerun of the campaign trains it again",
                    wall_time_s=0.0)  # fmt: skip


def _record_lost(
    tasks: list[dict[str, Any]],
    records: dict[str, RunRecord],
    finished: Callable[[dict[str, Any], dict[str, Any]], None],
    cause: str,
) -> None:
    """Store every task without a result as ``lost`` (its cause kept), so each outcome is a row."""
    for task in tasks:
        if task["key"] not in records:
            try:
                finished(task, _lost_result(cause))
            except Exception:  # noqa: BLE001 - the store itself may be what failed
                break


def _setup_errors() -> tuple[type[BaseException], ...]:
    from mutreal.execution.ray_executor import RayClusterUnreachable

    return (sandbox.SandboxUnavailable, RayClusterUnreachable)


def _isolation(cfg: CampaignConfig) -> dict[str, Any]:
    """What the campaign record says about the sandbox (and the once-only warning of a fallback).

    Local workers run on this machine, so the mode is known now; the worker service and Ray workers
    resolve it on their machines, and each record's ``sandbox`` field says what its run had."""
    if cfg.executor != "local":
        return {"requested": cfg.sandbox, "mode": "resolved by each worker (see the records' sandbox field)"}
    choice = sandbox.resolve(cfg.sandbox)
    sandbox.warn_fallback_once(choice)
    return choice.to_dict()


def worker_options(cfg: CampaignConfig) -> dict[str, Any]:
    """What a worker is started with; warm workers are reused only by campaigns with equal options.

    The sandbox mode and the passed variables are there only when not the default, so a campaign
    with default settings uses the warm workers of a worker service started with default options."""
    options: dict[str, Any] = {
        "threads": cfg.resolved_threads(),
        "deterministic": cfg.deterministic,
        "block_network": cfg.block_network,
    }
    if cfg.sandbox != "auto":
        options["sandbox"] = cfg.sandbox
    passed = sandbox.passed_variables(cfg.env)
    if passed:
        options["env"] = passed
    return options


def _executor(cfg: CampaignConfig, memory_limit: float, keep_workers: bool | None = None) -> Any:
    common = {
        "jobs": cfg.jobs,
        "options": worker_options(cfg),
        "timeout_s": cfg.timeout_s,
        "memory_limit_mb": memory_limit,
        "max_runs_per_worker": cfg.max_runs_per_worker,
    }
    if cfg.executor == "pool":
        from mutreal.execution.service import ServiceExecutor

        return ServiceExecutor(address=cfg.address, **common)
    if cfg.executor == "ray":
        from mutreal.execution.ray_executor import RayExecutor

        return RayExecutor(
            address=cfg.address, gpus_per_run=cfg.gpus_per_run, max_retries=cfg.max_retries, **common
        )
    from mutreal.execution.pool import LocalExecutor

    return LocalExecutor(keep_workers=cfg.keep_workers if keep_workers is None else keep_workers, **common)


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
