"""Descriptive summaries, Cohen's d and its labels: the effect-size half of every verdict.

Cohen's d here is DeepCrime's: the difference of means over the pooled standard deviation with
the ``n - 1`` (sample) variances, ``d = (mean(a) - mean(b)) / sqrt(((n_a-1) s_a^2 + (n_b-1) s_b^2) /
(n_a + n_b - 2))``. Positive ``d`` means ``a`` has the higher mean.

Degenerate cases have defined answers, never NaN:

- pooled sd = 0 (every run of both groups gives the same value within its group, e.g. every run
  at 1.00 and every mutant run at chance): equal means give ``d = 0``; different means give
  ``d = +/-inf`` (perfect separation), labelled ``"large"``;
- fewer than two runs in total beyond the two means (``n_a + n_b - 2 <= 0``): the spread cannot be
  estimated and counts as zero, so the same rule applies (the p-value then says there is no
  evidence; see :mod:`mutreal.stats.two_groups`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

#: lower bounds of the labels small, medium, large on |d| (Cohen's conventions, as DeepCrime uses).
EFFECT_THRESHOLDS: dict[str, float] = {"small": 0.2, "medium": 0.5, "large": 0.8}


def effect_label(d: float) -> str:
    """``negligible`` (|d| < 0.2), ``small`` (< 0.5), ``medium`` (< 0.8) or ``large``."""
    size = abs(float(d))
    if size >= EFFECT_THRESHOLDS["large"]:
        return "large"
    if size >= EFFECT_THRESHOLDS["medium"]:
        return "medium"
    if size >= EFFECT_THRESHOLDS["small"]:
        return "small"
    return "negligible"


def _as_array(values: Sequence[float] | np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=float).reshape(-1)


def pooled_sd(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Pooled standard deviation of two groups (sample variances); 0 when it cannot be estimated.

    The degrees of freedom are ``n_a + n_b - 2``; an empty group has no mean to estimate and takes
    none, so ``pooled_sd([], b)`` is the sample sd of ``b``.
    """
    x, y = _as_array(a), _as_array(b)
    dof = max(len(x) - 1, 0) + max(len(y) - 1, 0)
    if dof <= 0:
        return 0.0
    ss = (len(x) - 1) * (np.var(x, ddof=1) if len(x) > 1 else 0.0)
    ss += (len(y) - 1) * (np.var(y, ddof=1) if len(y) > 1 else 0.0)
    return float(math.sqrt(max(ss, 0.0) / dof))


def cohen_d(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """DeepCrime's Cohen's d, ``(mean(a) - mean(b)) / pooled sd``; +/-inf on perfect separation.

    Returns 0.0 when either group is empty (nothing to compare).
    """
    x, y = _as_array(a), _as_array(b)
    if len(x) == 0 or len(y) == 0:
        return 0.0
    difference = float(np.mean(x) - np.mean(y))
    sd = pooled_sd(x, y)
    # A pooled sd at rounding-noise level of the values counts as zero: identical runs stored as
    # floats must not turn into a huge finite d.
    scale = max(float(np.max(np.abs(x))), float(np.max(np.abs(y))), 1.0)
    if sd <= 1e-12 * scale:
        if abs(difference) <= 1e-12 * scale:
            return 0.0
        return math.copysign(math.inf, difference)
    return difference / sd


@dataclass
class Summary:
    """Mean, spread and N of one group of runs: what every result prints, never a single run."""

    n: int
    mean: float | None
    std: float | None
    median: float | None
    minimum: float | None
    maximum: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Summary:
        return cls(**{k: data.get(k) for k in ("n", "mean", "std", "median", "minimum", "maximum")})

    def describe(self, digits: int = 4) -> str:
        """``mean ± std (N=n)`` for people."""
        if self.n == 0 or self.mean is None:
            return "no runs (N=0)"
        return f"{self.mean:.{digits}f} ± {self.std or 0.0:.{digits}f} (N={self.n})"


def summarise(values: Sequence[float] | np.ndarray) -> Summary:
    """Summary of finite values (std with ddof=1; 0.0 for a single run; ``None`` fields when empty)."""
    x = _as_array(values)
    if len(x) == 0:
        return Summary(0, None, None, None, None, None)
    std = float(np.std(x, ddof=1)) if len(x) > 1 else 0.0
    return Summary(
        n=len(x),
        mean=float(np.mean(x)),
        std=std,
        median=float(np.median(x)),
        minimum=float(np.min(x)),
        maximum=float(np.max(x)),
    )
