"""Bad input to classify: each case is an error row with a clear message; nothing is read that
should not be, nothing of a wrong file's content reaches the output, and the batch goes on.

Run through the command line (``python -m mutreal``), as a user meets them.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mutreal.label.classify import MAX_SIDE_FILES, classify_safely, python_files_under

ROOT = Path(__file__).parents[2]
PAIR = ROOT / "benchmarks" / "corpus" / "k1-iris-ach"
BUGGY, FIXED = PAIR / "buggy" / "iris_mlp.py", PAIR / "fixed" / "iris_mlp.py"
SECRET = "s3cr3t-token-4711"


def _mutreal(*args: str, cwd: Path | None = None, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "mutreal", *args], capture_output=True, text=True, cwd=cwd, env=env,
        timeout=timeout,
    )


def _manifest(tmp_path: Path, rows: list[tuple[str, str, str]]) -> Path:
    path = tmp_path / "manifest.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "benchmark", "buggy", "fixed"])
        for bug_id, buggy, fixed in rows:
            writer.writerow([bug_id, "own", buggy, fixed])
    return path


def _classify_manifest(tmp_path: Path, rows: list[tuple[str, str, str]]) -> dict[str, dict]:
    result = _mutreal("classify", "--manifest", str(_manifest(tmp_path, rows)))
    assert result.returncode in (0, 1), result.stderr
    return {row["id"]: row for row in map(json.loads, result.stdout.splitlines())}


@pytest.mark.parametrize("special", ["/dev/null", "/dev/zero", "/proc/self/status", "/sys/kernel/mm"])
def test_special_files_are_error_rows_without_being_read(special):
    if not os.path.exists(special):
        pytest.skip(f"{special} does not exist on this system")
    result = _mutreal("classify", special, str(FIXED), "--json", timeout=60)
    assert result.returncode == 1
    row = json.loads(result.stdout)
    assert row["status"] == "error"
    assert special in row["error"] and ("not read" in row["error"] or "directory" in row["error"])


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "program.py"
    os.mkfifo(fifo)
    result = _mutreal("classify", str(fifo), str(FIXED), "--json", timeout=60)  # reading it would hang
    row = json.loads(result.stdout)
    assert row["status"] == "error" and "not a regular file" in row["error"]


def test_a_file_with_nothing_of_python_is_an_error_that_does_not_copy_it(tmp_path):
    passwd = tmp_path / "passwd"
    passwd.write_text(
        "".join(f"user{i}:x:{1000 + i}:{1000 + i}:{SECRET} {i}:/home/user{i}:/bin/bash\n" for i in range(20))
    )
    rows = _classify_manifest(tmp_path, [("passwd", str(passwd), str(FIXED)), ("good", str(BUGGY), str(FIXED))])
    assert rows["passwd"]["status"] == "error"
    assert "not a Python program" in rows["passwd"]["error"]
    assert SECRET not in json.dumps(rows["passwd"])
    assert rows["good"]["status"] == "ok" and [c["code"] for c in rows["good"]["components"]] == ["ACH"]


def test_a_posted_snippet_with_a_few_bad_lines_stays_ok(tmp_path):
    snippet = tmp_path / "posted.py"
    snippet.write_text(
        "I tried this and the accuracy stays at 0.1:\n" + BUGGY.read_text() + "\nAny ideas what is wrong?\n"
    )
    rows = _classify_manifest(tmp_path, [("posted", str(snippet), str(FIXED))])
    assert rows["posted"]["status"] == "ok"
    assert len(rows["posted"]["set_aside"]) == 2
    assert [c["code"] for c in rows["posted"]["components"]] == ["ACH"]


def test_a_directory_side_does_not_follow_links_out_of_it(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "elsewhere.py").write_text("import os\n")
    side = tmp_path / "buggy"
    side.mkdir()
    (side / "iris_mlp.py").write_text(BUGGY.read_text())
    (side / "linked.py").symlink_to(outside / "elsewhere.py")
    (side / "linked_dir").symlink_to(outside, target_is_directory=True)
    (side / "inside_link.py").symlink_to(side / "iris_mlp.py")
    (side / "notes.txt").write_text("not python")
    found = [Path(p).name for p in python_files_under(side)]
    assert found == ["inside_link.py", "iris_mlp.py"]


def test_a_directory_past_the_bound_is_a_clear_error(tmp_path):
    big = tmp_path / "tree"
    for i in range(MAX_SIDE_FILES + 1):
        folder = big / f"pkg{i // 500}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i}.py").write_text("x = 1\n")
    rows = _classify_manifest(tmp_path, [("tree", str(big), str(FIXED)), ("good", str(BUGGY), str(FIXED))])
    assert rows["tree"]["status"] == "error"
    assert f"more than {MAX_SIDE_FILES} .py files" in rows["tree"]["error"]
    assert rows["good"]["status"] == "ok"


def test_a_whole_empty_side_against_a_keras_program_is_an_error(tmp_path):
    empty = tmp_path / "empty.py"
    empty.write_text("# nothing here yet\n\n")
    for buggy, fixed, side in ((empty, FIXED, "buggy"), (BUGGY, empty, "fixed")):
        row = classify_safely(str(buggy), str(fixed), bug_id="e").to_dict()
        assert row["status"] == "error"
        assert f"the {side} side is empty" in row["error"]


def test_an_empty_file_inside_a_side_of_several_files_is_fine(tmp_path):
    sides = {}
    for side, source in (("buggy", BUGGY), ("fixed", FIXED)):
        folder = tmp_path / side
        folder.mkdir()
        (folder / "__init__.py").write_text("")
        (folder / "iris_mlp.py").write_text(source.read_text())
        sides[side] = str(folder)
    row = classify_safely(sides["buggy"], sides["fixed"], bug_id="pkg").to_dict()
    assert row["status"] == "ok"
    assert [c["code"] for c in row["components"]] == ["ACH"]
