"""Running campaign tasks on a Ray cluster (``--executor ray --address ...``).

Each Ray actor owns one warm :class:`~mutreal.runner.pool.WorkerProcess` on its node, so a run on Ray
is sandboxed exactly like a local one (time limit, watched memory, fresh worker after a failure) and
the worker keeps TensorFlow imported between runs. Actors request ``gpus_per_run`` GPUs (fractions
pack several runs on one GPU) and one CPU each. A lost actor (node failure, actor killed) is
restarted by Ray and its run retried up to ``max_retries`` times; after that the run is recorded as a
crash with the reason. Results come back to the driver, which writes them to the same SQLite store
as local runs. Programs and their data folders must be visible on the nodes at the same paths (a
shared file system); the program text itself travels with the task.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from typing import Any


class _RunnerActor:
    """One warm sandboxed worker on a Ray node (wrapped with ``ray.remote`` at use)."""

    def __init__(self, options: dict[str, Any], timeout_s: float | None, memory_limit_mb: float | None,
                 max_runs: int) -> None:  # fmt: skip
        from mutreal.runner.pool import WorkerProcess

        self.worker = WorkerProcess(options, name=f"ray{os.getpid()}", max_runs=max_runs)
        self.timeout_s = timeout_s
        self.memory_limit_mb = memory_limit_mb

    def run(self, task: dict[str, Any]) -> dict[str, Any]:
        import socket

        result = self.worker.run(task, self.timeout_s, self.memory_limit_mb)
        result["worker"] = f"{socket.gethostname()}/{result.get('worker', '')}"
        return result

    def stop(self) -> None:
        self.worker.stop()


class RayExecutor:
    """Runs tasks on Ray actors; results reach ``on_result`` in the calling thread as they finish."""

    def __init__(
        self,
        address: str | None,
        jobs: int,
        options: dict[str, Any] | None = None,
        timeout_s: float | None = None,
        memory_limit_mb: float | None = None,
        gpus_per_run: float = 0.0,
        max_retries: int = 2,
        max_runs_per_worker: int = 200,
    ) -> None:
        self.address = address
        self.jobs = max(1, int(jobs))
        self.options = dict(options or {})
        self.timeout_s = timeout_s
        self.memory_limit_mb = memory_limit_mb
        self.gpus_per_run = gpus_per_run
        self.max_retries = max_retries
        self.max_runs_per_worker = max_runs_per_worker

    def _init_ray(self) -> bool:
        """Connect to the cluster (or start a local one); True when this call started Ray."""
        import ray

        if ray.is_initialized():
            return False
        if self.address:
            ray.init(address=self.address, log_to_driver=False, ignore_reinit_error=True)
        else:
            ray.init(
                num_cpus=max(self.jobs, os.cpu_count() or 1),
                include_dashboard=False,
                log_to_driver=False,
                ignore_reinit_error=True,
            )
        return True

    def map(
        self,
        tasks: Iterable[dict[str, Any]],
        on_result: Callable[[dict[str, Any], dict[str, Any]], None],
    ) -> None:
        """Run every task; call ``on_result(task, result)`` for each as it finishes (any order)."""
        import ray
        from ray.exceptions import RayActorError, RayError

        from mutreal.runner.pool import _failure

        started_ray = self._init_ray()
        actor_class = ray.remote(
            num_cpus=1,
            num_gpus=self.gpus_per_run,
            max_restarts=self.max_retries,
            max_task_retries=self.max_retries,
        )(_RunnerActor)
        pending = list(tasks)
        actors = [
            actor_class.remote(self.options, self.timeout_s, self.memory_limit_mb, self.max_runs_per_worker)
            for _ in range(min(self.jobs, len(pending)))
        ]
        in_flight: dict[Any, tuple[Any, dict[str, Any]]] = {}
        try:
            for actor in actors:
                if pending:
                    task = pending.pop(0)
                    in_flight[actor.run.remote(task)] = (actor, task)
            while in_flight:
                ready, _ = ray.wait(list(in_flight), num_returns=1)
                ref = ready[0]
                actor, task = in_flight.pop(ref)
                try:
                    result = ray.get(ref)
                except RayActorError as error:
                    result = _failure(
                        "crash", "RayWorkerLost", f"the Ray worker was lost after retries: {error}"
                    )
                    actor = actor_class.remote(
                        self.options, self.timeout_s, self.memory_limit_mb, self.max_runs_per_worker
                    )
                except RayError as error:
                    result = _failure("crash", type(error).__name__, f"Ray could not run the task: {error}")
                result.setdefault("wall_time_s", 0.0)
                on_result(task, result)
                if pending:
                    next_task = pending.pop(0)
                    in_flight[actor.run.remote(next_task)] = (actor, next_task)
        finally:
            for actor in actors:
                with contextlib.suppress(Exception):
                    ray.get(actor.stop.remote(), timeout=30)
                ray.kill(actor)
            if started_ray:
                ray.shutdown()
