"""TensorFlow 1's MNIST tutorial reader, served offline (mutreal.compat.tf1_mnist).

The idx files are written by the ``mnist_idx`` fixture (20 tiny images, gzipped as the original
distribution is); nothing imports TensorFlow.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mutreal.compat import tf1_mnist
from mutreal.execution.fit_capture import MissingDatasetError


def test_splits_scaling_and_one_hot(tmp_path: Path, mnist_idx):
    mnist_idx(tmp_path / "MNIST_data")
    mnist = tf1_mnist.read_data_sets(str(tmp_path / "MNIST_data"), one_hot=True, validation_size=5)
    assert mnist.train.num_examples == 15 and mnist.validation.num_examples == 5 and mnist.test.num_examples == 6
    assert mnist.train.images.shape == (15, 784) and mnist.train.images.dtype == np.float32
    assert mnist.train.labels.shape == (15, 10) and set(mnist.train.labels.sum(axis=1)) == {1.0}
    assert mnist.train.images.min() >= 0.0 and mnist.train.images.max() <= 1.0
    # the validation split is the first five training images, in order
    assert np.allclose(mnist.validation.images[:, 0] * 255, np.arange(5) * 10)
    assert list(mnist.validation.labels.argmax(axis=1)) == [0, 1, 2, 3, 4]
    dense = tf1_mnist.read_data_sets(str(tmp_path / "MNIST_data"), validation_size=0, reshape=False, dtype="uint8")
    assert dense.train.images.shape == (20, 28, 28, 1) and dense.train.images.dtype == np.uint8
    assert list(dense.train.labels[:12]) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]


def test_unzipped_files_are_read_and_bad_input_is_refused(tmp_path: Path, mnist_idx):
    mnist_idx(tmp_path / "raw", gz=False)
    assert tf1_mnist.read_data_sets(str(tmp_path / "raw"), validation_size=0).train.num_examples == 20
    with pytest.raises(ValueError, match="Validation size"):
        tf1_mnist.read_data_sets(str(tmp_path / "raw"), validation_size=21)
    with pytest.raises(TypeError, match="dtype"):
        tf1_mnist.read_data_sets(str(tmp_path / "raw"), dtype="float64", validation_size=0)
    (tmp_path / "raw" / "t10k-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2051, 6) + bytes(6))
    with pytest.raises(ValueError, match="not an MNIST idx file"):
        tf1_mnist.read_data_sets(str(tmp_path / "raw"))


def test_an_absent_file_is_missing_data_not_a_crash(tmp_path: Path, mnist_idx):
    with pytest.raises(MissingDatasetError, match="train-images-idx3-ubyte.gz' is not available offline"):
        tf1_mnist.read_data_sets(str(tmp_path / "nowhere"), one_hot=True)
    mnist_idx(tmp_path / "partial")
    (tmp_path / "partial" / "t10k-labels-idx1-ubyte.gz").unlink()
    with pytest.raises(MissingDatasetError, match="t10k-labels"):
        tf1_mnist.read_data_sets(str(tmp_path / "partial"))


def test_next_batch_shuffles_each_epoch_and_joins_the_remainder(tmp_path: Path, mnist_idx):
    mnist_idx(tmp_path / "d")
    np.random.seed(3)
    train = tf1_mnist.read_data_sets(str(tmp_path / "d"), validation_size=0).train
    first = [train.next_batch(6) for _ in range(3)]  # 18 of 20
    seen = np.concatenate([images[:, 0] for images, _ in first])
    assert len(set(np.round(seen * 255).astype(int))) == 18 and train.epochs_completed == 0
    assert list(np.round(seen * 255).astype(int)) != sorted(np.round(seen * 255).astype(int))  # shuffled
    images, labels = train.next_batch(6)  # the last 2 of epoch 1, then 4 of epoch 2
    assert images.shape == (6, 784) and labels.shape == (6,) and train.epochs_completed == 1
    values = np.round(images[:, 0] * 255).astype(int)
    assert set(values[:2]) | set(np.round(seen * 255).astype(int)) == set(range(0, 200, 10))
    assert all(label == (value // 10) % 10 for label, value in zip(labels, values, strict=True))  # pairs kept
    unshuffled = tf1_mnist.read_data_sets(str(tmp_path / "d"), validation_size=0).train
    assert list(np.round(unshuffled.next_batch(4, shuffle=False)[0][:, 0] * 255)) == [0, 10, 20, 30]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=12), st.integers(0, 2**16))
def test_every_epoch_serves_each_example_once(mnist_idx, sizes: list[int], seed: int):
    """Whatever the batch sizes, the examples served, cut into epochs of 20, are each epoch's 20."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        mnist_idx(Path(folder))
        np.random.seed(seed)
        train = tf1_mnist.read_data_sets(folder, validation_size=0).train
        served = np.concatenate([np.round(train.next_batch(n)[0][:, 0] * 255) for n in sizes]).astype(int)
    for start in range(0, len(served) - 19, 20):
        assert sorted(served[start : start + 20]) == list(range(0, 200, 10))
    assert train.epochs_completed == sum(sizes) // 20 or sum(sizes) % 20 == 0


def test_fake_data(tmp_path: Path):
    fake = tf1_mnist.read_data_sets(str(tmp_path), fake_data=True, one_hot=True)
    images, labels = fake.train.next_batch(3)
    assert len(images) == 3 and len(images[0]) == 784 and labels[0] == [1] + [0] * 9
