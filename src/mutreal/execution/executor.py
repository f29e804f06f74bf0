"""What every executor is: a campaign's tasks in, each run's result handed back as it finishes.

The campaign (and the worker service, which runs a local executor for its callers) talk to local
warm workers, the worker service and Ray through this one interface, so storing each result the
moment it arrives, marking the plan and recording lost runs are written once, in the campaign.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

#: ``on_result(task, result)``: the task as sent, the worker's raw result (see ``worker_process._failure``)
ResultCallback = Callable[[dict[str, Any], dict[str, Any]], None]


class Executor:
    """The settings every executor runs a campaign's tasks with, and the :meth:`map` they implement.

    ``options`` are the workers' start options (threads, determinism, sandbox, passed variables);
    a worker is replaced after ``max_runs_per_worker`` runs so that leaks of one program cannot add up.
    """

    def __init__(
        self,
        jobs: int,
        options: dict[str, Any] | None = None,
        timeout_s: float | None = None,
        memory_limit_mb: float | None = None,
        max_runs_per_worker: int = 200,
    ) -> None:
        self.jobs = max(1, int(jobs))
        self.options = dict(options or {})
        self.timeout_s = timeout_s
        self.memory_limit_mb = memory_limit_mb
        self.max_runs_per_worker = max_runs_per_worker
        #: worker start-up seconds summed over the workers this map() started (``None``: not measured)
        self.startup_s: float | None = 0.0

    def drop(self, unwanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """Take back the tasks of the running :meth:`map` that no worker has started and ``unwanted``
        says are not needed any more (e.g. the other seeds of a program whose probe crashed before its
        first epoch, started speculatively beside it): they are not run, get no result, and ``map``
        returns without them. Returns the tasks taken back; an executor that cannot take tasks back
        (this default) returns none, and their results arrive as usual."""
        return []

    def map(self, tasks: Iterable[dict[str, Any]], on_result: ResultCallback) -> None:
        """Run every task; call ``on_result(task, result)`` in the calling thread as each finishes (any order).

        Raises ``RuntimeError`` when the workers went away mid-campaign (the campaign then records
        the runs without a result as lost)."""
        raise NotImplementedError


def map_probes_first(
    executor: Executor,
    probes: Sequence[dict[str, Any]],
    others: Sequence[dict[str, Any]],
    group: Callable[[dict[str, Any]], Hashable],
    on_probe: Callable[[dict[str, Any], dict[str, Any]], bool],
    on_result: ResultCallback,
) -> None:
    """Run ``probes`` and ``others`` in one :meth:`Executor.map`, the probes queued first, so the
    others train on the workers the probes leave idle instead of waiting for every probe to end.

    What each caller sees is what two maps in a row (probes, then the others a probe let through)
    would give: a probe's result goes to ``on_probe``, which says whether the other results of its
    ``group`` are wanted; an other task's result reaches ``on_result`` only once its group's probe
    said yes (held until then). When it says no, the group's tasks no worker has started are taken
    back (:meth:`Executor.drop`) and the results of those already started are discarded: the
    caller decides them without training, as before. An other task whose group has no probe here
    is handed on as it finishes. Tasks are told apart by their ``key``."""
    probe_keys = {task["key"] for task in probes}
    probed = {group(task) for task in probes}
    wanted: dict[Hashable, bool] = {}
    held: dict[Hashable, list[tuple[dict[str, Any], dict[str, Any]]]] = {}

    def handle(task: dict[str, Any], result: dict[str, Any]) -> None:
        name = group(task)
        if task["key"] in probe_keys:
            wanted[name] = bool(on_probe(task, result))
            waiting = held.pop(name, [])
            if wanted[name]:
                for item in waiting:
                    on_result(*item)
            else:
                executor.drop(lambda t: t["key"] not in probe_keys and group(t) == name)
        elif name not in probed or wanted.get(name):
            on_result(task, result)
        elif name not in wanted:
            held.setdefault(name, []).append((task, result))
        # else: started before its probe said no: discarded, as if never started

    executor.map([*probes, *others], handle)
