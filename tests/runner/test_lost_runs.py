"""Runs whose worker was killed from outside are not verdicts (real sandboxed workers: slow)."""

from __future__ import annotations

import signal
import threading
import uuid
from pathlib import Path

import psutil
import pytest

from mutreal.execution import RunStore, execute_campaign, run_campaign

pytestmark = pytest.mark.slow


class _OutsideKiller:
    """Kill with SIGKILL the worker running a program whose child carries ``tag``, up to ``times`` times
    per tag: what an operator's ``kill -9`` or a node going away does to a worker."""

    def __init__(self, limits: dict[str, int]) -> None:
        self.limits = limits
        self.kills = dict.fromkeys(limits, 0)
        self.seen: set[int] = set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.wait(0.1):
            for proc in psutil.process_iter(["cmdline", "ppid"]):
                cmdline = " ".join(proc.info["cmdline"] or [])
                for tag, limit in self.limits.items():
                    if tag in cmdline and proc.pid not in self.seen and self.kills[tag] < limit:
                        self.seen.add(proc.pid)
                        try:
                            psutil.Process(proc.info["ppid"]).send_signal(signal.SIGKILL)  # the worker
                            self.kills[tag] += 1
                        except psutil.Error:
                            pass

    def __enter__(self) -> _OutsideKiller:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=5)


def _sleeper(folder: Path, name: str, tag: str) -> Path:
    path = folder / name
    path.write_text(
        "import subprocess, sys\n"
        f"subprocess.run([sys.executable, '-c', 'import time; time.sleep(6)', {tag!r}], check=True)\n",
        encoding="utf-8",
    )
    return path


def test_a_worker_killed_from_outside_is_retried_once_then_lost_and_the_rerun_trains_it(tmp_path, bwrap):
    twice, once = f"twice-{uuid.uuid4().hex[:8]}", f"once-{uuid.uuid4().hex[:8]}"
    killed_twice = _sleeper(tmp_path, "killed_twice.py", twice)
    killed_once = _sleeper(tmp_path, "killed_once.py", once)
    store = tmp_path / "runs.sqlite"
    with _OutsideKiller({twice: 2, once: 1}) as killer:
        records = run_campaign([killed_twice, killed_once], seeds=[0], jobs=1, timeout_s=120, store=store,
                               progress=False, sandbox_mode="bwrap")  # fmt: skip
    assert killer.kills == {twice: 2, once: 1}
    lost, retried = records
    assert lost.outcome == "lost" and "SIGKILL" in lost.error_message and "twice" in lost.error_message
    assert not lost.crashed  # not a verdict
    assert retried.outcome == "ok" and retried.retried_after == "SIGKILL"
    with RunStore(store) as opened:
        assert opened.get(lost.key).outcome == "lost"
    # the rerun trains the lost run again, and only it
    rerun = execute_campaign([killed_twice, killed_once], seeds=[0], jobs=1, timeout_s=120, store=store,
                             progress=False, sandbox_mode="bwrap")  # fmt: skip
    again = rerun.records
    assert [r.outcome for r in again] == ["ok", "ok"]
    assert rerun.trained == 1 and not again[0].reused and again[1].reused


def test_runs_of_a_worker_service_that_went_away_are_lost_and_the_rerun_trains_them(tmp_path):
    import contextlib
    import os
    import sqlite3
    import tempfile
    import time

    from mutreal.execution.service import start_service

    program = tmp_path / "slow.py"
    program.write_text("import time\ntime.sleep(3)\n", encoding="utf-8")
    store = tmp_path / "runs.sqlite"
    folder = Path(tempfile.mkdtemp(prefix="mw-", dir="/tmp"))
    address = folder / "w.sock"
    status = start_service(1, {"threads": os.cpu_count() or 1, "deterministic": True, "block_network": True},
                           address)  # fmt: skip
    killed = threading.Event()

    def kill_after_first_run() -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            time.sleep(0.2)
            if store.exists():
                with sqlite3.connect(store) as db:
                    if db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] >= 1:
                        break
        service = psutil.Process(status.pid)
        family = [service, *service.children(recursive=True)]
        for proc in family:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        killed.set()

    watcher = threading.Thread(target=kill_after_first_run, daemon=True)
    watcher.start()
    try:
        records = run_campaign([program], runs=3, jobs=1, executor="pool", address=str(address), store=store,
                               progress=False)  # fmt: skip
    finally:
        watcher.join(timeout=30)
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    assert killed.is_set()
    outcomes = [r.outcome for r in records]
    assert outcomes[0] == "ok" and outcomes.count("lost") >= 1 and set(outcomes) <= {"ok", "lost"}
    lost = next(r for r in records if r.outcome == "lost")
    assert "went away" in lost.error_message and "rerun" in lost.error_message
    rerun = execute_campaign([program], runs=3, jobs=1, store=store, progress=False)
    assert [r.outcome for r in rerun.records] == ["ok"] * 3
    assert rerun.trained == outcomes.count("lost")
