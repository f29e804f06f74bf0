"""A worker service: warm workers that outlive one command, so a campaign pays no start-up at all.

Every campaign of :class:`~mutreal.runner.pool.LocalExecutor` starts its workers, and each worker
imports TensorFlow before its first run: about 4 s on a laptop core, which is a sixth of a worker's
time in a 20-run campaign of a small model. Within one Python process ``keep_workers=True`` already
keeps workers warm between campaigns (notebooks, adaptive rounds); a shell loop of ``mutreal
reproduce``/``kill``/``compare`` calls, one per bug, cannot share a process. The service is that
process: ``mutreal workers start`` runs it in the background, it starts its workers at once, and
every campaign run with ``--executor pool`` sends its runs there instead of starting workers.

What stays the same: the workers are the local executor's (same sandbox, limits, state reset between
runs, replacement of a broken worker), the caller keeps the store (the service never writes it) and
receives every result the moment it is there, so an interrupted caller loses only the runs in flight.
The service runs one campaign at a time (a second caller waits): two campaigns on the same cores
would only slow each other down and change the numbers' timing.

Protocol (``multiprocessing.connection`` over a Unix socket, authenticated with a key file only the
user can read): the client sends ``{"type": "map", "tasks": [...], "jobs", "options", "timeout_s",
"memory_limit_mb", "max_runs_per_worker"}`` and receives ``{"type": "result", "index", "result"}`` per
run, then ``{"type": "done", "startup_s"}`` (or ``{"type": "error", "message"}``); ``{"type":
"status"}`` and ``{"type": "stop"}`` are answered at once, even during a campaign.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import Any

from mutreal.runner import environment, pool

#: Where ``mutreal workers start`` listens unless told otherwise (``MUTREAL_WORKERS`` overrides it).
ENV_ADDRESS = "MUTREAL_WORKERS"
#: Seconds ``start`` waits for the service's workers to be ready (they import TensorFlow).
START_TIMEOUT_S = 300.0


class ServiceUnavailable(ValueError):
    """No worker service answers at the address (not started, stopped, or a stale socket).

    A ValueError because, like an unknown executor, it is a matter of the caller's settings: the CLI
    reports it as a usage error. A service that goes away during a campaign is a RuntimeError."""


def default_address() -> Path:
    """The service's socket: ``$MUTREAL_WORKERS``, else ``~/.cache/mutreal/workers.sock``.

    A Unix socket path may not exceed about 100 bytes; a longer home folder falls back to the
    temporary folder (still per user: the name holds the user id).
    """
    if os.environ.get(ENV_ADDRESS):
        return Path(os.environ[ENV_ADDRESS]).expanduser()
    path = Path.home() / ".cache" / "mutreal" / "workers.sock"
    if len(str(path)) > 100:
        import tempfile

        path = Path(tempfile.gettempdir()) / f"mutreal-{os.getuid()}" / "workers.sock"
    return path


def _key_path(address: Path) -> Path:
    return address.with_suffix(".key")


def _log_path(address: Path) -> Path:
    return address.with_suffix(".log")


def _read_key(address: Path) -> bytes:
    try:
        return _key_path(address).read_bytes()
    except OSError:
        raise ServiceUnavailable(
            f"no mutreal worker service at {address} (start one with `mutreal workers start`)"
        ) from None


@dataclass
class WorkerInfo:
    """One warm worker as ``status`` reports it."""

    name: str
    pid: int | None
    alive: bool
    runs_served: int
    starts: int
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class ServiceStatus:
    """What ``mutreal workers status`` prints: the service, its workers and what it has done."""

    address: str
    pid: int
    started_at: float
    busy: bool
    campaigns: int
    runs: int
    workers: list[WorkerInfo] = field(default_factory=list)
    python: str = ""  # the interpreter the workers run (campaigns from another environment are refused)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServiceStatus:
        return cls(**{**data, "workers": [WorkerInfo(**w) for w in data.get("workers", [])]})


class WorkerService:
    """The server side: warm local workers, one campaign at a time, results streamed to the caller."""

    def __init__(self, address: str | Path, jobs: int, options: dict[str, Any] | None = None) -> None:
        self.address = Path(address)
        self.jobs = max(1, int(jobs))
        self.options = dict(options or {})
        self.campaign_lock = threading.Lock()
        self.stopping = threading.Event()
        self.campaigns = 0
        self.runs = 0
        self.started_at = time.time()
        self.listener: Listener | None = None
        self.environment = environment.environment_hash()  # the workers' interpreter and packages
        self.current: pool.LocalExecutor | None = None  # the executor of the running campaign

    # -- workers ---------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Start ``jobs`` workers now (in parallel) and keep them idle for the first campaign."""
        layout = pool.LocalExecutor(jobs=self.jobs, options=self.options)
        workers = [
            pool.WorkerProcess(options, name=f"s{i}")
            for i, options in enumerate(layout.worker_options(self.jobs))
        ]
        errors: list[BaseException] = []

        def start(worker: pool.WorkerProcess) -> None:
            try:
                worker.start()
            except BaseException as error:  # noqa: BLE001 - reported below, the service still runs
                errors.append(error)

        threads = [threading.Thread(target=start, args=(w,)) for w in workers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for worker in workers:
            if worker.alive:
                pool.put_idle(worker)
        if errors:
            print(f"mutreal workers: {len(errors)} worker(s) failed to start: {errors[0]}", file=sys.stderr)

    def worker_infos(self) -> list[WorkerInfo]:
        return [
            WorkerInfo(
                name=w.name,
                pid=w.process.pid if w.process is not None else None,
                alive=w.alive,
                runs_served=w.runs_served,
                starts=w.starts,
                options={k: v for k, v in w.options.items() if v is not None},
            )
            for w in [*pool.idle_workers(), *(self.current.workers if self.current is not None else [])]
        ]

    def status(self) -> ServiceStatus:
        return ServiceStatus(
            address=str(self.address),
            pid=os.getpid(),
            started_at=self.started_at,
            busy=self.campaign_lock.locked(),
            campaigns=self.campaigns,
            runs=self.runs,
            workers=self.worker_infos(),
            python=sys.executable,
        )

    # -- one campaign ----------------------------------------------------------------------------
    def run_map(self, request: dict[str, Any], conn: Connection) -> None:
        """Run one campaign's tasks on the warm workers, sending each result as it finishes.

        A caller that goes away (killed, Ctrl-C) is noticed within half a second: its runs in flight
        are stopped with their workers, so it does not hold the service until they end."""
        tasks = list(request.get("tasks") or [])
        if request.get("environment") not in (None, self.environment):
            # run keys hold the caller's package versions: runs made with other versions would lie
            conn.send({"type": "error", "kind": "environment", "message": (
                f"the worker service at {self.address} runs another Python environment "
                f"({sys.executable}) than this command; stop it (`mutreal workers stop`) and start "
                "it from this environment"
            )})  # fmt: skip
            return
        executor = pool.LocalExecutor(
            jobs=int(request.get("jobs") or self.jobs),
            options=request.get("options") or self.options,
            timeout_s=request.get("timeout_s"),
            memory_limit_mb=request.get("memory_limit_mb"),
            max_runs_per_worker=int(request.get("max_runs_per_worker") or 200),
            keep_workers=True,
        )
        index_of = {id(task): i for i, task in enumerate(tasks)}

        def on_result(task: dict[str, Any], result: dict[str, Any]) -> None:
            conn.send({"type": "result", "index": index_of[id(task)], "result": result})
            self.runs += 1

        finished = threading.Event()

        def watch_caller() -> None:  # the caller sends nothing during a campaign: readable means gone
            while not finished.is_set():
                try:
                    if conn.poll(0.5):
                        conn.recv()
                except (EOFError, OSError):
                    executor.abort()
                    return

        with self.campaign_lock:
            self.campaigns += 1
            watcher = threading.Thread(target=watch_caller, daemon=True)
            watcher.start()
            self.current = executor
            try:
                executor.map(tasks, on_result)
            except pool.CampaignAborted:
                return
            finally:
                finished.set()
                self.current = None
            # keep only this campaign's workers warm: a caller with other options (threads) would
            # otherwise leave a second set idle beside the first, each holding TensorFlow's memory
            pool.shutdown_idle_workers(keep=executor.kept)
        conn.send({"type": "done", "startup_s": executor.startup_s})

    # -- serving ---------------------------------------------------------------------------------
    def handle(self, conn: Connection) -> None:
        """Answer one caller: a status, a stop, or a campaign."""
        try:
            with conn:
                request = conn.recv()
                kind = request.get("type") if isinstance(request, dict) else None
                if kind == "status":
                    conn.send({"type": "status", "status": self.status().to_dict()})
                elif kind == "stop":
                    conn.send({"type": "stopping"})
                    self.stop()
                elif kind == "map":
                    try:
                        self.run_map(request, conn)
                    except (OSError, EOFError):
                        return  # the caller went away: its in-flight runs are lost, nothing else
                    except Exception as error:  # noqa: BLE001 - the caller gets the message
                        with contextlib.suppress(OSError):
                            conn.send({"type": "error", "message": f"{type(error).__name__}: {error}"})
                    if not self.stopping.is_set() and not pool.idle_workers():
                        self.warm_up()  # a campaign that ended badly took its workers with it
                else:
                    conn.send({"type": "error", "message": f"unknown request {kind!r}"})
        except (OSError, EOFError):
            return

    def serve(self, ready: Callable[[], None] | None = None) -> None:
        """Listen until stopped (``stop`` request, SIGTERM or SIGINT); warm workers first."""
        self.address.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.address.unlink()  # a stale socket of a service that was killed
        key = secrets.token_bytes(32)
        key_path = _key_path(self.address)
        fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key)
        self.warm_up()
        self.listener = Listener(str(self.address), family="AF_UNIX", authkey=key)
        os.chmod(self.address, 0o600)
        if ready is not None:
            ready()
        try:
            while not self.stopping.is_set():
                try:
                    conn = self.listener.accept()
                except (OSError, EOFError):
                    if self.stopping.is_set():
                        break
                    continue  # a caller without the key, or one that hung up during the handshake
                threading.Thread(target=self.handle, args=(conn,), daemon=True).start()
        finally:
            self.close()

    def stop(self) -> None:
        """Stop accepting callers; :meth:`serve` returns and the workers are stopped."""
        self.stopping.set()
        if self.listener is not None:
            # accept() blocks and closing the socket does not wake it on Linux; a bare connection does
            # (its authentication then fails at once). Not a full client: stop() may run in a signal
            # handler on the very thread that would have to answer the handshake.
            with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as wake:
                wake.settimeout(1.0)
                wake.connect(str(self.address))

    def close(self) -> None:
        if self.listener is not None:
            with contextlib.suppress(OSError):
                self.listener.close()
            self.listener = None
        pool.shutdown_idle_workers()
        for path in (self.address, _key_path(self.address)):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


# -- client side ---------------------------------------------------------------------------------
def _connect(address: Path, timeout_s: float = 5.0) -> Connection:
    key = _read_key(address)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return Client(str(address), family="AF_UNIX", authkey=key)
        except (FileNotFoundError, ConnectionRefusedError) as error:
            if time.monotonic() >= deadline:
                raise ServiceUnavailable(
                    f"no mutreal worker service answers at {address} ({error.strerror}); "
                    "start one with `mutreal workers start`"
                ) from None
            time.sleep(0.1)


def service_status(address: str | Path | None = None) -> ServiceStatus:
    """The running service's status (raises :class:`ServiceUnavailable` when none answers)."""
    with _connect(Path(address) if address else default_address(), timeout_s=1.0) as conn:
        conn.send({"type": "status"})
        return ServiceStatus.from_dict(conn.recv()["status"])


def service_layout(address: str | Path | None = None) -> tuple[int, int | None]:
    """(number of warm workers, their TensorFlow threads) of the running service, for a campaign that
    did not choose ``jobs``: it then runs on those workers as they are instead of starting others."""
    status = service_status(address)
    threads = next((w.options.get("threads") for w in status.workers if w.options.get("threads")), None)
    return max(1, len(status.workers)), threads


def stop_service(address: str | Path | None = None, wait_s: float = 30.0) -> int:
    """Ask the service to stop and wait until it is gone; returns its pid."""
    path = Path(address) if address else default_address()
    pid = service_status(path).pid
    with _connect(path, timeout_s=1.0) as conn:
        conn.send({"type": "stop"})
        with contextlib.suppress(EOFError, OSError):
            conn.recv()
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and _pid_alive(pid):
        time.sleep(0.1)
    if _pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    return pid


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(ChildProcessError):  # reap it when it is our own child
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    return True


def start_service(
    jobs: int,
    options: dict[str, Any] | None = None,
    address: str | Path | None = None,
    timeout_s: float = START_TIMEOUT_S,
) -> ServiceStatus:
    """Start the service in the background (detached from this terminal) and wait until it is warm.

    Raises :class:`RuntimeError` when a service already answers at the address, or when it does not
    become ready (the message ends with its log).
    """
    import json

    path = Path(address) if address else default_address()
    with contextlib.suppress(ServiceUnavailable):
        running = service_status(path)
        raise RuntimeError(f"a mutreal worker service already runs at {path} (pid {running.pid})")
    path.parent.mkdir(parents=True, exist_ok=True)
    log_path = _log_path(path)
    src_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src_root, env.get("PYTHONPATH", "")) if p)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "mutreal.runner.service", str(path), str(jobs), json.dumps(options or {})],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_path.read_text(errors="replace")[-1500:]
            raise RuntimeError(
                f"the worker service exited with code {process.returncode}; its log ends: {tail}"
            )
        with contextlib.suppress(ServiceUnavailable, OSError, EOFError):
            return service_status(path)
        time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the worker service did not become ready within {timeout_s:.0f} s (log: {log_path})")


class ServiceExecutor:
    """The campaign side of ``--executor pool``: sends the runs to the service, results come back.

    Same interface as :class:`~mutreal.runner.pool.LocalExecutor` (``map``, ``startup_s``), so the
    campaign stores each result as it arrives.
    """

    def __init__(
        self,
        address: str | Path | None,
        jobs: int,
        options: dict[str, Any] | None = None,
        timeout_s: float | None = None,
        memory_limit_mb: float | None = None,
        max_runs_per_worker: int = 200,
    ) -> None:
        self.address = Path(address) if address else default_address()
        self.jobs = max(1, int(jobs))
        self.options = dict(options or {})
        self.timeout_s = timeout_s
        self.memory_limit_mb = memory_limit_mb
        self.max_runs_per_worker = max_runs_per_worker
        self.startup_s = 0.0

    def map(
        self,
        tasks: Iterable[dict[str, Any]],
        on_result: Callable[[dict[str, Any], dict[str, Any]], None],
    ) -> None:
        task_list = list(tasks)
        with _connect(self.address) as conn:
            conn.send(
                {
                    "type": "map",
                    "environment": environment.environment_hash(),
                    "tasks": task_list,
                    "jobs": self.jobs,
                    "options": self.options,
                    "timeout_s": self.timeout_s,
                    "memory_limit_mb": self.memory_limit_mb,
                    "max_runs_per_worker": self.max_runs_per_worker,
                }
            )
            received = 0
            while received < len(task_list):
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    raise RuntimeError(
                        f"the worker service at {self.address} went away after {received} of "
                        f"{len(task_list)} runs (the runs received are stored)"
                    ) from None
                if message.get("type") == "result":
                    on_result(task_list[message["index"]], message["result"])
                    received += 1
                elif message.get("type") == "error":
                    if message.get("kind") == "environment":
                        raise ServiceUnavailable(message.get("message"))
                    raise RuntimeError(f"the worker service failed: {message.get('message')}")
            with contextlib.suppress(EOFError, OSError):
                done = conn.recv()
                self.startup_s = float(done.get("startup_s") or 0.0)


def main(argv: list[str] | None = None) -> None:
    """``python -m mutreal.runner.service ADDRESS JOBS OPTIONS_JSON``: run the service (foreground)."""
    import json

    args = sys.argv[1:] if argv is None else argv
    address, jobs, options = Path(args[0]), int(args[1]), json.loads(args[2]) if len(args) > 2 else {}
    service = WorkerService(address, jobs, options)
    signal.signal(signal.SIGTERM, lambda *_: service.stop())
    signal.signal(signal.SIGINT, lambda *_: service.stop())
    print(f"mutreal worker service: pid {os.getpid()}, {jobs} worker(s), listening at {address}", flush=True)
    service.serve(ready=lambda: print("ready", flush=True))
    print("stopped", flush=True)


if __name__ == "__main__":
    main()
