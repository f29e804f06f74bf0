"""A benchmark stopped by a signal (Ctrl-C, or a scheduler's SIGTERM) and then run again.

``reproduce --manifest`` and ``compare --manifest`` are started as real subprocesses on a manifest of
own small bugs. Once the first bug's line is in the output file the command gets SIGINT (or
SIGTERM): it must end with one clear line and no traceback, leave only whole lines in the output and
a store that opens. The same command again must finish every bug, keep the runs stored before the
signal (same key, same finish time: not trained again) and reach the verdicts of a run that was
never interrupted.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]

#: numpy-only bugs; the pause makes each run last long enough for a signal to land between bugs
PAUSE = "import time\ntime.sleep(0.6)\n"
PROGRAMS = {
    "shape/buggy.py": PAUSE + "import numpy as np\nprint((np.zeros((4, 3)) @ np.zeros((4, 2))).sum())\n",
    "shape/fixed.py": PAUSE + "import numpy as np\nprint((np.zeros((4, 3)) @ np.zeros((3, 2))).sum())\n",
    "index/buggy.py": PAUSE + "import numpy as np\nprint(np.arange(3)[5])\n",
    "index/fixed.py": PAUSE + "import numpy as np\nprint(np.arange(3)[2])\n",
    "same/buggy.py": PAUSE + "import numpy as np\nprint(np.ones(3).sum())\n",
    "same/fixed.py": PAUSE + "import numpy as np\nprint(np.ones(3).mean())\n",
}
BUGS = ["shape", "index", "same"]
EXPECTED = {"shape": True, "index": True, "same": False}
#: one mutant of each fixed program, written beforehand (``compare --mutants DIR``)
MUTANTS = {
    "mutants/shape/m1.py": PAUSE + "import numpy as np\nprint((np.zeros((4, 3)) @ np.zeros((2, 2))).sum())\n",
    "mutants/index/m1.py": PAUSE + "import numpy as np\nprint(np.arange(3)[1])\n",
    "mutants/same/m1.py": PAUSE + "import numpy as np\nprint(np.ones(3).max())\n",
}


def _benchmark(folder: Path) -> None:
    for name, text in {**PROGRAMS, **MUTANTS}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    with open(folder / "manifest.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "benchmark", "buggy", "fixed", "symptom"])
        for bug in BUGS:
            writer.writerow([bug, "own", f"{bug}/buggy.py", f"{bug}/fixed.py", "crash"])


def _command(*args: str, verb: str = "reproduce") -> list[str]:
    return [sys.executable, "-m", "mutreal", verb, "--manifest", "manifest.csv", *args]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT / "src"))


REPRODUCE = ["--out", "rows.jsonl", "--store", "runs.sqlite", "--runs", "2", "--jobs", "1", "-q"]


def _stored_runs(store: Path) -> dict[str, tuple[str, str]]:
    """Key -> (finish time, outcome) of every stored run, read with plain sqlite (the store must open)."""
    with sqlite3.connect(store) as db:
        return {key: (finished, outcome) for key, finished, outcome in db.execute(
            "SELECT key, finished_at, outcome FROM runs")}  # fmt: skip


def _plans(store: Path) -> dict[str, list[tuple[str, str, str]]]:
    """Plan id -> (bug, run key, status) of its rows in plan order, read with plain sqlite."""
    plans: dict[str, list[tuple[str, str, str]]] = {}
    with sqlite3.connect(store) as db:
        for plan_id, *row in db.execute(
            "SELECT plan_id, group_id, key, status FROM plan ORDER BY plan_id, position"
        ):
            plans.setdefault(plan_id, []).append(tuple(row))
    return plans


def _assert_plans_match_the_runs(store: Path, runs_per_bug: int, finished: bool) -> dict[str, list[tuple[str, str, str]]]:
    """The benchmark wrote one plan of every bug's runs, in manifest order, before training: after a
    signal that cut the benchmark short the bugs never started are planned too. A row is done
    exactly when its run is stored with a verdict. ``finished``: every row is done."""
    plans, runs = _plans(store), _stored_runs(store)
    assert len(plans) == 1, "one plan for the whole benchmark"
    (rows,) = plans.values()
    assert [bug for bug, _, _ in rows] == [bug for bug in BUGS for _ in range(runs_per_bug)]
    for _, key, status in rows:
        assert status in ("planned", "done", "lost")
        assert (status == "done") == (key in runs and runs[key][1] != "lost"), (key, status, runs.get(key))
        if finished:
            assert status == "done"
    return plans


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(folder: Path, command: list[str], out: Path, sig: signal.Signals) -> subprocess.CompletedProcess:
    """Start ``command``, wait for the first whole line of ``out``, send ``sig``, collect the result."""
    # A shell starts background jobs with SIGINT ignored (a CI script run with `&`, nohup), and Python
    # then installs no Ctrl-C handler: the child gets SIGINT's default back, as a terminal gives it.
    process = subprocess.Popen(command, cwd=folder, env=_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)  # fmt: skip
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and process.poll() is None:
        if out.is_file() and out.read_text().endswith("\n"):
            break
        time.sleep(0.05)
    assert process.poll() is None, "the command ended before the first line: nothing to interrupt"
    process.send_signal(sig)
    stdout, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _assert_clean_stop(result: subprocess.CompletedProcess, out: Path) -> list[dict]:
    assert result.returncode != 0, "an interrupted benchmark does not report success"
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert "interrupted" in result.stderr and "again to resume" in result.stderr, result.stderr[-3000:]
    text = out.read_text()
    assert text.endswith("\n"), "the output holds only whole lines"
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_reproduce_stopped_by_a_signal_resumes_without_training_again(tmp_path, sig):
    _benchmark(tmp_path)
    out, store = tmp_path / "rows.jsonl", tmp_path / "runs.sqlite"
    stopped = _interrupt(tmp_path, _command(*REPRODUCE), out, sig)
    kept = _assert_clean_stop(stopped, out)
    assert 1 <= len(kept) < len(BUGS), "the signal landed between the first and the last bug"
    before = _stored_runs(store)
    # runs that completed before the signal are kept; runs the signal cut short are lost (no verdict)
    completed = {key: run for key, run in before.items() if run[1] != "lost"}
    assert len(completed) >= 2 * 2 * len(kept)  # 2 programs x 2 seeds for each written bug
    planned = _assert_plans_match_the_runs(store, 2 * 2, finished=False)

    again = subprocess.run(_command(*REPRODUCE), cwd=tmp_path, env=_env(), capture_output=True,
                           text=True, timeout=600)  # fmt: skip
    assert again.returncode == 0, again.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == BUGS and rows[: len(kept)] == kept
    after = _stored_runs(store)
    assert len(after) == 2 * 2 * len(BUGS)  # every bug's 2 programs x 2 seeds, each trained once
    assert {key: after[key] for key in completed} == completed  # completed runs were not trained again
    assert all(run[1] != "lost" for run in after.values())  # the lost ones were trained again
    resumed = _assert_plans_match_the_runs(store, 2 * 2, finished=True)
    assert set(resumed) == set(planned)  # the benchmark's plan was resumed, not planned again

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    _benchmark(fresh)
    whole = subprocess.run(_command("--out", "rows.jsonl", "--runs", "2", "--jobs", "1", "-q"),
                           cwd=fresh, env=_env(), capture_output=True, text=True, timeout=600)  # fmt: skip
    assert whole.returncode == 0, whole.stderr[-3000:]
    uninterrupted = [json.loads(line) for line in (fresh / "rows.jsonl").read_text().splitlines()]
    verdicts = {r["id"]: (r["reproduced"], r["stable"]) for r in rows}
    assert verdicts == {r["id"]: (r["reproduced"], r["stable"]) for r in uninterrupted}
    assert {bug: verdicts[bug][0] for bug in BUGS} == EXPECTED


COMPARE = ["--mutants", "mutants", "--out", "rows.jsonl", "--store", "runs.sqlite", "--runs", "2", "--jobs", "1", "-q"]


@pytest.mark.slow
def test_compare_stopped_by_sigint_resumes_its_plans_without_training_again(tmp_path):
    """``compare --manifest`` through the installed entry point: buggy, fixed and one mutant per bug
    (3 programs x 2 seeds per bug, one plan). After SIGINT the rows written stay, the next start resumes
    the benchmark's plan, and every run completed before the signal keeps its finish time."""
    _benchmark(tmp_path)
    out, store = tmp_path / "rows.jsonl", tmp_path / "runs.sqlite"
    stopped = _interrupt(tmp_path, _command(*COMPARE, verb="compare"), out, signal.SIGINT)
    kept = _assert_clean_stop(stopped, out)
    assert 1 <= len(kept) < len(BUGS), "the signal landed between the first and the last bug"
    completed = {key: run for key, run in _stored_runs(store).items() if run[1] != "lost"}
    assert len(completed) >= 3 * 2 * len(kept)
    planned = _assert_plans_match_the_runs(store, 3 * 2, finished=False)

    again = subprocess.run(_command(*COMPARE, verb="compare"), cwd=tmp_path, env=_env(), capture_output=True,
                           text=True, timeout=600)  # fmt: skip
    assert "Traceback" not in again.stderr, again.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == BUGS and rows[: len(kept)] == kept
    after = _stored_runs(store)
    assert len(after) == 3 * 2 * len(BUGS)  # every run of every bug, each stored once
    assert {key: after[key] for key in completed} == completed  # not trained again
    assert all(run[1] != "lost" for run in after.values())
    resumed = _assert_plans_match_the_runs(store, 3 * 2, finished=True)
    assert set(resumed) == set(planned)
    # the numpy programs report no metric: each row says so, the same way for every bug
    assert {r["status"] for r in rows} == {"error"} and all("no successful run" in r["error"] for r in rows)
    assert [r["buggy"]["outcomes"] for r in rows] == [{"crash": 2}, {"crash": 2}, {"ok": 2}]
