"""Campaign resume from stored records, without training: what is reused and what is run again.

Each campaign here points its executor at a worker service that does not exist: a campaign that
reuses every stored run never builds an executor and returns, one that has anything left to train
fails with ServiceUnavailable. So "would retrain" is observed through the real campaign code, with
no model trained.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mutreal.execution import CampaignConfig, RunRecord, RunStore, environment, hashing
from mutreal.execution.campaign import prepare_program, run_campaign
from mutreal.execution.service import ServiceUnavailable

PROGRAM = "print('a program that is never trained in these tests')\n"


def _config(program: Path, runs: int, tmp_path: Path, **limits: float) -> CampaignConfig:
    return CampaignConfig(
        programs=[str(program)],
        runs=runs,
        jobs=1,
        threads_per_worker=1,
        executor="pool",
        address=str(tmp_path / "no-such-service.sock"),
        memory_limit_mb=limits.get("memory_limit_mb", 4096.0),
        timeout_s=limits.get("timeout_s"),
    )


def _keys(program: Path, config: CampaignConfig) -> list[str]:
    """The store keys the campaign computes, from the same public hashing functions."""
    prepared = prepare_program(program, config.modernize, config.data_folder(str(program)))
    cfg_hash = hashing.config_hash(config.result_affecting())
    env_hash = environment.environment_hash()
    return [
        hashing.run_key(prepared.program_hash, prepared.data_hash, cfg_hash, seed, env_hash)
        for seed in config.seed_list()
    ]


def _store(path: Path, program: Path, keys: list[str], outcome: str, **limits: float) -> None:
    with RunStore(path) as store:
        for seed, key in enumerate(keys):
            store.put(
                RunRecord(
                    key=key,
                    program=str(program),
                    seed=seed,
                    outcome=outcome,
                    metric_name="accuracy",
                    metric_value=0.5 + seed / 10_000 if outcome == "ok" else None,
                    direction="higher",
                    timeout_s=limits.get("timeout_s"),
                    memory_limit_mb=limits.get("memory_limit_mb"),
                )
            )


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


def test_more_than_one_chunk_of_stored_runs_is_reused_whole(program: Path, tmp_path: Path):
    """1203 runs: more than two of the store's 500-key query chunks, and a partial last chunk."""
    config = _config(program, 1203, tmp_path)
    keys = _keys(program, config)
    assert len(set(keys)) == 1203
    store = tmp_path / "runs.sqlite"
    _store(store, program, keys, "ok")
    records = run_campaign(config=config, store=store, progress=False)
    assert [r.key for r in records] == keys
    assert all(r.reused for r in records)
    assert [r.seed for r in records] == list(range(1203))
    with RunStore(store) as opened:
        found = opened.get_many(keys + ["not-a-key"])
    assert set(found) == set(keys)


def test_one_missing_run_past_the_first_chunk_is_trained(program: Path, tmp_path: Path):
    config = _config(program, 700, tmp_path)
    keys = _keys(program, config)
    store = tmp_path / "runs.sqlite"
    _store(store, program, keys[:650] + keys[651:], "ok")  # run 650 is in the second chunk
    with pytest.raises(ServiceUnavailable):
        run_campaign(config=config, store=store, progress=False)


def test_get_many_at_exact_chunk_boundaries(tmp_path: Path):
    keys = [f"k{i:04d}" for i in range(1001)]
    with RunStore(tmp_path / "s.sqlite") as store:
        for i, key in enumerate(keys):
            store.put(RunRecord(key=key, program="/p.py", seed=i, outcome="ok"))
        for n in (499, 500, 501, 1000, 1001):
            assert set(store.get_many(keys[:n])) == set(keys[:n])
        assert set(store.get_many(iter(keys))) == set(keys)  # a generator, read once
        assert store.get_many([]) == {}


@pytest.mark.parametrize(
    ("stored_timeout", "new_timeout", "retrained"),
    [(10.0, 10.0, False), (10.0, 5.0, False), (10.0, 10.5, True), (10.0, None, True)],
)
def test_a_timed_out_run_is_retried_only_when_the_timeout_is_raised(
    program: Path, tmp_path: Path, stored_timeout: float, new_timeout: float | None, retrained: bool
):
    store = tmp_path / "runs.sqlite"
    _store(store, program, _keys(program, _config(program, 3, tmp_path)), "timeout", timeout_s=stored_timeout)
    config = _config(program, 3, tmp_path, timeout_s=new_timeout)
    if retrained:
        with pytest.raises(ServiceUnavailable):
            run_campaign(config=config, store=store, progress=False)
    else:
        records = run_campaign(config=config, store=store, progress=False)
        assert [r.outcome for r in records] == ["timeout"] * 3 and all(r.reused for r in records)


def test_a_timeout_stored_without_its_limit_is_not_retried_under_a_limit(program: Path, tmp_path: Path):
    store = tmp_path / "runs.sqlite"
    _store(store, program, _keys(program, _config(program, 2, tmp_path)), "timeout")
    records = run_campaign(config=_config(program, 2, tmp_path, timeout_s=60.0), store=store, progress=False)
    assert all(r.reused and r.outcome == "timeout" for r in records)


@pytest.mark.parametrize(
    ("stored_limit", "new_limit", "retrained"),
    [(2048.0, 2048.0, False), (2048.0, 1024.0, False), (2048.0, 2049.0, True), (None, 8192.0, False)],
)
def test_a_run_out_of_memory_is_retried_only_when_the_memory_limit_is_raised(
    program: Path, tmp_path: Path, stored_limit: float | None, new_limit: float, retrained: bool
):
    store = tmp_path / "runs.sqlite"
    keys = _keys(program, _config(program, 2, tmp_path))
    _store(store, program, keys, "memory", memory_limit_mb=stored_limit)
    config = _config(program, 2, tmp_path, memory_limit_mb=new_limit)
    if retrained:
        with pytest.raises(ServiceUnavailable):
            run_campaign(config=config, store=store, progress=False)
    else:
        records = run_campaign(config=config, store=store, progress=False)
        assert [r.outcome for r in records] == ["memory"] * 2 and all(r.reused for r in records)


@pytest.mark.parametrize("outcome", ["ok", "crash"])
def test_runs_that_did_not_hit_a_limit_are_never_retried(program: Path, tmp_path: Path, outcome: str):
    store = tmp_path / "runs.sqlite"
    _store(store, program, _keys(program, _config(program, 2, tmp_path)), outcome, timeout_s=1.0)
    config = _config(program, 2, tmp_path, timeout_s=100.0, memory_limit_mb=65536.0)
    records = run_campaign(config=config, store=store, progress=False)
    assert [r.outcome for r in records] == [outcome] * 2 and all(r.reused for r in records)


def _plan_rows(store: Path) -> dict[str, list[tuple[int, str, int, str, str]]]:
    """plan id -> its rows (position, key, seed, status, campaign), read with plain sqlite."""
    import sqlite3

    plans: dict[str, list[tuple[int, str, int, str, str]]] = {}
    with sqlite3.connect(store) as db:
        for plan_id, *row in db.execute(
            "SELECT plan_id, position, key, seed, status, campaign_id FROM plan ORDER BY plan_id, position"
        ):
            plans.setdefault(plan_id, []).append(tuple(row))
    return plans


def test_the_plan_holds_every_run_and_marks_the_ones_a_failed_executor_lost(program: Path, tmp_path: Path):
    """6 seeds: 3 stored ok, 1 stored lost, 2 never run. The executor does not exist, so nothing
    trains: the plan has every program x seed with its key, the stored ones done, the rest lost."""
    config = _config(program, 6, tmp_path)
    keys = _keys(program, config)
    store = tmp_path / "runs.sqlite"
    _store(store, program, keys[:3], "ok")
    with RunStore(store) as opened:
        opened.put(RunRecord(key=keys[3], program=str(program), seed=3, outcome="lost"))
    with pytest.raises(ServiceUnavailable):
        run_campaign(config=config, store=store, progress=False)
    (rows,) = _plan_rows(store).values()
    assert [(position, key, seed) for position, key, seed, _, _ in rows] == [(i, k, i) for i, k in enumerate(keys)]
    assert [status for _, _, _, status, _ in rows] == ["done"] * 3 + ["lost"] * 3
    with RunStore(store) as opened:
        assert [opened.get(key).outcome for key in keys] == ["ok"] * 3 + ["lost"] * 3
    with RunStore(store) as opened:
        (campaign,) = opened.campaigns()
    assert {row[4] for row in rows} == {campaign["id"]}


def test_the_same_campaign_again_resumes_its_plan_and_a_finished_plan_trains_nothing(
    program: Path, tmp_path: Path
):
    config = _config(program, 4, tmp_path)
    keys = _keys(program, config)
    store = tmp_path / "runs.sqlite"
    with pytest.raises(ServiceUnavailable):  # nothing stored: every row planned
        run_campaign(config=config, store=store, progress=False)
    (first,) = _plan_rows(store).values()
    assert [row[3] for row in first] == ["lost"] * 4  # planned, then lost with the executor
    _store(store, program, keys, "ok")  # the runs arrive (as a worker would store them)
    records = run_campaign(config=config, store=store, progress=False)  # no executor needed: all done
    assert all(r.reused for r in records) and [r.key for r in records] == keys
    plans = _plan_rows(store)
    assert len(plans) == 1, "the second start found the same plan instead of writing another"
    (second,) = plans.values()
    assert [row[3] for row in second] == ["done"] * 4 and second[0][4] != first[0][4]


def test_a_program_listed_twice_is_planned_twice_and_trained_once(program: Path, tmp_path: Path):
    config = _config(program, 2, tmp_path)
    config.programs = [str(program), str(program)]
    store = tmp_path / "runs.sqlite"
    keys = _keys(program, config)
    _store(store, program, keys[:1], "ok")
    with pytest.raises(ServiceUnavailable):
        run_campaign(config=config, store=store, progress=False)
    (rows,) = _plan_rows(store).values()
    assert [(row[1], row[3]) for row in rows] == [(keys[0], "done"), (keys[1], "lost")] * 2
    from mutreal.execution.plan import CampaignPlan, PlannedRun, PlanStatus, prepare_program

    prepared = prepare_program(program, False)
    plan = CampaignPlan("p", [PlannedRun(row[1], prepared, row[2], PlanStatus(row[3])) for row in rows], "e", "c", 1.0)
    assert [run.key for run in plan.to_train()] == [keys[1]]


@pytest.mark.slow  # starts a real local worker (its TensorFlow import takes the time; nothing trains a model)
def test_every_row_of_the_plan_is_stored_before_the_first_run_finishes(tmp_path: Path):
    """Watched from the campaign's own per-record callback: when the first run is stored the plan
    already lists all three runs, and each row turns done as its run is stored."""
    import sqlite3

    from mutreal.execution import execute_campaign

    program = tmp_path / "quick.py"
    program.write_text("print('a run that needs no model')\n")
    store = tmp_path / "runs.sqlite"
    seen: list[list[str]] = []

    def on_record(record: RunRecord) -> None:
        with sqlite3.connect(store) as db:
            seen.append([status for (status,) in db.execute("SELECT status FROM plan ORDER BY position")])

    result = execute_campaign([program], runs=3, jobs=1, store=store, progress=False, on_record=on_record)
    assert [r.outcome for r in result.records] == ["ok"] * 3 and result.trained == 3
    assert seen == [["done", "planned", "planned"], ["done", "done", "planned"], ["done", "done", "done"]]


def test_a_campaign_returns_its_facts_as_a_serialisable_result(program: Path, tmp_path: Path):
    """The facts ``mutreal run --json`` prints (in its order), the records, and a JSON round trip;
    two campaigns of one process each keep their own facts (no module state between them)."""
    import json

    from mutreal.execution import CampaignResult, execute_campaign

    config = _config(program, 3, tmp_path)
    store = tmp_path / "runs.sqlite"
    _store(store, program, _keys(program, config), "ok")
    first = execute_campaign(config=config, store=store, progress=False)
    second = execute_campaign(config=_config(program, 2, tmp_path), store=store, progress=False)
    assert list(first.facts()) == ["id", "config", "manifest", "worker_startup_s", "gpu", "wall_time_s",
                                   "trained", "reused"]  # fmt: skip
    assert (first.trained, first.reused, len(first.records)) == (0, 3, 3)
    assert (second.trained, second.reused, len(second.records)) == (0, 2, 2) and second.id != first.id
    assert Path(first.config).is_file() and first.id in Path(first.manifest).name
    again = CampaignResult.from_dict(json.loads(json.dumps(first.to_dict())))
    assert again.facts() == first.facts() and [r.key for r in again.records] == [r.key for r in first.records]
