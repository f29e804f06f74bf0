"""Every field of Kim et al.'s per-input Fisher verdict, and the input checks behind it.

Why this file exists: the mutation run (``make mutation``, group "stats") left mutants of
``fisher.py`` alive because no test read the counts of the verdict (``n_original``, ``n_mutant``,
``n_inputs``, ``pool_size``) with shapes where they differ, the early "nothing can kill" answer,
a p-value exactly at ``alpha`` (the rule is strict: ``p < alpha``), an explicit ``pool_size``,
a single row given as a 1-D list, truthy non-bool entries, or the messages of the shape errors.
Expected p-values come from ``scipy.stats.fisher_exact`` called here (an independent oracle) or
from the hypergeometric closed form.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mutreal.stats import FisherKill, fisher_kill, fisher_kill_p_values


def oracle_p(correct_original: int, n_original: int, correct_mutant: int, n_mutant: int) -> float:
    table = [[correct_original, n_original - correct_original], [correct_mutant, n_mutant - correct_mutant]]
    return float(stats.fisher_exact(table, alternative="greater").pvalue)


def test_counts_are_instances_and_inputs_when_all_three_differ() -> None:
    # 5 original instances, 3 mutant instances, 2 inputs: every count is different.
    original = np.ones((5, 2), dtype=bool)
    mutant = np.array([[False, True], [False, True], [False, True]])
    verdict = fisher_kill(original, mutant)
    assert (verdict.n_original, verdict.n_mutant, verdict.n_inputs, verdict.pool_size) == (5, 3, 2, 2)
    # input 0: 5/5 right against 0/3 right, p = 1 / C(8, 3) = 1/56; input 1: right everywhere, p = 1.
    assert math.isclose(verdict.min_p_value, 1 / math.comb(8, 3))
    assert verdict.killing_inputs == [0] and verdict.killed is True
    assert verdict.killed_pool is True  # 1/56 < 0.05 / 2


def test_a_single_row_given_as_a_flat_list_is_one_instance() -> None:
    # A 1-D list is one instance over 4 inputs, not 4 instances (nor 2 x 2).
    original = [True, True, True, True]
    mutant = [[False, True, True, True]] * 3
    verdict = fisher_kill(original, mutant)
    assert (verdict.n_original, verdict.n_mutant, verdict.n_inputs) == (1, 3, 4)
    assert verdict.min_p_value == pytest.approx(oracle_p(1, 1, 0, 3))  # = 1/4
    assert verdict.min_p_value == pytest.approx(0.25)
    p = fisher_kill_p_values([True, False, True], [[True, True, False]])
    assert p.tolist() == pytest.approx([oracle_p(1, 1, 1, 1), oracle_p(0, 1, 1, 1), oracle_p(1, 1, 0, 1)])
    assert p.tolist() == pytest.approx([1.0, 1.0, 0.5])


def test_any_non_zero_entry_reads_as_right() -> None:
    # Entries are read as truth values: 2 and 7 are "right", exactly like True.
    original = [[2, 7], [1, 1], [3, 0], [9, 4]]
    mutant = [[0, 5], [0, 1], [0, 1], [0, 2]]
    p = fisher_kill_p_values(original, mutant)
    assert p.tolist() == pytest.approx([oracle_p(4, 4, 0, 4), oracle_p(3, 4, 4, 4)])
    assert p[0] == pytest.approx(1 / math.comb(8, 4))  # 1/70
    verdict = fisher_kill(original, mutant)
    assert verdict.killing_inputs == [0]
    assert verdict.min_p_value == pytest.approx(1 / 70)


@pytest.mark.parametrize(
    ("original", "mutant", "n_inputs", "n_original", "n_mutant"),
    [
        (np.zeros((0, 3), dtype=bool), np.ones((2, 3), dtype=bool), 3, 0, 2),  # no original instance
        (np.ones((4, 3), dtype=bool), np.zeros((0, 3), dtype=bool), 3, 4, 0),  # no mutant instance
        (np.zeros((2, 0), dtype=bool), np.zeros((3, 0), dtype=bool), 0, 2, 3),  # no input
    ],
)
def test_nothing_to_test_gives_the_fixed_answer(original, mutant, n_inputs, n_original, n_mutant) -> None:
    # No instance on one side or no input: no test is run. Not killed, p = 1, no killing input and
    # no pool (pool_size 0, even when one is given), with the counts as given.
    verdict = fisher_kill(original, mutant, alpha=0.01, pool_size=50)
    assert verdict == FisherKill(
        killed=False, alpha=0.01, n_inputs=n_inputs, n_original=n_original, n_mutant=n_mutant,
        min_p_value=1.0, killing_inputs=[], killed_pool=False, pool_size=0,
    )  # fmt: skip
    assert verdict.killed is False and verdict.killed_pool is False


def test_a_p_value_equal_to_alpha_does_not_kill() -> None:
    # 5 right against 0 right out of 5: p = 1/252 (the oracle's float); alpha set to that very p.
    original = np.ones((5, 1), dtype=bool)
    mutant = np.zeros((5, 1), dtype=bool)
    p = oracle_p(5, 5, 0, 5)
    assert p == pytest.approx(1 / 252)
    verdict = fisher_kill(original, mutant, alpha=p)
    assert verdict.killed is False and verdict.killing_inputs == []
    assert verdict.killed_pool is False
    # Just above p it kills.
    assert fisher_kill(original, mutant, alpha=p * 1.01).killed is True


def test_a_p_value_equal_to_the_pool_alpha_does_not_kill_the_pool_verdict() -> None:
    # alpha = 2p with a pool of 2: the per-input alpha kills (p < 2p), the pool alpha is p itself.
    original = np.ones((5, 2), dtype=bool)
    mutant = np.ones((5, 2), dtype=bool)
    mutant[:, 0] = False
    p = oracle_p(5, 5, 0, 5)
    verdict = fisher_kill(original, mutant, alpha=2 * p)
    assert verdict.pool_size == 2
    assert verdict.killed is True and verdict.killing_inputs == [0]
    assert verdict.killed_pool is False
    assert fisher_kill(original, mutant, alpha=2.02 * p).killed_pool is True


def test_an_explicit_pool_size_sets_the_pool_alpha() -> None:
    # One input with p = 1/252 ~ 0.004: it kills at alpha 0.05 alone (pool 1), but not within a
    # pool of 100 inputs (0.05 / 100 = 0.0005); a pool of 10 (0.005) still kills.
    original = np.ones((5, 1), dtype=bool)
    mutant = np.zeros((5, 1), dtype=bool)
    alone = fisher_kill(original, mutant)
    assert alone.pool_size == 1 and alone.killed_pool is True
    in_pool = fisher_kill(original, mutant, pool_size=100)
    assert in_pool.pool_size == 100 and in_pool.killed is True and in_pool.killed_pool is False
    assert fisher_kill(original, mutant, pool_size=10).killed_pool is True


def test_p_values_are_floats_and_one_per_input() -> None:
    original = np.array([[True, False, True], [True, True, False]])
    mutant = np.array([[False, False, True], [True, False, False], [False, True, True]])
    p = fisher_kill_p_values(original, mutant)
    assert p.dtype == np.float64 and p.shape == (3,)
    assert p.tolist() == pytest.approx([oracle_p(2, 2, 1, 3), oracle_p(1, 2, 1, 3), oracle_p(1, 2, 2, 3)])


@pytest.mark.parametrize(
    ("cube_side", "shape", "message"),
    [
        ("original", (2, 2, 2), r"^original_correct: expected instances x inputs, got shape \(2, 2, 2\)$"),
        ("mutant", (3, 1, 2), r"^mutant_correct: expected instances x inputs, got shape \(3, 1, 2\)$"),
    ],
)
@pytest.mark.parametrize("function", [fisher_kill, fisher_kill_p_values])
def test_a_three_dimensional_matrix_is_refused_with_its_name_and_shape(cube_side, shape, message, function) -> None:
    cube = np.ones(shape, dtype=bool)
    flat = np.ones((2, 2), dtype=bool)
    args = (cube, flat) if cube_side == "original" else (flat, cube)
    with pytest.raises(ValueError, match=message):
        function(*args)


def test_different_input_counts_are_refused_with_both_counts() -> None:
    with pytest.raises(ValueError, match=r"^3 inputs for the original, 2 for the mutant$"):
        fisher_kill_p_values(np.ones((2, 3), dtype=bool), np.ones((4, 2), dtype=bool))
    with pytest.raises(ValueError, match=r"^1 inputs for the original, 4 for the mutant$"):
        fisher_kill(np.ones((2, 1), dtype=bool), np.ones((2, 4), dtype=bool))
