"""Real faults against mutants over a benchmark: ``mutreal compare --manifest`` (coupling).

For every bug of a manifest the buggy program is the real fault, seen as a mutant of the fixed
program; the mutants of :mod:`mutreal.campaigns.mutants` are set beside it. Buggy, fixed and every
mutant are trained with the same seeds; the whole benchmark is one campaign on one store, whose
plan of every bug's runs is written once every bug's mutants are built and before anything trains
(a run is never trained twice, and an interrupted benchmark resumes the same plan), then :func:`mutreal.analysis.similarity.compare_from_records`
decides per mutant: DeepCrime's kill (GLM + Cohen's d), the Fisher kill, the killing probability
of each input with its Wilson interval, and the coupling strength and detectability IoU with the
fault (Ahmed et al.). One JSON line per bug is written the moment it is decided; a bad bug is an
error row and the batch goes on.

Per-input correctness is what KP, coupling and IoU are made of. A classifier's input is correct
when the predicted class is the label; a regression output has no class, so it counts as correct
when ``|prediction - target| <= tolerance`` (``--tolerance``; by default a tenth of the evaluated
targets' range). Each row names the rule it used.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import median
from typing import Any

from mutreal.analysis.common_set import on_common_set
from mutreal.analysis.settings import DecisionSettings
from mutreal.campaigns.mutants import (
    MODES,
    MutantSet,
    all_mutants,
    given_mutants,
    reconstruct_mutants,
    safe_name,
)
from mutreal.campaigns.reproduce import ReproduceTask, entry_program
from mutreal.execution.mutant_origin import ProvenanceError
from mutreal.execution.records import Outcome

#: a coupling is called reliable from this many paired runs on (fewer: the KP intervals are too wide)
MIN_RELIABLE_RUNS = 5
#: the default regression tolerance, as a share of the range of the evaluated targets
DEFAULT_RANGE_SHARE = 0.1
RELIABLE_RULE = (
    f"reliable: per-input correctness on every side, at least {MIN_RELIABLE_RUNS} paired runs (inputs paired by "
    "content: a median n per input of at least that), and both the "
    "fault and the mutant kill at least one input"
)


@dataclass
class Correctness:
    """How an input is judged correct: the class rule, or the regression tolerance."""

    tolerance: float | None = None

    def rule(self, used_regression: bool, resolved: float | None) -> str:
        if not used_regression:
            return "class: predicted class == label"
        if self.tolerance is not None:
            return f"regression: |prediction - target| <= {self.tolerance:g} (--tolerance)"
        shown = "?" if resolved is None else f"{resolved:g}"
        return (f"regression: |prediction - target| <= {shown} ({DEFAULT_RANGE_SHARE:g} x the range of the "
                "evaluated targets; set --tolerance)")  # fmt: skip


class JudgedRecord:
    """A run record whose per-input ``correct`` follows a :class:`Correctness` rule.

    Classification records are unchanged; a regression record (``prediction_kind == "value"``)
    gets ``|prediction - target| <= tolerance`` in place of "no per-input correctness". Every
    other attribute is the record's own."""

    def __init__(self, record: Any, tolerance: float | None) -> None:
        self._record = record
        self._tolerance = tolerance

    def __getattr__(self, name: str) -> Any:
        return getattr(self._record, name)

    @property
    def correct(self) -> list[bool] | None:
        own = self._record.correct
        if own is not None or self._tolerance is None:
            return own
        pairs = regression_pairs(self._record)
        if pairs is None:
            return None
        return [abs(p - y) <= self._tolerance for p, y in pairs]


def regression_pairs(record: Any) -> list[tuple[float, float]] | None:
    """(prediction, target) per input of the last evaluate of a regression run, or None."""
    last = record.last_evaluation if record.outcome == Outcome.OK else None
    if last is None or last.prediction_kind != "value" or not last.predictions or not last.labels:
        return None
    if len(last.predictions) != len(last.labels):
        return None
    try:
        return [(float(p), float(y)) for p, y in zip(last.predictions, last.labels, strict=True)]
    except (TypeError, ValueError):
        return None


def resolve_tolerance(groups: Sequence[Sequence[Any]], tolerance: float | None) -> tuple[bool, float | None]:
    """(any regression run, the tolerance to use): ``tolerance``, else a tenth of the targets' range."""
    targets = [y for records in groups for r in records for _, y in (regression_pairs(r) or [])]
    if not targets:
        return False, tolerance
    if tolerance is not None:
        return True, tolerance
    finite = [y for y in targets if math.isfinite(y)]
    spread = (max(finite) - min(finite)) if finite else 0.0
    return True, DEFAULT_RANGE_SHARE * spread if spread > 0 else 1e-9


@dataclass
class BugComparison:
    """The decided row of one bug (``compare --manifest`` writes it as one JSON line)."""

    id: str
    benchmark: str | None
    status: str  # ok | no-mutants | missing-data | error
    mode: str
    error: str | None = None
    reason: str | None = None
    correctness: str | None = None
    reliable_rule: str = RELIABLE_RULE
    programs: dict[str, str] = field(default_factory=dict)
    runs: int = 0
    trainings: int = 0
    metric: str | None = None
    lower_is_better: bool | None = None
    metric_reason: str | None = None  # why that metric: the fixed model's task, or the user's choice
    per_input: dict[str, Any] | None = None  # the inputs of per-input correctness: which set, how many
    buggy: dict[str, Any] | None = None
    fixed: dict[str, Any] | None = None
    fault: dict[str, Any] | None = None
    mutants: list[dict[str, Any]] = field(default_factory=list)
    best: dict[str, Any] | None = None
    #: mutants per kind of failure that is not the model's (invalid, harness, stillborn) and mutreal's defects
    failed_mutants: dict[str, int] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BugComparison:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})


def _rounded(values: Sequence[float] | None, digits: int = 4) -> list[float] | None:
    return None if values is None else [round(float(v), digits) for v in values]


def _kp(data: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A KP dict for the row: per input KP with its Wilson interval, and the counts."""
    if not data:
        return None
    return {
        "n_instances": data["n_instances"], "confidence": data["confidence"], "n_inputs": data["n_inputs"],
        "inputs_killing": data["inputs_killing"], "mean_kp": round(data["mean_kp"], 6),
        "kp": _rounded(data["kp"]), "low": _rounded(data["low"]), "high": _rounded(data["high"]),
        **({"n": data["n"]} if data.get("n") is not None else {}),  # inputs paired by content: own n each
    }  # fmt: skip


def _series(data: Mapping[str, Any]) -> dict[str, Any]:
    """A program's runs for the row: summary, outcomes and per-run values (never a single run alone)."""
    return {k: data.get(k) for k in ("program", "runs", "failed", "outcomes", "summary", "values", "per_input",
                                     "repeated")}  # fmt: skip


#: the metrics whose value is the share of evaluated inputs whose class is right
ACCURACIES = frozenset({"accuracy", "acc", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy"})


def accuracy_disagreements(records: Sequence[Any]) -> int:
    """The runs whose per-input correctness does not give the program's own accuracy.

    Why: KP, coupling and IoU are counted from the classes mutreal reads off the model's outputs;
    Keras' accuracy of the same evaluate is the share of inputs its own rule calls right. Where
    the two differ by more than one input, mutreal's classes are not the program's (a threshold on
    outputs outside [0, 1]: an ACH/ARM mutant of a sigmoid output with binary cross-entropy, read as
    logits at 0 while Keras thresholds at 0.5; or a metric that means something else, the per-unit
    accuracy of a multi-label model), and the row must say so beside the figures built on them."""
    count = 0
    for record in records:
        last = record.last_evaluation if record.outcome == Outcome.OK else None
        if last is None or last.source != "evaluate":
            continue
        correct = last.correct
        value = next((v for k, v in (last.results or {}).items() if k in ACCURACIES), None)
        if not correct or not isinstance(value, int | float) or not math.isfinite(value):
            continue
        if abs(sum(correct) / len(correct) - float(value)) > 1.0 / len(correct) + 1e-6:
            count += 1
    return count


def _reliable(mutant: Mapping[str, Any], fault_kp: Mapping[str, Any] | None) -> bool:
    kp = mutant.get("kp")
    if mutant.get("coupling_strength") is None or kp is None or fault_kp is None:
        return False
    runs = min(_median_n(kp), _median_n(fault_kp))
    return runs >= MIN_RELIABLE_RUNS and kp["inputs_killing"] > 0 and fault_kp["inputs_killing"] > 0


def _median_n(kp: Mapping[str, Any]) -> float:
    """The paired runs behind a KP: ``n_instances``, or with inputs paired by content (each its own n)
    the median n of the inputs counted at least once (the median the row's pairing note prints,
    :func:`mutreal.analysis.pairing.content_note`)."""
    counts = [c for c in kp.get("n") or () if c > 0]
    return float(median(counts)) if counts else float(kp["n_instances"])


def best_mutant(mutants: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The mutant closest to the fault: reliable first, then highest coupling, IoU, killing agreement."""
    scored = [m for m in mutants if m.get("coupling") is not None]
    if not scored:
        return None

    def key(m: Mapping[str, Any]) -> tuple[Any, ...]:
        return (bool(m["reliable"]), m["coupling"], m.get("iou") or 0.0, bool(m.get("killing_agreement")))

    chosen = max(scored, key=key)
    return {
        k: chosen.get(k)
        for k in ("operator", "site", "value", "file", "coupling", "iou", "reliable", "killed")
    }


def decide(
    task: ReproduceTask,
    buggy: str,
    fixed: str,
    made: MutantSet,
    groups: Sequence[Sequence[Any]],
    *,
    mode: str,
    tolerance: float | None = None,
    statistics: DecisionSettings | Mapping[str, Any] | None = None,
) -> BugComparison:
    """The row of one bug from its runs: ``groups`` are buggy, fixed, then one list per mutant."""
    from mutreal.analysis.similarity import compare_from_records

    row = BugComparison(id=task.id, benchmark=task.benchmark, status="ok", mode=mode,
                        programs={"buggy": buggy, "fixed": fixed}, failures=list(made.failures))  # fmt: skip
    # one per-input set for every program (the buggy side may never evaluate where the fixed does)
    names = [m.file for m in made.mutants]
    buggy_runs, fixed_runs, on_set, set_note = on_common_set(
        groups[0], groups[1], dict(zip(names, groups[2:], strict=True))
    )
    groups = [buggy_runs, fixed_runs, *(on_set[name] for name in names)]
    regression, resolved = resolve_tolerance(groups, tolerance)
    row.correctness = Correctness(tolerance).rule(regression, resolved)
    judged = [[JudgedRecord(r, resolved if regression else None) for r in records] for records in groups]
    row.runs = len(groups[0])
    row.trainings = sum(sum(1 for r in records if not getattr(r, "reused", False)) for records in groups)
    for side, records in (("buggy", groups[0]), ("fixed", groups[1])):
        missing = next((r for r in records if r.outcome == Outcome.MISSING_DATA), None)
        if missing is not None:
            row.status = "missing-data"
            row.error = (
                f"the {side} program could not find its data: {missing.error_message or 'a data file'}"
            )
            return row
    report = compare_from_records(
        judged[0], judged[1], dict(zip(names, judged[2:], strict=True)),
        settings=DecisionSettings.of(statistics).for_bug(task.metric, task.lower_is_better),
    ).to_dict()  # fmt: skip
    row.metric, row.lower_is_better = report["fixed"]["metric"], report["fixed"]["lower_is_better"]
    row.metric_reason, row.per_input = report["metric_reason"], report["per_input"]
    row.buggy, row.fixed = _series(report["buggy"]), _series(report["fixed"])
    row.notes = [*made.notes, *([set_note] if set_note else []), *report["notes"],
                 *_limit_notes(buggy, fixed, made, groups)]  # fmt: skip
    if not report["fixed"]["summary"]["n"]:
        row.status, row.error = "error", "the fixed program has no successful run: nothing to compare with"
        return row
    fault = report["fault"]
    row.fault = {
        "killed": fault["killed"], "p_value": fault["kill"]["comparison"]["p_value"],
        "cohen_d": fault["kill"]["d_worse"], "fisher_killed": fault["fisher_killed"], "kp": _kp(fault["kp"]),
        "reproduced": fault["reproduced"], "not_reproduced": fault["not_reproduced"],
    }  # fmt: skip
    if fault["not_reproduced"] is not None:
        row.reason = fault["not_reproduced"]["reason"]
    for side, records in (("buggy", groups[0]), ("fixed", groups[1])):
        off = accuracy_disagreements(records)
        if off:
            row.notes.append(f"{side}: in {off} of {len(records)} runs the per-input classes do not give the "
                             "program's own accuracy: KP, coupling and IoU count other classes than its metric")  # fmt: skip
    for spec, result, records in zip(made.mutants, report["mutants"], groups[2:], strict=True):
        kill, versus = result["kill"] or {}, result["metric_vs_fault"] or {}
        entry = {
            "operator": spec.operator, "site": spec.site, "value": spec.value, "provenance": spec.provenance,
            "file": spec.file, "failure": result["failure"], "killed": result["killed"],
            "p_value": (kill.get("comparison") or {}).get("p_value"),
            "cohen_d": kill.get("d_worse"), "fisher_killed": result["fisher_killed"],
            "killing_agreement": result["killing_agreement"], "vs_fault": versus.get("verdict"),
            "summary": result["mutant"]["summary"], "outcomes": result["mutant"]["outcomes"],
            "kp": _kp(result["kp"]), "coupling": result["coupling_strength"], "iou": result["detectability_iou"],
            "similarity_reason": result["similarity_reason"],
            "accuracy_disagreements": accuracy_disagreements(records),
        }  # fmt: skip
        entry["reliable"] = _reliable({**result, "kp": entry["kp"]}, row.fault["kp"])
        row.mutants.append(entry)
    row.failed_mutants = report["failed_mutants"]
    row.best = best_mutant(row.mutants)
    return row


def _limit_notes(buggy: str, fixed: str, made: MutantSet, groups: Sequence[Sequence[Any]]) -> list[str]:
    """A note per program some of whose runs mutreal's time or memory limit stopped, which a higher
    limit may change; the reader must know. The buggy and fixed programs' stopped runs count as
    failed (wrong on every input); a mutant's are classified instead (outgrown where its edit grows
    training past the limit, else harness: :mod:`mutreal.analysis.run_failures`), never a kill."""
    notes = []
    for i, (program, records) in enumerate(zip([buggy, fixed, *(m.file for m in made.mutants)], groups,
                                               strict=False)):  # fmt: skip
        stopped = [r.outcome.limit for r in records if r.outcome.is_limit]
        if stopped:
            counted = ("count as failed runs (wrong on every input)" if i < 2
                       else "are classified as the mutant's failure (outgrown or harness), not a kill")  # fmt: skip
            notes.append(
                f"{Path(program).name}: {len(stopped)} of {len(records)} runs stopped at mutreal's "
                f"{stopped[0][0]} limit {counted}; rerun with a higher limit (stored runs are reused)"
            )
    return notes


def make_mutants(
    task: ReproduceTask, buggy: str, fixed: str, mode: str, folder: Path, classified: Any = None
) -> MutantSet:
    """The mutant set ``mode`` (``reconstruct``, ``all`` or a folder) of one bug, written under ``folder``."""
    if mode == "reconstruct":
        return reconstruct_mutants(task.id, task.benchmark, task.buggy, task.fixed, fixed, folder / "reconstruct",
                                   classified)  # fmt: skip
    if mode == "all":
        return all_mutants(fixed, folder / "all")
    return given_mutants(mode, task.id)


def prepare_bug(
    task: ReproduceTask, mode: str, work: str | Path, classified: Any = None
) -> tuple[str, str, MutantSet] | BugComparison:
    """One bug's buggy and fixed programs and its mutants (nothing trains), or the row that
    decides it without training (an error, no mutants); never raises for a bad bug."""
    try:
        buggy = entry_program(task.buggy, task.entry)
        fixed = entry_program(task.fixed, task.entry)
    except (ValueError, OSError) as error:
        return BugComparison(
            id=task.id, benchmark=task.benchmark, status="error", mode=mode, error=str(error)
        )
    try:
        made = make_mutants(task, buggy, fixed, mode, Path(work) / safe_name(task.id), classified)
    except Exception as error:  # noqa: BLE001 - one bad bug never stops the benchmark
        return _error_row(task, mode, error)
    if not made.mutants:
        return BugComparison(id=task.id, benchmark=task.benchmark, status="no-mutants", mode=mode,
                             reason=made.reason, programs={"buggy": buggy, "fixed": fixed},
                             failures=made.failures)  # fmt: skip
    return buggy, fixed, made


def _program_args(task: ReproduceTask, programs: list[str]) -> dict[str, list[str]]:
    """Each program's own command-line arguments (the manifest's ``args``): the buggy side's for the
    buggy program, the fixed side's for the fixed program and its mutants (mutations of it)."""
    buggy, *rest = programs
    own = {buggy: task.args_buggy, **{path: task.args_fixed for path in rest}}
    return {path: args for path, args in own.items() if args is not None}


def _error_row(task: ReproduceTask, mode: str, error: Exception) -> BugComparison:
    return BugComparison(id=task.id, benchmark=task.benchmark, status="error", mode=mode,
                         error=f"{type(error).__name__}: {error}")  # fmt: skip


def _programs(prepared: tuple[str, str, MutantSet]) -> tuple[list[str], dict[str, str]]:
    """Buggy, fixed and mutant files in training order, and where the mutants find their data."""
    from mutreal.campaigns.pair import mutant_data_folders

    buggy, fixed, made = prepared
    files = [m.file for m in made.mutants]
    return [buggy, fixed, *files], mutant_data_folders(fixed, files)


def read_classified(path: str | Path) -> dict[str, dict[str, Any]]:
    """Bug id -> classify row of a results JSONL (the last row of an id wins; unreadable lines skipped)."""
    import json

    rows: dict[str, dict[str, Any]] = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                data = json.loads(line)
                rows[str(data["id"])] = data
            except (ValueError, KeyError, TypeError):
                continue
    return rows


def compare_manifest(
    tasks: Sequence[ReproduceTask],
    *,
    seeds: Sequence[int],
    mode: str = "reconstruct",
    work: str | Path | None = None,
    campaign: Mapping[str, Any] | None = None,
    statistics: DecisionSettings | Mapping[str, Any] | None = None,
    classified: Mapping[str, Any] | None = None,
    tolerance: float | None = None,
    skip: Mapping[str, str] | set[str] | None = None,
    on_start: Callable[[ReproduceTask], None] | None = None,
) -> Iterator[BugComparison]:
    """Yield one decided row per bug in manifest order (warm local workers kept between bugs).

    ``work`` holds the mutants (and the run store when ``campaign`` names none); without it a
    temporary folder is used and removed at the end. ``classified`` maps bug ids to classify rows
    (``--results``); bugs it lacks are classified here."""
    from mutreal.campaigns.pair import benchmark_campaign, bugs_to_decide, split_by_program
    from mutreal.campaigns.reproduce import groups_to_decide
    from mutreal.campaigns.sensitivity import mark_output_folder

    if mode not in MODES and not Path(mode).is_dir():
        raise ValueError(f"--mutants: {mode!r} is neither {' nor '.join(MODES)} nor a folder")
    temporary = tempfile.TemporaryDirectory(prefix="mutreal-compare-") if work is None else None
    folder = Path(temporary.name if temporary else work)  # type: ignore[arg-type]
    mark_output_folder(folder)
    options = dict(campaign or {})
    if not options.get("store"):
        options["store"] = str(folder / "runs.sqlite")
    try:
        with benchmark_campaign(seeds, options) as benchmark:
            chosen: dict[int, Any] = {}  # task object -> (group, buggy, fixed, mutants) or its decided row
            for task in tasks:
                prepared = prepare_bug(task, mode, folder, (classified or {}).get(task.id))
                if isinstance(prepared, BugComparison):
                    chosen[id(task)] = prepared
                    continue
                try:
                    programs, folders = _programs(prepared)
                except ProvenanceError as error:  # a mutant whose original is not there: before training
                    chosen[id(task)] = _error_row(task, mode, error)
                    continue
                chosen[id(task)] = (benchmark.add(task.id, programs, folders, _program_args(task, programs)), *prepared)
            benchmark.write_plan(to_decide=groups_to_decide(tasks, chosen, skip))
            for task in bugs_to_decide(tasks, skip, on_start):
                bug = chosen[id(task)]
                if isinstance(bug, BugComparison):
                    yield bug
                    continue
                group, buggy, fixed, made = bug
                try:
                    groups = split_by_program(benchmark.run(group), 2 + len(made.mutants), len(seeds))
                    yield decide(task, buggy, fixed, made, groups, mode=mode, tolerance=tolerance,
                                 statistics=statistics)  # fmt: skip
                except Exception as error:  # noqa: BLE001 - one bad bug never stops the benchmark
                    yield _error_row(task, mode, error)
    finally:
        if temporary is not None:
            temporary.cleanup()
