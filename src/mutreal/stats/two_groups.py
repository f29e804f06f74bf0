"""Two groups of runs compared: GLM (DeepCrime), Mann-Whitney U or paired Wilcoxon; power; stability.

Group ``a`` is the reference (the original program, or the buggy one in a reproduction) and ``b``
the other. The metric's direction is explicit: higher is better by default (accuracy), lower is
better for loss-like metrics (``lower_is_better=True``).

Tests:

- ``glm`` -- DeepCrime's: a Gaussian GLM ``metric ~ group`` (statsmodels); the p-value is the Wald
  test of the group coefficient (normal reference distribution, as statsmodels reports it and
  DeepCrime reads it). It equals ``2 * norm.sf(|t|)`` with ``t`` the pooled-variance two-sample t
  statistic.
- ``mannwhitney`` -- Mann-Whitney U, two-sided (scipy; exact for small samples without ties).
- ``wilcoxon`` -- DeepCrime's paired alternative: Wilcoxon signed-rank on runs paired by seed
  index (the first ``min(n_a, n_b)`` pairs).

Runs that failed (crashed, or without a finite metric) take no part in the metric test; they
count in the per-seed stability and in the crash comparison.

Defined answers instead of NaN or exceptions:

- zero spread in both groups: equal means give p = 1, different means give p = 0 and d = +/-inf
  (perfect separation: every run at 1.00, every mutant run at chance);
- too few runs for the test (a group without runs; fewer than 3 runs in total for the GLM; no
  pair for Wilcoxon): p = None, not significant, and a note says why;
- Mann-Whitney / Wilcoxon with all values (differences) tied: p = 1.

The verdict needs both: p < alpha and an effect of at least ``min_effect`` (|d|, default 0.2,
the study's "non-negligible") in the verdict's direction.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mutreal.stats.effect import Summary, cohen_d, effect_label, summarise
from mutreal.stats.serialise import FieldRecord, dataclass_from_dict, number_from_json, number_to_json

#: the tests ``compare_groups`` accepts.
TESTS: tuple[str, ...] = ("glm", "mannwhitney", "wilcoxon")

#: DeepCrime's kill threshold on Cohen's d (in the direction of the mutant being worse).
KILL_EFFECT = 0.5
#: the realism study's "non-negligible" effect for a reproduced performance fault.
REPRODUCTION_EFFECT = 0.2


def _failed_mask(values: np.ndarray, crashed: Sequence[bool] | np.ndarray | None) -> np.ndarray:
    failed = ~np.isfinite(values)
    if crashed is not None:
        flags = np.asarray(crashed, dtype=bool).reshape(-1)
        if len(flags) != len(values):
            raise ValueError(f"{len(flags)} crash flags for {len(values)} runs")
        failed |= flags
    return failed


def _better(x: float, y: float, lower_is_better: bool) -> bool:
    return x < y if lower_is_better else x > y


def glm_p_value(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None, str | None]:
    """(p, z statistic, note) of the Gaussian GLM ``metric ~ group``, with the degenerate cases defined."""
    if len(a) == 0 or len(b) == 0:
        return None, None, "a group has no successful runs"
    if len(a) + len(b) < 3:
        return None, None, "the GLM needs at least 3 runs in total"
    d = cohen_d(a, b)
    if d == 0.0 and np.ptp(np.concatenate([a, b])) == 0:
        return 1.0, 0.0, "every run gives the same value"
    if math.isinf(d):
        return 0.0, d, "zero spread within groups and different means: perfect separation (p = 0)"
    import statsmodels.api as sm

    y = np.concatenate([a, b])
    group = np.concatenate([np.zeros(len(a)), np.ones(len(b))])
    design = sm.add_constant(group, has_constant="add")
    result = sm.GLM(y, design, family=sm.families.Gaussian()).fit()
    p, z = float(result.pvalues[1]), float(result.tvalues[1])
    if not math.isfinite(p):  # pragma: no cover - guarded above; kept so NaN can never leak
        return None, None, "the GLM gave no p-value"
    return p, z, None


def mann_whitney_p_value(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None, str | None]:
    """(p, U of ``a``, note) of the two-sided Mann-Whitney U test."""
    if len(a) == 0 or len(b) == 0:
        return None, None, "a group has no successful runs"
    if np.ptp(np.concatenate([a, b])) == 0:
        return 1.0, float(len(a) * len(b)) / 2.0, "every run gives the same value"
    from scipy import stats

    result = stats.mannwhitneyu(a, b, alternative="two-sided", method="auto")
    return float(result.pvalue), float(result.statistic), None


def wilcoxon_p_value(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None, str | None]:
    """(p, W, note) of the paired Wilcoxon signed-rank test over the first ``min(n_a, n_b)`` pairs."""
    pairs = min(len(a), len(b))
    if pairs == 0:
        return None, None, "no pair of successful runs"
    note = None if len(a) == len(b) else f"paired test on the first {pairs} runs of each group"
    differences = a[:pairs] - b[:pairs]
    if np.all(differences == 0):
        return 1.0, 0.0, "every pair is tied"
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.wilcoxon(a[:pairs], b[:pairs])
    p = float(result.pvalue)
    if not math.isfinite(p):
        return 1.0, float(result.statistic), "Wilcoxon undefined for these pairs; p = 1"
    return p, float(result.statistic), note


def power_for(n_a: int, n_b: int, effect: float, alpha: float = 0.05) -> float | None:
    """Power of the two-sided two-sample t test (the GLM's equivalent) to detect |d| = ``effect``.

    Used for all three tests (for Mann-Whitney / Wilcoxon it is the t-test approximation).
    ``None`` with fewer than 2 runs in a group.
    """
    if n_a < 2 or n_b < 2 or effect <= 0:
        return None
    from statsmodels.stats.power import TTestIndPower

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        power = float(TTestIndPower().power(effect_size=effect, nobs1=n_a, ratio=n_b / n_a, alpha=alpha))
    if not math.isfinite(power):
        # The noncentral t tail underflows for large N * d^2 (power ~ 1): the normal approximation
        # is exact enough there.
        from scipy.stats import norm

        shift = effect * math.sqrt(n_a * n_b / (n_a + n_b))
        critical = float(norm.ppf(1 - alpha / 2))
        power = float(norm.sf(critical - shift) + norm.cdf(-critical - shift))
    return float(np.clip(power, 0.0, 1.0))


def minimum_detectable_effect(n_a: int, n_b: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """Smallest |d| the test detects with the given power at these N (``None`` when not solvable)."""
    if n_a < 2 or n_b < 2:
        return None
    from statsmodels.stats.power import TTestIndPower

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            effect = TTestIndPower().solve_power(
                effect_size=None, nobs1=n_a, ratio=n_b / n_a, alpha=alpha, power=power
            )
    except (ValueError, RuntimeError):
        return None
    effect = float(np.asarray(effect).reshape(-1)[0])
    return effect if math.isfinite(effect) and effect > 0 else None


def crash_p_value(failed_worse: int, n_worse: int, failed_other: int, n_other: int) -> float:
    """One-sided Fisher exact p that the first group fails more often than the second (1.0 if empty)."""
    if n_worse == 0 or n_other == 0:
        return 1.0
    from scipy import stats

    table = [[failed_worse, n_worse - failed_worse], [failed_other, n_other - failed_other]]
    return float(stats.fisher_exact(table, alternative="greater").pvalue)


@dataclass
class GroupComparison:
    """Two groups of runs compared: summaries, test, effect, verdict, stability and power."""

    test: str
    alpha: float
    lower_is_better: bool
    min_effect: float
    a: Summary
    b: Summary
    runs_a: int
    runs_b: int
    failed_a: int
    failed_b: int
    p_value: float | None
    statistic: float | None
    cohen_d: float
    d_b_better: float
    effect: str
    significant: bool
    verdict: str
    stable: bool
    stable_share: float | None
    power: float | None
    power_effect: float
    detectable_effect: float | None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Flat keys for scripts (``n_a``, ``mean_a``, ``p_value`` ...) plus the full summaries."""
        return {
            "test": self.test,
            "alpha": self.alpha,
            "lower_is_better": self.lower_is_better,
            "min_effect": self.min_effect,
            "n_a": self.a.n,
            "n_b": self.b.n,
            "mean_a": self.a.mean,
            "mean_b": self.b.mean,
            "std_a": self.a.std,
            "std_b": self.b.std,
            "runs_a": self.runs_a,
            "runs_b": self.runs_b,
            "failed_a": self.failed_a,
            "failed_b": self.failed_b,
            "p_value": self.p_value,
            "statistic": number_to_json(self.statistic),
            "cohen_d": number_to_json(self.cohen_d),
            "d_b_better": number_to_json(self.d_b_better),
            "effect": self.effect,
            "significant": self.significant,
            "verdict": self.verdict,
            "stable": self.stable,
            "stable_share": self.stable_share,
            "power": self.power,
            "power_effect": self.power_effect,
            "detectable_effect": self.detectable_effect,
            "notes": list(self.notes),
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GroupComparison:
        return dataclass_from_dict(
            cls, data,
            a=Summary.from_dict(data["a"]),
            b=Summary.from_dict(data["b"]),
            statistic=number_from_json(data["statistic"]),
            cohen_d=float(data["cohen_d"]),
            d_b_better=float(data["d_b_better"]),
        )  # fmt: skip


def _stability(
    values_a: np.ndarray,
    failed_a: np.ndarray,
    values_b: np.ndarray,
    failed_b: np.ndarray,
    winner: str,
    lower_is_better: bool,
) -> float | None:
    """Share of seed indexes at which ``winner`` beats the other side (a crash gone counts as a win)."""
    pairs = min(len(values_a), len(values_b))
    if pairs == 0:
        return None
    wins = 0
    for i in range(pairs):
        if winner == "b":
            w_val, w_fail, l_val, l_fail = values_b[i], failed_b[i], values_a[i], failed_a[i]
        else:
            w_val, w_fail, l_val, l_fail = values_a[i], failed_a[i], values_b[i], failed_b[i]
        if w_fail:
            continue
        if l_fail or _better(w_val, l_val, lower_is_better):
            wins += 1
    return wins / pairs


def compare_groups(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    crashed_a: Sequence[bool] | np.ndarray | None = None,
    crashed_b: Sequence[bool] | np.ndarray | None = None,
    test: str = "glm",
    lower_is_better: bool = False,
    alpha: float = 0.05,
    min_effect: float = REPRODUCTION_EFFECT,
    power_effect: float = KILL_EFFECT,
) -> GroupComparison:
    """Compare two groups of runs (in seed order) and say which is better, how surely and how stably.

    ``a`` / ``b`` hold one metric per run in seed order (NaN allowed for failed runs); ``crashed_*``
    mark failed runs. ``verdict`` is ``"b better"`` / ``"a better"`` when p < ``alpha`` and the
    effect in that direction is at least ``min_effect``, else ``"no difference"``. ``stable`` says
    the better side wins at every seed index (or the other side crashed there). ``power`` is the
    power to detect |d| = ``power_effect`` with these N.
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    values_a = np.asarray(a, dtype=float).reshape(-1)
    values_b = np.asarray(b, dtype=float).reshape(-1)
    fail_a = _failed_mask(values_a, crashed_a)
    fail_b = _failed_mask(values_b, crashed_b)
    ok_a, ok_b = values_a[~fail_a], values_b[~fail_b]
    notes: list[str] = []

    if test == "glm":
        p, statistic, note = glm_p_value(ok_a, ok_b)
    elif test == "mannwhitney":
        p, statistic, note = mann_whitney_p_value(ok_a, ok_b)
    else:
        # pairs are seed indexes where both runs succeeded (failures must not shift the pairing)
        pairs = min(len(values_a), len(values_b))
        both = ~fail_a[:pairs] & ~fail_b[:pairs]
        p, statistic, note = wilcoxon_p_value(values_a[:pairs][both], values_b[:pairs][both])
        if pairs and not both.all():
            notes.append(f"paired test on the {int(both.sum())} seed indexes where both runs succeeded")
    if note:
        notes.append(note)

    d = cohen_d(ok_a, ok_b)
    d_b_better = d if lower_is_better else -d
    d_b_better = d_b_better + 0.0  # no negative zero in output
    significant = p is not None and p < alpha
    if significant and d_b_better >= min_effect:
        verdict = "b better"
    elif significant and -d_b_better >= min_effect:
        verdict = "a better"
    else:
        verdict = "no difference"
        if significant:
            notes.append(f"significant but |d| < {min_effect}: effect too small for a verdict")

    leader = ("b" if d_b_better > 0 else "a") if verdict == "no difference" else verdict[0]
    share = _stability(values_a, fail_a, values_b, fail_b, leader, lower_is_better)
    stable = verdict != "no difference" and share == 1.0
    return GroupComparison(
        test=test,
        alpha=alpha,
        lower_is_better=lower_is_better,
        min_effect=min_effect,
        a=summarise(ok_a),
        b=summarise(ok_b),
        runs_a=len(values_a),
        runs_b=len(values_b),
        failed_a=int(fail_a.sum()),
        failed_b=int(fail_b.sum()),
        p_value=p,
        statistic=statistic,
        cohen_d=d + 0.0,
        d_b_better=d_b_better,
        effect=effect_label(d),
        significant=significant,
        verdict=verdict,
        stable=stable,
        stable_share=share,
        power=power_for(len(ok_a), len(ok_b), power_effect, alpha),
        power_effect=power_effect,
        detectable_effect=minimum_detectable_effect(len(ok_a), len(ok_b), alpha),
        notes=notes,
    )


@dataclass
class KillVerdict(FieldRecord):
    """DeepCrime's kill decision for one mutant against its original.

    ``killed_by`` is ``"metric"`` (p < alpha and d >= 0.5 towards the mutant being worse),
    ``"crash"`` (the mutant fails significantly more often than the original, or in every run while
    the original never does) or ``None``. ``d_worse`` is Cohen's d signed so that positive means
    the mutant is worse (DeepCrime's ``d`` for a higher-is-better metric).
    """

    killed: bool
    killed_by: str | None
    d_worse: float
    kill_effect: float
    crash_p_value: float
    comparison: GroupComparison

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["d_worse"] = number_to_json(self.d_worse)
        data["comparison"] = self.comparison.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KillVerdict:
        return dataclass_from_dict(
            cls,
            data,
            d_worse=float(data["d_worse"]),
            comparison=GroupComparison.from_dict(data["comparison"]),
        )


def deepcrime_kill(
    original: Sequence[float] | np.ndarray,
    mutant: Sequence[float] | np.ndarray,
    *,
    crashed_original: Sequence[bool] | np.ndarray | None = None,
    crashed_mutant: Sequence[bool] | np.ndarray | None = None,
    test: str = "glm",
    lower_is_better: bool = False,
    alpha: float = 0.05,
    kill_effect: float = KILL_EFFECT,
) -> KillVerdict:
    """DeepCrime's statistical kill rule: p < alpha AND Cohen's d >= ``kill_effect`` towards worse.

    With ``test="glm"`` and a higher-is-better metric this is DeepCrime's ``is_diff_sts``.
    Crashes, which DeepCrime leaves to the user, kill when the mutant fails significantly more
    often (one-sided Fisher exact test on failure counts) or in every run while the original never does.
    """
    comparison = compare_groups(
        original,
        mutant,
        crashed_a=crashed_original,
        crashed_b=crashed_mutant,
        test=test,
        lower_is_better=lower_is_better,
        alpha=alpha,
        min_effect=kill_effect,
        power_effect=kill_effect,
    )
    d_worse = -comparison.d_b_better + 0.0
    crash_p = crash_p_value(comparison.failed_b, comparison.runs_b, comparison.failed_a, comparison.runs_a)
    crash_all = (
        comparison.runs_b > 0 and comparison.failed_b == comparison.runs_b and comparison.failed_a == 0
    )
    if comparison.significant and d_worse >= kill_effect:
        killed_by: str | None = "metric"
    elif crash_all or (crash_p < alpha and comparison.failed_b > comparison.failed_a):
        killed_by = "crash"
    else:
        killed_by = None
    return KillVerdict(
        killed=killed_by is not None,
        killed_by=killed_by,
        d_worse=d_worse,
        kill_effect=kill_effect,
        crash_p_value=crash_p,
        comparison=comparison,
    )
