"""The known data sets (``taxonomy/datasets.csv``): the names programs load them by and their sizes.

Why a module of its own, below every stage: two stages read the one table. The extractor gives a
loaded data set's arrays their shape (``mnist.load_data()``'s ``x_train`` is 60000 x 28 x 28) and
classify's training-data rules (:mod:`mutreal.label.data_class`) name the data set and its size. A
size written in two places drifts; the table is the one place, :func:`dataset_sizes` the extractor's view.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache

from mutreal.resources import data_dir


@dataclass(frozen=True)
class KnownDataset:
    """A row of ``datasets.csv``: a dataset and the names it is loaded by."""

    name: str
    keras: tuple[str, ...]
    sklearn: tuple[str, ...]
    tfds: tuple[str, ...]
    openml: tuple[str, ...]
    files: tuple[str, ...]
    train_size: int | None
    test_size: int | None
    total_size: int | None
    #: the shape of one sample (``(28, 28)``; ``()`` where a sample has no fixed shape, a sequence of
    #: word ids), None where the table records none
    sample_shape: tuple[int, ...] | None
    task: str
    note: str | None = None


def _ints(text: str) -> int | None:
    return int(text) if text.strip() else None


def _names(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(";") if p.strip())


@lru_cache(maxsize=1)
def known_datasets() -> tuple[KnownDataset, ...]:
    """The table of known datasets shipped in ``taxonomy/datasets.csv``."""
    with (data_dir("taxonomy") / "datasets.csv").open(encoding="utf-8", newline="") as fh:
        return tuple(
            KnownDataset(
                name=row["name"],
                keras=_names(row["keras"]),
                sklearn=_names(row["sklearn"]),
                tfds=_names(row["tfds"]),
                openml=_names(row["openml"]),
                files=_names(row["files"]),
                train_size=_ints(row["train_size"]),
                test_size=_ints(row["test_size"]),
                total_size=_ints(row["total_size"]),
                sample_shape=_shape(row["sample_shape"]),
                task=row["task"],
                note=row["note"] or None,
            )
            for row in csv.DictReader(fh)
        )


def _shape(text: str) -> tuple[int, ...] | None:
    """``28x28`` -> (28, 28); ``-`` -> () (no fixed shape); empty -> None (not recorded)."""
    text = text.strip()
    if not text:
        return None
    return () if text == "-" else tuple(int(d) for d in text.split("x"))


#: sklearn loaders are named ``load_<name>`` or ``fetch_<name>``; the extractor records ``<name>``
_SKLEARN_PREFIXES = ("load_", "fetch_")


@lru_cache(maxsize=1)
def dataset_sizes() -> dict[str, tuple[int, int, list[int]]]:
    """The extractor's view of the table: loader name (a Keras data set, or a sklearn loader without
    its ``load_``/``fetch_``) -> (training samples, test samples (0: no split), one sample's shape),
    for the rows with a sample shape. A Keras loader gives the train/test split, a sklearn one all
    rows unsplit (``boston_housing`` 404/102 from Keras, ``boston`` 506 from sklearn)."""
    sizes: dict[str, tuple[int, int, list[int]]] = {}
    for ds in known_datasets():
        if ds.sample_shape is None:
            continue
        for name in ds.keras:
            if ds.train_size is not None:
                sizes[name.lower()] = (ds.train_size, ds.test_size or 0, list(ds.sample_shape))
        for name in ds.sklearn:
            total = ds.total_size or ds.train_size
            if name.startswith(_SKLEARN_PREFIXES) and total is not None:
                sizes[name.split("_", 1)[1].lower()] = (total, 0, list(ds.sample_shape))
    return sizes
