"""Kim et al.'s per-input Fisher killing (monotone in the test set) and Holm's correction."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.stats import FisherKill, HolmResult, fisher_kill, fisher_kill_p_values, holm


def examples(count: int) -> int:
    """``count`` examples under Hypothesis' default profile, scaled with the loaded profile's
    ``max_examples`` (the mutation run's profile in tests/conftest.py asks for a tenth)."""
    return max(1, round(count * settings().max_examples / 100))


def test_fisher_p_value_of_a_fully_separated_input() -> None:
    # 5 original instances all right, 5 mutant instances all wrong on input 0:
    # one-sided hypergeometric p = 1 / C(10, 5) = 1/252; input 1 is right everywhere: p = 1.
    original = np.ones((5, 2), dtype=bool)
    mutant = np.zeros((5, 2), dtype=bool)
    mutant[:, 1] = True
    p = fisher_kill_p_values(original, mutant)
    assert math.isclose(p[0], 1 / math.comb(10, 5))
    assert p[1] == 1.0
    verdict = fisher_kill(original, mutant)
    assert verdict.killed and verdict.killing_inputs == [0]


def test_fisher_p_value_hypergeometric_by_hand() -> None:
    # original 4/5 right, mutant 1/5 right: tables at least this extreme keep 5 right answers with
    # >= 4 in the original row. P(X=4) = C(5,4)C(5,1)/C(10,5) = 25/252, P(X=5) = 1/252 -> 26/252.
    original = np.array([[1], [1], [1], [1], [0]], dtype=bool)
    mutant = np.array([[1], [0], [0], [0], [0]], dtype=bool)
    assert math.isclose(fisher_kill_p_values(original, mutant)[0], 26 / 252)
    assert not fisher_kill(original, mutant).killed  # 0.103 > 0.05


def test_a_better_mutant_is_not_killed() -> None:
    original = np.zeros((5, 3), dtype=bool)
    mutant = np.ones((5, 3), dtype=bool)
    assert not fisher_kill(original, mutant).killed


def test_empty_inputs_never_kill() -> None:
    verdict = fisher_kill(np.zeros((5, 0), dtype=bool), np.zeros((5, 0), dtype=bool))
    assert not verdict.killed and verdict.min_p_value == 1.0


def test_fisher_round_trip() -> None:
    verdict = fisher_kill(np.ones((4, 3), dtype=bool), np.zeros((4, 3), dtype=bool))
    assert FisherKill.from_dict(json.loads(json.dumps(verdict.to_dict()))) == verdict


matrices = st.integers(min_value=1, max_value=8).flatmap(
    lambda n: st.integers(min_value=1, max_value=12).flatmap(
        lambda t: st.tuples(
            st.lists(st.lists(st.booleans(), min_size=t, max_size=t), min_size=n, max_size=n),
            st.lists(st.lists(st.booleans(), min_size=t, max_size=t), min_size=n, max_size=n),
            st.lists(st.booleans(), min_size=t, max_size=t),
        )
    )
)


@settings(max_examples=examples(200), deadline=None)
@given(matrices)
def test_adding_inputs_never_unkills(data: tuple[list[list[bool]], list[list[bool]], list[bool]]) -> None:
    """Monotonicity (Kim et al.): a mutant killed by a test subset stays killed by any superset."""
    original, mutant, keep = (np.array(x, dtype=bool) for x in data)
    subset = np.flatnonzero(keep)
    small = fisher_kill(original[:, subset], mutant[:, subset])
    full = fisher_kill(original, mutant)
    if small.killed:
        assert full.killed
    assert full.min_p_value <= small.min_p_value
    assert set(subset[small.killing_inputs].tolist()) <= set(full.killing_inputs)


def test_holm_by_hand() -> None:
    # m = 4: sorted 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> max so far 0.06
    result = holm([0.01, 0.04, 0.03, 0.005])
    assert np.allclose(result.adjusted, [0.03, 0.06, 0.06, 0.02])
    assert result.rejected == [True, False, False, True]
    assert HolmResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


def test_holm_missing_p_values_count_as_one_and_empty_is_empty() -> None:
    result = holm([None, 0.001])
    assert result.p_values == [1.0, 0.001]
    assert result.rejected == [False, True]
    assert holm([]).adjusted == []


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=15),
    st.data(),
)
def test_holm_is_monotone(p_values: list[float], data: st.DataObject) -> None:
    """Lowering p-values never removes a rejection: Holm keeps the Fisher verdict monotone."""
    factors = data.draw(
        st.lists(st.floats(min_value=0, max_value=1), min_size=len(p_values), max_size=len(p_values))
    )
    lowered = [p * f for p, f in zip(p_values, factors, strict=True)]
    before, after = holm(p_values), holm(lowered)
    assert all(a or not b for a, b in zip(after.rejected, before.rejected, strict=True))
    assert all(a <= b + 1e-12 for a, b in zip(after.adjusted, before.adjusted, strict=True))


@settings(max_examples=examples(25), deadline=None)  # statsmodels' multipletests runs gc.collect() per call
@given(st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=12))
def test_holm_agrees_with_statsmodels(p_values: list[float]) -> None:
    from statsmodels.stats.multitest import multipletests

    rejected, adjusted, _, _ = multipletests(np.asarray(p_values), alpha=0.05, method="holm")
    result = holm(p_values)
    assert result.rejected == [bool(r) for r in rejected]
    assert np.allclose(result.adjusted, adjusted)


@settings(max_examples=examples(150), deadline=None)
@given(matrices)
def test_pool_corrected_verdict_is_monotone_over_subsets_of_the_pool(
    data: tuple[list[list[bool]], list[list[bool]], list[bool]],
) -> None:
    original, mutant, keep = (np.array(x, dtype=bool) for x in data)
    pool = original.shape[1]
    subset = np.flatnonzero(keep)
    small = fisher_kill(original[:, subset], mutant[:, subset], pool_size=pool)
    full = fisher_kill(original, mutant)
    assert full.pool_size == pool
    if small.killed_pool:
        assert full.killed_pool


def test_pool_correction_keeps_equivalent_mutants_alive() -> None:
    """Noisy inputs kill equivalent mutants under the raw rule; the pool correction bounds that by alpha."""
    rng = np.random.default_rng(0)
    raw = pool = 0
    for _ in range(40):
        original = rng.random((20, 500)) < 0.9
        equivalent = rng.random((20, 500)) < 0.9
        verdict = fisher_kill(original, equivalent)
        raw += verdict.killed
        pool += verdict.killed_pool
    assert raw >= 30  # 500 chance-level inputs: almost always some p < 0.05
    assert pool <= 4  # family-wise error over the pool at most alpha (0.05 * 40 = 2 expected at most)
    # a consistently flipped input still kills after the correction: p = 1 / C(40, 20) < 0.05 / 500
    original = np.ones((20, 500), dtype=bool)
    mutant = original.copy()
    mutant[:, 7] = False
    assert fisher_kill(original, mutant).killed_pool
