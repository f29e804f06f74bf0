"""A worker service: warm workers that outlive one command, so a campaign pays no start-up at all.

Every campaign of :class:`~mutreal.execution.pool.LocalExecutor` starts its workers, and each worker
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

The caller's worker layout (jobs x TensorFlow threads) is honoured exactly or refused, never
replaced by the service's own: the thread count is part of every run key, so a silent change would
retrain every run. Without ``--jobs`` a campaign takes the service's layout *before* it computes its
keys (:func:`service_layout`).

Protocol (length-prefixed JSON over a Unix socket, see :mod:`mutreal.execution.service_socket` for who
may connect and how both sides prove they hold the key): the client sends ``{"type": "map", "tasks":
[...], "jobs", "options", "timeout_s", "memory_limit_mb", "max_runs_per_worker"}`` and receives
``{"type": "accepted", "jobs", "threads"}``, then ``{"type": "result", "index", "result"}`` per run,
then ``{"type": "done", "startup_s"}`` (or ``{"type": "error", "kind", "message"}``); ``{"type":
"status"}`` and ``{"type": "stop"}`` are answered at once, even during a campaign.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mutreal.execution import environment, pool
from mutreal.execution.executor import Executor, ResultCallback
from mutreal.execution.service_socket import (
    Channel,
    HandshakeFailed,
    MalformedMessage,
    UnsafeServicePath,
    client_address,
    client_handshake,
    create_key,
    ensure_folder,
    open_log,
    peer_credentials,
    read_own_file,
    remove_pointer,
    remove_stale_socket,
    server_handshake,
    service_address,
    service_folder,
    write_pointer,
)

#: Where ``mutreal workers start`` listens unless told otherwise (``MUTREAL_WORKERS`` overrides it).
ENV_ADDRESS = "MUTREAL_WORKERS"
#: Seconds ``start`` waits for the service's workers to be ready (they import TensorFlow).
START_TIMEOUT_S = 300.0


class ServiceUnavailable(ValueError):
    """No worker service answers at the address (not started, stopped, or a stale socket).

    A ValueError because, like an unknown executor, it is a matter of the caller's settings: the CLI
    reports it as a usage error. A service that goes away during a campaign is a RuntimeError."""


def _explicit_address(address: str | Path | None) -> Path | None:
    """The address the user named (``--address``, else ``$MUTREAL_WORKERS``), or None for the default."""
    if address:
        return Path(address).expanduser()
    if os.environ.get(ENV_ADDRESS):
        return Path(os.environ[ENV_ADDRESS]).expanduser()
    return None


def _key_path(address: Path) -> Path:
    return address.with_suffix(".key")


def _log_path(address: Path) -> Path:
    return address.with_suffix(".log")


def _read_key(address: Path) -> bytes:
    try:
        return read_own_file(_key_path(address), "key file")
    except FileNotFoundError:
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
    refused_peers: int = 0  # connections of another user, closed before the handshake
    failed_handshakes: int = 0  # connections that did not prove they hold the key
    rejected_messages: int = 0  # requests that were not one JSON object (a pickle, garbage)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServiceStatus:
        return cls(**{**data, "workers": [WorkerInfo(**w) for w in data.get("workers", [])]})


class LayoutRefused(ValueError):
    """A campaign request without a valid worker layout (jobs >= 1, threads >= 1): the service never
    substitutes its own layout, whose thread count would change every run key."""


def _requested_layout(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    jobs, options = request.get("jobs"), request.get("options")
    threads = options.get("threads") if isinstance(options, dict) else None
    if not _positive_int(jobs) or not _positive_int(threads):
        raise LayoutRefused(
            f"a campaign must name its worker layout (jobs >= 1 and options.threads >= 1; got jobs "
            f"{jobs!r}, threads {threads!r}): the service runs the caller's layout or none"
        )
    return int(jobs), dict(options)  # type: ignore[arg-type]


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


class WorkerService:
    """The server side: warm local workers, one campaign at a time, results streamed to the caller."""

    def __init__(self, address: str | Path | None, jobs: int, options: dict[str, Any] | None = None) -> None:
        self.requested = _explicit_address(address)  # None: the service folder (or a private one)
        self.address: Path | None = self.requested
        self.pointer: Path | None = None  # the pointer file written for a private folder
        self.jobs = max(0, int(jobs))  # 0: no warm worker until the first campaign starts its own
        self.options = dict(options or {})
        self.key = b""
        self.campaign_lock = threading.Lock()
        self.stopping = threading.Event()
        self.campaigns = 0
        self.runs = 0
        self.refused_peers = 0
        self.failed_handshakes = 0
        self.rejected_messages = 0
        self.started_at = time.time()
        self.listener: socket.socket | None = None
        self.environment = environment.environment_hash()  # the workers' interpreter and packages
        self.current: pool.LocalExecutor | None = None  # the executor of the running campaign

    # -- workers ---------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Start ``jobs`` workers now (in parallel) and keep them idle for the first campaign."""
        layout = pool.LocalExecutor(jobs=max(1, self.jobs), options=self.options)
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
            _log(f"{len(errors)} worker(s) failed to start: {errors[0]}")

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
            refused_peers=self.refused_peers,
            failed_handshakes=self.failed_handshakes,
            rejected_messages=self.rejected_messages,
        )

    # -- one campaign ----------------------------------------------------------------------------
    def run_map(self, request: dict[str, Any], conn: Channel) -> None:
        """Run one campaign's tasks on the warm workers, sending each result as it finishes.

        A caller that goes away (killed, Ctrl-C) is noticed within half a second: its runs in flight
        are stopped with their workers, so it does not hold the service until they end."""
        if request.get("environment") not in (None, self.environment):
            # run keys hold the caller's package versions: runs made with other versions would lie
            conn.send({"type": "error", "kind": "environment", "message": (
                f"the worker service at {self.address} runs another Python environment "
                f"({sys.executable}) than this command; stop it (`mutreal workers stop`) and start "
                "it from this environment"
            )})  # fmt: skip
            return
        try:
            jobs, options = _requested_layout(request)
        except LayoutRefused as error:
            conn.send({"type": "error", "kind": "layout", "message": str(error)})
            return
        tasks = request.get("tasks") or []
        if not isinstance(tasks, list) or not all(isinstance(task, dict) for task in tasks):
            raise MalformedMessage("the tasks of a campaign are a list of objects")
        executor = pool.LocalExecutor(
            jobs=jobs,
            options=options,
            timeout_s=request.get("timeout_s"),
            memory_limit_mb=request.get("memory_limit_mb"),
            max_runs_per_worker=int(request.get("max_runs_per_worker") or 200),
            keep_workers=True,
        )
        conn.send({"type": "accepted", "jobs": jobs, "threads": options["threads"]})
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
                except (EOFError, OSError, MalformedMessage):
                    executor.abort()
                    return

        with self.campaign_lock:
            self.campaigns += 0 if request.get("continues") else 1
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
    def handle(self, sock: socket.socket) -> None:
        """Answer one caller of the service's own user: key handshake, then a status, stop or campaign."""
        with Channel(sock) as conn:
            try:
                server_handshake(conn, self.key)
            except (HandshakeFailed, EOFError, OSError) as error:
                self.failed_handshakes += 1
                _log(f"closed a connection that did not complete the key handshake ({error})")
                return
            try:
                self.answer(conn)
            except MalformedMessage as error:
                self.rejected_messages += 1
                _log(f"rejected a malformed request: {error}")
                with contextlib.suppress(OSError):
                    conn.send({"type": "error", "kind": "malformed", "message": str(error)})
            except (OSError, EOFError):
                return

    def answer(self, conn: Channel) -> None:
        request = conn.recv()
        kind = request.get("type")
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
            except MalformedMessage:
                raise
            except Exception as error:  # noqa: BLE001 - the caller gets the message
                with contextlib.suppress(OSError):
                    conn.send({"type": "error", "message": f"{type(error).__name__}: {error}"})
            if not self.stopping.is_set() and not pool.idle_workers():
                self.warm_up()  # a campaign that ended badly took its workers with it
        else:
            conn.send({"type": "error", "kind": "malformed", "message": f"unknown request {kind!r}"})

    def accept(self) -> None:
        """Take one connection; a peer of another uid is closed at once, before any byte is sent."""
        assert self.listener is not None
        try:
            sock, _ = self.listener.accept()
        except TimeoutError:
            return
        try:
            pid, uid = peer_credentials(sock)
        except OSError:
            sock.close()
            return
        if uid != os.getuid():
            sock.close()
            self.refused_peers += 1
            _log(
                f"refused a connection from uid {uid} (pid {pid}): only uid {os.getuid()} may use this service"
            )
            return
        threading.Thread(target=self.handle, args=(sock,), daemon=True).start()

    def serve(self, ready: Callable[[], None] | None = None) -> None:
        """Listen until stopped (``stop`` request, SIGTERM or SIGINT); warm workers first."""
        self.address, self.pointer = service_address(self.requested)
        remove_stale_socket(self.address)
        self.key = create_key(_key_path(self.address))
        try:
            self.warm_up()
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            umask = os.umask(0o177)  # the socket is 0600 from its first moment
            try:
                listener.bind(str(self.address))
            finally:
                os.umask(umask)
            os.chmod(self.address, 0o600)
            listener.listen(16)
            listener.settimeout(0.5)  # how soon a stop() is noticed
            self.listener = listener
            if self.pointer is not None:
                write_pointer(self.pointer, self.address)
            if ready is not None:
                ready()
            while not self.stopping.is_set():
                with contextlib.suppress(OSError):
                    self.accept()
        finally:
            self.close()

    def stop(self) -> None:
        """Stop accepting callers; :meth:`serve` returns (within half a second) and the workers stop."""
        self.stopping.set()

    def close(self) -> None:
        if self.listener is not None:
            with contextlib.suppress(OSError):
                self.listener.close()
            self.listener = None
        pool.shutdown_idle_workers()
        if self.address is None:
            return
        for path in (self.address, _key_path(self.address)):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        if self.pointer is not None:  # the private folder is this service's alone: remove it too
            remove_pointer(self.pointer, self.address)
            with contextlib.suppress(OSError):
                self.address.parent.rmdir()


def _log(message: str) -> None:
    print(f"mutreal workers: {message}", file=sys.stderr, flush=True)


# -- client side ---------------------------------------------------------------------------------
def _connect(address: Path, timeout_s: float = 5.0) -> Channel:
    """A connection to the service at ``address``, after checking that the user's own process serves
    it (peer uid) and that it holds the key (handshake)."""
    key = _read_key(address)
    deadline = time.monotonic() + timeout_s
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(address))
            break
        except OSError as error:
            sock.close()
            retry = isinstance(error, (FileNotFoundError, ConnectionRefusedError))
            if not retry or time.monotonic() >= deadline:
                raise ServiceUnavailable(
                    f"no mutreal worker service answers at {address} ({error.strerror}); "
                    "start one with `mutreal workers start`"
                ) from None
            time.sleep(0.1)
    _, uid = peer_credentials(sock)
    if uid != os.getuid():
        sock.close()
        raise UnsafeServicePath(f"{address}: served by uid {uid}, not by you (uid {os.getuid()}); not used")
    conn = Channel(sock)
    try:
        client_handshake(conn, key)
    except (HandshakeFailed, EOFError, OSError) as error:
        conn.close()
        raise ServiceUnavailable(
            f"the worker service at {address} did not complete the handshake ({error}); an older "
            "mutreal's service? stop it (`mutreal workers stop` from that version) and start this one"
        ) from None
    return conn


def _address(address: str | Path | None) -> Path:
    return _explicit_address(address) or client_address()


def service_status(address: str | Path | None = None) -> ServiceStatus:
    """The running service's status (raises :class:`ServiceUnavailable` when none answers)."""
    with _connect(_address(address), timeout_s=1.0) as conn:
        conn.send({"type": "status"})
        return ServiceStatus.from_dict(conn.recv()["status"])


def service_layout(address: str | Path | None = None) -> tuple[int, int | None]:
    """(number of warm workers, their TensorFlow threads) of the running service, for a campaign that
    did not choose ``jobs``: it then runs on those workers as they are instead of starting others.

    Threads None: the service has no warm worker (the campaign then picks its own layout)."""
    status = service_status(address)
    threads = sorted({w.options["threads"] for w in status.workers if w.options.get("threads")})
    if len(threads) > 1:
        raise ServiceUnavailable(
            f"the worker service's workers run {threads} TensorFlow threads: give --jobs (and --threads)"
        )
    return max(1, len(status.workers)), threads[0] if threads else None


def stop_service(address: str | Path | None = None, wait_s: float = 30.0) -> int:
    """Ask the service to stop and wait until it is gone; returns its pid."""
    path = _address(address)
    pid = service_status(path).pid
    with _connect(path, timeout_s=1.0) as conn:
        conn.send({"type": "stop"})
        with contextlib.suppress(EOFError, OSError, MalformedMessage):
            conn.recv()
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and _pid_alive(pid):
        time.sleep(0.1)
    if _pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    return pid


def _pid_alive(pid: int) -> bool:
    """Whether the process runs; one that has exited but is not reaped yet (a zombie of the process
    that started it, e.g. a Python session stopped from the shell) counts as gone."""
    import psutil

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
    with contextlib.suppress(psutil.Error):
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    return False


def start_service(
    jobs: int,
    options: dict[str, Any] | None = None,
    address: str | Path | None = None,
    timeout_s: float = START_TIMEOUT_S,
) -> ServiceStatus:
    """Start the service in the background (detached from this terminal) and wait until it is warm.

    ``jobs`` 0 starts no worker until the first campaign. Raises :class:`RuntimeError` when a service
    already answers at the address, or when it does not become ready (the message ends with its log),
    and :class:`UnsafeServicePath` for a folder or file there that another user could have made.
    """
    import json

    explicit = _explicit_address(address)
    with contextlib.suppress(ServiceUnavailable):
        running = service_status(explicit)
        raise RuntimeError(f"a mutreal worker service already runs at {running.address} (pid {running.pid})")
    if explicit is not None:
        service_address(explicit)  # makes or checks its folder (refused before anything starts)
        log_path = _log_path(explicit)
    else:
        log_path = ensure_folder(service_folder()) / "workers.log"
    src_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src_root, env.get("PYTHONPATH", "")) if p)
    with os.fdopen(open_log(log_path), "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "mutreal.execution.service", str(explicit or ""), str(jobs),
             json.dumps(options or {})],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_path.read_text(errors="replace")[-1500:]
            raise RuntimeError(
                f"the worker service exited with code {process.returncode}; its log ends: {tail}"
            )
        with contextlib.suppress(ServiceUnavailable, OSError, EOFError):
            return service_status(explicit)
        time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the worker service did not become ready within {timeout_s:.0f} s (log: {log_path})")


class ServiceExecutor(Executor):
    """The campaign side of ``--executor pool``: sends the runs to the service, results come back.

    Same interface as :class:`~mutreal.execution.pool.LocalExecutor` (``map``, ``startup_s``), so the
    campaign stores each result as it arrives. The service must accept this campaign's layout (jobs,
    threads) before its first result; a service that would run another is not used.
    """

    def __init__(self, address: str | Path | None, jobs: int, **settings: Any) -> None:
        super().__init__(jobs, **settings)  # options, timeout_s, memory_limit_mb, max_runs_per_worker
        self.address = _address(address)
        self._mapped = False  # a campaign's later maps (its phases) continue the campaign of its first

    def map(self, tasks: Iterable[dict[str, Any]], on_result: ResultCallback) -> None:
        """See :meth:`Executor.map`; the service's workers run the tasks."""
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
                    "continues": self._mapped,
                }
            )
            self._mapped = True
            accepted, received = False, 0
            while True:
                try:
                    message = conn.recv()
                except (EOFError, OSError, MalformedMessage):
                    if accepted and received == len(task_list):
                        return  # every result is here; only the closing "done" was lost
                    raise RuntimeError(
                        f"the worker service at {self.address} went away after {received} of "
                        f"{len(task_list)} runs (the runs received are stored)"
                    ) from None
                kind = message.get("type")
                if kind == "error":
                    if message.get("kind") in ("environment", "layout"):
                        raise ServiceUnavailable(message.get("message"))
                    raise RuntimeError(f"the worker service failed: {message.get('message')}")
                if kind == "accepted":
                    self._check_layout(message)
                    accepted = True
                elif kind == "result" and accepted:
                    index = message.get("index")
                    if not isinstance(index, int) or not 0 <= index < len(task_list):
                        raise RuntimeError(f"the worker service sent a result for no run ({index!r})")
                    on_result(task_list[index], message["result"])
                    received += 1
                elif kind == "done" and accepted:
                    self.startup_s = float(message.get("startup_s") or 0.0)
                    return
                else:
                    raise RuntimeError(f"the worker service sent an unexpected {kind!r} message")

    def _check_layout(self, accepted: dict[str, Any]) -> None:
        """The layout the service will run must be this campaign's (its threads are in the run keys)."""
        wanted = (self.jobs, self.options.get("threads"))
        got = (accepted.get("jobs"), accepted.get("threads"))
        if got != wanted:
            raise ServiceUnavailable(
                f"the worker service at {self.address} would run {got[0]} job(s) x {got[1]} thread(s), "
                f"not this campaign's {wanted[0]} x {wanted[1]}; nothing was run"
            )


def main(argv: list[str] | None = None) -> None:
    """``python -m mutreal.execution.service ADDRESS JOBS OPTIONS_JSON``: run the service (foreground).

    An empty ADDRESS: ``$MUTREAL_WORKERS`` or the service folder (a private one where its path is too
    long, found by clients through the pointer file)."""
    import json

    args = sys.argv[1:] if argv is None else argv
    address, jobs, options = args[0] or None, int(args[1]), json.loads(args[2]) if len(args) > 2 else {}
    service = WorkerService(address, jobs, options)
    signal.signal(signal.SIGTERM, lambda *_: service.stop())
    signal.signal(signal.SIGINT, lambda *_: service.stop())
    try:
        service.serve(ready=lambda: print(
            f"mutreal worker service: pid {os.getpid()}, {jobs} worker(s), listening at {service.address}",
            flush=True,
        ))  # fmt: skip
    except UnsafeServicePath as error:
        print(f"error: {error}", file=sys.stderr, flush=True)
        sys.exit(2)
    print("stopped", flush=True)


if __name__ == "__main__":
    main()
