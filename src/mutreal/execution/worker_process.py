"""One warm worker process seen from outside: started (in its sandbox), watched, reset, replaced.

A :class:`WorkerProcess` owns one spawned worker (see :mod:`mutreal.execution.worker`) and runs tasks on
it synchronously while watching it: past the time limit, or when the resident memory of its whole
process tree exceeds the limit, the process is killed, the run is recorded as ``timeout`` or
``memory``, and a fresh worker is started for the next run. Memory is watched rather than limited
with an address-space rlimit alone because TensorFlow reserves far more virtual memory than it uses
and aborts at import under a few GiB of ``RLIMIT_AS``; in the sandbox a memory cgroup (where one can
be made) is the kernel's hard limit behind the watch.

Who ended a run decides what it is (the issue's rule: only the program's own failures are verdicts):

* the program's exception, exit status or its own signal (the worker notes it first) -> ``crash``;
* the time or memory limit, or the kernel's OOM killer in the worker's cgroup -> ``timeout``/``memory``;
* any other signal (someone outside killed the worker) -> the run is retried once in a fresh worker;
  a fault signal (SIGSEGV, SIGABRT...) again is the program's ``crash``, any other signal again is
  ``lost``: not a verdict, and the next campaign with the same store trains it again.

With a sandbox (:mod:`mutreal.execution.sandbox`), after every run every other process of the worker's
PID namespace is killed and its private ``/tmp`` emptied, while the worker itself stays warm.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import multiprocessing
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil

from mutreal.execution import channel, frameworks, sandbox
from mutreal.execution.records import Outcome
from mutreal.execution.worker import WORKER_ENVIRONMENT, stopped_output

#: Seconds between two checks of a running worker's time and memory. A result or a note is read as
#: soon as it arrives (the wait returns early), so this only sets how often the parent walks the
#: sandbox's process tree for its memory and checks the clock. At 0.05 s that walk, for each worker,
#: cost the parent about 1.2 s of CPU in a 4-run campaign of a 3 s program, taken from the workers
#: on a 2-core machine (``benchmarks/runner_overhead.py --startup``); the memory limit is enforced by
#: the cgroup or the address-space cap, this sampling is the last of three guards and the peak's
#: reading, which a quarter-second resolution keeps.
POLL_INTERVAL_S = 0.25
#: Share of what the memory limit leaves a program (the limit less a fresh worker's memory) that a
#: warm worker may have grown by after its runs and stay warm (:meth:`WorkerProcess._recycle_if_holding`).
RECYCLE_SHARE = 0.5
#: Seconds a worker may take to import TensorFlow and report ready.
STARTUP_TIMEOUT_S = 300.0
#: Signals the kernel sends a process for its own faults: twice in a row, the program's crash.
FAULT_SIGNALS = frozenset(
    {
        signal.SIGSEGV,
        signal.SIGBUS,
        signal.SIGILL,
        signal.SIGFPE,
        signal.SIGABRT,
        signal.SIGSYS,
        signal.SIGTRAP,
    }
)


_SPAWNER: concurrent.futures.ThreadPoolExecutor | None = None
_SPAWNER_LOCK = threading.Lock()


def _spawn(command: list[str], **kwargs: Any) -> subprocess.Popen:
    """``Popen`` from one thread that lives as long as this process.

    bubblewrap's ``--die-with-parent`` (``PR_SET_PDEATHSIG``) fires when the *thread* that started it
    ends, not the process: a warm worker started by a campaign's driver thread would die with that
    thread, and kept workers (``keep_workers``, the worker service) would never be warm."""
    global _SPAWNER
    with _SPAWNER_LOCK:
        if _SPAWNER is None:
            _SPAWNER = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="mutreal-spawner"
            )
    return _SPAWNER.submit(subprocess.Popen, command, **kwargs).result()


def _rss_mb(process: psutil.Process) -> float:
    """Resident memory of a process and all its descendants (a whole sandbox), in MiB."""
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


#: Seconds :func:`_kill_tree` waits for the killed processes to be dead.
KILL_WAIT_S = 10.0


def _dead(process: psutil.Process) -> bool:
    """Gone, or a zombie: it runs no code and holds no memory any more; only its exit status waits
    for whoever reaps it."""
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def _kill_tree(pid: int) -> None:
    """SIGKILL a process and all its descendants, and return once every one of them is dead.

    Dead means gone or a zombie: when bubblewrap's outer process dies, its inner one (the sandbox's
    init) is re-parented to the host's init, which may reap it only a second later; waiting for
    that (as ``psutil.wait_procs`` does) cost every campaign about 1.2 s at its end and added
    nothing, since a zombie runs no code. The direct child is still reaped by its ``Popen``."""
    try:
        parent = psutil.Process(pid)
        children = parent.children(recursive=True)
    except psutil.Error:
        return
    procs = [*children, parent]
    for proc in procs:
        try:
            proc.kill()
        except psutil.Error:
            continue
    deadline = time.monotonic() + KILL_WAIT_S
    pause = 0.001
    while not all(_dead(proc) for proc in procs) and time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _failure(outcome: Outcome, error_type: str, message: str, **extra: Any) -> dict[str, Any]:
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
    """One warm worker process, restarted whenever it is killed or has served ``max_runs`` runs.

    ``options["sandbox"]`` (``auto``, ``bwrap``, ``none``; default ``auto``) chooses its isolation and
    ``options["env"]`` the variables passed into its sandbox (``--env``).

    Its process runs one framework (:mod:`mutreal.execution.frameworks`; ``options["framework"]``
    at first, Keras 3 by default): a task whose ``framework`` differs stops it, and the run starts a
    process of that framework, which the next tasks reuse."""

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
        self.tmpdir: Path | None = None
        self.tmp_folders: list[str] = []  # folders of the host /tmp shown inside (the interpreter lives there)
        self.cgroup: sandbox.MemoryCgroup | None = None
        self.keep_pids: set[int] = set()  # the sandbox's init and the worker (host pids)
        self.ready_rss_mb = 0.0  # the whole worker's resident memory when it reported ready (MiB)
        self.choice: sandbox.SandboxChoice | None = None
        self.address_limit_set = False
        self.framework = str(self.options.get("framework") or frameworks.DEFAULT)
        self.ready = False  # the spawned process has reported ready (see spawn / wait_ready)
        self.spawned_at = 0.0

    # -- lifecycle -----------------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def sandboxed(self) -> bool:
        return self.choice is not None and self.choice.mode == "bwrap"

    def _command(self, fd: int) -> tuple[list[str], dict[str, str]]:
        """The command line and environment of a fresh worker (inside bwrap when sandboxed)."""
        self.choice = sandbox.resolve(str(self.options.get("sandbox") or "auto"))
        sandbox.warn_fallback_once(self.choice)
        worker_options = {k: v for k, v in self.options.items() if k != "env"}  # values stay off argv
        worker_options["sandboxed"] = self.sandboxed
        worker_options["framework"] = self.framework
        inner = [sys.executable, "-m", "mutreal.execution.worker", str(fd), json.dumps(worker_options)]
        assert self.tmpdir is not None
        if not self.sandboxed:
            env = {**os.environ, **WORKER_ENVIRONMENT}
            src_root = str(Path(__file__).resolve().parents[2])
            env["PYTHONPATH"] = os.pathsep.join(p for p in (src_root, env.get("PYTHONPATH", "")) if p)
            env["TMPDIR"] = str(self.tmpdir)
            return inner, frameworks.environment_for(self.framework, env)
        env = {**sandbox.minimal_environment(dict(self.options.get("env") or {})), **WORKER_ENVIRONMENT}
        env = frameworks.environment_for(self.framework, env)  # passed through bubblewrap like the rest
        private_tmp = self.tmpdir / "tmp"
        (private_tmp / "home" / ".keras" / "datasets").mkdir(parents=True, exist_ok=True)
        (private_tmp / sandbox.HOST_TMP[len("/tmp/") :]).mkdir(exist_ok=True)
        datasets = Path(env["KERAS_HOME"]) / "datasets"
        self.tmp_folders = sandbox.interpreter_folders_in_tmp()
        for folder in self.tmp_folders:  # their mount points in the private /tmp
            (private_tmp / folder[len("/tmp/") :]).mkdir(exist_ok=True)
        command = sandbox.bwrap_command(
            inner, private_tmp, self.choice.user_namespace, datasets, tmp_folders=self.tmp_folders
        )
        self.cgroup = sandbox.MemoryCgroup.create(self.name)
        if self.cgroup is not None:  # join the cgroup before bwrap forks, so every process is in it
            command = ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.cgroup.procs_file), *command]
        return command, env

    def start(self) -> None:
        """Spawn the worker and wait until it has imported TensorFlow (raises if it cannot)."""
        self.spawn()
        self.wait_ready()

    @property
    def starting(self) -> bool:
        """Spawned and alive, but not ready yet (still importing TensorFlow)."""
        return self.alive and not self.ready

    def spawn(self) -> None:
        """Start the worker process and return at once, while it imports TensorFlow; :meth:`wait_ready`
        (or the first :meth:`run`) waits for it. A campaign spawns its workers before it plans, so
        TensorFlow's import overlaps reading, hashing and planning the programs.

        The worker is a fresh ``python -m mutreal.execution.worker`` process talking over an inherited
        socket pair: a clean interpreter like multiprocessing's ``spawn``, without re-running the
        caller's ``__main__``. Its environment is the sandbox's minimal one (or, without a sandbox,
        the caller's with the worker's settings)."""
        parent_conn, child_conn = multiprocessing.Pipe(duplex=True)
        # every file of the worker (its log, its private /tmp with each run's folder copy) lives under
        # one folder that is removed with the worker, even when it is killed mid-run
        self.tmpdir = Path(tempfile.mkdtemp(prefix=f"mutreal-{self.name}-"))
        self.log_path = self.tmpdir / "worker.log"
        try:
            command, env = self._command(child_conn.fileno())
        except BaseException:
            child_conn.close()
            parent_conn.close()
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            raise
        if self.options.get("threads"):
            env["OMP_NUM_THREADS"] = str(self.options["threads"])
        if self.options.get("visible_gpu") is not None:  # several GPUs: spread workers over them
            env["CUDA_VISIBLE_DEVICES"] = str(self.options["visible_gpu"])
        with open(self.log_path, "wb") as log:
            process = _spawn(
                command,
                pass_fds=(child_conn.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        child_conn.close()
        self.process, self.conn = process, parent_conn
        self.ready = False
        self.spawned_at = time.monotonic()
        self.runs_served = 0
        self.starts += 1
        self.address_limit_set = False

    def wait_ready(self) -> None:
        """Wait until the spawned worker reports ready (TensorFlow imported); raises, the worker
        killed, when it fails or does not answer within :data:`STARTUP_TIMEOUT_S` of its spawn.
        Its start-up time (spawn to ready) is added to :attr:`startup_s`."""
        process, parent_conn = self.process, self.conn
        if self.ready or process is None or parent_conn is None:
            return
        began = self.spawned_at
        deadline = began + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if parent_conn.poll(0.05):
                try:
                    message = channel.recv(parent_conn)
                except (EOFError, OSError, channel.ChannelError):
                    break
                if message.get("type") == "ready":
                    self.versions = {str(k): str(v) for k, v in (message.get("versions") or {}).items()}
                    self.startup_s += time.monotonic() - began
                    self.ready = True
                    with contextlib.suppress(psutil.Error):
                        self.keep_pids = {p.pid for p in psutil.Process(process.pid).children(recursive=True)}
                        self.ready_rss_mb = _rss_mb(psutil.Process(process.pid))
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
        self.ready = False
        if process is not None:
            _kill_tree(process.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        if conn is not None:
            conn.close()
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None

    def stop(self) -> None:
        """Ask the worker to finish, then make sure it is gone (one still starting is killed: it
        reads nothing before it is ready)."""
        process, conn = self.process, self.conn
        if conn is not None and process is not None and process.poll() is None and self.ready:
            try:
                channel.send(conn, {"type": "stop"})
                process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def _reset_between_runs(self) -> None:
        """Kill what the run left behind and, in the sandbox, empty its private ``/tmp``."""
        if self.process is None:
            return
        if self.sandboxed:
            sandbox.kill_namespace_others(self.process.pid, self.keep_pids)
            if self.tmpdir is not None:
                sandbox.reset_private_tmp(self.tmpdir / "tmp", self.tmp_folders)
        else:  # without a PID namespace only the worker's own children can be found
            sandbox.kill_namespace_others(self.process.pid, set())

    def _host_path(self, path: str) -> Path:
        """Where a path the worker names is on this side: its ``/tmp`` is the sandbox's private one."""
        if self.sandboxed and self.tmpdir is not None and path.startswith("/tmp/"):
            return self.tmpdir / "tmp" / path[len("/tmp/") :]
        return Path(path)

    def _stopped_output(self, path: Path | None) -> str:
        """The kept output of a run stopped at a limit, read as untrusted: the file lies in the program's
        working copy and its path comes from the worker, so the program can make it a FIFO (an open
        would block the pool for good), a link to a host file outside its sandbox, or name another
        path. Only a regular file, opened without following a link and without blocking, and in the
        sandbox only one inside this worker's private folder, is read."""
        if path is None:
            return ""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return ""
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return ""
            if self.sandboxed:  # where the file opened really is (no directory link on the way out)
                real = Path(os.readlink(f"/proc/self/fd/{fd}"))
                if self.tmpdir is None or not real.is_relative_to(self.tmpdir.resolve()):
                    return ""
            return stopped_output(fd)
        except OSError:
            return ""
        finally:
            os.close(fd)

    def _recycle_if_holding(
        self, watched: psutil.Process, memory_limit_mb: float | None, result: dict[str, Any]
    ) -> None:
        """Replace the worker before its next run when, its run finished and reset, what it holds beyond
        a fresh worker (TensorFlow imported) is more than :data:`RECYCLE_SHARE` of what the limit leaves
        a program: TensorFlow's allocator rarely gives memory back, so a warm worker's resident memory
        grows with the programs it ran, and the next program would be charged for what earlier ones
        left (stopped at the limit for memory it never asked for). The run's own result is unchanged;
        ``worker_replaced_after`` in it says why the worker went."""
        if not memory_limit_mb or self.process is None:
            return
        with contextlib.suppress(psutil.Error):
            held = _rss_mb(watched)
            fresh = min(self.ready_rss_mb, memory_limit_mb)
            if held - fresh > RECYCLE_SHARE * (memory_limit_mb - fresh):
                result["worker_replaced_after"] = (
                    f"the worker held {held:.0f} MiB after the run ({fresh:.0f} MiB when fresh), over "
                    f"{RECYCLE_SHARE:.0%} of what the {memory_limit_mb:g} MiB limit leaves a program: "
                    "replaced before the next run"
                )
                self.kill()

    def _limit_address_space(self, memory_limit_mb: float | None) -> None:
        """Without a cgroup: cap every process of the sandbox at the worker's size plus the limit."""
        if self.address_limit_set or not memory_limit_mb or not self.sandboxed or self.cgroup is not None:
            return
        self.address_limit_set = True
        import resource

        for pid in self.keep_pids:
            with contextlib.suppress(psutil.Error, OSError, ValueError):
                proc = psutil.Process(pid)
                # coarse: TensorFlow's threads and malloc arenas reserve address space they never use
                limit = int(proc.memory_info().vms + (2 * memory_limit_mb + 2048) * 1024 * 1024)
                proc.rlimit(resource.RLIMIT_AS, (limit, limit))

    # -- one run -------------------------------------------------------------------------------
    def run(
        self, task: dict[str, Any], timeout_s: float | None, memory_limit_mb: float | None
    ) -> dict[str, Any]:
        """Run ``task`` on the worker, enforcing the limits; always returns a result dict.

        A worker killed by a signal this runner did not send is replaced and the run tried once more
        (see the module doc for what the second ending means)."""
        result = self._attempt(task, timeout_s, memory_limit_mb)
        first = result.pop("_signal", None)
        if first is None:
            return result
        result = self._attempt(task, timeout_s, memory_limit_mb)
        again = result.pop("_signal", None)
        if again is None:
            result["retried_after"] = signal.Signals(first).name
            return result
        name = signal.Signals(again).name
        if again in FAULT_SIGNALS:
            result.update(
                outcome=Outcome.CRASH,
                error_type="WorkerDied",
                error_message=f"the worker died of {name} twice in a row running this program "
                "(a fault of the program or of a library it calls)",
            )
        else:
            result.update(
                outcome=Outcome.LOST,
                error_type="WorkerLost",
                error_message=f"the worker was killed by {name} from outside the runner, twice "
                f"(first {signal.Signals(first).name}); not a verdict: a rerun of the campaign trains it again",
            )
        return result

    def _attempt(
        self, task: dict[str, Any], timeout_s: float | None, memory_limit_mb: float | None
    ) -> dict[str, Any]:
        """One try of ``task``; a result with ``_signal`` set means "killed by someone else: retry"."""
        wanted = str(task.get("framework") or frameworks.DEFAULT)
        if wanted != self.framework:  # a process cannot change its Keras: start one of the task's
            self.kill() if self.starting else self.stop()  # one still importing cannot hear "stop"
            self.framework = wanted
        if not self.alive or self.runs_served >= self.max_runs:
            self.stop()
        try:
            if not self.alive:
                self.start()
            else:  # spawned ahead (pool.prestart): its TensorFlow import may still be running
                self.wait_ready()
        except (RuntimeError, sandbox.SandboxUnavailable) as error:
            return _failure(Outcome.LOST, "WorkerStartError", str(error), wall_time_s=0.0)
        assert self.process is not None and self.conn is not None
        run_index = self.runs_served
        self.runs_served += 1
        watched = psutil.Process(self.process.pid)
        if self.cgroup is not None:
            with contextlib.suppress(OSError):  # the kernel's backstop behind the watch below
                self.cgroup.set_limit_mb(memory_limit_mb * 1.25 + 256 if memory_limit_mb else None)
        self._limit_address_space(memory_limit_mb)
        oom_before = self.cgroup.oom_kills() if self.cgroup is not None else 0
        peak = 0.0
        start = time.monotonic()
        self_signals: set[int] = set()
        output_log: Path | None = None  # the run's output file, as the worker names it once the run starts
        common = {
            "worker": self.name,
            "worker_run_index": run_index,
            "sandbox": self.choice.mode if self.choice else "",
        }
        if self.sandboxed and self.tmpdir is not None:
            folder = Path(task.get("folder") or Path(task["program"]).parent)
            try:
                task = {**task, "sandbox_workdir": sandbox.stage_run(self.tmpdir / "tmp", folder)}
            except OSError as error:
                return _failure(Outcome.MISSING_DATA, type(error).__name__,
                                f"cannot copy the program's folder {folder} for the run: {error}",
                                wall_time_s=0.0, **common)  # fmt: skip
        channel.send(self.conn, {"type": "run", "task": task})
        while True:
            message = None
            if self.conn.poll(POLL_INTERVAL_S):
                try:
                    message = channel.recv(self.conn)
                except (EOFError, OSError):
                    message = None
                except channel.ChannelError as error:
                    self.kill()
                    return _failure(
                        Outcome.CRASH, "ChannelError", f"{error}; the program wrote on the worker's channel, "
                        "nothing it sent was run; the worker was replaced",
                        wall_time_s=time.monotonic() - start, peak_rss_mb=peak, **common,
                    )  # fmt: skip
            if message is not None and message.get("type") == "note":
                if isinstance(message.get("output_log"), str):
                    output_log = self._host_path(message["output_log"])
                with contextlib.suppress(TypeError, ValueError):
                    self_signals.add(int(message.get("self_signal")))
                continue
            if (
                message is not None
                and message.get("type") == "result"
                and isinstance(message.get("result"), dict)
            ):
                result = message["result"]
                result["peak_rss_mb"] = max(peak, _rss_mb(watched))
                result.update(common, worker=f"{self.name}:{self.process.pid}")
                if self.cgroup is not None and self.cgroup.oom_kills() > oom_before:
                    result.update(
                        outcome=Outcome.MEMORY,
                        error_type="MemoryLimitExceeded",
                        error_message="the kernel killed a process of the run for going over the memory "
                        f"limit of {memory_limit_mb:g} MiB (all its processes together)",
                    )
                self._reset_between_runs()
                self._recycle_if_holding(watched, memory_limit_mb, result)
                return result
            elapsed = time.monotonic() - start
            if self.process.poll() is not None:
                return self._died(elapsed, peak, memory_limit_mb, oom_before, self_signals, common)
            rss = _rss_mb(watched)
            peak = max(peak, rss)
            if timeout_s is not None and elapsed > timeout_s:
                return self._stopped_at_limit(
                    output_log, Outcome.TIMEOUT, "TimeoutError",
                    f"the run exceeded the time limit of {timeout_s:g} s and was stopped; its worker was replaced",
                    wall_time_s=elapsed, peak_rss_mb=peak, **common,
                )  # fmt: skip
            if memory_limit_mb is not None and rss > memory_limit_mb:
                return self._stopped_at_limit(
                    output_log, Outcome.MEMORY, "MemoryLimitExceeded",
                    f"the worker's resident memory reached {rss:.0f} MiB, over the limit of "
                    f"{memory_limit_mb:g} MiB; the run was stopped and its worker replaced",
                    wall_time_s=elapsed, peak_rss_mb=peak, **common,
                )  # fmt: skip

    def _stopped_at_limit(
        self, output_log: Path | None, outcome: Outcome, error_type: str, message: str, **extra: Any
    ) -> dict[str, Any]:
        """The result of a run this side stopped at a limit (time, memory): its kept output is read
        first (:meth:`_stopped_output`), then the worker is killed (it is replaced). One way for both
        limits, so neither can kill before the output is kept."""
        tail = self._stopped_output(output_log)
        self.kill()
        return _failure(outcome, error_type, message, output_tail=tail, **extra)

    def _died(
        self,
        elapsed: float,
        peak: float,
        memory_limit_mb: float | None,
        oom_before: int,
        self_signals: set[int],
        common: dict[str, Any],
    ) -> dict[str, Any]:
        """The result of a run whose worker died before answering (the worker is replaced)."""
        assert self.process is not None
        code = self.process.returncode
        oom = self.cgroup is not None and self.cgroup.oom_kills() > oom_before
        self.kill()
        extra = {"wall_time_s": elapsed, "peak_rss_mb": peak, **common}
        if oom:
            return _failure(
                Outcome.MEMORY, "MemoryLimitExceeded",
                f"the kernel's OOM killer stopped the worker: its processes together went over the "
                f"memory limit of {memory_limit_mb:g} MiB; the worker was replaced", **extra,
            )  # fmt: skip
        number = _signal_of(code, self.sandboxed)
        if number is None:
            return _failure(
                Outcome.CRASH, "WorkerDied",
                f"the worker process died during the run (exit code {code}); it was replaced", **extra,
            )  # fmt: skip
        name = signal.Signals(number).name
        if number in self_signals:
            return _failure(
                Outcome.CRASH, "WorkerDied",
                f"the program killed its own worker process ({name}); the worker was replaced", **extra,
            )  # fmt: skip
        return _failure(
            Outcome.CRASH, "WorkerDied", f"the worker process was killed by {name}; it was replaced",
            _signal=number, **extra,
        )  # fmt: skip


def _signal_of(code: int | None, sandboxed: bool) -> int | None:
    """The signal that ended a worker from its exit status (bwrap reports a signal as 128 + N)."""
    if code is None:
        return None
    number = -code if code < 0 else (code - 128 if sandboxed and code > 128 else 0)
    try:
        return int(signal.Signals(number)) if number > 0 else None
    except ValueError:
        return None
