"""``mutreal reproduce BUGGY FIXED``: is a real fault reproduced, and stably so (the study's RQ5)?

Trains both programs ``--runs`` times (same seeds), then applies the realism study's rule
(:mod:`mutreal.stats.reproduction`): a crash symptom is reproduced when the buggy program fails and
the fixed does not; a performance symptom when the fixed program is better with GLM p < 0.05 and
|Cohen's d| >= 0.2; stable when that holds at every seed index. ``--json`` prints at least
``reproduced``, ``stable``, ``symptom`` and the statistics of ``mutreal stats`` under ``stats``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from mutreal.analysis.settings import DecisionSettings
from mutreal.commands.benchmark_rows import decide_benchmark
from mutreal.commands.campaign_options import verdict_options
from mutreal.commands.options import choice_option, file_option
from mutreal.commands.settings import AdaptiveSettings, RunSettings
from mutreal.commands.verdict_output import fail, fmt_number, fmt_series, show_verdict
from mutreal.stats.reproduction import SYMPTOMS


@click.command("reproduce")
@click.argument("buggy", type=click.Path(exists=True, dir_okay=False), required=False)
@click.argument("fixed", type=click.Path(exists=True, dir_okay=False), required=False)
@file_option(
    "--manifest",
    help="A benchmark: CSV id,benchmark,buggy,fixed[,symptom,metric,lower_is_better,entry]; one JSON line per bug.",
)
@file_option(
    "--out",
    help="With --manifest: append rows here (bugs already in it are skipped: resume); default stdout.",
)
@choice_option(
    "--symptom",
    choices=SYMPTOMS,
    default="auto",
    help="crash: buggy fails, fixed does not; performance: fixed significantly better.",
)
@verdict_options(adaptive=True)
def reproduce(
    buggy: str | None,
    fixed: str | None,
    manifest: str | None,
    out: str | None,
    symptom: str,
    as_json: bool,
    run: RunSettings,
    statistics: DecisionSettings,
    adaptive: AdaptiveSettings,
) -> None:
    """Train BUGGY and FIXED many times and say whether the fault is reproduced and stable.

    With --manifest, every bug of a benchmark, one JSON line each as soon as it is decided."""
    from mutreal.campaigns.pair import reproduce as reproduce_api
    from mutreal.campaigns.reproduce import reproduce_manifest

    if manifest is not None:
        if buggy or fixed:
            raise click.UsageError("give either BUGGY FIXED or --manifest, not both")
        decide_benchmark(
            manifest, out, run,
            lambda tasks, seeds, skip, on_start: reproduce_manifest(
                tasks, seeds=seeds, campaign=run.campaign(), statistics=statistics, skip=skip,
                on_start=on_start,
            ),
            undecided=lambda status: status != "ok",
        )  # fmt: skip
        return
    if not (buggy and fixed):
        raise click.UsageError("give BUGGY and FIXED, or --manifest")
    if out is not None:
        raise click.UsageError("--out goes with --manifest")

    data = show_verdict(
        lambda: reproduce_api(
            buggy,
            fixed,
            symptom=symptom,
            **run.api_kwargs(),
            statistics=statistics,
            **adaptive.api_kwargs(),
        ),
        as_json,
        print_reproduction,
    )
    if not data["fixed"]["outcomes"].get("ok"):  # a fix that never completes is an input that failed
        fail(f"{fixed} has no completed run: nothing to compare with")


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
