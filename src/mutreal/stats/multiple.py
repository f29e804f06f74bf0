"""Holm's step-down correction: many mutants tested against one original keep the family-wise error.

Holm (1979): sort the m p-values, compare the k-th smallest with alpha / (m - k + 1), reject up
to the first that fails. Adjusted p-values are ``max_{j<=k} min(1, (m - j + 1) p_(j))``. It is
monotone: lowering any p-value never removes a rejection, so it keeps the Fisher verdict monotone.
A missing p-value (``None``: the test could not run) counts as 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mutreal.stats.serialise import FieldRecord


@dataclass
class HolmResult(FieldRecord):
    """Adjusted p-values and rejections, in the order of the input p-values."""

    alpha: float
    p_values: list[float]
    adjusted: list[float]
    rejected: list[bool]


def holm(p_values: Sequence[float | None], alpha: float = 0.05) -> HolmResult:
    """Holm-adjusted p-values and which hypotheses are rejected at family-wise level ``alpha``."""
    raw = [1.0 if p is None else float(p) for p in p_values]
    if not raw:
        return HolmResult(alpha, [], [], [])
    # Written out rather than statsmodels' multipletests, which runs gc.collect() on every call
    # (~50 ms): a campaign corrects thousands of mutant families.
    p = np.asarray(raw, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, p[order] * (m - np.arange(m)))
    adjusted_sorted = np.maximum.accumulate(scaled)
    thresholds = alpha / (m - np.arange(m))
    passing = p[order] <= thresholds
    first_failure = int(np.argmin(passing)) if not passing.all() else m
    rejected_sorted = np.arange(m) < first_failure
    adjusted = np.empty(m)
    rejected = np.empty(m, dtype=bool)
    adjusted[order] = adjusted_sorted
    rejected[order] = rejected_sorted
    return HolmResult(
        alpha=alpha,
        p_values=raw,
        adjusted=[float(x) for x in adjusted],
        rejected=[bool(r) for r in rejected],
    )
