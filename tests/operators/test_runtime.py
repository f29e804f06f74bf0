"""The seeded numpy runtime the training-data mutants call."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.runtime import training_data as td


def _data(n_per_class=(30, 20, 10), onehot=False, seed=0):
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.full(n, c) for c, n in enumerate(n_per_class)])
    x = rng.normal(size=(len(y), 4)).astype("float32")
    if onehot:
        y = np.eye(len(n_per_class), dtype="float32")[y]
    return x, y


@given(pct=st.sampled_from([5.0, 10.0, 25.0, 50.0, 75.0, 99.0]), onehot=st.booleans(), seed=st.integers(0, 5))
@settings(max_examples=40, deadline=None)
def test_remove_deletes_pct_per_class(pct, onehot, seed) -> None:
    x, y = _data(onehot=onehot)
    x2, y2 = td.remove(x, y, pct=pct, seed=seed)
    ids = np.argmax(y2, 1) if onehot else y2
    for c, n in enumerate((30, 20, 10)):
        assert (ids == c).sum() == n - min(round(n * pct / 100), n - 1)
    assert len(x2) == len(y2)
    again = td.remove(x, y, pct=pct, seed=seed)
    assert np.array_equal(again[0], x2)


def test_change_labels_relabels_only_the_largest_class() -> None:
    x, y = _data()
    y2 = td.change_labels(y, pct=50, seed=1)
    changed = np.flatnonzero(y2 != y)
    assert len(changed) == 15 and set(y[changed]) == {0} and 0 not in set(y2[changed])
    yo = td.change_labels(np.eye(3)[y], pct=50, seed=1)
    assert (np.argmax(yo, 1) != y).sum() == 15 and np.allclose(yo.sum(1), 1)


def test_change_labels_of_sequences_relabels_steps() -> None:
    # one class per time step, as a sequence-labelling program writes them: (n, T, 1), (n, T), one-hot (n, T, C)
    rng = np.random.default_rng(3)
    ids = rng.choice([0, 0, 0, 1], size=(10, 20))
    for y in (ids[..., None].astype(float), ids.astype(float), np.eye(2)[ids]):
        y2 = td.change_labels(y, pct=5.0, seed=0)
        assert y2.shape == y.shape
        before = ids.reshape(-1)
        after = (np.argmax(y2, -1) if y.shape[-1] == 2 and y.ndim == 3 else y2.reshape(10, 20)).reshape(-1)
        changed = np.flatnonzero(after != before)
        top = np.argmax(np.bincount(before))
        assert len(changed) == round(0.05 * (before == top).sum()) > 0
        assert set(before[changed]) == {top}
    assert td.change_labels(np.zeros((3, 4, 1)), pct=5.0).shape == (3, 4, 1)  # nothing to relabel: unchanged
    targets = np.linspace(0, 1, 60).reshape(20, 3)  # multi-output regression: whole rows get noise, as before
    noisy = td.change_labels(targets, pct=25, seed=0)
    assert set(np.flatnonzero(np.any(noisy != targets, axis=1))) == set(
        np.flatnonzero(np.all(noisy != targets, axis=1))
    )


def test_change_labels_regression_adds_noise() -> None:
    y = np.linspace(0, 1, 40)
    y2 = td.change_labels(y, pct=25, seed=0)
    assert (y2 != y).sum() == 10


def test_unbalance_shrinks_small_classes_only() -> None:
    x, y = _data((30, 30, 10, 6))
    x2, y2 = td.unbalance(x, y, pct=50, seed=0)
    counts = [(y2 == c).sum() for c in range(4)]
    assert counts == [30, 30, 5, 3]


def test_add_noise_touches_pct_of_rows_with_scaled_sigma() -> None:
    x, _ = _data()
    x2 = td.add_noise(x, pct=50, seed=0)
    rows = np.flatnonzero(np.any(x2 != x, axis=1))
    assert len(rows) == 30
    assert np.std(x2[rows] - x[rows]) == pytest.approx(np.std(x) * 0.5, rel=0.3)


def test_overlap_duplicates_largest_class_as_second() -> None:
    x, y = _data()
    x2, y2 = td.overlap(x, y, pct=10, seed=0)
    assert len(y2) == len(y) + 3
    assert list(y2[-3:]) == [1, 1, 1]
    assert any(np.array_equal(x2[-1], row) for row in x[y == 0])


def test_bad_pct_is_an_error() -> None:
    x, y = _data()
    with pytest.raises(ValueError):
        td.remove(x, y, pct=0, seed=0)


def test_runtime_imports_no_tensorflow() -> None:
    import subprocess
    import sys

    code = "import sys, mutreal.runtime.training_data; print('tensorflow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
