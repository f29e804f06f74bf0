"""How alike a mutant and a real fault are, input by input (Ahmed, Makedonski, Grabowski).

For each test input ``t`` and paired instances ``k`` (same seed index), input ``t`` kills instance
``k`` of a faulty program when the reference program's instance ``k`` gets ``t`` right and the
faulty program's instance ``k`` gets it wrong. The killing probability ``KP(t)`` is the share of
the ``n`` instances it kills, reported with a 90% Wilson score interval. For a mutant ``M`` and a
real fault ``F`` (both against the same reference, the fixed program):

- coupling strength ``CS = sum_t min(KP_M(t), KP_F(t)) / sum_t KP_M(t)``: how much of what kills
  the mutant also kills the real fault;
- detectability IoU ``= sum_t min(KP_M(t), KP_F(t)) / sum_t max(KP_M(t), KP_F(t))``: overlap of the
  two (fuzzy) sets of killing inputs.

Undefined ratios are ``None`` (documented, never NaN): CS when the mutant is killed by no input
(``sum KP_M = 0``), IoU when neither is killed by any input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from mutreal.stats.serialise import dataclass_from_dict

#: Ahmed et al. report 90% Wilson intervals.
WILSON_CONFIDENCE = 0.90


def wilson_interval(successes: int, n: int, confidence: float = WILSON_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a proportion; ``(0, 1)`` when ``n == 0`` (no information)."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} successes out of {n}")
    from scipy.stats import norm

    z = float(norm.ppf(1 - (1 - confidence) / 2))
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class KillingProbabilities:
    """KP per input with Wilson bounds, over ``n_instances`` paired instances."""

    n_instances: int
    confidence: float
    kp: list[float]
    low: list[float]
    high: list[float]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["n_inputs"] = len(self.kp)
        data["mean_kp"] = float(np.mean(self.kp)) if self.kp else 0.0
        data["inputs_killing"] = int(sum(1 for v in self.kp if v > 0))
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KillingProbabilities:
        return dataclass_from_dict(cls, data)


def killing_probabilities(
    reference_correct: Sequence[Sequence[bool]] | np.ndarray,
    faulty_correct: Sequence[Sequence[bool]] | np.ndarray,
    confidence: float = WILSON_CONFIDENCE,
) -> KillingProbabilities:
    """KP per input from (instances x inputs) correctness of the reference and the faulty program.

    Instances are paired by index; with different counts the first ``min`` of each are used.
    """
    reference = np.asarray(reference_correct, dtype=bool)
    faulty = np.asarray(faulty_correct, dtype=bool)
    if reference.ndim != 2 or faulty.ndim != 2:
        raise ValueError("expected (instances x inputs) matrices")
    if reference.shape[1] != faulty.shape[1]:
        raise ValueError(f"{reference.shape[1]} inputs for the reference, {faulty.shape[1]} for the faulty")
    n = min(reference.shape[0], faulty.shape[0])
    kills = reference[:n] & ~faulty[:n]
    counts = kills.sum(axis=0) if n else np.zeros(reference.shape[1], dtype=int)
    bounds = [wilson_interval(int(c), n, confidence) for c in counts]
    return KillingProbabilities(
        n_instances=n,
        confidence=confidence,
        kp=[float(c) / n if n else 0.0 for c in counts],
        low=[b[0] for b in bounds],
        high=[b[1] for b in bounds],
    )


def _pair(kp_mutant: Sequence[float], kp_fault: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    m = np.asarray(kp_mutant, dtype=float).reshape(-1)
    f = np.asarray(kp_fault, dtype=float).reshape(-1)
    if m.shape != f.shape:
        raise ValueError(f"KP vectors of different lengths: {len(m)} and {len(f)}")
    return m, f


def coupling_strength(kp_mutant: Sequence[float], kp_fault: Sequence[float]) -> float | None:
    """``sum min(KP_M, KP_F) / sum KP_M``; ``None`` when no input kills the mutant."""
    m, f = _pair(kp_mutant, kp_fault)
    total = float(m.sum())
    if total <= 0:
        return None
    return float(np.minimum(m, f).sum()) / total


def detectability_iou(kp_mutant: Sequence[float], kp_fault: Sequence[float]) -> float | None:
    """``sum min(KP_M, KP_F) / sum max(KP_M, KP_F)``; ``None`` when no input kills either."""
    m, f = _pair(kp_mutant, kp_fault)
    union = float(np.maximum(m, f).sum())
    if union <= 0:
        return None
    return float(np.minimum(m, f).sum()) / union


@dataclass
class Similarity:
    """A mutant against a real fault: coupling strength, IoU and the agreement of killing inputs."""

    coupling_strength: float | None
    detectability_iou: float | None
    inputs_killing_mutant: int
    inputs_killing_fault: int
    inputs_killing_both: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Similarity:
        return cls(**data)


def similarity(kp_mutant: Sequence[float], kp_fault: Sequence[float]) -> Similarity:
    """CS, IoU and counts of inputs with KP > 0 for the mutant, the fault, and both."""
    m, f = _pair(kp_mutant, kp_fault)
    return Similarity(
        coupling_strength=coupling_strength(m, f),
        detectability_iou=detectability_iou(m, f),
        inputs_killing_mutant=int((m > 0).sum()),
        inputs_killing_fault=int((f > 0).sum()),
        inputs_killing_both=int(((m > 0) & (f > 0)).sum()),
    )
