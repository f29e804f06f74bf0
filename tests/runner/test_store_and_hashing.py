"""The SQLite store (put/get/resume queries/export) and the content hashes that key runs."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from mutreal.execution import CampaignConfig, EvaluateRecord, RunRecord, RunStore, hashing
from mutreal.execution.store import StoreError


def _record(key: str, seed: int, outcome: str = "ok", value: float | None = 0.9) -> RunRecord:
    return RunRecord(
        key=key,
        program="/p/a.py",
        seed=seed,
        outcome=outcome,
        program_hash="ph",
        metric_name="accuracy",
        metric_value=value,
        direction="higher",
        evaluations=[EvaluateRecord(results={"accuracy": value or 0.0})],
        error_message=None if outcome == "ok" else "boom",
    )


def test_store_persists_each_run_and_exports(tmp_path: Path):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        store.put(_record("k1", 0))
        store.put(_record("k2", 1, "crash", None))
    with RunStore(path) as store:  # a new connection sees what was committed
        assert store.count() == 2
        assert store.has("k1") and not store.has("k3")
        assert store.get("k2").outcome == "crash"
        assert set(store.get_many(["k1", "k2", "k3"])) == {"k1", "k2"}
        assert [r.seed for r in store.records(program_hash="ph")] == [0, 1]
        frame = store.to_dataframe()
        assert list(frame["crashed"]) == [0, 1]
        out = store.to_csv(tmp_path / "runs.csv")
    rows = list(csv.DictReader(out.open()))
    assert rows[0]["metric"] == "0.9" and rows[1]["crashed"] == "1"


def test_store_replaces_a_run_with_the_same_key(tmp_path: Path):
    with RunStore(tmp_path / "s.sqlite") as store:
        store.put(_record("k", 0, "timeout", None))
        store.put(_record("k", 0, "ok", 0.5))
        assert store.count() == 1 and store.get("k").metric_value == 0.5


def test_a_file_that_is_not_sqlite_is_a_clear_error_and_kept(tmp_path: Path):
    runs_csv = tmp_path / "runs.csv"
    runs_csv.write_text("metric\n0.9\n" * 200)
    with pytest.raises(StoreError, match="not a run store"):
        RunStore(runs_csv)
    assert runs_csv.read_text() == "metric\n0.9\n" * 200


def test_data_hash_covers_data_files_but_not_programs_or_outputs(tmp_path: Path):
    (tmp_path / "train.csv").write_text("1,2\n")
    (tmp_path / "a.py").write_text("print(1)")
    first = hashing.data_hash(tmp_path)
    (tmp_path / "b.py").write_text("print(2)")  # another program beside it
    (tmp_path / "runs.sqlite").write_bytes(b"x")  # a store
    (tmp_path / "runs.abc.manifest.yaml").write_text("m: 1")
    assert hashing.data_hash(tmp_path) == first
    (tmp_path / "train.csv").write_text("1,3\n")
    assert hashing.data_hash(tmp_path) != first


def test_program_hash_ignores_line_endings_not_content():
    assert hashing.program_hash("a = 1\nb = 2\n") == hashing.program_hash("a = 1\r\nb = 2\r\n")
    assert hashing.program_hash("a = 1\n") != hashing.program_hash("a = 2\n")


def test_run_key_depends_on_every_part():
    base = ("p", "d", "c", 0, "e")
    keys = {hashing.run_key(*base)}
    for index, value in enumerate(("p2", "d2", "c2", 1, "e2")):
        changed = list(base)
        changed[index] = value
        keys.add(hashing.run_key(*changed))
    assert len(keys) == 6


def test_config_yaml_round_trip_and_seed_list(tmp_path: Path):
    config = CampaignConfig(programs=["a.py"], runs=3, jobs=2, timeout_s=10, metric="loss", args=["--fast"])
    again = CampaignConfig.from_yaml(config.to_yaml())
    assert again == config
    assert again.seed_list() == [0, 1, 2]
    assert CampaignConfig(seeds=[5, 9]).seed_list() == [5, 9]
    # limits and the executor do not change which runs are the same; TensorFlow's thread count does
    same = CampaignConfig(
        programs=["b.py"], jobs=2, timeout_s=99, metric="loss", args=["--fast"], executor="ray"
    )
    assert hashing.config_hash(config.result_affecting()) == hashing.config_hash(same.result_affecting())
    other_threads = CampaignConfig(jobs=2, threads_per_worker=3, args=["--fast"])
    assert hashing.config_hash(config.result_affecting()) != hashing.config_hash(
        other_threads.result_affecting()
    )


def test_config_rejects_unknown_keys():
    import pytest

    with pytest.raises(ValueError, match="unknown campaign configuration keys: colour"):
        CampaignConfig.from_yaml("runs: 2\ncolour: red\n")
