"""The service's wire format and address rules, on real socket pairs and folders (no service needed)."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.execution import service_socket
from mutreal.execution.service_socket import Channel, MalformedMessage

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(max_size=10), _json, max_size=5))
def test_every_json_object_arrives_as_sent(message: dict) -> None:
    left, right = socket.socketpair()
    with Channel(left) as sender, Channel(right, max_bytes=1 << 20) as receiver:
        sender.send(message)
        assert receiver.recv(5) == message


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_are_one_object_or_malformed_never_anything_else(data: bytes) -> None:
    left, right = socket.socketpair()
    with left, Channel(right) as receiver:
        left.sendall(len(data).to_bytes(4, "big") + data)
        try:
            message = receiver.recv(5)
        except MalformedMessage:
            return
        assert isinstance(message, dict)


def test_an_oversized_frame_is_refused_before_it_is_read() -> None:
    left, right = socket.socketpair()
    with left, Channel(right, max_bytes=4096) as receiver:
        left.sendall((10**9).to_bytes(4, "big"))  # a claimed gigabyte that never comes
        with pytest.raises(MalformedMessage, match="over the 4096 limit"):
            receiver.recv(5)


def test_a_short_service_folder_holds_the_socket_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    address, pointer = service_socket.service_address(None)
    assert (address, pointer) == (tmp_path / "mutreal" / "workers.sock", None)
    assert stat.S_IMODE(os.stat(tmp_path / "mutreal").st_mode) == 0o700
    assert service_socket.client_address() == address


def test_an_explicit_address_that_is_too_long_is_refused(tmp_path: Path) -> None:
    with pytest.raises(service_socket.UnsafeServicePath, match="too long for a socket"):
        service_socket.service_address(tmp_path / ("x" * 120) / "w.sock")


def test_something_else_at_the_socket_path_is_not_removed(tmp_path: Path) -> None:
    kept = tmp_path / "w.sock"
    kept.write_text("a user's file")
    with pytest.raises(service_socket.UnsafeServicePath, match="not your socket"):
        service_socket.remove_stale_socket(kept)
    assert kept.read_text() == "a user's file"
