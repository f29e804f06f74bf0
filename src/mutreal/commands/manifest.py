"""``mutreal manifest``: write a manifest from a published benchmark's folder layout."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from mutreal.commands.options import choice_option, file_option, json_option
from mutreal.study.layouts import (
    LAYOUTS,
    LayoutError,
    detect_layout,
    manifest_rows,
    scan_layout,
    write_manifest,
)


@click.command()
@click.option(
    "--layout",
    "layout",
    required=True,
    type=click.Choice(sorted(LAYOUTS), case_sensitive=False),
    help="The benchmark's published folder layout.",
)
@click.argument("root", type=click.Path(exists=True, file_okay=False, path_type=Path))
@file_option(
    "--out",
    path_type=Path,
    help="Write the manifest here (paths relative to its folder); default: stdout, absolute paths.",
)
@choice_option(
    "--buggy",
    choices=["original", "context"],
    default="original",
    help="SFData only: the program as posted (original) or the benchmark's completed one (context).",
)
@click.option("--all-files", is_flag=True, help="List every .py file of a side, not only the changed ones.")
@click.option("--keras-only", is_flag=True, help="Keep only pairs whose changed files use Keras.")
@click.option("--parsable-only", is_flag=True, help="Keep only pairs whose changed files parse as Python 3.")
@click.option("--benchmark", default=None, help="pairs layout only: the benchmark column's value.")
@json_option("Print pairs and skipped bugs as JSON on stdout.")
def manifest(layout: str, root: Path, out: Path | None, as_json: bool, **scan_options: Any) -> None:
    """Write the manifest (id,benchmark,buggy,fixed[,source,symptom,dataset,bug_type]) of the
    benchmark tree ROOT. Bugs that give no pair are listed on stderr with the reason."""
    # options another layout would silently ignore: say so rather than write a manifest without them
    if scan_options["benchmark"] is not None and layout.lower() != "pairs":
        raise click.UsageError("--benchmark applies to --layout pairs only")
    if scan_options["buggy"] != "original" and layout.lower() != "sfdata":
        raise click.UsageError("--buggy applies to --layout sfdata only")
    try:
        scan = scan_layout(layout, root, **scan_options)  # the other options are scan_layout's keywords
    except LayoutError as exc:
        guess = detect_layout(root)
        hint = f" (this folder looks like --layout {guess})" if guess and guess != layout.lower() else ""
        raise click.UsageError(f"{exc}{hint}") from exc
    if out is not None:
        write_manifest(scan.pairs, out)
    if as_json:
        data = scan.to_dict()
        data["rows"] = manifest_rows(scan.pairs, out.parent if out else None)
        click.echo(json.dumps(data, indent=2))
    elif out is None:
        write_manifest(scan.pairs, sys.stdout)
    for skipped in scan.skipped:
        click.echo(f"skipped {skipped.id}: {skipped.reason}", err=True)
    where = f" -> {out}" if out else ""
    click.echo(f"{len(scan.pairs)} pairs, {len(scan.skipped)} skipped ({scan.layout}){where}", err=True)
