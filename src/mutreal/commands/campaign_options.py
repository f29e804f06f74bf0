"""Click options shared by the verdict commands (``reproduce``, ``kill``, ``compare``, ``sensitivity``).

They all train programs through :func:`mutreal.execution.run_campaign` and then decide statistically,
so they take the same campaign options (runs, seeds, jobs, executor, limits, store) and the same
statistics options (metric and its direction, test, alpha, ``--adaptive``, ``--json``); the
decorators hand each group to the command as one settings object (:mod:`mutreal.commands.settings`).
``mutreal run`` and ``mutreal stats`` take some of the same options with their own help, so each
option's flags and type are written once (:func:`mutreal.commands.options.runner_option`,
:func:`statistical_test_option`). How the commands then show their reports is
:mod:`mutreal.commands.verdict_output`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import click

from mutreal.analysis.settings import DecisionSettings
from mutreal.commands.options import Decorator, choice_option, json_option, runner_option
from mutreal.commands.settings import AdaptiveSettings, RunSettings
from mutreal.stats.two_groups import TESTS


def statistical_test_option(help: str) -> Decorator:
    """``--test``: the two-group test of :data:`mutreal.stats.two_groups.TESTS`, passed as ``test_name``."""
    return choice_option("--test", "test_name", choices=TESTS, default="glm", help=help)


def alpha_option() -> Decorator:
    """``--alpha``: the significance level, strictly between 0 and 1."""
    return click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
                        show_default=True)  # fmt: skip


#: ``--framework`` (also taken by ``mutreal run``)
FRAMEWORK_HELP = (
    "What each program runs on: auto (its era's: Keras 3 programs as they are, Keras 1/2 and tf.keras "
    "programs on tf_keras, TensorFlow 1 graph programs converted and in graph mode; rewrites recorded), "
    "keras3, tf_keras, tf1 (that one, with its rewrites), as-is (Keras 3, the text untouched)."
)
#: ``--modernize`` (also taken by ``mutreal run``)
MODERNIZE_HELP = (
    "Also rewrite Keras 1/2 spellings for Keras 3 (with --framework keras3 or as-is; the default "
    "--framework auto does it for every Keras 1/2-era program)."
)

#: How runs are isolated (also taken by ``mutreal run``).
ISOLATION_OPTIONS: list[Decorator] = [
    choice_option("--sandbox", "sandbox_mode", choices=["auto", "bwrap", "none"], default="auto",
                  help="Isolation of each run: bwrap (bubblewrap namespaces: read-only files, no network, "
                       "own processes), none (worker processes only), auto (bwrap where it works)."),
    click.option("--env", "env", multiple=True, metavar="NAME[=VALUE]",
                 help="Pass this variable into the sandbox (repeatable); nothing else of your environment is."),
]  # fmt: skip

CAMPAIGN_OPTIONS: list[Decorator] = [
    runner_option("runs", "Trainings per program (seeds 0..runs-1).", default=20, show_default=True),
    runner_option("seeds", "Explicit seeds, e.g. 0,1,2 (overrides --runs)."),
    runner_option("jobs", "Parallel workers (default: cores / 2)."),
    runner_option("executor", "local: fresh warm workers; ray: a Ray cluster; pool: the `mutreal workers` service.",
                  default="local", show_default=True),
    runner_option("address", "Ray cluster address (--executor ray) or worker service socket (--executor pool)."),
    runner_option("timeout", "Time limit per run in seconds (default: the runner's)."),
    runner_option("memory-limit", "Resident-memory limit per worker in MiB."),
    runner_option("store", "SQLite run store: stored runs are reused, never trained twice."),
    runner_option("framework", FRAMEWORK_HELP, default="auto", show_default=True),
    runner_option("modernize", MODERNIZE_HELP),
    runner_option("repeat-crashes", "Train every seed of a program whose first run crashed before its first "
                  "epoch (by default its other runs repeat that crash untrained)."),
    *ISOLATION_OPTIONS,
    runner_option("quiet", "No progress bar."),
]  # fmt: skip

STATISTICS_OPTIONS: list[Decorator] = [
    click.option("--metric", default=None, help="Compared metric (default: first metric of the last evaluate())."),
    click.option("--lower-is-better/--higher-is-better", "lower_is_better", default=None,
                 help="Direction of the metric (default: from its name; losses are lower-is-better)."),
    statistical_test_option("glm: DeepCrime's GLM; mannwhitney: Mann-Whitney U; wilcoxon: paired by seed."),
    alpha_option(),
    json_option("Print JSON instead of a table."),
]  # fmt: skip

ADAPTIVE_OPTIONS: list[Decorator] = [
    click.option("--adaptive", is_flag=True,
                 help="Add runs in rounds and stop once the verdict cannot change (Bonferroni group-sequential)."),
    click.option("--min-runs", type=click.IntRange(2), default=5, show_default=True,
                 help="Runs per program before the first adaptive look."),
    click.option("--step", type=click.IntRange(1), default=5, show_default=True,
                 help="Runs added per program between adaptive looks."),
]  # fmt: skip


def apply(options: list[Decorator]) -> Decorator:
    """Decorator applying a list of click options in order."""

    def decorate(function: Any) -> Any:
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


def _settings_options(
    options: list[Decorator], settings: type, keyword: str, renamed: dict[str, str] | None = None
) -> Decorator:
    """Decorator adding ``options`` and handing the command one ``settings`` object as ``keyword``
    in place of the options named like its fields (``renamed``: click name -> field name)."""
    names = {field.name: field.name for field in dataclasses.fields(settings)}
    names.update({field: click_name for click_name, field in (renamed or {}).items()})

    def decorate(function: Any) -> Any:
        @functools.wraps(function)
        def collect(*args: Any, **kwargs: Any) -> Any:
            built = settings(**{field: kwargs.pop(click_name) for field, click_name in names.items()})
            return function(*args, **{keyword: built}, **kwargs)

        return apply(options)(collect)

    return decorate


#: :data:`CAMPAIGN_OPTIONS`; the command receives ``run``, a :class:`RunSettings`
campaign_options = _settings_options(CAMPAIGN_OPTIONS, RunSettings, "run")
#: :data:`STATISTICS_OPTIONS`; the command receives ``as_json`` and ``statistics``, a :class:`DecisionSettings`
statistics_options = _settings_options(
    STATISTICS_OPTIONS, DecisionSettings, "statistics", {"test_name": "test"}
)
#: :data:`ADAPTIVE_OPTIONS`; the command receives ``adaptive``, an :class:`AdaptiveSettings`
adaptive_options = _settings_options(ADAPTIVE_OPTIONS, AdaptiveSettings, "adaptive")


def verdict_options(adaptive: bool = False) -> Decorator:
    """The options of a verdict command, in the order its help lists them: the campaign's, the
    statistics' and, with ``adaptive``, the adaptive ones; the command receives ``run``,
    ``statistics``, ``as_json`` (and ``adaptive``)."""
    return apply([campaign_options, statistics_options, *([adaptive_options] if adaptive else [])])
