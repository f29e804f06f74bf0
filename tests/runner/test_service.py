"""The worker service (``mutreal workers``, ``--executor pool``): warm workers shared by commands."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mutreal.cli import main
from mutreal.execution import execute_campaign, run_campaign
from mutreal.execution.service import (
    ServiceUnavailable,
    _connect,
    service_status,
    start_service,
    stop_service,
)


@pytest.fixture
def socket_path():
    """A short socket path (Unix sockets allow about 100 bytes; pytest's tmp_path can be longer)."""
    folder = Path(tempfile.mkdtemp(prefix="mw-", dir="/tmp"))
    yield folder / "w.sock"
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


def test_no_service_is_a_clear_settings_error(socket_path: Path, write_program, tiny_program) -> None:
    program = write_program("p.py", tiny_program(1))
    with pytest.raises(ServiceUnavailable, match="mutreal workers start"):
        run_campaign([program], runs=1, executor="pool", address=str(socket_path), progress=False)
    result = CliRunner().invoke(
        main, ["run", str(program), "--runs", "1", "--executor", "pool", "--address", str(socket_path)]
    )
    assert result.exit_code == 2
    assert "no mutreal worker service" in result.output
    status = CliRunner().invoke(main, ["workers", "status", "--address", str(socket_path), "--json"])
    assert status.exit_code == 1 and '"running": false' in status.output


def _from_service(records):
    return [(r.seed, r.outcome, r.metric_value) for r in records]


@pytest.mark.slow
def test_service_runs_campaigns_warm_with_the_local_numbers(
    socket_path: Path, write_program, tiny_program
) -> None:
    program = write_program("p.py", tiny_program(2))
    local = run_campaign([program], runs=3, jobs=1, progress=False)
    status = start_service(1, {"threads": os.cpu_count() or 1, "deterministic": True, "block_network": True},
                           socket_path)  # fmt: skip
    try:
        assert len(status.workers) == 1 and status.workers[0].alive
        with pytest.raises(RuntimeError, match="already runs"):
            start_service(1, {}, socket_path)
        first = execute_campaign(
            [program], runs=3, jobs=1, executor="pool", address=str(socket_path), progress=False
        )
        assert _from_service(first.records) == _from_service(local)  # same seeds, same numbers as fresh workers
        assert first.worker_startup_s == 0.0  # the worker was warm before the campaign began
        second = run_campaign(
            [program], runs=2, jobs=1, executor="pool", address=str(socket_path), progress=False
        )
        assert _from_service(second) == _from_service(local)[:2]
        # without jobs the campaign takes the service's workers as they are (no new worker starts)
        third = execute_campaign([program], runs=1, executor="pool", address=str(socket_path), progress=False)
        assert third.worker_startup_s == 0.0 and third.records[0].outcome == "ok"
        # a caller from another Python environment is refused: its run keys name other versions
        with _connect(socket_path) as conn:
            conn.send({"type": "map", "environment": "another", "tasks": [{"key": "k"}]})
            refusal = conn.recv()
        assert refusal["kind"] == "environment" and "another Python environment" in refusal["message"]
        after = service_status(socket_path)
        assert (after.campaigns, after.runs) == (3, 6) and after.python == sys.executable
        assert after.workers[0].pid == status.workers[0].pid  # one worker served every run
        assert after.workers[0].runs_served == 6
    finally:
        pid = stop_service(socket_path)
    assert not socket_path.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.slow
def test_a_caller_killed_mid_campaign_leaves_a_working_service(
    socket_path: Path, write_program, tmp_path: Path
) -> None:
    # the killed caller's run would sleep an hour: a service that held its worker until that run
    # ended could not serve the next caller within the hang guard below (a tenth of that hour)
    slow = write_program("slow.py", "import time\ntime.sleep(3600)\n")
    quick = write_program("quick.py", "import keras\nprint('ok')\n")
    start_service(1, {"threads": 1, "deterministic": True, "block_network": True}, socket_path)
    try:
        caller = subprocess.Popen(
            [sys.executable, "-c",
             "import sys; from mutreal.execution import run_campaign;"
             f"run_campaign([{str(slow)!r}], runs=1, jobs=1, executor='pool', address={str(socket_path)!r},"
             " progress=False, timeout_s=3600, config=__import__('mutreal.execution', fromlist=['x']).CampaignConfig("
             "threads_per_worker=1))"],
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not service_status(socket_path).busy:
            assert time.monotonic() < deadline and caller.poll() is None
            time.sleep(0.2)
        assert [w.alive for w in service_status(socket_path).workers] == [True]  # shown while busy too
        caller.kill()
        caller.wait()
        # the service notices the caller is gone, drops the run in flight and serves the next caller
        done: list[object] = []
        follower = threading.Thread(
            target=lambda: done.append(run_campaign(
                [quick], runs=1, jobs=1, executor="pool", address=str(socket_path), progress=False,
                timeout_s=120,
            )),
            daemon=True,
        )  # fmt: skip
        follower.start()
        follower.join(360)  # hang guard only: the held run would end after 3600 s
        assert done, "the next caller was not served: the killed caller's run still holds the worker"
        records = done[0]
        assert [r.outcome for r in records] == ["ok"]  # type: ignore[attr-defined]
    finally:
        stop_service(socket_path)


@pytest.mark.slow
def test_workers_cli_start_status_stop(socket_path: Path) -> None:
    runner = CliRunner()
    address = ["--address", str(socket_path)]
    started = runner.invoke(main, ["workers", "start", "--jobs", "1", *address])
    try:
        assert started.exit_code == 0, started.output
        assert "1 warm worker(s)" in started.output
        again = runner.invoke(main, ["workers", "start", "--jobs", "1", *address])
        assert again.exit_code == 1 and "already runs" in again.output
        status = runner.invoke(main, ["workers", "status", *address])
        assert status.exit_code == 0 and "idle; 0 campaign(s), 0 run(s)" in status.output
        assert "s0: pid" in status.output and "alive" in status.output
    finally:
        stopped = runner.invoke(main, ["workers", "stop", *address])
    assert stopped.exit_code == 0 and "stopped the mutreal worker service" in stopped.output
    gone = runner.invoke(main, ["workers", "stop", *address])
    assert gone.exit_code == 1 and "no mutreal worker service" in gone.output
