"""``mutreal run``: train programs N times each in warm sandboxed workers and store every run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from mutreal.commands.campaign_options import FRAMEWORK_HELP, ISOLATION_OPTIONS, MODERNIZE_HELP, apply
from mutreal.commands.options import file_option, input_file_option, json_option, parse_seeds, runner_option


def _fmt(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _summary_table(summaries: list[Any]) -> str:
    header = ("program", "N", "ok", "failed", "metric", "mean ± std", "min .. max")
    rows = [header]
    for s in summaries:
        failed = ", ".join(f"{k} {v}" for k, v in sorted(s.outcomes.items()) if k != "ok") or "-"
        metric = f"{s.metric_name} ({s.direction})" if s.metric_name else "-"
        if s.mean is not None:
            spread = f"{_fmt(s.mean)} ± {_fmt(s.std)}"
        else:  # runs that finished without a metric (no fit/evaluate) are not failures
            spread = "no metric reported" if s.n_ok else "no successful run"
        rows.append((Path(s.program).name, str(s.n), str(s.n_ok), failed, metric, spread,
                     f"{_fmt(s.minimum)} .. {_fmt(s.maximum)}"))  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def _seeds(ctx: click.Context, param: click.Parameter, value: str | None) -> list[int] | None:
    return parse_seeds(value, allow_empty=True)


@click.command()
@click.argument("programs", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@runner_option("runs", "Trainings per program, seeds 0..N-1 [10].", default=None)
@runner_option("seeds", "Explicit seeds, e.g. 0,1,2 (instead of --runs).", callback=_seeds)
@runner_option("jobs", "Parallel warm workers [cores/2].", flags=("--jobs", "-j"))
@runner_option(
    "executor",
    "Where runs execute [local]: local warm workers, a Ray cluster, or the `mutreal workers` service.",
    default=None,
)
@runner_option(
    "address",
    "Ray cluster address (--executor ray; default: local Ray) or worker service socket (--executor pool).",
)
@runner_option("timeout", "Time limit per run in seconds [3600].")
@runner_option("memory-limit", "Resident-memory limit per worker in MiB [80% of RAM / jobs].")
@runner_option("store", "SQLite run store; stored runs are reused, never trained twice.")
@click.option(
    "--metric", default=None, help="Compared metric [first metric of the last evaluate(), accuracy first]."
)
@runner_option("framework", FRAMEWORK_HELP + " [auto]", default=None)
@runner_option("modernize", MODERNIZE_HELP, default=None)
@runner_option(
    "repeat-crashes",
    "Train every seed of a program whose first run crashed before its first epoch [its other runs "
    "repeat that crash untrained].",
    default=None,
)
@click.option(
    "--deterministic/--no-deterministic",
    default=None,
    help="TensorFlow op determinism [on]; some GPU ops have no deterministic kernel.",
)
@click.option("--gpus-per-run", type=click.FloatRange(0), default=None, help="GPUs requested per run on Ray.")
@click.option(
    "--arg", "program_argv", multiple=True,
    help="A command-line argument every PROGRAM is given (sys.argv[1:]; repeatable, in order).",
)  # fmt: skip
@input_file_option(
    "--args-from", "args_manifest", default=None,
    help="A manifest whose args column (args_buggy / args_fixed per side) gives each PROGRAM it lists "
    "its own command-line arguments.",
)  # fmt: skip
@input_file_option(
    "--config", "config_path", default=None, help="A campaign's .config.yaml; options given here override it."
)
@file_option("--csv", "csv_path", help="Also write one row per run.")
@json_option("Print summaries and runs as JSON.")
@runner_option("quiet", "No progress bar.")
@apply(ISOLATION_OPTIONS)
def run(
    programs: tuple[str, ...],
    runs: int | None,
    seeds: list[int] | None,
    jobs: int | None,
    executor: str | None,
    address: str | None,
    timeout_s: float | None,
    memory_limit_mb: float | None,
    store: str | None,
    metric: str | None,
    modernize: bool | None,
    framework: str | None,
    repeat_crashes: bool | None,
    deterministic: bool | None,
    gpus_per_run: float | None,
    program_argv: tuple[str, ...],
    args_manifest: str | None,
    config_path: str | None,
    csv_path: str | None,
    as_json: bool,
    quiet: bool,
    sandbox_mode: str,
    env: tuple[str, ...],
) -> None:
    """Train each PROGRAM once per seed (unmodified; captured from outside) and summarise the metric.

    Prints mean, spread and N per program; runs that crash, time out, exceed the memory limit or
    miss data are recorded with their message and the campaign goes on (exit code 1 if any did).
    """
    from mutreal.execution import CampaignConfig, execute_campaign, records_to_rows, summarize
    from mutreal.execution.mutant_origin import ProvenanceError, provenance_data_folders
    from mutreal.execution.pool import workers_started_ahead
    from mutreal.manifest import ManifestError, program_args

    try:
        config = CampaignConfig.load(config_path) if config_path else None
    except (ValueError, OSError) as error:
        raise click.UsageError(f"cannot read --config {config_path}: {error}") from None
    if not programs and not (config and config.programs):
        raise click.UsageError("give at least one PROGRAM (or --config with programs)")
    if config is None:
        config = CampaignConfig()
    if gpus_per_run is not None:
        config.gpus_per_run = gpus_per_run
    if deterministic is not None:
        config.deterministic = deterministic
    try:
        own_args = program_args(args_manifest) if args_manifest else None
    except ManifestError as error:
        raise click.BadParameter(str(error), param_hint="--args-from") from None
    options: dict[str, Any] = {
        "programs": list(programs) if programs else None,
        "runs": runs,
        "jobs": jobs,
        "executor": executor,
        "address": address,
        "timeout_s": timeout_s,
        "memory_limit_mb": memory_limit_mb,
        "store": store,
        "seeds": seeds,
        "metric": metric,
        "modernize": modernize,
        "framework": framework,
        "repeat_crashes": repeat_crashes,
        "args": list(program_argv) if program_argv else None,
        "program_args": own_args,
        "sandbox_mode": sandbox_mode if sandbox_mode != "auto" else None,
        "env": list(env) or None,
    }
    try:
        # a mutant written elsewhere (mutate --out) runs in its original's folder, as compare runs it
        given = list(programs) if programs else list(config.programs or [])
        folders = {**provenance_data_folders(given), **config.data_folders}
    except ProvenanceError as error:
        raise click.UsageError(str(error)) from None
    if folders:
        options["data_folders"] = folders
    try:
        with workers_started_ahead(config, options):
            result = execute_campaign(**options, config=config, progress=not quiet)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    except RuntimeError as error:  # an unreachable Ray cluster, a worker service that went away: exit 1
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    records, campaign = result.records, result.facts()
    summaries = summarize(records, metric)
    if csv_path:
        import pandas as pd

        Path(csv_path).parent.mkdir(parents=True, exist_ok=True)  # as every other --out does
        pd.DataFrame(records_to_rows(records)).to_csv(csv_path, index=False)
    if as_json:
        payload = {
            "campaign": campaign,
            "summaries": [s.to_dict() for s in summaries],
            "runs": records_to_rows(records),
        }
        click.echo(json.dumps(payload, indent=2, default=str))
    else:
        click.echo(_summary_table(summaries))
    info = f"trained {campaign.get('trained', 0)}, reused {campaign.get('reused', 0)} from the store"
    info += f", {campaign.get('wall_time_s', 0.0):.1f} s"
    if campaign.get("gpu"):
        info += f"; GPU utilisation mean {campaign['gpu']['gpu_utilisation_mean']:.0f}%"
    click.echo(info, err=True)
    if campaign.get("config"):
        click.echo(f"configuration: {campaign['config']}\nmanifest: {campaign['manifest']}", err=True)
    failed = any(r.outcome != "ok" for r in records)
    sys.exit(1 if failed else 0)
