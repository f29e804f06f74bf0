"""How the verdict commands (``reproduce``, ``kill``, ``compare``, ``sensitivity``) show a report.

Each runs its API call, prints the report as text or as strict JSON (``--json``), and ends with one
``error:`` line and exit status 1 when the call fails on its inputs. That chain, and the number
formats of the text tables (never a single run: mean ± std with N), are written once here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NoReturn

import click


def fmt_number(value: Any, digits: int = 4, p_value: bool = False) -> str:
    """A number for tables: ``-`` for missing, ``inf`` kept, p-values in scientific form when tiny."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if value == 0 and p_value:
        return "0 (<1e-300)"  # the normal tail underflows: an exact 0.0 means smaller than any double
    if value != 0 and abs(value) < 1e-4:
        return f"{value:.2e}"
    return f"{value:.{digits}f}"


def fmt_series(series: dict[str, Any]) -> str:
    """``mean ± std (N=n, failed k)`` of a MetricSeries dict: results never show a single run."""
    summary = series["summary"]
    failed = f", failed {series['failed']}" if series["failed"] else ""
    if not summary["n"]:
        return f"no successful run (N=0 of {series['runs']}{failed})"
    return f"{summary['mean']:.4f} ± {summary['std']:.4f} (N={summary['n']}{failed})"


def fail(message: str) -> NoReturn:
    """End the command with ``error: message`` on stderr and exit status 1 (an input that failed)."""
    click.echo(f"error: {message}", err=True)
    raise SystemExit(1)


VERDICT_ERRORS: tuple[type[Exception], ...] = (ValueError, RuntimeError)


def verdict_data(call: Callable[[], Any], errors: tuple[type[Exception], ...] = VERDICT_ERRORS) -> dict:
    """The report of a verdict API call as a dict; on one of ``errors``: ``error: ...`` on stderr, exit 1."""
    try:
        report = call()
    except errors as error:
        fail(str(error))
    return report.to_dict()


def echo_json(data: dict[str, Any], **kwargs: Any) -> None:
    """A verdict report as indented, strict JSON on stdout."""
    click.echo(json.dumps(data, indent=2, allow_nan=False, **kwargs))


def show_data(
    data: dict[str, Any],
    as_json: bool,
    print_text: Callable[[dict[str, Any]], None],
    json_default: Any = None,
) -> None:
    """A verdict report as ``--json`` or as the command's text."""
    if as_json:
        echo_json(data, default=json_default)
    else:
        print_text(data)


def show_verdict(
    call: Callable[[], Any],
    as_json: bool,
    print_text: Callable[[dict[str, Any]], None],
    amend: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run a verdict API call, let ``amend`` add to its report, print it (text or ``--json``); return it."""
    data = verdict_data(call)
    if amend is not None:
        amend(data)
    show_data(data, as_json, print_text)
    return data


def yes_no(value: bool | None) -> str:
    """``yes``/``no`` for a verdict, ``-`` where none was reached."""
    return "-" if value is None else ("yes" if value else "no")


def echo_failed_mutant(name: str, width: int, failure: dict[str, Any]) -> None:
    """One mutant whose runs failed, not by the model (no verdict): its kind, runs and error, in the
    mutant column of compare's and kill's tables."""
    click.echo(f"{name:{width}}  {failure['kind']}, not a kill ({failure['runs']} of {failure['of']} runs): "
               f"{failure['error']}")  # fmt: skip


def print_failed_mutants(counts: dict[str, int]) -> None:
    """The counts of mutants whose runs failed, not by the model's doing (none is a kill)."""
    from mutreal.analysis.run_failures import KINDS

    if not any(counts.get(kind) for kind in KINDS):
        return
    shown = ", ".join(f"{kind} {counts.get(kind, 0)}" for kind in KINDS)
    defects = counts.get("mutreal_defects", 0)
    click.echo(f"mutants that failed, not by the model (not kills): {shown}"
               + (f"; {defects} of them mutreal defects (invalid, harness)" if defects else ""))  # fmt: skip
