"""benchmarks/reconstruction.py: what compare would reconstruct, over a manifest, without training.

Pins what a real benchmark showed: a bug that cannot be read is listed with its error while the
others are still counted (it was counted as a silent "bugs error"), and a side of several files is
mutated in its program, never in a helper module sorted after it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "reconstruction.py"
CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus"
SRC = Path(__file__).resolve().parents[2] / "src"

HELPER = "SCALE = 1.0\n\n\ndef describe():\n    return 'a helper module that trains nothing'\n"


def test_multi_file_side_uses_entry_and_bad_bug_does_not_stop_batch(tmp_path: Path) -> None:
    for side in ("buggy", "fixed"):
        folder = tmp_path / "multi" / side
        folder.mkdir(parents=True)
        shutil.copy(CORPUS / "k1-iris-ach" / side / "iris_mlp.py", folder / "iris_mlp.py")
        (folder / "zz_helpers.py").write_text(HELPER)  # sorts last: the old script ran the mutant from here
    manifest = tmp_path / "manifest.csv"
    manifest.write_text(
        "id,benchmark,buggy,fixed,entry\n"
        "gone,own,gone/buggy.py,gone/fixed.py,\n"
        "multi,own,multi/buggy/iris_mlp.py;multi/buggy/zz_helpers.py,"
        "multi/fixed/iris_mlp.py;multi/fixed/zz_helpers.py,iris_mlp.py\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(manifest), "--mutants"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "bugs with mutants" in out and "first-order mutants" in out, out
    counts = {line[:48].strip(): line[48:].strip() for line in out.splitlines() if line[:48].strip()}
    assert counts.get("bugs with mutants") == "1", out  # the ACH mutant of iris_mlp.py
    assert "gone" in out  # listed with its reason, and "multi" was still counted after it
    mutants_dir = Path(out.rsplit("(mutants under ", 1)[1].split(")")[0])
    originals = {
        name: (tmp_path / "multi" / "fixed" / name).read_text() for name in ("iris_mlp.py", "zz_helpers.py")
    }
    edited = {p.name for p in mutants_dir.rglob("*.py") if p.read_text() != originals.get(p.name)}
    assert edited == {"iris_mlp.py"}, edited  # the entry program was mutated, the helper never
