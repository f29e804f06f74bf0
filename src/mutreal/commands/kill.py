"""``mutreal kill ORIGINAL MUTANT...``: DeepCrime's kill verdict per mutant, the Fisher verdict, Holm.

Trains the original and every mutant ``--runs`` times with the same seeds (one campaign, shared warm
workers), then per mutant: DeepCrime's rule (GLM p < 0.05 and Cohen's d >= 0.5 towards worse;
crashes kill when significantly more frequent), the same after Holm's correction across the
mutants, and Kim et al.'s monotone per-input Fisher verdict (needs labelled ``evaluate()`` inputs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from mutreal.analysis.settings import DecisionSettings
from mutreal.commands.campaign_options import verdict_options
from mutreal.commands.settings import AdaptiveSettings, RunSettings
from mutreal.commands.verdict_output import (
    echo_failed_mutant,
    fail,
    fmt_number,
    fmt_series,
    print_failed_mutants,
    show_verdict,
    yes_no,
)


@click.command("kill")
@click.argument("original", type=click.Path(exists=True, dir_okay=False))
@click.argument("mutants", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@verdict_options(adaptive=True)
def kill(
    original: str,
    mutants: tuple[str, ...],
    as_json: bool,
    run: RunSettings,
    statistics: DecisionSettings,
    adaptive: AdaptiveSettings,
) -> None:
    """Train ORIGINAL and each MUTANT many times; is each mutant killed?"""
    from mutreal.campaigns.pair import kill as kill_api

    not_python = [m for m in mutants if not m.endswith(".py")]
    if not_python:  # a provenance .json would "crash" and count as a killed mutant
        raise click.UsageError(
            f"not Python programs: {', '.join(not_python[:3])}; mutate writes a .json record next to "
            "each mutant, so pass mutants/*.py"
        )

    def add_runs_saved(data: dict[str, Any]) -> None:
        if adaptive.adaptive:
            data["runs_saved"] = sum(
                m["sequential"]["runs_saved"] for m in data["mutants"] if m["sequential"]
            ) + (len(run.planned_seeds()) - data["original"]["runs"])

    data = show_verdict(
        lambda: kill_api(
            original, list(mutants), **run.api_kwargs(), statistics=statistics, **adaptive.api_kwargs()
        ),
        as_json,
        print_kill,
        amend=add_runs_saved,
    )
    if not data["original"]["summary"]["n"]:  # every mutant "survives" an original that never trains
        fail(f"{original} has no successful run: no mutant can be judged against it")


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
        failure = mutant["failure"]
        if failure is not None:  # not the model's failure: no verdict, listed with its error
            echo_failed_mutant(name, width, failure)
            continue
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
    from mutreal.analysis.run_failures import (
        KINDS,  # here: it imports the runner, which `pip install .` lacks
    )

    judged = len(data["mutants"]) - sum(data["failed_mutants"].get(kind, 0) for kind in KINDS)
    print_failed_mutants(data["failed_mutants"])
    click.echo(
        f"killed {data['killed']}/{judged} (mutation score {fmt_number(score, 2)}), "
        f"after Holm {data['killed_holm']}, Fisher {data['fisher_killed']} (pool-corrected {data['fisher_killed_pool']})"
    )
    if "runs_saved" in data:
        click.echo(f"adaptive: {data['runs_saved']} trainings saved")
    for note in data["notes"]:
        click.echo(f"note: {note}", err=True)
