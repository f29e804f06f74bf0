"""``mutreal mutate``: list operator sites, or write first-order mutants with provenance."""

from __future__ import annotations

import json
import sys

import click

from mutreal.commands.options import choice_option, json_option, out_folder_option, seed_option


def _option_value(text: str):
    low = text.lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


@click.command()
@click.argument("program", type=click.Path(exists=True, dir_okay=False))
@click.option("--op", "op_id", help="Operator id (ACH, HLR, ...). Required unless --list.")
@click.option(
    "--site", type=int, default=None, help="Site number (see --list); default 0, or all with --all."
)
@click.option("--param", "value", default=None, help="The new value itself (0.1, sigmoid, mse).")
@click.option("--all", "all_values", is_flag=True, help="One mutant per site and catalogue value.")
@click.option("--list", "list_only", is_flag=True, help="List the applicable sites instead of mutating.")
@out_folder_option("Folder for mutants.", default="mutants")
@seed_option("Seed written into data mutants.")
@click.option(
    "-o",
    "--option",
    "opts",
    multiple=True,
    help="Operator option KEY=VALUE (keep_learning_rate=true, mode=clipnorm).",
)
@click.option(
    "--deepcrime-name",
    "deepcrime_names",
    multiple=True,
    help="Write the mutant DeepCrime names so (change_activation_function_mutated0_MP_elu_1; repeatable).",
)
@choice_option(
    "--deepcrime-layers",
    "counting",
    choices=("config", "layers"),
    default="config",
    help="How the names' layer indices count: the model config DeepCrime edits (a Sequential model's "
    "InputLayer is 0) or model.layers (without it).",
)
@json_option("Machine-readable output.")
def mutate(
    program, op_id, site, value, all_values, list_only, out_dir, seed, opts, deepcrime_names, counting, as_json
) -> None:  # fmt: skip
    """Apply a DeepCrime operator to PROGRAM as a readable source edit.

    Each mutant is written as <stem>__<OP>_<site>_<value>.py with a JSON provenance record
    next to it. A mutant that does not parse or changes nothing is reported and not written; so
    is one equivalent to PROGRAM (its program model finds no change, as classify would).
    With --deepcrime-name, each name (DeepCrime's, a paper's table's, a trained_models/ file's)
    gives its mutant, its provenance records the name; a name that cannot be made says why.
    """
    from libcst import ParserSyntaxError

    from mutreal.mutation.mutate import list_sites, mutate_file
    from mutreal.mutation.operators import Program, registry

    if deepcrime_names and (op_id or list_only or all_values or value is not None or site is not None):
        raise click.UsageError(
            "--deepcrime-name names operator, site and value: no --op/--site/--param/--all/--list"
        )
    if not list_only and not op_id and not deepcrime_names:
        raise click.UsageError("--op is required (or use --list or --deepcrime-name)")
    try:
        if op_id:
            registry.get(op_id)
    except KeyError as exc:
        raise click.UsageError(str(exc.args[0])) from None
    options = {}
    for item in opts:
        key, sep, val = item.partition("=")
        if not sep:
            raise click.UsageError(f"option {item!r} is not KEY=VALUE")
        options[key.strip()] = _option_value(val.strip())
    try:
        prog = Program.from_file(program)
    except (ParserSyntaxError, UnicodeDecodeError, OSError) as exc:
        click.echo(f"error: cannot read {program}: {exc}", err=True)
        sys.exit(1)

    if deepcrime_names:
        _by_deepcrime_names(prog, deepcrime_names, out_dir, seed, counting, as_json)
        return

    if list_only:
        rows = list_sites(prog, [op_id] if op_id else None)
        if as_json:
            click.echo(json.dumps([r.to_dict() for r in rows], indent=2, default=str))
            return
        for r in rows:
            s = r.site
            shown = [v for v in r.values if v is not None]
            vals = ", ".join(map(str, shown[:6])) + (" ..." if len(shown) > 6 else "")
            old = s.old if s.old is not None else "-"
            click.echo(
                f"{r.operator}\t{s.index}\t{s.file}:{s.line}:{s.col + 1}\t{s.element}\t{old}\t[{vals}]"
            )
        for op in [registry.get(op_id)] if op_id else registry.operators().values():
            for why in op.no_site_reasons(prog):
                click.echo(f"{op.id}\t-\t{program}\tno site: {why}")
        for r in rows:
            for v, why in [*r.equivalent, *r.invalid]:
                shown = "" if v is None else f" value {v}"
                click.echo(f"{r.operator}\t{r.site.index}\t{program}\tnot written{shown}: {why}")
        return

    report = mutate_file(
        program,
        op_id,
        out_dir=out_dir,
        site=site,
        value=value,
        all_values=all_values,
        seed=seed,
        options=options,
        program=prog,
        on_written=None if as_json else click.echo,
    )
    for f in [*report.equivalent, *report.invalid]:
        where = "".join(f" {k} {v}" for k, v in (("site", f.site), ("value", f.value)) if v is not None)
        click.echo(f"not written: {f.operator}{where}: {f.error}", err=True)
    for f in report.failures:
        where = "".join(f" {k} {v}" for k, v in (("site", f.site), ("value", f.value)) if v is not None)
        click.echo(f"error: {f.operator}{where}: {f.error}", err=True)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, default=str))
    if report.failures or ((report.equivalent or report.invalid) and not report.mutants):
        sys.exit(1)


def _by_deepcrime_names(prog, names, out_dir: str, seed: int, counting: str, as_json: bool) -> None:
    from mutreal.mutation.deepcrime_names import mutate_names

    echo = None if as_json else click.echo
    report = mutate_names(prog, names, out_dir, seed=seed, counting=counting, on_written=echo)
    for f in report.failures:
        click.echo(f"error: {f}", err=True)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, default=str))
    if report.failures:
        sys.exit(1)
