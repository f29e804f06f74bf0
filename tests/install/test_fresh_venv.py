"""mutreal as a new user gets it: the built wheel in a fresh virtual environment, the console script.

The tests of the rest of the suite import mutreal from the checkout inside pytest's own process, so
they cannot see what an installed copy lacks: a module that only happens to be imported already
(``importlib.util`` was one: the console script crashed in every fresh venv), data files the wheel
does not ship, a dependency missing from ``pyproject.toml``. Here the wheel is built, installed
with its declared dependencies only (no system site packages, no ``PYTHONPATH``), and the
``mutreal`` script itself is run from a folder outside the checkout.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
CORPUS = ROOT / "benchmarks" / "corpus"
SUBJECT = ROOT / "benchmarks" / "subjects_mutation" / "cnn.py"
PAIRS = ["k1-iris-ach", "fn-cancer-hlr", "fn-convae-lch-hne"]

pytestmark = pytest.mark.slow


def _clean_env(home: Path) -> dict[str, str]:
    """The caller's environment without anything that would let the checkout leak in."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    env["HOME"] = str(home)
    env["MPLBACKEND"] = "Agg"
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Build the wheel, make a bare venv, install the wheel into it; fail (never skip) on any error."""
    base = tmp_path_factory.mktemp("fresh")
    wheels = base / "wheels"
    home = base / "home"
    home.mkdir()
    env = _clean_env(home)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        capture_output=True, text=True, env=env,
    )
    assert build.returncode == 0, f"building the wheel failed:\n{build.stderr[-2000:]}"
    (wheel,) = wheels.glob("mutreal-*.whl")
    target = base / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False, clear=True).create(target)
    python = target / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True, env=env
    )
    assert install.returncode == 0, f"installing the wheel failed:\n{install.stderr[-2000:]}"
    work = base / "work"  # outside the checkout: nothing relative to it can be found by accident
    work.mkdir()
    return {"python": python, "script": target / "bin" / "mutreal", "work": work, "home": home}


def _mutreal(installed: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(installed["script"]), *args], cwd=installed["work"], capture_output=True, text=True,
        env=_clean_env(installed["home"]), timeout=600,
    )


def test_console_script_help_lists_every_command(installed):
    result = _mutreal(installed, "--help")
    assert result.returncode == 0, result.stderr
    for command in ("classify", "mutate", "report", "agree", "run", "reproduce", "workers"):
        assert command in result.stdout
    version = _mutreal(installed, "--version")
    assert version.returncode == 0 and "mutreal" in version.stdout


def test_installed_copy_is_imported_not_the_checkout(installed):
    probe = subprocess.run(
        [str(installed["python"]), "-c", "import mutreal, sys; print(mutreal.__file__)"],
        cwd=installed["work"], capture_output=True, text=True, env=_clean_env(installed["home"]),
    )
    assert probe.returncode == 0, probe.stderr
    location = Path(probe.stdout.strip()).resolve()
    assert "site-packages" in location.parts
    assert ROOT.resolve() not in location.parents


def test_classify_one_pair(installed):
    pair = installed["work"] / "pair"
    shutil.copytree(CORPUS / "k1-iris-ach", pair)
    result = _mutreal(installed, "classify", "pair/buggy/iris_mlp.py", "pair/fixed/iris_mlp.py", "--json")
    assert result.returncode == 0, result.stderr
    row = json.loads(result.stdout)
    assert row["status"] == "ok"
    assert [c["code"] for c in row["components"]] == ["ACH"]


def test_classify_manifest_then_report(installed):
    bench = installed["work"] / "bench"
    for pair_id in PAIRS:
        shutil.copytree(CORPUS / pair_id, bench / pair_id)
    with open(CORPUS / "manifest.csv", newline="") as f:
        rows = [row for row in csv.DictReader(f) if row["id"] in PAIRS]
    with open(bench / "manifest.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    classified = _mutreal(installed, "classify", "--manifest", "bench/manifest.csv", "--out", "results.jsonl")
    assert classified.returncode == 0, classified.stderr
    results = [json.loads(line) for line in (installed["work"] / "results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in results) == sorted(PAIRS)
    assert all(r["status"] == "ok" and r["components"] for r in results)
    reported = _mutreal(installed, "report", "results.jsonl", "--out", "report")
    assert reported.returncode == 0, reported.stderr
    markdown = (installed["work"] / "report" / "report.md").read_text()
    assert f"Bugs counted: {len(PAIRS)} " in markdown
    assert (installed["work"] / "report" / "report.html").stat().st_size > 0
    assert any((installed["work"] / "report" / "plots").glob("*.png"))


def test_mutate_list(installed):
    shutil.copy(SUBJECT, installed["work"] / "cnn.py")
    result = _mutreal(installed, "mutate", "--list", "cnn.py", "--json")
    assert result.returncode == 0, result.stderr
    operators = {site["operator"] for site in json.loads(result.stdout)}
    assert {"ACH", "HLR", "HNE", "LCH", "OCH"} <= operators


PROBE = """
import json
from mutreal.resources import data_dir
from mutreal.label.taxonomy import load_taxonomy
from mutreal.operator_catalogue import load_catalogue, load_combinations
t = load_taxonomy()
print(json.dumps({"taxonomy_dir": str(data_dir("taxonomy")), "operators_dir": str(data_dir("operators")),
                  "codes": len(t.fault_codes), "leaves": t.leaf_count,
                  "operators": len(load_catalogue()), "combinations": len(load_combinations())}))
"""


def test_shipped_data_is_read_from_the_installed_package(installed):
    def probe(python: Path, cwd: Path, env: dict[str, str]) -> dict:
        out = subprocess.run([str(python), "-c", PROBE], cwd=cwd, capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    there = probe(installed["python"], installed["work"], _clean_env(installed["home"]))
    for key in ("taxonomy_dir", "operators_dir"):
        assert "site-packages" in Path(there[key]).parts, there[key]
    here_env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    here = probe(Path(sys.executable), ROOT, here_env)
    # the same data, counted from the checkout's own files
    assert {k: there[k] for k in ("codes", "leaves", "operators", "combinations")} == {
        k: here[k] for k in ("codes", "leaves", "operators", "combinations")
    }
    assert there["operators"] == 24
