"""mutreal run end to end (slow): summary, JSON, store reuse, --config round trip, --modernize, Ray."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from mutreal.cli import main

pytestmark = pytest.mark.slow

LEGACY_TINY = """\
import numpy as np
from keras.models import Sequential
from keras.layers.core import Dense
from keras.optimizers import SGD
rng = np.random.default_rng(0)
x = rng.normal(size=(200, 4)); y = (x[:, 0] > 0).astype(int)
model = Sequential()
model.add(Dense(output_dim=8, init='glorot_uniform', activation='relu', input_shape=(4,)))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer=SGD(lr=0.1, decay=1e-6), metrics=['accuracy'])
model.fit(x[:150], y[:150], nb_epoch=2, batch_size=16, verbose=0)
model.evaluate(x[150:], y[150:], verbose=0)
"""


def test_run_json_store_reuse_and_config(write_program, tiny_program, tmp_path):
    program = write_program("tiny.py", tiny_program(epochs=1))
    store = tmp_path / "runs.sqlite"
    runner = CliRunner()
    result = runner.invoke(
        main, ["run", str(program), "--runs", "2", "--jobs", "1", "--store", str(store), "--json", "-q"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    summary = data["summaries"][0]
    assert summary["n"] == 2 and summary["n_ok"] == 2 and summary["metric_name"] == "accuracy"
    assert summary["std"] is not None and len(data["runs"]) == 2
    assert data["campaign"]["trained"] == 2
    config = data["campaign"]["config"]
    # the written configuration runs the same campaign again: everything comes from the store
    again = runner.invoke(main, ["run", "--config", config, "--json", "-q"])
    assert again.exit_code == 0, again.output
    rerun = json.loads(again.stdout)
    assert rerun["campaign"]["trained"] == 0 and rerun["campaign"]["reused"] == 2
    assert [r["metric"] for r in rerun["runs"]] == [r["metric"] for r in data["runs"]]
    runs_csv = tmp_path / "new" / "runs.csv"  # --csv creates its folder, as every --out does
    table = runner.invoke(
        main,
        [
            "run",
            str(program),
            "--runs",
            "2",
            "--store",
            str(store),
            "--metric",
            "loss",
            "-q",
            "--csv",
            str(runs_csv),
        ],
    )
    assert table.exit_code == 0 and "loss (lower)" in table.stdout and "±" in table.stdout
    assert len(runs_csv.read_text().splitlines()) == 3


def test_legacy_program_runs_on_its_era_or_modernized(write_program, tmp_path):
    program = write_program("legacy.py", LEGACY_TINY)
    runner = CliRunner()
    default = runner.invoke(main, ["run", str(program), "--runs", "1", "--jobs", "1", "--json", "-q"])
    assert default.exit_code == 0, default.output  # the default runs it on Keras 2, rewritten
    row = json.loads(default.stdout)["runs"][0]
    assert row["outcome"] == "ok" and row["framework"] == "tf_keras" and row["era"] == "keras1"
    as_is = ["run", str(program), "--runs", "1", "--jobs", "1", "--framework", "as-is", "--json", "-q"]
    plain = runner.invoke(main, as_is)
    assert plain.exit_code == 1
    row = json.loads(plain.stdout)["runs"][0]
    assert row["outcome"] == "crash" and "--framework tf_keras" in row["error_message"]
    fixed = runner.invoke(main, [*as_is, "--modernize"])  # on Keras 3, rewritten for it
    assert fixed.exit_code == 0, fixed.output
    row = json.loads(fixed.stdout)["runs"][0]
    assert row["outcome"] == "ok" and row["framework"] == "keras3" and row["rewrites"] > 0


@pytest.mark.ray
def test_ray_executor_matches_local_runs(write_program, tiny_program, tmp_path):
    pytest.importorskip("ray")
    from mutreal.execution import run_campaign

    program = write_program("tiny.py", tiny_program(epochs=1))
    hang = write_program("hang.py", "import time\ntime.sleep(600)\n")
    # kills the Ray actor that owns its worker: Ray restarts the actor and retries, then gives up
    killer = write_program("killer.py", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")
    store = tmp_path / "ray.sqlite"
    on_ray = run_campaign([program, hang, killer], seeds=[0, 1], jobs=2, executor="ray", timeout_s=20, store=store,
                          progress=False)  # fmt: skip
    by_program = {(r.program.rsplit("/", 1)[-1], r.seed): r for r in on_ray}
    assert by_program[("tiny.py", 0)].outcome == "ok" and by_program[("hang.py", 1)].outcome == "timeout"
    killer_run = by_program[("killer.py", 0)]
    if killer_run.sandbox == "bwrap":
        # in the sandbox its parent is the PID namespace's init, which ignores the signal: the
        # program cannot take its Ray actor down
        assert killer_run.outcome == "ok", killer_run.error_message
    else:  # the actor is gone: not the program's verdict, a lost run that a rerun trains again
        assert killer_run.outcome == "lost" and killer_run.error_type == "RayWorkerLost", killer_run.error_message
    local = run_campaign([program], seeds=[0, 1], jobs=1, progress=False)
    assert [r.metric_value for r in local] == [by_program[("tiny.py", s)].metric_value for s in (0, 1)]
