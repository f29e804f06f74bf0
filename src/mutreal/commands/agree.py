"""``mutreal agree``: agreement of classify results (or a second labeller) with manual labels."""

from __future__ import annotations

import json
from pathlib import Path

import click

from mutreal.commands.options import input_file_option, json_option
from mutreal.study.agree import agree_files, format_agreement
from mutreal.study.labelsfile import LabelsFormatError


@click.command()
@click.argument("compared", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("labels", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option("Print every figure as one JSON object.")
@click.option(
    "--max-bugs", type=int, default=200, show_default=True, help="Disagreeing bugs listed in the text report."
)
@input_file_option(
    "--second",
    path_type=Path,
    default=None,
    help="A second reading of the same bugs (labels CSV id,codes[,note]): precision per confidence "
    "level against it too, and the share of components neither reader names.",
)
def agree(compared: Path, labels: Path, as_json: bool, max_bugs: int, second: Path | None) -> None:
    """Compare COMPARED (results JSONL of `mutreal classify`, or a second labels CSV) with the
    reference LABELS CSV (id,codes,is_mutant[,benchmark]). For results whose components carry a
    confidence, or with --second, also precision per confidence level. Exit code 1 when some
    result lines could not be read (they are listed), 0 otherwise."""
    from mutreal.study.confidence_agreement import confidence_agreement_files, format_confidence_agreement

    by_level = None
    try:
        agreement = agree_files(compared, labels)
        if agreement.mode == "results":
            by_level, any_confidence = confidence_agreement_files(compared, labels, second)
            if second is None and not any_confidence:
                by_level = None
        elif second is not None:
            raise click.UsageError(
                "--second scores classify results per confidence level; COMPARED is a labels file"
            )
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
        payload = agreement.to_dict()
        if by_level is not None:
            payload["confidence"] = by_level.to_dict()
        click.echo(json.dumps(payload, indent=2))
    else:
        click.echo(format_agreement(agreement, max_bugs=max_bugs))
        if by_level is not None:
            click.echo(format_confidence_agreement(by_level))
    if agreement.problems:
        raise SystemExit(1)
