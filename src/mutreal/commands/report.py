"""``mutreal report``: the study's tables, plots and Markdown/HTML report for a classified benchmark."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from mutreal.commands.options import input_file_option, json_option, out_folder_option
from mutreal.study.labelsfile import LabelsFormatError


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
@input_file_option(
    "--realism",
    "realism_from",
    path_type=Path,
    help="Labels CSV whose `realistic` Y/N column marks the study's realistic subset (R columns).",
)
@input_file_option(
    "--labels",
    "labels",
    multiple=True,
    path_type=Path,
    help="Labels CSV whose codes the bug pages show beside the predicted ones (repeat for a second reader).",
)
@click.option(
    "--sources",
    "sources",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder the programs named in SOURCE are relative to (default: tried after the working "
    "folder and the folders above SOURCE). Repeatable.",
)
@click.option(
    "--min-confidence",
    type=click.Choice(["low", "medium", "high"]),
    default=None,
    help="Keep only components of this confidence or above; components with no confidence are "
    "dropped too, and counted in the output.",
)
@input_file_option(
    "--reproduce",
    path_type=Path,
    help="JSONL of `mutreal reproduce --manifest`: Table 5 per benchmark beside the study's, and each "
    "bug's reproduction runs on its page.",
)
@input_file_option(
    "--compare",
    path_type=Path,
    help="JSONL of `mutreal compare --manifest`: per-operator reconstruction and coupling, the best "
    "mutant per bug, a coupling heatmap and a KP scatter, and each bug's mutants on its page.",
)
@input_file_option(
    "--published",
    path_type=Path,
    help="JSON table of benchmarks/realism_published.py --out: mutreal's CS and IoU beside Ahmed et al.'s "
    "published ones on the same DeepCrime mutants, in the realism section and on each joined bug's page.",
)
def report(source: Path, out_dir: Path | None, as_json: bool, no_plots: bool, **selection: Any) -> None:
    """Report on SOURCE: a results JSONL of `mutreal classify --manifest`, or a labels CSV
    (id,codes,is_mutant[,benchmark][,realistic]) whose manual codes give the study's Tables 3 and 4.

    Without --out the tables are printed as Markdown; with --out every file is written and the
    paths printed, and for results one page per bug (bugs/*.html: its components at their lines
    in the buggy and fixed programs side by side, and the --labels codes beside them). Exit code 1 when some lines of SOURCE could not be read (they are listed in the
    report's errors table), 0 otherwise.
    """
    from mutreal.report.build import report_from_file
    from mutreal.report.published import PublishedTableError
    from mutreal.report.render import percent_text, render_markdown, write_report

    try:
        result = report_from_file(source, **selection)  # the options are report_from_file's keywords
    except (LabelsFormatError, PublishedTableError) as exc:
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
        if result.confidence_filter is not None:
            click.echo(result.confidence_filter.sentence())
        for name in ("report.html", "report.md", "report.json"):
            click.echo(f"{name}: {written[name]}")
        click.echo(f"tables: {out_dir / 'tables'} ({sum(1 for n in written if n.startswith('tables/'))} CSV)")
        pages = sum(1 for n in written if n.startswith("bugs/"))
        if pages:
            click.echo(f"bug pages: {out_dir / 'bugs'} ({pages} HTML)")
    if result.problems:
        raise SystemExit(1)
