"""Local warm workers: spawned processes that each run many trainings, watched from outside.

A :class:`WorkerProcess` owns one spawned worker (see :mod:`mutreal.runner.worker`) and runs tasks on
it synchronously while watching it: past the time limit, or when its resident memory (with its
children's, measured with psutil) exceeds the limit, the process is killed, the run is recorded as
``timeout`` or ``memory``, and a fresh worker is started for the next run. A worker that dies on its
own (segfault, ``os._exit``) gives a ``crash``. Memory is watched rather than limited with an
address-space rlimit because TensorFlow reserves far more virtual memory than it uses and aborts at
import under a few GiB of ``RLIMIT_AS``.

:class:`LocalExecutor` runs a list of tasks on ``jobs`` such workers (one driver thread each; on a GPU
machine the workers share the GPUs, TensorFlow's memory growth on, spread over several GPUs with
``CUDA_VISIBLE_DEVICES``) and hands each result to a callback in the caller's thread as soon as it is there, so results are stored as
they finish.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import multiprocessing
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import psutil

from mutreal.runner.environment import gpu_devices
from mutreal.runner.worker import WORKER_ENVIRONMENT

#: Seconds between two checks of a running worker's time and memory.
POLL_INTERVAL_S = 0.05
#: Seconds a worker may take to import TensorFlow and report ready.
STARTUP_TIMEOUT_S = 300.0


def _rss_mb(process: psutil.Process) -> float:
    """Resident memory of a process and its children, in MiB."""
    total = 0
    try:
        total += process.memory_info().rss
        for child in process.children(recursive=True):
            try:
                total += child.memory_info().rss
            except psutil.Error:
                continue
    except psutil.Error:
        return 0.0
    return total / (1024 * 1024)


def _kill_tree(pid: int) -> None:
    try:
        parent = psutil.Process(pid)
        children = parent.children(recursive=True)
    except psutil.Error:
        return
    for proc in [*children, parent]:
        try:
            proc.kill()
        except psutil.Error:
            continue
    psutil.wait_procs([*children, parent], timeout=10)


def _failure(outcome: str, error_type: str, message: str, **extra: Any) -> dict[str, Any]:
    return {
        "outcome": outcome,
        "error_type": error_type,
        "error_message": message,
        "traceback": None,
        "fits": [],
        "evaluations": [],
        "fit_time_s": 0.0,
        "evaluate_time_s": 0.0,
        "output_tail": "",
        **extra,
    }


class WorkerProcess:
    """One warm worker process, restarted whenever it is killed or has served ``max_runs`` runs."""

    def __init__(self, options: dict[str, Any] | None = None, name: str = "worker", max_runs: int = 200):
        self.options = dict(options or {})
        self.name = name
        self.max_runs = max_runs
        self.process: Any = None
        self.conn: Any = None
        self.runs_served = 0
        self.versions: dict[str, str] = {}
        self.starts = 0
        self.startup_s = 0.0  # seconds spent starting workers (importing TensorFlow), all starts

    # -- lifecycle -----------------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Spawn the worker and wait until it has imported TensorFlow (raises if it cannot).

        The worker is a fresh ``python -m mutreal.runner.worker`` process talking over an inherited
        socket pair: a clean interpreter like multiprocessing's ``spawn``, without re-running the
        caller's ``__main__`` and without touching the caller's environment.
        """
        parent_conn, child_conn = multiprocessing.Pipe(duplex=True)
        env = {**os.environ, **WORKER_ENVIRONMENT}
        if self.options.get("threads"):
            env["OMP_NUM_THREADS"] = str(self.options["threads"])
        if self.options.get("visible_gpu") is not None:  # several GPUs: spread workers over them
            env["CUDA_VISIBLE_DEVICES"] = str(self.options["visible_gpu"])
        src_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src_root, env.get("PYTHONPATH", "")) if p)
        # every file of the worker (its log, each run's working directory, the programs' temporary
        # files) lives under one folder that is removed with the worker, even when it is killed mid-run
        self.tmpdir = Path(tempfile.mkdtemp(prefix=f"mutreal-{self.name}-"))
        env["TMPDIR"] = str(self.tmpdir)
        self.log_path = self.tmpdir / "worker.log"
        with open(self.log_path, "wb") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "mutreal.runner.worker",
                    str(child_conn.fileno()),
                    json.dumps(self.options),
                ],
                pass_fds=(child_conn.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        child_conn.close()
        self.process, self.conn = process, parent_conn
        self.runs_served = 0
        self.starts += 1
        began = time.monotonic()
        deadline = began + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if parent_conn.poll(0.2):
                try:
                    message = parent_conn.recv()
                except (EOFError, OSError):
                    break
                if message.get("type") == "ready":
                    self.versions = message.get("versions", {})
                    self.startup_s += time.monotonic() - began
                    return
                self.kill()
                raise RuntimeError(f"worker failed to start: {message.get('error')}")
            if process.poll() is not None:
                break
        code = process.poll()
        tail = self._log_tail()
        self.kill()
        raise RuntimeError(
            f"worker did not start (exit code {code}); its log ends with: {tail}"
            if code is not None
            else f"worker did not start within {STARTUP_TIMEOUT_S:.0f} s"
        )

    def _log_tail(self, chars: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def kill(self) -> None:
        """Kill the worker and everything it started; the next run starts a fresh one (idempotent)."""
        process, conn = self.process, self.conn
        self.process = None
        self.conn = None
        if process is not None:
            _kill_tree(process.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        if conn is not None:
            conn.close()
        tmpdir = getattr(self, "tmpdir", None)
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
            self.tmpdir = None

    def stop(self) -> None:
        """Ask the worker to finish, then make sure it is gone."""
        process, conn = self.process, self.conn
        if conn is not None and process is not None and process.poll() is None:
            try:
                conn.send({"type": "stop"})
                process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    # -- one run -------------------------------------------------------------------------------
    def run(
        self, task: dict[str, Any], timeout_s: float | None, memory_limit_mb: float | None
    ) -> dict[str, Any]:
        """Run ``task`` on the worker, enforcing the limits; always returns a result dict."""
        if not self.alive or self.runs_served >= self.max_runs:
            self.stop()
            try:
                self.start()
            except RuntimeError as error:
                return _failure("crash", "WorkerStartError", str(error), wall_time_s=0.0)
        assert self.process is not None and self.conn is not None
        run_index = self.runs_served
        self.runs_served += 1
        watched = psutil.Process(self.process.pid)
        peak = 0.0
        start = time.monotonic()
        self.conn.send({"type": "run", "task": task})
        while True:
            if self.conn.poll(POLL_INTERVAL_S):
                try:
                    message = self.conn.recv()
                except (EOFError, OSError):
                    message = None
                if message is not None and message.get("type") == "result":
                    result = message["result"]
                    result["peak_rss_mb"] = max(peak, _rss_mb(watched))
                    result["worker"] = f"{self.name}:{self.process.pid}"
                    result["worker_run_index"] = run_index
                    return result
            elapsed = time.monotonic() - start
            if self.process.poll() is not None:
                code = self.process.returncode
                how = (
                    f"killed by signal {signal.Signals(-code).name}"
                    if code and code < 0
                    else f"exit code {code}"
                )
                self.kill()
                return _failure(
                    "crash",
                    "WorkerDied",
                    f"the worker process died during the run ({how}); it was replaced",
                    wall_time_s=elapsed,
                    peak_rss_mb=peak,
                    worker=self.name,
                    worker_run_index=run_index,
                )
            rss = _rss_mb(watched)
            peak = max(peak, rss)
            if timeout_s is not None and elapsed > timeout_s:
                self.kill()
                return _failure(
                    "timeout",
                    "TimeoutError",
                    f"the run exceeded the time limit of {timeout_s:g} s and was stopped; its worker was replaced",
                    wall_time_s=elapsed,
                    peak_rss_mb=peak,
                    worker=self.name,
                    worker_run_index=run_index,
                )
            if memory_limit_mb is not None and rss > memory_limit_mb:
                self.kill()
                return _failure(
                    "memory",
                    "MemoryLimitExceeded",
                    f"the worker's resident memory reached {rss:.0f} MiB, over the limit of "
                    f"{memory_limit_mb:g} MiB; the run was stopped and its worker replaced",
                    wall_time_s=elapsed,
                    peak_rss_mb=peak,
                    worker=self.name,
                    worker_run_index=run_index,
                )


class CampaignAborted(RuntimeError):
    """:meth:`LocalExecutor.abort` was called during :meth:`LocalExecutor.map`."""


class LocalExecutor:
    """Runs tasks on ``jobs`` warm local workers; results reach ``on_result`` in the calling thread."""

    def __init__(
        self,
        jobs: int,
        options: dict[str, Any] | None = None,
        timeout_s: float | None = None,
        memory_limit_mb: float | None = None,
        max_runs_per_worker: int = 200,
        keep_workers: bool = False,
    ) -> None:
        self.jobs = max(1, int(jobs))
        self.options = options or {}
        self.timeout_s = timeout_s
        self.memory_limit_mb = memory_limit_mb
        self.max_runs_per_worker = max_runs_per_worker
        self.keep_workers = keep_workers
        self.startup_s = 0.0  # worker start-up seconds summed over workers, after map()
        self.kept: list[WorkerProcess] = []  # with keep_workers: the workers left warm by the last map()
        self.aborted = threading.Event()
        self.workers: list[WorkerProcess] = []  # the workers of the running (or last) map()

    def abort(self) -> None:
        """Stop a running :meth:`map` from another thread: it raises :class:`CampaignAborted` and the
        runs in flight are killed with their workers (e.g. the worker service's caller went away)."""
        self.aborted.set()

    def worker_options(self, count: int) -> list[dict[str, Any]]:
        """The options of workers 0..count-1: on a machine with several GPUs each sees one of them."""
        gpus = 0 if "CUDA_VISIBLE_DEVICES" in os.environ else len(gpu_devices())
        return [{**self.options, "visible_gpu": (i % gpus) if gpus > 1 else None} for i in range(count)]

    def _workers(self, count: int) -> list[WorkerProcess]:
        workers = []
        for i, options in enumerate(self.worker_options(count)):
            worker = _take_idle(options) if self.keep_workers else None
            if worker is None:
                worker = WorkerProcess(options, name=f"w{i}", max_runs=self.max_runs_per_worker)
            worker.startup_s = 0.0
            workers.append(worker)
        return workers

    def map(
        self,
        tasks: Iterable[dict[str, Any]],
        on_result: Callable[[dict[str, Any], dict[str, Any]], None],
    ) -> None:
        """Run every task; call ``on_result(task, result)`` for each as it finishes (any order).

        With ``keep_workers`` the warm workers are kept after the last task (for the next campaign of
        this process, e.g. adaptive rounds) instead of being stopped; :func:`shutdown_idle_workers`
        or the end of the process stops them.
        """
        pending: queue.Queue[dict[str, Any] | None] = queue.Queue()
        task_list = list(tasks)
        for task in task_list:
            pending.put(task)
        done: queue.Queue[tuple[dict[str, Any], dict[str, Any]] | BaseException] = queue.Queue()
        workers = self._workers(min(self.jobs, len(task_list)))
        self.workers = workers
        stop = threading.Event()
        finished_cleanly = False

        def drive(worker: WorkerProcess) -> None:
            try:
                while not stop.is_set():
                    try:
                        task = pending.get_nowait()
                    except queue.Empty:
                        return
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
            while received < len(task_list):
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
            stop.set()
            for thread in threads:
                thread.join(timeout=0 if not finished_cleanly else 30)
            self.startup_s = sum(w.startup_s for w in workers)
            # Every result is already in the caller's hands (and the store), so a worker that is not
            # kept has nothing left to flush: killing it is safe and, unlike a polite stop that waits
            # for TensorFlow's interpreter teardown, costs the campaign no wall time.
            self.kept = []
            for worker in workers:
                if self.keep_workers and finished_cleanly and worker.alive:
                    put_idle(worker)
                    self.kept.append(worker)
                else:
                    worker.kill()


_IDLE_WORKERS: list[WorkerProcess] = []
_IDLE_LOCK = threading.Lock()


def _take_idle(options: dict[str, Any]) -> WorkerProcess | None:
    with _IDLE_LOCK:
        for index, worker in enumerate(_IDLE_WORKERS):
            if worker.options == options and worker.alive:
                return _IDLE_WORKERS.pop(index)
    return None


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


def shutdown_idle_workers(keep: Iterable[WorkerProcess] = ()) -> None:
    """Stop the warm workers kept by campaigns run with ``keep_workers=True``, except those in ``keep``."""
    spared = {id(worker) for worker in keep}
    with _IDLE_LOCK:
        workers = [w for w in _IDLE_WORKERS if id(w) not in spared]
        _IDLE_WORKERS[:] = [w for w in _IDLE_WORKERS if id(w) in spared]
    for worker in workers:
        worker.stop()
