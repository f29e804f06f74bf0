"""Sequential testing (``--adaptive``): stop adding runs once the verdict is settled.

A campaign plans ``N`` runs per program (DeepCrime: 20). Training is the cost, so after each
added run (from ``min_runs`` on) we ask whether the verdict at ``N`` can still change, with a
conservative group-sequential rule:

- there are ``L`` interim looks (one per ``step`` added runs, from ``min_runs`` up to before ``N``;
  ``step = 1`` by default); each uses
  ``alpha_look = alpha / L`` (Bonferroni split: more conservative than Pocock or
  O'Brien-Fleming boundaries, and needs no planning of look times);
- **efficacy**: stop with "the effect holds" when the GLM p-value < ``alpha_look`` and Cohen's d
  in the target direction is already >= the required effect (0.5 for a kill, 0.2 for a
  reproduction);
- **futility**: stop with "the effect does not hold" when the upper ``1 - alpha_look`` one-sided
  confidence bound of d in the target direction is below the required effect
  (``se(d) = sqrt((n_a + n_b) / (n_a n_b) + d^2 / (2 (n_a + n_b)))``, Hedges & Olkin): even an
  optimistic reading of the data cannot reach the threshold;
- otherwise continue; at ``N`` the ordinary rule (p < alpha and d >= effect) decides.

Each early stop is wrong (disagrees with what more data would show) with probability at most
``alpha_look``, so the whole sequence errs at most ``alpha`` beyond the fixed-N rule. Runs are
paired by seed index: a look at ``n`` uses the first ``n`` runs of each program. Replayed over
two groups (:func:`sequential_decision`) the saving is ``2 * (N - n_stop)`` trainings; in a live
kill campaign each mutant saves ``N - n_stop`` and the original what the longest mutant left.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mutreal.stats.effect import cohen_d
from mutreal.stats.serialise import FieldRecord, dataclass_from_dict, number_from_json, number_to_json
from mutreal.stats.two_groups import glm_p_value

#: directions a sequential decision can target: is ``b`` better than ``a``, or worse?
TARGETS: tuple[str, ...] = ("b better", "b worse")


@dataclass
class Look(FieldRecord):
    """One interim (or the final) look at the first ``n`` runs of each group."""

    n: int
    p_value: float | None
    d_target: float
    upper_bound: float | None
    alpha_look: float
    stop: bool
    decision: bool | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["d_target"] = number_to_json(self.d_target)
        data["upper_bound"] = number_to_json(self.upper_bound)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Look:
        return dataclass_from_dict(
            cls, data, d_target=float(data["d_target"]), upper_bound=number_from_json(data["upper_bound"])
        )


@dataclass
class SequentialDecision(FieldRecord):
    """Where the sequential rule stopped, what it decided, and how many trainings that saved."""

    target: str
    planned_runs: int
    min_runs: int
    used_runs: int
    decision: bool
    stopped_early: bool
    runs_saved: int
    rule: str
    looks: list[Look] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["looks"] = [look.to_dict() for look in self.looks]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SequentialDecision:
        return dataclass_from_dict(cls, data, looks=[Look.from_dict(look) for look in data.get("looks", [])])


RULE = "Bonferroni-split group-sequential: efficacy p < alpha/L and d >= effect; futility upper bound of d < effect"


def _clean(values: np.ndarray, crashed: np.ndarray | None) -> np.ndarray:
    ok = np.isfinite(values)
    if crashed is not None:
        ok &= ~crashed
    return values[ok]


def interim_look_count(planned_runs: int, min_runs: int, step: int = 1) -> int:
    """Number of interim looks at ``min_runs, min_runs + step, ...`` strictly before ``planned_runs``."""
    if planned_runs <= min_runs:
        return 0
    return math.ceil((planned_runs - min_runs) / max(1, step))


def look_at(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    planned_runs: int,
    min_runs: int = 5,
    step: int = 1,
    crashed_a: Sequence[bool] | np.ndarray | None = None,
    crashed_b: Sequence[bool] | np.ndarray | None = None,
    target: str = "b worse",
    effect: float = 0.5,
    lower_is_better: bool = False,
    alpha: float = 0.05,
) -> Look:
    """Decide from the runs so far (the first ``n = min(len(a), len(b))`` of each) whether to stop."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
    values_a = np.asarray(a, dtype=float).reshape(-1)
    values_b = np.asarray(b, dtype=float).reshape(-1)
    n = min(len(values_a), len(values_b))
    flags_a = None if crashed_a is None else np.asarray(crashed_a, dtype=bool).reshape(-1)[:n]
    flags_b = None if crashed_b is None else np.asarray(crashed_b, dtype=bool).reshape(-1)[:n]
    ok_a = _clean(values_a[:n], flags_a)
    ok_b = _clean(values_b[:n], flags_b)
    interim_looks = interim_look_count(planned_runs, min_runs, step)
    final = n >= planned_runs
    alpha_look = alpha if final or interim_looks == 0 else alpha / interim_looks

    d = cohen_d(ok_a, ok_b)  # positive: a higher
    b_better = d if lower_is_better else -d
    d_target = (b_better if target == "b better" else -b_better) + 0.0
    p, _, _ = glm_p_value(ok_a, ok_b)
    holds = p is not None and p < alpha_look and d_target >= effect

    upper: float | None = None
    n_a, n_b = len(ok_a), len(ok_b)
    if n_a >= 2 and n_b >= 2 and math.isfinite(d_target):
        from scipy.stats import norm

        se = math.sqrt((n_a + n_b) / (n_a * n_b) + d_target**2 / (2 * (n_a + n_b)))
        upper = d_target + float(norm.ppf(1 - alpha_look)) * se
    elif d_target == -math.inf:
        upper = -math.inf

    if final:
        return Look(n, p, d_target, upper, alpha_look, True, holds, "planned runs reached")
    if n < min_runs:
        return Look(n, p, d_target, upper, alpha_look, False, None, f"fewer than {min_runs} runs")
    if holds:
        return Look(
            n, p, d_target, upper, alpha_look, True, True, f"efficacy: p < {alpha_look:.3g}, d >= {effect}"
        )
    if upper is not None and upper < effect:
        return Look(n, p, d_target, upper, alpha_look, True, False, f"futility: upper bound of d < {effect}")
    return Look(n, p, d_target, upper, alpha_look, False, None, "verdict can still change")


def sequential_decision(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    planned_runs: int | None = None,
    min_runs: int = 5,
    step: int = 1,
    crashed_a: Sequence[bool] | np.ndarray | None = None,
    crashed_b: Sequence[bool] | np.ndarray | None = None,
    target: str = "b worse",
    effect: float = 0.5,
    lower_is_better: bool = False,
    alpha: float = 0.05,
) -> SequentialDecision:
    """Replay the sequential rule over runs in seed order: where would it have stopped?

    ``planned_runs`` defaults to the number of available pairs. Live campaigns call
    :func:`look_at` after each new pair of runs instead.
    """
    n_available = min(len(a), len(b))
    planned = n_available if planned_runs is None else planned_runs
    looks: list[Look] = []
    decision: bool | None = None
    used = n_available
    last_n = min(planned, n_available)
    points = list(range(max(min(min_runs, planned), 1), last_n + 1, max(1, step)))
    if points and points[-1] != last_n:
        points.append(last_n)
    for n in points:
        look = look_at(
            a[:n],
            b[:n],
            planned_runs=planned,
            min_runs=min_runs,
            step=step,
            crashed_a=None if crashed_a is None else crashed_a[:n],
            crashed_b=None if crashed_b is None else crashed_b[:n],
            target=target,
            effect=effect,
            lower_is_better=lower_is_better,
            alpha=alpha,
        )
        looks.append(look)
        if look.stop:
            decision, used = look.decision, n
            break
    if decision is None:
        last = looks[-1] if looks else None
        decision = bool(
            last is not None and last.p_value is not None and last.p_value < alpha and last.d_target >= effect
        )
        used = min(planned, n_available)
    return SequentialDecision(
        target=target,
        planned_runs=planned,
        min_runs=min_runs,
        used_runs=used,
        decision=bool(decision),
        stopped_early=used < planned,
        runs_saved=2 * max(planned - used, 0),
        rule=RULE,
        looks=looks,
    )
