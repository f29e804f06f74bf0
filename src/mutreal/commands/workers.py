"""``mutreal workers start|status|stop``: a background service of warm workers for ``--executor pool``.

A campaign started from the shell pays each worker's TensorFlow import (seconds) before its first run;
a loop of ``reproduce``/``kill`` calls pays it every time. The service keeps the workers warm between
commands (see :mod:`mutreal.execution.service`). Its socket, key and log live in a folder only the user
can enter; a folder or file there that another user could have made is refused (exit 2), never used.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from mutreal.commands.options import json_option, runner_option

_address_option = runner_option(
    "address",
    "Socket of the service; its folder must be yours and writable only by you "
    "[$MUTREAL_WORKERS, else workers.sock in $XDG_RUNTIME_DIR/mutreal or ~/.cache/mutreal].",
)


def _say(error: Exception) -> None:
    click.echo(str(error), err=True)


@contextmanager
def _service_errors(failure: type[Exception], say: Callable[[Exception], None] = _say) -> Iterator[None]:
    """A service path another user could have made: ``error: ...``, exit 2 (refused, never used);
    ``failure`` (no service answers, or it could not start): ``say`` it, exit 1."""
    from mutreal.execution.service import UnsafeServicePath

    try:
        yield
    except UnsafeServicePath as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    except failure as error:
        say(error)
        sys.exit(1)


@click.group()
def workers() -> None:
    """Keep warm workers in the background; campaigns use them with `--executor pool`."""


@workers.command()
@runner_option(
    "jobs",
    "Warm workers (0: none until a campaign) [cores/2].",
    flags=("--jobs", "-j"),
    type=click.IntRange(0),
)
@click.option(
    "--threads",
    "threads_per_worker",
    type=click.IntRange(1),
    default=None,
    help="TensorFlow threads per worker [cores/jobs]; campaigns with other settings start their own.",
)
@click.option("--foreground", is_flag=True, help="Serve in this terminal until Ctrl-C.")
@_address_option
def start(jobs: int | None, threads_per_worker: int | None, foreground: bool, address: str | None) -> None:
    """Start the service and wait until its workers have imported TensorFlow.

    Use the same --jobs as the campaigns that will use it: the TensorFlow thread count follows from
    it and is part of every run's key, so workers started with other settings are not reused.
    """
    from mutreal.execution.campaign_config import CampaignConfig
    from mutreal.execution.executor_choice import worker_options
    from mutreal.execution.service import start_service

    config = CampaignConfig(threads_per_worker=threads_per_worker)
    if jobs is not None:
        config.jobs = jobs
    options = worker_options(config)
    if foreground:
        from mutreal.execution import service

        service.main([address or "", str(config.jobs), json.dumps(options)])
        return
    began = time.monotonic()
    with _service_errors(RuntimeError, lambda error: click.echo(f"error: {error}", err=True)):
        status = start_service(config.jobs, options, address)
    pids = ", ".join(str(w.pid) for w in status.workers)
    click.echo(
        f"mutreal worker service pid {status.pid} at {status.address}: {len(status.workers)} warm "
        f"worker(s) (pids {pids}) after {time.monotonic() - began:.1f} s; "
        f"run campaigns with --executor pool; stop with `mutreal workers stop`"
    )


@workers.command()
@_address_option
@json_option("Print the status as JSON.")
def status(address: str | None, as_json: bool) -> None:
    """Print the service's workers and what it has run (exit 1 when none runs)."""
    from mutreal.execution.service import ServiceUnavailable, service_status

    def say(error: Exception) -> None:
        if as_json:
            click.echo(json.dumps({"running": False, "error": str(error)}))
        else:
            _say(error)

    with _service_errors(ServiceUnavailable, say):
        current = service_status(address)
    if as_json:
        click.echo(json.dumps({"running": True, **current.to_dict()}, indent=2))
        return
    age = time.time() - current.started_at
    state = "busy (a campaign is running)" if current.busy else "idle"
    click.echo(
        f"service pid {current.pid} at {current.address}, up {age:.0f} s, {state}; "
        f"{current.campaigns} campaign(s), {current.runs} run(s); Python {current.python}"
    )
    if current.refused_peers or current.failed_handshakes or current.rejected_messages:
        click.echo(
            f"  refused: {current.refused_peers} connection(s) of other users, "
            f"{current.failed_handshakes} without the key, {current.rejected_messages} malformed request(s)"
        )
    for worker in current.workers:
        threads = worker.options.get("threads")
        click.echo(
            f"  {worker.name}: pid {worker.pid}, {'alive' if worker.alive else 'dead'}, "
            f"{worker.runs_served} run(s) since its start, {threads} TensorFlow thread(s)"
        )


@workers.command()
@_address_option
def stop(address: str | None) -> None:
    """Stop the service and its workers (exit 1 when none runs)."""
    from mutreal.execution.service import ServiceUnavailable, stop_service

    with _service_errors(ServiceUnavailable):
        pid = stop_service(address)
    click.echo(f"stopped the mutreal worker service (pid {pid})")
