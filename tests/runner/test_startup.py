"""A campaign's start-up (issue 32): workers spawned before the plan is made, spares spawned while
probes train, a worker's end not waited for past its death, the parent never importing TensorFlow,
and run keys exactly as they were before any of it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from mutreal.execution import hashing, pool
from mutreal.execution.campaign import execute_campaign
from mutreal.execution.campaign_config import CampaignConfig
from mutreal.execution.environment import environment_hash
from mutreal.execution.executor import Executor, map_probes_first
from mutreal.execution.executor_choice import worker_options
from mutreal.execution.plan import prepare_program, run_key

SRC = str(Path(__file__).resolve().parents[2] / "src")

#: The programs whose run keys are pinned: a Keras 3 program with a data file beside it, and a
#: Keras 2-era program (it runs on tf_keras, whose name enters its key).
PINNED_PROGRAMS = {
    "train.py": """
        import numpy as np
        import keras
        x = np.loadtxt("data.csv", delimiter=",")
        model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
        model.fit(x[:, :2], x[:, 2], epochs=1, verbose=0)
    """,
    "legacy.py": """
        from keras.models import Sequential
        from keras.layers.core import Dense
        model = Sequential()
        model.add(Dense(output_dim=1, input_dim=2, init="uniform"))
        model.compile(optimizer="adam", loss="mse")
    """,
}
#: (program, its own arguments) -> (framework, program hash, run key of seed 3), computed on main
#: at 0efd28c, before the start-up changes, with the data file and configuration below and the
#: environment hash "env-pinned". A change of any of them makes stored runs unreachable.
PINNED_KEYS = {
    ("train.py", None): ("keras3", "956b22ebba6ba1bdfdd3332a3eeaf3e52edb3e98fe915a6c2153faf0c210d2c0",
                         "72defc4a55cb68013b7a039b696ebabd9b38c54c22864d9e62d122c493bb942c"),
    ("legacy.py", None): ("tf_keras", "95dccc50bde43b088712e5e2d46863092da6fc6e22a0f84246d5eed2fb70dcc8",
                          "f4254617357579856a2a657feb507beb0633e2cfbd51edc85376750ad9fe64cf"),
    ("train.py", ("--epochs", "3")): ("keras3",
                                      "956b22ebba6ba1bdfdd3332a3eeaf3e52edb3e98fe915a6c2153faf0c210d2c0",
                                      "c73234ed91a84079cee07add8723f8ca560377f5ab1d0933a72cdbd5f75db47f"),
}  # fmt: skip
PINNED_DATA_HASH = "ba2cdf211e317de62066cbc16a9298c377bdb0c5c96026e5dc9cbda358035385"
PINNED_CONFIG_HASH = "b28d12a30870a006190feb88366d6b37c3a9fb043452b9ab79f39adef0231d26"


def _write_pinned(folder: Path) -> None:
    for name, text in PINNED_PROGRAMS.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    (folder / "data.csv").write_text("0,1,1\n1,0,0\n", encoding="utf-8")


def test_run_keys_of_fixed_programs_are_the_ones_computed_before_the_start_up_changes(tmp_path: Path):
    _write_pinned(tmp_path)
    config_hash = hashing.config_hash(CampaignConfig(threads_per_worker=1).result_affecting())
    assert config_hash == PINNED_CONFIG_HASH
    for (name, args), (framework, program_hash, key) in PINNED_KEYS.items():
        program = prepare_program(tmp_path / name, False, tmp_path, "auto", list(args) if args else None)
        assert (program.framework, program.program_hash, program.data_hash) == (framework, program_hash,
                                                                                PINNED_DATA_HASH)  # fmt: skip
        assert run_key(program, 3, config_hash, "env-pinned") == key


def _options() -> dict:
    return worker_options(CampaignConfig(jobs=1, sandbox="none"))


def test_a_worker_still_importing_is_killed_by_stop_not_asked_and_waited_for():
    """A spawned worker reads its channel only once TensorFlow is imported: stop() must not wait
    for that (its polite stop waits up to 5 s) but kill it at once."""
    worker = pool.WorkerProcess(_options(), name="t0")
    worker.spawn()
    assert worker.starting
    pid = worker.process.pid
    began = time.monotonic()
    worker.stop()
    assert time.monotonic() - began < 3
    assert not worker.alive and not worker.starting
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_prestarted_workers_no_campaign_took_are_killed_when_the_block_ends():
    with pool.prestarted(2, _options(), count=5) as workers:
        assert len(workers) == 2  # never more than jobs
        assert all(w.starting for w in workers)
        assert {id(w) for w in workers} <= {id(w) for w in pool.idle_workers()}
    assert not any(w.alive for w in workers)
    assert not {id(w) for w in workers} & {id(w) for w in pool.idle_workers()}


def test_a_prestarted_worker_is_taken_without_keep_workers_and_a_kept_one_is_not():
    options = _options()
    executor = pool.LocalExecutor(jobs=1, options=options)
    kept = pool.WorkerProcess(executor.worker_options(1)[0], name="kept")
    kept.spawn()
    pool.put_idle(kept)
    try:
        assert executor._workers(1)[0] is not kept  # an earlier campaign's worker: only with keep_workers
        with pool.prestarted(1, options) as (ahead,):
            assert executor._workers(1)[0] is ahead
            assert executor._workers(1)[0] is not ahead  # taken once
    finally:
        pool.kill_idle([kept])
        ahead.kill()


#: A subreaper that never reaps (as a busy host init): the worker's parent, and its orphans' new one.
_REAPER = """
import ctypes, subprocess, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
worker = subprocess.Popen([sys.executable, "-c",
                           "import subprocess, time; subprocess.Popen(['sleep', '60']); time.sleep(60)"])
print(worker.pid, flush=True)
time.sleep(60)
"""
_ZOMBIE_HARNESS = """
import subprocess, sys, time
sys.path.insert(0, {src!r})
from mutreal.execution.worker_process import _kill_tree
reaper = subprocess.Popen([sys.executable, "-c", {reaper!r}], stdout=subprocess.PIPE, text=True)
worker = int(reaper.stdout.readline())
time.sleep(1.0)
began = time.monotonic()
_kill_tree(worker)
print(time.monotonic() - began)
reaper.kill()
"""


def test_killing_a_worker_tree_does_not_wait_for_an_orphan_to_be_reaped():
    """The sandbox's inner bubblewrap, orphaned when its outer one dies, is reaped by the host's init
    whenever that gets to it; the kill is done once it is a zombie. Here the worker's parent is a
    subreaper that never reaps: waiting for the zombies to vanish lasted the whole 10 s."""
    done = subprocess.run([sys.executable, "-c", _ZOMBIE_HARNESS.format(src=SRC, reaper=_REAPER)], capture_output=True,
                          text=True, timeout=60, check=True)  # fmt: skip
    assert float(done.stdout.strip()) < 5.0


@pytest.mark.slow
def test_a_campaign_runs_on_the_worker_spawned_before_it_planned(write_program, tiny_program):
    program = write_program("tiny.py", tiny_program(epochs=1))
    options = {"programs": [program], "seeds": [0], "jobs": 1, "sandbox_mode": "none", "progress": False}
    with pool.workers_started_ahead(None, options) as (ahead,):
        pid = ahead.process.pid
        result = execute_campaign(**options)
    record = result.records[0]
    assert record.outcome == "ok" and record.worker == f"w0:{pid}"
    assert result.worker_startup_s and result.worker_startup_s > 0  # its import, counted from its spawn
    assert not ahead.alive  # a campaign that keeps no workers ends it


@pytest.mark.slow
def test_a_phased_campaign_spawns_its_spare_worker_while_the_probe_trains(write_program, tiny_program):
    """keep_workers: the map of one probe task with jobs=2 leaves two workers warm (the spare
    spawned at its start), so the next phase waits for neither TensorFlow import."""
    program = write_program("tiny.py", tiny_program(epochs=1))
    cfg = CampaignConfig(jobs=2, sandbox="none")
    prepared = prepare_program(program, False)
    task = {"key": "k", "program": str(program), "folder": str(program.parent), "source": prepared.source,
            "seed": 0, "args": [], "framework": prepared.framework}  # fmt: skip
    executor = pool.LocalExecutor(jobs=2, options=worker_options(cfg), keep_workers=True, timeout_s=300)
    results = []
    try:
        executor.map([task], lambda t, r: results.append(r))
        assert [r["outcome"] for r in results] == ["ok"]
        assert len(executor.kept) == 2 and all(w.alive for w in executor.kept)
        assert sorted(w.runs_served for w in executor.kept) == [0, 1]
        assert {w.framework for w in executor.kept} == {prepared.framework}  # the spare runs the probe's
    finally:
        pool.kill_idle(executor.kept)


@pytest.mark.slow
def test_mutreal_run_never_imports_tensorflow_and_stores_the_plans_keys(
    write_program, tiny_program, tmp_path
):
    """The parent of `mutreal run` imports neither TensorFlow nor Keras (its workers do); the run it
    stores is under the key the plan computes from the program, the configuration and the environment."""
    program = write_program("tiny.py", tiny_program(epochs=1))
    store = tmp_path / "runs.sqlite"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mutreal", "run", str(program), "--seeds", "2", "--jobs", "1",
         "--store", str(store), "--quiet", "--json"],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {
        line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time")
    }
    assert "numpy" in imported  # the import log is read
    assert not {"tensorflow", "keras", "tf_keras"} & imported
    runs = json.loads(done.stdout)["runs"]
    config_hash = hashing.config_hash(CampaignConfig(jobs=1).result_affecting())
    expected = run_key(prepare_program(program, False), 2, config_hash, environment_hash())
    assert [r["key"] for r in runs] == [expected]
    with sqlite3.connect(store) as db:
        assert [row[0] for row in db.execute("select key from runs")] == [expected]


@pytest.mark.slow
def test_tasks_dropped_while_a_map_runs_are_never_run_and_the_map_returns_without_them(write_program):
    """Executor.drop: the other seeds of a program whose probe crashed, queued beside it, are taken
    back before any worker starts them; the map ends once the tasks it kept are done."""
    program = write_program("quick.py", "print('ran')\n")
    tasks = [{"key": f"k{seed}", "program": str(program), "folder": str(program.parent),
              "source": program.read_text(), "seed": seed, "args": []} for seed in range(4)]  # fmt: skip
    executor = pool.LocalExecutor(jobs=1, options=_options(), timeout_s=300)
    seen: list[str] = []
    dropped: list[dict] = []

    def on_result(task: dict, result: dict) -> None:
        seen.append(task["key"])
        if task["key"] == "k0":
            dropped.extend(executor.drop(lambda t: t["key"] in ("k2", "k3")))

    executor.map(tasks, on_result)
    assert sorted(t["key"] for t in dropped) == ["k2", "k3"]
    assert seen == ["k0", "k1"]
    assert executor.drop(lambda t: True) == []  # no map running: nothing to take back
    assert Executor(jobs=1).drop(lambda t: True) == []  # an executor that cannot take back


def test_no_command_module_nor_the_campaign_api_imports_tensorflow():
    """Every sub-command (training ones included) and the campaign API load without TensorFlow or
    Keras: only workers import them, so no command pays that import before its workers start."""
    from mutreal.cli import COMMANDS

    modules = sorted({target.split(":")[0] for target in COMMANDS.values()})
    modules += ["mutreal.execution", "mutreal.execution.pool", "mutreal.campaigns.pair", "mutreal.api"]
    code = "import importlib, sys\n" + "".join(f"importlib.import_module({m!r})\n" for m in modules)
    code += "print(sorted({'tensorflow', 'keras', 'tf_keras'} & set(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.strip() == "[]"


def _probes_first(executor: pool.LocalExecutor, probe: Path, other: Path, allow: bool) -> list[str]:
    """The keys map_probes_first hands to the caller, in order: one probe and four others, one group."""

    def task(key: str, program: Path) -> dict:
        return {"key": key, "program": str(program), "folder": str(program.parent),
                "source": program.read_text(), "seed": 0, "args": []}  # fmt: skip

    calls: list[str] = []

    def on_probe(t: dict, result: dict) -> bool:
        calls.append(t["key"])
        return allow

    others = [task(f"o{i}", other) for i in range(4)]
    map_probes_first(executor, [task("p", probe)], others, group=lambda t: "g", on_probe=on_probe,
                     on_result=lambda t, r: calls.append(t["key"]))  # fmt: skip
    return calls


@pytest.mark.slow
def test_others_train_beside_their_probe_and_reach_the_caller_only_as_its_probe_allows(write_program):
    """map_probes_first on two warm workers, the probe slower than the others: they finish beside
    it, yet reach the caller after it when it lets them through, and never when it does not."""
    probe = write_program("slow.py", "import time\ntime.sleep(3)\n")
    other = write_program("quick.py", "print('ran')\n")
    executor = pool.LocalExecutor(jobs=2, options=_options(), timeout_s=300, keep_workers=True)
    try:
        allowed = _probes_first(executor, probe, other, allow=True)
        assert allowed[0] == "p" and sorted(allowed[1:]) == ["o0", "o1", "o2", "o3"]
        served = {w.name: w.runs_served for w in executor.kept}
        assert sum(served.values()) == 5 and max(served.values()) >= 3  # others ran beside the probe
        assert _probes_first(executor, probe, other, allow=False) == ["p"]
    finally:
        pool.kill_idle(executor.kept)
