"""The realism study's reproduction rule (RQ5): is a real fault reproduced, and stably so?

The study: "If a symptom is a crash/failure, then we expect the buggy version to produce a
failure message, while the fixed version does not. If the symptom is low performance, we then
run the buggy and fixed versions 20 times and check whether the improvement in the performance
metric is statistically significant (GLM) and the effect size for this improvement is
non-negligible (Cohen's d). We also check whether the bug is reproduced in a stable manner
across all 20 runs, i.e., the performance metric improves or the crash gets fixed at each of the
runs."

Made precise here (runs are paired by seed index; a run without a finite metric counts as failed):

- symptom ``performance``: reproduced when the fixed program is better with p < alpha (GLM by
  default) and |d| >= 0.2 in its favour; stable when, in addition, at every seed index the fixed
  run is better than the buggy run or the buggy run failed and the fixed one did not;
- symptom ``crash``: a run fails when it ends abnormally (crash, timeout, memory; given as
  ``crashed_*``, else a run without a finite metric); reproduced when the buggy program fails more often than the fixed one and
  either it fails in every run while the fixed never does, or the one-sided Fisher exact test on
  the failure counts gives p < alpha; stable when, in addition, at every seed index the buggy
  run failed and the fixed run did not;
- symptom ``auto`` (default): ``crash`` when the buggy program fails more often than the fixed one
  and in at least half of its runs, else ``performance``.

``stable`` therefore implies ``reproduced``, as in the study's table (79 stable of 86 reproduced).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mutreal.stats.serialise import dataclass_from_dict
from mutreal.stats.two_groups import (
    REPRODUCTION_EFFECT,
    GroupComparison,
    _stability,
    compare_groups,
    crash_p_value,
)

SYMPTOMS: tuple[str, ...] = ("auto", "crash", "performance")


@dataclass
class ReproductionVerdict:
    """The reproduction verdict of one buggy/fixed pair, with the statistics behind it."""

    symptom: str
    reproduced: bool
    stable: bool
    reason: str
    crash_p_value: float
    comparison: GroupComparison
    # share of seed indexes where the fixed run is better or its crash is gone (the comparison's
    # stable_share is the share of its *leader*, which is the buggy side when no test is possible)
    fixed_better_share: float | None = None
    # runs that count as failed under the symptom's rule: ended abnormally (crash), or without a
    # usable metric (performance); None in verdicts stored before these were kept
    failed_buggy: int | None = None
    failed_fixed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {
            "symptom": self.symptom,
            "reproduced": self.reproduced,
            "stable": self.stable,
            "reason": self.reason,
            "crash_p_value": self.crash_p_value,
            "failed_buggy": self.comparison.failed_a if self.failed_buggy is None else self.failed_buggy,
            "failed_fixed": self.comparison.failed_b if self.failed_fixed is None else self.failed_fixed,
            "fixed_better_share": self.fixed_better_share,
        }
        data["stats"] = self.comparison.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReproductionVerdict:
        return dataclass_from_dict(cls, data, comparison=GroupComparison.from_dict(data["stats"]))


def reproduction_verdict(
    buggy: Sequence[float] | np.ndarray,
    fixed: Sequence[float] | np.ndarray,
    *,
    crashed_buggy: Sequence[bool] | np.ndarray | None = None,
    crashed_fixed: Sequence[bool] | np.ndarray | None = None,
    symptom: str = "auto",
    lower_is_better: bool = False,
    test: str = "glm",
    alpha: float = 0.05,
    min_effect: float = REPRODUCTION_EFFECT,
) -> ReproductionVerdict:
    """Apply the study's rule to the metrics (seed order) of the buggy and the fixed program."""
    if symptom not in SYMPTOMS:
        raise ValueError(f"unknown symptom {symptom!r}; choose one of {', '.join(SYMPTOMS)}")
    comparison = compare_groups(
        buggy,
        fixed,
        crashed_a=crashed_buggy,
        crashed_b=crashed_fixed,
        test=test,
        lower_is_better=lower_is_better,
        alpha=alpha,
        min_effect=min_effect,
        power_effect=min_effect,
    )
    failed_buggy = _failed(buggy, crashed_buggy)
    failed_fixed = _failed(fixed, crashed_fixed)
    # The crash symptom asks whether a run *ended abnormally*, not whether it left a metric: a fixed
    # program that runs to its end without an evaluate() call did not fail (real benchmarks have
    # many). Where the caller gives the crash flags they alone decide; without them a run without a
    # finite metric counts as failed.
    aborted_buggy = _aborted(buggy, crashed_buggy)
    aborted_fixed = _aborted(fixed, crashed_fixed)
    n_b, n_f = len(aborted_buggy), len(aborted_fixed)
    k_b, k_f = int(aborted_buggy.sum()), int(aborted_fixed.sum())
    crash_p = crash_p_value(k_b, n_b, k_f, n_f)
    fixed_share = _stability(
        np.asarray(buggy, dtype=float).reshape(-1),
        failed_buggy,
        np.asarray(fixed, dtype=float).reshape(-1),
        failed_fixed,
        "b",
        lower_is_better,
    )

    if symptom == "auto":
        symptom = "crash" if k_b > k_f and 2 * k_b >= n_b else "performance"

    if symptom == "crash":
        always = n_b > 0 and n_f > 0 and k_b == n_b and k_f == 0  # no fixed runs: nothing shown
        reproduced = k_b > k_f and (always or crash_p < alpha)
        pairs = min(n_b, n_f)
        per_seed = pairs > 0 and all(aborted_buggy[i] and not aborted_fixed[i] for i in range(pairs))
        stable = reproduced and per_seed
        reason = (
            f"buggy failed in {k_b}/{n_b} runs, fixed in {k_f}/{n_f} (one-sided Fisher p = {crash_p:.3g})"
            if n_b and n_f
            else "no runs"
        )
    else:
        reproduced = comparison.verdict == "b better"
        stable = reproduced and comparison.stable
        if reproduced:
            reason = f"fixed better: p = {comparison.p_value:.3g}, d = {comparison.d_b_better:.3g}"
        elif comparison.p_value is None:
            reason = "; ".join(comparison.notes) or "no test possible"
        elif comparison.verdict == "a better":
            reason = f"buggy better than fixed: p = {comparison.p_value:.3g}"
        elif comparison.p_value >= alpha:
            reason = f"no significant difference: p = {comparison.p_value:.3g}"
        else:
            reason = (
                f"significant but negligible effect: |d| = {abs(comparison.d_b_better):.3g} < {min_effect}"
            )
        if reproduced and not stable:
            reason += f"; fixed better at {comparison.stable_share:.0%} of seed indexes"
    return ReproductionVerdict(
        symptom=symptom,
        reproduced=reproduced,
        stable=stable,
        reason=reason,
        crash_p_value=crash_p,
        comparison=comparison,
        fixed_better_share=fixed_share,
        failed_buggy=k_b if symptom == "crash" else comparison.failed_a,
        failed_fixed=k_f if symptom == "crash" else comparison.failed_b,
    )


def _aborted(values: Sequence[float] | np.ndarray, crashed: Sequence[bool] | np.ndarray | None) -> np.ndarray:
    if crashed is None:
        return ~np.isfinite(np.asarray(values, dtype=float).reshape(-1))
    return np.asarray(crashed, dtype=bool).reshape(-1)


def _failed(values: Sequence[float] | np.ndarray, crashed: Sequence[bool] | np.ndarray | None) -> np.ndarray:
    array = np.asarray(values, dtype=float).reshape(-1)
    failed = ~np.isfinite(array)
    if crashed is not None:
        failed |= np.asarray(crashed, dtype=bool).reshape(-1)
    return failed
