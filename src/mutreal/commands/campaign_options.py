"""Click options shared by the verdict commands (``reproduce``, ``kill``, ``compare``, ``sensitivity``).

They all train programs through :func:`mutreal.execution.run_campaign` and then decide statistically,
so they take the same campaign options (runs, seeds, jobs, executor, limits, store) and the same
statistics options (metric and its direction, test, alpha, ``--adaptive``, ``--json``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import click

from mutreal.stats.two_groups import TESTS


def _seed_list(ctx: click.Context, param: click.Parameter, value: str | None) -> list[int] | None:
    if value is None:
        return None
    try:
        seeds = [int(part) for part in value.replace(" ", "").split(",") if part]
    except ValueError:
        raise click.BadParameter("seeds are integers separated by commas, e.g. 0,1,2") from None
    if not seeds:
        raise click.BadParameter("no seeds given")
    return seeds


#: How runs are isolated (also taken by ``mutreal run``).
ISOLATION_OPTIONS: list[Callable[[Any], Any]] = [
    click.option("--sandbox", "sandbox_mode", type=click.Choice(["auto", "bwrap", "none"]), default="auto",
                 show_default=True,
                 help="Isolation of each run: bwrap (bubblewrap namespaces: read-only files, no network, "
                      "own processes), none (worker processes only), auto (bwrap where it works)."),
    click.option("--env", "env", multiple=True, metavar="NAME[=VALUE]",
                 help="Pass this variable into the sandbox (repeatable); nothing else of your environment is."),
]  # fmt: skip

CAMPAIGN_OPTIONS: list[Callable[[Any], Any]] = [
    click.option("--runs", type=click.IntRange(1), default=20, show_default=True,
                 help="Trainings per program (seeds 0..runs-1)."),
    click.option("--seeds", callback=_seed_list, default=None, help="Explicit seeds, e.g. 0,1,2 (overrides --runs)."),
    click.option("--jobs", type=click.IntRange(1), default=None, help="Parallel workers (default: cores / 2)."),
    click.option("--executor", type=click.Choice(["local", "ray", "pool"]), default="local", show_default=True,
                 help="local: fresh warm workers; ray: a Ray cluster; pool: the `mutreal workers` service."),
    click.option("--address", default=None,
                 help="Ray cluster address (--executor ray) or worker service socket (--executor pool)."),
    click.option("--timeout", "timeout_s", type=click.FloatRange(0, min_open=True), default=None,
                 help="Time limit per run in seconds (default: the runner's)."),
    click.option("--memory-limit", "memory_limit_mb", type=click.FloatRange(0, min_open=True), default=None,
                 help="Resident-memory limit per worker in MiB."),
    click.option("--store", type=click.Path(dir_okay=False), default=None,
                 help="SQLite run store: stored runs are reused, never trained twice."),
    click.option("--modernize", is_flag=True, help="Rewrite Keras 1/2-era programs on the fly."),
    *ISOLATION_OPTIONS,
    click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
]  # fmt: skip

STATISTICS_OPTIONS: list[Callable[[Any], Any]] = [
    click.option("--metric", default=None, help="Compared metric (default: first metric of the last evaluate())."),
    click.option("--lower-is-better/--higher-is-better", "lower_is_better", default=None,
                 help="Direction of the metric (default: from its name; losses are lower-is-better)."),
    click.option("--test", "test_name", type=click.Choice(TESTS), default="glm", show_default=True,
                 help="glm: DeepCrime's GLM; mannwhitney: Mann-Whitney U; wilcoxon: paired by seed."),
    click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
                 show_default=True),
    click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table."),
]  # fmt: skip

ADAPTIVE_OPTIONS: list[Callable[[Any], Any]] = [
    click.option("--adaptive", is_flag=True,
                 help="Add runs in rounds and stop once the verdict cannot change (Bonferroni group-sequential)."),
    click.option("--min-runs", type=click.IntRange(2), default=5, show_default=True,
                 help="Runs per program before the first adaptive look."),
    click.option("--step", type=click.IntRange(1), default=5, show_default=True,
                 help="Runs added per program between adaptive looks."),
]  # fmt: skip


def apply(options: list[Callable[[Any], Any]]) -> Callable[[Any], Any]:
    """Decorator applying a list of click options in order."""

    def decorate(function: Any) -> Any:
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


CAMPAIGN_SETTINGS = (
    "jobs",
    "executor",
    "address",
    "timeout_s",
    "memory_limit_mb",
    "store",
    "modernize",
    "quiet",
    "sandbox_mode",
    "env",
)


def campaign_options(function: Any) -> Any:
    """Decorator adding :data:`CAMPAIGN_OPTIONS`; the command receives ``runs``, ``seeds`` and
    ``campaign`` (the :func:`campaign_settings` dict) instead of one argument per runner option."""

    @functools.wraps(function)
    def collect(*args: Any, **kwargs: Any) -> Any:
        campaign = campaign_settings(*(kwargs.pop(name) for name in CAMPAIGN_SETTINGS))
        return function(*args, campaign=campaign, **kwargs)

    return apply(CAMPAIGN_OPTIONS)(collect)


def statistics_options(function: Any) -> Any:
    """Decorator adding :data:`STATISTICS_OPTIONS`; the command receives ``as_json`` and ``statistics``
    (``metric``, ``lower_is_better``, ``test``, ``alpha``: keyword arguments of the verdict APIs)."""

    @functools.wraps(function)
    def collect(*args: Any, **kwargs: Any) -> Any:
        statistics = {
            "metric": kwargs.pop("metric"),
            "lower_is_better": kwargs.pop("lower_is_better"),
            "test": kwargs.pop("test_name"),
            "alpha": kwargs.pop("alpha"),
        }
        return function(*args, statistics=statistics, **kwargs)

    return apply(STATISTICS_OPTIONS)(collect)


def campaign_settings(
    jobs: int | None,
    executor: str,
    address: str | None,
    timeout_s: float | None,
    memory_limit_mb: float | None,
    store: str | None,
    modernize: bool,
    quiet: bool = False,
    sandbox_mode: str = "auto",
    env: tuple[str, ...] | list[str] = (),
) -> dict[str, Any]:
    """The :func:`mutreal.execution.run_campaign` keyword arguments of the campaign options."""
    return {
        "progress": not quiet,
        "jobs": jobs,
        "executor": executor,
        "address": address,
        "timeout_s": timeout_s,
        "memory_limit_mb": memory_limit_mb,
        "store": store,
        "modernize": modernize or None,
        "sandbox_mode": sandbox_mode,
        "env": list(env) or None,
    }


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


def verdict_data(
    call: Callable[[], Any], errors: tuple[type[Exception], ...] = (ValueError, RuntimeError)
) -> dict:
    """The report of a verdict API call as a dict; on one of ``errors``: ``error: ...`` on stderr, exit 1."""
    try:
        report = call()
    except errors as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(1) from None
    return report.to_dict()


def echo_json(data: dict[str, Any], **kwargs: Any) -> None:
    """A verdict report as indented, strict JSON on stdout."""
    click.echo(json.dumps(data, indent=2, allow_nan=False, **kwargs))


def yes_no(value: bool | None) -> str:
    """``yes``/``no`` for a verdict, ``-`` where none was reached."""
    return "-" if value is None else ("yes" if value else "no")
