"""The semantic diff's public names, kept importable here; the implementation is :mod:`mutreal.compare`."""

from __future__ import annotations

from mutreal.compare import (
    NOISE_RULES,
    ComponentKind,
    FaultComponent,
    HyperVariable,
    NoiseRule,
    RuntimeCall,
    align_layers,
    diff_models,
)
from mutreal.compare.data import gains_batch_axis as _gains_batch_axis
from mutreal.compare.data import reshapes_to as _reshapes_to
from mutreal.compare.training_data import runtime_training_function

__all__ = [
    "NOISE_RULES",
    "ComponentKind",
    "FaultComponent",
    "HyperVariable",
    "NoiseRule",
    "RuntimeCall",
    "_gains_batch_axis",
    "_reshapes_to",
    "align_layers",
    "diff_models",
    "runtime_training_function",
]
