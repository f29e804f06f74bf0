"""Reproduce every real fault of a benchmark: ``mutreal reproduce --manifest`` (the study's RQ5).

A manifest (the one ``classify`` reads: ``id,benchmark,buggy,fixed``, ``;``-lists of files, plus the
optional columns ``symptom``, ``metric``, ``lower_is_better`` and ``entry``) becomes one decided row
per bug, written the moment it is decided. The realism study trained 165 bugs 20 times each by hand;
here the benchmark is one campaign whose plan of every bug's runs is stored before the first one
trains (:mod:`mutreal.execution.benchmark`), so an interrupted benchmark resumes where it stopped
(rows already in the output are kept, stored runs are not trained again) and one bad bug never
stops the rest.

What is decided per bug, beyond the pair verdict of :func:`mutreal.analysis.reproduction.reproduce_from_records`:

- ``missing-data``: a program could not find its data; the row names the path to place there.
- ``limit``: runs were stopped by mutreal's own time or memory limit. Such a run is no result of the
  program (a slow program on a loaded machine is not a crashing one), and counting it as a failure
  decided bugs both ways (a fixed side cut at the limit twice made a reproduced crash "not
  reproduced"); the row says how many runs of each side were stopped and what to raise. Stored runs
  are reused, so a rerun with a higher limit trains only what was stopped.
- a *version problem*: every run of both versions fails on an API that current Keras, TensorFlow or
  numpy removed (each side's own removed API and message). By default each program already ran on
  the framework of its era with its rewrites (``--framework auto``, :mod:`mutreal.compat.framework_choice`),
  so what is left is a problem no rewrite repairs, kept with its error; only a benchmark run with
  ``--framework keras3`` or ``as-is`` is retried once with ``--modernize`` (both tries kept).
- ``error``: a program file is missing, or a side of several files has no single entry program.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mutreal.analysis.series import LostRuns
from mutreal.analysis.settings import DecisionSettings
from mutreal.execution.records import Outcome
from mutreal.stats.reproduction import SYMPTOMS

#: error types of a removed API (with the runner's Keras 1/2 hints, see runner.campaign)
_REMOVED_API_ERRORS = ("ModuleNotFoundError", "ImportError", "AttributeError")
_REMOVED_API_HINTS = (
    "has no attribute",
    "No module named",
    "cannot import name",
    "unexpected keyword argument",
    "Unrecognized keyword arguments",
    "Argument(s) not recognized",
    # Keras 3 no longer wraps a TensorFlow op applied to a functional model's tensors in a layer
    "A KerasTensor cannot be used as input to a TensorFlow function",
    # Keras 3 saves weights only to .weights.h5 and models only to .keras
    "must end in `.weights.h5`",
    "must end in `.keras`",
    # Keras 2 took int(units); Keras 3 rejects a numpy integer such as np.prod(shape) // 2
    "Received an invalid value for `units`, expected a positive integer",
)
_FIT_CALL = re.compile(r"\.fit(_generator)?\s*\(")
#: how data loaders name the file they did not find: the runner's ``place it at x``, OSError's ``[Errno 2] ...: 'x'``, numpy's
#: ``x not found.``, pandas' and Keras' ``File x does not exist``
_MISSING_PATHS = (
    re.compile(r"place it at (\S+)"),  # the runner's offline dataset cache (keras.datasets.*)
    re.compile(r"""(?:No such file or directory|not found|does not exist)[^'"]*['"]([^'"]+)['"]"""),
    re.compile(r"""['"]?([^\s'"]+?)['"]?\s+(?:not found|does not exist)"""),
)


class ManifestError(ValueError):
    """A manifest that cannot be read at all (the CLI's usage error)."""


@dataclass
class ReproduceTask:
    """One bug of a reproduction manifest, its paths resolved against the manifest's folder."""

    id: str
    benchmark: str | None
    buggy: list[str]
    fixed: list[str]
    symptom: str = "auto"
    metric: str | None = None
    lower_is_better: bool | None = None
    entry: str | None = None
    #: each side's command-line arguments (the manifest's ``args`` / ``args_<side>``), None: none
    args_buggy: list[str] | None = None
    args_fixed: list[str] | None = None


@dataclass
class BugReproduction:
    """The decided row of one bug (``reproduce --manifest`` writes it as one JSON line)."""

    id: str
    benchmark: str | None
    status: str  # ok | missing-data | limit | error | lost (lost, limit: decided again on resume)
    error: str | None = None
    symptom: str | None = None
    reproduced: bool | None = None
    stable: bool | None = None
    version_problem: dict[str, Any] | None = None
    reason: str | None = None
    metric_reason: str | None = None  # which metric was compared and why (the model's task, or the user's)
    missing: str | None = None
    programs: dict[str, str] = field(default_factory=dict)
    buggy: dict[str, Any] | None = None
    fixed: dict[str, Any] | None = None
    stats: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BugReproduction:
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in names})


def _boolean(cell: str | None) -> bool | None:
    text = (cell or "").strip().lower()
    if not text:
        return None
    if text in ("1", "true", "yes", "y", "lower"):
        return True
    if text in ("0", "false", "no", "n", "higher"):
        return False
    raise ManifestError(f"lower_is_better must be true/false, got {cell!r}")


def read_reproduce_manifest(path: str | Path) -> list[ReproduceTask]:
    """Read a reproduction manifest; raises :class:`ManifestError` when the file itself is unusable."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ManifestError(f"{path}: cannot read the manifest ({error})") from None
    if rows and not {"id", "buggy", "fixed"} <= set(rows[0]):
        raise ManifestError(f"{path}: a manifest needs the columns id, buggy, fixed")
    base = path.parent

    def files(cell: str) -> list[str]:
        return [str((base / part.strip()).resolve()) for part in (cell or "").split(";") if part.strip()]

    from mutreal.manifest import ManifestError as CellError
    from mutreal.manifest import args_of

    tasks = []
    for row in rows:
        try:  # the args cells as the manifest reader splits them (one rule for every command)
            args = {side: args_of(row, side) for side in ("buggy", "fixed")}
        except CellError as error:
            raise ManifestError(f"{path}: bug {row['id']}: {error}") from None
        symptom = (row.get("symptom") or "auto").strip() or "auto"
        if symptom not in SYMPTOMS:
            raise ManifestError(f"{path}: bug {row['id']}: symptom {symptom!r} is not one of {', '.join(SYMPTOMS)}")
        tasks.append(
            ReproduceTask(
                id=row["id"], benchmark=(row.get("benchmark") or None), buggy=files(row["buggy"]),
                fixed=files(row["fixed"]), symptom=symptom, metric=(row.get("metric") or "").strip() or None,
                lower_is_better=_boolean(row.get("lower_is_better")), entry=(row.get("entry") or "").strip() or None,
                args_buggy=args["buggy"], args_fixed=args["fixed"],
            )
        )  # fmt: skip
    return tasks


def entry_program(files: Sequence[str], entry: str | None = None) -> str:
    """The file of one side that is run: the only one, the ``entry`` column's, or the one calling fit.

    Raises ``ValueError`` with what to do when no single program can be chosen.
    """
    existing = [f for f in files if Path(f).is_file()]
    missing = [f for f in files if not Path(f).is_file()]
    if missing:
        raise ValueError(f"program not found: {missing[0]}")
    if not existing:
        raise ValueError("no program file given")
    if entry:
        chosen = [f for f in existing if f.endswith("/" + entry) or Path(f).name == entry]
        if len(chosen) == 1:
            return chosen[0]
        raise ValueError(f"entry {entry!r} names none (or several) of the side's files")
    if len(existing) == 1:
        return existing[0]
    training = [f for f in existing if _FIT_CALL.search(Path(f).read_text(errors="replace"))]
    if len(training) == 1:
        return training[0]
    raise ValueError(
        f"{len(existing)} files and {len(training)} of them call fit: name the program to run in an 'entry' column"
    )


def _removed_api_failure(records: Sequence[Any]) -> tuple[str, str] | None:
    """(error type, message) when every run of a program failed on the same removed-API error."""
    if not records or any(r.outcome != Outcome.CRASH for r in records):
        return None
    first = records[0]
    kind, message = first.error_type or "", first.error_message or ""
    if any((r.error_type, r.error_message) != (kind, message) for r in records):
        return None
    if kind in _REMOVED_API_ERRORS or any(hint in message for hint in _REMOVED_API_HINTS):
        return kind, message
    return None


def _missing_data(records: Sequence[Any]) -> str | None:
    for record in records:
        if record.outcome == Outcome.MISSING_DATA:
            message = record.error_message or ""
            for pattern in _MISSING_PATHS:
                match = pattern.search(message)
                if match:
                    return match.group(1)
            return message or "a data file"
    return None


def _stopped_at_limit(records: tuple[Sequence[Any], Sequence[Any]]) -> str | None:
    """Why no verdict: how many runs of each side mutreal's limits stopped, or None when none was."""
    parts, limits = [], set()
    for side, runs in zip(("buggy", "fixed"), records, strict=True):
        stopped = [r.outcome.limit for r in runs if r.outcome.is_limit]  # not a result of the program
        if stopped:
            parts.append(f"{len(stopped)} of {len(runs)} {side} runs")
            limits.update(f"{which} limit ({option})" for which, option in stopped)
    if not parts:
        return None
    return (
        f"{' and '.join(parts)} were stopped at mutreal's {' and '.join(sorted(limits))}: a stopped run "
        "is no result of the program, so there is no verdict; rerun with a higher limit (stored runs are reused)"
    )


def _decide(task: ReproduceTask, buggy: str, fixed: str, records: tuple[list[Any], list[Any]],
            settings: DecisionSettings) -> BugReproduction:  # fmt: skip
    from mutreal.analysis.reproduction import reproduce_from_records

    row = BugReproduction(id=task.id, benchmark=task.benchmark, status="ok", programs={"buggy": buggy, "fixed": fixed})
    missing = _missing_data(records[0]) or _missing_data(records[1])
    report = reproduce_from_records(
        records[0], records[1], symptom=task.symptom,
        settings=settings.for_bug(task.metric, task.lower_is_better),
    )  # fmt: skip
    data = report.to_dict()
    row.buggy, row.fixed, row.stats = data["buggy"], data["fixed"], data["stats"]
    row.metric_reason = data["metric_reason"]
    if missing is not None:
        row.status, row.missing = "missing-data", missing
        row.error = f"a program could not find its data: place {missing}"
        return row
    stopped = _stopped_at_limit(records)
    if stopped is not None:
        row.status, row.error, row.symptom = "limit", stopped, data["symptom"]
        return row
    row.symptom, row.reproduced, row.stable, row.reason = data["symptom"], data["reproduced"], data["stable"], data["reason"]
    return row


#: ``train(programs, changes)``: the records of each program (programs x seeds), trained with the
#: campaign's options changed by ``changes`` (``{"modernize": True}`` for a version problem's retry)
Train = Callable[[list[str], dict[str, Any]], Sequence[list[Any]]]


def reproduce_trained(
    task: ReproduceTask,
    buggy: str,
    fixed: str,
    train: Train,
    *,
    modernized: bool,
    statistics: DecisionSettings | Mapping[str, Any] | None = None,
) -> BugReproduction:
    """Decide one bug from the runs ``train`` gives, retrying it modernized once when both sides
    stopped on a removed API (unless the runs were ``modernized`` already: rewritten for their era by
    the default ``--framework auto``, or ``--modernize``; then the removed API is recorded as a
    version problem no rewrite repaired, ``after_era_rewrites``); never raises for a bad bug. ``train`` gives the bug's rows of a benchmark's plan (or a campaign of the bug's own)."""
    settings = DecisionSettings.of(statistics)
    try:
        records = tuple(train([buggy, fixed], {}))
        row = _decide(task, buggy, fixed, records, settings)  # type: ignore[arg-type]
        failure = (_removed_api_failure(records[0]), _removed_api_failure(records[1]))
        # both sides stopped on a removed API: the fault was never reached. The two messages need
        # not be equal (a fix that also changed lr=0.01 to lr=0.001 fails on {'lr': 0.001}).
        if failure[0] is not None and failure[1] is not None and not modernized:
            first = {k: row.to_dict()[k] for k in ("reproduced", "stable", "reason", "symptom")}
            records = tuple(train([buggy, fixed], {"modernize": True}))
            row = _decide(task, buggy, fixed, records, settings)  # type: ignore[arg-type]
            still = _removed_api_failure(records[0]) is not None and _removed_api_failure(records[1]) is not None
            row.version_problem = {
                "error_type": failure[0][0], "error": failure[0][1], "first_try": first,
                "modernized": True, "resolved": not still,
            }  # fmt: skip
            if failure[1] != failure[0]:
                row.version_problem["fixed_error_type"], row.version_problem["fixed_error"] = failure[1]
        elif failure[0] is not None and failure[1] is not None:
            # the programs ran rewritten for their era already: what is left no rewrite repairs
            row.version_problem = {
                "error_type": failure[0][0], "error": failure[0][1], "first_try": None,
                "modernized": True, "resolved": False, "after_era_rewrites": True,
            }  # fmt: skip
            if failure[1] != failure[0]:
                row.version_problem["fixed_error_type"], row.version_problem["fixed_error"] = failure[1]
        return row
    except LostRuns as error:  # not the programs' doing: a resumed benchmark trains them again
        return BugReproduction(id=task.id, benchmark=task.benchmark, status="lost", error=str(error))
    except (RuntimeError, ValueError, OSError) as error:
        return BugReproduction(id=task.id, benchmark=task.benchmark, status="error", error=str(error))


def already_decided(out: str | Path | None) -> dict[str, str]:
    """Id -> status of the rows in an existing output: a resumed benchmark keeps them and skips
    those bugs. A last line cut short by an interruption is cut off the file, and rows of bugs
    whose runs were lost or stopped at a limit are taken out of it: those bugs are decided again
    (runs stopped at a limit since raised are trained again, the others come from the store), and the rows appended
    next start on a line of their own."""
    if out is None or not Path(out).is_file():
        return {}
    path = Path(out)
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    decided, kept, dropped = {}, [], False
    for line in complete.decode("utf-8", errors="replace").splitlines(keepends=True):
        try:
            row = json.loads(line)
            bug_id, status = row["id"], row["status"]
        except (ValueError, KeyError, TypeError):
            kept.append(line)  # not a row of ours: left in the file, its bug decided again
            continue
        if status in ("lost", "limit"):  # not decided: a rerun (maybe with a raised limit) decides again
            dropped = True
            continue
        decided[bug_id] = status
        kept.append(line)
    if dropped or complete != data:
        temporary = path.with_name(path.name + ".resume")
        temporary.write_text("".join(kept), encoding="utf-8")
        temporary.replace(path)
    return decided


def reproduce_manifest(
    tasks: Sequence[ReproduceTask],
    *,
    seeds: Sequence[int],
    campaign: Mapping[str, Any] | None = None,
    statistics: DecisionSettings | Mapping[str, Any] | None = None,
    skip: Mapping[str, str] | set[str] | None = None,
    on_start: Callable[[ReproduceTask], None] | None = None,
) -> Iterator[BugReproduction]:
    """Yield one decided row per bug, in manifest order, from one campaign over the benchmark.

    Before anything trains, every bug's two programs are read and hashed and one plan of every bug
    x program x seed is stored (bugs in ``skip`` too, so a resumed benchmark finds the same plan);
    then bug after bug trains its rows not done and is decided, and a version problem's modernized
    retry is added to the bug's rows of the plan before it trains
    (:class:`mutreal.execution.benchmark.BenchmarkCampaign`). Local workers stay warm throughout."""
    from mutreal.campaigns.pair import benchmark_campaign, bugs_to_decide, split_by_program

    options = dict(campaign or {})
    with benchmark_campaign(seeds, options) as benchmark:
        chosen: dict[int, tuple[str, str, str] | str] = {}  # by the task object: ids may repeat
        for task in tasks:
            try:
                buggy, fixed = entry_program(task.buggy, task.entry), entry_program(task.fixed, task.entry)
            except (ValueError, OSError) as error:
                chosen[id(task)] = str(error)
                continue
            own = {path: args for path, args in ((buggy, task.args_buggy), (fixed, task.args_fixed)) if args is not None}
            chosen[id(task)] = (benchmark.add(task.id, [buggy, fixed], program_args=own), buggy, fixed)
        benchmark.write_plan(to_decide=groups_to_decide(tasks, chosen, skip))
        for task in bugs_to_decide(tasks, skip, on_start):
            bug = chosen[id(task)]
            if isinstance(bug, str):
                yield BugReproduction(id=task.id, benchmark=task.benchmark, status="error", error=bug)
                continue
            group, buggy, fixed = bug

            def train(programs: list[str], changes: dict[str, Any], group: str = group) -> list[list[Any]]:
                records = benchmark.extend(group, programs, **changes) if changes else benchmark.run(group)
                return split_by_program(records, len(programs), len(seeds))

            yield reproduce_trained(task, buggy, fixed, train, modernized=era_rewritten(benchmark.config),
                                    statistics=statistics)  # fmt: skip


def era_rewritten(config: Any) -> bool:
    """Whether a campaign's programs already had their era's rewrites (``--framework auto``, the
    default, or a framework other than Keras 3), or ``--modernize``: then a version problem's retry
    with ``--modernize`` cannot help and is not made. Only ``--framework keras3`` / ``as-is`` retry."""
    return bool(config.modernize) or getattr(config, "framework", "auto") not in ("keras3", "as-is")


def groups_to_decide(tasks: Sequence[Any], chosen: Mapping[int, Any], skip: Container[str] | None) -> set[str]:
    """The plan groups of the bugs this start decides (the progress bar counts their runs only);
    ``chosen`` maps each task object to a tuple starting with its group, or to its error."""
    return {chosen[id(t)][0] for t in tasks if isinstance(chosen[id(t)], tuple) and not (skip and t.id in skip)}
