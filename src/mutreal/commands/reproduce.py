"""``mutreal reproduce BUGGY FIXED``: is a real fault reproduced, and stably so (the study's RQ5)?

Trains both programs ``--runs`` times (same seeds), then applies the realism study's rule
(:mod:`mutreal.stats.reproduction`): a crash symptom is reproduced when the buggy program fails and
the fixed does not; a performance symptom when the fixed program is better with GLM p < 0.05 and
|Cohen's d| >= 0.2; stable when that holds at every seed index. ``--json`` prints at least
``reproduced``, ``stable``, ``symptom`` and the statistics of ``mutreal stats`` under ``stats``.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from mutreal.commands.benchmark_rows import (
    planned_seeds,
    read_benchmark_tasks,
    require_manifest,
    write_benchmark_rows,
)
from mutreal.commands.campaign_options import (
    ADAPTIVE_OPTIONS,
    apply,
    campaign_options,
    echo_json,
    fmt_number,
    fmt_series,
    statistics_options,
    verdict_data,
)
from mutreal.stats.reproduction import SYMPTOMS


@click.command("reproduce")
@click.argument("buggy", type=click.Path(exists=True, dir_okay=False), required=False)
@click.argument("fixed", type=click.Path(exists=True, dir_okay=False), required=False)
@click.option(
    "--manifest", type=click.Path(dir_okay=False), default=None,
    help="A benchmark: CSV id,benchmark,buggy,fixed[,symptom,metric,lower_is_better,entry]; one JSON line per bug.",
)  # fmt: skip
@click.option(
    "--out", type=click.Path(dir_okay=False), default=None,
    help="With --manifest: append rows here (bugs already in it are skipped: resume); default stdout.",
)  # fmt: skip
@click.option(
    "--symptom",
    type=click.Choice(SYMPTOMS),
    default="auto",
    show_default=True,
    help="crash: buggy fails, fixed does not; performance: fixed significantly better.",
)
@campaign_options
@statistics_options
@apply(ADAPTIVE_OPTIONS)
def reproduce(
    buggy: str | None,
    fixed: str | None,
    manifest: str | None,
    out: str | None,
    symptom: str,
    runs: int,
    seeds: list[int] | None,
    as_json: bool,
    adaptive: bool,
    min_runs: int,
    step: int,
    statistics: dict[str, Any],
    campaign: dict[str, Any],
) -> None:
    """Train BUGGY and FIXED many times and say whether the fault is reproduced and stable.

    With --manifest, every bug of a benchmark, one JSON line each as soon as it is decided."""
    from mutreal.campaigns.pair import reproduce as reproduce_api

    if manifest is not None:
        if buggy or fixed:
            raise click.UsageError("give either BUGGY FIXED or --manifest, not both")
        with stopped_cleanly_by_signals(out):
            reproduce_benchmark(manifest, out, runs, seeds, statistics, campaign)
        return
    if not (buggy and fixed):
        raise click.UsageError("give BUGGY and FIXED, or --manifest")
    if out is not None:
        raise click.UsageError("--out goes with --manifest")

    data = verdict_data(
        lambda: reproduce_api(
            buggy, fixed, runs=runs, seeds=seeds, symptom=symptom, adaptive=adaptive, min_runs=min_runs,
            step=step, statistics=statistics, campaign=campaign,
        ),
    )  # fmt: skip
    if as_json:
        echo_json(data)
    else:
        print_reproduction(data)
    if not data["fixed"]["outcomes"].get("ok"):  # a fix that never completes is an input that failed
        click.echo(f"error: {fixed} has no completed run: nothing to compare with", err=True)
        raise SystemExit(1)


def print_reproduction(data: dict[str, Any]) -> None:
    """The reproduction verdict for people."""
    stats = data["stats"]
    metric = data["metric"] or "metric"
    direction = "lower is better" if data["lower_is_better"] else "higher is better"
    width = max(len(Path(data["buggy"]["program"]).name), len(Path(data["fixed"]["program"]).name))
    click.echo(f"{metric} ({direction})")
    for side in ("buggy", "fixed"):
        name = Path(data[side]["program"]).name
        click.echo(f"  {side}  {name:{width}}  {fmt_series(data[side])}")
    click.echo(
        f"{stats['test']}: p = {fmt_number(stats['p_value'], 4, p_value=True)}, Cohen's d (fixed better) = "
        f"{fmt_number(stats['d_b_better'], 3)} ({stats['effect']}), power for |d| = {stats['power_effect']}: "
        f"{fmt_number(stats['power'], 2)}"
    )
    share = data.get("fixed_better_share")
    click.echo(
        f"reproduced: {'yes' if data['reproduced'] else 'no'} ({data['symptom']} symptom; {data['reason']})"
    )
    click.echo(
        f"stable: {'yes' if data['stable'] else 'no'}"
        + ("" if share is None else f" (fixed better or crash gone at {share:.0%} of seed indexes)")
    )
    sequential = data.get("sequential")
    if sequential:
        click.echo(
            f"adaptive: stopped after {sequential['used_runs']} of {sequential['planned_runs']} runs per program, "
            f"{sequential['runs_saved']} trainings saved"
        )


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


def reproduce_benchmark(
    manifest: str,
    out: str | None,
    runs: int,
    seeds: list[int] | None,
    statistics: dict[str, Any],
    campaign: dict[str, Any],
) -> None:
    """``reproduce --manifest``: exit 0 when every bug was decided, 1 when some are errors or lack data."""
    from mutreal.campaigns.reproduce import reproduce_manifest

    require_manifest(manifest)
    tasks = read_benchmark_tasks(manifest)
    seed_list = planned_seeds(seeds, runs)
    write_benchmark_rows(
        tasks, out, campaign,
        lambda skip, on_start: reproduce_manifest(
            tasks, seeds=seed_list, campaign=campaign, statistics=statistics, skip=skip, on_start=on_start,
        ),
        undecided=lambda status: status != "ok",
    )  # fmt: skip
