"""A benchmark as one campaign: every bug's runs in one plan, stored before the first bug trains.

``reproduce --manifest`` and ``compare --manifest`` used to run one campaign per bug, so the store
learnt of a bug's runs only when that bug started. :class:`BenchmarkCampaign` separates the two
steps for the whole benchmark: :meth:`~BenchmarkCampaign.add` reads and hashes each bug's programs
(nothing trains), :meth:`~BenchmarkCampaign.write_plan` commits one plan of every bug x program x
seed (:func:`mutreal.execution.plan.plan_benchmark`), and :meth:`~BenchmarkCampaign.run` then trains
one bug's rows that are not done, so the caller can decide that bug and write its line before the
next one trains. A run that only a result calls for (the ``--modernize`` retry) is added to the plan
first (:meth:`~BenchmarkCampaign.extend`). Interrupted, the same command finds the same plan: done
rows are reused, the rest is trained, nothing twice; ``--executor ray`` or ``pool`` trains the
same rows elsewhere.

One progress bar counts the benchmark's planned runs (done / total, with the time left) and names
the bug being trained.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Container, Mapping, Sequence
from pathlib import Path
from typing import Any

from mutreal.execution import environment
from mutreal.execution.campaign import OpenCampaign, execute_plan, open_campaign
from mutreal.execution.campaign_config import CampaignConfig, campaign_config
from mutreal.execution.plan import (
    CampaignPlan,
    PlannedRun,
    PlanStatus,
    PreparedProgram,
    extend_plan,
    plan_benchmark,
    prepare_program,
    recheck,
)
from mutreal.execution.records import RunRecord


class BenchmarkCampaign:
    """One campaign over a benchmark's bugs: planned whole, executed bug by bug (see the module).

    ``options`` are :func:`mutreal.execution.execute_campaign`'s keyword arguments without
    ``programs`` (``progress``, ``store``, ``executor``, ``on_record`` ...); ``seeds`` are every
    program's seeds. Use it as a context manager, or call :meth:`close`."""

    def __init__(self, seeds: Sequence[int], options: Mapping[str, Any]) -> None:
        given = dict(options)
        self._progress = bool(given.pop("progress", True))
        self._manifest_dir = given.pop("manifest_dir", None)
        self._on_record = given.pop("on_record", None)
        self._store = given.get("store")
        self.config: CampaignConfig = campaign_config(given.pop("config", None), {**given, "seeds": list(seeds)})
        self._groups: dict[str, list[PreparedProgram]] = {}
        self._folders: dict[str, dict[str, str]] = {}
        self._args: dict[str, dict[str, list[str]]] = {}
        self._base: dict[str, list[PlannedRun]] = {}
        self._extra: dict[str, list[PreparedProgram]] = {}  # the programs of each extension's campaign
        self._opened: OpenCampaign | None = None
        self.plan: CampaignPlan | None = None
        self._bar: Any = None
        self._done, self._total = 0, 0
        self._counted: set[str] = set()

    def __enter__(self) -> BenchmarkCampaign:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the progress bar and the store (when this campaign opened it)."""
        if self._bar is not None:
            self._bar.close()
        if self._opened is not None:
            self._opened.close()

    # -- planning ------------------------------------------------------------------------------
    def add(
        self,
        bug: str,
        programs: Sequence[str | Path],
        data_folders: Mapping[str, str] | None = None,
        program_args: Mapping[str, Sequence[str]] | None = None,
    ) -> str:
        """Read and hash one bug's programs (``data_folders``: program -> the folder whose data it
        sees; ``program_args``: program -> its own command-line arguments); nothing trains. Returns the bug's group in the plan: its id (a repeated id gets ``#2``...)."""
        if self.plan is not None:
            raise RuntimeError("the plan is written: add every bug before write_plan")
        group, n = bug, 1
        while group in self._groups:
            n += 1
            group = f"{bug}#{n}"
        self._folders[group] = {str(k): str(v) for k, v in (data_folders or {}).items()}
        self._args[group] = {str(k): [str(a) for a in v] for k, v in (program_args or {}).items()}
        self._groups[group] = self._prepare(self.config, group, programs)
        return group

    def _prepare(self, cfg: CampaignConfig, group: str, programs: Sequence[str | Path]) -> list[PreparedProgram]:
        if self._folders.get(group):
            cfg = dataclasses.replace(cfg, data_folders={**cfg.data_folders, **self._folders[group]})
        if self._args.get(group):
            cfg = dataclasses.replace(cfg, program_args={**cfg.program_args, **self._args[group]})
        return [prepare_program(Path(p), cfg.modernize, cfg.data_folder(p), cfg.framework, cfg.args_for(p))
                for p in programs]  # fmt: skip

    def write_plan(self, to_decide: Container[str] | None = None) -> CampaignPlan:
        """Record the campaign (its configuration and manifest name every bug's programs) and commit
        the one plan of every bug added; the progress bar counts the runs of the bugs in
        ``to_decide`` (all without it: bugs an earlier start decided are planned, not counted)."""
        prepared = [program for programs in self._groups.values() for program in programs]
        if not prepared:  # no bug has a program to run (all error rows): no campaign, nothing written
            self.plan = CampaignPlan("", [], "", "", 0.0)
            self._bar = _progress(0, 0, False)
            return self.plan
        # the campaign's configuration file names every program and data folder: ``run --config`` of it
        # trains the same runs (same keys), as one flat campaign
        self.config.programs = [str(program.path) for program in prepared]
        self.config.data_folders = {**self.config.data_folders,
                                    **{k: v for folders in self._folders.values() for k, v in folders.items()}}  # fmt: skip
        self.config.program_args = {**self.config.program_args,
                                    **{k: v for args in self._args.values() for k, v in args.items()}}  # fmt: skip
        self._opened = open_campaign(self.config, self._store, prepared, self._manifest_dir)
        self.plan = plan_benchmark(self.config, list(self._groups.items()), self._opened.store, self._opened.id,
                                   env_hash=environment.environment_hash(),
                                   memory_limit_mb=self._opened.memory_limit_mb)  # fmt: skip
        counted = [g for g in self._groups if to_decide is None or g in to_decide]
        self._counted = set(counted)
        splits = [_split(self.plan.group(g)) for g in counted]
        self._total, self._done = sum(len(every) for every, _ in splits), sum(len(done) for _, done in splits)
        self._bar = _progress(self._total, self._done, self._progress)
        for group in self._groups:
            self._base[group] = self.plan.group(group)
        return self.plan

    # -- execution -----------------------------------------------------------------------------
    def run(self, group: str) -> list[RunRecord]:
        """Train the rows of ``group`` that are not done; its records in programs x seeds order
        (fewer when interrupted: every missing one is stored as ``lost``)."""
        return self._execute(group, self._base[group], self.config, self._opened_id())

    def extend(self, group: str, programs: Sequence[str | Path], **changes: Any) -> list[RunRecord]:
        """Add ``programs`` x seeds with the configuration changed by ``changes`` (``modernize=True``)
        to ``group`` in the stored plan, then train them; their records in programs x seeds order.

        The changed configuration is recorded as a campaign of its own (``<id>-<changed names>``),
        so the configuration file of every run's campaign reproduces it."""
        plan, opened = self._planned()
        cfg = dataclasses.replace(self.config, **changes)
        campaign_id = f"{opened.id}-{'-'.join(sorted(changes))}"
        prepared = self._prepare(cfg, group, programs)
        every = self._extra[campaign_id] = self._extra.get(campaign_id, []) + prepared
        recorded = dataclasses.replace(cfg, programs=[str(program.path) for program in every])
        open_campaign(recorded, opened.store, every, self._manifest_dir, campaign_id=campaign_id)
        runs = extend_plan(plan, cfg, group, prepared, opened.store, campaign_id)
        if group in self._counted:
            every, done = _split(runs)
            self._total += len(every)
            self._bar.total = self._total
            self._advance(len(done))
        return self._execute(group, runs, cfg, campaign_id)

    def _execute(self, group: str, runs: list[PlannedRun], cfg: CampaignConfig, campaign_id: str) -> list[RunRecord]:
        plan, opened = self._planned()
        before = _split(runs)[1]
        recheck(runs, cfg, opened.store, plan.memory_limit_mb)  # trained meanwhile for an earlier bug
        self._advance(len(_split(runs)[1] - before))
        self._bar.set_description(f"runs of {group}")
        done = execute_plan(plan, runs, cfg, opened.store, campaign_id, bar=_Counted(self), on_record=self._on_record)
        return [done.records[run.key] for run in runs if run.key in done.records]

    @property
    def progress(self) -> tuple[int, int]:
        """(runs done, runs planned) of the bugs this start decides: what the progress bar shows."""
        return self._done, self._total

    def _advance(self, n: int) -> None:
        self._done += n
        self._bar.update(n)

    def _planned(self) -> tuple[CampaignPlan, OpenCampaign]:
        if self.plan is None or self._opened is None:
            raise RuntimeError("write_plan first: the plan is stored before anything trains")
        return self.plan, self._opened

    def _opened_id(self) -> str:
        return self._planned()[1].id


def _distinct(runs: Sequence[PlannedRun]) -> set[str]:
    return {run.key for run in runs}


def _split(runs: Sequence[PlannedRun]) -> tuple[set[str], set[str]]:
    """(every key, the keys done) of ``runs``: the bar counts a bug's distinct runs."""
    return _distinct(runs), {run.key for run in runs if run.status == PlanStatus.DONE}


def _progress(total: int, initial: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc="runs", unit="run", file=sys.stderr,
                disable=None if enabled else True)  # fmt: skip



class _Counted:
    """The bar :func:`execute_plan` advances, counted by the campaign too (its :attr:`progress`)."""

    def __init__(self, campaign: BenchmarkCampaign) -> None:
        self._campaign = campaign

    def update(self, n: int = 1) -> None:
        self._campaign._advance(n)

    def write(self, text: str, file: Any = None) -> None:
        self._campaign._bar.write(text, file=file)
