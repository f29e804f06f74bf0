"""A program that crashes before its first epoch is trained once, not once per seed.

An import, build or compile error, a shape error in the first batch, a missing data file: such a
failure does not depend on the seed, so N runs of it say no more than one and cost N worker starts
of the program (the issue's DeepLocalize bugs were trained to the end only to crash; a buggy
program that cannot build is the cheap case, a benchmark of them is not). The campaign
(:func:`mutreal.execution.campaign.execute_plan`) trains one row per program first
(:func:`phases`); a program whose run :func:`crashed_before_first_epoch` gets, for each other seed,
a record that repeats the crash (:func:`repeated_crash`, ``repeated_from`` naming the trained run),
stored like a trained run (its plan row done: a benchmark run again reuses it), so the statistics see a program that crashes in every run, as it does: the reproduction rule's
crash symptom and DeepCrime's killed-by-crash read those records as they read trained ones, and
the analysis rows say how many were repeated. ``--repeat-crashes`` (``repeat_crashes``) trains every
seed instead, stored repeated records included (:func:`mutreal.execution.plan.needs_run`).
"""

from __future__ import annotations

import datetime as _dt
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mutreal.execution.plan import CampaignPlan, PlannedRun
from mutreal.execution.records import Outcome, RunRecord


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def crashed_before_first_epoch(record: RunRecord) -> bool:
    """Whether a run ended in the program's own failure before any training happened: an import,
    build or compile error, a shape error in the first batch, a missing data file.

    Such a failure does not depend on the seed, so one run of the program is its verdict. It needs
    evidence of when the program failed: its own exception (a traceback, ``sys.exit``) or missing
    data, no ``fit`` that completed an epoch (a failed fit records the epochs it completed), no
    ``evaluate``, and at most one training call outside ``fit`` (a TF1 program's variable
    initialiser is one ``Session.run``). A worker that died, a time-out or a memory limit is no
    such evidence."""
    if record.outcome == Outcome.MISSING_DATA:
        pass
    elif record.outcome != Outcome.CRASH or not (record.traceback or record.error_type == "SystemExit"):
        return False
    if record.evaluations or any(fit.epochs > 0 or fit.completed for fit in record.fits):
        return False
    if not record.fits and "in fit\n" in (record.traceback or ""):
        return False  # failed in fit with no record of it: stored before failed fits were recorded
    return record.steps_outside_fit <= 1


def repeated_crash(run: PlannedRun, crash: RunRecord, campaign_id: str) -> RunRecord:
    """The record of a row that is not trained: ``crash`` (its program's run that crashed before its
    first epoch) with this row's key and seed, ``repeated_from`` naming the trained run."""
    data = crash.to_dict()
    data.update(key=run.key, seed=run.seed, program=str(run.program.path.resolve()), repeated_from=crash.key,
                campaign_id=campaign_id, wall_time_s=0.0, fit_time_s=0.0, evaluate_time_s=0.0, worker="",
                worker_run_index=0, started_at="", finished_at=_now(), peak_rss_mb=None, retried_after=None)  # fmt: skip
    return RunRecord.from_dict(data)


def program_identity(plan: CampaignPlan, run: PlannedRun) -> tuple[str, str, str, str]:
    """What makes runs of one program alike but for the seed: its text, its data, its configuration
    and its own command-line arguments (the same text given other arguments is another program)."""
    args = "" if run.program.args is None else "\0".join(run.program.args) + "\0"
    return run.program.program_hash, run.program.data_hash, run.config_hash or plan.config_hash, args


def phases(
    plan: CampaignPlan, runs: Sequence[PlannedRun], records: Mapping[str, RunRecord], repeat_crashes: bool
) -> tuple[list[PlannedRun], list[PlannedRun]]:
    """(rows to train first, rows decided after them): one probe row per program without a decided
    run among ``runs``, then the rest; all rows first with ``repeat_crashes``."""
    to_train = plan.to_train(runs)
    if repeat_crashes:
        return to_train, []
    known = {program_identity(plan, run) for run in runs if run.key in records and run.program.error is None}
    first, later, probed = [], [], set()
    for run in to_train:
        identity = program_identity(plan, run)
        if identity in known or identity in probed:
            later.append(run)
        else:
            probed.add(identity)
            first.append(run)
    return first, later


def after_probes(
    plan: CampaignPlan,
    later: Sequence[PlannedRun],
    records: Mapping[str, RunRecord],
    campaign_id: str,
    bar: Any,
    keep: Callable[[RunRecord], None],
) -> list[PlannedRun]:
    """Give each row of ``later`` whose program crashed before its first epoch the repeated record of
    that crash (``keep`` stores it, its plan row done, as a trained run is); the rows still to train."""
    crashes: dict[tuple[str, str, str], RunRecord] = {}
    for run in plan.runs:
        record = records.get(run.key)
        if record is not None and record.repeated_from is None and crashed_before_first_epoch(record):
            crashes.setdefault(program_identity(plan, run), record)
    remaining = []
    told: set[tuple[str, str, str]] = set()
    for run in later:
        crash = crashes.get(program_identity(plan, run))
        if crash is None:
            remaining.append(run)
            continue
        if program_identity(plan, run) not in told:
            told.add(program_identity(plan, run))
            bar.write(f"{run.program.path.name}: crashed before its first epoch ({crash.error_type}) in seed "
                      f"{crash.seed}: its other seeds repeat that crash untrained (--repeat-crashes trains them)",
                      file=sys.stderr)  # fmt: skip
        keep(repeated_crash(run, crash, campaign_id))
    return remaining
