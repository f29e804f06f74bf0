"""The crash rule asks whether a run ended abnormally, not whether it left a metric.

Real benchmark programs often end without an ``evaluate`` call: a fixed program that runs to its
end (outcome ``ok``, metric null) did not fail. Counted as failed, it hid 4 of 8 SFData bugs that the
study reproduced as crashes.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.stats.reproduction import reproduction_verdict

ROOT = Path(__file__).parents[2]
NAN = math.nan


def test_completed_runs_without_metric_are_not_failures_of_the_crash_rule():
    verdict = reproduction_verdict(
        [NAN] * 5, [NAN] * 5, crashed_buggy=[True] * 5, crashed_fixed=[False] * 5, symptom="crash"
    )
    assert verdict.reproduced and verdict.stable
    assert verdict.to_dict()["failed_buggy"] == 5 and verdict.to_dict()["failed_fixed"] == 0


def test_auto_picks_crash_from_the_crash_flags_alone():
    verdict = reproduction_verdict(
        [NAN] * 4, [NAN] * 4, crashed_buggy=[True] * 4, crashed_fixed=[False] * 4, symptom="auto"
    )
    assert verdict.symptom == "crash" and verdict.reproduced


def test_without_crash_flags_a_missing_metric_still_counts_as_failed():
    verdict = reproduction_verdict([NAN] * 4, [0.9, 0.8, 0.9, 0.85], symptom="crash")
    assert verdict.reproduced and verdict.to_dict()["failed_buggy"] == 4


def test_a_fixed_program_that_crashes_too_is_not_a_reproduction():
    verdict = reproduction_verdict(
        [NAN] * 4, [NAN] * 4, crashed_buggy=[True] * 4, crashed_fixed=[True] * 4, symptom="crash"
    )
    assert not verdict.reproduced and verdict.to_dict()["failed_fixed"] == 4


BUGGY = "import numpy as np\nx = np.zeros((4, 3))\nw = np.zeros((4, 2))\nprint((x @ w).sum())\n"
FIXED = "import numpy as np\nx = np.zeros((4, 3))\nw = np.zeros((3, 2))\nprint((x @ w).sum())\n"


@pytest.mark.slow
def test_reproduce_command_on_a_fix_that_ends_without_evaluate(tmp_path):
    (tmp_path / "buggy.py").write_text(BUGGY)
    (tmp_path / "fixed.py").write_text(FIXED)
    result = subprocess.run(
        [sys.executable, "-m", "mutreal", "reproduce", "buggy.py", "fixed.py", "--runs", "2",
         "--symptom", "crash", "--json", "--store", "runs.sqlite", "--jobs", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    data = json.loads(result.stdout)
    assert data["fixed"]["outcomes"] == {"ok": 2} and data["buggy"]["outcomes"] == {"crash": 2}
    assert data["reproduced"] is True and data["stable"] is True
    assert data["failed_fixed"] == 0 and data["failed_buggy"] == 2
