"""The training commands' options reach the API as one settings object per group.

The decorators of :mod:`mutreal.commands.campaign_options` replace a dozen keyword arguments by
:class:`RunSettings`, :class:`~mutreal.analysis.settings.DecisionSettings` and :class:`AdaptiveSettings`; these tests pin
that every option lands in its field (a dropped or misnamed one would silently fall back to the
default) and that the settings turn back into the keyword arguments the API takes.
"""

from __future__ import annotations

import inspect

import click
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from mutreal.analysis.settings import DecisionSettings
from mutreal.campaigns import pair
from mutreal.commands.campaign_options import adaptive_options, campaign_options, statistics_options
from mutreal.commands.settings import AdaptiveSettings, RunSettings


def _received(args: list[str]) -> dict:
    seen: dict = {}

    @click.command()
    @campaign_options
    @statistics_options
    @adaptive_options
    def probe(**kwargs: object) -> None:
        seen.update(kwargs)

    result = CliRunner().invoke(probe, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return seen


def test_defaults_are_the_settings_defaults() -> None:
    seen = _received([])
    assert seen == {
        "as_json": False,
        "run": RunSettings(),
        "statistics": DecisionSettings(),
        "adaptive": AdaptiveSettings(),
    }


def test_every_option_lands_in_its_field() -> None:
    options = (
        "--runs 7 --seeds 3,1 --jobs 2 --executor pool --address /tmp/s --timeout 9.5 --memory-limit 512 "
        "--store runs.sqlite --modernize --framework tf1 --repeat-crashes --sandbox none --env A=1 --env B -q --metric loss "
        "--lower-is-better --test wilcoxon --alpha 0.01 --json --adaptive --min-runs 3 --step 2"
    )
    seen = _received(options.split())
    assert seen["as_json"] is True
    assert seen["run"] == RunSettings(
        runs=7, seeds=[3, 1], jobs=2, executor="pool", address="/tmp/s", timeout_s=9.5, memory_limit_mb=512.0,
        store="runs.sqlite", modernize=True, framework="tf1", repeat_crashes=True, quiet=True,
        sandbox_mode="none", env=("A=1", "B"),
    )  # fmt: skip
    assert seen["statistics"] == DecisionSettings(
        metric="loss", lower_is_better=True, test="wilcoxon", alpha=0.01
    )
    assert seen["adaptive"] == AdaptiveSettings(adaptive=True, min_runs=3, step=2)
    assert seen["run"].campaign() == {
        "progress": False, "jobs": 2, "executor": "pool", "address": "/tmp/s", "timeout_s": 9.5,
        "memory_limit_mb": 512.0, "store": "runs.sqlite", "modernize": True, "framework": "tf1",
        "repeat_crashes": True, "sandbox_mode": "none", "env": ["A=1", "B"],
    }  # fmt: skip


def test_settings_are_keyword_arguments_of_the_verdict_apis() -> None:
    """A field the API does not take would be a TypeError at the first real run, after the options parsed."""
    keywords = {
        **RunSettings().api_kwargs(),
        "statistics": DecisionSettings(),
        **AdaptiveSettings().api_kwargs(),
    }
    for api in (pair.kill, pair.reproduce):
        assert set(keywords) <= set(inspect.signature(api).parameters), api.__name__
    compare_keywords = {**RunSettings().api_kwargs(), "statistics": DecisionSettings()}
    assert set(compare_keywords) <= set(inspect.signature(pair.compare).parameters)


@given(runs=st.integers(1, 50), seeds=st.none() | st.lists(st.integers(0, 10**6), min_size=1, max_size=20))
def test_planned_seeds_are_the_given_seeds_else_zero_to_runs(runs: int, seeds: list[int] | None) -> None:
    planned = RunSettings(runs=runs, seeds=seeds).planned_seeds()
    assert planned == (seeds if seeds is not None else list(range(runs)))


def test_settings_serialise_to_plain_data() -> None:
    import json

    settings = RunSettings(seeds=[1, 2], env=("A=1",))
    assert json.loads(json.dumps(settings.to_dict())) == {**settings.to_dict(), "env": ["A=1"]}
