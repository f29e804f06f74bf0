"""Train Keras programs many times, safely and fast, and keep every run.

Public API (import from here; importing this package never imports TensorFlow):

* :func:`run_campaign` ``(programs, runs, *, jobs, executor="local"|"ray", address, timeout_s,
  memory_limit_mb, store, seeds, metric, modernize, config, progress, on_record) -> list[RunRecord]``:
  trains each program once per seed in spawned warm workers (or Ray), reusing stored runs;
* :class:`RunRecord` (with :class:`FitRecord`, :class:`EvaluateRecord`): one run, JSON round-trip;
  ``outcome`` in :data:`OUTCOMES`, ``metric_name``/``metric_value``/``direction``, ``metric(name)``,
  ``predictions``/``labels``/``correct`` of the last evaluate, ``fits``, ``evaluations``, timings,
  ``error_type``/``error_message``/``traceback``;
* :class:`RunStore`: the SQLite store (``records()``, ``get()``, ``to_dataframe()``, ``to_csv()``);
* :class:`CampaignConfig`: the YAML configuration (``load``, ``to_yaml``); :func:`summarize`;
* :data:`LAST_CAMPAIGN`: id, config/manifest paths, wall time, trained/reused counts, worker start-up
  seconds and GPU utilisation of the last campaign of this process.

Warm workers kept with ``run_campaign(..., keep_workers=True)`` are stopped by
``mutreal.execution.pool.shutdown_idle_workers()`` or at exit. Run keys include the program text, its
folder's data files, ``modernize``/``args``/determinism/TensorFlow threads, the seed and package
versions; re-selecting another metric later needs no retraining (``RunRecord.metric(name)``).
"""

from mutreal.execution.campaign import (
    LAST_CAMPAIGN,
    CampaignConfig,
    ProgramSummary,
    run_campaign,
    summarize,
)
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
    RunRecord,
    default_metric_name,
    metric_direction,
    select_metric,
)
from mutreal.execution.store import RunStore, records_to_rows

__all__ = [
    "CRASH",
    "LAST_CAMPAIGN",
    "LOST",
    "MEMORY",
    "MISSING_DATA",
    "OK",
    "OUTCOMES",
    "TIMEOUT",
    "CampaignConfig",
    "EvaluateRecord",
    "FitRecord",
    "ProgramSummary",
    "RunRecord",
    "RunStore",
    "default_metric_name",
    "metric_direction",
    "records_to_rows",
    "run_campaign",
    "select_metric",
    "summarize",
]
