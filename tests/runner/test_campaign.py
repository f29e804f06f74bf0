"""Campaigns end to end on real TensorFlow workers (slow): bad programs, determinism, resuming."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mutreal.execution import CampaignConfig, RunStore, execute_campaign, run_campaign, summarize

pytestmark = pytest.mark.slow


def test_bad_programs_end_as_recorded_outcomes_and_the_campaign_goes_on(
    write_program, tiny_program, tmp_path, monkeypatch
):
    keras_home = tmp_path / "keras-home"
    keras_home.mkdir()
    monkeypatch.setenv("KERAS_HOME", str(keras_home))
    forever = write_program("forever.py", "while True:\n    pass\n")
    hog = write_program(
        "hog.py",
        """
        import numpy as np
        blocks = []
        while True:
            blocks.append(np.ones(25_000_000))
        """,
    )
    raises = write_program("raises.py", "def f():\n    raise ValueError('the labels have 3 columns')\nf()\n")
    exits = write_program("exits.py", "import sys\nsys.exit(3)\n")
    needs_mnist = write_program(
        "needs_mnist.py", "import keras\n(x, y), _ = keras.datasets.mnist.load_data()\nprint(x.shape)\n"
    )
    downloads = write_program(
        "downloads.py", "import urllib.request\nurllib.request.urlopen('https://example.org/train.csv')\n"
    )
    good = write_program("good.py", tiny_program(epochs=1))
    store = tmp_path / "runs.sqlite"
    campaign = execute_campaign(
        [forever, hog, raises, exits, needs_mnist, downloads, good],
        runs=1,
        jobs=2,
        timeout_s=25,
        memory_limit_mb=1800,
        store=store,
        progress=False,
    )
    by_name = {Path(r.program).name: r for r in campaign.records}
    assert by_name["forever.py"].outcome == "timeout"
    assert "time limit of 25 s" in by_name["forever.py"].error_message
    assert by_name["hog.py"].outcome == "memory"
    assert "over the limit of 1800 MiB" in by_name["hog.py"].error_message
    assert by_name["raises.py"].outcome == "crash"
    assert by_name["raises.py"].error_type == "ValueError"
    assert by_name["raises.py"].error_message == "the labels have 3 columns"
    assert "raises.py" in by_name["raises.py"].traceback and "line 2" in by_name["raises.py"].traceback
    assert by_name["exits.py"].outcome == "crash" and "status 3" in by_name["exits.py"].error_message
    missing = by_name["needs_mnist.py"]
    assert missing.outcome == "missing-data", missing.error_message
    assert "mnist.npz" in missing.error_message
    assert str(keras_home / "datasets" / "mnist.npz") in missing.error_message
    download = by_name["downloads.py"]
    assert (
        download.outcome == "missing-data"
        and "network access to 'example.org' is blocked" in download.error_message
    )
    assert download.wall_time_s < 10  # fails at once, no network time-out
    assert by_name["good.py"].outcome == "ok"
    assert by_name["good.py"].metric_name == "accuracy" and 0.0 <= by_name["good.py"].metric_value <= 1.0
    assert by_name["good.py"].fit_time_s > 0 and len(by_name["good.py"].correct) == 60
    with RunStore(store) as opened:
        assert opened.count() == 7
    # the manifest and a re-runnable configuration were written beside the store
    config = CampaignConfig.load(campaign.config)
    assert config.timeout_s == 25 and len(config.programs) == 7
    assert "environment" in Path(campaign.manifest).read_text()


def test_state_mutating_program_does_not_change_the_next_run(write_program, tiny_program, tmp_path):
    first = write_program("first.py", tiny_program(epochs=2))
    again = write_program("again.py", tiny_program(epochs=2, comment="same program, other text"))
    (tmp_path / "helper_module.py").write_text("VALUE = 1\n")
    mutator = write_program(
        "mutator.py",
        """
        import os, random, sys, warnings
        import numpy as np
        import keras
        import tensorflow as tf
        import helper_module
        helper_module.VALUE = 99
        keras.config.set_floatx("float64")
        keras.config.set_epsilon(1e-3)
        np.random.seed(1234); random.seed(99); tf.random.set_seed(7)
        os.environ["MUTREAL_TEST_STATE"] = "dirty"
        os.chdir("/")
        sys.argv.append("--extra")
        sys.path.insert(0, "/nonexistent")
        tf.config.run_functions_eagerly(True)
        model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4), keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=1, verbose=0)
        np.random.rand(1000)
        import builtins, io
        builtins.print = lambda *a, **k: None
        sys.stdout = io.StringIO()
        warnings.simplefilter("error")
        """,
    )
    records = run_campaign([first, mutator, again], seeds=[3], jobs=1, progress=False)
    assert [r.outcome for r in records] == ["ok", "ok", "ok"], [r.error_message for r in records]
    one, _, two = records
    assert one.worker == two.worker  # the same warm worker ran all three
    assert one.fits[0].history == two.fits[0].history
    assert one.metric_value == two.metric_value and one.predictions == two.predictions
    # a fresh worker (another campaign) gives the same numbers as the warm one did
    fresh = run_campaign([first], seeds=[3], jobs=1, progress=False)[0]
    assert fresh.worker != one.worker
    assert fresh.fits[0].history == one.fits[0].history and fresh.metric_value == one.metric_value
    # and a different seed gives different numbers (the seed is really applied)
    other = run_campaign([first], seeds=[4], jobs=1, progress=False)[0]
    assert other.fits[0].history != one.fits[0].history


_CAMPAIGN_SCRIPT = """
import sys
from mutreal.execution import run_campaign
run_campaign([sys.argv[1]], runs=6, jobs=1, store=sys.argv[2], progress=False)
"""


def test_sigkill_mid_campaign_then_rerun_trains_nothing_twice(write_program, tiny_program, tmp_path):
    program = write_program("prog.py", tiny_program(epochs=2))
    store = tmp_path / "runs.sqlite"
    driver = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_CAMPAIGN_SCRIPT), str(program), str(store)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 240
    done_before = 0
    while time.monotonic() < deadline and driver.poll() is None:
        time.sleep(0.3)
        if store.exists():
            with sqlite3.connect(store) as db:
                done_before = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            if done_before >= 2:
                break
    assert driver.poll() is None, "the campaign ended before it could be killed"
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    with RunStore(store) as opened:
        before = {r.key: r for r in opened.records()}
    assert 2 <= len(before) < 6
    resumed = execute_campaign([program], runs=6, jobs=1, store=store, progress=False)
    records = resumed.records
    assert len(records) == 6 and all(r.outcome == "ok" for r in records)
    assert resumed.trained == 6 - len(before) and resumed.reused == len(before)
    for record in records:
        if record.key in before:
            assert record.reused and record.finished_at == before[record.key].finished_at
        else:
            assert not record.reused
    # a third run of the same campaign trains nothing
    third = execute_campaign([program], runs=6, jobs=1, store=store, progress=False)
    again = third.records
    assert third.trained == 0 and third.reused == 6 and all(r.reused for r in again)
    assert [r.metric_value for r in again] == [r.metric_value for r in records]
    summary = summarize(again)[0]
    assert summary.n == 6 and summary.n_ok == 6 and summary.std is not None


def test_keep_workers_reuses_warm_workers_across_campaigns(write_program, tiny_program):
    from mutreal.execution.pool import shutdown_idle_workers

    program = write_program("tiny.py", tiny_program(epochs=1))
    try:
        cold = execute_campaign([program], seeds=[0], jobs=1, keep_workers=True, progress=False)
        assert cold.worker_startup_s > 0
        warm = execute_campaign([program], seeds=[1], jobs=1, keep_workers=True, progress=False)
        assert warm.worker_startup_s == 0  # no TensorFlow import the second time
        first, second = cold.records[0], warm.records[0]
        assert second.worker == first.worker and second.worker_run_index == first.worker_run_index + 1
    finally:
        shutdown_idle_workers()


def test_a_flag_defined_by_one_program_is_gone_for_the_next(write_program):
    """absl flags (tf.app.flags) are process-wide: two programs in one warm worker that define the
    same flag (with a short name) both run, each sees its own default, and each finds the flags
    unparsed with absl's own at their defaults, as in a fresh process."""
    text = """
        import sys
        from absl import flags
        assert not flags.FLAGS.is_parsed()
        assert flags.FLAGS["verbosity"].value == flags.FLAGS["verbosity"].default
        flags.DEFINE_string("data_dir", "{value}", "where the data is", short_name="d")
        flags.FLAGS([*sys.argv, "--verbosity=1"])
        print(flags.FLAGS.data_dir)
        assert flags.FLAGS.data_dir == "{value}"
        """
    first = write_program("first.py", text.format(value="/one"))
    second = write_program("second.py", text.format(value="/two"))
    records = run_campaign([first, second], seeds=[0], jobs=1, progress=False)
    assert [r.outcome for r in records] == ["ok", "ok"], [r.error_message for r in records]
    assert records[0].worker == records[1].worker
