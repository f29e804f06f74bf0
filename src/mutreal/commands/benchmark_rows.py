"""The ``--manifest`` side of ``reproduce`` and ``compare``: read a benchmark, write one JSON line per bug.

Both commands decide bug after bug and append each row as soon as it is decided (so an interrupted
run resumes from ``--out``), with a progress bar on stderr and exit status 1 when some bug was not
decided. That loop lives here once; each command says only how its rows are made and which
statuses count as undecided.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any

import click


def require_manifest(manifest: str) -> None:
    """A ``--manifest`` that is not a file is a usage error, said before any other option is checked."""
    from pathlib import Path

    if not Path(manifest).is_file():
        raise click.BadParameter(f"{manifest} does not exist", param_hint="--manifest")


def planned_seeds(seeds: list[int] | None, runs: int) -> list[int]:
    """The seeds every bug of a benchmark trains with: ``--seeds``, else ``0 .. --runs - 1``."""
    return list(seeds) if seeds is not None else list(range(runs))


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
    campaign: dict[str, Any],
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
               disable=None if campaign.get("progress", True) else True)  # fmt: skip
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
