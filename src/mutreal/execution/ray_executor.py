"""Running campaign tasks on a Ray cluster (``--executor ray --address ...``).

Each Ray actor owns one warm :class:`~mutreal.execution.pool.WorkerProcess` on its node, so a run on Ray
is sandboxed exactly like a local one (time limit, watched memory, fresh worker after a failure) and
the worker keeps TensorFlow imported between runs. Actors request ``gpus_per_run`` GPUs (fractions
pack several runs on one GPU) and one CPU each. A lost actor (node failure, actor killed) is
restarted by Ray and its run retried up to ``max_retries`` times; after that the run is recorded as
``lost`` with the reason (not a verdict: a rerun of the campaign trains it again). Results come back
to the driver as JSON text, never as pickled objects built from what a program sent (the actor's
worker talks JSON too), and the driver writes them to the same SQLite store as local runs. Programs and their data folders must be visible on the nodes at the same paths (a
shared file system); the program text itself travels with the task.

A cluster address that nothing answers is reported within :data:`CONNECT_TIMEOUT_S` seconds as a
:class:`RayClusterUnreachable` error (``mutreal`` commands: one ``error:`` line, exit code 1), instead
of waiting in Ray's own connection retries, which take minutes for a ``host:port`` address.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterable
from typing import Any

from mutreal.execution.executor import Executor, ResultCallback

#: Seconds a cluster address may take to accept a TCP connection before the run is given up.
CONNECT_TIMEOUT_S = 5.0
#: Ray's default ports: the GCS of ``ray start --head`` and the Ray Client server (``ray://``).
DEFAULT_GCS_PORT = 6379
DEFAULT_CLIENT_PORT = 10001

_HINT = (
    "Check that the cluster's head node is running (`ray start --head` prints its address), that host "
    "and port are right (the GCS port, 6379 by default, or ray://HOST:10001 for Ray Client) and that no "
    "firewall blocks the port; `--address auto` finds a cluster started on this machine, and no "
    "--address starts a local Ray"
)


class RayClusterUnreachable(RuntimeError):
    """The Ray cluster at the given address cannot be reached: nothing ran (a setup problem, not a run's)."""


def address_endpoint(address: str) -> tuple[str, int] | None:
    """The ``(host, port)`` a Ray address connects to first, or None when Ray resolves it itself.

    ``host:port`` is a cluster's GCS, ``ray://host[:port]`` a Ray Client server; ``auto`` and
    ``local`` (and other schemes) are left to Ray, which fails fast for them on its own.
    """
    text = address.strip()
    default_port = DEFAULT_GCS_PORT
    if text.lower() in ("", "auto", "local"):
        return None
    if "://" in text:
        scheme, text = text.split("://", 1)
        if scheme.lower() != "ray":
            return None
        default_port = DEFAULT_CLIENT_PORT
    text = text.split("/", 1)[0]
    if text.startswith("["):  # [IPv6]:port
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, ""
    if not host:
        return None
    try:
        port = int(port_text) if port_text else default_port
    except ValueError:
        raise RayClusterUnreachable(
            f"Ray address {address!r}: the port {port_text!r} is not a number. {_HINT}"
        ) from None
    return host, port


def check_ray_address(address: str | None, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Raise :class:`RayClusterUnreachable` unless the address's host:port accepts a TCP connection in time.

    Ray itself retries an unanswered GCS address for minutes; one TCP connect (name lookup
    included, in a helper thread so a slow resolver cannot block either) says within ``timeout_s``
    whether anything listens there. A port that answers but is not Ray is still left to Ray.
    """
    if not address:
        return
    endpoint = address_endpoint(address)
    if endpoint is None:
        return
    host, port = endpoint
    outcome: list[BaseException | None] = []

    def connect() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                outcome.append(None)
        except OSError as error:
            outcome.append(error)

    thread = threading.Thread(target=connect, name="mutreal-ray-address-check", daemon=True)
    thread.start()
    thread.join(timeout_s + 0.5)
    if outcome and outcome[0] is None:
        return
    where = "" if address.strip() == f"{host}:{port}" else f" ({host}:{port})"
    reason = _describe(outcome[0]) if outcome else f"no answer within {timeout_s:g} s"
    raise RayClusterUnreachable(f"cannot reach the Ray cluster at {address!r}{where}: {reason}. {_HINT}")


def _describe(error: BaseException | None) -> str:
    if isinstance(error, socket.gaierror):
        return f"unknown host ({error.strerror or error})"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused (nothing listens on that port)"
    if isinstance(error, (socket.timeout, TimeoutError)):
        return "no answer (timed out)"
    return str(error)


class _RunnerActor:
    """One warm sandboxed worker on a Ray node (wrapped with ``ray.remote`` at use)."""

    def __init__(self, options: dict[str, Any], timeout_s: float | None, memory_limit_mb: float | None,
                 max_runs: int) -> None:  # fmt: skip
        from mutreal.execution.pool import WorkerProcess

        self.worker = WorkerProcess(options, name=f"ray{os.getpid()}", max_runs=max_runs)
        self.timeout_s = timeout_s
        self.memory_limit_mb = memory_limit_mb

    def run(self, task: dict[str, Any]) -> str:
        """One run as JSON text (:mod:`mutreal.execution.channel`): data only on the way to the driver."""
        import socket

        from mutreal.execution import channel

        result = self.worker.run(task, self.timeout_s, self.memory_limit_mb)
        result["worker"] = f"{socket.gethostname()}/{result.get('worker', '')}"
        return channel.encode(result).decode("utf-8")

    def stop(self) -> None:
        self.worker.stop()


class RayExecutor(Executor):
    """Runs tasks on Ray actors; results reach ``on_result`` in the calling thread as they finish."""

    def __init__(
        self, address: str | None, jobs: int, *, gpus_per_run: float = 0.0, max_retries: int = 2, **settings: Any
    ) -> None:  # fmt: skip
        super().__init__(jobs, **settings)  # options, timeout_s, memory_limit_mb, max_runs_per_worker
        self.address = address
        self.gpus_per_run = gpus_per_run
        self.max_retries = max_retries
        self.startup_s = None  # Ray starts its actors inside the cluster: not measured here

    def _init_ray(self) -> bool:
        """Connect to the cluster (or start a local one); True when this call started Ray."""
        import ray

        if ray.is_initialized():
            return False
        if self.address:
            check_ray_address(self.address)
            try:
                ray.init(address=self.address, log_to_driver=False, ignore_reinit_error=True)
            except ConnectionError as error:  # "auto" with no cluster, Ray Client time-outs
                raise RayClusterUnreachable(
                    f"cannot connect to the Ray cluster at {self.address!r}: {error}. {_HINT}"
                ) from None
        else:
            ray.init(
                num_cpus=max(self.jobs, os.cpu_count() or 1),
                include_dashboard=False,
                log_to_driver=False,
                ignore_reinit_error=True,
            )
        return True

    def map(self, tasks: Iterable[dict[str, Any]], on_result: ResultCallback) -> None:
        """See :meth:`Executor.map`."""
        import ray
        from ray.exceptions import RayActorError, RayError

        from mutreal.execution import channel
        from mutreal.execution.pool import _failure
        from mutreal.execution.records import Outcome

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
                    text = ray.get(ref)
                    if not isinstance(text, str):
                        raise channel.ChannelError(
                            f"a Ray actor answered {type(text).__name__}, not JSON text"
                        )
                    result = channel.decode(text.encode("utf-8"))
                except channel.ChannelError as error:
                    result = _failure(Outcome.LOST, "ChannelError", str(error))
                except RayActorError as error:
                    result = _failure(
                        Outcome.LOST,
                        "RayWorkerLost",
                        f"the Ray worker was lost after retries: {error}; not a verdict: a rerun trains it again",
                    )
                    actor = actor_class.remote(
                        self.options, self.timeout_s, self.memory_limit_mb, self.max_runs_per_worker
                    )
                except RayError as error:
                    result = _failure(Outcome.LOST, type(error).__name__, f"Ray could not run the task: {error}")
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
