"""``compare --mutants DIR`` keeps every key of a given mutant's provenance.

A mutant written by ``mutate --deepcrime-name`` carries a ``deepcrime`` record (which DeepCrime
mutant it is); a user comparing DeepCrime's mutants with a real fault reads the name back from
compare's row. Own pair: benchmarks/campaign_pairs/too_few_epochs (digits MLPs written for mutreal).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mutreal.campaigns.mutants import given_mutants

PAIR = Path(__file__).resolve().parents[2] / "benchmarks" / "campaign_pairs" / "too_few_epochs"
NAME = "change_epochs_mutated0_MP_2"


def _write(mutreal_command: str, root: Path) -> Path:
    out = root / "too_few_epochs"
    done = subprocess.run([mutreal_command, "mutate", str(PAIR / "fixed.py"), "--deepcrime-name", NAME,
                           "--out", str(out)], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (written,) = done.stdout.split()
    return Path(written)


def test_a_given_mutants_whole_provenance_is_kept(tmp_path: Path, mutreal_command: str) -> None:
    written = _write(mutreal_command, tmp_path / "mutants")
    on_disk = json.loads(written.with_suffix(".json").read_text())
    (spec,) = given_mutants(tmp_path / "mutants", "too_few_epochs").mutants
    assert spec.provenance["deepcrime"] == on_disk["deepcrime"] and spec.provenance["deepcrime"]["name"] == NAME
    assert {k: v for k, v in spec.provenance.items() if k != "mode"} == on_disk
    assert spec.provenance["mode"] == "given" and (spec.operator, spec.value) == ("HNE", 2)


def test_a_provenance_that_is_not_a_record_is_said_and_the_mutant_kept(tmp_path: Path) -> None:
    folder = tmp_path / "bug"
    folder.mkdir()
    (folder / "m.py").write_text("print(1)\n")
    (folder / "m.json").write_text("[1, 2]")
    (spec,) = given_mutants(tmp_path, "bug").mutants
    assert spec.operator is None and "not a provenance JSON" in spec.provenance["note"]


@pytest.mark.slow
def test_compares_row_names_the_deepcrime_mutant_it_measured(tmp_path: Path, mutreal_command: str) -> None:
    _write(mutreal_command, tmp_path / "mutants")
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"id,benchmark,buggy,fixed\ntoo_few_epochs,own,{PAIR / 'buggy.py'},{PAIR / 'fixed.py'}\n")
    done = subprocess.run([mutreal_command, "compare", "--manifest", str(manifest), "--mutants", "mutants",
                           "--runs", "1", "--jobs", "1", "--out", "rows.jsonl", "-q"],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (row,) = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    (entry,) = row["mutants"]
    assert entry["provenance"]["deepcrime"]["canonical"] == NAME and entry["operator"] == "HNE"
