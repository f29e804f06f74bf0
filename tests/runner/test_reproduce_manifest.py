"""``mutreal reproduce --manifest``: a benchmark in, one decided JSON line per bug out.

Own small bugs (numpy only, so each run takes milliseconds) with the shapes real benchmarks have:
a crash that the fix removes while the fixed program ends without evaluate, a missing program, a
program whose data is not there, two versions that crash on a removed numpy API, and a bug that is
not reproduced. Run through the command line, then resumed.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.campaigns.reproduce import (
    ManifestError,
    _missing_data,
    _removed_api_failure,
    already_decided,
    entry_program,
    read_reproduce_manifest,
)
from mutreal.execution.records import RunRecord

ROOT = Path(__file__).parents[2]

PROGRAMS = {
    "crash/buggy.py": "import numpy as np\nw = np.zeros((4, 2))\nprint((np.zeros((4, 3)) @ w).sum())\n",
    "crash/fixed.py": "import numpy as np\nw = np.zeros((3, 2))\nprint((np.zeros((4, 3)) @ w).sum())\n",
    "data/buggy.py": "import numpy as np\nx = np.loadtxt('points.csv')\nprint(x.sum())\n",
    "data/fixed.py": "import numpy as np\nx = np.loadtxt('points.csv', ndmin=2)\nprint(x.sum())\n",
    "legacy/buggy.py": "import numpy as np\nx = np.zeros(3, dtype=np.float)\nprint((x @ np.zeros((2, 2))).sum())\n",
    "legacy/fixed.py": "import numpy as np\nx = np.zeros(3, dtype=np.float)\nprint((x @ np.zeros((3, 2))).sum())\n",
    "same/buggy.py": "import numpy as np\nprint(np.ones(3).sum())\n",
    "same/fixed.py": "import numpy as np\nprint(np.ones(3).mean())\n",
}
BUGS = [
    ("crash", "crash/buggy.py", "crash/fixed.py", "crash"),
    ("no-program", "crash/buggy.py", "gone/fixed.py", ""),
    ("no-data", "data/buggy.py", "data/fixed.py", ""),
    ("legacy", "legacy/buggy.py", "legacy/fixed.py", "crash"),
    ("same", "same/buggy.py", "same/fixed.py", "crash"),
]


def _benchmark(tmp_path: Path) -> Path:
    for name, text in PROGRAMS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    manifest = tmp_path / "manifest.csv"
    with open(manifest, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "benchmark", "buggy", "fixed", "symptom"])
        for bug_id, buggy, fixed, symptom in BUGS:
            writer.writerow([bug_id, "own", buggy, fixed, symptom])
    return manifest


def _reproduce(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mutreal", "reproduce", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
    )  # fmt: skip


@pytest.mark.slow
def test_a_benchmark_is_decided_bug_by_bug_and_resumes(tmp_path):
    _benchmark(tmp_path)
    # as written (--framework as-is): the legacy bug stops on the removed API and is retried modernized
    args = ["--manifest", "manifest.csv", "--out", "rows.jsonl", "--runs", "2", "--jobs", "1",
            "--store", "runs.sqlite", "--framework", "as-is", "-q"]  # fmt: skip
    first = _reproduce(tmp_path, *args)
    assert first.returncode == 1, first.stderr[-3000:]  # two bugs are not decided: exit 1, the rest goes on
    rows = {r["id"]: r for r in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())}
    assert list(rows) == [bug[0] for bug in BUGS]

    crash = rows["crash"]
    assert crash["status"] == "ok" and crash["reproduced"] is True and crash["stable"] is True
    assert crash["fixed"]["outcomes"] == {"ok": 2} and crash["buggy"]["outcomes"] == {"crash": 2}

    assert rows["no-program"]["status"] == "error" and "gone/fixed.py" in rows["no-program"]["error"]

    assert rows["no-data"]["status"] == "missing-data"
    assert rows["no-data"]["missing"].endswith("points.csv") and rows["no-data"]["reproduced"] is None

    legacy = rows["legacy"]
    assert legacy["version_problem"]["error_type"] == "AttributeError"
    assert legacy["version_problem"]["first_try"]["reproduced"] is False
    assert legacy["version_problem"]["resolved"] is True
    assert legacy["reproduced"] is True and legacy["fixed"]["outcomes"] == {"ok": 2}

    assert rows["same"]["status"] == "ok" and rows["same"]["reproduced"] is False

    # resume: a line cut short by an interruption is decided again, the others are kept as they are
    kept = (tmp_path / "rows.jsonl").read_text().splitlines()
    (tmp_path / "rows.jsonl").write_text("\n".join(kept[:-1]) + "\n" + kept[-1][:20])
    again = _reproduce(tmp_path, *args)
    assert again.returncode == 1  # the kept rows of the undecided bugs still count
    lines = (tmp_path / "rows.jsonl").read_text().splitlines()
    assert lines[: len(kept) - 1] == kept[:-1]  # kept as they were, nothing trained again for them
    assert json.loads(lines[-1])["id"] == "same" and len(lines) == len(kept)


def test_manifest_errors_are_usage_errors(tmp_path):
    (tmp_path / "bad.csv").write_text("name,path\nx,y\n")
    result = _reproduce(tmp_path, "--manifest", "bad.csv")
    assert result.returncode == 2 and "lacks column(s) buggy, fixed, id" in result.stderr  # the one reader's message
    result = _reproduce(tmp_path, "--manifest", "nope.csv")
    assert result.returncode == 2
    with pytest.raises(ManifestError, match="symptom"):
        (tmp_path / "sym.csv").write_text("id,buggy,fixed,symptom\na,b.py,c.py,slow\n")
        read_reproduce_manifest(tmp_path / "sym.csv")


def test_entry_program_of_a_side_with_several_files(tmp_path):
    (tmp_path / "util.py").write_text("def load():\n    return 1\n")
    (tmp_path / "train.py").write_text("from util import load\nmodel.fit(load(), epochs=1)\n")
    (tmp_path / "other.py").write_text("model.fit_generator(gen)\n")
    files = [str(tmp_path / n) for n in ("util.py", "train.py")]
    assert entry_program(files) == str(tmp_path / "train.py")
    with pytest.raises(ValueError, match="entry"):
        entry_program(files + [str(tmp_path / "other.py")])
    assert entry_program(files + [str(tmp_path / "other.py")], "other.py") == str(tmp_path / "other.py")


def test_resume_decides_again_the_bugs_whose_runs_were_lost(tmp_path):
    out = tmp_path / "rows.jsonl"
    rows = [{"id": "a", "status": "ok"}, {"id": "b", "status": "lost"}, {"id": "c", "status": "error"}]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"id": "d", "sta')
    assert already_decided(out) == {"a": "ok", "c": "error"}
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", "c"]


def test_no_verdict_is_drawn_from_lost_runs():
    from mutreal.analysis.reproduction import reproduce_from_records
    from mutreal.analysis.series import LostRuns

    def runs(program: str, outcomes: list[str]) -> list[RunRecord]:
        return [RunRecord(key=f"{program}{i}", program=program, seed=i, outcome=o, metric_value=0.9 if o == "ok" else None,
                          error_message="the worker service went away" if o == "lost" else None)
                for i, o in enumerate(outcomes)]  # fmt: skip

    with pytest.raises(LostRuns, match="1 run.*lost.*service went away.*again"):
        reproduce_from_records(runs("b.py", ["crash", "lost"]), runs("f.py", ["ok", "ok"]), symptom="crash")


@pytest.mark.slow
def test_both_sides_on_different_removed_apis_are_retried_modernized(tmp_path):
    # a fix that also touched the legacy line: both versions stop on a removed numpy alias, each on
    # its own (np.float vs np.int), before the shape fault is reached
    (tmp_path / "buggy.py").write_text(
        "import numpy as np\nx = np.zeros(3, dtype=np.float)\nprint((x @ np.zeros((2, 2))).sum())\n"
    )
    (tmp_path / "fixed.py").write_text(
        "import numpy as np\nx = np.zeros(3, dtype=np.int)\nprint((x @ np.zeros((3, 2))).sum())\n"
    )
    (tmp_path / "manifest.csv").write_text("id,buggy,fixed,symptom\ndiffer,buggy.py,fixed.py,crash\n")
    result = _reproduce(tmp_path, "--manifest", "manifest.csv", "--out", "rows.jsonl", "--runs", "2",
                        "--jobs", "1", "--framework", "as-is", "-q")  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    row = json.loads((tmp_path / "rows.jsonl").read_text())
    problem = row["version_problem"]
    assert problem is not None and problem["first_try"]["reproduced"] is False
    assert "float" in problem["error"] and "int" in problem["fixed_error"]
    assert problem["resolved"] is True
    assert row["reproduced"] is True and row["fixed"]["outcomes"] == {"ok": 2}


@pytest.mark.slow
def test_by_default_a_removed_api_is_rewritten_before_the_first_try(tmp_path):
    """The default (--framework auto) runs each program rewritten for today: no version problem, no retry."""
    for name in ("legacy/buggy.py", "legacy/fixed.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(PROGRAMS[name])
    (tmp_path / "manifest.csv").write_text("id,buggy,fixed,symptom\nlegacy,legacy/buggy.py,legacy/fixed.py,crash\n")
    result = _reproduce(tmp_path, "--manifest", "manifest.csv", "--out", "rows.jsonl", "--runs", "2",
                        "--jobs", "1", "--store", "runs.sqlite", "-q")  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    row = json.loads((tmp_path / "rows.jsonl").read_text())
    assert row["version_problem"] is None and row["reproduced"] is True
    assert row["fixed"]["outcomes"] == {"ok": 2} and row["buggy"]["outcomes"] == {"crash": 2}
    from mutreal.execution.store import RunStore

    with RunStore(tmp_path / "runs.sqlite") as store:
        records = list(store.records())
    assert len(records) == 4
    for record in records:  # each stored run says what ran
        assert record.rewrites == ["line 2: numpy alias: np.float -> float"] and record.framework == "keras3"


def _crashes(program: str, error_type: str, message: str) -> list[RunRecord]:
    return [RunRecord(key=f"{program}{seed}", program=program, seed=seed, outcome="crash",
                      error_type=error_type, error_message=message) for seed in range(2)]  # fmt: skip


def test_which_crashes_count_as_a_version_problem():
    keras3 = "A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is ..."
    assert _removed_api_failure(_crashes("b.py", "ValueError", keras3)) == ("ValueError", keras3)
    lr = "Argument(s) not recognized: {'lr': 0.01}"
    assert _removed_api_failure(_crashes("b.py", "ValueError", lr)) is not None
    weights = "When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in `.weights.h5`"
    assert _removed_api_failure(_crashes("b.py", "ValueError", weights)) is not None
    units = "Received an invalid value for `units`, expected a positive integer. Received: units=150"
    assert _removed_api_failure(_crashes("b.py", "ValueError", units)) is not None
    shape = "Arguments `target` and `output` must have the same rank (ndim)."
    assert _removed_api_failure(_crashes("b.py", "ValueError", shape)) is None  # the fault itself
    mixed = _crashes("b.py", "ValueError", lr)[:1] + _crashes("b.py", "ValueError", shape)[1:]
    assert _removed_api_failure(mixed) is None


@pytest.mark.parametrize("rewritten", [True, False])
def test_a_removed_api_no_rewrite_repairs_is_a_version_problem(rewritten):
    """Rewritten for its era already (the default), a removed API both sides stop on is recorded as a
    version problem without a retry; run as written, it is retried once with --modernize."""
    from mutreal.campaigns.reproduce import ReproduceTask, reproduce_trained

    contrib = "module 'tensorflow' has no attribute 'contrib'"
    asked: list[dict] = []

    def train(programs, changes):
        asked.append(changes)
        return [_crashes(program, "AttributeError", contrib) for program in programs]

    task = ReproduceTask(id="b", benchmark=None, buggy=["b.py"], fixed=["f.py"], symptom="crash")
    row = reproduce_trained(task, "b.py", "f.py", train, modernized=rewritten)
    problem = row.version_problem
    assert problem["error_type"] == "AttributeError" and problem["error"] == contrib
    assert problem["resolved"] is False and row.reproduced is False
    if rewritten:
        assert asked == [{}] and problem["after_era_rewrites"] is True and problem["first_try"] is None
    else:
        assert asked == [{}, {"modernize": True}] and problem["first_try"]["reproduced"] is False


def test_the_missing_dataset_path_is_the_one_to_place():
    offline = [RunRecord(key="k", program="p.py", seed=0, outcome="missing-data", error_type="MissingDatasetError",
                         error_message="dataset file 'mnist.npz' is not available offline: place it at "
                         "/home/u/.keras/datasets/mnist.npz (downloaded from https://example.org/mnist.npz)")]  # fmt: skip
    assert _missing_data(offline) == "/home/u/.keras/datasets/mnist.npz"
    absent = [RunRecord(key="k", program="p.py", seed=0, outcome="missing-data", error_type="FileNotFoundError",
                        error_message="[Errno 2] No such file or directory: '../data/train.csv'")]  # fmt: skip
    assert _missing_data(absent) == "../data/train.csv"


def test_runs_stopped_at_a_limit_give_no_verdict():
    """A fixed side cut at the time limit is not a fixed side that crashes: no verdict, the row says why."""
    from mutreal.campaigns.reproduce import ReproduceTask, reproduce_trained

    def runs(program, outcomes):
        return [RunRecord(key=f"{program}{i}", program=program, seed=i, outcome=o,
                          error_type="ValueError" if o == "crash" else None,
                          error_message="shapes (3,) and (4,) not aligned" if o == "crash" else None)
                for i, o in enumerate(outcomes)]  # fmt: skip

    task = ReproduceTask(id="b", benchmark=None, buggy=["b.py"], fixed=["f.py"], symptom="crash")
    cut = reproduce_trained(task, "b.py", "f.py",
                            lambda programs, changes: [runs("b.py", ["crash"] * 5),
                                                       runs("f.py", ["ok", "timeout", "ok", "memory", "timeout"])],
                            modernized=True)  # fmt: skip
    assert cut.status == "limit" and cut.reproduced is None
    assert "3 of 5 fixed runs" in cut.error and "time limit" in cut.error and "memory limit" in cut.error
    assert "buggy" not in cut.error.split("were stopped")[0]  # no buggy run was stopped
    whole = reproduce_trained(task, "b.py", "f.py",
                              lambda programs, changes: [runs("b.py", ["crash"] * 5), runs("f.py", ["ok"] * 5)],
                              modernized=True)  # fmt: skip
    assert whole.status == "ok" and whole.error is None


def test_resume_decides_again_the_bugs_stopped_at_a_limit(tmp_path):
    out = tmp_path / "rows.jsonl"
    out.write_text("".join(json.dumps({"id": i, "status": s}) + "\n" for i, s in
                           (("a", "ok"), ("b", "limit"), ("c", "missing-data"))))  # fmt: skip
    assert already_decided(out) == {"a": "ok", "c": "missing-data"}
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", "c"]
