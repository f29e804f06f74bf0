"""Each evaluated input gets a content id (row bytes, shape, dtype, label), in the order of the
predictions, whatever form the test data has: arrays, named arrays, batches of a generator.

The ids are what pairs runs of a program that made its data without a seed
(:mod:`mutreal.analysis.pairing`). The "model" here is a plain function of the input (a linear
rule), so the predictions are real and deterministic; no training.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mutreal.execution import per_input
from mutreal.execution.records import EvaluateRecord, RunRecord


class LinearRule:
    """Class 1 where the first feature is positive, as two softmax-like outputs."""

    def __call__(self, x: np.ndarray, training: bool = False) -> np.ndarray:
        first = np.asarray(x).reshape(len(x), -1)[:, 0]
        return np.stack([first <= 0, first > 0], axis=1).astype("float32")


def _predict(model, x, batch_size):  # the framework's predict, for an object without one
    return model(x)


def test_array_inputs_get_one_id_per_input_in_prediction_order() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 3)).astype("float32")
    y = (x[:, 0] > 0).astype(int)
    result = per_input.per_input_arrays(LinearRule(), x, y, None, _predict)
    ids = result["input_ids"]
    assert len(ids) == 50 == len(set(ids)) and result["labels"] == y.tolist()
    # shuffled rows: the same ids, shuffled the same way (identity is the content, not the position)
    order = rng.permutation(50)
    again = per_input.per_input_arrays(LinearRule(), x[order], y[order], None, _predict)
    assert again["input_ids"] == [ids[i] for i in order]
    # the label is part of the test case; so are dtype and shape
    relabelled = per_input.per_input_arrays(LinearRule(), x, 1 - y, None, _predict)
    assert not set(relabelled["input_ids"]) & set(ids)
    wider = per_input.per_input_arrays(LinearRule(), x.astype("float64"), y, None, _predict)
    assert not set(wider["input_ids"]) & set(ids)


def test_generator_batches_get_the_ids_the_whole_array_gets() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 2, 2)).astype("float32")
    y = np.eye(2)[(x[:, 0, 0] > 0).astype(int)]  # one-hot labels: ids carry the class
    whole = per_input.per_input_arrays(LinearRule(), x, y, None, _predict)
    collector = per_input.BatchPredictions(LinearRule())
    batches = ((x[i : i + 16], y[i : i + 16]) for i in range(0, 40, 16))
    for _ in per_input.recording(batches, collector, None):
        pass
    assert collector.result()["input_ids"] == whole["input_ids"]
    assert whole["input_ids"][0].endswith(f":{int(np.argmax(y[0]))}")


def test_named_inputs_and_unreadable_rows() -> None:
    named = {"b": np.arange(6.0).reshape(3, 2), "a": np.ones((3, 1))}
    digests = per_input.row_digests(named)
    assert digests is not None and len(set(digests)) == 3
    assert per_input.row_digests({"a": np.ones((3, 1)), "b": np.arange(6.0).reshape(3, 2)}) == digests
    assert per_input.row_digests({"a": np.ones((3, 1)), "b": np.ones((2, 1))}) is None
    assert per_input.row_digests(np.array(3.0)) is None
    assert per_input.input_ids(digests, [0, 1]) is None  # labels of another length: no ids


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 30), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_equal_rows_have_equal_ids_and_other_rows_other_ids(n: int, width: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, size=(n, width)).astype("int8")
    labels = [int(v) for v in rng.integers(0, 2, size=n)]
    ids = per_input.input_ids(per_input.row_digests(x), labels)
    for i in range(n):
        for j in range(n):
            same_case = bool((x[i] == x[j]).all()) and labels[i] == labels[j]
            assert (ids[i] == ids[j]) == same_case


def test_records_keep_ids_and_old_records_read_without_them() -> None:
    record = EvaluateRecord(predictions=[1, 0], labels=[1, 1], prediction_kind="class", input_ids=["a:1", "b:1"])
    assert EvaluateRecord.from_dict(record.to_dict()).input_ids == ["a:1", "b:1"]
    old = {k: v for k, v in record.to_dict().items() if k != "input_ids"}
    assert EvaluateRecord.from_dict(old).input_ids is None
    run = RunRecord("k", "p.py", 0, "ok", evaluations=[EvaluateRecord.from_dict(old)])
    assert RunRecord.from_dict(run.to_dict()).evaluations[0].input_ids is None


def test_row_digests_do_not_copy_the_inputs() -> None:
    """A program judged on its training set (no evaluate) can hand over hundreds of MB: hashing its
    rows must not hold a second copy of them (at the end of a run, near the memory limit), and the
    digests are those of each row's bytes."""
    import hashlib
    import tracemalloc

    x = np.random.default_rng(0).random((20_000, 250))  # 40 MB of float64
    tracemalloc.start()
    try:
        digests = per_input.row_digests(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000, f"{peak / 1e6:.0f} MB held while hashing 40 MB of rows"
    base = hashlib.blake2b(f"{x.dtype.str}{x.shape[1:]}".encode(), digest_size=per_input.ID_BYTES)
    first = base.copy()
    first.update(x[0].tobytes())
    assert digests is not None and digests[0] == first.digest() and len(digests) == len(x)
    # a strided view (every other column) hashes its rows' values, as a contiguous copy of it would
    view = x[:5, ::2]
    assert per_input.row_digests(view) == per_input.row_digests(np.ascontiguousarray(view))
