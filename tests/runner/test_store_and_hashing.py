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


def _side(root: Path, name: str, model_body: str) -> Path:
    """A benchmark side whose entry file is the same on both sides and whose fault sits in model.py."""
    side = root / name
    (side / "helpers").mkdir(parents=True)
    (side / "train.py").write_text("import model\nfrom helpers import scale\nprint(model.build(), scale)\n")
    (side / "model.py").write_text(model_body)
    (side / "helpers" / "__init__.py").write_text("scale = 255\n")
    return side / "train.py"


def test_program_key_covers_the_local_modules_it_imports(tmp_path: Path):
    """Defects4ML-like sides: identical train.py, the fault in model.py beside it. The two sides
    must not share a run key (before, the second side silently got the first side's run)."""
    from mutreal.execution.plan import prepare_program

    buggy = prepare_program(_side(tmp_path, "buggy", "def build():\n    return 'relu'\n"), False, framework="as-is")
    fixed = prepare_program(_side(tmp_path, "fixed", "def build():\n    return 'softmax'\n"), False, framework="as-is")
    assert buggy.source == fixed.source
    assert buggy.program_hash != fixed.program_hash
    # a package imported by the program counts too
    (tmp_path / "fixed" / "helpers" / "__init__.py").write_text("scale = 1\n")
    assert prepare_program(tmp_path / "fixed" / "train.py", False, framework="as-is").program_hash != fixed.program_hash


def test_a_program_without_local_imports_keeps_its_text_hash(tmp_path: Path):
    """Installed packages and missing modules are not part of the key: single-file programs keep
    the keys their stored runs have."""
    from mutreal.execution.plan import prepare_program

    program = tmp_path / "alone.py"
    program.write_text("import numpy as np\nimport os.path\nfrom missing_module import x\nprint(np, x)\n")
    (tmp_path / "unrelated.py").write_text("print('not imported')\n")
    prepared = prepare_program(program, False, framework="as-is")
    assert prepared.program_hash == hashing.program_hash(prepared.source)
    assert hashing.local_modules(program.read_text(), [tmp_path]) == []


def test_local_modules_follow_imports_between_modules_and_stop_on_cycles(tmp_path: Path):
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("from . import c\nimport a\n")
    (tmp_path / "c.py").write_text("x = (\n")  # a module Python cannot parse imports nothing
    found = hashing.local_modules("import a\n", [tmp_path])
    assert [p.name for p in found] == ["a.py", "b.py", "c.py"]
