"""``mutreal hom-generate``: higher-order mutants of a subject from real fault combinations."""

from __future__ import annotations

import json
import sys

import click

from mutreal.commands.options import input_file_option, json_option, out_folder_option, seed_option


@click.command("hom-generate")
@click.argument("subject", type=click.Path(exists=True, dir_okay=False))
@input_file_option(
    "--from",
    "results",
    default=None,
    help="Results JSONL of classified real bugs (default: the shipped table operators/combinations.csv).",
)
@click.option("--order", "order_text", default="2..4", show_default=True, help="Orders: 2..4, 3, or 2,4.")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True, help="At most K HOMs.")
@seed_option("Seed of catalogue value choices.")
@out_folder_option("Folder for the HOMs.", default="homs")
@json_option("Machine-readable output.")
def hom_generate(subject, results, order_text, top, seed, out_dir, as_json) -> None:
    """Build higher-order mutants of SUBJECT applying the operator combinations real faults show.

    Combinations of simulable fault codes are mined from --from (support counted over bugs), most
    frequent first; each becomes one HOM where SUBJECT has the sites, with parameter values taken
    from the real faults where recorded, else a seeded choice from the catalogue. Each HOM is
    written as <stem>__homNN__<parts>.py with a JSON provenance record next to it.
    """
    from libcst import ParserSyntaxError

    from mutreal.mutation.hom import hom_generate as build
    from mutreal.mutation.hom import parse_orders

    try:
        orders = parse_orders(order_text)
    except ValueError as exc:
        raise click.UsageError(f"--order: {exc}") from None
    if results and not _looks_like_jsonl(results):
        raise click.UsageError(
            f"--from {results}: not a results JSONL of `mutreal classify --manifest` (one JSON object a line)"
        )
    try:
        report = build(subject, results=results, orders=orders, top=top, seed=seed, out_dir=out_dir)
    except (ParserSyntaxError, UnicodeDecodeError, OSError) as exc:
        click.echo(f"error: cannot read {subject}: {exc}", err=True)
        sys.exit(1)
    for problem in report.problems:
        click.echo(f"warning: unreadable line {problem}", err=True)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, default=str))
    else:
        click.echo(f"combinations: {report.source}")
        click.echo(
            f"orders {','.join(map(str, report.orders))}, seed {report.seed}: {len(report.homs)} HOM(s)"
        )
        for hom in report.homs:
            parts = "; ".join(
                f"{p.operator}@{p.element} {p.old} -> {p.new} [{o.kind}{' ' + o.bug if o.bug else ''}]"
                for p, o in zip(hom.provenance.parts, hom.origins, strict=True)
            )
            click.echo(
                f"{hom.rank:>3}  order {hom.order}  {{{', '.join(sorted(hom.codes))}}}  support {hom.support}"
                f"  {hom.file or hom.provenance.mutant}\n      {parts}"
            )
        for skip in report.skipped:
            click.echo(f"  skipped {{{', '.join(skip.codes)}}} (support {skip.support}): {skip.reason}")
    if report.problems:
        sys.exit(1)


def _looks_like_jsonl(path: str) -> bool:
    """Whether the first non-blank line opens a JSON object: a labels CSV or manifest given to
    --from would otherwise give one 'unreadable line' warning per row and no HOM."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                return line.lstrip().startswith("{")
    return True
