"""``mutreal modernize``: rewrite Keras 1/2-era programs for current Keras and list each change."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mutreal.commands.options import json_option


@click.command()
@click.argument("programs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--out",
    "out",
    type=click.Path(),
    default=None,
    help="Write the result here (a folder when several programs are given) instead of stdout.",
)
@click.option("--in-place", is_flag=True, help="Overwrite each program (its original is kept as .orig).")
@json_option("Print changes (and source) as JSON.")
def modernize(programs: tuple[str, ...], out: str | None, in_place: bool, as_json: bool) -> None:
    """Rewrite PROGRAMS (lr=, nb_epoch, init=, Convolution2D(32, 3, 3), keras.layers.core, decay=...).

    The changes are listed on stderr (or in --json); the new source goes to stdout, --out or --in-place.
    """
    import libcst

    from mutreal.compat.modernize import modernize_source

    if out and in_place:
        raise click.UsageError("give --out or --in-place, not both")
    if out and len(programs) > 1:
        Path(out).mkdir(parents=True, exist_ok=True)
    results, failed = [], 0
    for program in programs:
        path = Path(program)
        try:
            result = modernize_source(path.read_text(encoding="utf-8"))
        except (libcst.ParserSyntaxError, UnicodeDecodeError) as error:
            failed += 1
            message = str(error).splitlines()[0] if str(error) else type(error).__name__
            results.append({"program": program, "error": message})
            click.echo(f"{program}: cannot parse: {message}", err=True)
            continue
        entry = {"program": program, **result.to_dict()}
        results.append(entry)
        if not as_json:
            for change in result.changes:
                click.echo(f"{program}: {change.describe()}", err=True)
            for warning in result.warnings:
                click.echo(f"{program}: warning: {warning}", err=True)
            if not result.changes:
                click.echo(f"{program}: nothing to change", err=True)
        if in_place:
            if result.changed:
                path.with_suffix(path.suffix + ".orig").write_text(
                    path.read_text(encoding="utf-8"), encoding="utf-8"
                )
                path.write_text(result.source, encoding="utf-8")
        elif out:
            target = Path(out) / path.name if len(programs) > 1 else Path(out)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(result.source, encoding="utf-8")
            except OSError as error:  # e.g. a folder in the way: this program fails, the others go on
                failed += 1
                entry["error"] = f"cannot write {target}: {error.strerror}"
                click.echo(f"{program}: {entry['error']}", err=True)
        elif not as_json:
            click.echo(result.source, nl=False)
    if as_json:
        click.echo(json.dumps(results if len(results) > 1 else results[0], indent=2))
    sys.exit(1 if failed else 0)
