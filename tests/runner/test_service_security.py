"""The worker service against other local users: private folders, exclusive keys, peer uids, no pickle.

Every test talks to a real service process (``mutreal workers start --jobs 0`` or ``python -m
mutreal.execution.service``: no warm worker, so no TensorFlow import and a start in about two seconds).
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from mutreal.execution import service_socket
from mutreal.execution.service import (
    ServiceExecutor,
    ServiceUnavailable,
    _connect,
    service_status,
    start_service,
    stop_service,
)
from mutreal.execution.service_socket import Channel, client_handshake

ROOT = os.getuid() == 0
NOBODY = 65534
needs_root = pytest.mark.skipif(not ROOT, reason="needs root (chown, setpriv); CI runs as root")


def _mutreal(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mutreal", *args], capture_output=True, text=True, timeout=120, env=env
    )


@pytest.fixture
def folder() -> Iterator[Path]:
    """A short folder in /tmp (socket paths are limited to about 100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="mws-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def running() -> Iterator[Path]:
    """One service for the tests that only talk to it (started with no warm worker)."""
    path = Path(tempfile.mkdtemp(prefix="mws-", dir="/tmp"))
    address = path / "w.sock"
    start_service(0, {}, address)
    yield address
    stop_service(address)
    shutil.rmtree(path, ignore_errors=True)


# -- other users ---------------------------------------------------------------------------------
_PEER_SCRIPT = """
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except PermissionError:
    print("denied"); sys.exit(0)
s.settimeout(10)
data = s.recv(4096)
print("eof" if data == b"" else "data " + data.hex())
"""


def _as_nobody(*args: str) -> subprocess.CompletedProcess[str]:
    prefix = ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups"]
    for python in ("/usr/bin/python3", sys.executable):  # one that nobody may execute
        if subprocess.run([*prefix, python, "-c", "pass"], capture_output=True).returncode == 0:
            return subprocess.run([*prefix, python, *args], capture_output=True, text=True, timeout=60)
    pytest.skip("no Python interpreter that user nobody can run")


@needs_root
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv")
def test_a_peer_of_another_uid_is_closed_before_any_handshake(folder: Path) -> None:
    address = folder / "w.sock"
    os.chmod(folder, 0o711)  # world-traversable: the socket's own mode and the peer check remain
    started = _mutreal("workers", "start", "--jobs", "0", "--address", str(address))
    assert started.returncode == 0, started.stderr
    try:
        assert stat.S_IMODE(os.stat(address).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(address.with_suffix(".key")).st_mode) == 0o600
        first = _as_nobody("-c", _PEER_SCRIPT, str(address))
        assert first.stdout.strip() == "denied", first.stderr  # the socket is 0600
        os.chmod(address, 0o666)  # as if its mode were lost: the kernel's peer uid still decides
        second = _as_nobody("-c", _PEER_SCRIPT, str(address))
        assert second.stdout.strip() == "eof", second.stderr  # not one byte of the challenge
        status = json.loads(_mutreal("workers", "status", "--json", "--address", str(address)).stdout)
        assert (status["refused_peers"], status["failed_handshakes"]) == (1, 0)
        log = address.with_suffix(".log").read_text()
        assert f"refused a connection from uid {NOBODY}" in log
    finally:
        stopped = _mutreal("workers", "stop", "--address", str(address))
    assert stopped.returncode == 0, stopped.stderr


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o775])
def test_a_folder_others_can_write_is_refused(folder: Path, mode: int) -> None:
    os.chmod(folder, mode)
    result = _mutreal("workers", "start", "--jobs", "0", "--address", str(folder / "w.sock"))
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and f"mode {mode:04o}" in result.stderr
    assert "Traceback" not in result.stderr and list(folder.iterdir()) == []


@needs_root
def test_a_folder_of_another_user_is_refused(folder: Path) -> None:
    os.chown(folder, NOBODY, NOBODY)
    os.chmod(folder, 0o700)
    result = _mutreal("workers", "start", "--jobs", "0", "--address", str(folder / "w.sock"))
    assert result.returncode == 2 and f"owned by uid {NOBODY}" in result.stderr


@needs_root
def test_a_key_file_of_another_user_is_refused_by_service_and_clients(folder: Path) -> None:
    key = folder / "w.key"
    key.write_bytes(b"planted")
    os.chmod(key, 0o600)
    os.chown(key, NOBODY, NOBODY)
    for command in (["start", "--jobs", "0"], ["status"], ["stop"]):
        result = _mutreal("workers", *command, "--address", str(folder / "w.sock"))
        assert result.returncode == 2, (command, result.stderr)
        assert "key file is owned by uid 65534" in result.stderr
    # the service itself refuses it too (not only the client that starts it)
    service = subprocess.run(
        [sys.executable, "-m", "mutreal.execution.service", str(folder / "w.sock"), "0", "{}"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert service.returncode == 2 and "key file is owned by uid 65534" in service.stderr
    assert key.read_bytes() == b"planted" and key.stat().st_uid == NOBODY
    assert sorted(p.name for p in folder.iterdir()) == ["w.key"]


def test_a_key_file_others_can_read_is_refused(folder: Path) -> None:
    key = folder / "w.key"
    key.write_bytes(b"readable")
    os.chmod(key, 0o644)
    result = _mutreal("workers", "start", "--jobs", "0", "--address", str(folder / "w.sock"))
    assert result.returncode == 2 and "others may access the key file (mode 0644)" in result.stderr


def test_a_stale_key_of_ones_own_is_replaced_exclusively(folder: Path) -> None:
    address = folder / "w.sock"
    key = address.with_suffix(".key")
    key.write_bytes(b"old")
    os.chmod(key, 0o600)
    start_service(0, {}, address)
    try:
        assert key.read_bytes() != b"old" and len(key.read_bytes()) == 32
        assert service_status(address).pid > 0
    finally:
        stop_service(address)
    assert not key.exists() and not address.exists()


# -- data only -----------------------------------------------------------------------------------
class _Payload:
    """What an attacker would send: unpickling it creates a file (any code could run instead)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.mkdir, (str(self.marker),))


def _frame(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def test_a_pickled_request_is_rejected_as_malformed_and_runs_nothing(running: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = pickle.dumps({"type": "status", "x": _Payload(marker)})
    before = service_status(running)
    key = running.with_suffix(".key").read_bytes()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:  # a peer that holds the key
        sock.connect(str(running))
        conn = Channel(sock)
        client_handshake(conn, key)
        sock.sendall(_frame(payload))
        answer = conn.recv(10)
    assert answer["type"] == "error" and answer["kind"] == "malformed"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:  # and one that starts with it
        sock.connect(str(running))
        sock.settimeout(10)
        sock.recv(4096)  # the challenge
        sock.sendall(_frame(payload))
        assert sock.recv(4096) == b""  # closed: no answer to give
    after = service_status(running)
    assert not marker.exists()
    assert after.rejected_messages == before.rejected_messages + 1
    assert after.failed_handshakes == before.failed_handshakes + 1


def test_a_client_without_the_key_gets_nothing(running: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(running))
        conn = Channel(sock)
        with pytest.raises(service_socket.HandshakeFailed):
            client_handshake(conn, b"not the key")


def test_a_campaign_without_a_layout_is_refused_and_one_with_it_is_run_as_asked(running: Path) -> None:
    with _connect(running) as conn:
        conn.send({"type": "map", "tasks": [], "jobs": 2, "options": {"deterministic": True}})
        refusal = conn.recv(10)
    assert refusal["kind"] == "layout" and "threads None" in refusal["message"]
    executor = ServiceExecutor(running, jobs=3, options={"threads": 2, "deterministic": True})
    executor.map([], lambda task, result: None)  # accepted as 3 x 2 before any result, then done
    with _connect(running) as conn:
        conn.send({"type": "map", "tasks": [], "jobs": 3, "options": {"threads": 2}})
        assert conn.recv(10) == {"type": "accepted", "jobs": 3, "threads": 2}


# -- where the socket lives ----------------------------------------------------------------------
def _long_folder(root: Path) -> Path:
    path = root / ("a-rather-long-folder-name-" * 5)
    path.mkdir()
    return path


@pytest.mark.parametrize("long_variable", ["HOME", "XDG_RUNTIME_DIR"])
def test_a_long_service_folder_puts_the_socket_in_a_private_folder_named_by_a_pointer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, long_variable: str
) -> None:
    long = _long_folder(tmp_path)
    monkeypatch.delenv("MUTREAL_WORKERS", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv(long_variable, str(long))
    base = long / "mutreal" if long_variable == "XDG_RUNTIME_DIR" else long / ".cache" / "mutreal"
    status = start_service(0, {})
    try:
        address = Path(status.address)
        assert len(str(address)) <= 100 and address.parent.name.startswith("mutreal-workers-")
        assert stat.S_IMODE(os.stat(address.parent).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(base).st_mode) == 0o700
        pointer = base / "workers.where"
        assert pointer.read_text().strip() == str(address)
        assert service_socket.client_address() == address
        listed = _mutreal("workers", "status", "--json", env=dict(os.environ))
        assert json.loads(listed.stdout)["address"] == str(address)
    finally:
        stopped = _mutreal("workers", "stop", env=dict(os.environ))
    assert stopped.returncode == 0, stopped.stderr
    assert not pointer.exists() and not address.parent.exists()
    with pytest.raises(ServiceUnavailable):
        service_status()


def test_a_pointer_to_a_folder_others_can_enter_is_refused(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    long = _long_folder(tmp_path)
    monkeypatch.delenv("MUTREAL_WORKERS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(long))
    base = long / "mutreal"
    base.mkdir(mode=0o700)
    os.chmod(folder, 0o755)
    (base / "workers.where").write_text(f"{folder / 'workers.sock'}\n")
    os.chmod(base / "workers.where", 0o600)
    result = _mutreal("workers", "status", env=dict(os.environ))
    assert result.returncode == 2 and f"{folder}: mode 0755" in result.stderr


def test_an_existing_service_folder_others_can_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MUTREAL_WORKERS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    (tmp_path / "mutreal").mkdir(mode=0o755)
    os.chmod(tmp_path / "mutreal", 0o755)
    result = _mutreal("workers", "start", "--jobs", "0", env=dict(os.environ))
    assert result.returncode == 2 and "mode 0755: only you may access it" in result.stderr
    assert "chmod 700" in result.stderr and list((tmp_path / "mutreal").iterdir()) == []
