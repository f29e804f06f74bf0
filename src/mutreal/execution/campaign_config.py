"""A campaign's configuration: every setting, its YAML form (``run --config``), and the options applied.

Why a module of its own: the configuration is read by the plan (run keys), the loop, the executor
choice, the worker service's start-up and the commands' option parsing; none of them needs the
campaign loop to read it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mutreal.execution import sandbox

EXECUTORS = ("local", "ray", "pool")


def _default_jobs() -> int:
    return max(1, (os.cpu_count() or 2) // 2)


@dataclass
class CampaignConfig:
    """Everything that defines a campaign; saved as YAML and accepted again by ``run --config``.

    Only ``modernize``, ``args``, ``deterministic`` and the TensorFlow threads per worker (by default
    cores / jobs) can change a run's numbers, so only they enter run keys (:meth:`result_affecting`);
    limits, executor and ``repeat_crashes`` do not. A run that hit a limit is
    retried when the limit is raised.
    """

    programs: list[str] = field(default_factory=list)
    runs: int = 10
    seeds: list[int] | None = None
    jobs: int = field(default_factory=_default_jobs)
    executor: str = "local"
    address: str | None = None
    timeout_s: float | None = 3600.0
    memory_limit_mb: float | None = None
    metric: str | None = None
    modernize: bool = False
    #: The framework each program runs on: ``auto`` (its era's, :mod:`mutreal.compat.framework_choice`),
    #: ``keras3``, ``tf_keras``, ``tf1`` or ``as-is``; each run's framework enters its key.
    framework: str = "auto"
    args: list[str] = field(default_factory=list)
    store: str | None = None
    threads_per_worker: int | None = None
    gpus_per_run: float = 0.0
    max_runs_per_worker: int = 200
    max_retries: int = 2
    keep_workers: bool = False
    deterministic: bool = True
    block_network: bool = True
    #: ``auto`` (bubblewrap where it works, else the basic isolation, said once), ``bwrap``, ``none``.
    sandbox: str = "auto"
    #: Variables passed into the sandbox: ``NAME`` (the caller's value) or ``NAME=VALUE``.
    env: list[str] = field(default_factory=list)
    #: Train every seed of a program whose first run crashed before its first epoch (by default
    #: such a crash is taken as deterministic: its other seeds repeat it without training).
    repeat_crashes: bool = False
    #: program path -> the folder whose data files it sees (default: its own folder). ``kill`` and
    #: ``compare`` point mutants written elsewhere (``mutate --out``) at their original's folder.
    data_folders: dict[str, str] = field(default_factory=dict)
    #: program path -> its own command-line arguments (a manifest's ``args`` column), given to it
    #: instead of ``args``; they enter its run key.
    program_args: dict[str, list[str]] = field(default_factory=dict)

    def args_for(self, program: str | Path) -> list[str] | None:
        """The program's own arguments (``program_args``), or None when it takes the campaign's ``args``."""
        resolved = Path(program).resolve()
        for name, args in self.program_args.items():
            if Path(name).resolve() == resolved:
                return [str(a) for a in args]
        return None

    def data_folder(self, program: str | Path) -> Path:
        """The folder whose data files ``program`` sees when it runs (and whose contents enter its key)."""
        resolved = Path(program).resolve()
        for name, folder in self.data_folders.items():
            if Path(name).resolve() == resolved:
                return Path(folder).resolve()
        return resolved.parent

    def seed_list(self) -> list[int]:
        """The seeds to run: ``seeds`` when given, else ``0 .. runs-1``."""
        return list(self.seeds) if self.seeds is not None else list(range(int(self.runs)))

    def resolved_memory_limit_mb(self) -> float:
        """The memory limit per worker: as set, else 80% of this machine's memory shared by the jobs."""
        if self.memory_limit_mb is not None:
            return float(self.memory_limit_mb)
        import psutil

        total = psutil.virtual_memory().total / (1024 * 1024)
        return float(max(2048.0, min(32768.0, 0.8 * total / max(1, self.jobs))))

    def resolved_threads(self) -> int:
        """TensorFlow threads per worker: as set, else the cores shared evenly by the jobs."""
        if self.threads_per_worker:
            return int(self.threads_per_worker)
        return max(1, (os.cpu_count() or 1) // max(1, self.jobs))

    def result_affecting(self) -> dict[str, Any]:
        """The settings that can change a run's numbers (they enter run keys).

        TensorFlow's CPU thread count is one: it changes the order of float sums, so the same seed
        gives other numbers with 1 thread than with 2 (seen on the digits CNN).
        """
        return {
            "modernize": self.modernize,
            "args": list(self.args),
            "deterministic": self.deterministic,
            "threads": self.resolved_threads(),
        }

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CampaignConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown campaign configuration keys: {', '.join(sorted(unknown))}")
        return cls(**data)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False)

    @classmethod
    def from_yaml(cls, text: str) -> CampaignConfig:
        data = yaml.safe_load(text) or {}
        if not isinstance(data, dict):
            raise ValueError("a campaign configuration is a YAML mapping")
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> CampaignConfig:
        return cls.from_yaml(Path(path).read_text(encoding="utf-8"))


def campaign_config(config: CampaignConfig | None, options: Mapping[str, Any]) -> CampaignConfig:
    """``config`` (or the defaults) with ``options`` applied: :func:`execute_campaign`'s keyword
    arguments, ``None`` meaning not given. Checks the executor and ``--env``; a benchmark
    (:mod:`mutreal.execution.benchmark`) builds its one configuration the same way."""
    cfg = dataclasses.replace(config) if config is not None else CampaignConfig()
    programs, seeds, env, store, folders = (options.get(name) for name in ("programs", "seeds", "env", "store",
                                                                           "data_folders"))  # fmt: skip
    overrides = {
        **{name: options.get(name) for name in ("runs", "jobs", "executor", "address", "timeout_s",
                                                "memory_limit_mb", "metric", "modernize", "framework",
                                                "keep_workers", "repeat_crashes")},
        "programs": [str(p) for p in programs] if programs is not None else None,
        "seeds": list(seeds) if seeds is not None else None,
        "sandbox": options.get("sandbox_mode"),
        "env": list(env) if env else None,
        "store": str(store) if isinstance(store, (str, Path)) else None,
        "data_folders": {str(k): str(v) for k, v in folders.items()} if folders else None,
        "args": [str(a) for a in options["args"]] if options.get("args") is not None else None,
        "program_args": {str(k): [str(a) for a in v] for k, v in options["program_args"].items()}
        if options.get("program_args") else None,
    }  # fmt: skip
    for name, value in overrides.items():
        if value is not None:
            setattr(cfg, name, value)
    if seeds is None and options.get("runs") is not None and config is not None and config.seeds is not None:
        cfg.seeds = None  # an explicit --runs replaces the configuration's seed list
    if cfg.executor not in EXECUTORS:
        raise ValueError(f"unknown executor {cfg.executor!r}: choose one of {', '.join(EXECUTORS)}")
    jobs_chosen = options.get("jobs") is not None or cfg.threads_per_worker is not None
    if cfg.executor == "pool" and not jobs_chosen and (config is None or config.jobs == _default_jobs()):
        # no --jobs: use the service's workers as they are (their thread count enters run keys)
        from mutreal.execution.service import service_layout

        cfg.jobs, cfg.threads_per_worker = service_layout(cfg.address)
    sandbox.passed_variables(cfg.env)  # a malformed --env is an error before anything runs
    return cfg
