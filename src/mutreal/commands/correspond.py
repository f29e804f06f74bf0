"""``mutreal correspond``: does a benchmark version correspond to its source (RQ1)?"""

from __future__ import annotations

import json
from pathlib import Path

import click

from mutreal.commands.options import input_file_option, json_option
from mutreal.study import correspond as api


@click.command(name="correspond")
@click.argument("source", required=False)
@click.argument("program", required=False)
@input_file_option(
    "--manifest",
    "manifest_path",
    path_type=Path,
    help="Check every bug of a manifest with source_buggy / source_fixed columns.",
)
@click.option(
    "--strict-parse", is_flag=True, help="Do not set aside unparsable lines (posts often have prose)."
)
@json_option("JSON (one object; JSON lines in manifest mode).")
def correspond(
    source: str | None, program: str | None, manifest_path: Path | None, strict_parse: bool, as_json: bool
) -> None:
    """Compare PROGRAM with its SOURCE (the code of a post, or the file before/after a commit)
    using classify's program model and noise rules; a partial source is compared on what it
    holds. Files of a multi-file side are separated by ';'. Exit code 1 when an input could not
    be read, 0 otherwise (whether or not the program corresponds)."""
    tolerant = not strict_parse
    if manifest_path is not None:
        if source or program:
            raise click.UsageError("give SOURCE PROGRAM or --manifest, not both")
        failed = 0
        try:
            for bug in api.iter_correspond_manifest(manifest_path, tolerant):
                sides = [c for c in (bug.buggy, bug.fixed) if c is not None]
                failed += any(c.status == api.ERROR for c in sides)
                if as_json:
                    click.echo(json.dumps(bug.to_dict()))
                elif not sides:
                    click.echo(f"{bug.id}: no source file")
                else:
                    for name, c in (("buggy", bug.buggy), ("fixed", bug.fixed)):
                        if c is not None:
                            click.echo(api.format_correspondence(c, f"{bug.id} {name}"))
        except api.ManifestError as exc:
            raise click.UsageError(str(exc)) from exc
        if failed:
            raise SystemExit(1)
        return
    if not source or not program:
        raise click.UsageError("give SOURCE and PROGRAM (or --manifest)")
    result = api.correspond(source, program, tolerant)
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else api.format_correspondence(result))
    if result.status == api.ERROR:
        raise SystemExit(1)
