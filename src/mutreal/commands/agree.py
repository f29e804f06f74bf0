"""``mutreal agree``: agreement of classify results (or a second labeller) with manual labels."""

from __future__ import annotations

import json
from pathlib import Path

import click

from mutreal.agree import agree_files, format_agreement
from mutreal.commands.options import json_option
from mutreal.labelsfile import LabelsFormatError


@click.command()
@click.argument("compared", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("labels", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option("Print every figure as one JSON object.")
@click.option(
    "--max-bugs", type=int, default=200, show_default=True, help="Disagreeing bugs listed in the text report."
)
def agree(compared: Path, labels: Path, as_json: bool, max_bugs: int) -> None:
    """Compare COMPARED (results JSONL of `mutreal classify`, or a second labels CSV) with the
    reference LABELS CSV (id,codes,is_mutant[,benchmark]). Exit code 1 when some result lines
    could not be read (they are listed), 0 otherwise."""
    try:
        agreement = agree_files(compared, labels)
    except LabelsFormatError as exc:
        raise click.UsageError(str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise click.UsageError(f"cannot read {compared} or {labels} as text: {exc}") from exc
    if (
        agreement.bugs
        and agreement.unlabelled
        and all(b.predicted_text == "[missing]" for b in agreement.bugs)
    ):
        # every figure below is 0: almost always ids that do not match (another manifest, a prefix)
        click.echo(
            f"warning: no id of {compared} is labelled in {labels} "
            f"(e.g. {agreement.unlabelled[0]!r} vs {agreement.bugs[0].id!r}); are they the same bugs?",
            err=True,
        )
    if as_json:
        click.echo(json.dumps(agreement.to_dict(), indent=2))
    else:
        click.echo(format_agreement(agreement, max_bugs=max_bugs))
    if agreement.problems:
        raise SystemExit(1)
