"""What a run depends on besides its program: package versions, Python, OS and devices.

Used twice: the versions enter every run's key (a TensorFlow upgrade must not reuse old results),
and the whole description goes into each campaign's reproducibility manifest. Nothing here imports
TensorFlow, so the driver stays light; GPU facts come from ``nvidia-smi`` when it exists.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
from importlib import metadata
from typing import Any

#: The distributions whose versions can change a training's numbers (first name found wins).
PRIMARY_PACKAGES: dict[str, tuple[str, ...]] = {
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos"),
    "keras": ("keras",),
    "numpy": ("numpy",),
    "scikit-learn": ("scikit-learn",),
    "pandas": ("pandas",),
    "scipy": ("scipy",),
    "h5py": ("h5py",),
    "ml-dtypes": ("ml-dtypes",),
    "mutreal": ("mutreal",),
}
#: Bump when the worker's capture or reset changes in a way that changes stored records.
RUNNER_SCHEMA = "1"


def package_versions() -> dict[str, str]:
    """Installed versions of :data:`PRIMARY_PACKAGES` (absent ones are left out)."""
    versions: dict[str, str] = {}
    for label, candidates in PRIMARY_PACKAGES.items():
        for dist in candidates:
            try:
                versions[label] = metadata.version(dist)
                break
            except metadata.PackageNotFoundError:
                continue
    return versions


def environment_key() -> dict[str, str]:
    """The part of the environment that enters run keys: Python, machine, result-affecting packages."""
    versions = package_versions()
    versions.pop("mutreal", None)  # mutreal's own version is covered by RUNNER_SCHEMA
    versions.pop("pandas", None)
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "runner_schema": RUNNER_SCHEMA,
        **versions,
    }


def environment_hash() -> str:
    """sha256 over :func:`environment_key` (stable JSON)."""
    text = json.dumps(environment_key(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpu_devices() -> list[dict[str, str]]:
    """GPUs seen by ``nvidia-smi`` (name, driver, memory); empty without NVIDIA GPUs."""
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=index,name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    devices = []
    for line in out.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 4:
            devices.append({"index": parts[0], "name": parts[1], "driver": parts[2], "memory": parts[3]})
    return devices


def describe_environment() -> dict[str, Any]:
    """Everything the manifest records about where a campaign ran."""
    return {
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "os": platform.platform(),
        "hostname": platform.node(),
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpus": gpu_devices(),
        "packages": package_versions(),
        "environment_hash": environment_hash(),
    }
