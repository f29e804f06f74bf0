"""The monotone killing criterion of Kim et al. 2025 (arXiv 2507.11199): one Fisher test per input.

DeepCrime compares the distributions of a whole-test-set metric, so adding inputs to the test
set can *un-kill* a mutant (the mean moves back inside the noise). Kim et al. instead decide per
test input: over the ``n`` trained instances of the original and the ``m`` of the mutant, the
2x2 table

    ===========  =========  ===========
                 correct    incorrect
    original     c_o        n - c_o
    mutant       c_m        m - c_m
    ===========  =========  ===========

gets a one-sided Fisher exact test (the original is more often correct). An input whose p-value
is below ``alpha`` kills the mutant, and a test set kills the mutant when at least one of its
inputs does. Adding inputs can only add killing inputs, so the verdict is monotone in the test
set: a killed mutant stays killed. (No correction over inputs is applied, as in Kim et al.; the
smallest per-input p-value is reported so that Holm's correction across *mutants* can be
applied to it, which keeps monotonicity because Holm's rejections only grow when p-values fall.)

Caveat, measured (``benchmarks/stats_throughput.py``): without a correction over inputs, inputs
that are right or wrong by chance (near a decision boundary) kill *equivalent* mutants; with 20
runs per side and inputs right with probability 0.9 independently, about a fifth of equivalent
mutants are killed at 10 inputs and all of them at 1000. So the verdict also comes with a *pool*
correction: a per-input alpha of ``alpha / pool_size``, where the pool is the whole evaluated
input set (Bonferroni over the pool). Because the per-input alpha depends on the pool, not on
the test subset, this verdict (``killed_pool``) is still monotone for any subset of the pool,
and it bounds the chance that an equivalent mutant is killed by ``alpha``.

Inputs identified by content (a program that makes its data without a seed evaluates other inputs
per run, :mod:`mutreal.analysis.pairing`): ``counted`` says in which paired instances each input
was evaluated by both runs, and each input's table is made of those instances only (its own ``n``,
the same on both rows); an input never counted has p = 1 and is not in the pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from mutreal.stats.serialise import FieldRecord


@lru_cache(maxsize=65536)
def _fisher_greater(correct_original: int, n_original: int, correct_mutant: int, n_mutant: int) -> float:
    from scipy import stats

    table = [
        [correct_original, n_original - correct_original],
        [correct_mutant, n_mutant - correct_mutant],
    ]
    return float(stats.fisher_exact(table, alternative="greater").pvalue)


def _as_matrix(correct: Sequence[Sequence[bool]] | np.ndarray, name: str) -> np.ndarray:
    matrix = np.asarray(correct, dtype=bool)
    if matrix.ndim == 1:
        matrix = matrix.reshape(1, -1)
    if matrix.ndim != 2:
        raise ValueError(f"{name}: expected instances x inputs, got shape {matrix.shape}")
    return matrix


def fisher_kill_p_values(
    original_correct: Sequence[Sequence[bool]] | np.ndarray,
    mutant_correct: Sequence[Sequence[bool]] | np.ndarray,
) -> np.ndarray:
    """One-sided Fisher p-value per input; arguments are (instances x inputs) correctness matrices."""
    original = _as_matrix(original_correct, "original_correct")
    mutant = _as_matrix(mutant_correct, "mutant_correct")
    if original.shape[1] != mutant.shape[1]:
        raise ValueError(f"{original.shape[1]} inputs for the original, {mutant.shape[1]} for the mutant")
    n_o, n_m = original.shape[0], mutant.shape[0]
    c_o = original.sum(axis=0)
    c_m = mutant.sum(axis=0)
    return np.array(
        [_fisher_greater(int(a), n_o, int(b), n_m) for a, b in zip(c_o, c_m, strict=True)], dtype=float
    )


@dataclass
class FisherKill(FieldRecord):
    """The per-input Fisher verdict: killed when any input kills; which inputs did; the smallest p."""

    killed: bool
    alpha: float
    n_inputs: int
    n_original: int
    n_mutant: int
    min_p_value: float
    killing_inputs: list[int] = field(default_factory=list)
    #: Bonferroni over the evaluated pool: killed when some input has p < alpha / pool_size.
    killed_pool: bool = False
    pool_size: int = 0

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["n_killing_inputs"] = len(self.killing_inputs)
        return data


def fisher_kill(
    original_correct: Sequence[Sequence[bool]] | np.ndarray,
    mutant_correct: Sequence[Sequence[bool]] | np.ndarray,
    alpha: float = 0.05,
    pool_size: int | None = None,
    counted: Sequence[Sequence[bool]] | np.ndarray | None = None,
) -> FisherKill:
    """Kim et al.'s monotone verdict from per-input correctness of original and mutant instances.

    ``original_correct[k][t]`` says whether the original's instance ``k`` got input ``t`` right;
    the same for the mutant. ``pool_size`` (default: the number of inputs given) is the size of
    the evaluated input pool for ``killed_pool``. With no inputs (or no instances) nothing can
    kill: not killed, p = 1. ``counted`` (paired instances x inputs): each input's counts come from
    the instances in which both runs evaluated it (see the module docstring).
    """
    original = _as_matrix(original_correct, "original_correct")
    mutant = _as_matrix(mutant_correct, "mutant_correct")
    if counted is not None:
        return _fisher_kill_counted(original, mutant, _as_matrix(counted, "counted"), alpha, pool_size)
    if original.shape[0] == 0 or mutant.shape[0] == 0 or original.shape[1] == 0:
        return FisherKill(
            False, alpha, int(original.shape[1]), int(original.shape[0]), int(mutant.shape[0]), 1.0
        )
    p_values = fisher_kill_p_values(original, mutant)
    killing = [int(i) for i in np.flatnonzero(p_values < alpha)]
    pool = max(int(pool_size if pool_size is not None else original.shape[1]), 1)
    return FisherKill(
        killed=bool(killing),
        alpha=alpha,
        n_inputs=int(original.shape[1]),
        n_original=int(original.shape[0]),
        n_mutant=int(mutant.shape[0]),
        min_p_value=float(p_values.min()),
        killing_inputs=killing,
        killed_pool=bool(p_values.min() < alpha / pool),
        pool_size=pool,
    )


def _fisher_kill_counted(
    original: np.ndarray, mutant: np.ndarray, counted: np.ndarray, alpha: float, pool_size: int | None
) -> FisherKill:
    """:func:`fisher_kill` with each input's own instances (paired by index, the first ``min``)."""
    n = min(original.shape[0], mutant.shape[0])
    if original.shape[1] != mutant.shape[1] or counted.shape[1] != original.shape[1] or counted.shape[0] < n:
        raise ValueError(f"shapes {original.shape}, {mutant.shape} and counted {counted.shape} do not pair")
    mask = counted[:n]
    per_input = mask.sum(axis=0)
    c_o = (original[:n] & mask).sum(axis=0)
    c_m = (mutant[:n] & mask).sum(axis=0)
    p_values = np.array(
        [_fisher_greater(int(a), int(m), int(b), int(m)) if m else 1.0 for a, b, m in zip(c_o, c_m, per_input, strict=True)],
        dtype=float,
    )
    evaluated = int((per_input > 0).sum())
    killing = [int(i) for i in np.flatnonzero(p_values < alpha)]
    pool = max(int(pool_size if pool_size is not None else evaluated), 1)
    return FisherKill(
        killed=bool(killing),
        alpha=alpha,
        n_inputs=int(original.shape[1]),
        n_original=n,
        n_mutant=n,
        min_p_value=float(p_values.min()) if p_values.size else 1.0,
        killing_inputs=killing,
        killed_pool=bool(p_values.size) and bool(p_values.min() < alpha / pool),
        pool_size=pool,
    )
