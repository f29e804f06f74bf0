"""``mutreal compare --buggy B --fixed F --mutants DIR``: how close is each mutant to the real fault?

``compare --manifest M.csv`` does it for every bug of a benchmark (:mod:`mutreal.campaigns.compare`).

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

from mutreal.analysis.settings import DecisionSettings
from mutreal.commands.benchmark_rows import decide_benchmark
from mutreal.commands.campaign_options import verdict_options
from mutreal.commands.options import file_option, input_file_option
from mutreal.commands.settings import RunSettings
from mutreal.commands.verdict_output import (
    echo_failed_mutant,
    fail,
    fmt_number,
    fmt_series,
    print_failed_mutants,
    show_verdict,
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
@input_file_option("--buggy", path_type=Path, help="The buggy program (the real fault).")
@input_file_option(
    "--fixed", path_type=Path, help="The fixed program (the original the mutants were made from)."
)
@click.option(
    "--mutants",
    "mutant_paths",
    multiple=True,
    help="With --buggy/--fixed: a folder of mutant programs (searched for *.py) or a mutant file; repeatable. "
    "With --manifest: reconstruct (default: the operators classify matched, with the fault's values), "
    "all (every first-order mutant at the catalogue's values) or DIR (DIR/<bug id>/*.py).",
)
@file_option(
    "--manifest",
    help="A benchmark: CSV id,benchmark,buggy,fixed[,metric,lower_is_better,entry]; one JSON line per bug.",
)
@input_file_option(
    "--results", default=None,
    help="With --manifest: classify results JSONL of the manifest (default: the bugs are classified first).",
)  # fmt: skip
@file_option(
    "--out",
    help="With --manifest: append rows here (bugs already in it are skipped: resume); mutants and the run "
    "store go to <out>.work/. Default: stdout, with a temporary folder.",
)
@click.option(
    "--tolerance", type=click.FloatRange(0), default=None,
    help="With --manifest, regression outputs: an input is correct when |prediction - target| <= this "
    "(default: a tenth of the evaluated targets' range). Each row names the rule used.",
)  # fmt: skip
@verdict_options()
def compare(
    buggy: Path | None,
    fixed: Path | None,
    mutant_paths: tuple[str, ...],
    manifest: str | None,
    results: str | None,
    out: str | None,
    tolerance: float | None,
    as_json: bool,
    run: RunSettings,
    statistics: DecisionSettings,
) -> None:
    """Train BUGGY, FIXED and each mutant many times and measure how alike mutants and fault are.

    With --manifest, every bug of a benchmark against its mutants, one JSON line each as soon as
    it is decided."""
    from mutreal.campaigns.pair import compare as compare_api

    if manifest is not None:
        if buggy or fixed:
            raise click.UsageError("give either --buggy/--fixed or --manifest, not both")
        if len(mutant_paths) > 1:
            raise click.UsageError("with --manifest, --mutants is one of reconstruct, all or a folder")
        compare_benchmark(manifest, results, mutant_paths[0] if mutant_paths else "reconstruct", out,
                          tolerance, run, statistics)  # fmt: skip
        return
    if not (buggy and fixed and mutant_paths):
        raise click.UsageError("give --buggy, --fixed and --mutants, or --manifest")
    for name, value in (("--results", results), ("--out", out), ("--tolerance", tolerance)):
        if value is not None:
            raise click.UsageError(f"{name} goes with --manifest")
    paths = tuple(Path(p) for p in mutant_paths)
    absent = [str(p) for p in paths if not p.exists()]
    if absent:
        raise click.BadParameter(f"{absent[0]} does not exist", param_hint="--mutants")
    mutants = mutant_files(paths, fixed, buggy)
    not_python = [m for m in mutants if not m.endswith(".py")]
    if not_python:  # a provenance .json would "crash" and look like a mutant far from the fault
        raise click.UsageError(f"--mutants: not Python programs: {', '.join(not_python[:3])}")
    if not mutants:
        raise click.UsageError(f"no mutant programs (*.py) under {', '.join(map(str, paths))}")
    data = show_verdict(
        lambda: compare_api(str(buggy), str(fixed), mutants, **run.api_kwargs(), statistics=statistics),
        as_json,
        print_compare,
    )
    if not data["fixed"]["summary"]["n"]:  # a fix that never trains is an input that failed
        fail(f"{fixed} has no successful run: nothing to compare with")


def compare_benchmark(
    manifest: str,
    results: str | None,
    mode: str,
    out: str | None,
    tolerance: float | None,
    run: RunSettings,
    statistics: DecisionSettings,
) -> None:
    """``compare --manifest``: exit 0 when every bug was decided (with or without mutants), 1 otherwise."""
    from mutreal.campaigns.compare import compare_manifest, read_classified
    from mutreal.campaigns.mutants import MODES

    work = f"{Path(out).resolve()}.work" if out else None
    classified: dict[str, Any] | None = None

    def check() -> None:  # the --mutants mode and the --results file, before the manifest is read
        nonlocal classified
        if mode not in MODES and not Path(mode).is_dir():
            raise click.BadParameter(
                f"{mode!r} is neither {' nor '.join(MODES)} nor a folder", param_hint="--mutants"
            )
        classified = read_classified(results) if results else None

    def rows(tasks: list[Any], seeds: list[int], skip: dict[str, str], on_start: Any) -> Any:
        return compare_manifest(
            tasks, seeds=seeds, mode=mode, work=work, campaign=run.campaign(), statistics=statistics,
            classified=classified, tolerance=tolerance, skip=skip, on_start=on_start,
        )  # fmt: skip

    decide_benchmark(
        manifest, out, run, rows,
        undecided=lambda status: status in ("error", "missing-data"),
        json_default=str, check=check,
    )  # fmt: skip


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
        failure = mutant["failure"]
        if failure is not None:  # not the model's failure: no verdict, listed with its error
            echo_failed_mutant(name, width, failure)
            continue
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
    print_failed_mutants(data["failed_mutants"])
    if data["fault"]["not_reproduced"] is not None:
        click.echo(not_reproduced_line(data["fault"]["not_reproduced"]))
    for note in data["notes"]:
        click.echo(f"note: {note}", err=True)


def not_reproduced_line(not_reproduced: dict[str, Any]) -> str:
    """The line of a fault that does not reproduce: the reason, both programs' means and runs."""

    def side(name: str) -> str:
        data = not_reproduced[name]
        mean = "-" if data["mean"] is None else f"{data['mean']:.4f}"
        return f"{name} mean {mean} over {data['n']} of {data['runs']} runs"

    return f"{not_reproduced['reason']} ({side('buggy')}, {side('fixed')}): coupling strength and IoU are null"
