"""Local warm workers: spawned processes that each run many trainings, watched from outside.

One warm worker, its sandbox, limits and the rules that say who ended a run are
:class:`~mutreal.execution.worker_process.WorkerProcess` (re-exported here).

:class:`LocalExecutor` runs a list of tasks on ``jobs`` such workers (one driver thread each; on a GPU
machine the workers share the GPUs, TensorFlow's memory growth on, spread over several GPUs with
``CUDA_VISIBLE_DEVICES``) and hands each result to a callback in the caller's thread as soon as it is there, so results are stored as
they finish.

A worker's start (about 5 s, mostly TensorFlow's import) is most of a small campaign's fixed cost, so
nothing waits for it that need not: :func:`prestart` / :func:`started_ahead` spawn a campaign's
workers before it plans (the executor takes them, still importing or ready), a campaign that keeps
its workers for a later phase spawns the ones its first phase leaves idle (:meth:`LocalExecutor._spares`),
and :meth:`LocalExecutor.drop` takes back queued tasks a campaign no longer needs.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mutreal.execution import sandbox
from mutreal.execution.environment import gpu_devices
from mutreal.execution.executor import Executor, ResultCallback
from mutreal.execution.frameworks import DEFAULT as DEFAULT_FRAMEWORK
from mutreal.execution.frameworks import ENVIRONMENT
from mutreal.execution.worker_process import (  # noqa: F401 - re-exported: service and Ray use them here
    POLL_INTERVAL_S,
    STARTUP_TIMEOUT_S,
    WorkerProcess,
    _failure,
    _kill_tree,
    _rss_mb,
)


class CampaignAborted(RuntimeError):
    """:meth:`LocalExecutor.abort` was called during :meth:`LocalExecutor.map`."""


class LocalExecutor(Executor):
    """Runs tasks on ``jobs`` warm local workers; results reach ``on_result`` in the calling thread."""

    def __init__(self, jobs: int, *, keep_workers: bool = False, **settings: Any) -> None:
        super().__init__(jobs, **settings)  # options, timeout_s, memory_limit_mb, max_runs_per_worker
        self.keep_workers = keep_workers
        self.kept: list[WorkerProcess] = []  # with keep_workers: the workers left warm by the last map()
        self.aborted = threading.Event()
        self.workers: list[WorkerProcess] = []  # the workers of the running (or last) map()
        self._pending: _Pending | None = None  # the running map()'s tasks not started yet

    def drop(self, unwanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """See :meth:`Executor.drop`: the running map's tasks that no worker has taken yet."""
        pending = self._pending
        return pending.drop(unwanted) if pending is not None else []

    def abort(self) -> None:
        """Stop a running :meth:`map` from another thread: it raises :class:`CampaignAborted` and the
        runs in flight are killed with their workers (e.g. the worker service's caller went away)."""
        self.aborted.set()

    def worker_options(self, count: int) -> list[dict[str, Any]]:
        """The options of workers 0..count-1: on a machine with several GPUs each sees one of them."""
        gpus = 0 if "CUDA_VISIBLE_DEVICES" in os.environ else len(gpu_devices())
        return [{**self.options, "visible_gpu": (i % gpus) if gpus > 1 else None} for i in range(count)]

    def _workers(self, count: int) -> list[WorkerProcess]:
        """The workers of one map(): spawned ahead for it (:func:`prestart`), else kept warm by an
        earlier campaign (only with ``keep_workers``), else new ones, started by their first run."""
        workers = []
        for i, options in enumerate(self.worker_options(count)):
            worker = _take_idle(options, kept_too=self.keep_workers)
            if worker is None:
                worker = WorkerProcess(options, name=f"w{i}", max_runs=self.max_runs_per_worker)
            worker.startup_s = 0.0
            workers.append(worker)
        return workers

    def _spares(self, used: int, framework: str) -> list[WorkerProcess]:
        """With ``keep_workers``, workers ``used..jobs-1`` spawned now unless one is idle already: the
        caller runs more on these workers (the campaign's phase after its one-seed probes, the next
        round), and a spare imports TensorFlow while the probes train instead of after them. They
        run ``framework`` (that of this map's first task: the later runs are mostly of the same
        programs)."""
        if not self.keep_workers or used >= self.jobs:
            return []
        spares = []
        waiting = idle_workers()
        for i, options in enumerate(self.worker_options(self.jobs)[used:], start=used):
            match = next((w for w in waiting if w.options == options and w.alive), None)
            if match is not None:
                waiting.remove(match)
                continue
            worker = WorkerProcess(options, name=f"w{i}", max_runs=self.max_runs_per_worker)
            worker.framework = framework
            try:
                worker.spawn()
            except (OSError, RuntimeError, sandbox.SandboxUnavailable):
                continue  # the run that needs it starts it (and reports why it cannot)
            spares.append(worker)
        return spares

    def map(self, tasks: Iterable[dict[str, Any]], on_result: ResultCallback) -> None:
        """See :meth:`Executor.map`.

        With ``keep_workers`` the warm workers are kept after the last task (for the next campaign of
        this process, e.g. adaptive rounds) instead of being stopped; :func:`shutdown_idle_workers`
        or the end of the process stops them.
        """
        task_list = list(tasks)
        pending = _Pending(task_list)
        self._pending = pending
        done: queue.Queue[tuple[dict[str, Any], dict[str, Any]] | BaseException] = queue.Queue()
        workers = self._workers(min(self.jobs, len(task_list)))
        first_framework = str((task_list[0].get("framework") if task_list else None) or DEFAULT_FRAMEWORK)
        spares = self._spares(len(workers), first_framework)
        self.workers = workers
        stop = threading.Event()
        finished_cleanly = False

        def drive(worker: WorkerProcess) -> None:
            try:
                while not stop.is_set():
                    task = pending.take(worker.framework)
                    if task is None:
                        return
                    result = worker.run(task, self.timeout_s, self.memory_limit_mb)
                    done.put((task, result))
            except BaseException as error:  # noqa: BLE001 - surface driver bugs in the caller
                done.put(error)

        threads = [threading.Thread(target=drive, args=(w,), daemon=True) for w in workers]
        for thread in threads:
            thread.start()
        try:
            received = 0
            while received < len(task_list) - pending.dropped:
                if self.aborted.is_set():
                    raise CampaignAborted(f"aborted after {received} of {len(task_list)} runs")
                try:
                    item = done.get(timeout=0.2)
                except queue.Empty:
                    continue
                if isinstance(item, BaseException):
                    raise item
                on_result(*item)
                received += 1
            finished_cleanly = True
        finally:
            self._pending = None
            stop.set()
            for thread in threads:
                thread.join(timeout=0 if not finished_cleanly else 30)
            self.startup_s = sum(w.startup_s for w in workers)
            # Every result is already in the caller's hands (and the store), so a worker that is not
            # kept has nothing left to flush: killing it is safe and, unlike a polite stop that waits
            # for TensorFlow's interpreter teardown, costs the campaign no wall time.
            self.kept = []
            for worker in [*workers, *spares]:
                if self.keep_workers and finished_cleanly and worker.alive:
                    put_idle(worker)
                    self.kept.append(worker)
                else:
                    worker.kill()


class _Pending:
    """The tasks not started yet; a worker takes the first one of the framework its process runs,
    else the first one (and restarts for it), so workers switch framework as rarely as they can."""

    def __init__(self, tasks: list[dict[str, Any]]) -> None:
        self.tasks = list(tasks)
        self.lock = threading.Lock()
        self.dropped = 0  # tasks taken back before any worker started them (LocalExecutor.drop)

    def drop(self, unwanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        with self.lock:
            gone = [task for task in self.tasks if unwanted(task)]
            self.tasks = [task for task in self.tasks if not unwanted(task)]
            self.dropped += len(gone)
            return gone

    def take(self, framework: str) -> dict[str, Any] | None:
        with self.lock:
            if not self.tasks:
                return None
            for index, task in enumerate(self.tasks):
                if (task.get("framework") or DEFAULT_FRAMEWORK) == framework:
                    return self.tasks.pop(index)
            return self.tasks.pop(0)


_IDLE_WORKERS: list[WorkerProcess] = []
_IDLE_LOCK = threading.Lock()
#: ids of the idle workers spawned ahead by :func:`prestart` for the next campaign, not yet taken
_PRESTARTED: set[int] = set()


def _take_idle(options: dict[str, Any], kept_too: bool = True) -> WorkerProcess | None:
    """An idle worker with these options: one spawned ahead for the next campaign first (ready or
    still importing), then, with ``kept_too``, one an earlier campaign kept warm."""
    with _IDLE_LOCK:
        for prestarted_only in (True, False):
            if not prestarted_only and not kept_too:
                break
            for index, worker in enumerate(_IDLE_WORKERS):
                ahead = id(worker) in _PRESTARTED
                if ahead == prestarted_only and worker.options == options and worker.alive:
                    _PRESTARTED.discard(id(worker))
                    return _IDLE_WORKERS.pop(index)
    return None


def prestart(
    jobs: int,
    options: dict[str, Any],
    count: int | None = None,
    framework: str | None = None,
    max_runs: int = 200,
) -> list[WorkerProcess]:
    """Spawn the workers of the next local campaign of this process now, and return at once.

    Each imports TensorFlow while the caller reads, hashes and plans the programs; the campaign's
    executor (``jobs`` and ``options`` as :func:`mutreal.execution.executor_choice.worker_options` gives
    them) takes them instead of starting its own, waiting only for what is left of their start.
    ``count`` (at most ``jobs``) is how many; ``framework`` the one they run (a run of another
    framework replaces its worker, as it would a warm one). Their sandbox, limits and reset are
    those of any worker: nothing about a run changes, only when its worker started. Workers no
    campaign takes are ended by :func:`forget_prestarted` or at exit."""
    wanted = min(jobs, jobs if count is None else count)
    layout = LocalExecutor(jobs=jobs, options=options).worker_options(wanted)
    spawned = []
    for i, worker_options in enumerate(layout):
        worker = WorkerProcess(worker_options, name=f"w{i}", max_runs=max_runs)
        if framework in ENVIRONMENT:
            worker.framework = str(framework)
        try:
            worker.spawn()
        except (OSError, RuntimeError, sandbox.SandboxUnavailable):
            break  # the campaign starts its workers itself and reports why they cannot start
        spawned.append(worker)
    for worker in spawned:
        put_idle(worker)
    with _IDLE_LOCK:
        _PRESTARTED.update(id(w) for w in spawned)
    return spawned


def forget_prestarted(workers: Iterable[WorkerProcess]) -> None:
    """Kill those of ``workers`` (from :func:`prestart`) that no campaign took."""
    with _IDLE_LOCK:
        untaken = [w for w in workers if id(w) in _PRESTARTED]
    kill_idle(untaken)


@contextlib.contextmanager
def prestarted(
    jobs: int,
    options: dict[str, Any],
    count: int | None = None,
    framework: str | None = None,
    max_runs: int = 200,
) -> Iterator[list[WorkerProcess]]:
    """:func:`prestart` for the campaign run inside the ``with`` block; the workers it did not take
    are killed when the block ends."""
    workers = prestart(jobs, options, count, framework, max_runs)
    try:
        yield workers
    finally:
        forget_prestarted(workers)


_ATEXIT_REGISTERED = False


def put_idle(worker: WorkerProcess) -> None:
    """Keep a warm worker for a later campaign of this process (stopped at exit at the latest)."""
    global _ATEXIT_REGISTERED
    with _IDLE_LOCK:
        if not _ATEXIT_REGISTERED:
            atexit.register(shutdown_idle_workers)
            _ATEXIT_REGISTERED = True
        _IDLE_WORKERS.append(worker)


def idle_workers() -> list[WorkerProcess]:
    """The warm workers kept for later campaigns (a copy of the list)."""
    with _IDLE_LOCK:
        return list(_IDLE_WORKERS)


def kill_idle(workers: Iterable[WorkerProcess]) -> None:
    """Kill these workers and forget them as idle: a campaign that kept its workers warm only between
    its own phases (see ``campaign.execute_plan``) ends them as a campaign that keeps none does."""
    chosen = {id(worker) for worker in workers}
    with _IDLE_LOCK:
        ended = [w for w in _IDLE_WORKERS if id(w) in chosen]
        _IDLE_WORKERS[:] = [w for w in _IDLE_WORKERS if id(w) not in chosen]
        _PRESTARTED.difference_update(chosen)
    for worker in ended:
        worker.kill()


def shutdown_idle_workers(keep: Iterable[WorkerProcess] = ()) -> None:
    """Stop the warm workers kept by campaigns run with ``keep_workers=True``, except those in ``keep``."""
    spared = {id(worker) for worker in keep}
    with _IDLE_LOCK:
        workers = [w for w in _IDLE_WORKERS if id(w) not in spared]
        _IDLE_WORKERS[:] = [w for w in _IDLE_WORKERS if id(w) in spared]
        _PRESTARTED.difference_update(id(w) for w in workers)
    for worker in workers:
        worker.stop()


@contextlib.contextmanager
def started_ahead(cfg: Any) -> Iterator[list[WorkerProcess]]:
    """Around the campaign of ``cfg`` (a :class:`~mutreal.execution.campaign_config.CampaignConfig`): a
    local campaign's workers are spawned first, so their TensorFlow import overlaps the campaign's
    reading, hashing, planning and store set-up; those it does not take are killed at the end.

    As many as it can use at once: ``jobs``, at most programs x seeds. They run the framework
    ``cfg`` forces, else the default one (Keras 3); a program of another era replaces its worker at
    its first run, as a warm worker of another framework is replaced."""
    if cfg.executor != "local" or not cfg.programs:
        yield []
        return
    from mutreal.execution.executor_choice import worker_options

    count = len(cfg.programs) * len(cfg.seed_list())
    with prestarted(cfg.jobs, worker_options(cfg), count, cfg.framework, cfg.max_runs_per_worker) as workers:
        yield workers


@contextlib.contextmanager
def workers_started_ahead(config: Any, options: dict[str, Any]) -> Iterator[list[WorkerProcess]]:
    """:func:`started_ahead` around one :func:`~mutreal.execution.campaign.execute_campaign` call
    with these ``options`` (its keyword arguments) and ``config``, whose configuration it resolves
    as the campaign will. Options the campaign will refuse start nothing here (it reports them)."""
    from mutreal.execution.campaign_config import campaign_config

    executor = options.get("executor") or (getattr(config, "executor", None) or "local")
    cfg = None
    if executor == "local":  # (the worker service's layout is asked of the service: not here)
        with contextlib.suppress(ValueError):
            cfg = campaign_config(config, options)
    if cfg is None:
        yield []
        return
    with started_ahead(cfg) as workers:
        yield workers
