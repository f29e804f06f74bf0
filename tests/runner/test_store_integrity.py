"""The run store's schema version and integrity check: refuse newer or damaged files, change nothing."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.execution import EvaluateRecord, RunRecord, RunStore
from mutreal.execution.store import SCHEMA_VERSION, StoreError, StoreWarning


def _record(key: str, seed: int) -> RunRecord:
    return RunRecord(
        key=key,
        program="/p/a.py",
        seed=seed,
        outcome="ok",
        program_hash="ph",
        metric_name="accuracy",
        metric_value=0.5 + seed / 1000,
        direction="higher",
        evaluations=[EvaluateRecord(results={"accuracy": 0.5})],
        output_tail="x" * 300,  # a few pages of rows, so that garbage lands in table pages
    )


@pytest.fixture(scope="module")
def real_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with 200 runs and a campaign, written (and closed) by RunStore itself."""
    path = tmp_path_factory.mktemp("store") / "runs.sqlite"
    with RunStore(path) as store:
        store.put_campaign("c1", "2024-01-01T00:00:00", "runs: 2\n", {"programs": ["a.py"]})
        for seed in range(200):
            store.put(_record(f"k{seed}", seed))
    return path


def _user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def test_a_new_store_carries_the_schema_version(real_store: Path) -> None:
    assert _user_version(real_store) == SCHEMA_VERSION == 3


def test_a_store_of_a_newer_mutreal_is_refused_naming_both_versions(real_store: Path, tmp_path: Path) -> None:
    newer = tmp_path / "newer.sqlite"
    shutil.copy(real_store, newer)
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version = 7")
    before = newer.read_bytes()
    with pytest.raises(StoreError, match=r"schema version 7 .*newer mutreal.* up to 3"):
        RunStore(newer)
    assert newer.read_bytes() == before


def _damaged_copy(real_store: Path, folder: Path, offset: int, garbage: bytes) -> Path:
    damaged = folder / "damaged.sqlite"
    shutil.copy(real_store, damaged)
    with damaged.open("r+b") as handle:
        handle.seek(offset)
        handle.write(garbage)
    return damaged


def test_a_damaged_store_is_a_clear_error_and_is_left_byte_identical(
    real_store: Path, tmp_path: Path
) -> None:
    damaged = _damaged_copy(real_store, tmp_path, 4096 * 3, bytes(range(256)) * 16)  # a whole table page
    before = damaged.read_bytes()
    with pytest.raises(StoreError, match="run store is damaged"):
        RunStore(damaged)
    assert damaged.read_bytes() == before
    assert not (tmp_path / "damaged.sqlite-journal").exists()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(page=st.integers(0, 60), at=st.integers(0, 4095), garbage=st.binary(min_size=1, max_size=600))
def test_garbage_anywhere_is_refused_untouched_or_opens(
    real_store: Path, tmp_path: Path, page: int, at: int, garbage: bytes
) -> None:
    """Whatever bytes land wherever: a StoreError with the file unchanged, or a store that reads."""
    size = real_store.stat().st_size
    offset = min(page * 4096 + at, size - 1)
    damaged = _damaged_copy(real_store, tmp_path, offset, garbage[: size - offset])
    before = damaged.read_bytes()
    try:
        store = RunStore(damaged)
    except StoreError as error:
        assert str(error).startswith(str(damaged))
        assert damaged.read_bytes() == before
        return
    with store:  # the damage missed every page quick_check reads (free space, unused bytes)
        store.count()


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


@pytest.mark.parametrize("version", [0, 1], ids=["unversioned", "version-1"])
def test_an_older_store_opens_and_is_migrated_at_its_first_write(
    real_store: Path, tmp_path: Path, version: int
) -> None:
    """Version 0 (before versions) and version 1 (before plans) have no plan table: reading changes
    nothing, the first write adds the table and marks version 2, and every run is still there."""
    old = tmp_path / "old.sqlite"
    shutil.copy(real_store, old)
    with sqlite3.connect(old) as db:  # what every store written before plans looks like
        db.execute("DROP TABLE plan")
        db.execute(f"PRAGMA user_version = {version}")
    db.close()
    with RunStore(old) as store:
        assert store.count() == 200 and store.get("k3").seed == 3
        assert [c["id"] for c in store.campaigns()] == ["c1"]
        assert store.plan("any") == []
    assert _user_version(old) == version and "plan" not in _tables(old)  # reading leaves it as it was
    with RunStore(old) as store:
        store.put(_record("k-new", 999))
    assert _user_version(old) == SCHEMA_VERSION and "plan" in _tables(old)
    with RunStore(old) as store:
        assert store.count() == 201
        rows = store.put_plan("p1", [("k3", "/p/a.py", 3, "done"), ("k-x", "/p/a.py", 4, "planned")], "c2")
        assert [(r.key, r.status) for r in rows] == [("k3", "done"), ("k-x", "planned")]


def test_an_unknown_stored_outcome_is_a_clear_error_naming_the_store(real_store: Path, tmp_path: Path) -> None:
    """An outcome word this mutreal does not know (a newer one's, a hand edit) is refused by name,
    never read as a new category; the file is not changed."""
    odd = tmp_path / "odd.sqlite"
    shutil.copy(real_store, odd)
    with sqlite3.connect(odd) as db:
        db.execute("UPDATE runs SET record = replace(record, '\"outcome\": \"ok\"', '\"outcome\": \"exploded\"') "
                   "WHERE key = 'k5'")  # fmt: skip
    db.close()
    before = odd.read_bytes()
    with RunStore(odd) as store:
        assert store.get("k4").outcome == "ok"
        with pytest.raises(StoreError, match=r"odd.sqlite: unknown run outcome 'exploded' \(this mutreal knows: ok, crash"):
            store.get("k5")
        with pytest.warns(StoreWarning, match=r"1 stored run\(s\) left out.*k5 .*exploded"):
            listed = store.records()  # an export lists every other run rather than stopping at one
        assert len(listed) == 199 and "k5" not in {r.key for r in listed}
    assert odd.read_bytes() == before


def test_a_failed_first_write_leaves_an_older_store_as_it_was(real_store: Path, tmp_path: Path) -> None:
    """The migration is part of the write that needs it: when that write fails, neither the plan
    table nor the new version stay behind, and the next write migrates again."""
    old = tmp_path / "old.sqlite"
    shutil.copy(real_store, old)
    with sqlite3.connect(old) as db:
        db.execute("DROP TABLE plan")
        db.execute("PRAGMA user_version = 1")
    db.close()
    with RunStore(old) as store:
        with pytest.raises(ValueError):
            store.put_plan("p1", [("k3", "/p/a.py", "not a seed", "done")], "c2")
        assert _user_version(old) == 1 and "plan" not in _tables(old)
        store.put(_record("k-new", 999))
    assert _user_version(old) == SCHEMA_VERSION and "plan" in _tables(old)
    with RunStore(old) as store:
        assert store.count() == 201


def test_the_cli_refuses_a_newer_store_before_training(real_store: Path, tmp_path: Path) -> None:
    newer = tmp_path / "newer.sqlite"
    shutil.copy(real_store, newer)
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = newer.read_bytes()
    program = tmp_path / "p.py"
    marker = tmp_path / "trained"
    program.write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    result = subprocess.run(
        [sys.executable, "-m", "mutreal", "run", str(program), "--runs", "1", "--store", str(newer), "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.stderr
    assert f"schema version {SCHEMA_VERSION + 1}" in lines[0] and f"up to {SCHEMA_VERSION}" in lines[0]
    assert not marker.exists() and newer.read_bytes() == before
    assert not list(tmp_path.glob("newer.*.manifest.yaml"))


def test_the_cli_reports_a_damaged_store_in_one_line(real_store: Path, tmp_path: Path) -> None:
    damaged = _damaged_copy(real_store, tmp_path, 4096 * 3, b"\xff" * 4096)
    before = damaged.read_bytes()
    program = tmp_path / "p.py"
    program.write_text("print('never run')\n")
    result = subprocess.run(
        [sys.executable, "-m", "mutreal", "run", str(program), "--runs", "1", "--store", str(damaged), "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith("error: ") and "damaged" in result.stderr
    assert damaged.read_bytes() == before


def test_another_programs_database_is_refused_not_written_into(tmp_path: Path) -> None:
    other = tmp_path / "notes.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
        db.execute("INSERT INTO notes VALUES ('keep me')")
    db.close()
    before = other.read_bytes()
    with pytest.raises(StoreError, match="not a run store .*tables notes"):
        RunStore(other)
    assert other.read_bytes() == before
