"""A campaign's plan: every program x seed with its run key, written to the store before anything trains.

Planning and execution are two steps, as in a mutation-testing work database: :func:`plan_campaign`
reads and hashes the programs, computes each run's content-hash key, decides from the store which
runs already have a verdict, and commits the plan (one row per program x seed, status ``planned``,
``done`` or ``lost``) before a worker starts; :func:`mutreal.execution.campaign.execute_campaign`
then trains the rows read back from the plan that are not ``done`` and marks each row in the
transaction that stores its run. The plan's id is the hash of its keys in order, so the same campaign started again
(after Ctrl-C, a lost service, a killed machine) finds the same plan: rows whose run is stored stay
``done`` and are reused, ``planned`` and ``lost`` rows are trained, and no run is trained twice.
That holds for campaigns run one after another; two processes started at once on one store and one
plan do not claim rows from each other, and may both train a row that neither has stored yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mutreal.execution import hashing
from mutreal.execution.records import Outcome, RunRecord
from mutreal.execution.store import RunStore
from mutreal.serialise import TextEnum

if TYPE_CHECKING:
    from mutreal.execution.campaign import CampaignConfig


class PlanStatus(TextEnum):
    """Where one planned run stands; stored as its value in the plan table."""

    #: not trained yet (or trained by a campaign that stopped before storing it)
    PLANNED = "planned"
    #: its run is stored with a verdict (any outcome but ``lost``), or it needs no training at all
    DONE = "done"
    #: its run was stored as ``lost`` (no verdict): the next campaign trains it again
    LOST = "lost"

    @classmethod
    def of(cls, record: RunRecord) -> PlanStatus:
        """The status a stored run gives its row."""
        return cls.LOST if record.outcome == Outcome.LOST else cls.DONE


@dataclass
class PreparedProgram:
    """A program read, optionally modernized, and hashed."""

    path: Path
    source: str
    program_hash: str
    data_hash: str
    modernize_changes: list[str] = field(default_factory=list)
    error: str | None = None
    data_folder: Path | None = None  # the folder whose data files it sees (default: its own)


def prepare_program(path: Path, modernize: bool, data_folder: Path | None = None) -> PreparedProgram:
    """Read and hash a program (after modernizing it, when asked); errors are kept, not raised."""
    path = Path(path)
    data_folder = Path(data_folder) if data_folder is not None else path.resolve().parent
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return PreparedProgram(path, "", "", "", error=f"cannot read {path}: {error}")
    changes: list[str] = []
    if modernize:
        from mutreal.program.modernize import modernize_source

        try:
            result = modernize_source(source)
            source, changes = result.source, [c.describe() for c in result.changes]
        except Exception as error:  # a program LibCST cannot parse still runs, unmodernized
            changes = [f"not modernized: {type(error).__name__}: {error}"]
    return PreparedProgram(
        path=path,
        source=source,
        program_hash=hashing.program_hash(source),
        data_hash=hashing.data_hash(data_folder),
        modernize_changes=changes,
        data_folder=data_folder,
    )


@dataclass
class PlannedRun:
    """One row of a plan: a program, a seed, its run key and status, and its stored run if reused."""

    key: str
    program: PreparedProgram
    seed: int
    status: PlanStatus
    stored: RunRecord | None = None


@dataclass
class CampaignPlan:
    """The runs of one campaign in programs x seeds order, as written to (and read back from) the store."""

    id: str
    runs: list[PlannedRun]
    env_hash: str
    config_hash: str
    memory_limit_mb: float

    def to_train(self) -> list[PlannedRun]:
        """The rows that need a training, each key once (a program listed twice is trained once)."""
        seen: set[str] = set()
        chosen = []
        for run in self.runs:
            if run.status != PlanStatus.DONE and run.key not in seen:
                seen.add(run.key)
                chosen.append(run)
        return chosen

    def task(self, run: PlannedRun, cfg: CampaignConfig) -> dict[str, Any]:
        """What a worker is sent for ``run``: the program text, where its data is, its keys and limits."""
        program = run.program
        return {
            "key": run.key,
            "program": str(program.path.resolve()),
            "folder": str(program.data_folder or program.path.resolve().parent),
            "source": program.source,
            "seed": run.seed,
            "args": list(cfg.args),
            "program_hash": program.program_hash,
            "data_hash": program.data_hash,
            "config_hash": self.config_hash,
            "env_hash": self.env_hash,
            "memory_limit_mb": self.memory_limit_mb,
            "modernize_changes": program.modernize_changes,
            "block_network": cfg.block_network,
        }


def needs_run(stored: RunRecord | None, cfg: CampaignConfig, memory_limit: float) -> bool:
    """Whether a run must be trained: not stored, stored as ``lost``, or stopped by a limit since raised."""
    if stored is None or stored.outcome == Outcome.LOST:  # a lost run is no verdict: train it again
        return True
    if not stored.outcome.is_limit:
        return False
    if stored.outcome == Outcome.TIMEOUT:
        return cfg.timeout_s is None or (stored.timeout_s is not None and cfg.timeout_s > stored.timeout_s)
    return stored.memory_limit_mb is not None and memory_limit > stored.memory_limit_mb


def run_key(program: PreparedProgram, seed: int, config_hash: str, env_hash: str) -> str:
    """The content-hash key of one run (an unreadable program gets a key of its path and seed)."""
    if program.error is not None:
        return hashing.sha256_text(f"unreadable|{program.path}|{seed}")
    return hashing.run_key(program.program_hash, program.data_hash, config_hash, seed, env_hash)


def plan_campaign(
    cfg: CampaignConfig,
    programs: list[PreparedProgram],
    store: RunStore,
    campaign_id: str,
    *,
    env_hash: str,
    memory_limit_mb: float,
) -> CampaignPlan:
    """Plan every program x seed, commit the plan to ``store`` and return it as the store holds it.

    A row is ``done`` when the store has its run with a verdict that still stands (see
    :func:`needs_run`) or when its program cannot be read (that is decided without a worker),
    ``lost`` when its stored run is lost, ``planned`` otherwise."""
    config_hash = hashing.config_hash(cfg.result_affecting())
    order = [(run_key(p, seed, config_hash, env_hash), p, seed) for p in programs for seed in cfg.seed_list()]
    stored = store.get_many(key for key, program, _ in order if program.error is None)
    runs = []
    for key, program, seed in order:
        record = stored.get(key)
        if program.error is not None or not needs_run(record, cfg, memory_limit_mb):
            status = PlanStatus.DONE
        else:
            status = PlanStatus.LOST if record is not None and record.outcome == Outcome.LOST else PlanStatus.PLANNED
            record = None
        runs.append(PlannedRun(key, program, seed, status, record))
    plan_id = hashing.sha256_text("plan|" + "|".join(key for key, _, _ in order))
    rows = store.put_plan(plan_id, [(r.key, str(r.program.path), r.seed, r.status.value) for r in runs], campaign_id)
    for run, row in zip(runs, rows, strict=True):  # what execution follows is the plan as stored
        run.status = PlanStatus(row.status)
    return CampaignPlan(plan_id, runs, env_hash, config_hash, memory_limit_mb)
