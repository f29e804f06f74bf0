"""What the training commands' options become: one settings object per option group.

``reproduce``, ``kill``, ``compare`` and ``sensitivity`` take the same dozen runner options and the
same statistics options. Handing each of them a dozen keyword arguments made every command plumb
them again (and a new runner option had to be added to four signatures and four API calls). The
option decorators of :mod:`mutreal.commands.campaign_options` build these objects once; a command
turns them back into the API's keyword arguments at its call (``**run.api_kwargs()``), so the API
(:mod:`mutreal.campaigns`) stays the one place where anything is decided. The statistics options
become the API's own :class:`mutreal.analysis.settings.DecisionSettings`. The objects are plain
data (``to_dict``), so a command or a test can print or compare the settings it ran with.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class RunSettings:
    """How programs are trained: the seeds and the runner's options (isolation, limits, store)."""

    runs: int = 20
    seeds: list[int] | None = None
    jobs: int | None = None
    executor: str = "local"
    address: str | None = None
    timeout_s: float | None = None
    memory_limit_mb: float | None = None
    store: str | None = None
    modernize: bool = False
    framework: str = "auto"
    repeat_crashes: bool = False
    quiet: bool = False
    sandbox_mode: str = "auto"
    env: tuple[str, ...] = ()

    def planned_seeds(self) -> list[int]:
        """The seeds every program trains with: ``--seeds``, else ``0 .. --runs - 1``."""
        return list(self.seeds) if self.seeds is not None else list(range(self.runs))

    def campaign(self) -> dict[str, Any]:
        """The :func:`mutreal.execution.run_campaign` keyword arguments (the APIs' ``campaign=``)."""
        return {
            "progress": not self.quiet,
            "jobs": self.jobs,
            "executor": self.executor,
            "address": self.address,
            "timeout_s": self.timeout_s,
            "memory_limit_mb": self.memory_limit_mb,
            "store": self.store,
            "modernize": self.modernize or None,
            "framework": self.framework,
            "repeat_crashes": self.repeat_crashes or None,
            "sandbox_mode": self.sandbox_mode,
            "env": list(self.env) or None,
        }

    def api_kwargs(self) -> dict[str, Any]:
        """``runs``, ``seeds`` and ``campaign``: the keyword arguments of the verdict APIs."""
        return {"runs": self.runs, "seeds": self.seeds, "campaign": self.campaign()}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AdaptiveSettings:
    """Whether runs are added in rounds until the verdict cannot change, and the rounds' sizes."""

    adaptive: bool = False
    min_runs: int = 5
    step: int = 5

    def api_kwargs(self) -> dict[str, Any]:
        """``adaptive``, ``min_runs``, ``step``: keyword arguments of ``reproduce`` and ``kill``."""
        return asdict(self)

    to_dict = api_kwargs
