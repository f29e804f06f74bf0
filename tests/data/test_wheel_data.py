"""The shipped data travels inside the wheel and is found from an installed copy, not the checkout."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SHIPPED = {
    "taxonomy": [
        "tree.yaml",
        "fault_codes.csv",
        "extension_codes.csv",
        "fault_code_leaves.csv",
        "datasets.csv",
        "README.md",
        "decisions.csv",
        "decisions/CPP-once/buggy.py",
        "decisions/CPP-once/fixed.py",
    ],
    "operators": ["deepcrime.yaml", "combinations.csv", "README.md"],
}

PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import mutreal
from mutreal.resources import data_dir
from mutreal.label.taxonomy import load_taxonomy
from mutreal.operator_catalogue import load_catalogue, load_combinations
from mutreal.known_datasets import known_datasets
from mutreal.decisions import load_decisions
t = load_taxonomy()
assert all(d.buggy and d.fixed for d in load_decisions())
print(json.dumps({
    "module": mutreal.__file__,
    "taxonomy_dir": str(data_dir("taxonomy")),
    "leaves": t.leaf_count, "codes": len(t.fault_codes), "uncertain": len(t.uncertain_leaves()),
    "operators": len(load_catalogue()), "combinations": len(load_combinations()),
    "datasets": len(known_datasets()),
}))
"""


@pytest.mark.slow
def test_wheel_ships_the_data_and_an_install_finds_it(tmp_path):
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
    )
    # a failed build is a failure (a broken pyproject.toml must not read as a skip)
    assert build.returncode == 0, f"pip wheel failed:\n{build.stdout[-2000:]}\n{build.stderr[-2000:]}"
    (wheel,) = wheels.glob("mutreal-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for folder, files in SHIPPED.items():
            for name in files:
                member = f"mutreal/_data/{folder}/{name}"
                assert member in names, member
                assert zf.read(member) == (ROOT / folder / name).read_bytes(), member
        site = tmp_path / "site"
        zf.extractall(site)  # a pure-Python wheel installs by unpacking
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(site)], cwd=elsewhere, capture_output=True, text=True, check=True
    )
    got = json.loads(run.stdout)
    assert Path(got["module"]).is_relative_to(site), got["module"]
    assert Path(got["taxonomy_dir"]) == site / "mutreal" / "_data" / "taxonomy"
    assert (got["leaves"], got["codes"], got["uncertain"], got["operators"]) == (93, 56, 4, 24)
    assert got["combinations"] > 0 and got["datasets"] > 30
