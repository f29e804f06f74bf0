"""Hostile programs beside normal ones in one sandboxed campaign (real warm TensorFlow workers: slow).

Every hostile program is written here, small and without TensorFlow; each check is on the host
(files, processes, a listener), never on what the program says about itself.
"""

from __future__ import annotations

import hashlib
import socket
import threading
import uuid
from pathlib import Path

import psutil
import pytest

from mutreal.execution import RunStore, execute_campaign, run_campaign
from mutreal.execution.pool import shutdown_idle_workers

pytestmark = pytest.mark.slow


def _tree_digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


class _Listener:
    """A TCP listener on 127.0.0.1 that records every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted: list[object] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop.is_set():
            try:
                conn, address = self.sock.accept()
            except OSError:
                continue
            self.accepted.append(address)
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_hostile_programs_change_nothing_outside_their_run(tmp_path, tiny_program, bwrap, monkeypatch):
    marker = f"mutreal-hostile-{uuid.uuid4().hex[:10]}"
    project = tmp_path / "project"
    src = project / "src"
    data = project / "data"
    _write(data, "values.txt", "1 2 3\n")
    _write(src, "table.csv", "a,b\n1,2\n")
    _write(src, "notes.txt", "keep me\n")
    keras_home = tmp_path / "keras-home"
    _write(keras_home / "datasets", "cached.npz", "not really an npz\n")
    monkeypatch.setenv("KERAS_HOME", str(keras_home))
    monkeypatch.setenv("MUTREAL_CALLER_SECRET", "must-not-be-seen")
    monkeypatch.setenv("MUTREAL_ASKED_FOR", "seen")
    listener = _Listener()
    host_home = Path.home()
    programs = {
        "normal_first.py": tiny_program(epochs=1, comment="normal, first"),
        "deletes.py": f"""
import os, glob
for name in glob.glob("*") + glob.glob("../data/*"):
    try:
        os.remove(name) if os.path.isfile(name) else None
    except OSError:
        pass
open("table.csv", "w").write("overwritten")
open(__file__, "w").write("# gone")
for original in ({str(src / "notes.txt")!r}, {str(data / "values.txt")!r}):
    try:
        open(original, "w").write("overwritten")
    except OSError:
        pass
    try:
        os.remove(original)
    except OSError:
        pass
""",
        # finds its data by a relative path, by __file__, in a ../data sibling and in the keras cache
        "reads_data.py": """
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
assert open("table.csv").read() == "a,b\\n1,2\\n"
assert open(os.path.join(here, "notes.txt")).read() == "keep me\\n"
assert open(os.path.join(here, "..", "data", "values.txt")).read() == "1 2 3\\n"
assert open(os.path.expanduser("~/.keras/datasets/cached.npz")).read().startswith("not really")
assert os.path.basename(__file__) == "reads_data.py" and os.path.basename(here) == "src"
assert "MUTREAL_CALLER_SECRET" not in os.environ, "the caller's environment leaked"
assert os.environ.get("MUTREAL_ASKED_FOR") == "seen", "--env did not pass the variable"
""",
        "writes_everywhere.py": f"""
import os
for path in (os.path.expanduser("~/{marker}"), "/tmp/{marker}", "/{marker}", {str(host_home / marker)!r},
             "/var/tmp/{marker}", {str(tmp_path / marker)!r}):
    try:
        open(path, "w").write("x")
    except OSError:
        pass
""",
        "sees_no_leftovers.py": f"""
import os, sys
if os.path.exists(os.path.expanduser("~/{marker}")) or os.path.exists("/tmp/{marker}"):
    sys.exit(7)
""",
        "raw_socket.py": f"""
import _socket
s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
s.settimeout(2)
try:
    s.connect(("127.0.0.1", {listener.port}))
except OSError:
    pass
""",
        "child_socket.py": f"""
import subprocess, sys
code = "import socket\\ntry:\\n    socket.create_connection(('127.0.0.1', {listener.port}), 2)\\nexcept OSError:\\n    pass"
subprocess.run([sys.executable, "-c", code], timeout=30)
""",
        "double_fork.py": f"""
import os, subprocess, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "{marker}"])
    os._exit(0)
time.sleep(0.5)
""",
        "grandchild_hog.py": """
import subprocess, sys
hog = "import numpy as np\\nblocks = []\\nwhile True:\\n    blocks.append(np.ones(25_000_000))"
spawn = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {hog!r}])"
subprocess.run([sys.executable, "-c", spawn])
""",
        "forever.py": "while True:\n    pass\n",
        "normal_last.py": tiny_program(epochs=1, comment="normal, last"),
    }
    paths = [_write(src, name, text) for name, text in programs.items()]
    before_src, before_data = _tree_digest(src), _tree_digest(data)
    store = tmp_path / "runs.sqlite"
    try:
        campaign = execute_campaign(
            paths, seeds=[0], jobs=1, timeout_s=20, memory_limit_mb=1800, store=store, progress=False,
            sandbox_mode="bwrap", env=["MUTREAL_ASKED_FOR"], keep_workers=True,
        )  # fmt: skip
        records = campaign.records
        # the double-forked process is gone already while the worker stays warm for the next campaign
        leftovers = [
            p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])
        ]
        assert leftovers == [], "a process the program started outlived its run"
    finally:
        shutdown_idle_workers()
        listener.close()
    by_name = {Path(r.program).name: r for r in records}
    assert len(records) == len(programs)  # every outcome is a row
    with RunStore(store) as opened:
        assert opened.count() == len(programs)
    for name in ("reads_data.py", "deletes.py", "writes_everywhere.py", "sees_no_leftovers.py",
                 "raw_socket.py", "child_socket.py", "double_fork.py", "normal_first.py", "normal_last.py"):  # fmt: skip
        assert by_name[name].outcome == "ok", (name, by_name[name].error_message, by_name[name].traceback)
        assert by_name[name].sandbox == "bwrap"
    assert by_name["grandchild_hog.py"].outcome == "memory", by_name["grandchild_hog.py"].error_message
    assert by_name["forever.py"].outcome == "timeout"
    first, last = by_name["normal_first.py"], by_name["normal_last.py"]
    assert first.fits[0].history == last.fits[0].history and first.predictions == last.predictions
    assert _tree_digest(src) == before_src and _tree_digest(data) == before_data  # byte for byte
    for path in (Path("/tmp") / marker, Path("/") / marker, host_home / marker, Path("/var/tmp") / marker,
                 tmp_path / marker):  # fmt: skip
        assert not path.exists(), path
    assert listener.accepted == [], "a connection left the sandbox"
    assert "bubblewrap" in Path(campaign.manifest).read_text()


def test_a_forged_pickle_on_the_channel_runs_nothing_and_self_kill_is_a_crash(tmp_path, tiny_program, bwrap):
    marker = tmp_path / "the-parent-ran-it"
    forger = _write(
        tmp_path,
        "forger.py",
        f"""
import os, pickle, stat, struct, time

class Evil:
    def __reduce__(self):
        return (os.system, ("touch {marker}",))

payload = pickle.dumps({{"type": "result", "result": Evil()}})
for fd in range(3, 256):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.write(fd, struct.pack("!i", len(payload)) + payload)
    except OSError:
        pass
time.sleep(3)
""",
    )
    suicide = _write(tmp_path, "suicide.py", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    normal = _write(tmp_path, "normal.py", tiny_program(epochs=1))
    records = run_campaign([forger, suicide, normal], seeds=[0], jobs=1, timeout_s=60, progress=False,
                           sandbox_mode="bwrap")  # fmt: skip
    by_name = {Path(r.program).name: r for r in records}
    assert not marker.exists()
    assert by_name["forger.py"].outcome == "crash" and by_name["forger.py"].error_type == "ChannelError"
    assert by_name["suicide.py"].outcome == "crash"
    assert "killed its own worker" in by_name["suicide.py"].error_message
    assert by_name["normal.py"].outcome == "ok"
