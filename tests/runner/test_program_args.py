"""A program's own command-line arguments (a manifest's ``args`` column) reach its ``sys.argv``.

Real programs read ``sys.argv`` (Defects4ML's ``gol.py 20 30``) and crash without it. The program
here is our own: it fails unless it is given exactly the arguments its manifest row names.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.campaigns.reproduce import ManifestError as ReproduceManifestError
from mutreal.campaigns.reproduce import read_reproduce_manifest

READS_ARGV = """\
import sys
height, width = int(sys.argv[1]), int(sys.argv[2])
assert sys.argv[3:] == ["a b"], sys.argv
print("board", height * width)
"""


def mutreal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mutreal", *args], capture_output=True, text=True, check=False,
                          timeout=300)  # fmt: skip


def stored(store: Path) -> list[dict]:
    with sqlite3.connect(store) as db:
        return [json.loads(text) for (text,) in db.execute("SELECT record FROM runs ORDER BY rowid")]


@pytest.mark.slow
def test_run_gives_each_program_its_manifest_arguments(tmp_path: Path) -> None:
    for side in ("buggy", "fixed"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "gol.py").write_text(READS_ARGV)
    manifest = tmp_path / "m.csv"
    manifest.write_text("id,buggy,fixed,args,args_fixed\ngol,buggy/gol.py,fixed/gol.py,20 30 'a b',\n")
    store = tmp_path / "runs.sqlite"
    program = str(tmp_path / "fixed" / "gol.py")
    bare = mutreal("run", program, "--runs", "1", "--jobs", "1", "-q", "--json", "--store", str(store))
    assert bare.returncode == 1  # without its arguments it crashes on sys.argv
    given = mutreal("run", program, "--runs", "1", "--jobs", "1", "-q", "--json", "--store", str(store),
                    "--args-from", str(manifest))  # fmt: skip
    assert given.returncode == 0, given.stderr[-2000:]
    runs = json.loads(given.stdout[given.stdout.index("{"):])["runs"]
    assert [r["outcome"] for r in runs] == ["ok"]
    records = stored(store)
    assert [(r["outcome"], r["error_type"], r["args"]) for r in records] == [
        ("crash", "IndexError", []), ("ok", None, ["20", "30", "a b"]),
    ]  # fmt: skip
    assert records[0]["key"] != records[1]["key"]  # the arguments enter the run key: not reused
    assert "board 600" in records[1]["output_tail"]
    # --arg gives every program the same arguments
    same = mutreal("run", program, "--runs", "1", "--jobs", "1", "-q", "--store", str(store),
                   "--arg", "4", "--arg", "5", "--arg", "a b")  # fmt: skip
    assert same.returncode == 0, same.stderr[-2000:]
    assert stored(store)[-1]["args"] == ["4", "5", "a b"]
    # a manifest whose args do not split is refused before anything runs
    manifest.write_text("id,buggy,fixed,args\ngol,buggy/gol.py,fixed/gol.py,'20\n")
    refused = mutreal("run", program, "--runs", "1", "--store", str(store), "--args-from", str(manifest))
    assert refused.returncode == 2 and "cannot be split" in refused.stderr


def test_reproduce_manifest_reads_the_args_of_each_side(tmp_path: Path) -> None:
    manifest = tmp_path / "m.csv"
    manifest.write_text("id,buggy,fixed,args,args_buggy\nx,b.py,f.py,20 30,--slow\ny,b.py,f.py,,\n")
    x, y = read_reproduce_manifest(manifest)
    assert (x.args_buggy, x.args_fixed) == (["--slow"], ["20", "30"])
    assert (y.args_buggy, y.args_fixed) == (None, None)
    manifest.write_text("id,buggy,fixed,args_fixed\nz,b.py,f.py,'20\n")  # quoting that does not close
    with pytest.raises(ReproduceManifestError, match="bug z: .*cannot be split"):
        read_reproduce_manifest(manifest)


@pytest.mark.slow
def test_a_benchmark_campaign_gives_each_bug_its_programs_arguments(tmp_path: Path) -> None:
    """reproduce --manifest and compare --manifest add each bug with its programs' arguments; the
    buggy program gets its side's, the fixed program and its mutants the fixed side's."""
    from mutreal.campaigns.compare import _program_args
    from mutreal.execution.benchmark import BenchmarkCampaign
    from mutreal.execution.campaign import CampaignConfig

    for side in ("buggy", "fixed"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "gol.py").write_text(READS_ARGV)
    buggy, fixed = str(tmp_path / "buggy" / "gol.py"), str(tmp_path / "fixed" / "gol.py")
    manifest = tmp_path / "m.csv"
    manifest.write_text("id,buggy,fixed,args,args_buggy\ngol,buggy/gol.py,fixed/gol.py,2 3 'a b',\n")
    (task,) = read_reproduce_manifest(manifest)
    own = _program_args(task, [buggy, fixed, str(tmp_path / "mutant.py")])
    assert own == {buggy: ["2", "3", "a b"], fixed: ["2", "3", "a b"], str(tmp_path / "mutant.py"): ["2", "3", "a b"]}
    config = CampaignConfig(jobs=1, threads_per_worker=1, timeout_s=120, memory_limit_mb=4096.0)
    options = {"config": config, "store": str(tmp_path / "runs.sqlite"), "progress": False}
    with BenchmarkCampaign([0], options) as campaign:
        campaign.add("gol", [buggy, fixed], program_args={fixed: own[fixed]})  # the buggy side: none
        campaign.write_plan()
        records = campaign.run("gol")
    assert [(r.outcome, r.args) for r in records] == [("crash", []), ("ok", ["2", "3", "a b"])]
