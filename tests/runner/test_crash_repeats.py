"""A program that crashes before its first epoch is trained once; its other seeds repeat that crash.

The rules without training: which failures count as "before the first epoch" (only the program's
own, with no epoch, evaluate or training step behind it), which rows train first, and how the
repeated records read to the statistics (the reproduction rule sees a program that fails in every
run, and the row says the runs were not trained). The slow test at the end runs a 5-run campaign,
decides it through the ``mutreal`` entry point and trains the repeated seeds with ``repeat_crashes``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.analysis.reproduction import reproduce_from_records
from mutreal.execution.crash_repeats import after_probes, crashed_before_first_epoch, phases, repeated_crash
from mutreal.execution.plan import CampaignPlan, PlannedRun, PlanStatus, PreparedProgram
from mutreal.execution.records import EvaluateRecord, FitRecord, RunRecord

TRACEBACK = 'Traceback (most recent call last):\n  File "p.py", line 3, in <module>\nValueError: bad\n'


def _crash(**changes) -> RunRecord:
    fields = {"key": "k0", "program": "/b/p.py", "seed": 0, "outcome": "crash", "error_type": "ValueError",
              "error_message": "Unknown activation function: 'nonexistent'", "traceback": TRACEBACK}  # fmt: skip
    return RunRecord(**{**fields, **changes})


def test_only_the_programs_own_failure_before_training_counts() -> None:
    assert crashed_before_first_epoch(_crash())  # an import/build error: no fit at all
    assert crashed_before_first_epoch(_crash(fits=[FitRecord(epochs=0, completed=False)]))  # first batch
    assert crashed_before_first_epoch(_crash(outcome="missing-data", traceback=None))
    assert crashed_before_first_epoch(_crash(error_type="SystemExit", traceback=None))
    assert crashed_before_first_epoch(_crash(steps_outside_fit=1))  # a TF1 initialiser run
    assert not crashed_before_first_epoch(_crash(fits=[FitRecord(epochs=3, completed=False)]))  # mid-training
    assert not crashed_before_first_epoch(_crash(fits=[FitRecord(epochs=2)]))  # after training
    assert not crashed_before_first_epoch(_crash(evaluations=[EvaluateRecord(results={"loss": 1.0})]))
    assert not crashed_before_first_epoch(_crash(steps_outside_fit=40))  # a custom loop had trained
    assert not crashed_before_first_epoch(_crash(error_type="WorkerDied", traceback=None))  # no evidence
    assert not crashed_before_first_epoch(_crash(outcome="timeout"))
    assert not crashed_before_first_epoch(_crash(outcome="ok", traceback=None))
    stored_before = _crash(traceback=TRACEBACK.replace("<module>\n", "<module>\n  File \"t.py\", line 9, in fit\n"))
    assert not crashed_before_first_epoch(stored_before)  # failed in fit, yet no fit record: an older record


def _plan(programs: dict[str, str], seeds: int, done: dict[str, RunRecord] | None = None) -> CampaignPlan:
    runs = []
    for name, text_hash in programs.items():
        program = PreparedProgram(Path(f"/b/{name}"), "", text_hash, "d")
        for seed in range(seeds):
            key = f"{name}-{seed}"
            stored = (done or {}).get(key)
            runs.append(PlannedRun(key, program, seed, PlanStatus.DONE if stored else PlanStatus.PLANNED, stored))
    return CampaignPlan("plan", runs, "env", "config", 1024.0)


class _Bar:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str, file=None) -> None:
        self.lines.append(text)


def test_one_row_per_program_trains_first_and_a_crash_is_repeated_for_the_rest() -> None:
    plan = _plan({"broken.py": "h1", "fine.py": "h2"}, seeds=5)
    first, later = phases(plan, plan.runs, {}, repeat_crashes=False)
    assert [r.key for r in first] == ["broken.py-0", "fine.py-0"]
    assert len(later) == 8
    records = {"broken.py-0": _crash(key="broken.py-0"), "fine.py-0": RunRecord("fine.py-0", "/b/fine.py", 0, "ok")}
    kept: list[RunRecord] = []
    bar = _Bar()
    remaining = after_probes(plan, later, records, "c1", bar, kept.append)
    assert [r.key for r in remaining] == [f"fine.py-{s}" for s in range(1, 5)]
    assert [r.key for r in kept] == [f"broken.py-{s}" for s in range(1, 5)]
    repeated = kept[2]
    assert (repeated.seed, repeated.repeated_from, repeated.outcome, repeated.error_type) == (3, "broken.py-0",
                                                                                            "crash", "ValueError")  # fmt: skip
    assert len(bar.lines) == 1 and "--repeat-crashes" in bar.lines[0]


def test_repeat_crashes_trains_every_row_and_a_stored_crash_needs_no_probe() -> None:
    plan = _plan({"broken.py": "h1"}, seeds=3)
    assert phases(plan, plan.runs, {}, repeat_crashes=True) == (plan.to_train(plan.runs), [])
    stored = {"broken.py-0": _crash(key="broken.py-0")}
    plan = _plan({"broken.py": "h1"}, seeds=3, done=stored)
    first, later = phases(plan, plan.runs, dict(stored), repeat_crashes=False)
    assert first == [] and [r.key for r in later] == ["broken.py-1", "broken.py-2"]


def test_the_reproduction_rule_reads_repeated_crashes_as_failures_and_says_so() -> None:
    plan = _plan({"buggy.py": "h1"}, seeds=5)
    crash = _crash(key="buggy.py-0", program="/b/buggy.py")
    buggy = [crash, *(repeated_crash(run, crash, "c1") for run in plan.runs[1:])]
    fixed = [RunRecord(f"f{s}", "/b/fixed.py", s, "ok", metric_name="accuracy", metric_value=0.9,
                       evaluations=[EvaluateRecord(results={"accuracy": 0.9})]) for s in range(5)]  # fmt: skip
    report = reproduce_from_records(buggy, fixed)
    verdict = report.verdict
    assert verdict.symptom == "crash" and verdict.reproduced and verdict.stable
    assert verdict.failed_buggy == 5 and verdict.failed_fixed == 0
    assert "4 of its 5 runs repeat that crash, not trained" in verdict.reason
    assert "buggy.py crashed before its first epoch in seed 0 (ValueError" in verdict.reason
    data = report.to_dict()
    assert data["buggy"]["repeated"] == 4 and data["fixed"]["repeated"] == 0


@pytest.mark.slow
def test_a_program_that_crashes_at_build_is_trained_once_in_a_five_run_campaign(
    write_program, tiny_program, tmp_path
):
    from mutreal.execution import execute_campaign
    from mutreal.execution.store import RunStore

    broken = write_program("broken.py", tiny_program(1).replace('activation="relu"', 'activation="nonexistent"'))
    fine = write_program("fine.py", "import numpy as np\nprint(np.random.default_rng().normal())\n")
    store = tmp_path / "runs.sqlite"
    result = execute_campaign([broken, fine], runs=5, jobs=1, progress=False, store=store)
    assert result.trained == 6  # broken once, fine five times
    by_program: dict[str, list[RunRecord]] = {}
    for record in result.records:
        by_program.setdefault(Path(record.program).name, []).append(record)
    broken_runs = by_program["broken.py"]
    assert [r.outcome for r in broken_runs] == ["crash"] * 5
    assert [r.repeated_from for r in broken_runs] == [None] + [broken_runs[0].key] * 4
    assert all("nonexistent" in (r.error_message or "") for r in broken_runs)
    assert [r.outcome for r in by_program["fine.py"]] == ["ok"] * 5
    with RunStore(store) as opened:  # stored like trained runs: every plan row is done, resumable
        assert sorted(r.repeated_from is not None for r in opened.records()) == [False] * 6 + [True] * 4
    # the verdict through the entry point, from the stored runs: the reason says what was not trained
    done = subprocess.run([sys.executable, "-m", "mutreal", "reproduce", str(broken), str(fine), "--runs", "5",
                           "--jobs", "1", "--store", str(store), "--json", "-q"], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2] / "src")))  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    verdict = json.loads(done.stdout)
    assert verdict["symptom"] == "crash" and verdict["reproduced"] and verdict["buggy"]["repeated"] == 4
    assert "broken.py crashed before its first epoch in seed 0 (ValueError" in verdict["reason"]
    assert "4 of its 5 runs repeat that crash, not trained" in verdict["reason"]
    again = execute_campaign([broken], runs=5, jobs=1, progress=False, store=store, repeat_crashes=True)
    assert (again.trained, again.reused) == (4, 1)  # --repeat-crashes trains the repeated seeds for real
    assert all(r.repeated_from is None and r.outcome == "crash" for r in again.records)
