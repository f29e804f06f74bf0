"""TensorFlow 1's MNIST tutorial reader (``tensorflow.examples.tutorials.mnist.input_data``), offline.

Many TensorFlow 1 programs (most of TFBugs2018's MNIST bugs) begin with
``input_data.read_data_sets(folder, one_hot=True)`` and train on ``mnist.train.next_batch(n)``.
TensorFlow 2 no longer ships that module, so this one gives the same API, served to programs by
:mod:`mutreal.compat.tf1_contrib`'s import hook: it reads the four idx files of MNIST
(``train-images-idx3-ubyte.gz`` ...) from the folder the program names, keeps the first
``validation_size`` (5000) training images as the validation split, scales images to floats in
[0, 1] reshaped to 784 values, one-hot encodes labels on request, and ``next_batch`` shuffles at
the start of every epoch with NumPy's global generator (seeded by the worker for every run), as the
original did. The original downloaded absent files; a worker is offline, so an absent file raises
mutreal's missing-data error and the run is counted ``missing-data``, not a crash.
"""

from __future__ import annotations

import gzip
import os
from collections import namedtuple
from typing import Any

import numpy as np

TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
#: where the original read_data_sets downloaded the files from (named in the missing-data error)
SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
#: idx magic numbers: unsigned bytes, 3 dimensions (images) or 1 (labels)
_IMAGES_MAGIC, _LABELS_MAGIC = 2051, 2049

Datasets = namedtuple("Datasets", ["train", "validation", "test"])


def _missing(path: str) -> FileNotFoundError:
    try:
        from mutreal.execution.fit_capture import MissingDatasetError
    except ImportError:  # pragma: no cover - the execution stage is part of mutreal
        MissingDatasetError = FileNotFoundError  # type: ignore[misc]  # noqa: N806
    name = os.path.basename(path)
    return MissingDatasetError(
        f"dataset file '{name}' is not available offline: place it at {os.path.abspath(path)} "
        f"(input_data.read_data_sets downloads it from {SOURCE_URL}{name})"
    )


def _open(path: str) -> Any:
    """The idx file at ``path`` (gzipped, or its unzipped twin without ``.gz``)."""
    if os.path.exists(path):
        return gzip.open(path, "rb")
    if os.path.exists(path[: -len(".gz")]):
        return open(path[: -len(".gz")], "rb")
    raise _missing(path)


def _header(stream: Any, magic: int, dimensions: int, path: str) -> list[int]:
    values = np.frombuffer(stream.read(4 * (1 + dimensions)), dtype=">u4")
    if len(values) != 1 + dimensions or int(values[0]) != magic:
        raise ValueError(f"{path} is not an MNIST idx file (magic number {int(values[0]) if len(values) else None}, "
                         f"expected {magic})")  # fmt: skip
    return [int(v) for v in values[1:]]


def extract_images(path: str) -> np.ndarray:
    """The images of an idx3 file as a uint8 array [count, rows, columns, 1]."""
    with _open(path) as stream:
        count, rows, columns = _header(stream, _IMAGES_MAGIC, 3, path)
        data = np.frombuffer(stream.read(count * rows * columns), dtype=np.uint8)
    if data.size != count * rows * columns:
        raise ValueError(f"{path} is truncated: {data.size} bytes of pixels for {count} images of {rows}x{columns}")
    return data.reshape(count, rows, columns, 1)


def dense_to_one_hot(labels: np.ndarray, num_classes: int = 10) -> np.ndarray:
    """Class indices -> one-hot rows (float64, as the original returned them)."""
    one_hot = np.zeros((labels.shape[0], num_classes))
    one_hot[np.arange(labels.shape[0]), labels.astype(int)] = 1
    return one_hot


def extract_labels(path: str, one_hot: bool = False, num_classes: int = 10) -> np.ndarray:
    """The labels of an idx1 file: uint8 class indices, or one-hot rows."""
    with _open(path) as stream:
        (count,) = _header(stream, _LABELS_MAGIC, 1, path)
        labels = np.frombuffer(stream.read(count), dtype=np.uint8)
    if labels.size != count:
        raise ValueError(f"{path} is truncated: {labels.size} labels of {count}")
    return dense_to_one_hot(labels, num_classes) if one_hot else labels


def _dtype_name(dtype: Any) -> str:
    name = getattr(dtype, "name", None) or getattr(dtype, "__name__", None) or str(dtype)
    return str(name).replace("tf.", "")


class DataSet:
    """One split: ``images``, ``labels``, ``num_examples``, ``epochs_completed`` and ``next_batch``."""

    def __init__(self, images: np.ndarray, labels: np.ndarray, fake_data: bool = False, one_hot: bool = False,
                 dtype: Any = "float32", reshape: bool = True, seed: int | None = None) -> None:  # fmt: skip
        kind = _dtype_name(dtype)
        if kind not in ("float32", "uint8"):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        if seed is not None:
            np.random.seed(seed)
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}")
            self._num_examples = images.shape[0]
            if reshape:
                images = images.reshape(images.shape[0], int(np.prod(images.shape[1:])))
            if kind == "float32":
                images = images.astype(np.float32) * (1.0 / 255.0)
        self._images, self._labels = images, labels
        self._epochs_completed = 0
        self._index_in_epoch = 0
        self._fake = fake_data

    @property
    def images(self) -> np.ndarray:
        return self._images

    @property
    def labels(self) -> np.ndarray:
        return self._labels

    @property
    def num_examples(self) -> int:
        return self._num_examples

    @property
    def epochs_completed(self) -> int:
        return self._epochs_completed

    def _shuffled(self) -> None:
        order = np.arange(self._num_examples)
        np.random.shuffle(order)
        self._images, self._labels = self._images[order], self._labels[order]

    def next_batch(self, batch_size: int, fake_data: bool = False, shuffle: bool = True) -> tuple[Any, Any]:
        """The next ``batch_size`` examples; an epoch's remainder is joined to the next (shuffled) epoch's start."""
        if fake_data or self._fake:
            image = [1.0] * 784
            label = [1] + [0] * 9 if getattr(self, "one_hot", False) else 0
            return [image] * batch_size, [label] * batch_size
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffled()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch += batch_size
            return self._images[start : self._index_in_epoch], self._labels[start : self._index_in_epoch]
        self._epochs_completed += 1
        rest = self._num_examples - start
        images_rest, labels_rest = self._images[start:], self._labels[start:]
        if shuffle:
            self._shuffled()
        self._index_in_epoch = batch_size - rest
        end = self._index_in_epoch
        return (np.concatenate((images_rest, self._images[:end]), axis=0),
                np.concatenate((labels_rest, self._labels[:end]), axis=0))  # fmt: skip


def read_data_sets(train_dir: str, fake_data: bool = False, one_hot: bool = False, dtype: Any = "float32",
                   reshape: bool = True, validation_size: int = 5000, seed: int | None = None,
                   source_url: str | None = None) -> Datasets:  # fmt: skip
    """MNIST from the idx files in ``train_dir``: train (less the first ``validation_size``), validation, test."""
    if fake_data:
        fake = [DataSet(np.empty(0), np.empty(0), fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
                for _ in range(3)]  # fmt: skip
        return Datasets(*fake)
    train_images = extract_images(os.path.join(train_dir, TRAIN_IMAGES))
    train_labels = extract_labels(os.path.join(train_dir, TRAIN_LABELS), one_hot=one_hot)
    test_images = extract_images(os.path.join(train_dir, TEST_IMAGES))
    test_labels = extract_labels(os.path.join(train_dir, TEST_LABELS), one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. Received: {validation_size}.")
    options = {"dtype": dtype, "reshape": reshape, "seed": seed}
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:], **options),
        validation=DataSet(train_images[:validation_size], train_labels[:validation_size], **options),
        test=DataSet(test_images, test_labels, **options),
    )


def load_mnist(train_dir: str = "MNIST-data") -> Datasets:
    """``read_data_sets(train_dir)``, the original's shorthand."""
    return read_data_sets(train_dir)
