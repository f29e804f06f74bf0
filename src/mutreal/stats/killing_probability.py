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

Inputs with their own ``n``: a program that makes or splits its data without a seed evaluates other
inputs in each run, so input ``t`` is identified by its content, not its position
(:mod:`mutreal.analysis.pairing`), and counts only in the instances whose paired runs both
evaluated it (``counted``). Then ``KP(t) = kills / n(t)`` with its own Wilson interval, and CS and
IoU sum over the inputs counted at least once on both sides. An input seen in one instance has KP 0
or 1 and a wide interval: the ``n`` list says so. Where every input is counted in every instance
this is the formula above, value for value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mutreal.stats.serialise import FieldRecord

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
class KillingProbabilities(FieldRecord):
    """KP per input with Wilson bounds, over ``n_instances`` paired instances.

    ``n``: the instances each input was counted in, where inputs differ (paired by content, some
    inputs not evaluated in every run); ``None`` where every input is counted in every instance."""

    n_instances: int
    confidence: float
    kp: list[float]
    low: list[float]
    high: list[float]
    n: list[int] | None = None

    @property
    def counts(self) -> list[int]:
        """Instances per input (``n_instances`` for each where ``n`` is None)."""
        return list(self.n) if self.n is not None else [self.n_instances] * len(self.kp)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        if self.n is None:
            data.pop("n")  # every input in every instance: the shape rows always had
        data["n_inputs"] = len(self.kp)
        # over the inputs counted at least once (all of them where n is None and there are instances)
        seen = [v for v, c in zip(self.kp, self.counts, strict=True) if c > 0 or self.n is None]
        data["mean_kp"] = float(np.mean(seen)) if seen else 0.0
        data["inputs_killing"] = int(sum(1 for v in self.kp if v > 0))
        return data


def killing_probabilities(
    reference_correct: Sequence[Sequence[bool]] | np.ndarray,
    faulty_correct: Sequence[Sequence[bool]] | np.ndarray,
    confidence: float = WILSON_CONFIDENCE,
    counted: Sequence[Sequence[bool]] | np.ndarray | None = None,
) -> KillingProbabilities:
    """KP per input from (instances x inputs) correctness of the reference and the faulty program.

    Instances are paired by index; with different counts the first ``min`` of each are used.
    ``counted`` (instances x inputs, default: everything) says in which instances each input was
    evaluated by both paired runs: each input then has its own ``n`` (see the module docstring).
    """
    reference = np.asarray(reference_correct, dtype=bool)
    faulty = np.asarray(faulty_correct, dtype=bool)
    if reference.ndim != 2 or faulty.ndim != 2:
        raise ValueError("expected (instances x inputs) matrices")
    if reference.shape[1] != faulty.shape[1]:
        raise ValueError(f"{reference.shape[1]} inputs for the reference, {faulty.shape[1]} for the faulty")
    n = min(reference.shape[0], faulty.shape[0])
    kills = reference[:n] & ~faulty[:n]
    per_input = None
    if counted is not None:
        mask = np.asarray(counted, dtype=bool)
        if mask.ndim != 2 or mask.shape[1] != reference.shape[1] or mask.shape[0] < n:
            raise ValueError(f"counted has shape {mask.shape}, expected ({n}, {reference.shape[1]})")
        kills = kills & mask[:n]
        per_input = [int(v) for v in mask[:n].sum(axis=0)] if n else [0] * reference.shape[1]
        if all(v == n for v in per_input):
            per_input = None  # every input in every instance: exactly the positional case
    counts = kills.sum(axis=0) if n else np.zeros(reference.shape[1], dtype=int)
    ns = per_input if per_input is not None else [n] * len(counts)
    bounds = [wilson_interval(int(c), m, confidence) for c, m in zip(counts, ns, strict=True)]
    return KillingProbabilities(
        n_instances=n,
        confidence=confidence,
        kp=[float(c) / m if m else 0.0 for c, m in zip(counts, ns, strict=True)],
        low=[b[0] for b in bounds],
        high=[b[1] for b in bounds],
        n=per_input,
    )


def counted_on_both(mutant: KillingProbabilities, fault: KillingProbabilities) -> list[bool]:
    """Per input: counted in at least one instance of the mutant's pairs and of the fault's."""
    return [a > 0 and b > 0 for a, b in zip(mutant.counts, fault.counts, strict=True)]


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
class Similarity(FieldRecord):
    """A mutant against a real fault: coupling strength, IoU and the agreement of killing inputs."""

    coupling_strength: float | None
    detectability_iou: float | None
    inputs_killing_mutant: int
    inputs_killing_fault: int
    inputs_killing_both: int


def similarity(
    kp_mutant: Sequence[float], kp_fault: Sequence[float], include: Sequence[bool] | np.ndarray | None = None
) -> Similarity:
    """CS, IoU and counts of inputs with KP > 0 for the mutant, the fault, and both.

    ``include`` (default: every input) keeps the inputs counted on both sides (``n > 0`` for the
    mutant and for the fault): an input one side never evaluated has no KP there, not KP 0."""
    m, f = _pair(kp_mutant, kp_fault)
    if include is not None:
        keep = np.asarray(include, dtype=bool).reshape(-1)
        if keep.shape != m.shape:
            raise ValueError(f"include has {len(keep)} entries for {len(m)} inputs")
        m, f = m[keep], f[keep]
    return Similarity(
        coupling_strength=coupling_strength(m, f),
        detectability_iou=detectability_iou(m, f),
        inputs_killing_mutant=int((m > 0).sum()),
        inputs_killing_fault=int((f > 0).sum()),
        inputs_killing_both=int(((m > 0) & (f > 0)).sum()),
    )
