"""``mutreal compare --buggy B --fixed F --mutants DIR``: how close is each mutant to the real fault?

The real fault is the buggy program seen as a mutant of the fixed one; each mutant (e.g. the
reconstruction of the fault by operators, or a higher-order mutant) is a mutant of the same fixed
program. All are trained ``--runs`` times with the same seeds, then per mutant: its metric
distribution against the buggy program's (``no difference`` = alike), whether it is killed when
the real fault is (killing agreement, DeepCrime and Fisher), the per-input killing probabilities
with 90% Wilson intervals, coupling strength and detectability IoU (Ahmed et al.).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from mutreal.commands.campaign_options import (
    campaign_options,
    echo_json,
    fmt_number,
    fmt_series,
    statistics_options,
    verdict_data,
    yes_no,
)


def mutant_files(paths: tuple[Path, ...], fixed: Path, buggy: Path) -> list[str]:
    """The ``.py`` files under each mutant path (a folder is searched recursively), sorted, deduplicated."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(p for p in sorted(path.rglob("*.py")) if "__pycache__" not in p.parts)
        else:
            found.append(path)
    skip = {fixed.resolve(), buggy.resolve()}
    unique: list[str] = []
    for path in found:
        if path.resolve() not in skip and str(path) not in unique:
            unique.append(str(path))
    return unique


@click.command("compare")
@click.option(
    "--buggy",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The buggy program (the real fault).",
)
@click.option(
    "--fixed",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The fixed program (the original the mutants were made from).",
)
@click.option(
    "--mutants",
    "mutant_paths",
    required=True,
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    help="A folder of mutant programs (searched for *.py) or a mutant file; repeatable.",
)
@campaign_options
@statistics_options
def compare(
    buggy: Path,
    fixed: Path,
    mutant_paths: tuple[Path, ...],
    runs: int,
    seeds: list[int] | None,
    as_json: bool,
    statistics: dict[str, Any],
    campaign: dict[str, Any],
) -> None:
    """Train BUGGY, FIXED and each mutant many times and measure how alike mutants and fault are."""
    from mutreal.verdicts import compare as compare_api

    mutants = mutant_files(mutant_paths, fixed, buggy)
    not_python = [m for m in mutants if not m.endswith(".py")]
    if not_python:  # a provenance .json would "crash" and look like a mutant far from the fault
        raise click.UsageError(f"--mutants: not Python programs: {', '.join(not_python[:3])}")
    if not mutants:
        raise click.UsageError(f"no mutant programs (*.py) under {', '.join(map(str, mutant_paths))}")
    data = verdict_data(
        lambda: compare_api(
            str(buggy), str(fixed), mutants, runs=runs, seeds=seeds,
            **statistics, campaign=campaign,
        ),
    )  # fmt: skip
    if as_json:
        echo_json(data)
    else:
        print_compare(data)
    if not data["fixed"]["summary"]["n"]:  # a fix that never trains is an input that failed
        click.echo(f"error: {fixed} has no successful run: nothing to compare with", err=True)
        raise SystemExit(1)


def print_compare(data: dict[str, Any]) -> None:
    """The real fault first, then one line per mutant."""
    fixed, buggy, fault = data["fixed"], data["buggy"], data["fault"]
    direction = "lower is better" if fixed["lower_is_better"] else "higher is better"
    click.echo(f"{fixed['metric'] or 'metric'} ({direction})")
    click.echo(f"  fixed  {Path(fixed['program']).name}: {fmt_series(fixed)}")
    click.echo(f"  buggy  {Path(buggy['program']).name}: {fmt_series(buggy)}")
    kp = fault["kp"]
    kp_text = "" if kp is None else f"; inputs with KP > 0: {kp['inputs_killing']}/{kp['n_inputs']}"
    click.echo(
        f"real fault: killed {yes_no(fault['killed'])} (p = {fmt_number(fault['kill']['comparison']['p_value'], 4, True)},"
        f" d = {fmt_number(fault['kill']['d_worse'], 2)}), Fisher {yes_no(fault['fisher_killed'])}"
        f" (pool-corrected {yes_no(fault['fisher_killed_pool'])}){kp_text}"
    )
    names = [Path(m["program"]).name for m in data["mutants"]]
    width = max([len(n) for n in names] + [6])
    click.echo(
        f"{'mutant':{width}}  {'mean ± std (N)':28}  {'vs fault':>13}  {'p':>9}  {'killed':>6}  {'agree':>5}"
        f"  {'Fisher':>6}  {'agree':>5}  {'CS':>6}  {'IoU':>6}"
    )
    for name, mutant in zip(names, data["mutants"], strict=True):
        versus = mutant["metric_vs_fault"]
        verdict = {"no difference": "alike", "b better": "mutant better", "a better": "mutant worse"}[
            versus["verdict"]
        ]
        click.echo(
            f"{name:{width}}  {fmt_series(mutant['mutant']):28}  {verdict:>13}  "
            f"{fmt_number(versus['p_value'], 4, True):>9}  {yes_no(mutant['killed']):>6}  "
            f"{yes_no(mutant['killing_agreement']):>5}  {yes_no(mutant['fisher_killed']):>6}  "
            f"{yes_no(mutant['fisher_agreement']):>5}  {fmt_number(mutant['coupling_strength'], 3):>6}  "
            f"{fmt_number(mutant['detectability_iou'], 3):>6}"
        )
    for note in data["notes"]:
        click.echo(f"note: {note}", err=True)
