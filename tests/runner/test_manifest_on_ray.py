"""``reproduce --manifest`` and ``compare --manifest`` with ``--executor ray`` on a real local cluster.

A helper process starts a local Ray cluster (``ray.init`` with its own temp folder) and prints its
GCS address; the commands run as subprocesses of ``python -m mutreal`` that connect to it with
``--address``, and their verdicts must equal those of ``--executor local`` on the same bugs and seeds.
The helper's cluster ends with it (``ray.shutdown``), so no other Ray on the machine is touched.
In CI a missing Ray fails this test (tests/conftest.py) instead of skipping it.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
#: the own numpy bugs of the signal test (one definition for both files; the suite imports by path)
_SIGNALS = runpy.run_path(str(Path(__file__).with_name("test_manifest_signals.py")))
BUGS, EXPECTED, _benchmark = _SIGNALS["BUGS"], _SIGNALS["EXPECTED"], _SIGNALS["_benchmark"]
PAIRS = ROOT / "benchmarks" / "campaign_pairs"

CLUSTER = """
import sys, ray
ray.init(num_cpus=2, include_dashboard=False, _temp_dir=sys.argv[1], configure_logging=False)
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()  # held until the test closes stdin
ray.shutdown()
"""


def _env() -> dict[str, str]:
    # a cluster of this machine only, reached by the test's own processes: no token authentication
    return dict(os.environ, PYTHONPATH=str(ROOT / "src"), RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="disabled")


pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    pytest.importorskip("ray")
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths have a length limit
    holder = subprocess.Popen([sys.executable, "-c", CLUSTER, temp], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=_env())  # fmt: skip
    try:
        address = holder.stdout.readline().strip()
        assert address, "the local Ray cluster did not start"
        yield address
    finally:
        holder.stdin.close()
        try:
            holder.wait(timeout=60)
        except subprocess.TimeoutExpired:
            holder.kill()


def _mutreal(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "mutreal", *args], cwd=folder, env=_env(),
                            capture_output=True, text=True, timeout=900)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.slow
def test_reproduce_manifest_on_a_ray_cluster_gives_the_local_verdicts(tmp_path, cluster):
    _benchmark(tmp_path)
    common = ["reproduce", "--manifest", "manifest.csv", "--seeds", "3,7", "--jobs", "2", "-q"]
    _mutreal(tmp_path, *common, "--out", "ray.jsonl", "--executor", "ray", "--address", cluster)
    _mutreal(tmp_path, *common, "--out", "local.jsonl", "--executor", "local")
    on_ray, local = _rows(tmp_path / "ray.jsonl"), _rows(tmp_path / "local.jsonl")
    verdict = lambda r: (r["id"], r["status"], r["reproduced"], r["stable"], r["buggy"]["outcomes"],  # noqa: E731
                         r["fixed"]["outcomes"])  # fmt: skip
    assert [verdict(r) for r in on_ray] == [verdict(r) for r in local]
    assert {r["id"]: r["reproduced"] for r in on_ray} == EXPECTED and len(on_ray) == len(BUGS)


@pytest.mark.slow
def test_compare_manifest_on_a_ray_cluster_gives_the_local_verdicts(tmp_path, cluster):
    name = "too_few_epochs"
    (tmp_path / "manifest.csv").write_text(
        f"id,benchmark,buggy,fixed\n{name},own,{PAIRS / name / 'buggy.py'},{PAIRS / name / 'fixed.py'}\n"
    )
    common = ["compare", "--manifest", "manifest.csv", "--seeds", "0,1", "--jobs", "2", "-q"]
    _mutreal(tmp_path, *common, "--out", "ray.jsonl", "--executor", "ray", "--address", cluster)
    _mutreal(tmp_path, *common, "--out", "local.jsonl", "--executor", "local")
    (on_ray,), (local,) = _rows(tmp_path / "ray.jsonl"), _rows(tmp_path / "local.jsonl")
    assert on_ray["status"] == local["status"] == "ok"
    assert on_ray["fault"]["killed"] == local["fault"]["killed"]
    decided = lambda row: [(m["operator"], m["value"], m["killed"], m["fisher_killed"]) for m in row["mutants"]]  # noqa: E731
    assert decided(on_ray) == decided(local) and decided(on_ray)[0][:2] == ("HNE", 1)
    assert on_ray["mutants"][0]["coupling"] >= 0.8 and local["mutants"][0]["coupling"] >= 0.8
