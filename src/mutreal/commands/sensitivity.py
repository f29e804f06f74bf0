"""``mutreal sensitivity PROGRAM --op ID --values ...``: the metric against an operator's parameter.

Writes one mutant per value (with its provenance JSON), trains the original and each mutant
``--runs`` times, and reports per value the metric's mean, spread and N and DeepCrime's kill
verdict, with a PNG plot (mean ± std over seeds, the original's band). ``--search`` runs
DeepCrime's binary search for the killable threshold: the value closest to the original that
still kills, between the original and the most aggressive value.
"""

from __future__ import annotations

import os
import shutil
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
)


def _parse_value(text: str) -> Any:
    text = text.strip()
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def _values(ctx: click.Context, param: click.Parameter, value: str | None) -> list[Any] | None:
    if not value:
        return None
    return [_parse_value(part) for part in value.split(",") if part.strip()]


@click.command("sensitivity")
@click.argument("program", type=click.Path(exists=True, dir_okay=False))
@click.option("--op", "operator", required=True, help="Operator id (e.g. HLR, TRD, HNE, ACH).")
@click.option(
    "--site", type=click.IntRange(0), default=0, show_default=True, help="Site number of the operator."
)
@click.option(
    "--values",
    "values",
    callback=_values,
    default=None,
    help="Comma-separated parameter values (default: the operator's catalogue values).",
)
@click.option("--search", is_flag=True, help="DeepCrime's binary search for the killable threshold.")
@click.option("--search-steps", type=click.IntRange(1), default=4, show_default=True)
@click.option(
    "--search-from", default=None, help="Most aggressive value to search from (default: farthest value)."
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Output folder: the plot, and the mutants (which read the program's data files) in "
    "<out>/mutants/ [./sensitivity-<program>-<op>/].",
)
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="PNG plot path (default: <out>/sensitivity_<program>_<op>.png).",
)
@campaign_options
@statistics_options
def sensitivity(
    program: str,
    operator: str,
    site: int,
    values: list[Any] | None,
    search: bool,
    search_steps: int,
    search_from: str | None,
    out_dir: Path | None,
    plot_path: Path | None,
    runs: int,
    seeds: list[int] | None,
    as_json: bool,
    statistics: dict[str, Any],
    campaign: dict[str, Any],
) -> None:
    """Train mutants of PROGRAM over values of one operator's parameter; plot metric vs value."""
    from mutreal.campaigns.sensitivity import sensitivity as sensitivity_api
    from mutreal.mutation.operators import MutationError, registry

    try:
        registry.get(operator)
    except (KeyError, ValueError, LookupError) as error:
        raise click.UsageError(f"unknown operator {operator!r}: {error}") from None
    out = out_dir if out_dir is not None else Path(f"sensitivity-{Path(program).stem}-{operator}")
    created = not out.exists()
    _mark_output_folder(out)
    try:
        data = verdict_data(
            lambda: sensitivity_api(
                program, operator, values, site=site, runs=runs, seeds=seeds, search=search,
                search_steps=search_steps, search_from=_parse_value(search_from) if search_from else None,
                out_dir=out / "mutants", statistics=statistics, campaign=campaign,
            ),
            (ValueError, RuntimeError, MutationError),
        )  # fmt: skip
    finally:  # a failure before any mutant was written leaves no empty folder behind
        if created:
            _remove_if_unused(out)
    plot = plot_path or out / f"sensitivity_{Path(program).stem}_{operator}.png"
    if data["points"]:
        plot_sensitivity(data, plot)
        data["plot"] = str(plot)
    if as_json:
        echo_json(data, default=str)
    else:
        print_sensitivity(data)
    if data["errors"] and not data["points"]:
        raise SystemExit(1)


def _mark_output_folder(out: Path) -> None:
    """Create the output folder, marked as mutreal's when new: the program's data hash skips it.

    The default folder is under the current directory, often the program's own folder: unmarked,
    the plot and mutants written there would change the program's run keys.
    """
    from mutreal.campaigns.sensitivity import mark_output_folder

    try:
        mark_output_folder(out)
    except OSError as error:
        click.echo(f"error: cannot write the output folder {out}: {error}", err=True)
        raise SystemExit(1) from None


def _remove_if_unused(out: Path) -> None:
    """Remove a folder this command created when it holds nothing but its marker and folders."""
    from mutreal.execution.hashing import OUTPUT_MARKER

    for _, _, files in os.walk(out):
        if any(name != OUTPUT_MARKER for name in files):
            return
    shutil.rmtree(out, ignore_errors=True)


def print_sensitivity(data: dict[str, Any]) -> None:
    original = data["original"]
    click.echo(
        f"{data['operator']} at site {data['site']} ({data['element']}), original value {data['original_value']!r}; "
        f"{original['metric'] or 'metric'}"
    )
    click.echo(f"  original: {fmt_series(original)}")
    click.echo(f"  {'value':>12}  {'mean ± std (N)':28}  {'p':>9}  {'d worse':>8}  killed")
    for point in data["points"]:
        click.echo(
            f"  {point['value']!s:>12}  {fmt_series(point['mutant']):28}  {fmt_number(point['p_value'], 4, True):>9}"
            f"  {fmt_number(point['d_worse'], 2):>8}  {'yes' if point['killed'] else 'no'}"
        )
    search = data.get("search")
    if search:
        if not search.get("searched"):
            click.echo(f"search: not run ({search['reason']})")
        elif search["killable"]:
            click.echo(
                f"search: killable; threshold {search['threshold']} (last surviving {search['last_surviving']}, "
                f"from {search['from']} towards {search['original']})"
            )
        else:
            click.echo(f"search: not killable even at {search['from']}")
    if "plot" in data:
        click.echo(f"plot: {data['plot']}")
    for error in data["errors"]:
        click.echo(f"error: {error}", err=True)


def plot_sensitivity(data: dict[str, Any], path: Path) -> None:
    """Metric (mean ± std over seeds) against the parameter value; the original as a band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = [p for p in data["points"] if p["mutant"]["summary"]["n"]]
    numeric = all(isinstance(p["value"], (int, float)) for p in points)
    figure, axes = plt.subplots(figsize=(6.4, 4.0))
    xs: list[Any] = [p["value"] for p in points] if numeric else list(range(len(points)))
    means = [p["mutant"]["summary"]["mean"] for p in points]
    stds = [p["mutant"]["summary"]["std"] or 0.0 for p in points]
    colours = ["tab:red" if p["killed"] else "tab:blue" for p in points]
    axes.errorbar(xs, means, yerr=stds, fmt="-", color="grey", alpha=0.6, capsize=3)
    axes.scatter(xs, means, c=colours, zorder=3)
    summary = data["original"]["summary"]
    if summary["n"]:
        low, high = summary["mean"] - (summary["std"] or 0.0), summary["mean"] + (summary["std"] or 0.0)
        axes.axhspan(low, high, color="tab:green", alpha=0.2, label=f"original (N={summary['n']})")
        axes.axhline(summary["mean"], color="tab:green", linewidth=1)
    if numeric and xs and min(xs) > 0 and max(xs) / min(xs) >= 100:
        axes.set_xscale("log")
    if not numeric:
        axes.set_xticks(xs, [str(p["value"]) for p in points], rotation=30)
    search = data.get("search") or {}
    if search.get("killable"):
        axes.axvline(search["threshold"], color="tab:red", linestyle="--", label="killable threshold")
    n = points[0]["mutant"]["summary"]["n"] if points else 0
    axes.set_xlabel(f"{data['operator']} value (site {data['site']})")
    axes.set_ylabel(f"{data['original']['metric'] or 'metric'} (mean ± std, N={n})")
    axes.set_title(f"{Path(data['program']).name}: {data['operator']} sensitivity (red: killed)")
    axes.legend(loc="best", fontsize="small")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
