"""The files a campaign leaves beside its store: its re-runnable configuration and its manifest.

Why a module of its own: what a campaign writes for reproducibility (environment, isolation, seeds,
programs with their hashes) is a format of its own, read by people and by ``run --config``.
"""

from __future__ import annotations

import datetime as _dt
import sys
from pathlib import Path
from typing import Any

import yaml

from mutreal.execution import environment
from mutreal.execution.campaign_config import CampaignConfig
from mutreal.execution.plan import PreparedProgram


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def build_manifest(
    config: CampaignConfig,
    campaign_id: str,
    programs: list[PreparedProgram],
    isolation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The reproducibility manifest: environment, isolation, seeds, programs with their hashes, configuration."""
    return {
        "campaign_id": campaign_id,
        "created_at": utc_now(),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else "",
        "environment": environment.describe_environment(),
        "sandbox": isolation or {},
        "seeds": config.seed_list(),
        "programs": [
            {
                "path": str(p.path),
                "program_hash": p.program_hash,
                "data_hash": p.data_hash,
                "era": p.era,
                "framework": p.framework,
                "framework_reason": p.framework_reason,
                "rewrites": p.rewrites,
                "args": p.args,
                "error": p.error,
            }
            for p in programs
        ],
        "configuration": config.to_dict(),
    }


def write_campaign_files(
    config: CampaignConfig, manifest: dict[str, Any], folder: Path, stem: str
) -> tuple[Path, Path]:
    """Write ``<stem>.config.yaml`` (re-runnable) and ``<stem>.manifest.yaml`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    config_path = folder / f"{stem}.config.yaml"
    manifest_path = folder / f"{stem}.manifest.yaml"
    config_path.write_text(config.to_yaml(), encoding="utf-8")
    manifest_path.write_text(
        yaml.safe_dump(manifest, sort_keys=False, default_flow_style=False), encoding="utf-8"
    )
    return config_path, manifest_path
