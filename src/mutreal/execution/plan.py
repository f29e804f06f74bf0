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

A benchmark (``reproduce --manifest``, ``compare --manifest``) is one campaign with one plan:
:func:`plan_benchmark` plans every bug's programs x seeds, each row carrying its bug as its
*group*, and commits them all before the first bug trains; the id hashes every (group, key) in
order, so the same command again (a resumed ``--out`` included: bugs already written are still
planned) finds the same plan. Execution then goes group by group
(:mod:`mutreal.execution.benchmark`), so each bug is decided as soon as its own rows are done.
Why one plan and not one per bug: the store then says, before anything trains, what the whole
benchmark will cost and how much of it is done, and a resumed benchmark is the same plan picked up.

Runs that only a result calls for cannot be planned beforehand. They *extend* the plan
(:func:`extend_plan`): their rows are appended after the plan's last row, in their bug's group, in
one transaction, before they train. ``reproduce --manifest`` does so for the ``--modernize`` retry of
a bug whose two versions stopped on a removed API (its rows have their own configuration hash); the
same benchmark started again extends the plan with the same keys, which updates those rows rather
than adding them twice. Adaptive looks would extend a group the same way, one round of seeds at a
time; the benchmarks have no ``--adaptive`` (a single-pair ``reproduce --adaptive`` runs each round
as its own campaign with its own plan).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mutreal.execution import hashing
from mutreal.execution.records import Outcome, RunRecord
from mutreal.execution.store import RunStore
from mutreal.serialise import TextEnum

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from mutreal.execution.campaign_config import CampaignConfig


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
    """A program read, prepared for the framework of its era (:mod:`mutreal.compat.framework_choice`) and hashed.

    ``source`` is the text that runs (after every rewrite); ``era``, ``framework`` and ``rewrites``
    say what was decided and done; the framework enters the run key (the same text runs differently
    on Keras 3 and on tf_keras)."""

    path: Path
    source: str
    program_hash: str
    data_hash: str
    error: str | None = None
    data_folder: Path | None = None  # the folder whose data files it sees (default: its own)
    era: str = ""
    framework: str = "keras3"
    rewrites: list[str] = field(default_factory=list)
    framework_reason: str = ""
    #: its own command-line arguments (a manifest's ``args``), or None: the campaign's ``args``
    args: list[str] | None = None


def prepare_program(
    path: Path,
    modernize: bool,
    data_folder: Path | None = None,
    framework: str = "auto",
    args: list[str] | None = None,
) -> PreparedProgram:
    """Read a program, decide its framework (``framework``: ``auto``, a framework, or ``as-is``),
    rewrite and hash it; errors are kept, not raised. ``args``: its own command-line arguments
    (None: the campaign's)."""
    from mutreal.compat.framework_choice import prepare_runtime

    path = Path(path)
    data_folder = Path(data_folder) if data_folder is not None else path.resolve().parent
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return PreparedProgram(path, "", "", "", error=f"cannot read {path}: {error}", args=args)
    runtime = prepare_runtime(source, framework or "auto", modernize=modernize)
    if (framework or "auto") == "auto":
        runtime = _on_its_originals_framework(path, source, runtime, modernize)
    # the helper modules it imports from its folders run too: a fault may sit there alone
    modules = hashing.modules_hash(source, list(dict.fromkeys([path.resolve().parent, data_folder.resolve()])))
    text_hash = hashing.program_hash(runtime.source)
    return PreparedProgram(
        path=path,
        source=runtime.source,
        program_hash=hashing.sha256_text(f"{text_hash}|{modules}") if modules else text_hash,
        data_hash=hashing.data_hash(data_folder),
        data_folder=data_folder,
        era=runtime.era,
        framework=runtime.framework,
        rewrites=runtime.rewrites,
        framework_reason=runtime.reason,
        args=None if args is None else [str(a) for a in args],
    )


def _on_its_originals_framework(path: Path, source: str, runtime: Any, modernize: bool) -> Any:
    """A mutant runs on the framework its original runs on (its provenance names the original,
    :mod:`mutreal.execution.mutant_origin`): an edit that imports a name of another era must not move
    it to another framework, where it would differ from its original in more than the edit."""
    from mutreal.compat.framework_choice import prepare_runtime
    from mutreal.execution.mutant_origin import ProvenanceError, original_of

    try:
        original = original_of(path)
    except ProvenanceError:
        return runtime  # said by the commands before they train (mutreal.campaigns.pair.mutant_data_folders)
    if original is None or original.resolve() == path.resolve():
        return runtime
    try:
        framework = _framework_of(original.resolve(), original.stat().st_mtime, modernize)
    except OSError:
        return runtime
    if framework is None or framework == runtime.framework:
        return runtime
    own = prepare_runtime(source, framework, modernize=modernize)
    own.reason = f"its original's framework ({original.name}: {framework}), from its provenance"
    return own


@lru_cache(maxsize=64)
def _framework_of(original: Path, _mtime: float, modernize: bool) -> str | None:
    from mutreal.compat.framework_choice import prepare_runtime

    try:
        return prepare_runtime(original.read_text(encoding="utf-8"), "auto", modernize=modernize).framework
    except (OSError, UnicodeDecodeError, ValueError):
        return None


@dataclass
class PlannedRun:
    """One row of a plan: a program, a seed, its run key and status, and its stored run if reused."""

    key: str
    program: PreparedProgram
    seed: int
    status: PlanStatus
    stored: RunRecord | None = None
    group: str | None = None  # the bug of a benchmark's plan
    config_hash: str | None = None  # its own, when it differs from the plan's (a modernized retry)


@dataclass
class CampaignPlan:
    """The runs of one campaign in programs x seeds order, as written to (and read back from) the store."""

    id: str
    runs: list[PlannedRun]
    env_hash: str
    config_hash: str
    memory_limit_mb: float

    def group(self, name: str) -> list[PlannedRun]:
        """The rows of one group (a benchmark's bug) in plan order, extensions included."""
        return [run for run in self.runs if run.group == name]

    def to_train(self, runs: Iterable[PlannedRun] | None = None) -> list[PlannedRun]:
        """The rows (of ``runs``, else all) that need a training, each key once (a program listed
        twice is trained once)."""
        seen: set[str] = set()
        chosen = []
        for run in self.runs if runs is None else runs:
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
            "args": list(cfg.args if program.args is None else program.args),
            "program_hash": program.program_hash,
            "data_hash": program.data_hash,
            "config_hash": run.config_hash or self.config_hash,
            "env_hash": self.env_hash,
            "memory_limit_mb": self.memory_limit_mb,
            "era": program.era,
            "framework": program.framework,
            "rewrites": program.rewrites,
            "block_network": cfg.block_network,
            "own_modules": own_modules(program.path, program.data_folder),
        }


#: how many of its own modules a program run in another folder brings along, at most
MAX_OWN_MODULES = 50


def own_modules(path: Path, home: Path | None) -> dict[str, str]:
    """The modules beside a program run in another folder (``home``: a mutant in its original's)
    that stand for modules of that folder and differ from them: name -> text.

    A reconstructed fault of several files is written as a mirror of its fixed program's files, some
    of them mutated; run in the fixed program's folder, the mutant would import the fixed helpers and
    lose its edit there. Only names the home folder has are brought (a folder of ``mutate --out``
    mutants holds other mutants beside each one, which are no modules of the program)."""
    own = Path(path).resolve().parent
    if home is None or Path(home).resolve() == own:
        return {}
    found: dict[str, str] = {}
    for module in sorted(own.glob("*.py"))[: MAX_OWN_MODULES * 4]:
        theirs = Path(home) / module.name
        if module.name == Path(path).name or not theirs.is_file():
            continue
        try:
            text = module.read_text(encoding="utf-8")
            if text != theirs.read_text(encoding="utf-8"):
                found[module.name] = text
        except (OSError, UnicodeDecodeError):
            continue
        if len(found) >= MAX_OWN_MODULES:
            break
    return found


def needs_run(stored: RunRecord | None, cfg: CampaignConfig, memory_limit: float) -> bool:
    """Whether a run must be trained: not stored, stored as ``lost``, stopped by a limit since raised,
    or repeating an early crash untrained when ``repeat_crashes`` asks for every seed."""
    if stored is None or stored.outcome == Outcome.LOST:  # a lost run is no verdict: train it again
        return True
    if stored.repeated_from is not None and cfg.repeat_crashes:  # not trained: see execution.crash_repeats
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
    return hashing.run_key(program.program_hash, program.data_hash, config_hash, seed, env_hash,
                           framework=program.framework, args=program.args)


def _planned_runs(
    cfg: CampaignConfig,
    programs: Sequence[PreparedProgram],
    store: RunStore,
    *,
    env_hash: str,
    memory_limit_mb: float,
    group: str | None = None,
) -> list[PlannedRun]:
    """Every program x seed with its key and its status decided from ``store`` (not yet written).

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
        runs.append(PlannedRun(key, program, seed, status, record, group, config_hash))
    return runs


def _row(run: PlannedRun) -> tuple[str, str, int, str, str | None]:
    return (run.key, str(run.program.path), run.seed, run.status.value, run.group)


def _follow_the_store(runs: Sequence[PlannedRun], rows: Sequence[Any]) -> None:
    for run, row in zip(runs, rows, strict=True):  # what execution follows is the plan as stored
        run.status = PlanStatus(row.status)


def plan_campaign(
    cfg: CampaignConfig,
    programs: list[PreparedProgram],
    store: RunStore,
    campaign_id: str,
    *,
    env_hash: str,
    memory_limit_mb: float,
) -> CampaignPlan:
    """Plan every program x seed, commit the plan to ``store`` and return it as the store holds it
    (the statuses are those of :func:`_planned_runs`)."""
    runs = _planned_runs(cfg, programs, store, env_hash=env_hash, memory_limit_mb=memory_limit_mb)
    plan_id = hashing.sha256_text("plan|" + "|".join(run.key for run in runs))
    return _committed(plan_id, runs, cfg, store, campaign_id, env_hash, memory_limit_mb)


def plan_benchmark(
    cfg: CampaignConfig,
    groups: Sequence[tuple[str, Sequence[PreparedProgram]]],
    store: RunStore,
    campaign_id: str,
    *,
    env_hash: str,
    memory_limit_mb: float,
) -> CampaignPlan:
    """Plan every group's (bug's) programs x seeds as one plan, commit it whole and return it.

    The id hashes each row's group and key in order: the same benchmark finds its plan again, and
    two benchmarks that share programs (hence keys) but not bugs have plans of their own. Rows a
    previous start added to the plan (:func:`extend_plan`) are kept in the store after these and
    read back with the group they extend."""
    runs = [run for group, programs in groups
            for run in _planned_runs(cfg, programs, store, env_hash=env_hash, memory_limit_mb=memory_limit_mb,
                                     group=group)]  # fmt: skip
    plan_id = hashing.sha256_text("benchmark|" + "|".join(f"{run.group}:{run.key}" for run in runs))
    return _committed(plan_id, runs, cfg, store, campaign_id, env_hash, memory_limit_mb)


def _committed(
    plan_id: str,
    runs: list[PlannedRun],
    cfg: CampaignConfig,
    store: RunStore,
    campaign_id: str,
    env_hash: str,
    memory_limit_mb: float,
) -> CampaignPlan:
    """Commit ``runs`` as plan ``plan_id`` and return the plan with the statuses the store holds
    (rows a previous start appended with :func:`extend_plan` stay in the store after these)."""
    rows = store.put_plan(plan_id, [_row(r) for r in runs], campaign_id)
    _follow_the_store(runs, rows[: len(runs)])
    return CampaignPlan(plan_id, runs, env_hash, hashing.config_hash(cfg.result_affecting()), memory_limit_mb)


def extend_plan(
    plan: CampaignPlan,
    cfg: CampaignConfig,
    group: str,
    programs: Sequence[PreparedProgram],
    store: RunStore,
    campaign_id: str,
) -> list[PlannedRun]:
    """Add ``programs`` x seeds, planned with ``cfg`` (e.g. ``modernize`` on), to ``group`` of a
    stored plan in one transaction, before they train; the new rows, as stored.

    Rows the group already has (the same benchmark started again) are updated, not repeated."""
    runs = _planned_runs(cfg, programs, store, env_hash=plan.env_hash, memory_limit_mb=plan.memory_limit_mb,
                         group=group)  # fmt: skip
    _follow_the_store(runs, store.extend_plan(plan.id, [_row(r) for r in runs], campaign_id))
    plan.runs.extend(runs)
    return runs


def recheck(runs: Sequence[PlannedRun], cfg: CampaignConfig, store: RunStore, memory_limit_mb: float) -> None:
    """Mark ``done`` the rows whose run the store holds now with a verdict that stands: a benchmark's
    later bug that shares a program with an earlier one reuses the run trained for that bug."""
    pending = [run for run in runs if run.status != PlanStatus.DONE and run.program.error is None]
    stored = store.get_many(run.key for run in pending)
    for run in pending:
        record = stored.get(run.key)
        if record is not None and not needs_run(record, cfg, memory_limit_mb):
            run.status, run.stored = PlanStatus.DONE, record
