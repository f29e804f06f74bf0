"""``mutreal kill ORIGINAL MUTANT...``: DeepCrime's kill verdict per mutant, the Fisher verdict, Holm.

Trains the original and every mutant ``--runs`` times with the same seeds (one campaign, shared warm
workers), then per mutant: DeepCrime's rule (GLM p < 0.05 and Cohen's d >= 0.5 towards worse;
crashes kill when significantly more frequent), the same after Holm's correction across the
mutants, and Kim et al.'s monotone per-input Fisher verdict (needs labelled ``evaluate()`` inputs).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from mutreal.commands.campaign_options import (
    ADAPTIVE_OPTIONS,
    apply,
    campaign_options,
    echo_json,
    fmt_number,
    fmt_series,
    statistics_options,
    verdict_data,
    yes_no,
)


@click.command("kill")
@click.argument("original", type=click.Path(exists=True, dir_okay=False))
@click.argument("mutants", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@campaign_options
@statistics_options
@apply(ADAPTIVE_OPTIONS)
def kill(
    original: str,
    mutants: tuple[str, ...],
    runs: int,
    seeds: list[int] | None,
    as_json: bool,
    adaptive: bool,
    min_runs: int,
    step: int,
    statistics: dict[str, Any],
    campaign: dict[str, Any],
) -> None:
    """Train ORIGINAL and each MUTANT many times; is each mutant killed?"""
    from mutreal.campaigns.pair import kill as kill_api

    not_python = [m for m in mutants if not m.endswith(".py")]
    if not_python:  # a provenance .json would "crash" and count as a killed mutant
        raise click.UsageError(
            f"not Python programs: {', '.join(not_python[:3])}; mutate writes a .json record next to "
            "each mutant, so pass mutants/*.py"
        )

    data = verdict_data(
        lambda: kill_api(
            original, list(mutants), runs=runs, seeds=seeds, adaptive=adaptive, min_runs=min_runs, step=step,
            statistics=statistics, campaign=campaign,
        ),
    )  # fmt: skip
    if adaptive:
        planned = len(seeds) if seeds else runs
        data["runs_saved"] = sum(
            m["sequential"]["runs_saved"] for m in data["mutants"] if m["sequential"]
        ) + (planned - data["original"]["runs"])
    if as_json:
        echo_json(data)
    else:
        print_kill(data)
    if not data["original"]["summary"]["n"]:  # every mutant "survives" an original that never trains
        click.echo(f"error: {original} has no successful run: no mutant can be judged against it", err=True)
        sys.exit(1)


def print_kill(data: dict[str, Any]) -> None:
    """One line per mutant: mean ± std (N), p, Holm p, d, DeepCrime / Holm / Fisher verdicts."""
    original = data["original"]
    direction = "lower is better" if original["lower_is_better"] else "higher is better"
    click.echo(f"{original['metric'] or 'metric'} ({direction}); test {data['test']}, alpha {data['alpha']}")
    click.echo(f"original {Path(original['program']).name}: {fmt_series(original)}")
    names = [Path(m["program"]).name for m in data["mutants"]]
    width = max([len(n) for n in names] + [6])
    header = (
        f"{'mutant':{width}}  {'mean ± std (N)':28}  {'p':>9}  {'p Holm':>9}  {'d worse':>8}  "
        f"{'killed':>6}  {'Holm':>4}  {'Fisher':>6}  {'Fisher Holm':>11}  {'Fisher pool':>11}  {'killing inputs':>14}"
    )
    click.echo(header)
    for name, mutant in zip(names, data["mutants"], strict=True):
        fisher = mutant["fisher"]
        inputs = "-" if fisher is None else f"{fisher['n_killing_inputs']}/{fisher['n_inputs']}"
        killed = yes_no(mutant["killed"]) + (" (crash)" if mutant["killed_by"] == "crash" else "")
        click.echo(
            f"{name:{width}}  {fmt_series(mutant['mutant']):28}  {fmt_number(mutant['p_value'], 4, True):>9}  "
            f"{fmt_number(mutant['p_value_holm'], 4, True):>9}  {fmt_number(mutant['cohen_d'], 2):>8}  "
            f"{killed:>6}  {yes_no(mutant['killed_holm']):>4}  {yes_no(mutant['fisher_killed']):>6}  "
            f"{yes_no(mutant['fisher_killed_holm']):>11}  {yes_no(mutant['fisher_killed_pool']):>11}  {inputs:>14}"
        )
    score = data["mutation_score"]
    click.echo(
        f"killed {data['killed']}/{len(data['mutants'])} (mutation score {fmt_number(score, 2)}), "
        f"after Holm {data['killed_holm']}, Fisher {data['fisher_killed']} (pool-corrected {data['fisher_killed_pool']})"
    )
    if "runs_saved" in data:
        click.echo(f"adaptive: {data['runs_saved']} trainings saved")
    for note in data["notes"]:
        click.echo(f"note: {note}", err=True)
