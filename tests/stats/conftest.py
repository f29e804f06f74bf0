"""Fixtures for the statistics tests: RunRecords built by hand (no training) for the verdict layer."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from mutreal.execution.records import EvaluateRecord, RunRecord


def make_records(
    program: str,
    accuracies: Sequence[float | None],
    correct: Sequence[Sequence[bool]] | None = None,
) -> list[RunRecord]:
    """One RunRecord per seed; ``None`` accuracy means a crash. ``correct`` gives per-input rightness."""
    records = []
    for seed, accuracy in enumerate(accuracies):
        if accuracy is None:
            records.append(
                RunRecord(key=f"{program}-{seed}", program=program, seed=seed, outcome="crash",
                          error_type="ValueError", error_message="boom")
            )  # fmt: skip
            continue
        evaluation = EvaluateRecord(results={"loss": 1.0 - accuracy, "accuracy": accuracy})
        if correct is not None:
            row = list(correct[seed])
            evaluation.labels = [1] * len(row)
            evaluation.predictions = [1 if ok else 0 for ok in row]
            evaluation.prediction_kind = "class"
            evaluation.n_inputs = len(row)
        records.append(
            RunRecord(key=f"{program}-{seed}", program=program, seed=seed, outcome="ok", metric_name="accuracy",
                      metric_value=accuracy, direction="higher", evaluations=[evaluation])
        )  # fmt: skip
    return records


@pytest.fixture
def records() -> Callable[..., list[RunRecord]]:
    return make_records


def correctness(n: int, inputs: int, wrong: Sequence[int], seed_wrong_share: float = 1.0) -> np.ndarray:
    """n x inputs matrix: right everywhere except the ``wrong`` inputs (wrong in a share of instances)."""
    matrix = np.ones((n, inputs), dtype=bool)
    wrong_instances = math.ceil(n * seed_wrong_share)
    for t in wrong:
        matrix[:wrong_instances, t] = False
    return matrix


@pytest.fixture
def correct_matrix() -> Callable[..., np.ndarray]:
    return correctness
