"""``mutreal report``: the study's tables, plots and Markdown/HTML report for a classified benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import click

from mutreal.commands.options import json_option, out_folder_option
from mutreal.labelsfile import LabelsFormatError


@click.command()
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@out_folder_option(
    "Folder for report.md, report.html, report.json, plots/*.png and tables/*.csv.", path_type=Path
)
@json_option("Print the report (tables and figures) as one JSON object.")
@click.option("--no-plots", is_flag=True, help="Skip the plots (no matplotlib): tables only.")
@click.option("--title", default=None, help="Title of the report.")
@click.option(
    "--min-support",
    type=click.IntRange(min=1),
    default=None,
    help="Bugs a fault-code combination needs to be listed (default: 1, 2 from 50 bugs, 3 from 500).",
)
@click.option(
    "--realism",
    "realism_from",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Labels CSV whose `realistic` Y/N column marks the study's realistic subset (R columns).",
)
def report(
    source: Path,
    out_dir: Path | None,
    as_json: bool,
    no_plots: bool,
    title: str | None,
    min_support: int | None,
    realism_from: Path | None,
) -> None:
    """Report on SOURCE: a results JSONL of `mutreal classify --manifest`, or a labels CSV
    (id,codes,is_mutant[,benchmark][,realistic]) whose manual codes give the study's Tables 3 and 4.

    Without --out the tables are printed as Markdown; with --out every file is written and the
    paths printed. Exit code 1 when some lines of SOURCE could not be read (they are listed in the
    report's errors table), 0 otherwise.
    """
    from mutreal.report.build import report_from_file
    from mutreal.report.render import percent_text, render_markdown, write_report

    try:
        result = report_from_file(source, realism_from=realism_from, title=title, min_support=min_support)
    except LabelsFormatError as exc:
        raise click.UsageError(str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise click.UsageError(f"cannot read {source} as text: {exc}") from exc
    written = write_report(result, out_dir, plots=not no_plots) if out_dir is not None else {}
    if as_json:
        payload = result.to_dict()
        payload.pop("bugs", None)
        payload["written"] = {name: str(path) for name, path in written.items()}
        click.echo(json.dumps(payload, indent=1, default=str))
    elif out_dir is None:
        click.echo(render_markdown(result))
    else:
        summary = result.summary()
        click.echo(
            f"{summary['bugs']} bugs ({summary['order0']} order-0, {summary['errors']} errors apart), "
            f"RSB {percent_text(summary['rsb']['pct'])}, RSFC {percent_text(summary['rsfc']['pct'])}"
        )
        for name in ("report.html", "report.md", "report.json"):
            click.echo(f"{name}: {written[name]}")
        click.echo(f"tables: {out_dir / 'tables'} ({sum(1 for n in written if n.startswith('tables/'))} CSV)")
    if result.problems:
        raise SystemExit(1)
