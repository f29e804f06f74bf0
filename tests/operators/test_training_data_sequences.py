"""TCO (and the other class-wise training-data faults) on labels of every shape a real program
feeds: one class per step of a sequence, ``(n, T, 1)`` as Keras' ``TimeDistributed`` outputs take
them, ``(n, T)`` ids, one-hot steps ``(n, T, C)``; and one label per sample as a ``(n, 1)`` integer
column. The TCO mutant of a sequence-labelling program died in ``overlap`` (a broadcast of one class
per sample into a whole sequence), which read as a failed mutant that was mutreal's."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mutreal.runtime import training_data as td


def _steps(y: np.ndarray) -> np.ndarray:
    """The class id of every step, (n, T)."""
    if y.ndim == 3 and y.shape[-1] > 1:
        return np.argmax(y, axis=-1)
    return y.reshape(len(y), -1)


def _sequences(form: str, ids: np.ndarray, classes: int) -> np.ndarray:
    if form == "column":
        return ids[..., None].astype("float32")
    if form == "ids":
        return ids.astype("int64")
    return np.eye(classes, dtype="float32")[ids]


@given(
    n=st.integers(4, 40),
    steps=st.integers(2, 12),
    classes=st.integers(2, 4),
    form=st.sampled_from(["column", "ids", "onehot"]),
    pct=st.sampled_from([5.0, 25.0, 50.0, 100.0]),
    seed=st.integers(0, 3),
)
@settings(max_examples=80, deadline=None)
def test_overlap_of_sequence_labels_copies_inputs_with_conflicting_steps(n, steps, classes, form, pct, seed) -> None:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, classes, size=(n, steps))
    # (n, T) ids whose every row is one 1 among 0s read as one-hot rows, one label per sample
    assume(form != "ids" or not (np.all(ids <= 1) and np.all(ids.sum(axis=1) == 1)))
    y = _sequences(form, ids, classes)
    x = rng.normal(size=(n, steps, 3))
    x2, y2 = td.overlap(x, y, pct=pct, seed=seed)
    assert y2.shape[1:] == y.shape[1:] and y2.dtype == y.dtype and len(x2) == len(y2)
    assert np.array_equal(x2[:n], x) and np.array_equal(y2[:n], y)
    copies = len(y2) - n
    if copies == 0:
        return
    # a copy's input is one of the inputs, its steps those of that input with the fullest class
    # turned into the second: steps of other classes keep theirs
    majority = np.array([np.bincount(row, minlength=classes).argmax() for row in ids])
    counts = np.bincount(majority, minlength=classes)
    first = int(np.argmax(counts))
    assert copies == round(counts[first] * pct / 100)
    for k in range(copies):
        source = next(i for i in range(n) if np.array_equal(x[i], x2[n + k]))
        assert majority[source] == first
        before, after = ids[source], _steps(y2[n + k : n + k + 1])[0]
        assert first not in set(after.tolist())
        assert np.array_equal(after[before != first], before[before != first])
        assert len(set(after[before == first].tolist())) == 1
    if form == "onehot":
        assert np.allclose(y2.sum(axis=-1), 1.0)


def test_overlap_of_deepfd_style_batches() -> None:
    # batches of 20 steps, labels (20, 1) per batch: np.array([y.reshape((20, 1)) for y in ...])
    rng = np.random.default_rng(0)
    y = rng.choice([0.0, 0.0, 1.0], size=(12, 20, 1))
    x = rng.normal(size=(12, 20, 5))
    x2, y2 = td.overlap(x, y, pct=25.0, seed=0)
    assert x2.shape == (15, 20, 5) and y2.shape == (15, 20, 1)
    assert np.all(y2[12:] == 1.0)


@given(n=st.integers(6, 60), classes=st.integers(2, 5), seed=st.integers(0, 5))
@settings(max_examples=40, deadline=None)
def test_class_faults_keep_an_integer_label_column(n, classes, seed) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, size=(n, 1))
    x = rng.normal(size=(n, 3))
    for fault in (td.overlap, td.remove, td.unbalance):
        x2, y2 = fault(x, y, pct=30.0, seed=seed)
        assert y2.ndim == 2 and y2.shape[1] == 1 and y2.dtype == y.dtype and len(x2) == len(y2)
    x2, y2 = td.overlap(x, y, pct=30.0, seed=seed)
    ids, counts = np.unique(y[:, 0], return_counts=True)
    if len(ids) > 1:
        order = np.argsort(-counts, kind="stable")
        assert set(y2[n:, 0].tolist()) <= {int(ids[order[1]])}
