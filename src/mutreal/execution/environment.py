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
    "tf-keras": ("tf-keras",),  # Keras 1/2-era programs run on it (mutreal.compat.framework_choice)
    "tf-slim": ("tf-slim",),  # serves tf.contrib to TensorFlow 1 programs (mutreal.compat.tf1_contrib)
    "numpy": ("numpy",),
    "scikit-learn": ("scikit-learn",),
    "pandas": ("pandas",),
    "scipy": ("scipy",),
    "h5py": ("h5py",),
    "ml-dtypes": ("ml-dtypes",),
    "mutreal": ("mutreal",),
}
#: Bump when the worker's capture or reset changes in a way that changes stored records.
#: 2: per-input records carry content ids (``input_ids``: pairing by input content needs them), and
#: the worker serves tf.contrib / tensorflow.examples, repairs Keras 2 sub-modules and replaces a
#: worker that holds memory: a run stored by runner 1 may have crashed where it now trains.
#: 3: tf_keras/tf1 workers restore the era's pandas and graph-mode Keras behaviours and scipy.misc
#: (mutreal.compat.era_behaviour): a run stored by runner 2 may have crashed where it now trains;
#: a program that evaluated with per-input correctness also gets its validation data recorded (a
#: comparison with a version of it that never evaluates is judged there).
#: 4: a multi-label model's per-input predictions and labels are label sets (a run stored by runner 3
#: holds the argmax of its sigmoid units); programs of the NumPy 1 era get its one-element array
#: conversions back (mutreal.compat.numpy1_scalars).
#: 5: a run that trained and evaluated and then failed in scaffolding (timing, printing, saving to a
#: path) is ``ok`` with ``scaffolding_failure`` saying where (mutreal.execution.scaffolding_failure);
#: a mutant run in its original's folder finds that folder under its own name (``fixed/result.json``):
#: a run stored by runner 4 may have crashed where it now completes.
#: 6: one output unit of a cross-entropy classifier is a logit (class 1 above 0) only where its loss
#: was compiled with ``from_logits=True``; a loss given by name reads probabilities (class 1 above
#: 0.5, as Keras' accuracy): runs stored by runner 5 may hold other per-input classes.
RUNNER_SCHEMA = "6"


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
    rows = query_gpus("index,name,driver_version,memory.total", "csv,noheader", timeout_s=20)
    return [
        {"index": parts[0], "name": parts[1], "driver": parts[2], "memory": parts[3]}
        for parts in rows or []
        if len(parts) >= 4
    ]


def query_gpus(fields: str, output_format: str, timeout_s: float) -> list[list[str]] | None:
    """One ``nvidia-smi --query-gpu`` call: per GPU its comma-separated values, stripped.

    ``None`` when the call fails (no driver, a hung device past ``timeout_s``): a campaign never
    stops because the GPU could not be described or sampled."""
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={fields}", f"--format={output_format}"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return [[part.strip() for part in line.split(",")] for line in out.strip().splitlines() if line.strip()]


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


class GpuMonitor:
    """Samples GPU utilisation and memory with ``nvidia-smi`` while a campaign runs (no-op without GPUs).

    Reported with the campaign so that packing several runs on one GPU can be judged: a GPU at 20%
    while runs queue means more jobs per GPU would help.
    """

    def __init__(self, interval_s: float = 1.0) -> None:
        import threading

        self.interval_s = interval_s
        self.samples: list[tuple[float, float]] = []  # (utilisation %, memory used MiB), summed over GPUs
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.available = shutil.which("nvidia-smi") is not None

    def _sample(self) -> None:
        found = query_gpus("utilization.gpu,memory.used", "csv,noheader,nounits", timeout_s=10)
        if found is None:
            return
        rows = [[float(v) for v in parts] for parts in found]
        if rows:
            self.samples.append((sum(r[0] for r in rows) / len(rows), sum(r[1] for r in rows)))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def __enter__(self) -> GpuMonitor:
        if self.available:
            import threading

            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=15)

    def summary(self) -> dict[str, float] | None:
        """Mean and max utilisation (%) and max memory used (MiB) over the samples; None without GPUs."""
        if not self.samples:
            return None
        utilisation = [s[0] for s in self.samples]
        return {
            "gpu_utilisation_mean": sum(utilisation) / len(utilisation),
            "gpu_utilisation_max": max(utilisation),
            "gpu_memory_used_max_mb": max(s[1] for s in self.samples),
            "samples": float(len(self.samples)),
        }
