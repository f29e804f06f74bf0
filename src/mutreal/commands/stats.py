"""``mutreal stats A.csv B.csv``: the kill / reproduction statistics for runs made elsewhere.

Each CSV has a header and one row per run in seed order, a ``metric`` column (another with
``--column``) and optionally a ``crashed`` column (0/1, true/false). A crashed row, or one whose
metric is empty or not a finite number, takes no part in the metric test but counts in the
per-seed stability. Prints a table (mean, spread and N of each side, test, p, Cohen's d, power,
verdict) or, with ``--json``, the :class:`mutreal.stats.GroupComparison` as JSON.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

import click

from mutreal.commands.campaign_options import alpha_option, statistical_test_option
from mutreal.commands.options import choice_option, json_option
from mutreal.stats.two_groups import REPRODUCTION_EFFECT

_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f", ""}


def read_runs_csv(path: Path, column: str = "metric") -> tuple[list[float], list[bool]]:
    """(metrics, crashed) of one CSV of runs; raises ``ValueError`` with the row on bad content."""
    with path.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None:
            raise ValueError(f"{path}: empty file, expected a header with a {column!r} column")
        fields = [f.strip() for f in reader.fieldnames]
        if column not in fields:
            raise ValueError(f"{path}: no {column!r} column (columns: {', '.join(fields)})")
        reader.fieldnames = fields
        metrics: list[float] = []
        crashed: list[bool] = []
        for line, row in enumerate(reader, start=2):
            flag_text = (row.get("crashed") or "").strip().lower()
            if flag_text not in _TRUE | _FALSE:
                raise ValueError(f"{path}:{line}: crashed must be 0/1, got {row.get('crashed')!r}")
            flag = flag_text in _TRUE
            text = (row.get(column) or "").strip()
            if text == "" or text.lower() in {"nan", "none", "null", "na"}:
                value = math.nan
            else:
                try:
                    value = float(text)
                except ValueError:
                    raise ValueError(f"{path}:{line}: {column} is not a number: {text!r}") from None
            metrics.append(value)
            crashed.append(flag)
    if not metrics:
        raise ValueError(f"{path}: no runs (no rows after the header)")
    return metrics, crashed


def _fmt(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}"


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3g}" if value >= 1e-4 or value == 0 else f"{value:.2e}"


@click.command("stats")
@click.argument("a_csv", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("b_csv", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--lower-is-better", is_flag=True, help="The metric is loss-like: smaller values are better.")
@statistical_test_option("glm: DeepCrime's GLM; mannwhitney: Mann-Whitney U; wilcoxon: paired by row.")
@click.option("--column", default="metric", show_default=True, help="Column holding the metric.")
@alpha_option()
@click.option(
    "--min-effect",
    type=click.FloatRange(0),
    default=REPRODUCTION_EFFECT,
    show_default=True,
    help="Smallest |Cohen's d| for a verdict other than 'no difference'.",
)
@click.option(
    "--adaptive",
    is_flag=True,
    help="Replay the sequential rule over the rows in order and report the runs it would save.",
)
@choice_option(
    "--adaptive-target",
    choices=["better", "worse"],
    default="better",
    help="What --adaptive decides: is B better than A (reproduction) or worse (kill)?",
)
@json_option("Print JSON instead of a table.")
def stats(
    a_csv: Path,
    b_csv: Path,
    lower_is_better: bool,
    test_name: str,
    column: str,
    alpha: float,
    min_effect: float,
    adaptive: bool,
    adaptive_target: str,
    as_json: bool,
) -> None:
    """Compare the runs in A_CSV with those in B_CSV: p-value, Cohen's d, power, verdict."""
    from mutreal.stats import compare_groups, sequential_decision

    runs = []
    for path in (a_csv, b_csv):
        try:
            runs.append(read_runs_csv(path, column))
        except (UnicodeDecodeError, csv.Error) as error:  # their messages do not name the file
            raise click.UsageError(f"{path}: cannot read as CSV text: {error}") from None
        except ValueError as error:
            raise click.UsageError(str(error)) from None
    (metrics_a, crashed_a), (metrics_b, crashed_b) = runs
    result = compare_groups(
        metrics_a,
        metrics_b,
        crashed_a=crashed_a,
        crashed_b=crashed_b,
        test=test_name,
        lower_is_better=lower_is_better,
        alpha=alpha,
        min_effect=min_effect,
    )
    data = result.to_dict()
    data["a_file"], data["b_file"], data["metric"] = str(a_csv), str(b_csv), column
    sequential = None
    if adaptive:
        sequential = sequential_decision(
            metrics_a,
            metrics_b,
            crashed_a=crashed_a,
            crashed_b=crashed_b,
            target="b better" if adaptive_target == "better" else "b worse",
            effect=min_effect if adaptive_target == "better" else 0.5,
            lower_is_better=lower_is_better,
            alpha=alpha,
        )
        data["sequential"] = sequential.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2, allow_nan=False))
        return
    _print_table(data, a_csv, b_csv)
    if sequential is not None:
        click.echo(
            f"adaptive ({sequential.target}): decided {'yes' if sequential.decision else 'no'} after "
            f"{sequential.used_runs} of {sequential.planned_runs} runs per side; "
            f"{sequential.runs_saved} trainings saved"
        )


def _print_table(data: dict, a_csv: Path, b_csv: Path) -> None:
    rows = [("A", a_csv.name, data["a"], data["runs_a"], data["failed_a"]),
            ("B", b_csv.name, data["b"], data["runs_b"], data["failed_b"])]  # fmt: skip
    width = max(len(r[1]) for r in rows) + 4
    click.echo(
        f"{'':{width}} {'N':>4} {'failed':>6} {'mean':>9} {'std':>9} {'median':>9} {'min':>9} {'max':>9}"
    )
    for side, name, summary, _runs, failed in rows:
        label = f"{side} {name}"
        click.echo(
            f"{label:{width}} {summary['n']:>4} {failed:>6} {_fmt(summary['mean']):>9} {_fmt(summary['std']):>9}"
            f" {_fmt(summary['median']):>9} {_fmt(summary['minimum']):>9} {_fmt(summary['maximum']):>9}"
        )
    direction = "lower is better" if data["lower_is_better"] else "higher is better"
    d = data["cohen_d"]
    d_text = d if isinstance(d, str) else f"{d:.3f}"
    click.echo(
        f"test {data['test']} ({direction}): p = {_p(data['p_value'])}, Cohen's d (A-B) = {d_text} "
        f"({data['effect']}), power for |d| = {data['power_effect']}: {_fmt(data['power'], 2)}, "
        f"detectable |d| at 80% power: {_fmt(data['detectable_effect'], 2)}"
    )
    share = data["stable_share"]
    share_text = "-" if share is None else f"{share:.0%} of seed indexes"
    click.echo(
        f"verdict: {data['verdict']} (stable: {'yes' if data['stable'] else 'no'}, leader wins at {share_text})"
    )
    for note in data["notes"]:
        click.echo(f"note: {note}", err=True)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(stats())
