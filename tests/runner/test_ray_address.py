"""A Ray cluster address that nothing answers fails within seconds with a clear message (not minutes)."""

from __future__ import annotations

import socket
import time

import pytest
from click.testing import CliRunner

from mutreal.execution.ray_executor import (
    RayClusterUnreachable,
    RayExecutor,
    address_endpoint,
    check_ray_address,
)


def _unused_port() -> int:
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    ("address", "endpoint"),
    [
        ("10.0.0.5:6380", ("10.0.0.5", 6380)),
        ("head-node", ("head-node", 6379)),
        ("ray://head-node", ("head-node", 10001)),
        ("ray://10.0.0.5:10002", ("10.0.0.5", 10002)),
        ("[::1]:6379", ("::1", 6379)),
        ("auto", None),
        ("local", None),
        ("anyscale://my-cluster", None),
    ],
)
def test_address_endpoint_is_what_ray_connects_to_first(address, endpoint):
    assert address_endpoint(address) == endpoint


def test_a_port_that_is_not_a_number_is_reported_with_the_address():
    with pytest.raises(RayClusterUnreachable, match="'head:63x9'"):
        address_endpoint("head:63x9")


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_an_unused_local_port_fails_fast_naming_the_address(scheme):
    address = f"{scheme}127.0.0.1:{_unused_port()}"
    started = time.monotonic()
    with pytest.raises(RayClusterUnreachable) as raised:
        check_ray_address(address)
    assert time.monotonic() - started < 10
    message = str(raised.value)
    assert repr(address) in message and "connection refused" in message and "ray start --head" in message


def test_a_listening_port_passes_the_check():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_ray_address(f"127.0.0.1:{server.getsockname()[1]}")


def test_executor_gives_up_before_ray_retries(tmp_path):
    pytest.importorskip("ray")
    import ray

    if ray.is_initialized():
        pytest.skip("Ray already initialised in this process")
    executor = RayExecutor(address=f"127.0.0.1:{_unused_port()}", jobs=1)
    started = time.monotonic()
    with pytest.raises(RayClusterUnreachable):
        executor.map([{"key": "k", "program": str(tmp_path / "p.py")}], lambda task, result: None)
    assert time.monotonic() - started < 30
    assert not ray.is_initialized()


def test_run_command_with_an_unreachable_address_exits_1_within_seconds(tmp_path):
    pytest.importorskip("ray")
    from mutreal.commands.run import run

    program = tmp_path / "prog.py"
    program.write_text("print('never runs')\n", encoding="utf-8")
    address = f"127.0.0.1:{_unused_port()}"
    started = time.monotonic()
    result = CliRunner().invoke(run, ["--executor", "ray", "--address", address, "-q", str(program)])
    assert time.monotonic() - started < 30
    assert result.exit_code == 1, result.output
    assert f"error: cannot reach the Ray cluster at {address!r}" in result.stderr
    assert "Traceback" not in result.output
