"""A benchmark is one campaign with one stored plan: every bug x program x seed before anything trains.

Most tests here point the executor at a worker service that does not exist (as test_resume_rules.py
does): any attempt to train fails at once, so what the benchmark *would* train is seen through the
real planning and execution code, with no model and no worker. The runs a start finds are written
into the store as a finished campaign would have left them. A real interruption of a training
benchmark, and its resumption, is in test_manifest_signals.py.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mutreal.campaigns.reproduce import ReproduceTask, read_reproduce_manifest, reproduce_manifest
from mutreal.execution import CampaignConfig, RunRecord, RunStore
from mutreal.execution.store import SCHEMA_VERSION

#: own programs with the shapes of a benchmark: a crash the fix removes, a bug not reproduced, and
#: two versions stopping on a numpy alias removed since (a version problem: retried modernized)
PROGRAMS = {
    "crash/buggy.py": "import numpy as np\nprint((np.zeros((4, 3)) @ np.zeros((4, 2))).sum())\n",
    "crash/fixed.py": "import numpy as np\nprint((np.zeros((4, 3)) @ np.zeros((3, 2))).sum())\n",
    "legacy/buggy.py": "import numpy as np\nx = np.zeros(3, dtype=np.float)\nprint((x @ np.zeros((2, 2))).sum())\n",
    "legacy/fixed.py": "import numpy as np\nx = np.zeros(3, dtype=np.float)\nprint((x @ np.zeros((3, 2))).sum())\n",
    "same/buggy.py": "import numpy as np\nprint(np.ones(3).sum())\n",
    "same/fixed.py": "import numpy as np\nprint(np.ones(3).mean())\n",
}
BUGS = ["crash", "legacy", "same"]
SEEDS = [0, 1]
REMOVED = ("AttributeError", "module 'numpy' has no attribute 'float'.")


def _benchmark(folder: Path) -> list[ReproduceTask]:
    for name, text in PROGRAMS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    lines = ["id,benchmark,buggy,fixed,symptom"] + [f"{b},own,{b}/buggy.py,{b}/fixed.py,crash" for b in BUGS]
    (folder / "manifest.csv").write_text("\n".join(lines) + "\n")
    return read_reproduce_manifest(folder / "manifest.csv")


def _no_service(tmp_path: Path, store: Path) -> dict:
    """Campaign options whose executor is a worker service that does not exist: training fails. The
    programs run as written (``--framework as-is``), so a removed API is a version problem retried."""
    config = CampaignConfig(jobs=1, threads_per_worker=1, executor="pool", address=str(tmp_path / "none.sock"),
                            memory_limit_mb=4096.0, timeout_s=None, framework="as-is")  # fmt: skip
    return {"config": config, "store": str(store), "progress": False}


def _plan(store: Path) -> list[tuple]:
    """Every plan row (plan id, position, group, key, program, seed, status, campaign), plain sqlite."""
    with sqlite3.connect(store) as db:
        return list(db.execute("SELECT plan_id, position, group_id, key, program, seed, status, campaign_id "
                               "FROM plan ORDER BY plan_id, position"))  # fmt: skip


def _finish(store: Path, rows: list[tuple]) -> None:
    """Store each row's run as its program would end: buggy crash on the shape, legacy on np.float
    unless modernized, anything else ok (what a finished campaign leaves)."""
    with RunStore(store) as runs:
        for _, _, _, key, program, seed, _, campaign in rows:
            side, bug = Path(program).stem, Path(program).parent.name
            modernized = campaign.endswith("-modernize")
            if bug == "legacy" and not modernized:
                outcome, (kind, message) = "crash", REMOVED
            elif side == "buggy" and bug in ("crash", "legacy"):
                outcome, kind, message = "crash", "ValueError", "matmul: mismatch in its core dimension 0"
            else:
                outcome, kind, message = "ok", None, None
            runs.put(RunRecord(key=key, program=program, seed=seed, outcome=outcome, program_hash="ph",
                               error_type=kind, error_message=message, campaign_id=campaign,
                               finished_at="2026-01-01T00:00:00+00:00"), plan_id=rows[0][0], plan_status="done")  # fmt: skip


def test_the_whole_benchmark_is_planned_and_a_resumed_one_trains_nothing_twice(tmp_path: Path) -> None:
    """Start 1 cannot train at all, yet the store holds one plan of every bug x program x seed, in
    manifest order, each row naming its bug. With those runs stored, start 2 finds the same plan,
    decides every bug from the store (no service exists: training anything would be an error row)
    and adds the legacy bug's modernized retry to the plan; start 3, resumed from ``--out`` (the
    first bug skipped), finds the same plan again with the retry's rows where they were."""
    tasks = _benchmark(tmp_path)
    store = tmp_path / "runs.sqlite"
    at_start: dict[str, list[tuple]] = {}

    def on_start(task: ReproduceTask) -> None:  # called just before the bug trains
        at_start[task.id] = _plan(store)

    first = list(reproduce_manifest(tasks, seeds=SEEDS, campaign=_no_service(tmp_path, store), on_start=on_start))
    assert [r.status for r in first] == ["error"] * 3 and "service" in first[0].error
    planned = _plan(store)
    assert len({row[0] for row in planned}) == 1, "one plan for the whole benchmark"
    assert [row[:6] for row in at_start["crash"]] == [row[:6] for row in planned]  # before the first bug
    assert {row[6] for row in at_start["crash"]} == {"planned"}
    assert [row[1] for row in planned] == list(range(12))
    assert [row[2] for row in planned] == [bug for bug in BUGS for _ in range(2 * len(SEEDS))]
    assert [(Path(row[4]).parent.name, Path(row[4]).stem, row[5]) for row in planned] == [
        (bug, side, seed) for bug in BUGS for side in ("buggy", "fixed") for seed in SEEDS
    ]
    assert {row[6] for row in planned} == {"lost"}  # each attempt was stored as lost: trained again later

    _finish(store, planned)
    second = {r.id: r for r in reproduce_manifest(tasks, seeds=SEEDS, campaign=_no_service(tmp_path, store))}
    assert second["crash"].status == "ok" and second["crash"].reproduced is True
    assert second["same"].status == "ok" and second["same"].reproduced is False
    assert second["legacy"].status == "error"  # its retry needs training: the service is not there
    extended = _plan(store)
    assert [row[:7] for row in extended[:12]] == [row[:6] + ("done",) for row in planned]  # same plan, done
    retry = extended[12:]
    assert [(row[0], row[1], row[2]) for row in retry] == [(planned[0][0], 12 + i, "legacy") for i in range(4)]
    assert all(row[7].endswith("-modernize") for row in retry) and {row[3] for row in retry}.isdisjoint(
        row[3] for row in planned
    )  # the modernized runs have keys of their own

    _finish(store, retry)
    third = list(reproduce_manifest(tasks, seeds=SEEDS, campaign=_no_service(tmp_path, store), skip={"crash": "ok"}))
    assert [r.id for r in third] == ["legacy", "same"]
    legacy = third[0]
    assert legacy.status == "ok" and legacy.reproduced is True
    assert legacy.version_problem["resolved"] is True and legacy.version_problem["first_try"]["reproduced"] is False
    assert [row[:7] for row in _plan(store)] == [row[:6] + ("done",) for row in extended], "extended once"
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 16  # 12 planned + 4 retried, once each


def test_a_program_shared_by_two_bugs_is_trained_for_the_first_and_reused_by_the_second(tmp_path: Path) -> None:
    """The plan lists the shared program under both bugs (same key); once the first bug's run is
    stored, the second bug's row is done without training."""
    tasks = _benchmark(tmp_path)
    twin = ReproduceTask(id="twin", benchmark="own", buggy=tasks[0].buggy, fixed=tasks[2].fixed, symptom="crash")
    store = tmp_path / "runs.sqlite"
    list(reproduce_manifest([tasks[0], twin], seeds=SEEDS, campaign=_no_service(tmp_path, store)))
    rows = _plan(store)
    assert [row[2] for row in rows] == ["crash"] * 4 + ["twin"] * 4 and rows[0][3] == rows[4][3]
    _finish(store, [row for row in rows if row[2] == "crash"])  # only the first bug was trained
    with RunStore(store) as runs:  # the twin's fixed program (same/fixed.py) is stored too
        runs.put(RunRecord(key=rows[6][3], program=rows[6][4], seed=0, outcome="ok", program_hash="ph"))
        runs.put(RunRecord(key=rows[7][3], program=rows[7][4], seed=1, outcome="ok", program_hash="ph"))
    decided = {r.id: r for r in reproduce_manifest([tasks[0], twin], seeds=SEEDS,
                                                   campaign=_no_service(tmp_path, store))}  # fmt: skip
    assert decided["twin"].status == "ok" and decided["twin"].reproduced is True
    assert {row[6] for row in _plan(store)} == {"done"}


def test_a_store_of_schema_version_2_opens_its_plans_read_and_its_runs_reused(tmp_path: Path) -> None:
    """Version 2 had plans without groups: it opens as it is (reading changes nothing), its plan
    rows read back with no group, and the first write adds the column in that write's transaction."""
    path = tmp_path / "v2.sqlite"
    with RunStore(path) as store:
        store.put(RunRecord(key="k1", program="/p/a.py", seed=0, outcome="ok", program_hash="ph"))
        store.put_plan("p1", [("k1", "/p/a.py", 0, "done"), ("k2", "/p/a.py", 1, "planned")], "c1")
    with sqlite3.connect(path) as db:  # what a version-2 file looks like
        db.execute("DROP INDEX plan_group")
        db.execute("ALTER TABLE plan DROP COLUMN group_id")
        db.execute("PRAGMA user_version = 2")
    db.close()
    before = path.read_bytes()
    with RunStore(path) as store:
        assert store.version == 2 and store.get("k1").outcome == "ok"
        assert [(r.key, r.status, r.group) for r in store.plan("p1")] == [("k1", "done", None), ("k2", "planned", None)]
        assert store.plan("p1", group="bug") == []
    assert path.read_bytes() == before
    with RunStore(path) as store:
        added = store.extend_plan("p1", [("k3", "/p/b.py", 0, "planned", "bug")], "c2")
        assert [(r.position, r.group) for r in added] == [(2, "bug")]
        assert [r.key for r in store.plan("p1", group="bug")] == ["k3"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        assert "group_id" in {row[1] for row in db.execute("PRAGMA table_info(plan)")}


def test_a_failed_write_leaves_a_version_2_store_without_the_new_column(tmp_path: Path) -> None:
    path = tmp_path / "v2.sqlite"
    with RunStore(path) as store:
        store.put_plan("p1", [("k1", "/p/a.py", 0, "planned")], "c1")
    with sqlite3.connect(path) as db:
        db.execute("DROP INDEX plan_group")
        db.execute("ALTER TABLE plan DROP COLUMN group_id")
        db.execute("PRAGMA user_version = 2")
    db.close()
    with RunStore(path) as store, pytest.raises(ValueError):
        store.extend_plan("p1", [("k2", "/p/a.py", "not a seed", "planned", "bug")], "c2")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
        assert "group_id" not in {row[1] for row in db.execute("PRAGMA table_info(plan)")}


def test_extending_a_plan_twice_with_the_same_rows_adds_them_once(tmp_path: Path) -> None:
    with RunStore(tmp_path / "s.sqlite") as store:
        store.put_plan("p", [("a", "/a.py", 0, "planned", "g1"), ("b", "/b.py", 0, "planned", "g2")], "c")
        once = store.extend_plan("p", [("x", "/a.py", 0, "planned", "g1"), ("y", "/a.py", 1, "planned", "g1")], "c")
        again = store.extend_plan("p", [("x", "/a.py", 0, "done", "g1"), ("y", "/a.py", 1, "lost", "g1")], "c")
        assert [r.position for r in once] == [r.position for r in again] == [2, 3]
        assert [(r.key, r.status) for r in store.plan("p", group="g1")] == [("a", "planned"), ("x", "done"),
                                                                           ("y", "lost")]  # fmt: skip
        store.put_plan("p", [("a", "/a.py", 0, "done", "g1"), ("b", "/b.py", 0, "planned", "g2")], "c")
        assert len(store.plan("p")) == 4  # planning the benchmark again keeps the rows added after it


def test_the_progress_counts_the_planned_runs_of_the_bugs_to_decide(tmp_path: Path) -> None:
    """The bar's done / total: every distinct run of the bugs this start decides (a bug an earlier
    start wrote is planned but not counted); runs stored earlier start as done, a run the bug shares
    with an earlier bug turns done when that bug is reached, and a retry adds its runs to the total."""
    from mutreal.execution.benchmark import BenchmarkCampaign
    from mutreal.execution.service import ServiceUnavailable

    _benchmark(tmp_path)
    store = tmp_path / "runs.sqlite"
    programs = {bug: [str(tmp_path / bug / "buggy.py"), str(tmp_path / bug / "fixed.py")] for bug in BUGS}
    with BenchmarkCampaign(SEEDS, _no_service(tmp_path, store)) as campaign:
        for bug in BUGS:
            campaign.add(bug, programs[bug])
        campaign.add("crash", programs["crash"])  # the same bug twice: a group of its own, same keys
        plan = campaign.write_plan(to_decide={"legacy", "same", "crash#2"})
        assert [run.group for run in plan.runs][-4:] == ["crash#2"] * 4 and campaign.progress == (0, 12)
    _finish(store, _plan(store))  # every run of the plan is stored now
    with BenchmarkCampaign(SEEDS, _no_service(tmp_path, store)) as campaign:
        for bug in BUGS:
            campaign.add(bug, programs[bug])
        campaign.write_plan(to_decide={"same", "legacy"})
        assert campaign.progress == (8, 8)
        assert [r.outcome for r in campaign.run("same")] == ["ok"] * 4  # stored: nothing trains
        assert campaign.progress == (8, 8)
        with pytest.raises(ServiceUnavailable):  # the retry's runs are not stored: it would train
            campaign.extend("legacy", programs["legacy"], modernize=True)
        assert campaign.progress == (12, 12)  # 4 more planned; each attempt ended (as lost)


def test_a_benchmark_of_bugs_without_programs_writes_no_campaign(tmp_path: Path) -> None:
    """Every bug is an error row (its program is missing): nothing to plan, no store is created."""
    tasks = [ReproduceTask(id="gone", benchmark=None, buggy=[str(tmp_path / "b.py")], fixed=[str(tmp_path / "f.py")])]
    store = tmp_path / "runs.sqlite"
    (row,) = reproduce_manifest(tasks, seeds=SEEDS, campaign=_no_service(tmp_path, store))
    assert row.status == "error" and "program not found" in row.error and not store.exists()
