"""The sandbox's pieces without TensorFlow (fast): the bwrap command, environment, reset, JSON channel."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import pickle
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mutreal.execution import channel, sandbox


def _run_in_sandbox(
    choice: sandbox.SandboxChoice, tmp_path: Path, code: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    private = tmp_path / "private-tmp"
    private.mkdir(exist_ok=True)
    inner = [sys.executable, "-c", textwrap.dedent(code)]
    command = sandbox.bwrap_command(inner, private, choice.user_namespace)
    return subprocess.run(
        command, capture_output=True, text=True, timeout=60, env=env or sandbox.minimal_environment()
    )


def test_inside_bwrap_the_file_system_is_read_only_and_cannot_be_remounted(bwrap, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("original")
    done = _run_in_sandbox(
        bwrap,
        tmp_path,
        f"""
        import ctypes, os, subprocess
        for path in ({str(outside)!r}, "/evil-file", os.path.expanduser("~/../../evil")):
            try:
                open(path, "w").write("changed")
                print("WROTE", path)
            except OSError as error:
                print("denied", path, error.errno)
        libc = ctypes.CDLL(None, use_errno=True)
        MS_REMOUNT, MS_BIND = 32, 4096
        print("mount", libc.mount(None, b"/", None, MS_REMOUNT | MS_BIND, None), ctypes.get_errno())
        print("mount-cmd", subprocess.run(["mount", "-o", "remount,rw", "/"], capture_output=True).returncode)
        open("/tmp/private.txt", "w").write("mine")
        print("caps", [l for l in open("/proc/self/status") if l.startswith("CapEff")][0].split()[1])
        """,
    )
    assert done.returncode == 0, done.stderr
    assert "WROTE" not in done.stdout
    assert "mount -1" in done.stdout and "mount-cmd 0" not in done.stdout
    assert "caps 0000000000000000" in done.stdout
    assert outside.read_text() == "original" and not Path("/evil-file").exists()
    assert (tmp_path / "private-tmp" / "private.txt").read_text() == "mine"  # /tmp is the private folder


def test_inside_bwrap_there_is_no_network_even_for_raw_sockets(bwrap, tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(2)
    port = listener.getsockname()[1]
    done = _run_in_sandbox(
        bwrap,
        tmp_path,
        f"""
        import _socket
        s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", {port}))
            print("CONNECTED")
        except OSError as error:
            print("refused", error)
        """,
    )
    assert done.returncode == 0, done.stderr
    assert "CONNECTED" not in done.stdout
    with pytest.raises(TimeoutError):
        listener.accept()
    listener.close()


def test_the_sandbox_environment_is_minimal_and_passes_what_is_asked(bwrap, tmp_path, monkeypatch):
    monkeypatch.setenv("MUTREAL_SECRET_TOKEN", "do-not-leak")
    monkeypatch.setenv("MUTREAL_ASKED", "passed-value")
    env = sandbox.minimal_environment(sandbox.passed_variables(["MUTREAL_ASKED", "OTHER=given"]))
    assert "MUTREAL_SECRET_TOKEN" not in env and env["MUTREAL_ASKED"] == "passed-value"
    assert env["OTHER"] == "given" and env["HOME"] == sandbox.SANDBOX_HOME
    done = _run_in_sandbox(
        bwrap,
        tmp_path,
        """
        import os, json
        import mutreal
        print(json.dumps(dict(os.environ)))
        """,
        env=env,
    )
    assert done.returncode == 0, done.stderr  # mutreal importable from the explicit PYTHONPATH
    seen = json.loads(done.stdout)
    assert "MUTREAL_SECRET_TOKEN" not in seen and seen["MUTREAL_ASKED"] == "passed-value"


def test_env_names_are_checked():
    with pytest.raises(ValueError, match="NAME or NAME=VALUE"):
        sandbox.passed_variables(["bad name"])
    assert sandbox.passed_variables(["MUTREAL_SURELY_UNSET_VARIABLE"]) == {}


def test_kill_namespace_others_leaves_only_the_init_and_the_worker(bwrap, tmp_path):
    choice = bwrap
    private = tmp_path / "p"
    private.mkdir()
    # the main process sleeps 301 s so that it is told from the orphaned background sleeps, which
    # init adopts too (same parent, and pid order says nothing once pids wrap around)
    script = "(setsid sh -c 'sleep 300' &) ; (sleep 300 &) ; echo started; exec sleep 301"
    command = sandbox.bwrap_command(["/bin/sh", "-c", script], private, choice.user_namespace)
    outer = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=sandbox.minimal_environment())
    try:
        assert outer.stdout.readline().strip() == "started"
        tree = psutil.Process(outer.pid)
        init = tree.children()[0]  # bwrap's init inside the namespace, the outer bwrap's only child

        def main_process() -> psutil.Process | None:
            # "started" is printed before the shell execs into sleep 301: wait for the exec too
            for p in init.children():
                with contextlib.suppress(psutil.Error):
                    if p.cmdline()[:2] == ["sleep", "301"]:
                        return p
            return None

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (len(tree.children(recursive=True)) < 4 or main_process() is None):
            time.sleep(0.05)
        main = main_process()
        assert main is not None
        killed = sandbox.kill_namespace_others(outer.pid, {init.pid, main.pid})
        assert killed >= 2
        assert {p.pid for p in tree.children(recursive=True)} == {init.pid, main.pid}
    finally:
        outer.kill()
        outer.wait()


def test_reset_private_tmp_empties_everything_but_the_dataset_mount_point(tmp_path):
    root = tmp_path / "tmp"
    (root / "home" / ".keras" / "datasets").mkdir(parents=True)
    (root / "home" / ".keras" / "keras.json").write_text("{}")
    (root / "home" / "notes.txt").write_text("x")
    locked = root / "run" / "locked"
    locked.mkdir(parents=True)
    (locked / "f").write_text("x")
    locked.chmod(0)
    (root / "link").symlink_to("/etc")
    sandbox.reset_private_tmp(root)
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == [
        ".host",
        "home",
        "home/.keras",
        "home/.keras/datasets",
    ]


def test_a_pickle_on_the_channel_is_refused_not_loaded(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    parent, child = multiprocessing.Pipe()
    child.send({"type": "result", "result": Evil()})  # what multiprocessing would write: a pickle
    with pytest.raises(channel.ChannelError):
        channel.recv(parent)
    child.send_bytes(json.dumps([1, 2]).encode())
    with pytest.raises(channel.ChannelError, match="not an object"):
        channel.recv(parent)
    assert not marker.exists()
    assert pickle.dumps(1)  # (pickle itself works: the channel simply never calls it)


@given(
    st.dictionaries(
        st.text(max_size=5),
        st.one_of(st.integers(), st.floats(allow_nan=False), st.text(), st.lists(st.floats(allow_nan=False))),
    )
)
def test_channel_round_trips_plain_data(message):
    assert channel.decode(channel.encode(message)) == message


def test_channel_sends_numpy_values_as_numbers():
    data = channel.decode(channel.encode({"a": np.float32(0.5), "b": np.arange(3), "c": float("nan")}))
    assert data["a"] == 0.5 and data["b"] == [0, 1, 2] and data["c"] != data["c"]


def test_sandbox_bwrap_without_bubblewrap_is_a_clear_error(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    env = {
        **os.environ,
        "PATH": str(tmp_path),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "mutreal", "run", str(program), "--runs", "1", "--sandbox", "bwrap", "-q"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert done.returncode != 0
    assert "--sandbox bwrap: bwrap is not installed" in done.stderr


def test_stage_run_copies_the_folder_and_shows_its_siblings_read_only(tmp_path):
    project = tmp_path / "project"
    (project / "src" / "sub").mkdir(parents=True)
    (project / "data").mkdir()
    (project / "src" / "table.csv").write_text("1,2\n")
    (project / "src" / "sub" / "more.txt").write_text("x")
    (project / "src" / "__pycache__").mkdir()
    private = tmp_path / "private"
    private.mkdir()
    inside = sandbox.stage_run(private, project / "src")
    assert inside == "/tmp/run/src"
    copy = private / "run" / "src"
    assert (copy / "table.csv").read_text() == "1,2\n" and (copy / "sub" / "more.txt").read_text() == "x"
    assert not (copy / "__pycache__").exists() and not (copy / "table.csv").is_symlink()
    link = private / "run" / "data"
    assert link.is_symlink()
    target = str((project / "data").resolve())
    expected = sandbox.HOST_TMP + target[4:] if target.startswith("/tmp/") else target
    assert str(link.readlink()) == expected


def test_auto_falls_back_without_bubblewrap_and_says_so_once(tmp_path, monkeypatch, capsys):
    from mutreal.execution.campaign_config import CampaignConfig
    from mutreal.execution.executor_choice import describe_isolation

    monkeypatch.setenv("PATH", str(tmp_path))  # a machine without bwrap
    sandbox.probe.cache_clear()
    monkeypatch.setattr(sandbox, "_WARNED", set())
    try:
        first = describe_isolation(CampaignConfig(sandbox="auto"))
        second = describe_isolation(CampaignConfig(sandbox="auto"))
        with pytest.raises(sandbox.SandboxUnavailable, match="bwrap is not installed"):
            describe_isolation(CampaignConfig(sandbox="bwrap"))
    finally:
        sandbox.probe.cache_clear()
    assert first == second and first["mode"] == "none" and "bwrap is not installed" in first["reason"]
    warning = capsys.readouterr().err
    assert warning.count("runs are NOT sandboxed") == 1 and "bwrap is not installed" in warning
    assert describe_isolation(CampaignConfig(sandbox="none"))["mode"] == "none"
