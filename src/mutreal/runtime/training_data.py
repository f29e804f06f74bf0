"""DeepCrime's training-data faults as seeded numpy functions a mutant calls before ``fit``.

A training-data mutant contains one inserted line such as
``x_train, y_train = _mutreal_td.remove(x_train, y_train, pct=10.0, seed=0)``: the fault is
visible in the diff and reproducible (the seed is written into the mutant). Labels may be class
ids (1-D ints) or one-hot rows (2-D); they are returned in the format they came in. Inputs are
any array-likes numpy can convert; the result is a numpy array. The inputs of a multi-input model
may be given as a list or tuple of arrays (``[x_img, x_head]``): the same rows are removed from,
added to or noised in every one of them, and the group comes back as a list or tuple. Inputs
that are file paths (a generator reads the images) are rows like any other: removed or added
together with their labels. Regression targets (not whole numbers) are grouped into bands around
their mean, below one standard deviation, within, above, where DeepCrime's operators work per class.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["change_labels", "remove", "unbalance", "add_noise", "overlap"]


def _rows(x: Any) -> Any:
    """Numpy arrays of one input or of a list/tuple of inputs (aligned rows)."""
    if isinstance(x, list | tuple):
        return type(x)(np.asarray(a) for a in x)
    return np.asarray(x)


def _take(x: Any, rows: np.ndarray) -> Any:
    if isinstance(x, list | tuple):
        return type(x)(a[rows] for a in x)
    return x[rows]


def _concat(x: Any, rows: np.ndarray) -> Any:
    if isinstance(x, list | tuple):
        return type(x)(np.concatenate([a, a[rows]]) for a in x)
    return np.concatenate([x, x[rows]])


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _is_onehot(y: np.ndarray) -> bool:
    return y.ndim == 2 and y.shape[1] > 1


def _is_sequence_labels(y: np.ndarray) -> bool:
    """Several class labels per sample: ``(n, T)`` class ids with T > 1 that are not one-hot rows, or
    any ``(n, T, ...)`` of class ids or one-hot steps.

    A ``(n, C)`` one-hot matrix and an ``(n, 1)`` column are one label per sample, and several real
    numbers per sample are a multi-output regression target: those keep the other paths."""
    if y.ndim < 2 or y.size == 0 or not np.issubdtype(y.dtype, np.number):
        return False
    integral = np.issubdtype(y.dtype, np.integer) or bool(np.all(np.equal(np.mod(y, 1), 0)))
    if not integral:
        return False
    if y.ndim >= 3:
        return True
    return y.shape[1] > 1 and not _is_onehot_values(y)


def _is_onehot_values(y: np.ndarray) -> bool:
    """Rows of zeros and ones summing to one: a one-hot (or label-smoothed, rows summing to one)
    matrix rather than T class ids per sample."""
    with np.errstate(invalid="ignore"):
        return bool(np.all((y >= 0) & (y <= 1)) and np.allclose(y.sum(axis=1), 1.0))


def _class_ids(y: np.ndarray) -> np.ndarray:
    if _is_onehot(y):
        return np.argmax(y, axis=1)
    return y.reshape(len(y), -1)[:, 0] if y.ndim > 1 else y


def _is_classification(y: np.ndarray) -> bool:
    if _is_onehot(y):
        return True
    ids = _class_ids(y)
    return np.issubdtype(ids.dtype, np.integer) or bool(np.all(np.equal(np.mod(ids, 1), 0)))


def _step_ids(y: np.ndarray) -> tuple[np.ndarray, bool]:
    """The class id of every step of sequence labels, ``(n, steps)``, and whether the steps are
    one-hot rows (``(n, T, C)``) rather than ids (``(n, T)``, ``(n, T, 1)``)."""
    if y.ndim >= 3 and y.shape[-1] > 1 and _is_onehot_values(y.reshape(-1, y.shape[-1])):
        return np.argmax(y, axis=-1).reshape(len(y), int(np.prod(y.shape[1:-1]))), True
    return y.reshape(len(y), int(np.prod(y.shape[1:]))), False


def _majority(steps: np.ndarray) -> np.ndarray:
    """Each row's most frequent class id (ties: the smallest id)."""
    classes = np.unique(steps)
    counts = np.stack([(steps == c).sum(axis=1) for c in classes], axis=1)
    return classes[np.argmax(counts, axis=1)]


def _groups(y: np.ndarray) -> np.ndarray:
    """The group of every sample that the class-wise operators work on: its class (for sequence
    labels, one class per step, the class most of its steps have: the first step alone says
    little of a sequence), or for regression targets (DeepCrime's buckets) its band around the
    mean, below one standard deviation, within, above (per target column; several columns combine
    their bands)."""
    if _is_sequence_labels(y):
        return _majority(_step_ids(y)[0])
    if _is_classification(y):
        return _class_ids(y)
    t = np.asarray(y, dtype=float).reshape(len(y), -1)
    std = t.std(axis=0)
    z = (t - t.mean(axis=0)) / np.where(std > 0, std, 1.0)
    bands = np.digitize(z, [-1.0, 1.0])  # 0, 1, 2
    return (bands * (3 ** np.arange(t.shape[1]))).sum(axis=1)


def _count(pct: float, n: int) -> int:
    if not 0 < pct <= 100:
        raise ValueError(f"pct must be in (0, 100], got {pct}")
    return min(n, int(round(n * pct / 100.0)))


def _set_class(y: np.ndarray, rows: np.ndarray, classes: np.ndarray) -> None:
    if _is_onehot(y):
        y[rows] = 0
        y[rows, classes] = 1
    elif y.ndim > 1:
        y[rows, 0] = classes
    else:
        y[rows] = classes


def change_labels(y: Any, pct: float, seed: int = 0) -> np.ndarray:
    """TCL: pct% of the most frequent class get another (random) class; for regression targets,
    pct% of the labels get Gaussian noise with the labels' standard deviation."""
    y = np.array(y, copy=True)
    if _is_sequence_labels(y):
        # one label per step of a sequence ((n, T) or (n, T, 1) class ids, (n, T, C) one-hot): every
        # step's label is a label, so the steps are relabelled as a flat list of labels would be
        last = y.reshape(-1, y.shape[-1])
        onehot = y.ndim >= 3 and y.shape[-1] > 1 and _is_onehot_values(last)
        steps = last if onehot else y.reshape(-1)
        return change_labels(steps, pct, seed).reshape(y.shape)
    rng = _rng(seed)
    if not _is_classification(y):
        rows = rng.choice(len(y), _count(pct, len(y)), replace=False)
        y[rows] = y[rows] + rng.normal(0.0, float(np.std(y)) or 1.0, size=y[rows].shape)
        return y
    ids = _class_ids(y)
    classes = np.arange(y.shape[1]) if _is_onehot(y) else np.unique(ids)
    if len(classes) < 2:
        return y
    values, counts = np.unique(ids, return_counts=True)
    top = values[np.argmax(counts)]
    members = np.flatnonzero(ids == top)
    rows = rng.choice(members, _count(pct, len(members)), replace=False)
    others = classes[classes != top]
    _set_class(y, rows, rng.choice(others, size=len(rows)))
    return y


def remove(x: Any, y: Any, pct: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """TRD: delete pct% of the training samples, per class (per band of a regression target: see
    :func:`_groups`), so balanced; at least one sample of every class is kept. The inputs may be
    anything with rows (file paths a generator reads): they stay aligned with the labels."""
    x, y = _rows(x), np.asarray(y)
    rng = _rng(seed)
    ids = _groups(y)
    drop = [
        rng.choice(m, min(_count(pct, len(m)), len(m) - 1), replace=False)
        for m in (np.flatnonzero(ids == c) for c in np.unique(ids))
    ]
    dropped = np.concatenate(drop) if drop else np.array([], dtype=int)
    keep = np.setdiff1d(np.arange(len(y)), dropped)
    return _take(x, keep), y[keep]


def unbalance(x: Any, y: Any, pct: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """TUD: delete pct% of the samples of every class (band of a regression target) smaller than
    the mean class size."""
    x, y = _rows(x), np.asarray(y)
    rng = _rng(seed)
    ids = _groups(y)
    values, counts = np.unique(ids, return_counts=True)
    mean = counts.mean()
    dropped = []
    for c, n in zip(values, counts, strict=True):
        if n < mean:
            members = np.flatnonzero(ids == c)
            dropped.append(rng.choice(members, min(_count(pct, n), n - 1), replace=False))
    if not dropped:
        return x, y
    keep = np.setdiff1d(np.arange(len(y)), np.concatenate(dropped))
    return _take(x, keep), y[keep]


def add_noise(x: Any, pct: float, seed: int = 0) -> Any:
    """TAN: Gaussian noise with sigma = std(x) * pct / 100 added to pct% of the inputs (of every
    input of a list/tuple, each with its own sigma, the same rows)."""
    if isinstance(x, list | tuple):
        return type(x)(add_noise(a, pct, seed) for a in x)
    x = np.array(x, dtype=float if not np.issubdtype(np.asarray(x).dtype, np.floating) else None, copy=True)
    rng = _rng(seed)
    rows = rng.choice(len(x), _count(pct, len(x)), replace=False)
    sigma = float(np.std(x)) * pct / 100.0
    x[rows] = x[rows] + rng.normal(0.0, sigma, size=x[rows].shape).astype(x.dtype)
    return x


def _relabel_steps(y: np.ndarray, first: Any, second: Any) -> np.ndarray:
    """Sequence labels ``y`` (a copy) whose steps of class ``first`` become ``second``, in the
    labels' own form (ids, ``(n, T, 1)`` ids or one-hot steps)."""
    steps, onehot = _step_ids(y)
    hit = steps == first
    if onehot:
        flat = y.reshape(*steps.shape, y.shape[-1])
        flat[hit] = 0
        flat[hit, int(second)] = 1
        return flat.reshape(y.shape)
    flat = y.reshape(steps.shape)
    flat[hit] = second
    return flat.reshape(y.shape)


def overlap(x: Any, y: Any, pct: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """TCO: pct% of the most frequent class are duplicated with the second most frequent class's
    label (for a regression target: of the fullest band, with targets of the second fullest). For
    sequence labels (one class per step: ``(n, T)``, ``(n, T, 1)``, one-hot ``(n, T, C)``) a
    sequence's class is the one most of its steps have, and its copy has those steps relabelled
    with the second class: the same input with conflicting labels, as a one-label copy has."""
    x, y = _rows(x), np.asarray(y)
    rng = _rng(seed)
    ids = _groups(y)
    values, counts = np.unique(ids, return_counts=True)
    if len(values) < 2:
        return x, y
    order = np.argsort(-counts, kind="stable")
    first, second = values[order[0]], values[order[1]]
    members = np.flatnonzero(ids == first)
    rows = rng.choice(members, _count(pct, len(members)), replace=False)
    if _is_sequence_labels(y):
        new_y = _relabel_steps(np.array(y[rows], copy=True), first, second)
    elif _is_classification(y):
        new_y = np.array(y[rows], copy=True)
        _set_class(new_y, np.arange(len(rows)), np.full(len(rows), second))
    else:  # a regression target: the copies take targets of the second band's samples
        new_y = np.array(y[rng.choice(np.flatnonzero(ids == second), len(rows))], copy=True)
    return _concat(x, rows), np.concatenate([y, new_y])
