"""``mutreal validate-operators``: do the operators reconstruct the real faults of a manifest?"""

from __future__ import annotations

import json
import os
import sys

import click

from mutreal.commands.options import jobs_option, json_option, out_folder_option


def _rate(n: int, d: int) -> str:
    return f"{100.0 * n / d:5.1f}%" if d else "    -"


@click.command("validate-operators")
@click.argument("manifest", type=click.Path(exists=True, dir_okay=False))
@out_folder_option("Folder for validation.json and the mutants of each bug.")
@json_option("Machine-readable output (the whole report).")
@jobs_option()
def validate_operators(manifest, out_dir, as_json, jobs) -> None:
    """Apply the matched operators to the fixed program of every simulable real bug of MANIFEST,
    with parameters inferred from the buggy version, and check that classify finds no difference
    left between mutant and buggy program. Reports per operator (every registered operator,
    plugins included) and per benchmark: components claimed, reconstructed exactly, and why the
    others fail."""
    from mutreal.label.classify import ClassifyError, ManifestError
    from mutreal.study.validate import FAILURE_REASONS, validate_manifest

    try:
        report = validate_manifest(manifest, jobs=jobs, out_dir=out_dir)
    except (ClassifyError, ManifestError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    data = report.to_dict()
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "validation.json"), "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, default=str)
            fh.write("\n")
    errors = [b for b in report.bugs if b.status == "error"]
    if as_json:
        click.echo(json.dumps(data, indent=2, default=str))
    else:
        attempted = [b for b in report.bugs if b.status not in ("error", "not_simulable", "no_components")]
        exact = sum(b.status == "reconstructed" for b in attempted)
        click.echo(
            f"{len(report.bugs)} bugs, {len(attempted)} fully simulable, {exact} reconstructed exactly "
            f"({_rate(exact, len(attempted)).strip()}), {len(errors)} could not be classified"
        )
        short = {"no_operator": "no-op", "no_site": "no-site", "not_inferable": "no-param",
                 "operator_error": "op-err", "residual": "residual"}  # fmt: skip
        head = "".join(f"{short[r]:>9}" for r in FAILURE_REASONS)
        click.echo(f"\n{'operator':<10}{'plugin':>7}{'claimed':>9}{'exact':>7}{'rate':>8}{head}")
        for op in report.operators:
            fails = "".join(f"{op.failures.get(r, 0):>9}" for r in FAILURE_REASONS)
            click.echo(
                f"{op.operator:<10}{'yes' if op.plugin else '':>7}{op.claimed:>9}{op.reconstructed:>7}"
                f"{_rate(op.reconstructed, op.claimed):>8}{fails}"
            )
        click.echo(
            f"\n{'benchmark':<16}{'bugs':>6}{'simul.':>8}{'exact':>7}{'rate':>8}{'claimed':>9}{'exact':>7}{'rate':>8}{head}"
        )
        for b in report.benchmarks:
            fails = "".join(f"{b.failures.get(r, 0):>9}" for r in FAILURE_REASONS)
            click.echo(
                f"{b.benchmark:<16}{b.bugs:>6}{b.simulable:>8}{b.reconstructed_bugs:>7}"
                f"{_rate(b.reconstructed_bugs, b.simulable):>8}{b.claimed:>9}{b.reconstructed:>7}"
                f"{_rate(b.reconstructed, b.claimed):>8}{fails}"
            )
        failed = [(b, c) for b in attempted for c in b.components if not c.reconstructed]
        if failed:
            click.echo("\nnot reconstructed:")
            for b, c in failed:
                click.echo(f"  {b.id}  {c.operator or '-'} {c.element}: {c.status}: {c.detail}")
        for b in errors:
            click.echo(f"  error {b.id}: {b.error}", err=True)
    if errors:
        sys.exit(1)
