"""Train Keras programs many times, safely and fast, and keep every run.

Public API (import from here; importing this package never imports TensorFlow):

* :func:`execute_campaign` ``(programs, runs, *, jobs, executor="local"|"pool"|"ray", address,
  timeout_s, memory_limit_mb, store, seeds, metric, modernize, framework="auto"|"keras3"|"tf_keras"|"tf1"|"as-is",
  config, progress, on_record)
  -> CampaignResult``: trains each program once per seed in spawned warm workers (or Ray), reusing
  stored runs; :class:`CampaignResult` holds the records and the campaign's facts (id,
  config/manifest paths, wall time, trained/reused counts, worker start-up seconds, GPU utilisation);
  :func:`run_campaign` (same arguments) returns only the records;
* :class:`RunRecord` (with :class:`FitRecord`, :class:`EvaluateRecord`): one run, JSON round-trip;
  ``outcome`` an :class:`Outcome` (a ``str`` Enum: ``ok``, ``crash``, ``timeout``, ``memory``,
  ``missing-data``, ``lost``; :class:`UnknownOutcome` for any other stored word),
  ``metric_name``/``metric_value``/``direction``, ``metric(name)``, ``predictions``/``labels``/``correct`` of the last evaluate, ``fits``, ``evaluations``, timings,
  ``error_type``/``error_message``/``traceback``, ``era``/``framework``/``rewrites`` (what the program
  ran on and every rewrite applied before, :mod:`mutreal.compat.framework_choice`);
* :class:`RunStore`: the SQLite store (``records()``, ``get()``, ``to_dataframe()``, ``to_csv()``);
* :class:`CampaignConfig`: the YAML configuration (``load``, ``to_yaml``); :func:`summarize`.

Warm workers kept with ``run_campaign(..., keep_workers=True)`` are stopped by
``mutreal.execution.pool.shutdown_idle_workers()`` or at exit. Run keys include the program text (after
its era's rewrites), the framework it runs on (but for Keras 3), its folder's data files, ``modernize``/``args``/determinism/TensorFlow threads, the seed and package
versions; re-selecting another metric later needs no retraining (``RunRecord.metric(name)``).
"""

from mutreal.execution.campaign import CampaignResult, execute_campaign, run_campaign
from mutreal.execution.campaign_config import CampaignConfig
from mutreal.execution.records import (
    CRASH,
    LOST,
    MEMORY,
    MISSING_DATA,
    OK,
    OUTCOMES,
    TIMEOUT,
    EvaluateRecord,
    FitRecord,
    Outcome,
    RunRecord,
    UnknownOutcome,
    default_metric_name,
    metric_direction,
    select_metric,
)
from mutreal.execution.store import RunStore, records_to_rows
from mutreal.execution.summaries import ProgramSummary, summarize

__all__ = [
    "CRASH",
    "LOST",
    "MEMORY",
    "MISSING_DATA",
    "OK",
    "OUTCOMES",
    "TIMEOUT",
    "CampaignConfig",
    "CampaignResult",
    "EvaluateRecord",
    "FitRecord",
    "Outcome",
    "ProgramSummary",
    "RunRecord",
    "RunStore",
    "UnknownOutcome",
    "default_metric_name",
    "execute_campaign",
    "metric_direction",
    "records_to_rows",
    "run_campaign",
    "select_metric",
    "summarize",
]
