"""The ``--manifest`` side of ``reproduce`` and ``compare``: read a benchmark, write one JSON line per bug.

Both commands decide bug after bug and append each row as soon as it is decided (so an interrupted
run resumes from ``--out``), with a progress bar of bugs on stderr (the benchmark campaign adds one
of its planned runs, naming the bug being trained) and exit status 1 when some bug was not
decided, and both end a run stopped by Ctrl-C or SIGTERM with one line saying how to resume. That
loop lives here once (:func:`decide_benchmark`); each command says only how its rows are made and
which statuses count as undecided.
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from mutreal.commands.settings import RunSettings

#: ``rows(tasks, seeds, skip, on_start)``: the decided rows of the bugs not in ``skip``, in order
RowsOfBenchmark = Callable[[list[Any], list[int], dict[str, str], Callable[[Any], None]], Iterable[Any]]


def decide_benchmark(
    manifest: str,
    out: str | None,
    run: RunSettings,
    rows: RowsOfBenchmark,
    undecided: Callable[[str], bool],
    json_default: Callable[[Any], Any] | None = None,
    check: Callable[[], None] | None = None,
) -> None:
    """``--manifest``: read the benchmark, append one JSON line per bug ``rows`` decides (resuming
    ``out``); exit 0 when every bug was decided, 1 when some were ``undecided``, 130 when stopped.

    ``check`` runs once the manifest is known to exist, before it is read (a usage error of the
    command's own options)."""
    with stopped_cleanly_by_signals(out):
        require_manifest(manifest)
        if check is not None:
            check()
        tasks = read_benchmark_tasks(manifest)
        seeds = run.planned_seeds()
        write_benchmark_rows(
            tasks, out, not run.quiet,
            lambda skip, on_start: rows(tasks, seeds, skip, on_start),
            undecided, json_default,
        )  # fmt: skip


@contextmanager
def stopped_cleanly_by_signals(out: str | None) -> Iterator[None]:
    """End a benchmark stopped by Ctrl-C or SIGTERM with one line saying how to resume, not a traceback.

    A scheduler or ``timeout`` sends SIGTERM, which by default kills the process on the spot; it is
    turned into the same interruption as Ctrl-C, so the output file is closed after its last whole
    line and the run store after its last whole run, and the same command resumes from them."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    except KeyboardInterrupt:
        where = f"the bugs decided so far are in {out}" if out else "give --out to keep the decided bugs"
        click.echo(f"\ninterrupted: {where}; run the same command again to resume", err=True)
        raise SystemExit(130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def require_manifest(manifest: str) -> None:
    """A ``--manifest`` that is not a file is a usage error, said before any other option is checked."""
    from pathlib import Path

    if not Path(manifest).is_file():
        raise click.BadParameter(f"{manifest} does not exist", param_hint="--manifest")


def read_benchmark_tasks(manifest: str) -> list[Any]:
    """The bugs of a benchmark manifest; a malformed one is a ``--manifest`` usage error."""
    from mutreal.campaigns.reproduce import ManifestError, read_reproduce_manifest

    try:
        return read_reproduce_manifest(manifest)
    except ManifestError as error:
        raise click.BadParameter(str(error), param_hint="--manifest") from None


def write_benchmark_rows(
    tasks: list[Any],
    out: str | None,
    progress: bool,
    decide: Callable[[dict[str, str], Callable[[Any], None]], Iterable[Any]],
    undecided: Callable[[str], bool],
    json_default: Callable[[Any], Any] | None = None,
) -> None:
    """Append one JSON line per row of ``decide(skip, on_start)`` to ``out`` (stdout without it).

    ``skip`` holds the bugs ``out`` already decided (resume); rows already there whose status is
    ``undecided`` count as failures too. Exit 1 after the last row when any bug was not decided.
    """
    from tqdm import tqdm

    from mutreal.campaigns.reproduce import already_decided

    skip = already_decided(out)
    ids = {task.id for task in tasks}
    bar = tqdm(total=len(tasks), initial=len(ids & set(skip)), unit="bug", file=sys.stderr,
               disable=None if progress else True)  # fmt: skip
    failed = sum(undecided(status) for bug_id, status in skip.items() if bug_id in ids)  # kept rows count too
    sink = open(out, "a", encoding="utf-8") if out else sys.stdout  # noqa: SIM115 (closed below)
    try:
        for row in decide(skip, lambda task: bar.set_description(task.id)):
            sink.write(json.dumps(row.to_dict(), allow_nan=False, default=json_default) + "\n")
            sink.flush()
            failed += undecided(row.status)
            bar.update(1)
    finally:
        bar.close()
        if out:
            sink.close()
    if failed:
        click.echo(f"{failed} bug(s) not decided (error or missing data): see their rows", err=True)
        raise SystemExit(1)
