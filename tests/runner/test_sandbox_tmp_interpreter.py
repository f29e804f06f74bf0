"""An interpreter, venv or checkout under the host's ``/tmp`` (a CI clone, a throw-away venv) stays
importable inside the sandbox, whose ``/tmp`` is private: such a folder is shown read-only at its own
path and survives the reset between runs. Without this every sandboxed worker of a clone under
``/tmp`` failed to start (``bwrap: execvp /tmp/.../.venv/bin/python: No such file or directory``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mutreal.execution import sandbox


def _first_folder_in_tmp(path: Path) -> str:
    parts = path.resolve().parts
    assert parts[:2] == ("/", "tmp"), f"pytest's tmp_path is expected under /tmp, got {path}"
    return "/tmp/" + parts[2]


def test_folders_of_the_interpreter_under_tmp_are_found(tmp_path, monkeypatch):
    venv = tmp_path / "venv"
    venv.mkdir()
    monkeypatch.setattr(sys, "prefix", str(venv))
    folders = sandbox.interpreter_folders_in_tmp()
    assert _first_folder_in_tmp(venv) in folders
    assert "/tmp" not in folders and sandbox.HOST_TMP not in folders


def test_a_folder_under_tmp_is_readable_but_not_writable_inside_and_kept_by_the_reset(bwrap, tmp_path):
    library = tmp_path / "site-packages"
    library.mkdir()
    (library / "marker.py").write_text("VALUE = 42\n")
    folder = _first_folder_in_tmp(library)
    private = tmp_path / "private"
    (private / folder[len("/tmp/") :]).mkdir(parents=True)
    code = (
        f"import sys; sys.path.insert(0, {str(library)!r}); import marker; print(marker.VALUE)\n"
        f"try:\n    open({str(library / 'new.txt')!r}, 'w')\nexcept OSError:\n    print('read-only')\n"
    )
    command = sandbox.bwrap_command([sys.executable, "-c", code], private, bwrap.user_namespace, tmp_folders=[folder, *sandbox.interpreter_folders_in_tmp()])
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=sandbox.minimal_environment())
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["42", "read-only"]
    assert not (library / "new.txt").exists()
    (private / "left-by-a-run.txt").write_text("x")
    sandbox.reset_private_tmp(private, [folder])
    assert (private / folder[len("/tmp/") :]).is_dir()  # the mount point stays for the next run
    assert not (private / "left-by-a-run.txt").exists()
