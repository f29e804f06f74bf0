"""A run's record made from what a worker gave back, or from its absence (a stored, decided or lost run).

Why a module of its own: every way a run ends up in the store goes through here, so each record
carries the same provenance fields and the compared metric chosen one way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mutreal.execution.campaign_config import CampaignConfig
from mutreal.execution.campaign_files import utc_now
from mutreal.execution.plan import PlannedRun
from mutreal.execution.records import Outcome, RunRecord, metric_direction, select_metric


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
            "finished_at": utc_now(),
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


def decided_without_training(run: PlannedRun, cfg: CampaignConfig, campaign_id: str) -> RunRecord:
    """The record of a ``done`` plan row: its stored run (the compared metric chosen again when
    ``--metric`` changed), or the ``missing-data`` verdict of a program that cannot be read."""
    if run.program.error is not None:
        return RunRecord(key=run.key, program=str(run.program.path), seed=run.seed, outcome=Outcome.MISSING_DATA,
                         error_type="ProgramNotReadable", error_message=run.program.error, campaign_id=campaign_id,
                         finished_at=utc_now())  # fmt: skip
    record = run.stored
    assert record is not None  # a done row of a readable program carries its stored run
    record.reused = True
    if cfg.metric is not None and record.metric_name != cfg.metric:
        name, value, source = select_metric(record.fits, record.evaluations, cfg.metric)
        record.metric_name, record.metric_value, record.metric_source = name, value, source
        record.direction = metric_direction(name) if name else None
    return record


def lost_result(cause: str) -> dict[str, Any]:
    from mutreal.execution.worker_process import _failure

    return _failure(Outcome.LOST, "RunLost", f"{cause}; not a verdict: a rerun of the campaign trains it again",
                    wall_time_s=0.0)  # fmt: skip


def record_lost(
    tasks: list[dict[str, Any]],
    records: dict[str, RunRecord],
    finished: Callable[[dict[str, Any], dict[str, Any]], None],
    cause: str,
) -> None:
    """Store every task without a result as ``lost`` (its cause kept), so each outcome is a row."""
    for task in tasks:
        if task["key"] not in records:
            try:
                finished(task, lost_result(cause))
            except Exception:  # noqa: BLE001 - the store itself may be what failed
                break
