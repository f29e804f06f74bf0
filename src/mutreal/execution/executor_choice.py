"""Which executor trains a campaign's runs (local warm workers, the worker service, Ray) and with what options.

Why a module of its own: the executor and the options its workers start with are chosen from the
configuration alone; the worker service and ``mutreal workers`` start workers with the same options.
The executors themselves are imported only when chosen (Ray, the service client).
"""

from __future__ import annotations

from typing import Any

from mutreal.execution import sandbox
from mutreal.execution.campaign_config import CampaignConfig


def setup_errors() -> tuple[type[BaseException], ...]:
    from mutreal.execution.ray_executor import RayClusterUnreachable

    return (sandbox.SandboxUnavailable, RayClusterUnreachable)


def describe_isolation(cfg: CampaignConfig) -> dict[str, Any]:
    """What the campaign record says about the sandbox (and the once-only warning of a fallback).

    Local workers run on this machine, so the mode is known now; the worker service and Ray workers
    resolve it on their machines, and each record's ``sandbox`` field says what its run had."""
    if cfg.executor != "local":
        return {"requested": cfg.sandbox, "mode": "resolved by each worker (see the records' sandbox field)"}
    choice = sandbox.resolve(cfg.sandbox)
    sandbox.warn_fallback_once(choice)
    return choice.to_dict()


def worker_options(cfg: CampaignConfig) -> dict[str, Any]:
    """What a worker is started with; warm workers are reused only by campaigns with equal options.

    The sandbox mode and the passed variables are there only when not the default, so a campaign
    with default settings uses the warm workers of a worker service started with default options."""
    options: dict[str, Any] = {
        "threads": cfg.resolved_threads(),
        "deterministic": cfg.deterministic,
        "block_network": cfg.block_network,
    }
    if cfg.sandbox != "auto":
        options["sandbox"] = cfg.sandbox
    passed = sandbox.passed_variables(cfg.env)
    if passed:
        options["env"] = passed
    return options


def make_executor(cfg: CampaignConfig, memory_limit: float, keep_workers: bool | None = None) -> Any:
    common = {
        "jobs": cfg.jobs,
        "options": worker_options(cfg),
        "timeout_s": cfg.timeout_s,
        "memory_limit_mb": memory_limit,
        "max_runs_per_worker": cfg.max_runs_per_worker,
    }
    if cfg.executor == "pool":
        from mutreal.execution.service import ServiceExecutor

        return ServiceExecutor(address=cfg.address, **common)
    if cfg.executor == "ray":
        from mutreal.execution.ray_executor import RayExecutor

        return RayExecutor(
            address=cfg.address, gpus_per_run=cfg.gpus_per_run, max_retries=cfg.max_retries, **common
        )
    from mutreal.execution.pool import LocalExecutor

    return LocalExecutor(keep_workers=cfg.keep_workers if keep_workers is None else keep_workers, **common)


def end_kept_workers(executor: Any) -> None:
    """Kill the local workers a phased campaign kept warm between its phases only."""
    kept = getattr(executor, "kept", None)
    if kept:
        from mutreal.execution.pool import kill_idle

        kill_idle(kept)
